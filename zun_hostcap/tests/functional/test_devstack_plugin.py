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

"""The DevStack plugin, run for real with a shim of DevStack's functions.

DevStack cannot be installed on these machines, so ``devstack_shim/``
stands in for the functions ``devstack/plugin.sh`` calls (ini helpers,
Keystone through the ``openstack`` CLI, uwsgi, run_process ...; see its
``functions``). The plugin's phases run as stack.sh, unstack.sh and
clean.sh run them, against a real Keystone (``tools/keystone_peer.py``),
MariaDB (a database of the test, as oslo.db's opportunistic user) and
RabbitMQ (a virtual host of the test): the configuration it writes must
hold only options the services know; the services it starts must answer
through the Keystone catalog, to the clients an operator uses; unstack
must stop every process it started, and clean remove what it wrote.
"""

import json
import os
import shutil
import subprocess
import sys
import time
import uuid

import fixtures
import psutil
import testtools.content

from zun_hostcap.tests import base as test_base
from zun_hostcap.tests.functional import base
from zun_hostcap.tests.functional import local_servers

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
SHIM = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                    'devstack_shim')
RUN_PHASE = os.path.join(SHIM, 'run-phase')
GENERATOR_CONF = os.path.join(REPO, 'etc', 'zun-hostcap',
                              'zun-hostcap-config-generator.conf')
DB_USER = DB_PASSWORD = 'openstack_citest'
# Seconds for the whole test: Keystone, four phases, the clients, two
# more phases, on a loaded 2-core machine.
TIME_OUT = 360
# Seconds for the compute to report its host through the conductor and
# to Placement, after the extra phase.
REPORT_TIMEOUT = 90


def _alive(pid):
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


class TestDevStackPlugin(test_base.TestCase):

    def setUp(self):
        super().setUp()
        time_out = int(os.environ.get('OS_TEST_TIMEOUT') or 0)
        if time_out:
            self.useFixture(fixtures.Timeout(max(time_out, TIME_OUT),
                                             gentle=True))
        keystone_peer = base.tool_module('keystone_peer')
        base.require(self, keystone_peer.installed_python() is not None,
                     'keystone is not installed (run '
                     'tools/keystone_peer.py install)')
        base.require(self, shutil.which('mysql') or shutil.which('mariadb'),
                     'the mysql client is needed by recreate_database')
        base.require_port(self, 'MariaDB', 3306)
        base.require(self, os.path.exists(os.path.join(
            os.path.dirname(sys.executable), 'uwsgi')),
            'uwsgi is not installed beside %s (tox -e functional installs '
            'it)' % sys.executable)
        vhost = self.useFixture(base.RabbitVhost(self))
        self.tmp = self.useFixture(fixtures.TempDir()).path
        # Not in the test's temporary directory, which the services'
        # processes must be able to enter too; removed with it.
        self.port = base.free_port()
        self.api_url = 'http://127.0.0.1:%d/container-hostcap' % self.port
        self.keystone = self.useFixture(keystone_peer.KeystonePeer(
            os.path.join(self.tmp, 'keystone'), self.api_url))
        self._without_zun_in_catalog()
        self.db_name = 'zhc_devstack_%s' % uuid.uuid4().hex[:8]
        server = local_servers.MariaDB(base.MYSQL_ADMIN_URL)
        self.addCleanup(server.drop, self.db_name)
        self.shim_dir = os.path.join(self.tmp, 'shim')
        self.conf_dir = os.path.join(self.tmp, 'etc', 'zun-hostcap')
        self.conf = os.path.join(self.conf_dir, 'zun-hostcap.conf')
        self.env = self._environment(vhost.url)
        self.started = set()
        self.addCleanup(self._kill_leftovers)

    def _without_zun_in_catalog(self):
        """The peer's catalog lists Zun as "container"; DevStack's would not.

        The plugin refuses to join a catalog that has another service of
        its type, so the test takes it out, as a cloud without Zun.
        """
        session = self.keystone.session('admin', system_scope='all')
        services = session.get(
            self.keystone.auth_url + '/services?type=container').json()
        for service in services['services']:
            session.delete(self.keystone.auth_url + '/services/%s'
                           % service['id'])

    def _environment(self, transport_url):
        """What stack.sh and local.conf would set, and the shim's own."""
        users = self.keystone.users
        admin, service = users['admin'], users['service']
        auth = {'auth_url': self.keystone.auth_url,
                'username': admin['username'],
                'password': admin['password'],
                'user_domain_name': admin['user_domain_name']}
        clouds = {'clouds': {
            'devstack-system-admin': {
                'auth': dict(auth, system_scope='all'),
                'region_name': 'RegionOne', 'identity_api_version': 3},
            'devstack-admin': {
                'auth': dict(auth, project_name=admin['project_name'],
                             project_domain_name=admin[
                                 'project_domain_name']),
                'region_name': 'RegionOne', 'identity_api_version': 3},
        }}
        clouds_file = os.path.join(self.tmp, 'clouds.yaml')
        with open(clouds_file, 'w') as f:
            json.dump(clouds, f)   # YAML reads JSON
        bin_dir = os.path.dirname(sys.executable)
        keystone_uri = self.keystone.auth_url.rsplit('/v3', 1)[0]
        env = dict(os.environ)
        for name in [name for name in env if name.startswith('OS_')]:
            del env[name]
        env.update({
            'PATH': bin_dir + os.pathsep + env.get('PATH', ''),
            'OS_CLIENT_CONFIG_FILE': clouds_file,
            # stack.sh
            'DEST': os.path.join(self.tmp, 'opt'),
            'DATA_DIR': os.path.join(self.tmp, 'data'),
            'STACK_USER': psutil.Process().username(),
            'SERVICE_HOST': '127.0.0.1',
            'SERVICE_PROTOCOL': 'http',
            'KEYSTONE_SERVICE_URI': keystone_uri,
            'REGION_NAME': 'RegionOne',
            'SERVICE_PASSWORD': service['password'],
            'SERVICE_DOMAIN_NAME': service['user_domain_name'],
            'SERVICE_PROJECT_NAME': service['project_name'],
            'ENABLE_DEBUG_LOG_LEVEL': 'True',
            'API_WORKERS': '1',
            'SERVICE_TIMEOUT': '60',
            'SERVICE_STOP_TIMEOUT': str(base.STOP_TIMEOUT),
            'DATABASE_BACKENDS': 'mysql postgresql',
            'DATABASE_USER': DB_USER,
            'DATABASE_PASSWORD': DB_PASSWORD,
            'DATABASE_HOST': '127.0.0.1',
            'ENABLED_SERVICES': 'key,mysql,rabbit,placement-api',
            'GLOBAL_VENV': 'True',
            'DEVSTACK_VENV': sys.prefix,
            # local.conf: this checkout, and nothing outside the test's
            # directory.
            'ZUN_HOSTCAP_DIR': REPO,
            'ZUN_HOSTCAP_CONF_DIR': self.conf_dir,
            'ZUN_HOSTCAP_DB_NAME': self.db_name,
            'ZUN_HOSTCAP_SERVICE_HOST': '127.0.0.1:%d' % self.port,
            # the shim
            'SHIM_PYTHON': sys.executable,
            'SHIM_DIR': self.shim_dir,
            'SHIM_HTTP_PORT': str(self.port),
            'SHIM_TRANSPORT_URL': transport_url,
        })
        return env

    def phase(self, *phase):
        """Run one phase of the plugin; its output. A failure fails."""
        result = subprocess.run(['bash', RUN_PHASE, REPO] + list(phase),
                                env=self.env, capture_output=True,
                                text=True, timeout=240,
                                start_new_session=True)
        self.addDetail('phase %s' % ' '.join(phase),
                       testtools.content.text_content(
                           result.stdout + result.stderr))
        self._record_pids()
        if result.returncode:
            self.fail('plugin.sh %s failed with %d:\n%s%s%s' % (
                ' '.join(phase), result.returncode, result.stdout,
                result.stderr, self._service_logs()))
        return result.stdout

    def _record_pids(self):
        """Every process run_process started, and what each started."""
        pid_dir = os.path.join(self.shim_dir, 'pids')
        if not os.path.isdir(pid_dir):
            return
        for name in os.listdir(pid_dir):
            with open(os.path.join(pid_dir, name)) as f:
                pid = int(f.read().strip())
            self.started.add(pid)
            try:
                self.started.update(child.pid for child in psutil.Process(
                    pid).children(recursive=True))
            except psutil.NoSuchProcess:
                pass

    def _kill_leftovers(self):
        self._record_pids()   # a phase that timed out recorded nothing
        for pid in self.started:
            if _alive(pid):
                try:
                    psutil.Process(pid).kill()
                except psutil.NoSuchProcess:
                    pass

    def _service_logs(self, lines=30):
        log_dir = os.path.join(self.shim_dir, 'logs')
        if not os.path.isdir(log_dir):
            return ''
        out = []
        for name in sorted(os.listdir(log_dir)):
            with open(os.path.join(log_dir, name), errors='replace') as f:
                tail = [line for line in f.read().splitlines()
                        if ' DEBUG ' not in line][-lines:]
            out.append('\n--- %s (end) ---\n%s' % (name, '\n'.join(tail)))
        return ''.join(out)

    def openstack(self, *args):
        """The openstack client as the admin of the project, as JSON."""
        result = subprocess.run(
            base.console_script('openstack') +
            ['--os-cloud', 'devstack-admin'] + list(args) + ['-f', 'json'],
            env=self.env, capture_output=True, text=True, timeout=120)
        if result.returncode:
            return None, result.stderr
        return json.loads(result.stdout), None

    def wait_for_listing(self, *args):
        """The rows of an openstack listing, once it has any."""
        errors = []

        def rows():
            found, error = self.openstack(*args)
            if error:
                errors.append(error)
            return found
        try:
            return base.wait_for(rows, REPORT_TIMEOUT, interval=1,
                                 message='openstack %s to list a row'
                                 % ' '.join(args))
        except AssertionError as err:
            self.fail('%s\n%s%s' % (err, ''.join(errors[-1:]),
                                    self._service_logs()))

    def test_stack_unstack_clean(self):
        for phase in ('pre-install', 'install', 'post-config', 'extra'):
            self.phase('stack', phase)

        # Only options the services know.
        result = subprocess.run(
            base.console_script('oslo-config-validator') +
            ['--config-file', GENERATOR_CONF, '--input-file', self.conf],
            capture_output=True, text=True, env=self.env)
        self.assertEqual(0, result.returncode,
                         'plugin.sh wrote options no service knows:\n%s'
                         % result.stderr)

        # Through the catalog, as an operator: the API and the host the
        # compute reported, and its provider in Placement.
        hosts = self.wait_for_listing('appcontainer', 'host', 'list')
        self.assertEqual(1, len(hosts), hosts)
        providers = self.wait_for_listing('resource', 'provider', 'list')
        self.assertEqual([hosts[0]['hostname']],
                         [provider['name'] for provider in providers])
        self._record_pids()
        self.assertEqual(3, len(os.listdir(os.path.join(self.shim_dir,
                                                        'pids'))))
        running = sorted(pid for pid in self.started if _alive(pid))
        self.assertTrue(running)

        self.phase('unstack')
        deadline = time.monotonic() + base.STOP_TIMEOUT
        while time.monotonic() < deadline and any(
                _alive(pid) for pid in running):
            time.sleep(0.1)
        self.assertEqual([], [pid for pid in running if _alive(pid)],
                         'unstack left processes behind')

        self.phase('clean')
        self.assertFalse(os.path.exists(self.conf_dir))
