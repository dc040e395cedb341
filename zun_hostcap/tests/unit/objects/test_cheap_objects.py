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

"""ComputeNode built from rows without setattr(), and the conductor's diff.

Against a real SQLite database: objects built the cheap way must be the
objects the setattr() way built, a save rebuilds only what changed, and
``object_action`` answers with the same updates as the deep-copy diff it
replaced.
"""

from oslo_versionedobjects import base as ovo_base
from oslo_versionedobjects import fields

from zun_hostcap.conductor import manager
from zun_hostcap.db import api as db_api
from zun_hostcap import objects
from zun_hostcap.objects import compute_node
from zun_hostcap.tests import base
from zun_hostcap.tests import fixtures as zun_fixtures
from zun_hostcap.tests.unit.objects import test_compute_node

# What a compute of 2026.2 knows.
VERSIONS = {'ComputeNode': '1.0', 'NUMATopology': '1.0', 'NUMANode': '1.0',
            'PciDevicePoolList': '1.0', 'PciDevicePool': '1.0'}


def coerced_copy(node):
    """``node`` rebuilt field by field with setattr(), as before."""
    copy = objects.ComputeNode(node._context)
    for name in node.fields:
        if node.obj_attr_is_set(name):
            value = getattr(node, name)
            if name == 'numa_topology' and value is not None:
                value = objects.NUMATopology(nodes=[
                    objects.NUMANode(**{f: getattr(cell, f)
                                        for f in cell.fields})
                    for cell in value.nodes])
            elif name == 'pci_device_pools' and value is not None:
                value = objects.PciDevicePoolList(objects=[
                    objects.PciDevicePool(**{f: getattr(pool, f)
                                             for f in pool.fields})
                    for pool in value])
            setattr(copy, name, value)
    copy.obj_reset_changes(recursive=True)
    return copy


def deep_copy_diff(before, after):
    """The updates of object_action as it was: deep copy, primitives."""
    updates = {}
    for name, field in after.fields.items():
        if not after.obj_attr_is_set(name):
            continue
        now = field.to_primitive(after, name, getattr(after, name))
        if (not before.obj_attr_is_set(name) or now != field.to_primitive(
                before, name, getattr(before, name))):
            updates[name] = now
    updates['obj_what_changed'] = after.obj_what_changed()
    return updates


class TestRowsToObjects(base.TestCase):

    def setUp(self):
        super().setUp()
        self.db = self.useFixture(zun_fixtures.Database())
        self.node = test_compute_node.make_compute_node(self.context)
        self.node.create()

    def test_round_trip_is_the_object_setattr_builds(self):
        loaded = objects.ComputeNode.get_by_uuid(self.context,
                                                 self.node.uuid)
        self.assertEqual(set(), loaded.obj_what_changed())
        self.assertEqual(coerced_copy(loaded).obj_to_primitive(),
                         loaded.obj_to_primitive())
        self.assertEqual(self.node.obj_to_primitive(),
                         loaded.obj_to_primitive())
        # Times keep their time zone, as the field's coercion gives them.
        self.assertIsNotNone(loaded.created_at.tzinfo)
        self.assertEqual({0, 1, 2, 3}, loaded.numa_topology.nodes[0].cpuset)
        self.assertEqual(set(), loaded.numa_topology.obj_what_changed())
        self.assertEqual(set(), loaded.pci_device_pools.obj_what_changed())

    def test_primitive_round_trip(self):
        loaded = objects.ComputeNode.get_by_hostname(self.context, 'host-1')
        again = objects.ComputeNode.obj_from_primitive(
            loaded.obj_to_primitive())
        self.assertEqual(loaded.obj_to_primitive(), again.obj_to_primitive())

    def test_list_rows_are_the_objects_a_get_returns(self):
        test_compute_node.make_compute_node(
            self.context, hostname='host-2', numa_topology=None,
            pci_device_pools=None, labels=None).create()
        nodes = objects.ComputeNodeList.get_all(self.context)
        self.assertEqual(['host-1', 'host-2'], [n.hostname for n in nodes])
        self.assertEqual(set(), nodes.obj_what_changed())
        for node in nodes:
            self.assertEqual(set(), node.obj_what_changed())
            self.assertEqual(
                objects.ComputeNode.get_by_uuid(
                    self.context, node.uuid).obj_to_primitive(),
                node.obj_to_primitive())
        # (oslo.db's JSON columns store None as an empty dict.)
        self.assertEqual([], nodes[1].numa_topology.nodes)
        self.assertEqual({}, nodes[1].labels)

    def test_save_rebuilds_only_what_changed(self):
        numa = self.node.numa_topology
        pools = self.node.pci_device_pools
        labels = self.node.labels
        self.node.mem_free = 7000
        self.node.save()
        self.assertIs(numa, self.node.numa_topology)
        self.assertIs(pools, self.node.pci_device_pools)
        self.assertIs(labels, self.node.labels)
        self.assertEqual(7000, self.node.mem_free)
        self.assertIsNotNone(self.node.updated_at)
        self.assertEqual(set(), self.node.obj_what_changed())

    def test_save_of_a_nested_numa_change(self):
        cell = self.node.numa_topology.nodes[1]
        cell.mem_available = 10
        self.assertEqual({'numa_topology'}, self.node.obj_what_changed())
        writes = self.db.count_writes()
        self.node.save()
        self.assertEqual(1, len(writes))
        self.assertIn('numa_topology', writes[0])
        # Written as it was: kept, and no longer marked changed.
        self.assertIs(cell, self.node.numa_topology.nodes[1])
        self.assertEqual(set(), self.node.obj_what_changed())
        self.assertEqual(set(), cell.obj_what_changed())
        loaded = objects.ComputeNode.get_by_uuid(self.context,
                                                 self.node.uuid)
        self.assertEqual(10, loaded.numa_topology.nodes[1].mem_available)

    def test_a_row_that_differs_replaces_the_field(self):
        # Another writer changed the row: the object takes its values.
        with db_api.conductor_scope():
            db_api.compute_node_update(self.context, self.node.uuid, {
                'numa_topology': {'nodes': []}, 'os': 'Other OS'})
        numa = self.node.numa_topology
        self.node.cpus = 9
        self.node.save()
        self.assertIsNot(numa, self.node.numa_topology)
        self.assertEqual([], self.node.numa_topology.nodes)
        self.assertEqual('Other OS', self.node.os)
        self.assertEqual(9, self.node.cpus)
        self.assertEqual(set(), self.node.obj_what_changed())


class TestObjectActionDiff(base.TestCase):
    """The conductor's updates, against the deep-copy diff they replace."""

    def setUp(self):
        super().setUp()
        self.useFixture(zun_fixtures.Database())
        self.conductor = manager.ConductorManager()

    def _action(self, node, method):
        before = node.obj_clone()
        updates, _result = self.conductor.object_action(
            self.context, node, method, (), {})
        self.assertEqual(deep_copy_diff(before, node), updates)
        return updates

    def _created(self):
        node = test_compute_node.make_compute_node(self.context)
        updates = self._action(node, 'create')
        self.assertIn('id', updates)
        self.assertIn('created_at', updates)
        # Over the wire, a fresh object from its primitive.
        return objects.ComputeNode.obj_from_primitive(
            node.obj_to_primitive(), self.context)

    def test_real_change_gives_the_same_updates(self):
        node = self._created()
        node.mem_free = 5000
        node.numa_topology.nodes[0].mem_available = 1234
        updates = self._action(node, 'save')
        self.assertIn('updated_at', updates)
        self.assertIn('numa_topology', updates)
        self.assertNotIn('mem_free', updates)
        self.assertNotIn('pci_device_pools', updates)
        self.assertEqual(set(), updates['obj_what_changed'])

    def test_scalar_change_only(self):
        node = self._created()
        node.kernel_version = '6.2.0'
        updates = self._action(node, 'save')
        self.assertEqual({'updated_at', 'obj_what_changed'}, set(updates))

    def test_no_change_gives_nothing(self):
        node = self._created()
        updates = self._action(node, 'save')
        self.assertEqual({'obj_what_changed': set()}, updates)

    def test_in_place_change_of_a_list_is_seen(self):
        node = self._created()
        held = manager._held_values(node)
        # A method that changes a list where it is, without setattr().
        node.runtimes.append('crun')
        node.numa_topology.nodes[0].pinned_cpus.add(1)
        updates = manager._updates(node, held)
        self.assertEqual(['runc', 'crun'], updates['runtimes'])
        self.assertIn('numa_topology', updates)
        self.assertEqual({'runtimes', 'numa_topology'}, set(updates))

    def test_destroy(self):
        node = self._created()
        node.numa_topology.nodes[1].mem_available = 1
        # destroy() resets the node's own changes, not the nested ones.
        self._action(node, 'destroy')


@ovo_base.VersionedObjectRegistry.register_if(False)
class ComputeNodeNext(objects.ComputeNode):
    """A next version of ComputeNode, as a newer conductor has it."""

    VERSION = '1.2'

    fields = dict(objects.ComputeNode.fields,
                  gpus=fields.NonNegativeIntegerField(default=0))

    @classmethod
    def obj_name(cls):
        return 'ComputeNode'

    def obj_make_compatible(self, primitive, target_version):
        super().obj_make_compatible(primitive, target_version)
        if target_version != self.VERSION:
            primitive.pop('gpus', None)


class TestBackport(base.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(zun_fixtures.Database())
        test_compute_node.make_compute_node(self.context).create()

    def test_row_built_object_backports(self):
        row = db_api.compute_node_get_by_hostname(self.context, 'host-1')
        node = ComputeNodeNext._from_values(self.context, gpus=2, **{
            name: compute_node._from_row_value(name, getattr(row, name))
            for name in objects.ComputeNode.fields if name != 'inventory'})
        node.load_inventory()
        primitive = manager.ConductorManager().object_backport_versions(
            self.context, node, VERSIONS)
        self.assertEqual('1.0', primitive['zun_hostcap_object.version'])
        data = primitive['zun_hostcap_object.data']
        self.assertNotIn('gpus', data)
        self.assertNotIn('inventory', data)
        self.assertEqual('host-1', data['hostname'])
        # An N-1 peer loads it.
        old = objects.ComputeNode.obj_from_primitive(primitive)
        self.assertEqual(node.numa_topology.to_dict(),
                         old.numa_topology.to_dict())
        self.assertEqual(set(), old.obj_what_changed())

    def test_newest_version_is_unchanged(self):
        node = objects.ComputeNode.get_by_hostname(self.context, 'host-1')
        node.load_inventory()
        primitive = node.obj_to_primitive(
            target_version=node.VERSION,
            version_manifest=ovo_base.obj_tree_get_versions('ComputeNode'))
        self.assertEqual(node.obj_to_primitive(), primitive)


class TestListValues(base.TestCase):
    """The hosts list's plain data is what the objects would show."""

    def setUp(self):
        super().setUp()
        self.useFixture(zun_fixtures.Database())

    def test_values_are_the_objects_values(self):
        from zun_hostcap.api.controllers.v1 import hosts
        test_compute_node.make_compute_node(self.context).create()
        test_compute_node.make_compute_node(
            self.context, hostname='host-2', numa_topology=None,
            pci_device_pools=None, labels={'a': 'b'}, runtimes=None).create()
        listed = objects.ComputeNodeList.get_all_values(
            self.context, hosts._SHOWN_FIELDS)
        self.assertEqual(['host-1', 'host-2'],
                         [host['hostname'] for host in listed])
        for host in listed:
            node = objects.ComputeNode.get_by_uuid(self.context,
                                                   host['uuid'])
            self.assertEqual(hosts._node_values(node), host)
            self.assertEqual(list(hosts._SHOWN_FIELDS), list(host))
        page = objects.ComputeNodeList.get_all_values(
            self.context, ('uuid', 'hostname'), limit=1,
            marker=listed[0]['uuid'])
        self.assertEqual([{'uuid': listed[1]['uuid'],
                           'hostname': 'host-2'}], page)

    def test_hosts_sharing_json_texts(self):
        # The second and third host store the first's JSON texts: each
        # text is decoded once, and every host still shows its values.
        from zun_hostcap.api.controllers.v1 import hosts
        for name in ('host-1', 'host-2', 'host-3'):
            test_compute_node.make_compute_node(
                self.context, hostname=name).create()
        listed = objects.ComputeNodeList.get_all_values(
            self.context, hosts._SHOWN_FIELDS)
        self.assertEqual(3, len(listed))
        for host in listed:
            node = objects.ComputeNode.get_by_uuid(self.context,
                                                   host['uuid'])
            self.assertEqual(hosts._node_values(node), host)

    def test_plain_is_the_objects_round_trip(self):
        numa = {'nodes': [{'id': 0, 'cpuset': [3, 1, 2],
                           'mem_total': 10, 'mem_available': 5}]}
        self.assertEqual(objects.NUMATopology.from_dict(numa).to_dict(),
                         objects.NUMATopology.plain(numa))
        pools = [{'vendor_id': '8086', 'product_id': '1572', 'count': 1}]
        self.assertEqual(
            objects.PciDevicePoolList.from_list(pools).to_list(),
            objects.PciDevicePoolList.plain(pools))
