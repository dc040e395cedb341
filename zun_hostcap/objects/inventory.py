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

"""Inventory: how much of one resource class a provider has.

``capacity`` is what may be allocated: ``(total - reserved) *
allocation_ratio``, rounded down. Every write checks and bumps the
provider's generation; ``resource_provider_generation`` is the one the
provider has after it (or when it was read). Every write that changed
something is announced, once committed, by
resource_provider.inventory.update with the provider's whole inventory.
"""

from oslo_versionedobjects import fields

from zun_hostcap.common import exception
from zun_hostcap.db.sqlalchemy.placement import inventories as inv_db
from zun_hostcap.objects import base
from zun_hostcap.objects.notifications import base as notification_base
from zun_hostcap.objects.notifications import resource_provider as \
    rp_notifications

# The values of the fields a client leaves out.
DEFAULTS = inv_db.DEFAULTS

_FIELDS = inv_db.FIELDS


def _inventory(context, uuid, generation, name, values):
    """An Inventory of stored (or just written) ``values``."""
    return Inventory._from_values(
        context, resource_provider_uuid=uuid,
        resource_provider_generation=generation, resource_class=name,
        created_at=values.get('created_at'),
        updated_at=values.get('updated_at'),
        **{key: values[key] for key in _FIELDS})


def _announce(context, uuid, generation, report):
    """resource_provider.inventory.update, if the write changed it."""
    if report is not None and report.changed:
        rp_notifications.inventory_changed(context, uuid, generation,
                                           report.state)


@base.ZunHostcapObjectRegistry.register
class Inventory(base.ZunHostcapPersistentObject, base.ZunHostcapObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'resource_provider_uuid': fields.UUIDField(),
        'resource_provider_generation': fields.IntegerField(nullable=True),
        'resource_class': fields.StringField(),
        'total': fields.IntegerField(),
        'reserved': fields.IntegerField(default=DEFAULTS['reserved']),
        'min_unit': fields.IntegerField(default=DEFAULTS['min_unit']),
        'max_unit': fields.IntegerField(default=DEFAULTS['max_unit']),
        'step_size': fields.IntegerField(default=DEFAULTS['step_size']),
        'allocation_ratio': fields.FloatField(
            default=DEFAULTS['allocation_ratio']),
    }

    @property
    def capacity(self):
        """What may be allocated of it."""
        return inv_db.capacity(self.total, self.reserved,
                               self.allocation_ratio)

    def _values(self):
        return {key: getattr(self, key) for key in _FIELDS
                if self.obj_attr_is_set(key)}

    def _stored(self, generation, record):
        for key, value in record.items():
            base.store(self, key, value)
        base.store(self, 'resource_provider_generation', generation)
        self._changed_fields = set()
        return self

    @classmethod
    def get_by_class(cls, context, provider_uuid, resource_class):
        """The inventory of ``resource_class``.

        :raises ResourceProviderNotFound: no such provider.
        :raises InventoryNotFound: no inventory of that class (or no
            such class).
        """
        generation, values = inv_db.get_one(context, provider_uuid,
                                            resource_class)
        if values is None:
            raise exception.InventoryNotFound(
                resource_class=resource_class, uuid=provider_uuid)
        return _inventory(context, provider_uuid, generation,
                          resource_class, values)

    def create(self, allow_zero_capacity=True):
        """Add it to its provider, which has none of its class yet.

        :param allow_zero_capacity: reserved may equal total (1.26).
        :raises ResourceProviderNotFound: no such provider.
        :raises InvalidInventory: no capacity.
        :raises ResourceClassNotFound: an unknown class.
        :raises ResourceProviderConcurrentUpdate: the generation moved.
        :raises InventoryExists: the class has one.
        """
        report = notification_base.write_report()
        generation, record = inv_db.add(
            self._context, self.resource_provider_uuid, self.resource_class,
            self._values(), allow_zero_capacity, report=report)
        _announce(self._context, self.resource_provider_uuid, generation,
                  report)
        return self._stored(generation, record)

    def save(self, allow_zero_capacity=True):
        """Replace the stored inventory of its class with it.

        ``resource_provider_generation`` is the generation the client
        saw; it must still be the provider's.

        :raises ResourceProviderNotFound: no such provider.
        :raises ResourceProviderConcurrentUpdate: the generation moved.
        :raises InvalidInventory: no capacity.
        :raises ResourceClassNotFound: an unknown class.
        :raises InventoryNotFound: the provider has none of its class.
        """
        report = notification_base.write_report()
        generation, record = inv_db.update(
            self._context, self.resource_provider_uuid, self.resource_class,
            self.resource_provider_generation, self._values(),
            allow_zero_capacity, report=report)
        _announce(self._context, self.resource_provider_uuid, generation,
                  report)
        return self._stored(generation, record)

    @classmethod
    def destroy_by_class(cls, context, provider_uuid, resource_class):
        """Delete a provider's inventory of one class.

        :returns: the provider's new generation.
        :raises ResourceProviderNotFound: no such provider.
        :raises ResourceProviderConcurrentUpdate: the generation moved.
        :raises ResourceClassNotFound: an unknown class.
        :raises InventoryInUse: the class has allocations there.
        :raises InventoryNotFound: no inventory of that class.
        """
        report = notification_base.write_report()
        generation = inv_db.delete(context, provider_uuid, resource_class,
                                   report=report)
        _announce(context, provider_uuid, generation, report)
        return generation


@base.ZunHostcapObjectRegistry.register
class InventoryList(base.ObjectListBase, base.ZunHostcapObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('Inventory'),
        'resource_provider_generation': fields.IntegerField(),
    }

    def find(self, resource_class):
        """The inventory of ``resource_class``, or None."""
        for inventory in self.objects:
            if inventory.resource_class == resource_class:
                return inventory
        return None

    @classmethod
    def get_all_by_provider_uuid(cls, context, provider_uuid):
        """A provider's inventories, in the order of their class ids.

        :raises ResourceProviderNotFound: no such provider.
        """
        generation, rows = inv_db.get_all(context, provider_uuid)
        objects = [_inventory(context, provider_uuid, generation,
                              row['resource_class'], row) for row in rows]
        return cls._from_values(context, objects=objects,
                                resource_provider_generation=generation)

    @classmethod
    def replace_all(cls, context, provider_uuid, generation, inventories,
                    allow_zero_capacity=True):
        """Make a provider's inventories exactly ``inventories``.

        :param generation: the provider's generation the client saw, or
            None for the current one.
        :param inventories: {class name: {field: value}}; fields left
            out take their defaults.
        :returns: the new InventoryList (without timestamps).
        :raises ResourceProviderNotFound: no such provider.
        :raises ResourceProviderConcurrentUpdate: the generation moved.
        :raises InvalidInventory: an inventory without capacity.
        :raises ResourceClassNotFound: an unknown class.
        :raises InventoryInUse: a class to remove has allocations.
        :raises ConcurrentUpdateDetected: a concurrent writer.
        """
        report = notification_base.write_report()
        new_generation, records = inv_db.replace_all(
            context, provider_uuid, generation, inventories,
            allow_zero_capacity, report=report)
        _announce(context, provider_uuid, new_generation, report)
        objects = [_inventory(context, provider_uuid, new_generation, name,
                              record) for name, record in records.items()]
        return cls._from_values(context, objects=objects,
                                resource_provider_generation=new_generation)

    @classmethod
    def delete_all(cls, context, provider_uuid):
        """Remove all of a provider's inventories.

        :returns: the provider's new generation.
        :raises ResourceProviderNotFound: no such provider.
        :raises InventoryInUse: some have allocations.
        :raises ResourceProviderConcurrentUpdate: the generation moved.
        """
        report = notification_base.write_report()
        generation, _records = inv_db.replace_all(
            context, provider_uuid, None, {}, report=report)
        _announce(context, provider_uuid, generation, report)
        return generation
