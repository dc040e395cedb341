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

"""The reshaper in the database: one transaction, all of it or nothing."""

import threading
import time

from oslo_utils import uuidutils
import sqlalchemy as sa

from zun_hostcap.common import context as zun_context
from zun_hostcap.common import exception
from zun_hostcap.db.sqlalchemy.placement import allocations as alloc_db
from zun_hostcap.db.sqlalchemy.placement import common
from zun_hostcap.db.sqlalchemy.placement import consumers as consumer_db
from zun_hostcap.db.sqlalchemy.placement import inventories as inv_db
from zun_hostcap.db.sqlalchemy.placement import reshaper as reshaper_db
from zun_hostcap.db.sqlalchemy.placement import resource_providers as rp_db
from zun_hostcap.db.sqlalchemy.placement import usages as usage_db
from zun_hostcap.tests import base
from zun_hostcap.tests import fixtures
from zun_hostcap.tests.unit.placement.test_allocations import request


def _inventory(context, uuid):
    """{class: total} of a provider."""
    return {inv['resource_class']: inv['total']
            for inv in inv_db.get_all(context, uuid)[1]}


def _held(context, consumer):
    """{provider: {class: amount}} of a consumer."""
    held = {}
    for alloc in alloc_db.get_by_consumer(context, consumer):
        held.setdefault(alloc['resource_provider_uuid'], {})[
            alloc['resource_class']] = alloc['used']
    return held


class ReshapeTestCase(base.TestCase):
    """A host's VCPU moved from its root to its two NUMA nodes, and back."""

    def setUp(self):
        super().setUp()
        self.database = self.useFixture(fixtures.Database())
        self.root, self.node0, self.node1 = (uuidutils.generate_uuid()
                                             for _ in range(3))
        rp_db.create(self.context, self.root, 'host')
        rp_db.create(self.context, self.node0, 'host_NUMA0', self.root)
        rp_db.create(self.context, self.node1, 'host_NUMA1', self.root)
        inv_db.replace_all(self.context, self.root, 0, {
            'VCPU': {'total': 8}, 'DISK_GB': {'total': 100}})
        self.web, self.db = (uuidutils.generate_uuid() for _ in range(2))
        alloc_db.replace_all(self.context, {
            self.web: request({self.root: {'VCPU': 2, 'DISK_GB': 10}}),
            self.db: request({self.root: {'VCPU': 3}})}, True)

    def generation(self, uuid):
        return rp_db.get_by_uuid(self.context, uuid)['generation']

    def to_nodes(self, root_generation=2, web_node=None, web_vcpu=2):
        """The reshape of the root's VCPU onto the nodes."""
        inventories = {
            self.root: {'generation': root_generation,
                        'inventories': {'DISK_GB': {'total': 100}}},
            self.node0: {'generation': 0,
                         'inventories': {'VCPU': {'total': 4}}},
            self.node1: {'generation': 0,
                         'inventories': {'VCPU': {'total': 4}}},
        }
        allocations = {
            self.web: request({self.root: {'DISK_GB': 10},
                               web_node or self.node0: {'VCPU': web_vcpu}},
                              generation=1),
            self.db: request({self.node1: {'VCPU': 3}}, generation=1),
        }
        return inventories, allocations

    def test_moves_inventory_with_its_allocations(self):
        report = common.WriteReport()
        reshaper_db.reshape(self.context, *self.to_nodes(), report=report)
        self.assertEqual({'DISK_GB': 100}, _inventory(self.context,
                                                      self.root))
        self.assertEqual({'VCPU': 4}, _inventory(self.context, self.node0))
        self.assertEqual({self.root: {'DISK_GB': 10},
                          self.node0: {'VCPU': 2}},
                         _held(self.context, self.web))
        self.assertEqual((3, {'VCPU': 3}),
                         usage_db.get_by_provider(self.context, self.node1))
        # Interim inventories, allocations, final inventories: as in
        # Placement, each bumps the providers it writes.
        self.assertEqual([5, 3, 3], [self.generation(uuid) for uuid in
                                     (self.root, self.node0, self.node1)])
        self.assertEqual(2, consumer_db.get_by_uuid(self.context,
                                                    self.web).generation)
        # What a notification announces.
        changes = report.state['inventories']
        self.assertEqual((5, True), (changes[self.root].generation,
                                     changes[self.root].changed))
        self.assertEqual({'VCPU'}, set(changes[self.node0].records))
        self.assertEqual({self.root: {'VCPU': 2, 'DISK_GB': 10}},
                         report.state['allocations'][self.web].allocations)

        # And back: the nodes emptied, the web consumer's allocations gone.
        reshaper_db.reshape(self.context, {
            self.root: {'generation': 5, 'inventories': {
                'VCPU': {'total': 8}, 'DISK_GB': {'total': 100}}},
            self.node0: {'generation': 3, 'inventories': {}},
            self.node1: {'generation': 3, 'inventories': {}},
        }, {
            self.web: request({}, generation=2),
            self.db: request({self.root: {'VCPU': 3}}, generation=2),
        })
        self.assertEqual({}, _inventory(self.context, self.node0))
        self.assertEqual({}, _held(self.context, self.web))
        self.assertEqual((8, {'VCPU': 3, 'DISK_GB': 0}),
                         usage_db.get_by_provider(self.context, self.root))

    def test_a_provider_given_the_same_inventory_is_not_changed(self):
        report = common.WriteReport()
        inventories, allocations = self.to_nodes()
        inventories[self.root]['inventories'] = {
            'VCPU': {'total': 8}, 'DISK_GB': {'total': 100}}
        allocations = {self.web: request({self.root: {'DISK_GB': 10},
                                          self.node0: {'VCPU': 1}},
                                         generation=1)}
        reshaper_db.reshape(self.context, inventories, allocations,
                            report=report)
        self.assertFalse(report.state['inventories'][self.root].changed)
        self.assertTrue(report.state['inventories'][self.node0].changed)

    def assertNothingChanged(self):
        self.assertEqual({'VCPU': 8, 'DISK_GB': 100},
                         _inventory(self.context, self.root))
        self.assertEqual({}, _inventory(self.context, self.node0))
        self.assertEqual([2, 0, 0], [self.generation(uuid) for uuid in
                                     (self.root, self.node0, self.node1)])
        self.assertEqual({self.root: {'VCPU': 2, 'DISK_GB': 10}},
                         _held(self.context, self.web))
        self.assertEqual(1, consumer_db.get_by_uuid(self.context,
                                                    self.web).generation)

    def test_refusals_leave_everything_as_it_was(self):
        cases = [
            (exception.ProviderGenerationConflict,
             self.to_nodes(root_generation=1)),
            # Node 1 cannot take 3 + 2.
            (exception.AllocationCapacityExceeded,
             self.to_nodes(web_node=self.node1)),
            (exception.AllocationCapacityExceeded,
             self.to_nodes(web_vcpu=5)),
        ]
        inventories, allocations = self.to_nodes()
        inventories[self.node0]['inventories']['VCPU']['max_unit'] = 1
        cases.append((exception.AllocationConstraintsConflict,
                      (inventories, allocations)))
        inventories, allocations = self.to_nodes()
        allocations[self.db]['consumer_generation'] = 2
        cases.append((exception.ConsumerConcurrentUpdate,
                      (inventories, allocations)))
        inventories, allocations = self.to_nodes()
        # The db consumer's VCPU stays on the root: in use.
        del allocations[self.db]
        cases.append((exception.InventoryInUse, (inventories, allocations)))
        inventories, allocations = self.to_nodes()
        inventories[self.node0]['inventories'] = {'CUSTOM_NOPE': {
            'total': 1}}
        cases.append((exception.ResourceClassNotFound,
                      (inventories, allocations)))
        inventories, allocations = self.to_nodes()
        inventories[uuidutils.generate_uuid()] = {'generation': 0,
                                                  'inventories': {}}
        cases.append((exception.ResourceProviderNotFound,
                      (inventories, allocations)))
        for error, (inventories, allocations) in cases:
            self.assertRaises(error, reshaper_db.reshape, self.context,
                              inventories, allocations)
            self.assertNothingChanged()

    def test_a_provider_generation_conflict_names_both(self):
        exc = self.assertRaises(
            exception.ProviderGenerationConflict, reshaper_db.reshape,
            self.context, *self.to_nodes(root_generation=7))
        self.assertEqual('placement.concurrent_update', exc.error_code)
        self.assertIn('actual: 2, given: 7', exc.message)

    def _bump_behind_the_back(self, uuid, times):
        """Bump ``uuid``'s generation before its allocation write's CAS."""
        provider_id = rp_db.get_by_uuid(self.context, uuid)['id']
        left = [times]

        def before(conn, cursor, statement, params, *args):
            if (left[0] and isinstance(params, dict) and
                    params.get('provider_id') == provider_id and
                    statement.startswith(
                        'UPDATE resource_providers SET generation')):
                left[0] -= 1
                cursor.execute('UPDATE resource_providers SET generation '
                               '= generation + 1 WHERE id = %d'
                               % provider_id)
        sa.event.listen(self.database.engine, 'before_cursor_execute',
                        before)
        self.addCleanup(sa.event.remove, self.database.engine,
                        'before_cursor_execute', before)

    def test_a_provider_of_the_allocations_only_that_moves_is_retried(self):
        # A shared disk: in the allocations, not in the inventories.
        pool = uuidutils.generate_uuid()
        rp_db.create(self.context, pool, 'pool')
        inv_db.replace_all(self.context, pool, 0,
                           {'DISK_GB': {'total': 1000}})
        inventories, allocations = self.to_nodes()
        allocations[self.db]['allocations'][pool] = {'DISK_GB': 50}
        self._bump_behind_the_back(pool, 2)
        reshaper_db.reshape(self.context, inventories, allocations)
        self.assertEqual({self.node1: {'VCPU': 3}, pool: {'DISK_GB': 50}},
                         _held(self.context, self.db))
        # The bumps went with the attempts that were rolled back.
        self.assertEqual(2, self.generation(pool))


class ConcurrentReshapeMixin(object):
    """A reshape racing allocation writes of the same providers.

    Schedulers keep writing one-VCPU allocations wherever there is
    room, while the compute moves its VCPU from the root to its NUMA
    nodes as a compute does: it reads the providers, reshapes with the
    generations it read, and starts again when one moved. Nothing is
    allocated beyond a capacity, and no allocation is lost.
    """

    WRITERS = 4
    # Each scheduler's attempts once the reshape is done.
    ATTEMPTS = 6
    # The nodes have more room than the root: the schedulers go on
    # writing on them once the reshape is done, while it is being done.
    NODE_VCPU = 6

    def test_no_overcommit_and_no_loss(self):
        ctx = zun_context.get_admin_context()
        root, node0, node1 = (uuidutils.generate_uuid() for _ in range(3))
        rp_db.create(ctx, root, 'host')
        rp_db.create(ctx, node0, 'host_NUMA0', root)
        rp_db.create(ctx, node1, 'host_NUMA1', root)
        inv_db.replace_all(ctx, root, 0, {'VCPU': {'total': 8},
                                          'DISK_GB': {'total': 100}})
        first = uuidutils.generate_uuid()
        alloc_db.replace_all(ctx, {first: request(
            {root: {'VCPU': 2, 'DISK_GB': 10}})}, True)
        written = []
        errors = []
        start = threading.Barrier(self.WRITERS + 1)

        reshaped = threading.Event()

        def schedule():
            # Until the reshape is done, then ATTEMPTS more.
            context = zun_context.get_admin_context()
            start.wait()
            after = 0
            for _ in range(200):
                if after == self.ATTEMPTS:
                    return
                if reshaped.is_set():
                    after += 1
                else:
                    time.sleep(0.005)
                consumer = uuidutils.generate_uuid()
                for provider in (root, node0, node1):
                    try:
                        alloc_db.replace_all(context, {consumer: request(
                            {provider: {'VCPU': 1}})}, True)
                        written.append(consumer)
                        break
                    except (exception.AllocationInventoryInvalid,
                            exception.AllocationCapacityExceeded):
                        continue
                    except Exception as exc:
                        errors.append(exc)
                        return

        attempts = []

        def reshape():
            context = zun_context.get_admin_context()
            start.wait()
            while len(attempts) < 50:
                attempts.append(1)
                inventories, allocations = self._numa_reshape(
                    context, root, (node0, node1))
                try:
                    reshaper_db.reshape(context, inventories, allocations)
                    reshaped.set()
                    return
                except (exception.ProviderGenerationConflict,
                        exception.ConsumerConcurrentUpdate):
                    continue
                except Exception as exc:
                    errors.append(exc)
                    return

        threads = [threading.Thread(target=schedule)
                   for _ in range(self.WRITERS)]
        threads.append(threading.Thread(target=reshape))
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual([], errors)
        self.assertLess(len(attempts), 50)
        # Reshaped: the root has no VCPU left, the nodes all of it.
        self.assertEqual({'DISK_GB': 100}, _inventory(ctx, root))
        usages = {uuid: usage_db.get_by_provider(ctx, uuid)[1]
                  for uuid in (root, node0, node1)}
        self.assertEqual({'DISK_GB': 10}, usages[root])
        self.assertLessEqual(usages[node0]['VCPU'], self.NODE_VCPU)
        self.assertLessEqual(usages[node1]['VCPU'], self.NODE_VCPU)
        # Every allocation written is there, where the reshape put it;
        # the schedulers filled the nodes.
        self.assertEqual(2 * self.NODE_VCPU, 2 + len(written))
        self.assertEqual(2 + len(written),
                         usages[node0]['VCPU'] + usages[node1]['VCPU'])
        for consumer in written:
            held = _held(ctx, consumer)
            self.assertEqual([{'VCPU': 1}], list(held.values()))
            self.assertNotIn(root, held)
        held = _held(ctx, first)
        self.assertEqual({'DISK_GB': 10}, held.pop(root))
        self.assertEqual([{'VCPU': 2}], list(held.values()))

    def _numa_reshape(self, context, root, nodes):
        """What a compute asks: every VCPU of the root on the nodes.

        Each consumer's VCPU goes to the first node with room.
        """
        generation, rows = alloc_db.get_by_provider(context, root)
        held = {}
        for row in rows:
            held.setdefault(row['consumer_uuid'], (
                row['consumer_generation'], {}))[1][
                row['resource_class']] = row['used']
        room = {node: self.NODE_VCPU for node in nodes}
        allocations = {}
        for consumer, (consumer_generation, amounts) in sorted(
                held.items()):
            amounts = dict(amounts)
            vcpu = amounts.pop('VCPU', 0)
            placed = {root: amounts} if amounts else {}
            if vcpu:
                node = next(node for node in nodes if room[node] >= vcpu)
                room[node] -= vcpu
                placed[node] = {'VCPU': vcpu}
            allocations[consumer] = request(placed,
                                            generation=consumer_generation)
        inventories = {root: {'generation': generation, 'inventories': {
            'DISK_GB': {'total': 100}}}}
        for node in nodes:
            inventories[node] = {
                'generation': rp_db.get_by_uuid(context, node)['generation'],
                'inventories': {'VCPU': {'total': self.NODE_VCPU}}}
        return inventories, allocations


class SQLiteConcurrentReshapeTestCase(ConcurrentReshapeMixin,
                                      base.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(fixtures.Database())
