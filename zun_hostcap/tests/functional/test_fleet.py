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

"""Heartbeats over RabbitMQ, and the fleet simulator against a conductor.

The services and the simulator are real processes: zun-hostcap-conductor
and zun-hostcap-compute (or tools/fleet_sim.py with its simulated hosts)
over RabbitMQ, in a virtual host of their own, and MariaDB.
"""

import json
import os
import subprocess
import sys

import fixtures
from oslotest import base

from zun_hostcap.os_capability import fake as fake_host
from zun_hostcap.tests.functional import base as functional_base

HEARTBEAT_CALL = 'RPC object_action Service.heartbeat'
FLEET_SIM = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir,
                         os.pardir, 'tools', 'fleet_sim.py')


class TestHeartbeatsOverRabbitMQ(base.BaseTestCase):

    def _start(self, service_down_time=60, upgrade_levels=None):
        deployment = self.useFixture(functional_base.Deployment(
            self, interval=1, report_interval=1))
        deployment.common['DEFAULT']['service_down_time'] = service_down_time
        if upgrade_levels:
            deployment.common['upgrade_levels'] = upgrade_levels
        data_file = os.path.join(deployment.tmp, 'host.json')
        fake_host.write_capabilities(data_file,
                                     fake_host.sample_capabilities())
        deployment.start({'os_capability_driver': 'fake',
                          'fake_capabilities_file': data_file})
        return deployment

    def _compute_reports(self, deployment):
        rows = deployment.db.rows(
            'SELECT * FROM services WHERE host = :h AND `binary` = '
            "'zun-hostcap-compute'", h=deployment.hostname)
        return rows[0]['report_count'] if rows else 0

    def _wait_for_reports(self, deployment, count):
        # Generous: on a loaded machine the services take seconds to start.
        deployment.wait_for_node(timeout=60)
        functional_base.wait_for(
            lambda: self._compute_reports(deployment) >= count, timeout=60,
            message='%d heartbeats of the compute' % count,
            processes=deployment.processes())

    def _compute_state(self, deployment):
        status, _headers, body = functional_base.http_get(
            deployment.api_url + '/v1/services',
            headers={'X-Auth-Token': 'admin'})
        self.assertEqual(200, status, body)
        return {(svc['host'], svc['binary']): svc['state']
                for svc in json.loads(body)['services']}[
            (deployment.hostname, 'zun-hostcap-compute')]

    def test_heartbeats_are_cast_and_a_silent_compute_is_shown_down(self):
        deployment = self._start(service_down_time=4)
        deployment.start_api()
        self._wait_for_reports(deployment, 3)

        # Cast and written in batches: never an object call.
        self.assertNotIn(HEARTBEAT_CALL, deployment.conductor.log())
        self.assertEqual('up', self._compute_state(deployment))

        self.assertEqual(0, deployment.compute.stop())
        functional_base.wait_for(
            lambda: self._compute_state(deployment) == 'down', timeout=30,
            message='the stopped compute shown down',
            processes=deployment.processes())

    def test_a_compute_capped_at_1_0_beats_with_the_object_call(self):
        deployment = self._start(upgrade_levels={'conductor': '1.0'})
        self._wait_for_reports(deployment, 2)
        self.assertIn(HEARTBEAT_CALL, deployment.conductor.log())

    def test_two_conductor_workers_serve_the_queue_and_stop_together(self):
        deployment = self.useFixture(functional_base.Deployment(
            self, interval=1, report_interval=1))
        deployment.common['conductor']['workers'] = 2
        data_file = os.path.join(deployment.tmp, 'host.json')
        fake_host.write_capabilities(data_file,
                                     fake_host.sample_capabilities())
        deployment.start({'os_capability_driver': 'fake',
                          'fake_capabilities_file': data_file})
        self._wait_for_reports(deployment, 5)

        # The launcher and its two workers, each consuming the conductor
        # topic's queue.
        conductor = deployment.conductor
        self.assertEqual(3, len(conductor.pids()), conductor.pids())
        functional_base.require_rabbitmqctl(self)

        def consumers():
            output = functional_base.rabbitmqctl(
                '-q', 'list_queues', '-p', deployment.vhost.name, 'name',
                'consumers', '--formatter', 'json')
            return {queue['name']: queue['consumers']
                    for queue in json.loads(output or '[]')}
        queues = functional_base.wait_for(
            lambda: consumers().get(deployment.conductor_topic) == 2 and
            consumers(), timeout=30, message='two consumers of the topic',
            processes=(conductor,))
        self.assertEqual(2, queues[deployment.conductor_topic], queues)
        self.assertNotIn(HEARTBEAT_CALL, conductor.log())

        # SIGTERM to the launcher's pid ends the workers too.
        self.assertEqual(0, conductor.stop())
        self.assertEqual([], conductor.killed_leftovers)
        self.assertEqual(set(), conductor.pids())


class TestFleetSimulator(base.BaseTestCase):

    HOSTS = 200

    def test_200_hosts_for_60_seconds(self):
        functional_base.require_port(self, 'MariaDB', 3306)
        db = self.useFixture(functional_base.MySQLDatabase())
        vhost = self.useFixture(functional_base.RabbitVhost(self))
        tmp = self.useFixture(fixtures.TempDir()).path
        config = functional_base.write_config(
            os.path.join(tmp, 'sim.conf'), {
                'DEFAULT': {'transport_url': vhost.url,
                            'control_exchange': 'fleet-sim-test',
                            'state_path': tmp},
                'database': {'connection': db.url},
                'conductor': {'topic': 'fleet-sim-test-conductor'},
                'oslo_messaging_rabbit': {'rabbit_retry_backoff': 0,
                                          'rabbit_interval_max': 1}})
        subprocess.run(functional_base.console_script(
            'zun-hostcap-db-manage') + ['--config-file', config, 'upgrade'],
            check=True, capture_output=True)
        figures = os.path.join(tmp, 'figures.json')
        # Every host changes once in 5 update intervals (of 10 s): within
        # the measured minute each saves at least once.
        sim = self.useFixture(functional_base.Process(
            'fleet-sim',
            [sys.executable, FLEET_SIM, '--config-file', config,
             '--start-conductor', '--hosts', str(self.HOSTS),
             '--duration', '60', '--update-interval', '10',
             '--report-interval', '5', '--change-fraction', '0.2',
             '--processes', '2', '--work-dir', tmp, '--json', figures],
            os.path.join(tmp, 'fleet-sim.out')))
        try:
            status = sim.wait(timeout=600)
        except subprocess.TimeoutExpired:
            # SIGTERM: it stops its workers and conductor, prints figures.
            sim.stop()
            self.fail('the simulator did not end in 600 s:\n%s\n%s' % (
                sim.log(), _tail(os.path.join(tmp, 'conductor.log'))))
        output = sim.log()

        self.assertEqual(0, status, output)
        with open(figures) as f:
            result = json.load(f)
        checks = result['verdict']['checks']
        self.assertTrue(checks['no error'], output)
        self.assertTrue(checks['no host shown down'], output)
        self.assertTrue(checks['heartbeats arrived'], output)
        measured = [minute for minute in result['minutes']
                    if minute['phase'] == 'measure']
        self.assertTrue(measured, output)
        self.assertEqual(self.HOSTS, measured[-1]['hosts_saved'], output)
        self.assertEqual(self.HOSTS, measured[-1]['services'], output)
        rows = db.rows("SELECT COUNT(*) AS n FROM compute_nodes WHERE "
                       "hostname LIKE 'sim-%'")
        self.assertEqual(self.HOSTS, rows[0]['n'])
        # The conductor batched them: its summary line is in its log.
        with open(result['conductor_log']) as f:
            self.assertIn('Heartbeats written in the last', f.read())


def _tail(path, lines=40):
    try:
        with open(path, errors='replace') as f:
            return ''.join(f.readlines()[-lines:])
    except OSError as err:
        return '(%s)' % err
