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
import uuid

import fixtures
from oslotest import base

from zun_hostcap.os_capability import fake as fake_host
from zun_hostcap.tests.functional import base as functional_base

INTERVAL = 1
# A compute log line for every ComputeNode call the conductor serves.
COMPUTE_NODE_RPC = re.compile(r'RPC object_(class_)?action(_versions)? '
                              r'ComputeNode(List)?\.(\w+)')
NATIVE = re.compile(r'concurrency check: (.+?) runs in thread .*'
                    r'native=(\w+)\); monkey-patched: (.+)$', re.M)


class TestComputeConductor(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        functional_base.require_port(self, 'MariaDB', 3306)
        functional_base.require_port(self, 'RabbitMQ', 5672)
        self.db = self.useFixture(functional_base.MySQLDatabase())
        self.tmp = self.useFixture(fixtures.TempDir()).path
        # A private exchange and topic, so parallel runs do not meet.
        suffix = uuid.uuid4().hex[:8]
        self.common = {
            'DEFAULT': {
                'transport_url': functional_base.RABBIT_URL,
                'control_exchange': 'zun-hostcap-test-%s' % suffix,
                'state_path': self.tmp,
                'report_interval': INTERVAL,
                'debug': 'true',
                'host': 'functional-%s' % suffix,
            },
            'conductor': {'topic': 'zun-hostcap-conductor-%s' % suffix},
            'compute': {'resource_update_interval': INTERVAL},
        }
        self.hostname = self.common['DEFAULT']['host']

    def _config(self, name, **sections):
        merged = {section: dict(options)
                  for section, options in self.common.items()}
        for section, options in sections.items():
            merged.setdefault(section, {}).update(options)
        return functional_base.write_config(
            os.path.join(self.tmp, name + '.conf'), merged)

    def _start(self, compute_options):
        conductor_conf = self._config(
            'conductor', database={'connection': self.db.url})
        subprocess.run(functional_base.console_script(
            'zun-hostcap-db-manage') + ['--config-file', conductor_conf,
                                        'upgrade'],
            check=True, capture_output=True)
        # The compute gets a database URL that cannot work: it must never
        # need one.
        compute_conf = self._config(
            'compute', database={
                'connection': 'mysql+pymysql://nobody:nothing@127.0.0.1:1/x'},
            compute=compute_options)
        self.conductor = self.useFixture(functional_base.ServiceProcess(
            'zun-hostcap-conductor', conductor_conf, self.tmp))
        self.compute = self.useFixture(functional_base.ServiceProcess(
            'zun-hostcap-compute', compute_conf, self.tmp))

    def _node(self):
        rows = self.db.rows('SELECT * FROM compute_nodes WHERE '
                            'hostname = :h', h=self.hostname)
        return rows[0] if rows else None

    def _wait_for_node(self, timeout=30):
        def node():
            self.conductor.assert_running(self)
            self.compute.assert_running(self)
            return self._node()
        return functional_base.wait_for(
            node, timeout, message='the compute node row',
            processes=(self.conductor, self.compute))

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
        node = self._wait_for_node()

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
            rows = self.db.rows('SELECT * FROM services WHERE host = :h',
                                h=self.hostname)
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
        data_file = os.path.join(self.tmp, 'host.json')
        caps = fake_host.sample_capabilities()
        fake_host.write_capabilities(data_file, caps)
        self._start({'os_capability_driver': 'fake',
                     'fake_capabilities_file': data_file})
        node = self._wait_for_node()
        self.assertEqual(len(caps.cpu.online_cpus), node['cpus'])

        # Idle: several intervals, no ComputeNode call, no row change.
        calls = functional_base.wait_for(
            lambda: self._compute_node_calls() or None, 10,
            message='the first ComputeNode calls')
        before = self._node()
        time.sleep(INTERVAL * 4)
        self.assertEqual(calls, self._compute_node_calls())
        self.assertEqual(before, self._node())

        # A capability changes: saved within one interval (plus slack for
        # the probe and the RPC round trip).
        fake_host.write_capabilities(data_file, dataclasses.replace(
            caps, os=dataclasses.replace(caps.os, kernel_version='9.9.9')))
        changed = functional_base.wait_for(
            lambda: (self._node() or {}).get('kernel_version') == '9.9.9',
            timeout=INTERVAL * 2 + 1, interval=0.1,
            message='the changed kernel version')
        self.assertTrue(changed)
        self.assertEqual(calls + ['RPC object_action ComputeNode.save'],
                         self._compute_node_calls())
