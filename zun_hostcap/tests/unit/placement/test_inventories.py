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

"""Provider inventories in the database, and their objects."""

import types

import fixtures as pyfixtures
from oslo_utils import uuidutils

from zun_hostcap.common import exception
from zun_hostcap.db.sqlalchemy import models
from zun_hostcap.db.sqlalchemy.placement import common
from zun_hostcap.db.sqlalchemy.placement import inventories as inv_db
from zun_hostcap.db.sqlalchemy.placement import resource_classes
from zun_hostcap.db.sqlalchemy.placement import resource_providers as rp_db
from zun_hostcap.objects import inventory as inv_obj
from zun_hostcap.tests import base
from zun_hostcap.tests import fixtures

ALLOC = models.Allocation.__table__


@common.writer
def _allocate(context, uuid, resource_class, used):
    rp_id = common.provider_row(context, uuid).id
    class_id = resource_classes.id_for_name(context, resource_class)
    context.session.execute(ALLOC.insert().values(
        resource_provider_id=rp_id, resource_class_id=class_id,
        consumer_id=uuidutils.generate_uuid(), used=used))
    return rp_id, class_id


@common.reader
def _generation(context, uuid):
    return common.provider_row(context, uuid).generation


@common.reader
def _provider_id(context, uuid):
    return common.provider_row(context, uuid).id


@common.reader
def _capacity_rows(context, provider_ids, class_ids):
    return inv_db.capacity_rows(context, provider_ids, class_ids)


class CapacityTestCase(base.TestCase):

    def test_capacity(self):
        self.assertEqual(10, inv_db.capacity(10, 0, 1.0))
        self.assertEqual(0, inv_db.capacity(10, 10, 1.0))
        self.assertEqual(-5, inv_db.capacity(5, 10, 1.0))
        self.assertEqual(48, inv_db.capacity(16, 4, 4.0))
        # Rounded down.
        self.assertEqual(7, inv_db.capacity(5, 0, 1.5))

    def test_object_capacity(self):
        inventory = inv_obj.Inventory(total=16, reserved=4,
                                      allocation_ratio=1.5)
        self.assertEqual(18, inventory.capacity)

    def test_normalize_defaults(self):
        self.assertEqual(
            {'total': 4, 'reserved': 0, 'min_unit': 1,
             'max_unit': 2147483647, 'step_size': 1,
             'allocation_ratio': 1.0},
            inv_db.normalize({'total': 4.0,
                              'resource_provider_generation': 3}))

    def test_check_capacity(self):
        record = inv_db.normalize({'total': 4, 'reserved': 4})
        inv_db.check_capacity('u', 'VCPU', record, True)
        exc = self.assertRaises(exception.InvalidInventory,
                                inv_db.check_capacity, 'u', 'VCPU', record,
                                False)
        self.assertEqual(
            "Invalid inventory for 'VCPU' on resource provider 'u'. The "
            "reserved value is greater than or equal to total.", exc.message)
        record = inv_db.normalize({'total': 4, 'reserved': 5})
        exc = self.assertRaises(exception.InvalidInventory,
                                inv_db.check_capacity, 'u', 'VCPU', record,
                                True)
        self.assertIn('greater than total.', exc.message)
        self.assertEqual(400, exc.code)
        record = inv_db.normalize({'total': 4, 'allocation_ratio': -1})
        self.assertRaises(exception.InvalidInventory,
                          inv_db.check_capacity, 'u', 'VCPU', record, True)


class InventoriesTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.database = self.useFixture(fixtures.Database())
        self.uuid = uuidutils.generate_uuid()
        rp_db.create(self.context, self.uuid, 'rp')

    def _classes(self, uuid=None):
        _gen, rows = inv_db.get_all(self.context, uuid or self.uuid)
        return {row['resource_class']: row['total'] for row in rows}

    def test_none(self):
        self.assertEqual((0, []), inv_db.get_all(self.context, self.uuid))
        self.assertEqual((0, None),
                         inv_db.get_one(self.context, self.uuid, 'VCPU'))

    def test_provider_not_found(self):
        missing = uuidutils.generate_uuid()
        for call, args in (
                (inv_db.get_all, ()),
                (inv_db.get_one, ('VCPU',)),
                (inv_db.add, ('VCPU', {'total': 1})),
                (inv_db.update, ('VCPU', 0, {'total': 1})),
                (inv_db.delete, ('VCPU',)),
                (inv_db.replace_all, (0, {}))):
            self.assertRaises(exception.ResourceProviderNotFound,
                              call, self.context, missing, *args)

    def test_add(self):
        generation, record = inv_db.add(
            self.context, self.uuid, 'DISK_GB',
            {'total': 2048, 'reserved': 512, 'step_size': 10})
        self.assertEqual(1, generation)
        self.assertEqual(2147483647, record['max_unit'])
        gen, row = inv_db.get_one(self.context, self.uuid, 'DISK_GB')
        self.assertEqual(1, gen)
        self.assertEqual(
            {'total': 2048, 'reserved': 512, 'min_unit': 1,
             'max_unit': 2147483647, 'step_size': 10,
             'allocation_ratio': 1.0},
            {key: row[key] for key in inv_db.FIELDS})
        self.assertIsNotNone(row['created_at'])
        self.assertIsNone(row['updated_at'])

    def test_add_duplicate(self):
        inv_db.add(self.context, self.uuid, 'VCPU', {'total': 8})
        error = self.assertRaises(exception.InventoryExists, inv_db.add,
                                  self.context, self.uuid, 'VCPU',
                                  {'total': 8})
        self.assertEqual('Inventory of class VCPU already exists on '
                         'resource provider %s.' % self.uuid, error.message)
        self.assertEqual(1, _generation(self.context, self.uuid))

    def test_add_unknown_class(self):
        self.assertRaises(exception.ResourceClassNotFound, inv_db.add,
                          self.context, self.uuid, 'CUSTOM_NOPE',
                          {'total': 8})
        self.assertEqual(0, _generation(self.context, self.uuid))

    def test_add_no_capacity(self):
        self.assertRaises(exception.InvalidInventory, inv_db.add,
                          self.context, self.uuid, 'VCPU',
                          {'total': 8, 'reserved': 8}, False)
        self.assertEqual(1, inv_db.add(
            self.context, self.uuid, 'VCPU', {'total': 8, 'reserved': 8},
            True)[0])

    def test_replace_all(self):
        inv_db.add(self.context, self.uuid, 'VCPU', {'total': 8})
        inv_db.add(self.context, self.uuid, 'DISK_GB', {'total': 100})
        writes = self.database.count_writes()
        generation, records = inv_db.replace_all(
            self.context, self.uuid, 2,
            {'MEMORY_MB': {'total': 1024}, 'IPV4_ADDRESS': {'total': 5},
             'DISK_GB': {'total': 200, 'reserved': 1}})
        self.assertEqual(3, generation)
        self.assertEqual(['MEMORY_MB', 'IPV4_ADDRESS', 'DISK_GB'],
                         list(records))
        self.assertEqual({'MEMORY_MB': 1024, 'IPV4_ADDRESS': 5,
                          'DISK_GB': 200}, self._classes())
        # The generation, one DELETE, one INSERT (two rows), one UPDATE.
        self.assertEqual(['UPDATE', 'DELETE', 'INSERT', 'UPDATE'],
                         [sql.split()[0] for sql in writes])
        _gen, row = inv_db.get_one(self.context, self.uuid, 'DISK_GB')
        self.assertEqual(1, row['reserved'])
        self.assertIsNotNone(row['updated_at'])

    def test_replace_all_unchanged_classes_only(self):
        inv_db.add(self.context, self.uuid, 'VCPU', {'total': 8})
        writes = self.database.count_writes()
        inv_db.replace_all(self.context, self.uuid, 1,
                           {'VCPU': {'total': 9}})
        self.assertEqual(['UPDATE', 'UPDATE'],
                         [sql.split()[0] for sql in writes])
        self.assertEqual({'VCPU': 9}, self._classes())

    def test_replace_all_empty_bumps(self):
        self.assertEqual(1, inv_db.replace_all(self.context, self.uuid,
                                               None, {})[0])
        self.assertEqual(2, inv_db.replace_all(self.context, self.uuid,
                                               1, {})[0])

    def test_replace_all_stale_generation(self):
        exc = self.assertRaises(
            exception.ResourceProviderConcurrentUpdate, inv_db.replace_all,
            self.context, self.uuid, 3, {'VCPU': {'total': 1}})
        self.assertEqual('placement.concurrent_update', exc.error_code)
        self.assertEqual({}, self._classes())

    def test_replace_all_unknown_class(self):
        self.assertRaises(exception.ResourceClassNotFound,
                          inv_db.replace_all, self.context, self.uuid, 0,
                          {'VCPU': {'total': 1}, 'HOUSE': {'total': 1}})
        self.assertEqual(0, _generation(self.context, self.uuid))
        self.assertEqual({}, self._classes())

    def test_replace_all_in_use(self):
        inv_db.replace_all(self.context, self.uuid, 0,
                           {'DISK_GB': {'total': 100}, 'VCPU': {'total': 8},
                            'MEMORY_MB': {'total': 64}})
        _allocate(self.context, self.uuid, 'DISK_GB', 10)
        _allocate(self.context, self.uuid, 'VCPU', 1)
        exc = self.assertRaises(exception.InventoryInUse,
                                inv_db.replace_all, self.context,
                                self.uuid, 1, {})
        # In class id order, as Placement lists them.
        self.assertEqual("Inventory for 'VCPU, DISK_GB' on resource "
                         "provider '%s' in use." % self.uuid, exc.message)
        self.assertEqual('placement.inventory.inuse', exc.error_code)
        self.assertEqual(1, _generation(self.context, self.uuid))
        self.assertEqual(3, len(self._classes()))
        # Removing what is not allocated is fine.
        self.assertEqual(2, inv_db.replace_all(
            self.context, self.uuid, 1,
            {'DISK_GB': {'total': 100}, 'VCPU': {'total': 8}})[0])

    def test_replace_all_above_capacity_is_allowed(self):
        inv_db.replace_all(self.context, self.uuid, 0,
                           {'DISK_GB': {'total': 100}})
        _allocate(self.context, self.uuid, 'DISK_GB', 90)
        log = self.useFixture(pyfixtures.FakeLogger())
        generation, _records = inv_db.replace_all(
            self.context, self.uuid, 1, {'DISK_GB': {'total': 50}})
        self.assertEqual(2, generation)
        self.assertIn('now over-capacity for DISK_GB', log.output)

    def test_update(self):
        inv_db.add(self.context, self.uuid, 'VCPU', {'total': 8})
        generation, record = inv_db.update(
            self.context, self.uuid, 'VCPU', 1,
            {'total': 4, 'allocation_ratio': 16})
        self.assertEqual(2, generation)
        self.assertEqual(16.0, record['allocation_ratio'])
        _gen, row = inv_db.get_one(self.context, self.uuid, 'VCPU')
        self.assertEqual((4, 16.0), (row['total'], row['allocation_ratio']))

    def test_update_errors(self):
        inv_db.add(self.context, self.uuid, 'VCPU', {'total': 8})
        self.assertRaises(exception.ResourceProviderConcurrentUpdate,
                          inv_db.update, self.context, self.uuid, 'VCPU',
                          0, {'total': 4})
        self.assertRaises(exception.InventoryNotFound, inv_db.update,
                          self.context, self.uuid, 'DISK_GB', 1,
                          {'total': 4})
        self.assertRaises(exception.ResourceClassNotFound, inv_db.update,
                          self.context, self.uuid, 'HOUSE', 1,
                          {'total': 4})
        self.assertRaises(exception.InvalidInventory, inv_db.update,
                          self.context, self.uuid, 'VCPU', 1,
                          {'total': 4, 'reserved': 5})
        self.assertEqual(1, _generation(self.context, self.uuid))

    def test_update_above_capacity_is_allowed(self):
        inv_db.add(self.context, self.uuid, 'VCPU', {'total': 8})
        _allocate(self.context, self.uuid, 'VCPU', 6)
        log = self.useFixture(pyfixtures.FakeLogger())
        self.assertEqual(2, inv_db.update(self.context, self.uuid, 'VCPU',
                                          1, {'total': 4})[0])
        self.assertIn('now over-capacity for VCPU', log.output)

    def test_delete(self):
        inv_db.add(self.context, self.uuid, 'VCPU', {'total': 8})
        self.assertEqual(2, inv_db.delete(self.context, self.uuid, 'VCPU'))
        self.assertEqual({}, self._classes())
        self.assertRaises(exception.InventoryNotFound, inv_db.delete,
                          self.context, self.uuid, 'VCPU')
        self.assertRaises(exception.ResourceClassNotFound, inv_db.delete,
                          self.context, self.uuid, 'HOUSE')
        self.assertEqual(2, _generation(self.context, self.uuid))

    def test_delete_in_use(self):
        inv_db.add(self.context, self.uuid, 'VCPU', {'total': 8})
        _allocate(self.context, self.uuid, 'VCPU', 1)
        exc = self.assertRaises(exception.InventoryInUse, inv_db.delete,
                                self.context, self.uuid, 'VCPU')
        self.assertEqual(409, exc.code)
        self.assertEqual({'VCPU': 8}, self._classes())
        self.assertEqual(1, _generation(self.context, self.uuid))

    def test_concurrent_writer(self):
        """A generation that moves under a write fails it."""
        inv_db.add(self.context, self.uuid, 'VCPU', {'total': 8})
        real = common.provider_row

        def stale_row(context, uuid):
            # What a writer that read before another one bumped sees.
            values = real(context, uuid)._asdict()
            values['generation'] -= 1
            return types.SimpleNamespace(**values)

        with pyfixtures.MonkeyPatch(
                'zun_hostcap.db.sqlalchemy.placement.common.provider_row',
                stale_row):
            for call, args in ((inv_db.add, ('DISK_GB', {'total': 1})),
                               (inv_db.delete, ('VCPU',)),
                               (inv_db.replace_all, (None, {}))):
                self.assertRaises(exception.ResourceProviderConcurrentUpdate,
                                  call, self.context, self.uuid, *args)
        self.assertEqual(1, _generation(self.context, self.uuid))
        self.assertEqual({'VCPU': 8}, self._classes())

    def test_capacity_rows(self):
        other = uuidutils.generate_uuid()
        rp_db.create(self.context, other, 'other')
        inv_db.replace_all(self.context, self.uuid, 0,
                           {'VCPU': {'total': 8, 'reserved': 1,
                                     'allocation_ratio': 4.0},
                            'DISK_GB': {'total': 100, 'max_unit': 50}})
        inv_db.add(self.context, other, 'VCPU', {'total': 2})
        rp_id, vcpu = _allocate(self.context, self.uuid, 'VCPU', 3)
        _allocate(self.context, self.uuid, 'VCPU', 2)
        _allocate(self.context, other, 'VCPU', 1)
        disk = resource_classes.id_for_name(self.context, 'DISK_GB')
        memory = resource_classes.id_for_name(self.context, 'MEMORY_MB')
        other_id = _provider_id(self.context, other)
        rows = _capacity_rows(self.context, [rp_id, other_id],
                              [vcpu, disk, memory])
        self.assertEqual({(rp_id, vcpu), (rp_id, disk), (other_id, vcpu)},
                         set(rows))
        row = rows[(rp_id, vcpu)]
        self.assertEqual((8, 1, 1, 2147483647, 1, 4.0, 5),
                         (row.total, row.reserved, row.min_unit,
                          row.max_unit, row.step_size, row.allocation_ratio,
                          row.used))
        self.assertEqual((50, 0), (rows[(rp_id, disk)].max_unit,
                                   rows[(rp_id, disk)].used))
        self.assertEqual(1, rows[(other_id, vcpu)].used)
        self.assertEqual({}, _capacity_rows(self.context, [], [vcpu]))


class InventoryObjectsTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(fixtures.Database())
        self.uuid = uuidutils.generate_uuid()
        rp_db.create(self.context, self.uuid, 'rp')

    def test_create_get_save_destroy(self):
        inventory = inv_obj.Inventory(
            self.context, resource_provider_uuid=self.uuid,
            resource_class='VCPU', total=8)
        inventory.create()
        self.assertEqual(1, inventory.resource_provider_generation)
        self.assertEqual(2147483647, inventory.max_unit)
        self.assertEqual(8, inventory.capacity)
        self.assertEqual(set(), inventory.obj_what_changed())

        found = inv_obj.Inventory.get_by_class(self.context, self.uuid,
                                               'VCPU')
        self.assertEqual((8, 1), (found.total,
                                  found.resource_provider_generation))
        self.assertIsNotNone(found.created_at)

        found.total = 4
        found.allocation_ratio = 2.0
        found.save()
        self.assertEqual(2, found.resource_provider_generation)
        self.assertEqual(8, found.capacity)

        self.assertRaises(exception.InventoryNotFound,
                          inv_obj.Inventory.get_by_class, self.context,
                          self.uuid, 'DISK_GB')
        self.assertEqual(3, inv_obj.Inventory.destroy_by_class(
            self.context, self.uuid, 'VCPU'))

    def test_list(self):
        inventories = inv_obj.InventoryList.replace_all(
            self.context, self.uuid, 0,
            {'DISK_GB': {'total': 10}, 'VCPU': {'total': 2}})
        self.assertEqual(1, inventories.resource_provider_generation)
        self.assertEqual(['DISK_GB', 'VCPU'],
                         [inv.resource_class for inv in inventories])
        listed = inv_obj.InventoryList.get_all_by_provider_uuid(
            self.context, self.uuid)
        self.assertEqual(1, listed.resource_provider_generation)
        # In class id order.
        self.assertEqual(['VCPU', 'DISK_GB'],
                         [inv.resource_class for inv in listed])
        self.assertEqual(10, listed.find('DISK_GB').total)
        self.assertIsNone(listed.find('MEMORY_MB'))
        self.assertEqual(2, inv_obj.InventoryList.delete_all(self.context,
                                                             self.uuid))
        listed = inv_obj.InventoryList.get_all_by_provider_uuid(
            self.context, self.uuid)
        self.assertEqual((2, 0), (listed.resource_provider_generation,
                                  len(listed)))
