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

"""ComputeNode against a real SQLite database."""

from oslo_versionedobjects import base as ovo_base

from zun_hostcap.common import exception
from zun_hostcap.db.sqlalchemy.placement import inventories as inv_db
from zun_hostcap.db.sqlalchemy.placement import resource_providers as rp_db
from zun_hostcap import objects
from zun_hostcap.tests import base
from zun_hostcap.tests import fixtures as zun_fixtures


def make_compute_node(context, **overrides):
    values = dict(
        hostname='host-1', cpus=8, cpu_used=0.0, mem_total=16000,
        mem_free=8000, mem_available=12000, mem_buffers=100,
        mem_cached=3000, mem_used=0, total_containers=0,
        running_containers=0, paused_containers=0, stopped_containers=0,
        architecture='x86_64', os_type='linux', os='Debian GNU/Linux 12',
        kernel_version='6.1.0', labels={}, disk_total=100, disk_used=10,
        disk_quota_supported=False, enable_cpu_pinning=False,
        runtimes=['runc'],
        numa_topology=objects.NUMATopology(nodes=[
            objects.NUMANode(id=0, cpuset={0, 1, 2, 3}, pinned_cpus=set(),
                             mem_total=8000, mem_available=4000),
            objects.NUMANode(id=1, cpuset={4, 5, 6, 7}, pinned_cpus=set(),
                             mem_total=8000, mem_available=4000)]),
        pci_device_pools=objects.PciDevicePoolList(objects=[
            objects.PciDevicePool(vendor_id='8086', product_id='1572',
                                  numa_node=0, count=2,
                                  tags={'class_code': '020000'})]))
    values.update(overrides)
    return objects.ComputeNode(context, **values)


class TestComputeNode(base.TestCase):

    def setUp(self):
        super().setUp()
        self.db = self.useFixture(zun_fixtures.Database())

    def test_create_and_load(self):
        node = make_compute_node(self.context)
        node.create()
        self.assertIsNotNone(node.id)
        self.assertIsNotNone(node.created_at)
        self.assertEqual(set(), node.obj_what_changed())

        loaded = objects.ComputeNode.get_by_uuid(self.context, node.uuid)
        self.assertEqual('host-1', loaded.hostname)
        self.assertEqual(node.numa_topology.to_dict(),
                         loaded.numa_topology.to_dict())
        self.assertEqual({0, 1, 2, 3}, loaded.numa_topology.nodes[0].cpuset)
        self.assertEqual(node.pci_device_pools.to_list(),
                         loaded.pci_device_pools.to_list())
        by_name = objects.ComputeNode.get_by_hostname(self.context,
                                                      'host-1')
        self.assertEqual(node.uuid, by_name.uuid)

    def test_create_twice_is_refused(self):
        node = make_compute_node(self.context)
        node.create()
        self.assertRaises(exception.ObjectActionError, node.create)
        self.assertRaises(exception.ComputeNodeAlreadyExists,
                          make_compute_node(self.context).create)

    def test_save_writes_only_changed_fields(self):
        node = make_compute_node(self.context)
        node.create()
        writes = self.db.count_writes()

        node.save()
        self.assertEqual([], writes)

        node.cpus = 16
        node.save()
        self.assertEqual(1, len(writes))
        self.assertIn('cpus=', writes[0])
        self.assertNotIn('mem_free', writes[0])
        self.assertEqual(16, objects.ComputeNode.get_by_uuid(
            self.context, node.uuid).cpus)

    def test_save_nested_numa_change(self):
        node = make_compute_node(self.context)
        node.create()
        node.numa_topology.nodes[1].mem_available = 10
        node.save()
        loaded = objects.ComputeNode.get_by_uuid(self.context, node.uuid)
        self.assertEqual(10, loaded.numa_topology.nodes[1].mem_available)
        self.assertEqual(set(), node.obj_what_changed())

    def test_destroy(self):
        node = make_compute_node(self.context)
        node.create()
        node.destroy()
        self.assertRaises(exception.ComputeNodeNotFound,
                          objects.ComputeNode.get_by_uuid, self.context,
                          node.uuid)
        self.assertRaises(exception.ComputeNodeNotFound, node.destroy)

    def test_list_sorted_and_paginated(self):
        for name in ('c', 'a', 'b'):
            make_compute_node(self.context, hostname=name).create()
        nodes = objects.ComputeNodeList.get_all(self.context)
        self.assertEqual(['a', 'b', 'c'], [n.hostname for n in nodes])
        page = objects.ComputeNodeList.get_all(
            self.context, limit=1, marker=nodes[0].uuid)
        self.assertEqual(['b'], [n.hostname for n in page])
        desc = objects.ComputeNodeList.get_all(self.context,
                                               sort_dir='desc')
        self.assertEqual(['c', 'b', 'a'], [n.hostname for n in desc])

    def test_list_bad_sort_key_and_marker(self):
        self.assertRaises(exception.InvalidSortKey,
                          objects.ComputeNodeList.get_all, self.context,
                          sort_key='numa_topology')
        self.assertRaises(exception.MarkerNotFound,
                          objects.ComputeNodeList.get_all, self.context,
                          marker='8b6ad4c5-7d06-4a4e-9a3b-2f9f4a1c0b11')

    def test_invalid_field_values_are_refused(self):
        node = make_compute_node(self.context)
        self.assertRaises(ValueError, setattr, node, 'cpus', -1)
        self.assertRaises(ValueError, setattr, node, 'mem_total', 'lots')


def _inventory(node):
    """{class: (total, reserved, ratio, generation)} of node.inventory."""
    return {inv.resource_class: (inv.total, inv.reserved,
                                 inv.allocation_ratio,
                                 inv.resource_provider_generation)
            for inv in node.inventory}


class TestComputeNodeInventory(base.TestCase):
    """1.1: the resources of a node read the new way, else the old way."""

    def setUp(self):
        super().setUp()
        self.db = self.useFixture(zun_fixtures.Database())
        self.node = make_compute_node(self.context)
        self.node.create()

    def test_a_node_without_provider_reads_its_columns(self):
        self.flags(group='compute', cpu_allocation_ratio=8.0,
                   reserved_host_memory_mb=1024, reserved_host_disk_mb=2048)
        node = objects.ComputeNode.get_by_hostname(self.context, 'host-1')
        self.assertEqual({'VCPU': (8, 0, 8.0, None),
                          'MEMORY_MB': (16000, 1024, 1.0, None),
                          'DISK_GB': (100, 2, 1.0, None)}, _inventory(node))
        self.assertEqual({node.uuid},
                         {inv.resource_provider_uuid
                          for inv in node.inventory})
        self.assertEqual(set(), node.obj_what_changed())

    def test_a_provider_without_inventory_yet_too(self):
        rp_db.create(self.context, self.node.uuid, 'host-1')
        self.assertEqual({'VCPU', 'MEMORY_MB', 'DISK_GB'},
                         set(_inventory(self.node)))

    def test_a_node_with_provider_reads_its_inventory(self):
        rp_db.create(self.context, self.node.uuid, 'host-1')
        inv_db.replace_all(self.context, self.node.uuid, 0, {
            'VCPU': {'total': 4, 'allocation_ratio': 2.0},
            'MEMORY_MB': {'total': 8000, 'reserved': 256}})
        node = objects.ComputeNode.get_by_uuid(self.context, self.node.uuid)
        self.assertEqual({'VCPU': (4, 0, 2.0, 1),
                          'MEMORY_MB': (8000, 256, 1.0, 1)},
                         _inventory(node))

    def test_it_is_never_saved(self):
        self.node.inventory
        self.node.inventory = []
        writes = self.db.count_writes()
        self.node.save()
        self.assertEqual([], writes)
        self.node.mem_used = 1
        self.node.save()
        self.assertEqual(1, len(writes))
        self.assertEqual(set(), self.node.obj_what_changed())

    def test_only_it_is_read_on_first_use(self):
        node = objects.ComputeNode(self.context, uuid=self.node.uuid)
        self.assertRaises(exception.ObjectActionError, getattr, node,
                          'hostname')

    def test_a_compute_of_2026_2_gets_the_node_without_it(self):
        self.node.inventory
        manifest = ovo_base.obj_tree_get_versions('ComputeNode')
        manifest['ComputeNode'] = '1.0'
        primitive = self.node.obj_to_primitive(target_version='1.0',
                                               version_manifest=manifest)
        self.assertEqual('1.0', primitive['zun_hostcap_object.version'])
        self.assertNotIn('inventory', primitive['zun_hostcap_object.data'])
        self.assertIn('numa_topology', primitive['zun_hostcap_object.data'])


class TestComputeNodeInventoryOverRPC(base.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(zun_fixtures.Database())
        self.useFixture(zun_fixtures.RPC(self.conf))
        self.conductor = self.useFixture(zun_fixtures.Conductor(self.conf))

    def test_a_compute_reads_it_through_the_conductor(self):
        node = make_compute_node(self.context)
        node.create()
        self.assertEqual({'VCPU', 'MEMORY_MB', 'DISK_GB'},
                         set(_inventory(node)))
        self.assertEqual(('ComputeNode', 'load_inventory'),
                         self.conductor.manager.calls[-1])
        self.assertEqual(set(), node.obj_what_changed())


class TestService(base.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(zun_fixtures.Database())

    def test_create_heartbeat_and_list(self):
        service = objects.Service(self.context, host='h',
                                  binary='zun-hostcap-compute')
        service.create()
        self.assertEqual(0, service.report_count)
        self.assertFalse(service.disabled)
        service.heartbeat()
        service.heartbeat()
        self.assertEqual(2, service.report_count)
        self.assertIsNotNone(service.last_seen_up)
        loaded = objects.Service.get_by_host_and_binary(
            self.context, 'h', 'zun-hostcap-compute')
        self.assertEqual(2, loaded.report_count)
        self.assertEqual(['h'], [s.host for s in
                                 objects.ServiceList.get_all(self.context)])

    def test_duplicate_and_missing(self):
        objects.Service(self.context, host='h', binary='b').create()
        self.assertRaises(exception.ServiceAlreadyExists,
                          objects.Service(self.context, host='h',
                                          binary='b').create)
        self.assertRaises(exception.ServiceNotFound,
                          objects.Service.get_by_host_and_binary,
                          self.context, 'h', 'other')

    def test_save_disabled(self):
        service = objects.Service(self.context, host='h', binary='b')
        service.create()
        service.disabled = True
        service.disabled_reason = 'maintenance'
        service.save()
        loaded = objects.Service.get_by_host_and_binary(self.context, 'h',
                                                        'b')
        self.assertTrue(loaded.disabled)
        self.assertEqual('maintenance', loaded.disabled_reason)

    def test_heartbeat_of_a_removed_service_says_which(self):
        service = objects.Service(self.context, host='h', binary='b')
        service.create()
        service.destroy()
        err = self.assertRaises(exception.ServiceNotFound,
                                service.heartbeat)
        self.assertEqual('Service %s could not be found.' % service.id,
                         str(err))
