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

"""zun-hostcap-all with its embedded defaults, as the README runs it."""

import json
import os
import re
import time
import urllib.request

import fixtures
from oslotest import base
from testtools import content as testtools_content

from zun_hostcap.common import context as zun_context
from zun_hostcap import objects
from zun_hostcap.tests import fixtures as zun_fixtures
from zun_hostcap.tests.functional import base as functional_base
from zun_hostcap.tests.unit.objects import test_compute_node
from zun_hostcap.tests import utils as test_utils

# Writers of another process that share the all-in-one's SQLite file.
SAVERS = 32
ROUNDS = 5


class TestAllInOne(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.tmp = self.useFixture(fixtures.TempDir()).path
        # Only a state directory and an API port of its own: every other
        # value is the embedded default (SQLite, fake:// transport,
        # noauth2).
        self.port = functional_base.free_port()
        self.config = functional_base.write_config(
            os.path.join(self.tmp, 'zun-hostcap.conf'),
            {'DEFAULT': {'state_path': self.tmp, 'debug': 'true'},
             'api': {'port': self.port}})
        self.started = time.monotonic()
        self.service = self.useFixture(functional_base.ServiceProcess(
            'zun-hostcap-all', self.config, self.tmp))

    def _rows(self, query):
        return functional_base.sqlite_rows(self._database(), query)

    def _database(self):
        return os.path.join(self.tmp, 'zun-hostcap.sqlite')

    def test_this_host_is_discovered_and_stored_within_seconds(self):
        def stored():
            self.service.assert_running(self)
            return self._rows('SELECT * FROM compute_nodes')

        rows = functional_base.wait_for(
            stored, timeout=20, message='this host in the database',
            processes=(self.service,))
        self.assertEqual(1, len(rows))
        node = rows[0]
        self.assertEqual(os.uname().nodename, node['hostname'])
        # os.cpu_count() is the online CPUs on Linux, as we count them.
        self.assertEqual(os.cpu_count(), node['cpus'])
        with open('/proc/meminfo') as f:
            mem_total = int(f.readline().split()[1])
        self.assertEqual(mem_total // 1024, node['mem_total'])

        # The conductor commits the row before the compute, which waits
        # for its answer, logs that it created it.
        created = 'Created compute node %s' % node['uuid']
        log = functional_base.wait_for(
            lambda: created in self.service.log() and self.service.log(),
            timeout=5, message='the "Created" line',
            processes=(self.service,))
        # The compute side reached the database only through the conductor.
        self.assertIn('RPC object_action ComputeNode.create', log)
        # Each part logs its own check when it starts; the API server may
        # still be starting when the node is stored.
        for where in ('service start-up', 'conductor RPC handler',
                      'resource tracker periodic task',
                      'API server start-up'):
            pattern = re.compile(r'concurrency check: %s runs .*native=(\w+)'
                                 r'\); monkey-patched: (\S+)' % where)
            match = functional_base.wait_for(
                lambda: pattern.search(self.service.log()), timeout=20,
                message='the concurrency check of the %s' % where,
                processes=(self.service,))
            self.assertEqual(('True', 'none'), match.groups(), where)

        services = functional_base.wait_for(
            lambda: self._rows('SELECT binary FROM services'), timeout=5,
            message='the services rows')
        self.assertEqual({'zun-hostcap-conductor', 'zun-hostcap-compute'},
                         {row['binary'] for row in services})

    def test_the_api_shows_this_host_within_ten_seconds(self):
        # The README's curl command. Without a version header a request
        # is for 1.1, which has no hosts yet (406), as in Zun.
        request = urllib.request.Request(
            'http://127.0.0.1:%d/v1/hosts' % self.port,
            headers={'X-Auth-Token': 'admin',
                     'OpenStack-API-Version': 'container latest'})

        def hosts():
            self.service.assert_running(self)
            try:
                with urllib.request.urlopen(request, timeout=2) as resp:
                    return json.load(resp)['hosts']
            except OSError:
                return None   # not listening yet

        listed = functional_base.wait_for(
            hosts, timeout=10, message='this host from GET /v1/hosts',
            processes=(self.service,))
        elapsed = time.monotonic() - self.started
        self.assertEqual([os.uname().nodename],
                         [host['hostname'] for host in listed])
        self.addDetail('seconds-until-listed',
                       testtools_content.text_content('%.2f' % elapsed))

    def test_this_host_is_a_provider_of_its_own_placement(self):
        node = functional_base.wait_for(
            lambda: self._rows('SELECT * FROM compute_nodes'), timeout=20,
            message='this host in the database',
            processes=(self.service,))[0]
        request = urllib.request.Request(
            'http://127.0.0.1:%d/placement/resource_providers/%s/'
            'inventories' % (self.port, node['uuid']),
            headers={'X-Auth-Token': 'admin'})

        def inventories():
            self.service.assert_running(self)
            try:
                with urllib.request.urlopen(request, timeout=2) as resp:
                    return json.load(resp)['inventories'] or None
            except OSError:
                return None   # not listening, or no provider yet

        found = functional_base.wait_for(
            inventories, timeout=20,
            message='this host\'s inventory in its own /placement',
            processes=(self.service,))
        self.assertEqual(node['cpus'], found['VCPU']['total'])
        self.assertEqual(node['mem_total'], found['MEMORY_MB']['total'])
        self.assertNotIn('Not reporting to Placement', self.service.log())


class TestAllInOneSQLiteWriters(base.BaseTestCase):
    """The SQLite file waits for its writers, of any process."""

    def setUp(self):
        super().setUp()
        self.tmp = self.useFixture(fixtures.TempDir()).path
        # Its heartbeats are written every second.
        config = functional_base.write_config(
            os.path.join(self.tmp, 'zun-hostcap.conf'),
            {'DEFAULT': {'state_path': self.tmp, 'report_interval': 1},
             'api': {'port': functional_base.free_port()}})
        self.service = self.useFixture(functional_base.ServiceProcess(
            'zun-hostcap-all', config, self.tmp))
        self.database = os.path.join(self.tmp, 'zun-hostcap.sqlite')

    def _report_count(self):
        rows = functional_base.sqlite_rows(
            self.database, "SELECT report_count FROM services WHERE "
            "binary = 'zun-hostcap-compute'")
        return rows[0]['report_count'] if rows else 0

    def test_writers_beside_the_all_in_one_all_succeed(self):
        # Generous: a loaded machine takes a while to start a process.
        functional_base.wait_for(
            self._report_count, timeout=60, message='a compute heartbeat',
            processes=(self.service,))
        # This process writes the same file, as the all-in-one's
        # conductor does: 32 hosts saving their node and heartbeating.
        self.useFixture(zun_fixtures.Database(
            connection='sqlite:///%s' % self.database))
        objects.register_all()
        context = zun_context.get_admin_context()
        beats_before = self._report_count()

        def host(index):
            service = objects.Service(context, host='other-%d' % index,
                                      binary='zun-hostcap-compute')
            service.create()
            node = test_compute_node.make_compute_node(
                context, hostname='other-%d' % index)
            node.create()
            for round_ in range(1, ROUNDS + 1):
                node.mem_used = round_
                node.save()
                service.heartbeat()
        errors = test_utils.all_at_once(SAVERS, host)
        self.assertEqual([], errors)
        rows = functional_base.sqlite_rows(
            self.database, "SELECT hostname, mem_used FROM compute_nodes "
            "WHERE hostname LIKE 'other-%'")
        self.assertEqual({'other-%d' % index: ROUNDS
                          for index in range(SAVERS)},
                         {row['hostname']: row['mem_used'] for row in rows})
        # The all-in-one went on writing its own heartbeats meanwhile.
        functional_base.wait_for(
            lambda: self._report_count() > beats_before, timeout=30,
            message='a later heartbeat', processes=(self.service,))
        self.service.assert_running(self)
        self.assertNotIn('database is locked', self.service.log())
