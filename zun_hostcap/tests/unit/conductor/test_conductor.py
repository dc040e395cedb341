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

"""Object indirection through a real conductor RPC server."""

import threading

import fixtures
from oslo_versionedobjects import base as ovo_base

from zun_hostcap.common import concurrency
from zun_hostcap.common import exception
from zun_hostcap.conductor import rpcapi
from zun_hostcap.db import api as db_api
from zun_hostcap import objects
from zun_hostcap.tests import base
from zun_hostcap.tests import fixtures as zun_fixtures
from zun_hostcap.tests.unit.objects import test_compute_node


class TestConductorIndirection(base.TestCase):

    def setUp(self):
        super().setUp()
        self.db = self.useFixture(zun_fixtures.Database())
        self.useFixture(zun_fixtures.RPC(self.conf))
        self.conductor = self.useFixture(zun_fixtures.Conductor(self.conf))

    def test_create_get_save_destroy_go_over_rpc(self):
        node = test_compute_node.make_compute_node(self.context)
        node.create()
        self.assertIsNotNone(node.id)
        self.assertEqual(set(), node.obj_what_changed())

        node.mem_used = 512
        node.save()
        loaded = objects.ComputeNode.get_by_hostname(self.context, 'host-1')
        self.assertEqual(512, loaded.mem_used)
        self.assertEqual(node.numa_topology.to_dict(),
                         loaded.numa_topology.to_dict())
        loaded.destroy()

        self.assertEqual([('ComputeNode', 'create'),
                          ('ComputeNode', 'save'),
                          ('ComputeNode', 'get_by_hostname'),
                          ('ComputeNode', 'destroy')],
                         self.conductor.manager.calls)

    def test_save_without_changes_sends_nothing(self):
        node = test_compute_node.make_compute_node(self.context)
        node.create()
        calls = len(self.conductor.manager.calls)
        # The remotable save() itself is only called when something
        # changed; the resource tracker relies on obj_what_changed().
        self.assertEqual(set(), node.obj_what_changed())
        self.assertEqual(calls, len(self.conductor.manager.calls))

    def test_not_found_arrives_as_itself(self):
        self.assertRaises(exception.ComputeNodeNotFound,
                          objects.ComputeNode.get_by_hostname,
                          self.context, 'nowhere')

    def test_lists_and_services_over_rpc(self):
        test_compute_node.make_compute_node(self.context).create()
        nodes = objects.ComputeNodeList.get_all(self.context)
        self.assertEqual(['host-1'], [n.hostname for n in nodes])
        service = objects.Service(self.context, host='h', binary='b')
        service.create()
        service.heartbeat()
        self.assertEqual(1, service.report_count)

    def test_database_is_off_limits_outside_the_conductor(self):
        err = self.assertRaises(exception.DBAccessForbidden,
                                db_api.compute_node_get_all, self.context)
        self.assertIn('compute_node_get_all', str(err))
        with db_api.conductor_scope():
            self.assertEqual([], db_api.compute_node_get_all(self.context))

    def test_placement_objects_are_off_limits_too(self):
        # They query the database without the DB API's functions: the
        # guard is on every connection of the enginefacade.
        with db_api.conductor_scope():
            provider = objects.ResourceProvider(self.context, name='rp1')
            provider.create()
        reads_and_writes = [
            lambda: objects.ResourceProvider.get_by_uuid(self.context,
                                                         provider.uuid),
            lambda: objects.ResourceProviderList.get_all_by_filters(
                self.context),
            lambda: objects.InventoryList.get_all_by_provider_uuid(
                self.context, provider.uuid),
            lambda: objects.InventoryList.replace_all(
                self.context, provider.uuid, provider.generation,
                {'VCPU': {'total': 8}}),
            lambda: objects.ResourceProvider(self.context,
                                             name='rp2').create(),
            lambda: objects.TraitList.get_all(self.context),
        ]
        for call in reads_and_writes:
            err = self.assertRaises(exception.DBAccessForbidden, call)
            self.assertEqual('test compute must not access the database '
                             'directly; its objects go through the '
                             'conductor. Attempted: a connection to the '
                             'database', str(err))
        with db_api.conductor_scope():
            self.assertEqual(
                ['rp1'], [rp.name for rp in
                          objects.ResourceProviderList.get_all_by_filters(
                              self.context)])
            self.assertEqual([], objects.InventoryList
                             .get_all_by_provider_uuid(self.context,
                                                       provider.uuid)
                             .objects)

    def test_rpc_handler_runs_on_a_native_thread(self):
        seen = []
        original = self.conductor.manager.object_class_action_versions

        def recording(*args, **kwargs):
            seen.append((concurrency.running_on_native_thread(),
                         threading.current_thread() is not
                         threading.main_thread()))
            return original(*args, **kwargs)

        self.conductor.manager.object_class_action_versions = recording
        objects.ComputeNodeList.get_all(self.context)
        self.assertEqual([(True, True)], seen)


class TestConductorAPI(base.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(zun_fixtures.RPC(self.conf))

    def test_wait_until_ready_returns_once_a_conductor_answers(self):
        self.useFixture(zun_fixtures.Database())
        self.useFixture(zun_fixtures.Conductor(self.conf))
        self.assertTrue(rpcapi.ConductorAPI().wait_until_ready(
            self.context))

    def test_wait_until_ready_warns_and_can_be_stopped(self):
        self.useFixture(fixtures.MonkeyPatch(
            'zun_hostcap.conductor.rpcapi.PING_TIMEOUT', 0.2))
        logs = self.useFixture(fixtures.FakeLogger(
            name='zun_hostcap.conductor.rpcapi'))
        stop = threading.Event()
        threading.Timer(0.7, stop.set).start()
        self.assertFalse(rpcapi.ConductorAPI(topic='nobody-listens')
                         .wait_until_ready(self.context, stop))
        self.assertIn('No zun-hostcap-conductor answered on topic '
                      'nobody-listens', logs.output)

    def test_version_cap_from_upgrade_levels(self):
        self.flags(group='upgrade_levels', conductor='1.0')
        api = rpcapi.ConductorAPI()
        self.assertTrue(api.client.can_send_version('1.0'))
        self.assertFalse(api.client.can_send_version('1.1'))

    def test_release_name_alias(self):
        self.flags(group='upgrade_levels', conductor='2026.2')
        api = rpcapi.ConductorAPI()
        self.assertEqual('1.0', api.client.version_cap)

    def test_is_an_indirection_api(self):
        self.assertIsInstance(rpcapi.ConductorAPI(),
                              ovo_base.VersionedObjectIndirectionAPI)


class TestBackport(base.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(zun_fixtures.Database())

    def test_backport_returns_primitive_of_requested_versions(self):
        from zun_hostcap.conductor import manager
        node = test_compute_node.make_compute_node(self.context)
        primitive = manager.ConductorManager().object_backport_versions(
            self.context, node, {'ComputeNode': '1.0',
                                 'NUMATopology': '1.0', 'NUMANode': '1.0',
                                 'PciDevicePoolList': '1.0',
                                 'PciDevicePool': '1.0'})
        self.assertEqual('1.0', primitive['zun_hostcap_object.version'])
        self.assertEqual('ComputeNode',
                         primitive['zun_hostcap_object.name'])
