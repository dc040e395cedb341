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

"""NUMA nodes as child providers: the planning, and the report of them.

The planning (layout, placement, the moves of a reshape) is plain data;
the report runs against this project's Placement API, served on a
loopback port, as in test_placement_client.
"""

import logging
import uuid

import fixtures

from zun_hostcap.common import exception
from zun_hostcap.compute.container import base as container_base
from zun_hostcap.compute import numa_providers
from zun_hostcap.compute import placement_client
from zun_hostcap.compute import placement_report
from zun_hostcap import objects
from zun_hostcap.tests import base
from zun_hostcap.tests.unit.compute import test_placement_client

ROOT = '7a4c2b4e-35a5-4b87-9e3c-0c6d2f1e8a10'


def _node(cells=((0, 4, 4096), (1, 4, 4096)), hostname='compute-1',
          node_uuid=ROOT, disk_total=100):
    """A ComputeNode of NUMA cells (id, CPUs, MiB)."""
    first = 0
    nodes = []
    for cell_id, cpus, memory in cells:
        nodes.append(objects.NUMANode(
            id=cell_id, cpuset=set(range(first, first + cpus)),
            pinned_cpus=set(), mem_total=memory, mem_available=memory))
        first += cpus
    return objects.ComputeNode(
        uuid=node_uuid, hostname=hostname,
        cpus=sum(cell[1] for cell in cells),
        mem_total=sum(cell[2] for cell in cells), disk_total=disk_total,
        numa_topology=objects.NUMATopology(nodes=nodes))


class TestNames(base.TestCase):

    def test_uuids_and_names_are_stable_and_nova_like(self):
        uuid0 = numa_providers.provider_uuid(ROOT, 0)
        self.assertEqual(uuid0, numa_providers.provider_uuid(ROOT, 0))
        self.assertNotEqual(uuid0, numa_providers.provider_uuid(ROOT, 1))
        self.assertEqual(str(uuid.uuid5(uuid.UUID(ROOT), 'NUMA0')), uuid0)
        self.assertEqual('compute-1_NUMA0',
                         numa_providers.provider_name('compute-1', 0))
        self.assertTrue(numa_providers.is_numa_provider(
            ROOT, uuid0, 'compute-1_NUMA0'))
        # Another root's, or a name that says another node: not ours.
        self.assertFalse(numa_providers.is_numa_provider(
            ROOT, uuid0, 'compute-1_NUMA1'))
        self.assertFalse(numa_providers.is_numa_provider(
            str(uuid.uuid4()), uuid0, 'compute-1_NUMA0'))
        self.assertFalse(numa_providers.is_numa_provider(
            ROOT, uuid0, 'compute-1_gpu'))


class TestLayout(base.TestCase):

    def test_reserved_is_split_by_size_and_adds_up(self):
        split = numa_providers.split_reserved
        self.assertEqual([1, 1], split(2, [8, 8]))
        self.assertEqual([2, 1], split(3, [8, 8]))
        self.assertEqual([0, 0, 0], split(0, [4, 4, 4]))
        self.assertEqual([1, 3], split(4, [4, 12]))
        self.assertEqual([256, 768], split(1024, [8192, 24576]))
        # Of a remainder, the largest fractions first.
        self.assertEqual([1, 1, 1], split(3, [3, 3, 4]))
        self.assertEqual([0, 1], split(1, [3, 4]))
        # Never more than there is.
        self.assertEqual([4, 4], split(10, [4, 4]))
        self.assertEqual([0, 0], split(3, [0, 0]))

    def test_off_the_root_keeps_everything(self):
        inventories = placement_report.inventory_of(_node())
        self.assertEqual((inventories, []),
                         numa_providers.layout(_node(), inventories))

    def test_on_each_node_a_child_with_its_vcpu_and_memory(self):
        self.flags(group='compute', numa_providers=True,
                   reserved_host_cpus=1, reserved_host_memory_mb=1024,
                   cpu_allocation_ratio=2.0, ram_allocation_ratio=1.5)
        node = _node(cells=((0, 4, 2048), (1, 12, 6144)))
        root, children = numa_providers.layout(
            node, placement_report.inventory_of(node))
        self.assertEqual({'DISK_GB'}, set(root))
        self.assertEqual(
            [(numa_providers.provider_uuid(ROOT, 0), 'compute-1_NUMA0', 0),
             (numa_providers.provider_uuid(ROOT, 1), 'compute-1_NUMA1', 1)],
            [child[:3] for child in children])
        self.assertEqual(
            {'VCPU': {'total': 4, 'reserved': 0, 'min_unit': 1,
                      'max_unit': 4, 'step_size': 1,
                      'allocation_ratio': 2.0},
             'MEMORY_MB': {'total': 2048, 'reserved': 256, 'min_unit': 1,
                           'max_unit': 2048, 'step_size': 1,
                           'allocation_ratio': 1.5}},
            children[0].inventories)
        self.assertEqual((1, 768), (
            children[1].inventories['VCPU']['reserved'],
            children[1].inventories['MEMORY_MB']['reserved']))

    def test_a_host_without_known_numa_nodes_keeps_them_on_the_root(self):
        self.flags(group='compute', numa_providers=True)
        node = _node(cells=())
        inventories = placement_report.inventory_of(node)
        self.assertEqual((inventories, []),
                         numa_providers.layout(node, inventories))

    def test_a_node_without_cpus_has_memory_only(self):
        self.flags(group='compute', numa_providers=True)
        node = _node(cells=((0, 4, 1024), (1, 0, 8192)))
        _root, children = numa_providers.layout(
            node, placement_report.inventory_of(node))
        self.assertEqual({'MEMORY_MB'}, set(children[1].inventories))


class TestPlanning(base.TestCase):

    N0 = numa_providers.provider_uuid(ROOT, 0)
    N1 = numa_providers.provider_uuid(ROOT, 1)
    POOL = 'c0a3f0b0-8e63-4b5d-9a4e-3c1b2a0f9e87'

    def setUp(self):
        super().setUp()
        self.flags(group='compute', numa_providers=True,
                   reserved_host_memory_mb=0, cpu_allocation_ratio=1.0)
        node = _node()
        _root, self.children = numa_providers.layout(
            node, placement_report.inventory_of(node))

    def test_place(self):
        room = {'a': {'VCPU': 2, 'MEMORY_MB': 100},
                'b': {'VCPU': 4, 'MEMORY_MB': 50}}
        place = numa_providers.place
        self.assertEqual({'a': {'VCPU': 2}}, place({'VCPU': 2}, room))
        self.assertEqual({'b': {'VCPU': 3, 'MEMORY_MB': 50}},
                         place({'VCPU': 3, 'MEMORY_MB': 50}, room))
        self.assertIsNone(place({'VCPU': 3, 'MEMORY_MB': 60}, room))
        self.assertEqual(
            {'a': {'VCPU': 2, 'MEMORY_MB': 60}, 'b': {'VCPU': 1}},
            place({'VCPU': 3, 'MEMORY_MB': 60}, room, spread=True))
        self.assertIsNone(place({'VCPU': 7}, room, spread=True))
        self.assertEqual({}, place({}, room))

    def test_on_largest_first_to_the_first_node_with_room(self):
        small, large, third = 'c1', 'c2', 'c3'
        moves = numa_providers.plan_moves(
            ROOT, self.children, {ROOT}, {
                small: {ROOT: {'VCPU': 1, 'MEMORY_MB': 512,
                               'DISK_GB': 10}},
                large: {ROOT: {'VCPU': 3, 'MEMORY_MB': 3584},
                        self.POOL: {'DISK_GB': 20}},
                third: {ROOT: {'VCPU': 2, 'MEMORY_MB': 512}}})
        self.assertEqual({
            # The largest takes node 0; the smaller fit beside it or not.
            large: {self.N0: {'VCPU': 3, 'MEMORY_MB': 3584},
                    self.POOL: {'DISK_GB': 20}},
            third: {self.N1: {'VCPU': 2, 'MEMORY_MB': 512}},
            small: {self.N0: {'VCPU': 1, 'MEMORY_MB': 512},
                    ROOT: {'DISK_GB': 10}}}, moves)

    def test_off_everything_back_on_the_root(self):
        tree = {ROOT, self.N0, self.N1}
        held = {'c1': {self.N0: {'VCPU': 1, 'MEMORY_MB': 512},
                       ROOT: {'DISK_GB': 10}},
                'c2': {self.N0: {'VCPU': 1}, self.N1: {'VCPU': 2}},
                'c3': {ROOT: {'DISK_GB': 5}}}
        self.assertEqual(
            {'c1': {ROOT: {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 10}},
             'c2': {ROOT: {'VCPU': 3}}},
            numa_providers.plan_moves(ROOT, [], tree, held))

    def test_what_fits_no_node_is_spread_with_a_warning(self):
        logs = self.useFixture(fixtures.FakeLogger(level=logging.WARNING))
        moves = numa_providers.plan_moves(ROOT, self.children, {ROOT}, {
            'big': {ROOT: {'VCPU': 6}}})
        self.assertEqual({'big': {self.N0: {'VCPU': 4},
                                  self.N1: {'VCPU': 2}}}, moves)
        self.assertIn('than any NUMA node of this host has room for',
                      logs.output)

    def test_the_audit_keeps_what_is_right_and_places_the_rest(self):
        placer = numa_providers.Placer(self.children, {
            'kept': {self.N1: {'VCPU': 2, 'MEMORY_MB': 1024}},
            'grown': {self.N0: {'VCPU': 1}},
            'claim': {self.N0: {'VCPU': 3}}})
        placed = placer.place_all({
            'kept': {'VCPU': 2, 'MEMORY_MB': 1024},
            'grown': {'VCPU': 2, 'DISK_GB': 1},
            'new': {'VCPU': 1, 'MEMORY_MB': 128},
            'disk only': {'DISK_GB': 5}})
        self.assertEqual({
            'kept': {self.N1: {'VCPU': 2, 'MEMORY_MB': 1024}},
            # Node 0 has 4 - 3 (a claim in flight) for it.
            'grown': {self.N1: {'VCPU': 2}},
            'new': {self.N0: {'VCPU': 1, 'MEMORY_MB': 128}},
            'disk only': {}}, placed)

    def test_the_audit_spreads_what_fits_no_node_and_says_it_once(self):
        logs = self.useFixture(fixtures.FakeLogger(level=logging.WARNING))
        claims = {'big': {'VCPU': 6}}
        spread = {self.N0: {'VCPU': 4}, self.N1: {'VCPU': 2}}
        self.assertEqual(
            {'big': spread},
            numa_providers.Placer(self.children, {}).place_all(claims))
        self.assertEqual(1, logs.output.count('spread over several'))
        # The next run finds it so: the same, and no other warning.
        self.assertEqual(
            {'big': spread},
            numa_providers.Placer(self.children,
                                  {'big': spread}).place_all(claims))
        self.assertEqual(1, logs.output.count('spread over several'))


class TestNumaReporter(base.TestCase):
    """The report of a host with NUMA providers, to our Placement."""

    def setUp(self):
        super().setUp()
        _url, self.requests = test_placement_client.serve_placement(self)
        self.logs = self.useFixture(fixtures.FakeLogger(
            name='zun_hostcap', level=logging.INFO))
        self.node = _node(node_uuid=str(uuid.uuid4()))
        self.n0 = numa_providers.provider_uuid(self.node.uuid, 0)
        self.n1 = numa_providers.provider_uuid(self.node.uuid, 1)
        self.client = placement_client.ReportClient()
        self.flags(group='compute', reserved_host_memory_mb=0,
                   cpu_allocation_ratio=1.0)

    def reporter(self, numa):
        """A restarted compute's reporter, with the option ``numa``."""
        self.flags(group='compute', numa_providers=numa)
        return placement_report.Reporter(placement_client.ReportClient())

    def container(self, cpus, memory_mb):
        consumer = str(uuid.uuid4())
        return container_base.Container(
            consumer, 'c-' + consumer[:8], container_base.RUNNING,
            cpus=cpus, memory_mb=memory_mb, disk_gb=1,
            project_id=test_placement_client.PROJECT,
            user_id=test_placement_client.USER)

    def reshapes(self):
        return [request for request in self.requests
                if request == ('POST', '/reshaper')]

    def held(self, consumer):
        return self.client.get_allocations(consumer)[1]

    def test_turned_on_and_off_with_containers_one_reshape_each(self):
        web, db = self.container(1, 512), self.container(3, 2048)
        self.reporter(False).report(self.node, [web, db])
        before = self.client.provider_usages(self.node.uuid)
        self.assertEqual({'VCPU': 4, 'MEMORY_MB': 2560, 'DISK_GB': 2},
                         before)

        on = self.reporter(True)
        on.report(self.node, [web, db])
        self.assertEqual(1, len(self.reshapes()))
        self.assertEqual({'DISK_GB'}, set(
            self.client.read_provider(self.node.uuid)['inventories']))
        tree = self.client.provider_tree(self.node.uuid)
        self.assertEqual({self.node.uuid: None, self.n0: self.node.uuid,
                          self.n1: self.node.uuid},
                         {rp: doc['parent_provider_uuid']
                          for rp, doc in tree.items()})
        self.assertEqual('compute-1_NUMA1', tree[self.n1]['name'])
        self.assertEqual({'HW_NUMA_ROOT'}, self.client.get_traits(self.n0))
        # The larger first, on node 0; the other fits beside it.
        self.assertEqual({self.n0: {'VCPU': 3, 'MEMORY_MB': 2048},
                          self.node.uuid: {'DISK_GB': 1}},
                         self.held(db.uuid))
        self.assertEqual({self.n0: {'VCPU': 1, 'MEMORY_MB': 512},
                          self.node.uuid: {'DISK_GB': 1}},
                         self.held(web.uuid))
        usages = [self.client.provider_usages(rp) for rp in
                  (self.node.uuid, self.n0, self.n1)]
        self.assertEqual(before, {
            rc: sum(usage.get(rc, 0) for usage in usages) for rc in before})
        self.assertIn('Reshaped the resource providers of compute-1: VCPU '
                      'and MEMORY_MB are now on its 2 NUMA nodes, with the '
                      'allocations of 2 consumers', self.logs.output)

        # An idle run: a GET of the allocations of each provider.
        del self.requests[:]
        on.report(self.node, [web, db])
        self.assertEqual(
            [('GET', '/resource_providers/%s/allocations' % rp)
             for rp in (self.node.uuid, self.n0, self.n1)], self.requests)

        # A claim goes to the first node with room: node 1 here.
        claim = str(uuid.uuid4())
        on.claim(self.node.uuid, claim, {'VCPU': 2, 'MEMORY_MB': 256},
                 None, None)
        self.assertEqual({self.n1: {'VCPU': 2, 'MEMORY_MB': 256}},
                         self.held(claim))
        err = self.assertRaises(
            exception.PlacementRequestFailed, on.claim, self.node.uuid,
            str(uuid.uuid4()), {'VCPU': 3}, None, None)
        self.assertIn('no NUMA node of this host has room for VCPU 3',
                      str(err))
        self.client.delete_allocations(claim)

        # Off again: everything back on the host's provider, the NUMA
        # providers gone.
        del self.requests[:]
        self.reporter(False).report(self.node, [web, db])
        self.assertEqual(1, len(self.reshapes()))
        self.assertEqual({'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1},
                         self.held(web.uuid)[self.node.uuid])
        self.assertEqual(before, self.client.provider_usages(self.node.uuid))
        self.assertEqual([self.node.uuid],
                         list(self.client.provider_tree(self.node.uuid)))

    def test_turned_on_without_containers_no_reshape(self):
        self.reporter(False).report(self.node, [])
        self.reporter(True).report(self.node, [])
        self.assertEqual([], self.reshapes())
        self.assertEqual({'VCPU': 4, 'MEMORY_MB': 4096}, {
            rc: inv['total'] for rc, inv in self.client.read_provider(
                self.n1)['inventories'].items()})
        # The audit puts a container on a node from the start.
        web = self.container(2, 128)
        self.reporter(True).report(self.node, [web])
        self.assertEqual({self.n0: {'VCPU': 2, 'MEMORY_MB': 128},
                          self.node.uuid: {'DISK_GB': 1}},
                         self.held(web.uuid))

    def test_a_stranger_on_a_numa_node_is_deleted(self):
        reporter = self.reporter(True)
        reporter.report(self.node, [])
        stranger = str(uuid.uuid4())
        self.client.put_allocations(stranger, {self.n1: {'VCPU': 1}},
                                    test_placement_client.PROJECT,
                                    test_placement_client.USER)
        self.assertEqual(([], [stranger]),
                         reporter.audit(self.node.uuid, []))


class TestOldPlacementAndNumaProviders(base.TestCase):
    """A Placement without the reshaper (edge: not on this machine)."""

    def test_one_clear_error_naming_the_version(self):
        url = test_placement_client.serve_old_placement(self, '1.29')
        self.flags(group='compute', numa_providers=True)
        reporter = placement_report.Reporter(placement_client.ReportClient())
        err = self.assertRaises(
            exception.PlacementServiceTooOld, reporter.tree.set_inventories,
            _node(), {})
        self.assertEqual(
            'The Placement service at %s serves microversions up to 1.29; '
            'zun-hostcap-compute needs 1.30 (POST /reshaper, for [compute] '
            'numa_providers = true) or later' % url, str(err))
