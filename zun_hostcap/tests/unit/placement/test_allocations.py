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

"""Allocations in the database: writes, checks, generations, retries."""

import threading

from oslo_utils import uuidutils
import sqlalchemy as sa

from zun_hostcap.common import context as zun_context
from zun_hostcap.common import exception
from zun_hostcap.db.sqlalchemy.placement import allocations as alloc_db
from zun_hostcap.db.sqlalchemy.placement import common
from zun_hostcap.db.sqlalchemy.placement import consumers as consumer_db
from zun_hostcap.db.sqlalchemy.placement import inventories as inv_db
from zun_hostcap.db.sqlalchemy.placement import resource_providers as rp_db
from zun_hostcap.db.sqlalchemy.placement import usages as usage_db
from zun_hostcap import objects
from zun_hostcap.tests import base
from zun_hostcap.tests import fixtures


def request(allocations, project='proj', user='user', generation=None,
            consumer_type=None):
    return {'allocations': allocations, 'project_id': project,
            'user_id': user, 'consumer_generation': generation,
            'consumer_type': consumer_type}


class AllocationsTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.database = self.useFixture(fixtures.Database())
        self.rp = uuidutils.generate_uuid()
        self.rp2 = uuidutils.generate_uuid()
        rp_db.create(self.context, self.rp, 'rp1')
        rp_db.create(self.context, self.rp2, 'rp2')
        inv_db.replace_all(self.context, self.rp, 0, {
            'VCPU': {'total': 8}, 'MEMORY_MB': {'total': 1024},
            'DISK_GB': {'total': 100, 'min_unit': 2, 'max_unit': 50,
                        'step_size': 2}})
        inv_db.replace_all(self.context, self.rp2, 0,
                           {'DISK_GB': {'total': 1000}})
        self.consumer = uuidutils.generate_uuid()

    def generation(self, uuid):
        return rp_db.get_by_uuid(self.context, uuid)['generation']

    def write(self, consumer=None, check_generation=False, **kwargs):
        consumer = consumer or self.consumer
        alloc_db.replace_all(self.context, {consumer: request(**kwargs)},
                             check_generation)

    def test_write_read_delete(self):
        self.write(allocations={self.rp: {'VCPU': 2, 'DISK_GB': 10},
                                self.rp2: {'DISK_GB': 100}},
                   consumer_type='INSTANCE')
        allocs = objects.Allocation.get_all_by_consumer_id(
            self.context, self.consumer)
        self.assertEqual(
            {(self.rp, 'VCPU', 2), (self.rp, 'DISK_GB', 10),
             (self.rp2, 'DISK_GB', 100)},
            {(a.resource_provider_uuid, a.resource_class, a.used)
             for a in allocs})
        first = allocs[0]
        self.assertEqual(('proj', 'user', 1, 'INSTANCE'),
                         (first.project_id, first.user_id,
                          first.consumer_generation, first.consumer_type))
        # Both providers bumped once.
        self.assertEqual(2, self.generation(self.rp))
        self.assertEqual(2, self.generation(self.rp2))
        generation, by_rp = (
            objects.Allocation.get_all_by_resource_provider_uuid(
                self.context, self.rp2))
        self.assertEqual(2, generation)
        self.assertEqual([(self.consumer, 'DISK_GB', 100, 1)],
                         [(a.consumer_uuid, a.resource_class, a.used,
                           a.consumer_generation) for a in by_rp])

        objects.Allocation.delete_all_by_consumer_id(self.context,
                                                     self.consumer)
        self.assertEqual([], objects.Allocation.get_all_by_consumer_id(
            self.context, self.consumer))
        self.assertRaises(exception.ConsumerNotFound,
                          objects.Consumer.get_by_uuid, self.context,
                          self.consumer)
        # Placement does not bump providers on DELETE.
        self.assertEqual(2, self.generation(self.rp))
        self.assertRaises(exception.AllocationsNotFound,
                          objects.Allocation.delete_all_by_consumer_id,
                          self.context, self.consumer)

    def test_statements(self):
        """A write is a handful of statements, one commit."""
        self.write(allocations={self.rp: {'VCPU': 1}})
        statements = []
        sa.event.listen(
            self.database.engine, 'before_cursor_execute',
            lambda conn, cursor, statement, *args:
            statement in ('BEGIN', 'BEGIN IMMEDIATE') or
            statements.append(statement))
        self.write(allocations={self.rp: {'VCPU': 2, 'MEMORY_MB': 64},
                                self.rp2: {'DISK_GB': 1}})
        # consumer and capacity (one query), delete, insert, consumer and
        # two provider generations.
        self.assertEqual(6, len(statements), statements)

    def test_replace_keeps_usage_right(self):
        self.write(allocations={self.rp: {'VCPU': 6}})
        # 6 of 8 used by this consumer: replacing with 8 fits.
        self.write(allocations={self.rp: {'VCPU': 8}})
        self.assertEqual((3, {'VCPU': 8, 'MEMORY_MB': 0, 'DISK_GB': 0}),
                         usage_db.get_by_provider(self.context, self.rp))
        exc = self.assertRaises(
            exception.AllocationCapacityExceeded, self.write,
            consumer=uuidutils.generate_uuid(),
            allocations={self.rp: {'VCPU': 1}})
        self.assertEqual(409, exc.code)

    def test_capacity_counts_overcommit_and_reserved(self):
        inv_db.replace_all(self.context, self.rp2, 1, {
            'DISK_GB': {'total': 100, 'reserved': 20,
                        'allocation_ratio': 1.5}})
        self.write(allocations={self.rp2: {'DISK_GB': 120}})
        self.assertRaises(exception.AllocationCapacityExceeded, self.write,
                          consumer=uuidutils.generate_uuid(),
                          allocations={self.rp2: {'DISK_GB': 1}})

    def test_consumers_of_one_write_add_up(self):
        requests = {uuidutils.generate_uuid(): request({self.rp: {'VCPU': 5}})
                    for _ in range(2)}
        self.assertRaises(exception.AllocationCapacityExceeded,
                          alloc_db.replace_all, self.context, requests)
        self.assertEqual(1, self.generation(self.rp))

    def test_less_over_capacity_is_allowed(self):
        self.write(allocations={self.rp: {'VCPU': 8}})
        inv_db.replace_all(self.context, self.rp, 2,
                           {'VCPU': {'total': 4}, 'MEMORY_MB': {'total': 1},
                            'DISK_GB': {'total': 100}})
        # Still over, but less than before.
        self.write(allocations={self.rp: {'VCPU': 6}})
        self.assertRaises(exception.AllocationCapacityExceeded, self.write,
                          allocations={self.rp: {'VCPU': 7}})

    def test_constraints(self):
        for amount in (1, 52, 11):
            exc = self.assertRaises(
                exception.AllocationConstraintsConflict, self.write,
                allocations={self.rp: {'DISK_GB': amount}})
            self.assertEqual(409, exc.code)

    def test_bad_provider_class_inventory(self):
        exc = self.assertRaises(
            exception.AllocationProviderNotFound, self.write,
            allocations={uuidutils.generate_uuid(): {'CUSTOM_X': 1}})
        self.assertEqual(400, exc.code)
        self.assertRaises(exception.ResourceClassNotFound, self.write,
                          allocations={self.rp: {'CUSTOM_X': 1}})
        exc = self.assertRaises(exception.AllocationInventoryInvalid,
                                self.write,
                                allocations={self.rp2: {'VCPU': 1}})
        self.assertEqual(409, exc.code)
        self.assertIn("Inventory for 'VCPU' on resource provider",
                      exc.message)
        exc = self.assertRaises(exception.AllocationInventoryInvalid,
                                self.write,
                                allocations={self.rp: {'PCI_DEVICE': 1}})
        # Nothing stays of the failed writes.
        self.assertRaises(exception.ConsumerNotFound,
                          consumer_db.get_by_uuid, self.context,
                          self.consumer)

    def test_consumer_generation(self):
        exc = self.assertRaises(
            exception.ConsumerConcurrentUpdate, self.write,
            check_generation=True, generation=0,
            allocations={self.rp: {'VCPU': 1}})
        self.assertIn('expected null but got 0', exc.message)
        self.assertEqual('placement.concurrent_update', exc.error_code)
        self.write(check_generation=True, allocations={self.rp: {'VCPU': 1}})
        exc = self.assertRaises(
            exception.ConsumerConcurrentUpdate, self.write,
            check_generation=True, allocations={self.rp: {'VCPU': 1}})
        self.assertIn('expected 1 but got None', exc.message)
        self.write(check_generation=True, generation=1,
                   allocations={self.rp: {'VCPU': 2}})
        # Not checked before 1.28, still bumped.
        self.write(generation=7, allocations={self.rp: {'VCPU': 3}})
        self.assertEqual(3, objects.Consumer.get_by_uuid(
            self.context, self.consumer).generation)

    def test_project_user_type_change(self):
        self.write(allocations={self.rp: {'VCPU': 1}})
        self.write(allocations={self.rp: {'VCPU': 1}}, project='p2',
                   user='u2', consumer_type='MIGRATION')
        consumer = objects.Consumer.get_by_uuid(self.context,
                                                self.consumer)
        self.assertEqual(('p2', 'u2', 'MIGRATION', 2),
                         (consumer.project_id, consumer.user_id,
                          consumer.consumer_type, consumer.generation))
        # No type given: kept.
        self.write(allocations={self.rp: {'VCPU': 1}}, project='p2',
                   user='u2')
        self.assertEqual('MIGRATION', objects.Consumer.get_by_uuid(
            self.context, self.consumer).consumer_type)

    def test_empty_allocations_remove_consumer(self):
        other = uuidutils.generate_uuid()
        self.write(allocations={self.rp: {'VCPU': 1},
                                self.rp2: {'DISK_GB': 1}})
        self.write(consumer=other, allocations={self.rp: {'VCPU': 1}})
        alloc_db.replace_all(self.context, {
            self.consumer: request({}),
            other: request({self.rp: {'VCPU': 2}})})
        self.assertEqual([], alloc_db.get_by_consumer(self.context,
                                                      self.consumer))
        self.assertRaises(exception.ConsumerNotFound,
                          consumer_db.get_by_uuid, self.context,
                          self.consumer)
        # The provider left is bumped too, as in Placement.
        self.assertEqual(3, self.generation(self.rp2))
        # A new consumer with nothing: nothing is made.
        alloc_db.replace_all(self.context, {self.consumer: request({})})
        self.assertRaises(exception.ConsumerNotFound,
                          consumer_db.get_by_uuid, self.context,
                          self.consumer)

    def _interfere(self, times):
        """Bump rp's generation before our compare-and-swap, ``times``."""
        left = [times]

        def before(conn, cursor, statement, params, *args):
            if (left[0] and statement.startswith(
                    'UPDATE resource_providers SET generation')):
                left[0] -= 1
                cursor.execute('UPDATE resource_providers SET generation '
                               '= generation + 1')
        sa.event.listen(self.database.engine, 'before_cursor_execute',
                        before)
        self.addCleanup(sa.event.remove, self.database.engine,
                        'before_cursor_execute', before)

    def test_provider_conflict_is_retried(self):
        self._interfere(3)
        self.write(allocations={self.rp: {'VCPU': 1}})
        # The interfering bumps were rolled back with the attempts.
        self.assertEqual(2, self.generation(self.rp))
        self.assertEqual(1, len(alloc_db.get_by_consumer(self.context,
                                                         self.consumer)))

    def test_provider_conflict_retries_are_bounded(self):
        # Placement's default; fewer attempts here, as an operator may set.
        self.assertEqual(
            10, self.conf.placement.allocation_conflict_retry_count)
        self.flags(allocation_conflict_retry_count=2, group='placement')
        self._interfere(2)
        exc = self.assertRaises(exception.AllocationConcurrentUpdate,
                                self.write,
                                allocations={self.rp: {'VCPU': 1}})
        self.assertEqual(409, exc.code)
        self.assertEqual('placement.concurrent_update', exc.error_code)
        self.assertIn('Inventory and/or allocations changed', exc.message)

    def test_one_more_attempt_than_conflicts_succeeds(self):
        self.flags(allocation_conflict_retry_count=3, group='placement')
        self._interfere(2)
        self.write(allocations={self.rp: {'VCPU': 1}})
        self.assertEqual(1, len(alloc_db.get_by_consumer(self.context,
                                                         self.consumer)))


class ConcurrentAllocationsMixin(object):
    """Writers racing for one provider never exceed its capacity."""

    def test_no_overcommit(self):
        ctx = zun_context.get_admin_context()
        rp = uuidutils.generate_uuid()
        rp_db.create(ctx, rp, 'rp')
        inv_db.replace_all(ctx, rp, 0, {'VCPU': {'total': 10}})
        results = []

        def allocate():
            consumer = uuidutils.generate_uuid()
            try:
                alloc_db.replace_all(
                    zun_context.get_admin_context(),
                    {consumer: request({rp: {'VCPU': 1}},
                                       consumer_type='INSTANCE')},
                    check_generation=True)
                results.append('ok')
            except exception.PlacementError as exc:
                results.append(type(exc).__name__)
        threads = [threading.Thread(target=allocate) for _ in range(16)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual(10, results.count('ok'), results)
        self.assertEqual(
            {'AllocationCapacityExceeded'},
            set(results) - {'ok'})
        generation, usages = usage_db.get_by_provider(ctx, rp)
        self.assertEqual({'VCPU': 10}, usages)
        self.assertEqual(11, generation)


class DeleteByConsumerMixin(object):
    """A DELETE takes the consumer's allocations and row, and no other."""

    def test_delete_by_consumer(self):
        ctx = zun_context.get_admin_context()
        rp = uuidutils.generate_uuid()
        rp_db.create(ctx, rp, 'rp')
        inv_db.replace_all(ctx, rp, 0, {'VCPU': {'total': 10}})
        gone, kept, bare = [uuidutils.generate_uuid() for _ in range(3)]
        for consumer in (gone, kept, bare):
            alloc_db.replace_all(ctx, {consumer: request(
                {rp: {'VCPU': 1}}, consumer_type='INSTANCE')})
        # A consumer row left without allocations.
        with common.context_manager.writer.using(ctx) as session:
            session.execute(alloc_db.ALLOC.delete().where(
                alloc_db.ALLOC.c.consumer_id == bare))

        report = common.WriteReport()
        alloc_db.delete_by_consumer(ctx, gone, report=report)
        self.assertEqual(
            alloc_db.Held('proj', 'user', 'INSTANCE', 1, {rp: {'VCPU': 1}}),
            report.state)
        self.assertRaises(exception.ConsumerNotFound,
                          consumer_db.get_by_uuid, ctx, gone)
        self.assertRaises(exception.AllocationsNotFound,
                          alloc_db.delete_by_consumer, ctx, gone)
        # The others are as they were; the one without allocations is
        # refused and stays.
        self.assertEqual(1, consumer_db.get_by_uuid(ctx, kept).generation)
        self.assertEqual(
            [(rp, 'VCPU', 1)],
            [(a['resource_provider_uuid'], a['resource_class'], a['used'])
             for a in alloc_db.get_by_consumer(ctx, kept)])
        self.assertRaises(exception.AllocationsNotFound,
                          alloc_db.delete_by_consumer, ctx, bare)
        self.assertEqual(bare, consumer_db.get_by_uuid(ctx, bare).uuid)
        self.assertEqual({'VCPU': 1}, usage_db.get_by_provider(ctx, rp)[1])

        alloc_db.delete_by_consumer(ctx, kept)
        self.assertRaises(exception.ConsumerNotFound,
                          consumer_db.get_by_uuid, ctx, kept)
        self.assertEqual({'VCPU': 0}, usage_db.get_by_provider(ctx, rp)[1])


class DeleteByConsumerTestCase(DeleteByConsumerMixin, base.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(fixtures.Database())
