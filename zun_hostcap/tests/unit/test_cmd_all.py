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

"""zun-hostcap-all: object calls to the conductor of the same process."""

import time

from oslo_versionedobjects import base as ovo_base

from zun_hostcap.cmd import all as cmd_all
from zun_hostcap.cmd import compute as cmd_compute
from zun_hostcap.common import exception
from zun_hostcap.conductor import rpcapi
from zun_hostcap.db import api as db_api
from zun_hostcap import objects
from zun_hostcap.objects import base as objects_base
from zun_hostcap.tests import base
from zun_hostcap.tests import fixtures as zun_fixtures
from zun_hostcap.tests.unit.objects import test_compute_node


class RecordingConductorManager(zun_fixtures.CountingConductorManager):
    """The real conductor endpoint, keeping what each call was handed."""

    def __init__(self):
        super().__init__()
        self.handed = []

    def object_class_action_versions(self, context, objname, objmethod,
                                     object_versions, args, kwargs):
        self.handed.append((context, object_versions, args))
        return super().object_class_action_versions(
            context, objname, objmethod, object_versions, args, kwargs)

    def object_action(self, context, objinst, objmethod, args, kwargs):
        self.handed.append((context, objinst, args))
        return super().object_action(context, objinst, objmethod, args,
                                     kwargs)


class TestInProcessConductorAPI(base.TestCase):
    """The same calls over fake:// RPC and in-process give the same."""

    def setUp(self):
        super().setUp()
        self.useFixture(zun_fixtures.Database())
        self.useFixture(zun_fixtures.RPC(self.conf))
        # An RPC conductor, the compute's guard and its RPC client.
        self.conductor = self.useFixture(zun_fixtures.Conductor(self.conf))
        self.rpc_api = rpcapi.ConductorAPI()
        self.manager = RecordingConductorManager()
        self.in_process = cmd_all.InProcessConductorAPI(self.manager)

    def _use(self, api):
        objects_base.install_indirection_api(api)

    def test_is_an_indirection_api(self):
        self.assertIsInstance(self.in_process,
                              ovo_base.VersionedObjectIndirectionAPI)

    def test_object_calls_give_what_rpc_gives(self):
        self._use(self.rpc_api)
        node = test_compute_node.make_compute_node(self.context)
        node.create()
        over_rpc = objects.ComputeNode.get_by_hostname(self.context,
                                                       'host-1')

        self._use(self.in_process)
        in_process = objects.ComputeNode.get_by_hostname(self.context,
                                                         'host-1')
        self.assertEqual(over_rpc.obj_to_primitive(),
                         in_process.obj_to_primitive())
        self.assertEqual(set(), in_process.obj_what_changed())
        self.assertEqual(
            [n.obj_to_primitive() for n in
             objects.ComputeNodeList.get_all(self.context)],
            [over_rpc.obj_to_primitive()])

        # A save of each: the objects come back the same, nothing left
        # marked changed, and the other one reads what was written.
        over_rpc.mem_used = 100
        self._use(self.rpc_api)
        over_rpc.save()
        in_process.mem_used = 200
        in_process.numa_topology.nodes[1].mem_available = 1234
        self._use(self.in_process)
        in_process.save()
        self.assertEqual(set(), in_process.obj_what_changed())
        self.assertEqual(200, in_process.mem_used)
        self.assertEqual(1234, in_process.numa_topology.nodes[1]
                         .mem_available)
        self._use(self.rpc_api)
        reread = objects.ComputeNode.get_by_uuid(self.context, node.uuid)
        self.assertEqual(in_process.obj_to_primitive(),
                         reread.obj_to_primitive())

    def test_calls_go_through_the_conductor_handlers(self):
        self._use(self.in_process)
        node = test_compute_node.make_compute_node(self.context)
        node.create()
        objects.ComputeNode.get_by_hostname(self.context, 'host-1')
        node.mem_used = 1
        node.save()
        node.destroy()
        self.assertEqual([('ComputeNode', 'create'),
                          ('ComputeNode', 'get_by_hostname'),
                          ('ComputeNode', 'save'),
                          ('ComputeNode', 'destroy')], self.manager.calls)
        # Handed what an RPC server hands it: a context and an object
        # rebuilt from their primitives, and the caller's versions to
        # backport the answer to.
        for context, objinst, _args in (self.manager.handed[0],
                                        self.manager.handed[2]):
            self.assertIsNot(self.context, context)
            self.assertEqual(self.context.to_dict(), context.to_dict())
            self.assertIsNot(node, objinst)
            self.assertIsInstance(objinst, objects.ComputeNode)
        _context, versions, args = self.manager.handed[1]
        self.assertEqual(ovo_base.obj_tree_get_versions('ComputeNode'),
                         versions)
        # Arguments arrive as through a broker's JSON: lists.
        self.assertEqual(['host-1'], args)

    def test_database_stays_off_limits_to_the_caller(self):
        self._use(self.in_process)
        test_compute_node.make_compute_node(self.context).create()
        self.assertFalse(db_api.in_conductor_scope())
        err = self.assertRaises(exception.DBAccessForbidden,
                                db_api.compute_node_get_all, self.context)
        self.assertIn('compute_node_get_all', str(err))

    def test_expected_errors_arrive_as_themselves(self):
        self._use(self.in_process)
        self.assertRaises(exception.ComputeNodeNotFound,
                          objects.ComputeNode.get_by_hostname,
                          self.context, 'nowhere')
        service = objects.Service(self.context, host='h', binary='b')
        service.create()
        duplicate = objects.Service(self.context, host='h', binary='b')
        self.assertRaises(exception.ServiceAlreadyExists, duplicate.create)

    def test_services_heartbeat_in_process(self):
        self._use(self.in_process)
        service = objects.Service(self.context, host='h', binary='b')
        service.create()
        service.heartbeat()
        service.heartbeat()
        self.assertEqual(2, service.report_count)
        self.assertIsNotNone(service.last_seen_up)

    def test_backport_gives_what_rpc_gives(self):
        node = test_compute_node.make_compute_node(self.context)
        versions = ovo_base.obj_tree_get_versions('ComputeNode')
        # The primitive the conductor answers arrives as an object.
        self.assertEqual(
            self.rpc_api.object_backport_versions(
                self.context, node, versions).obj_to_primitive(),
            self.in_process.object_backport_versions(
                self.context, node, versions).obj_to_primitive())


class TestWhichTransport(base.TestCase):

    def test_fake_transport_is_carried_in_process(self):
        for url in ('fake:/', 'fake://'):
            self.flags(transport_url=url)
            self.assertTrue(cmd_all.carries_rpc_in_process(self.conf), url)

    def test_a_message_bus_keeps_rpc(self):
        self.flags(transport_url='rabbit://guest:guest@127.0.0.1:5672/')
        self.assertFalse(cmd_all.carries_rpc_in_process(self.conf))


class TestComputeServiceInProcess(base.TestCase):
    """zun-hostcap-all's compute service on the in-process conductor API."""

    def setUp(self):
        super().setUp()
        self.flags(os_capability_driver='fake', group='compute')
        self.useFixture(zun_fixtures.Database())
        self.useFixture(zun_fixtures.RPC(self.conf))
        # A conductor listening over RPC, as in zun-hostcap-all: none of
        # the compute's calls reach it.
        self.rpc_conductor = self.useFixture(
            zun_fixtures.Conductor(self.conf))
        self.manager = RecordingConductorManager()
        self.service = cmd_compute.create_service(
            conductor_api=cmd_all.InProcessConductorAPI(self.manager))
        self.addCleanup(objects_base.install_indirection_api, None)

    def _service_row(self):
        with db_api.conductor_scope():
            return objects.Service.get_by_host_and_binary(
                self.context, self.conf.host, cmd_compute.BINARY)

    def test_registers_reports_and_heartbeats_without_rpc(self):
        self.service.start()
        self.addCleanup(self.service.stop)
        # The periodic task starts at once, in a thread of its own.
        node = _wait_for(self._stored_node)
        self.assertEqual(self.conf.host, node.hostname)
        self.assertEqual(self._service_row().id, self.service.service_ref.id)

        self.service.report_state()
        self.service.report_state()
        self.manager.flush_heartbeats(self.context)
        self.assertEqual(2, self._service_row().report_count)

        self.assertEqual([], self.rpc_conductor.manager.calls)
        self.assertIn(('Service', 'create'), self.manager.calls)
        self.assertIn(('ComputeNode', 'create'), self.manager.calls)
        # The compute side itself still may not open the database.
        self.assertRaises(exception.DBAccessForbidden,
                          db_api.service_get_all, self.context)

    def _stored_node(self):
        with db_api.conductor_scope():
            try:
                return objects.ComputeNode.get_by_hostname(self.context,
                                                           self.conf.host)
            except exception.ComputeNodeNotFound:
                return None


def _wait_for(condition, timeout=30):
    """``condition()`` once it is true; fails after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.01)
    raise AssertionError('%s still false after %d s' % (condition, timeout))


class TestPlacementDefaults(base.TestCase):
    """The all-in-one's compute side reports to its own /placement."""

    def _resolved(self, **api):
        # As at each start of the process: no endpoint worked out yet.
        self.conf.clear_default('endpoint_override', group='placement')
        cmd_all.placement_defaults(self.conf)
        self.flags(group='api', **dict({'auth_strategy': 'noauth2'}, **api))
        cmd_all.placement_endpoint(self.conf)
        placement = self.conf.placement
        return (placement.auth_type, placement.token,
                placement.endpoint_override)

    def test_its_own_api_on_the_loopback(self):
        self.assertEqual(
            ('admin_token', 'admin', 'http://127.0.0.1:9518/placement'),
            self._resolved(host='0.0.0.0', port=9518))
        self.assertEqual('http://[::1]:8000/placement',
                         self._resolved(host='::', port=8000)[2])
        self.assertEqual('http://192.0.2.7:9518/placement',
                         self._resolved(host='192.0.2.7', port=9518)[2])

    def test_a_placement_section_wins(self):
        self.flags(group='placement',
                   endpoint_override='http://placement.example.com')
        self.assertEqual('http://placement.example.com',
                         self._resolved()[2])

    def test_behind_keystone_nothing_is_assumed(self):
        self.assertEqual((None, 'admin', None),
                         self._resolved(auth_strategy='keystone'))
