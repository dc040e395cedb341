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

"""python-zunclient, unmodified, against a live zun-hostcap-all.

Both ways users reach the API without keystone, as the README shows them:
the Python API with an admin token and an endpoint override, and
``openstack appcontainer host list/show`` with the admin_token auth type.
Each must return this host with the values the database holds.
"""

import json
import os
import subprocess
import urllib.request

import fixtures
from oslotest import base
from zunclient import client as zun_client

from zun_hostcap.tests.functional import base as functional_base

# Zun's host fields the clients show, and the columns that hold them.
SCALAR_FIELDS = ('uuid', 'hostname', 'mem_total', 'mem_used', 'cpus',
                 'cpu_used', 'total_containers', 'architecture', 'os_type',
                 'os', 'kernel_version', 'disk_total', 'disk_used',
                 'mem_free', 'mem_available', 'mem_buffers', 'mem_cached')
BOOLEAN_FIELDS = ('disk_quota_supported', 'enable_cpu_pinning')
JSON_FIELDS = ('labels', 'runtimes', 'numa_topology', 'pci_device_pools')
# What "openstack appcontainer host list" shows.
LIST_COLUMNS = ('uuid', 'hostname', 'mem_total', 'cpus', 'disk_total')


class TestZunClient(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.tmp = self.useFixture(fixtures.TempDir()).path
        port = functional_base.free_port()
        self.endpoint = 'http://127.0.0.1:%d/v1' % port
        # One resource update, at start: the row stays as the clients
        # read it.
        config = functional_base.write_config(
            os.path.join(self.tmp, 'zun-hostcap.conf'),
            {'DEFAULT': {'state_path': self.tmp},
             'api': {'port': port},
             'compute': {'resource_update_interval': 3600}})
        self.service = self.useFixture(functional_base.ServiceProcess(
            'zun-hostcap-all', config, self.tmp))
        self.row = functional_base.wait_for(
            self._node_row_when_served, timeout=20,
            message='this host in the database and the API',
            processes=(self.service,))

    def _node_row_when_served(self):
        self.service.assert_running(self)
        try:
            urllib.request.urlopen(self.endpoint, timeout=2).close()
        except OSError:
            return None
        rows = functional_base.sqlite_rows(
            os.path.join(self.tmp, 'zun-hostcap.sqlite'),
            'SELECT * FROM compute_nodes')
        return rows[0] if rows else None

    def _expected(self):
        """The row as the API shows it."""
        expected = {name: self.row[name] for name in SCALAR_FIELDS}
        expected.update((name, bool(self.row[name]))
                        for name in BOOLEAN_FIELDS)
        expected.update((name, json.loads(self.row[name])
                         if self.row[name] is not None else None)
                        for name in JSON_FIELDS)
        return expected

    def _assert_host(self, expected, shown):
        for name, value in expected.items():
            self.assertEqual(value, shown[name], name)

    def test_python_api(self):
        client = zun_client.Client('1.40', auth_token='admin',
                                   endpoint_override=self.endpoint)
        hosts = client.hosts.list()
        self.assertEqual([self.row['uuid']], [host.uuid for host in hosts])
        expected = self._expected()
        self._assert_host(expected, hosts[0].to_dict())

        for ident in (self.row['uuid'], self.row['hostname']):
            host = client.hosts.get(ident)
            self._assert_host(expected, host.to_dict())

        # Following "next" one host at a time ends after this one.
        paged = client.hosts.list(limit=1)
        self.assertEqual([self.row['uuid']], [host.uuid for host in paged])

    def _openstack(self, *args, token='admin'):
        env = {name: value for name, value in os.environ.items()
               if not name.startswith('OS_')}
        env['HOME'] = self.tmp
        return subprocess.run(
            functional_base.console_script('openstack') +
            ['--os-auth-type', 'admin_token', '--os-token', token,
             '--os-endpoint', self.endpoint] + list(args),
            capture_output=True, text=True, env=env, timeout=60)

    def test_openstack_cli(self):
        listed = self._openstack('appcontainer', 'host', 'list', '-f',
                                 'json')
        self.assertEqual(0, listed.returncode, listed.stderr)
        self.assertEqual([{column: self.row[column]
                           for column in LIST_COLUMNS}],
                         json.loads(listed.stdout))

        expected = self._expected()
        for ident in (self.row['uuid'], self.row['hostname']):
            shown = self._openstack('appcontainer', 'host', 'show', ident,
                                    '-f', 'json')
            self.assertEqual(0, shown.returncode, shown.stderr)
            self._assert_host(expected, json.loads(shown.stdout))

    def test_openstack_cli_errors(self):
        missing = self._openstack('appcontainer', 'host', 'show',
                                  'no-such-host')
        self.assertEqual(1, missing.returncode)
        self.assertIn('no-such-host', missing.stderr)
        self.assertIn('HTTP 404', missing.stderr)

        user = self._openstack('appcontainer', 'host', 'list',
                               token='demo')
        self.assertEqual(1, user.returncode)
        self.assertIn('HTTP 403', user.stderr)
        self.assertNotIn('Traceback', missing.stderr + user.stderr)
