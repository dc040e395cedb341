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

"""The service wrapper: registration, heartbeat, RPC and periodic tasks."""

import threading

from oslo_service import periodic_task

from zun_hostcap.common import concurrency
from zun_hostcap.conductor import manager as conductor_manager
from zun_hostcap.db import api as db_api
from zun_hostcap import objects
from zun_hostcap.objects import service as service_obj
from zun_hostcap import service
from zun_hostcap.tests import base
from zun_hostcap.tests import fixtures as zun_fixtures
from zun_hostcap.tests.functional import base as functional_base


class _RecordingManager(periodic_task.PeriodicTasks):

    def __init__(self, conf):
        super().__init__(conf)
        self.ran = threading.Event()
        self.native = None

    @periodic_task.periodic_task(run_immediately=True)
    def record(self, context):
        self.native = concurrency.running_on_native_thread()
        self.ran.set()


class TestService(base.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(zun_fixtures.Database())
        self.flags(transport_url='fake:/', report_interval=1)
        self.addCleanup(service.rpc.cleanup)

    def _run(self, svc):
        svc.start()
        self.addCleanup(svc.stop)
        return svc

    def test_registers_and_beats(self):
        svc = self._run(service.Service(
            'zun-hostcap-conductor', conductor_manager.ConductorManager(),
            topic='t', host='h1'))
        self.assertEqual('h1', svc.service_ref.host)
        functional_base.wait_for(
            lambda: objects.Service.get_by_host_and_binary(
                self.context, 'h1', 'zun-hostcap-conductor'
            ).report_count >= 1, timeout=5, message='a heartbeat')

    def test_restart_reuses_the_service_row(self):
        first = service.Service('b', conductor_manager.ConductorManager(),
                                host='h1')
        first.start()
        first.stop()
        second = self._run(service.Service(
            'b', conductor_manager.ConductorManager(), host='h1'))
        self.assertEqual(first.service_ref.id, second.service_ref.id)
        self.assertEqual(1, len(objects.ServiceList.get_all(self.context)))

    def test_a_row_records_the_service_version_of_its_release(self):
        # A row of 2026.2 (version 0) is the service's after an upgrade.
        old = objects.Service(self.context, host='h1', binary='b')
        old.create()
        self.assertEqual(0, old.version)
        svc = self._run(service.Service(
            'b', conductor_manager.ConductorManager(), host='h1'))
        self.assertEqual(old.id, svc.service_ref.id)
        self.assertEqual(service_obj.SERVICE_VERSION, objects.Service
                         .get_by_host_and_binary(self.context, 'h1',
                                                 'b').version)

    def test_periodic_tasks_run_on_native_threads(self):
        mgr = _RecordingManager(self.conf)
        self._run(service.Service('b', mgr, host='h1'))
        self.assertTrue(mgr.ran.wait(5))
        self.assertTrue(mgr.native)

    def test_compute_side_goes_through_the_conductor(self):
        # Conductor and a conductor-using service in one process, as in
        # zun-hostcap-all; the database is blocked outside the conductor.
        self._run(service.Service(
            'zun-hostcap-conductor', conductor_manager.ConductorManager(),
            topic=self.conf.conductor.topic, host='h1'))
        db_api.block_access('test')
        self.addCleanup(db_api.unblock_access)
        self.addCleanup(objects.base.install_indirection_api, None)
        svc = self._run(service.Service('zun-hostcap-compute',
                                        _RecordingManager(self.conf),
                                        host='h1', use_conductor=True))
        self.assertEqual('zun-hostcap-compute', svc.service_ref.binary)
        self.assertEqual(service_obj.SERVICE_VERSION,
                         svc.service_ref.version)
