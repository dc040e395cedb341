"""Notifications about resource providers and what they have.

- resource_provider.create, .update (its name or parent changed) and
  .delete;
- resource_provider.inventory.update: its whole inventory after a write;
- resource_provider.traits.update and resource_provider.aggregates.update:
  its whole set after a write.

The last three carry the provider's generation after the write, so a
listener can order them and tell which it has already applied. They are
sent by the Placement API after the transaction committed, from the
sender thread (``emit_later``).
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
        super().__init__()
        if resource_provider is None:
            return  # being deserialized
        self.populate_schema(resource_provider=resource_provider)
        self.inventories = [
            InventoryPayload(inventory) for inventory in
            sorted(inventories, key=lambda inv: inv.resource_class)]
        self.obj_reset_changes(recursive=True)


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


def _emit_later(context, cls, event_object, action, payload):
    cls(priority='info',
        event_type=notification.EventType(object=event_object,
                                          action=action),
        publisher=notification.NotificationPublisher.for_this_process(
            notification.CONF.host),
        payload=payload).emit_later(context)


def provider_changed(context, action, resource_provider):
    """Queue resource_provider.<action> about ``resource_provider``."""
    _emit_later(context, ResourceProviderNotification, 'resource_provider',
                action, ResourceProviderPayload(resource_provider))


def inventory_changed(context, resource_provider, inventories):
    """Queue resource_provider.inventory.update.

    :param resource_provider: a ResourceProvider with its uuid and its
        generation after the write.
    :param inventories: every Inventory it has after the write.
    """
    _emit_later(context, ResourceProviderInventoryNotification,
                'resource_provider.inventory', 'update',
                ResourceProviderInventoryPayload(resource_provider,
                                                 inventories))


def traits_changed(context, resource_provider, traits):
    """Queue resource_provider.traits.update: ``traits`` are names."""
    _emit_later(context, ResourceProviderTraitsNotification,
                'resource_provider.traits', 'update',
                ResourceProviderTraitsPayload(resource_provider, traits))


def aggregates_changed(context, resource_provider, aggregates):
    """Queue resource_provider.aggregates.update: ``aggregates`` uuids."""
    _emit_later(context, ResourceProviderAggregatesNotification,
                'resource_provider.aggregates', 'update',
                ResourceProviderAggregatesPayload(resource_provider,
                                                  aggregates))
