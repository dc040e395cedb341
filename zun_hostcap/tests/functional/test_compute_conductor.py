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

"""Conductor and compute as separate processes over RabbitMQ and MariaDB.

What a deployment runs: zun-hostcap-db-manage builds the schema,
zun-hostcap-conductor serves the object calls of zun-hostcap-compute, which
has no database connection of its own.
"""

import dataclasses
import json
import os
import re
import subprocess
import time

from oslotest import base

from zun_hostcap.os_capability import fake as fake_host
from zun_hostcap.tests.functional import base as functional_base

INTERVAL = 1
# The conductor logs a line for every ComputeNode call it serves.
COMPUTE_NODE_RPC = re.compile(r'RPC object_(class_)?action(_versions)? '
                              r'ComputeNode(List)?\.(\w+)')
NATIVE = re.compile(r'concurrency check: (.+?) runs in thread .*'
                    r'native=(\w+)\); monkey-patched: (.+)$', re.M)


class TestComputeConductor(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.deployment = self.useFixture(
            functional_base.Deployment(self, interval=INTERVAL))
        self.hostname = self.deployment.hostname

    def _start(self, compute_options):
        self.deployment.start(compute_options)
        self.conductor = self.deployment.conductor
        self.compute = self.deployment.compute

    def _compute_node_calls(self):
        return [m.group(0) for m in
                COMPUTE_NODE_RPC.finditer(self.conductor.log())]

    def _assert_native_threads(self, process, where):
        checks = {m.group(1): (m.group(2), m.group(3).strip())
                  for m in NATIVE.finditer(process.log())}
        self.assertIn(where, checks, process.log()[-3000:])
        self.assertEqual(('True', 'none'), checks[where])

    def test_live_host_is_stored_with_lscpu_and_meminfo_values(self):
        self._start({'os_capability_driver': 'linux',
                     'cpu_source': 'lscpu'})
        node = self.deployment.wait_for_node()

        lscpu = subprocess.run(['lscpu'], capture_output=True, text=True,
                               check=True,
                               env=dict(os.environ, LC_ALL='C')).stdout
        fields = dict(line.split(':', 1) for line in lscpu.splitlines()
                      if ':' in line)
        online = subprocess.run(['lscpu', '--online', '--parse=CPU'],
                                capture_output=True, text=True,
                                check=True).stdout
        online_count = sum(1 for line in online.splitlines()
                           if line and not line.startswith('#'))
        with open('/proc/meminfo') as f:
            meminfo = {line.split(':')[0]: int(line.split()[1])
                       for line in f}

        self.assertEqual(online_count, node['cpus'])
        self.assertEqual(fields['Architecture'].strip(),
                         node['architecture'])
        self.assertEqual(meminfo['MemTotal'] // 1024, node['mem_total'])
        # Free memory moves while the test runs; within the granularity.
        self.assertAlmostEqual(meminfo['MemAvailable'] // 1024,
                               node['mem_available'],
                               delta=node['mem_total'] * 0.05)
        self.assertEqual(os.uname().release, node['kernel_version'])
        numa = json.loads(node['numa_topology'])
        self.assertEqual(online_count,
                         sum(len(cell['cpuset']) for cell in numa['nodes']))

        # Every service records itself and beats.
        def beating_services():
            rows = self.deployment.db.rows(
                'SELECT * FROM services WHERE host = :h', h=self.hostname)
            return {row['binary'] for row in rows
                    if row['report_count'] >= 2}
        functional_base.wait_for(
            lambda: beating_services() == {'zun-hostcap-conductor',
                                           'zun-hostcap-compute'},
            timeout=15, message='two heartbeats of each service')

        for where in ('service start-up', 'conductor RPC handler'):
            self._assert_native_threads(self.conductor, where)
        for where in ('service start-up', 'resource tracker periodic task'):
            self._assert_native_threads(self.compute, where)

    def test_changes_are_saved_and_an_idle_host_costs_nothing(self):
        data_file = os.path.join(self.deployment.tmp, 'host.json')
        caps = fake_host.sample_capabilities()
        fake_host.write_capabilities(data_file, caps)
        self._start({'os_capability_driver': 'fake',
                     'fake_capabilities_file': data_file})
        node = self.deployment.wait_for_node()
        self.assertEqual(len(caps.cpu.online_cpus), node['cpus'])

        # Idle: several intervals, no ComputeNode call, no row change.
        calls = functional_base.wait_for(
            lambda: self._compute_node_calls() or None, 10,
            message='the first ComputeNode calls')
        before = self.deployment.node()
        time.sleep(INTERVAL * 4)
        self.assertEqual(calls, self._compute_node_calls())
        self.assertEqual(before, self.deployment.node())

        # A capability changes: saved within one interval (plus slack for
        # the probe and the RPC round trip).
        fake_host.write_capabilities(data_file, dataclasses.replace(
            caps, os=dataclasses.replace(caps.os, kernel_version='9.9.9')))
        changed = functional_base.wait_for(
            lambda: (self.deployment.node() or {}).get(
                'kernel_version') == '9.9.9',
            timeout=INTERVAL * 2 + 1, interval=0.1,
            message='the changed kernel version')
        self.assertTrue(changed)
        self.assertEqual(calls + ['RPC object_action ComputeNode.save'],
                         self._compute_node_calls())


class TestRabbitMQIsolation(base.BaseTestCase):
    """A deployment's exchanges and queues go with its virtual host."""

    KINDS = ('exchanges', 'queues')

    def test_a_deployment_leaves_no_exchange_or_queue_behind(self):
        # Checked here: the fixture would skip or fail inside "with".
        functional_base.require_port(self, 'MariaDB', 3306)
        functional_base.require_port(self, 'RabbitMQ', 5672)
        functional_base.require_rabbitmqctl(self)
        root_before = {kind: functional_base.rabbitmq_names(kind, '/')
                       for kind in self.KINDS}
        deployment = functional_base.Deployment(
            self, interval=INTERVAL, notification_format='versioned')
        with deployment:
            data_file = os.path.join(deployment.tmp, 'host.json')
            fake_host.write_capabilities(data_file,
                                         fake_host.sample_capabilities())
            deployment.start({'os_capability_driver': 'fake',
                              'fake_capabilities_file': data_file})
            deployment.wait_for_node()
            vhost = deployment.vhost.name
            used = {kind: deployment.vhost.names(kind)
                    for kind in self.KINDS}
        root_after = {kind: functional_base.rabbitmq_names(kind, '/')
                      for kind in self.KINDS}
        vhosts = functional_base.rabbitmqctl('-q', 'list_vhosts', 'name')

        # The services used their virtual host: RPC, replies, notifications.
        self.assertIn(deployment.exchange, used['exchanges'])
        self.assertIn(deployment.conductor_topic, used['queues'])
        self.assertIn('versioned_notifications.info', used['queues'])
        self.assertTrue([name for name in used['queues']
                         if name.startswith('reply_')], used['queues'])
        # It is gone, and with it all it held.
        self.assertNotIn(vhost, vhosts.split())
        # Nothing of this run was made on "/": what appeared there while
        # it ran is other runs'.
        for kind in self.KINDS:
            ours = {name for name in root_after[kind] - root_before[kind]
                    if name in used[kind] or deployment.suffix in name}
            self.assertEqual(set(), ours, kind)
