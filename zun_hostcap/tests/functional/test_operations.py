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

"""What an operator does to a running service, on real processes.

Start it with a mistake in its configuration, stop it with Ctrl-C or
SIGTERM, reload it with SIGHUP while clients keep calling, ask it for a
Guru Meditation report with SIGUSR2, find a request's log lines by the
request id a client got, and ask every command for its version.
"""

import http.client
import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import threading
import time
import uuid

import fixtures
from oslotest import base
import psutil
import sqlalchemy

from zun_hostcap.tests.functional import base as functional_base

ADMIN = {'X-Auth-Token': 'admin',
         'OpenStack-API-Version': 'container latest'}
COMMANDS = ('zun-hostcap-all', 'zun-hostcap-api', 'zun-hostcap-conductor',
            'zun-hostcap-compute', 'zun-hostcap-db-manage',
            'zun-hostcap-status')


def run(command, *args, timeout=60):
    return subprocess.run(
        functional_base.console_script(command) + list(args),
        capture_output=True, text=True, timeout=timeout,
        stdin=subprocess.DEVNULL)


class TestStartupErrors(base.BaseTestCase):
    """A misconfiguration: status 1 and one line that says what to fix."""

    def setUp(self):
        super().setUp()
        self.tmp = self.useFixture(fixtures.TempDir()).path

    def _start(self, command, sections):
        sections.setdefault('DEFAULT', {}).setdefault('state_path',
                                                      self.tmp)
        config = functional_base.write_config(
            os.path.join(self.tmp, 'zun-hostcap.conf'), sections)
        result = run(command, '--config-file', config)
        self.assertEqual(1, result.returncode, result.stderr)
        self.assertEqual('', result.stdout)
        self.assertNotIn('Traceback', result.stderr)
        lines = result.stderr.splitlines()
        self.assertEqual(1, len(lines), result.stderr)
        self.assertTrue(lines[0].startswith(command + ': '), lines[0])
        return lines[0]

    def test_an_option_value_of_the_wrong_type(self):
        line = self._start('zun-hostcap-compute', {
            'compute': {'resource_update_interval': 'abc'}})
        self.assertIn("[compute] resource_update_interval = 'abc'", line)
        self.assertIn('expected an integer of at least 1', line)

    def test_a_state_path_that_cannot_be_created(self):
        a_file = os.path.join(self.tmp, 'a-file')
        open(a_file, 'w').close()
        line = self._start('zun-hostcap-conductor', {
            'DEFAULT': {'state_path': os.path.join(a_file, 'state')}})
        self.assertIn('[DEFAULT] state_path', line)
        self.assertIn('cannot create the directory: Not a directory', line)

    def test_a_database_driver_that_is_not_installed(self):
        line = self._start('zun-hostcap-conductor', {
            'database': {'connection': 'mysql://zun:secret@db/zun_hostcap'}})
        self.assertIn('[database] connection = mysql://zun:***@db/'
                      'zun_hostcap: its driver is not installed', line)
        self.assertIn('mysql+pymysql://', line)
        self.assertNotIn('secret', line)

    def test_keystone_without_its_section(self):
        line = self._start('zun-hostcap-api', {
            'api': {'auth_strategy': 'keystone',
                    'port': functional_base.free_port()}})
        self.assertIn('[keystone_authtoken] has no auth_type', line)


class TestCommands(base.BaseTestCase):

    def test_every_command_tells_its_version(self):
        versions = set()
        for command in COMMANDS:
            result = run(command, '--version')
            self.assertEqual(0, result.returncode, (command, result.stderr))
            self.assertRegex(result.stdout, r'^\d+\.\d+\.\d+\S*\n$', command)
            versions.add(result.stdout)
        self.assertEqual(1, len(versions))


def _request(port, path, headers=None):
    """(status, headers, body) of one GET, on a new connection."""
    conn = http.client.HTTPConnection('127.0.0.1', port, timeout=10)
    try:
        conn.request('GET', path, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, resp.headers, resp.read()
    finally:
        conn.close()


def start_api(test, database=None, **api_options):
    """A zun-hostcap-api answering on a free port, with noauth2.

    Its own state directory and, unless ``database`` names another, a
    SQLite database there; the schema is built with
    zun-hostcap-db-manage first. Returns (process, port, config file).
    """
    tmp = test.useFixture(fixtures.TempDir()).path
    port = functional_base.free_port()
    sections = {'DEFAULT': {'state_path': tmp},
                'api': dict(port=port, auth_strategy='noauth2',
                            **api_options)}
    if database:
        sections['database'] = {'connection': database}
    config = functional_base.write_config(
        os.path.join(tmp, 'zun-hostcap.conf'), sections)
    result = run('zun-hostcap-db-manage', '--config-file', config,
                 'upgrade')
    test.assertEqual(0, result.returncode, result.stderr)
    api = test.useFixture(functional_base.ServiceProcess(
        'zun-hostcap-api', config, tmp))

    functional_base.wait_until_serving(test, api,
                                       'http://127.0.0.1:%d/' % port)
    return api, port, config


class ClientLoop(threading.Thread):
    """A client calling the API without pause; records every outcome."""

    def __init__(self, port, path='/v1/hosts', headers=ADMIN):
        super().__init__(daemon=True)
        self.port, self.path, self.headers = port, path, headers
        self.outcomes = []
        self._finished = threading.Event()

    def run(self):
        while not self._finished.is_set():
            try:
                self.outcomes.append(
                    _request(self.port, self.path, self.headers)[0])
            except OSError as err:
                self.outcomes.append(repr(err))

    def finish(self):
        self._finished.set()
        self.join(30)
        return self.outcomes


class _AllInOneCase(base.BaseTestCase):
    """zun-hostcap-all with a config file the test may rewrite."""

    def setUp(self):
        super().setUp()
        self.tmp = self.useFixture(fixtures.TempDir()).path
        self.port = functional_base.free_port()
        self.policy_file = os.path.join(self.tmp, 'policy.yaml')
        self.sections = {
            'DEFAULT': {'state_path': self.tmp, 'debug': 'false'},
            # A periodic task that logs a DEBUG line every second.
            'compute': {'resource_update_interval': 1},
            'api': {'port': self.port},
            'oslo_policy': {'policy_file': self.policy_file},
        }
        self.config = self._write_config()
        self.service = self.useFixture(functional_base.ServiceProcess(
            'zun-hostcap-all', self.config, self.tmp))
        functional_base.wait_for(self._serving, 30,
                                 message='zun-hostcap-all to answer',
                                 processes=(self.service,))

    def _write_config(self):
        return functional_base.write_config(
            os.path.join(self.tmp, 'zun-hostcap.conf'), self.sections)

    def _serving(self):
        self.service.assert_running(self)
        try:
            return _request(self.port, '/v1/hosts', ADMIN)[0] == 200
        except OSError:
            return False


class TestSignals(_AllInOneCase):

    def test_sigint_stops_cleanly_with_status_0(self):
        self.service.send_signal(signal.SIGINT)
        self.assertEqual(0, self.service.wait())
        log = self.service.log()
        self.assertIn('Caught SIGINT: stopping zun-hostcap-all', log)
        self.assertIn('zun-hostcap-all stopped', log)
        self.assertNotIn('Traceback', log)

    def test_sigterm_stops_cleanly_with_status_0(self):
        self.service.send_signal(signal.SIGTERM)
        self.assertEqual(0, self.service.wait())
        self.assertIn('zun-hostcap-all stopped', self.service.log())
        self.assertNotIn('Traceback', self.service.log())

    def test_sigusr2_prints_a_report_and_the_service_goes_on(self):
        self.service.send_signal(signal.SIGUSR2)
        report = functional_base.wait_for(
            lambda: 'Guru Meditation' in self.service.log() and
            self.service.log(), 10, message='the report')
        for section in ('Package', 'Threads', 'Configuration'):
            self.assertIn(section, report)
        self.assertIn('resource_update_interval', report)
        self.assertTrue(self.service.running())
        self.assertEqual(200, _request(self.port, '/v1/hosts', ADMIN)[0])

    def test_sighup_reloads_without_refusing_a_request(self):
        member = {'X-Auth-Token': 'demo',
                  'OpenStack-API-Version': 'container latest'}
        self.assertEqual(403, _request(self.port, '/v1/hosts', member)[0])
        # New values: debug logging and a policy letting anyone list hosts.
        with open(self.policy_file, 'w') as f:
            f.write('"host:get_all": ""\n')
        self.sections['DEFAULT']['debug'] = 'true'
        self._write_config()
        loop = ClientLoop(self.port)
        loop.start()
        functional_base.wait_for(lambda: len(loop.outcomes) >= 20, 10,
                                 message='the client loop to run')
        before = self.service.log_size()
        self.service.send_signal(signal.SIGHUP)
        functional_base.wait_for(
            lambda: 'Caught SIGHUP' in self.service.log(before), 10,
            message='the reload')
        time.sleep(1)
        outcomes = loop.finish()

        self.assertEqual({200}, set(outcomes),
                         [o for o in outcomes if o != 200])
        self.assertEqual(200, _request(self.port, '/v1/hosts', member)[0])
        self.assertNotIn(' DEBUG ', self.service.log(0)[:before])
        self.assertIn('DEBUG oslo_service.periodic_task',
                      self.service.log(before))
        self.assertEqual({self.service.pid}, _family(self.service.pid))


def _family(pid):
    """The pid and the pids of its children, alive now.

    By parentage: cotyledon retitles its processes with setproctitle,
    which overwrites the environment /proc shows.
    """
    try:
        parent = psutil.Process(pid)
        return {pid} | {child.pid for child in parent.children(True)}
    except psutil.NoSuchProcess:
        return set()


class TestSQLiteFile(_AllInOneCase):
    """The operations guide's backup, and the file after a clean stop."""

    def _create_provider(self, name):
        conn = http.client.HTTPConnection('127.0.0.1', self.port,
                                          timeout=10)
        try:
            conn.request('POST', '/placement/resource_providers',
                         body=json.dumps({'name': name}),
                         headers={'X-Auth-Token': 'admin',
                                  'Content-Type': 'application/json',
                                  'OpenStack-API-Version':
                                      'placement 1.20'})
            resp = conn.getresponse()
            body = resp.read()
        finally:
            conn.close()
        self.assertEqual(200, resp.status, body)
        return json.loads(body)['uuid']

    def _providers(self, path):
        conn = sqlite3.connect(path)
        try:
            return dict(conn.execute(
                'SELECT name, uuid FROM resource_providers').fetchall())
        finally:
            conn.close()

    def test_a_copy_of_the_file_alone_after_a_stop_has_the_data(self):
        database = os.path.join(self.tmp, 'zun-hostcap.sqlite')
        before = self._create_provider('rack1-host1')

        # A backup of the running service, as the operations guide says.
        backup = os.path.join(self.useFixture(fixtures.TempDir()).path,
                              'backup.sqlite')
        result = subprocess.run(['sqlite3', database, '.backup %s' % backup],
                                capture_output=True, text=True, timeout=60)
        self.assertEqual(0, result.returncode, result.stderr)
        self.assertEqual({'rack1-host1': before}, {
            name: uuid for name, uuid in self._providers(backup).items()
            if name == 'rack1-host1'})

        after = self._create_provider('rack1-host2')
        host = os.uname().nodename
        functional_base.wait_for(
            lambda: functional_base.sqlite_rows(
                database, "SELECT id FROM resource_providers WHERE name = "
                          "'%s'" % host), 30,
            message='the compute side to report this host',
            processes=(self.service,))
        self.assertEqual(0, self.service.stop())
        # The file alone, copied away from its -wal and -shm.
        copy = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            'zun-hostcap.sqlite')
        shutil.copyfile(database, copy)
        providers = self._providers(copy)
        self.assertEqual(before, providers['rack1-host1'])
        self.assertEqual(after, providers['rack1-host2'])
        # The host's own provider, that its compute side reported.
        self.assertIn(host, providers)
        self.assertIn('Wrote the database log back into',
                      self.service.log())


class TestAPIWorkers(base.BaseTestCase):
    """zun-hostcap-api with two worker processes."""

    def setUp(self):
        super().setUp()
        self.api, self.port, _config = start_api(self, workers=2)
        functional_base.wait_for(
            lambda: len(_family(self.api.pid)) == 3, 30,
            message='a master and two workers', processes=(self.api,))

    def test_sighup_keeps_the_workers_and_sigint_stops_cleanly(self):
        pids = _family(self.api.pid)
        loop = ClientLoop(self.port)
        loop.start()
        functional_base.wait_for(lambda: len(loop.outcomes) >= 20, 10,
                                 message='the client loop to run')
        self.api.send_signal(signal.SIGHUP)
        functional_base.wait_for(
            lambda: self.api.log().count('caught SIGHUP') == 2, 10,
            message='both workers to reload')
        time.sleep(0.5)
        outcomes = loop.finish()
        self.assertEqual({200}, set(outcomes))
        self.assertEqual(pids, _family(self.api.pid))

        self.api.send_signal(signal.SIGINT)
        self.assertEqual(0, self.api.wait())
        functional_base.wait_for(
            lambda: not any(psutil.pid_exists(pid) for pid in pids), 10,
            message='the workers to end')
        self.assertNotIn('Traceback', self.api.log())


class TestRequestIds(base.BaseTestCase):
    """Each log line of a request names that request's id, and its user."""

    def setUp(self):
        super().setUp()
        # One thread: every request is served by the same thread, the
        # case where an earlier request's context used to leak.
        self.api, self.port, _config = start_api(self, threads=1)

    def test_interleaved_admin_and_anonymous_requests(self):
        start = self.api.log_size()
        sent = []
        for _round in range(3):
            for headers, status in ((ADMIN, 200),
                                    ({'OpenStack-API-Version':
                                      'container latest'}, 401),
                                    (ADMIN, 404)):
                path = '/v1/hosts' if status != 404 else '/v1/hosts/nope'
                got, resp_headers, _body = _request(self.port, path,
                                                    headers)
                self.assertEqual(status, got)
                sent.append((resp_headers['x-openstack-request-id'],
                             status))
        time.sleep(0.5)
        log = self.api.log(start)
        for request_id, status in sent:
            lines = [line for line in log.splitlines() if request_id in line]
            access = [line for line in lines if 'status: %d' % status in line]
            self.assertEqual(1, len(access), (request_id, lines))
            self.assertIn('zun_hostcap.api.access', access[0])
            # [global_request_id request_id user project ...]
            user = re.search(r'\[\S+ %s (\S+) ' % request_id, access[0])
            self.assertIsNotNone(user, access[0])
            self.assertEqual('-' if status == 401 else 'admin',
                             user.group(1), access[0])
        # No line names an id no client got.
        logged = set(re.findall(r'req-[0-9a-f-]{36}', log))
        self.assertEqual({request_id for request_id, _s in sent}, logged)


class TestRawRequests(base.BaseTestCase):
    """Bytes a client library would never send, over a real socket."""

    def setUp(self):
        super().setUp()
        functional_base.require_port(self, 'MariaDB', 3306)
        self.db = self.useFixture(functional_base.MySQLDatabase())
        self.api, self.port, _config = start_api(self, database=self.db.url)

    def _raw(self, request):
        with socket.create_connection(('127.0.0.1', self.port),
                                      timeout=10) as sock:
            sock.sendall(request)
            chunks = []
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                chunks.append(chunk)
        head, _sep, body = b''.join(chunks).partition(b'\r\n\r\n')
        return int(head.split()[1]), head.decode('latin-1'), body

    def test_path_bytes_that_are_not_utf8(self):
        status, head, body = self._raw(
            b'GET /v1/hosts/\xff\xfe HTTP/1.1\r\nHost: x\r\n'
            b'X-Auth-Token: admin\r\nConnection: close\r\n\r\n')
        self.assertEqual(400, status)
        error = json.loads(body)['errors'][0]
        self.assertEqual('container.bad_request', error['code'])
        # The access line is written, the bytes shown escaped.
        functional_base.wait_for(
            lambda: error['request_id'] in self.api.log(), 5,
            message='the access line')
        self.assertIn(r'"GET /v1/hosts/\xff\xfe HTTP/1.1" status: 400',
                      self.api.log())
        self.assertNotIn('Traceback', self.api.log())

    def test_an_unsupported_transfer_encoding_is_501(self):
        status, _head, _body = self._raw(
            b'POST /v1/hosts HTTP/1.1\r\nHost: x\r\n'
            b'Transfer-Encoding: gzip\r\nConnection: close\r\n\r\nxx')
        self.assertEqual(501, status)

    def test_a_four_byte_utf8_hostname_on_mariadb(self):
        # The tables are utf8mb4 and so is every connection.
        with self.db.engine.begin() as conn:
            conn.execute(sqlalchemy.text(
                "INSERT INTO compute_nodes (uuid, hostname, cpus, cpu_used, "
                "mem_total, mem_free, mem_available, mem_buffers, "
                "mem_cached, mem_used, total_containers, running_containers, "
                "paused_containers, stopped_containers, disk_total, "
                "disk_used, disk_quota_supported, enable_cpu_pinning) "
                "VALUES ('5b0c8cf4-6a8e-4f0b-9d40-2b8a1c3e4f50', :h, 1, 0, "
                "1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0)"),
                {'h': 'node-\U0001F680.example.com'})
        status, _headers, body = _request(
            self.port, '/v1/hosts/node-%F0%9F%9A%80.example.com', ADMIN)
        self.assertEqual(200, status, body)
        self.assertEqual('node-\U0001F680.example.com',
                         json.loads(body)['hostname'])
        status, _headers, body = _request(
            self.port, '/v1/hosts/%F0%9F%98%80', ADMIN)
        self.assertEqual(404, status, body)
        self.assertEqual('container.compute_node_not_found',
                         json.loads(body)['errors'][0]['code'])


POSTGRESQL_ADMIN_URL = os.environ.get(
    'ZUN_HOSTCAP_TEST_POSTGRESQL_URL',
    'postgresql+psycopg://openstack_citest:openstack_citest@127.0.0.1:5432/'
    'postgres')


class PostgreSQLDatabase(fixtures.Fixture):
    """A throw-away PostgreSQL database, reached through psycopg 3."""

    def _setUp(self):
        self.name = 'zhc_%s' % uuid.uuid4().hex[:12]
        admin = sqlalchemy.create_engine(POSTGRESQL_ADMIN_URL,
                                         isolation_level='AUTOCOMMIT')
        with admin.connect() as conn:
            conn.execute(sqlalchemy.text('CREATE DATABASE %s' % self.name))
        self.addCleanup(self._drop, admin)
        self.url = POSTGRESQL_ADMIN_URL.rsplit('/', 1)[0] + '/' + self.name

    def _drop(self, admin):
        with admin.connect() as conn:
            conn.execute(sqlalchemy.text(
                'DROP DATABASE IF EXISTS %s WITH (FORCE)' % self.name))
        admin.dispose()


class TestProductionDatabases(base.BaseTestCase):
    """The README's MariaDB and PostgreSQL URLs, with the extras' drivers."""

    def _serve_from(self, url):
        _api, port, config = start_api(self, database=url)
        result = run('zun-hostcap-status', '--config-file', config,
                     'upgrade', 'check')
        self.assertEqual(0, result.returncode,
                         (result.stdout, result.stderr))
        status, _headers, body = _request(port, '/v1/hosts', ADMIN)
        self.assertEqual(200, status, body)
        self.assertEqual({'hosts': [], 'next': None}, json.loads(body))

    def test_mariadb_with_pymysql(self):
        functional_base.require_port(self, 'MariaDB', 3306)
        db = self.useFixture(functional_base.MySQLDatabase())
        self.assertTrue(db.url.startswith('mysql+pymysql://'))
        self._serve_from(db.url)

    def test_postgresql_with_psycopg(self):
        functional_base.require_port(self, 'PostgreSQL', 5432)
        db = self.useFixture(PostgreSQLDatabase())
        self._serve_from(db.url)
