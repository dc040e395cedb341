#    Licensed under the Apache License, Version 2.0 (the "License"); you may
#    not use this file except in compliance with the License. You may obtain
#    a copy of the License at
#
#         http://www.apache.org/licenses/LICENSE-2.0
#
#    Unless required by applicable law or agreed to in writing, software
#    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
#    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
#    License for the specific language governing permissions and limitations
#    under the License.

"""Notifications about resource providers and what they have.

- resource_provider.create, .update (its name or parent changed) and
  .delete;
- resource_provider.inventory.update: its whole inventory after a write;
- resource_provider.traits.update and resource_provider.aggregates.update:
  its whole set after a write.

The last three carry the provider's generation after the write, so a
listener can order them and tell which it has already applied. They are
queued by the Placement API after the transaction committed, and built
and sent by its sender (``notification.send_later``).
"""

from oslo_versionedobjects import fields

from zun_hostcap.objects import base
from zun_hostcap.objects.notifications import base as notification


@base.ZunHostcapObjectRegistry.register
class ResourceProviderPayload(notification.NotificationPayloadBase):
    """A provider: its identity, name, place in its tree, generation."""

    SCHEMA = {
        'uuid': ('resource_provider', 'uuid'),
        'name': ('resource_provider', 'name'),
        'generation': ('resource_provider', 'generation'),
        'parent_provider_uuid': ('resource_provider',
                                 'parent_provider_uuid'),
        'root_provider_uuid': ('resource_provider', 'root_provider_uuid'),
    }
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'uuid': fields.UUIDField(),
        'name': fields.StringField(),
        'generation': fields.IntegerField(),
        'parent_provider_uuid': fields.UUIDField(nullable=True),
        'root_provider_uuid': fields.UUIDField(),
    }

    def __init__(self, resource_provider=None):
        super().__init__()
        if resource_provider is not None:
            self.populate_schema(resource_provider=resource_provider)


class _ProviderStatePayload(notification.NotificationPayloadBase):
    """Base of the payloads of something a provider has, after a write.

    The source ``resource_provider`` needs only its uuid and generation.
    """

    SCHEMA = {
        'resource_provider_uuid': ('resource_provider', 'uuid'),
        'resource_provider_generation': ('resource_provider',
                                         'generation'),
    }

    fields = {
        'resource_provider_uuid': fields.UUIDField(),
        'resource_provider_generation': fields.IntegerField(),
    }


@base.ZunHostcapObjectRegistry.register
class InventoryPayload(notification.NotificationPayloadBase):
    """The inventory of one resource class."""

    SCHEMA = {
        'resource_class': ('inventory', 'resource_class'),
        'total': ('inventory', 'total'),
        'reserved': ('inventory', 'reserved'),
        'min_unit': ('inventory', 'min_unit'),
        'max_unit': ('inventory', 'max_unit'),
        'step_size': ('inventory', 'step_size'),
        'allocation_ratio': ('inventory', 'allocation_ratio'),
    }
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'resource_class': fields.StringField(),
        'total': fields.IntegerField(),
        'reserved': fields.IntegerField(),
        'min_unit': fields.IntegerField(),
        'max_unit': fields.IntegerField(),
        'step_size': fields.IntegerField(),
        'allocation_ratio': fields.FloatField(),
    }

    def __init__(self, inventory=None):
        super().__init__()
        if inventory is not None:
            self.populate_schema(inventory=inventory)


@base.ZunHostcapObjectRegistry.register
class ResourceProviderInventoryPayload(_ProviderStatePayload):
    """A provider's whole inventory, by resource class name."""

    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = dict(_ProviderStatePayload.fields, inventories=(
        fields.ListOfObjectsField('InventoryPayload')))

    def __init__(self, resource_provider=None, inventories=()):
        """:param inventories: Inventory objects, or {field: value} each."""
        super().__init__()
        if resource_provider is None:
            return  # being deserialized
        self.populate_schema(resource_provider=resource_provider)
        self.inventories = [
            InventoryPayload(inventory) for inventory in
            sorted(inventories, key=_resource_class)]
        self.obj_reset_changes(recursive=True)


def _resource_class(inventory):
    if isinstance(inventory, dict):
        return inventory['resource_class']
    return inventory.resource_class


@base.ZunHostcapObjectRegistry.register
class ResourceProviderTraitsPayload(_ProviderStatePayload):
    """A provider's traits, by name."""

    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = dict(_ProviderStatePayload.fields,
                  traits=fields.ListOfStringsField())

    def __init__(self, resource_provider=None, traits=()):
        super().__init__()
        if resource_provider is None:
            return
        self.populate_schema(resource_provider=resource_provider)
        self.traits = sorted(traits)
        self.obj_reset_changes()


@base.ZunHostcapObjectRegistry.register
class ResourceProviderAggregatesPayload(_ProviderStatePayload):
    """The aggregates a provider is a member of."""

    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = dict(_ProviderStatePayload.fields,
                  aggregates=fields.ListOfUUIDField())

    def __init__(self, resource_provider=None, aggregates=()):
        super().__init__()
        if resource_provider is None:
            return
        self.populate_schema(resource_provider=resource_provider)
        self.aggregates = sorted(aggregates)
        self.obj_reset_changes()


@notification.notification_sample('resource_provider-create.json',
                                  'resource_provider-update.json',
                                  'resource_provider-delete.json')
@base.ZunHostcapObjectRegistry.register
class ResourceProviderNotification(notification.NotificationBase):
    """resource_provider.create, .update and .delete."""

    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'payload': fields.ObjectField('ResourceProviderPayload'),
    }


@notification.notification_sample('resource_provider-inventory-update.json')
@base.ZunHostcapObjectRegistry.register
class ResourceProviderInventoryNotification(notification.NotificationBase):
    """resource_provider.inventory.update."""

    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'payload': fields.ObjectField('ResourceProviderInventoryPayload'),
    }


@notification.notification_sample('resource_provider-traits-update.json')
@base.ZunHostcapObjectRegistry.register
class ResourceProviderTraitsNotification(notification.NotificationBase):
    """resource_provider.traits.update."""

    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'payload': fields.ObjectField('ResourceProviderTraitsPayload'),
    }


@notification.notification_sample(
    'resource_provider-aggregates-update.json')
@base.ZunHostcapObjectRegistry.register
class ResourceProviderAggregatesNotification(notification.NotificationBase):
    """resource_provider.aggregates.update."""

    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'payload': fields.ObjectField('ResourceProviderAggregatesPayload'),
    }


# What the request queues is plain data (see notification.send_later):
# the builders below make the notifications of it, in the sender, from
# the values alone.

def _provider(uuid, generation):
    return {'uuid': uuid, 'generation': generation}


def build_provider_notification(action, values):
    return notification.make(
        ResourceProviderNotification, 'resource_provider', action,
        ResourceProviderPayload(values))


def build_inventory_notification(uuid, generation, records):
    inventories = [dict(record, resource_class=name)
                   for name, record in records.items()]
    return notification.make(
        ResourceProviderInventoryNotification, 'resource_provider.inventory',
        'update', ResourceProviderInventoryPayload(
            _provider(uuid, generation), inventories))


def build_traits_notification(uuid, generation, traits):
    return notification.make(
        ResourceProviderTraitsNotification, 'resource_provider.traits',
        'update', ResourceProviderTraitsPayload(_provider(uuid, generation),
                                                traits))


def build_aggregates_notification(uuid, generation, aggregates):
    return notification.make(
        ResourceProviderAggregatesNotification,
        'resource_provider.aggregates', 'update',
        ResourceProviderAggregatesPayload(_provider(uuid, generation),
                                          aggregates))


def provider_changed(context, action, resource_provider):
    """Queue resource_provider.<action> about ``resource_provider``."""
    values = {name: getattr(resource_provider, name)
              for name in ResourceProviderPayload.source_fields(
                  'resource_provider')}
    notification.send_later(context, build_provider_notification,
                            (action, values), 'resource_provider.' + action)


def inventory_changed(context, uuid, generation, records):
    """Queue resource_provider.inventory.update.

    :param generation: the provider's generation after the write.
    :param records: its whole inventory after the write, {class name:
        {field: value}}.
    """
    notification.send_later(context, build_inventory_notification,
                            (uuid, generation, records),
                            'resource_provider.inventory.update')


def traits_changed(context, uuid, generation, traits):
    """Queue resource_provider.traits.update: ``traits`` are names."""
    notification.send_later(context, build_traits_notification,
                            (uuid, generation, traits),
                            'resource_provider.traits.update')


def aggregates_changed(context, uuid, generation, aggregates):
    """Queue resource_provider.aggregates.update: ``aggregates`` uuids."""
    notification.send_later(context, build_aggregates_notification,
                            (uuid, generation, aggregates),
                            'resource_provider.aggregates.update')
