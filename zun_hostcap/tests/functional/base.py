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

"""Helpers for functional tests: real servers and real processes.

MariaDB, PostgreSQL and RabbitMQ are expected on 127.0.0.1. A test that
needs one skips on a developer machine without it, and fails when the
``CI`` environment variable is set, so CI cannot pass by skipping.

Those shared servers are never stopped by a test. A test that uses the
shared RabbitMQ gets a virtual host of its own (``RabbitVhost``), deleted
with everything in it when the test ends. A test that stops a server runs
its own: ``RabbitMQServer`` (a private node) or ``MariaDBServer``.

Every process a test starts is a ``Process``: stopped by its own pid
(SIGTERM, then SIGKILL), with whatever it started. ``Process``, the
configuration files, free ports, the MariaDB and RabbitMQ helpers live in
``local_servers``, which the tools of tools/ use as well.
"""

import os
import pwd
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

import fixtures
import sqlalchemy as sa
from sqlalchemy import pool as sa_pool

from zun_hostcap.tests.functional import local_servers

CI = bool(os.environ.get('CI'))

MYSQL_ADMIN_URL = os.environ.get(
    'ZUN_HOSTCAP_TEST_MYSQL_URL',
    'mysql+pymysql://openstack_citest:openstack_citest@127.0.0.1:3306/')
RABBIT_URL = os.environ.get('ZUN_HOSTCAP_TEST_TRANSPORT_URL',
                            'rabbit://guest:guest@127.0.0.1:5672/')

# The machine's temporary directory, read before any test nests its own
# (fixtures.NestedTempfile) in a directory only root may enter.
SYSTEM_TMP = tempfile.gettempdir()

# What the tests share with the tools (see local_servers).
STOP_TIMEOUT = local_servers.STOP_TIMEOUT
Process = local_servers.Process
free_port = local_servers.free_port
rabbitmq_names = local_servers.rabbitmq_names
rabbitmqctl = local_servers.rabbitmqctl
wait_for = local_servers.wait_for
write_config = local_servers.write_config


# The benchmark and peer scripts (no package): ``tool_module`` imports one.
TOOLS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__))))), 'tools')


def tool_module(name):
    """The module ``name`` of tools/, imported from there."""
    sys.path.insert(0, TOOLS)
    try:
        return __import__(name)
    finally:
        sys.path.remove(TOOLS)


def require(test, available, message):
    """Skip (or, in CI, fail) ``test`` unless ``available``."""
    if available:
        return
    if CI:
        test.fail(message)
    test.skipTest(message)


def require_port(test, name, port, host='127.0.0.1'):
    """Skip (or, in CI, fail) ``test`` unless ``host:port`` answers."""
    try:
        socket.create_connection((host, port), timeout=2).close()
    except OSError as err:
        require(test, False, '%s is not reachable on %s:%s: %s' % (
            name, host, port, err))


def _rows(engine, query, params):
    with engine.connect() as conn:
        return [dict(row._mapping) for row in
                conn.execute(sa.text(query), params)]


class MySQLDatabase(fixtures.Fixture):
    """A throw-away MariaDB database for one test."""

    def __init__(self, admin_url=MYSQL_ADMIN_URL):
        super().__init__()
        self.admin_url = admin_url

    def _setUp(self):
        self.name = 'zhc_%s' % uuid.uuid4().hex[:12]
        server = local_servers.MariaDB(self.admin_url)
        server.execute('CREATE DATABASE %s' % self.name)
        self.addCleanup(server.drop, self.name)
        self.url = self.admin_url.rstrip('/') + '/' + self.name
        self.engine = sa.create_engine(self.url)
        self.addCleanup(self.engine.dispose)

    def rows(self, query, **params):
        return _rows(self.engine, query, params)


def sqlite_rows(path, query):
    """Rows of ``query`` in the SQLite file ``path`` as dicts.

    [] while the file or its schema does not exist yet: a service is
    creating them.
    """
    if not os.path.exists(path):
        return []
    conn = sqlite3.connect(path)
    try:
        conn.row_factory = sqlite3.Row
        return [dict(row) for row in conn.execute(query)]
    except sqlite3.OperationalError:
        return []
    finally:
        conn.close()


def console_script(name):
    """The command line of a console script, ours or a client's.

    The one next to this Python first (the tox environment's); ours also
    run from the source tree when they are not installed.
    """
    script = os.path.join(os.path.dirname(sys.executable), name)
    if os.path.exists(script):
        return [script]
    found = shutil.which(name)
    if found or not name.startswith('zun-hostcap-'):
        return [found or name]
    module = name.replace('zun-hostcap-', '').replace('-', '_')
    return [sys.executable, '-c',
            'import sys; from zun_hostcap.cmd.%s import main; '
            'sys.exit(main())' % module]


class ServiceProcess(Process):
    """One of our console scripts running as a real process."""

    def __init__(self, name, config_file, log_dir):
        super().__init__(
            name, console_script(name) + ['--config-file', config_file],
            os.path.join(log_dir, '%s.log' % name))
        self.config_file = config_file


def http_get(url, headers=None, timeout=10):
    """(status, headers, body) of a GET; raises OSError if none came."""
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as resp:
            return resp.status, resp.headers, resp.read()
    except urllib.error.HTTPError as err:
        with err:
            return err.code, err.headers, err.read()


def wait_until_serving(test, process, url, timeout=30):
    """Wait until ``url`` answers 200; ``process`` serves it."""
    def serving():
        process.assert_running(test)
        try:
            return http_get(url, timeout=2)[0] == 200
        except OSError:
            return False
    wait_for(serving, timeout, message='%s to answer' % process.name,
             processes=(process,))


# RabbitMQ

def require_rabbitmqctl(test):
    """rabbitmqctl manages the local nodes; it runs as root here."""
    require(test, shutil.which('rabbitmqctl') and os.geteuid() == 0,
            'rabbitmqctl is needed, run as root, to give the test a '
            'RabbitMQ virtual host or node of its own')


class RabbitVhost(local_servers.RabbitVhost):
    """A virtual host of the shared RabbitMQ for one test.

    Its exchanges and queues go with it when the test ends. Without
    RabbitMQ or rabbitmqctl the test is skipped (fails in CI).
    """

    def __init__(self, test, url=RABBIT_URL):
        super().__init__(url, 'zun-hostcap-test')
        self.test = test

    def _setUp(self):
        parsed = urllib.parse.urlsplit(self.base_url)
        require_port(self.test, 'RabbitMQ', parsed.port or 5672,
                     parsed.hostname)
        require_rabbitmqctl(self.test)
        super()._setUp()


class RabbitMQServer(fixtures.Fixture):
    """A RabbitMQ node of the test's own, on ports of its own.

    For the tests that stop the message broker: the shared node is never
    stopped. The node runs in the foreground as a child of the test, so
    that the test reaps it; its files are in a directory owned by the
    rabbitmq user, which the server script switches to when started as
    root. ``stop()`` sends SIGTERM to the Erlang VM's own pid (from the
    pid file), ``start()`` starts the node again on the same port and
    data. A start takes a few seconds (``start_seconds``), a stop about
    one (``stop_seconds``).
    """

    def __init__(self, test):
        super().__init__()
        self.test = test
        self.start_seconds = []
        self.stop_seconds = []
        self.pid = None

    def _setUp(self):
        require_rabbitmqctl(self.test)
        require(self.test, shutil.which('rabbitmq-server'),
                'rabbitmq-server is needed for a RabbitMQ node of the '
                "test's own")
        try:
            owner = pwd.getpwnam('rabbitmq')
        except KeyError:
            owner = None
        require(self.test, owner, 'no rabbitmq user to run a RabbitMQ node')
        # Not in the test's own temporary directory, which only root may
        # enter.
        self.tmp = tempfile.mkdtemp(prefix='zun-hostcap-rabbitmq-',
                                    dir=SYSTEM_TMP)
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        os.chmod(self.tmp, 0o755)
        suffix = uuid.uuid4().hex[:12]
        self.node = 'zhc%s@localhost' % suffix
        self.port = free_port()
        self.dist_port = free_port()
        self.pid_file = os.path.join(self.tmp, 'rabbitmq.pid')
        files = {
            # Not the machine's files, which name the shared node and its
            # port.
            'rabbitmq.conf': 'listeners.tcp.local = 127.0.0.1:%d\n'
                             % self.port,
            'rabbitmq-env.conf':
                'ERL_EPMD_ADDRESS=127.0.0.1\n'
                'SERVER_ADDITIONAL_ERL_ARGS="-kernel '
                'inet_dist_use_interface {127,0,0,1}"\n',
            'enabled_plugins': '[].\n',
        }
        for name, text in files.items():
            with open(os.path.join(self.tmp, name), 'w') as f:
                f.write(text)
        for path in [self.tmp] + [os.path.join(self.tmp, name)
                                  for name in files]:
            os.chown(path, owner.pw_uid, owner.pw_gid)
        env = {
            'RABBITMQ_NODENAME': self.node,
            'RABBITMQ_NODE_PORT': str(self.port),
            'RABBITMQ_DIST_PORT': str(self.dist_port),
            'RABBITMQ_MNESIA_BASE': os.path.join(self.tmp, 'mnesia'),
            'RABBITMQ_LOG_BASE': os.path.join(self.tmp, 'log'),
            'RABBITMQ_PID_FILE': self.pid_file,
            'RABBITMQ_ENABLED_PLUGINS_FILE': os.path.join(
                self.tmp, 'enabled_plugins'),
            'RABBITMQ_CONFIG_FILE': os.path.join(self.tmp, 'rabbitmq.conf'),
            'RABBITMQ_CONF_ENV_FILE': os.path.join(self.tmp,
                                                   'rabbitmq-env.conf'),
        }
        # The script as root: su to rabbitmq, which runs the Erlang VM.
        self.process = Process('rabbitmq-server', ['rabbitmq-server'],
                               os.path.join(self.tmp, 'rabbitmq-server.out'),
                               env=env)
        self.url = 'rabbit://guest:guest@127.0.0.1:%d/' % self.port
        self.addCleanup(self._cleanup)
        self.start()

    def start(self, timeout=60):
        """Start the node and wait until it serves AMQP."""
        started = time.monotonic()
        if os.path.exists(self.pid_file):
            os.unlink(self.pid_file)
        self.process.start()
        try:
            # "wait" follows the pid file; await_startup would fail until
            # the node registers with epmd.
            rabbitmqctl('wait', self.pid_file, '--timeout', str(timeout),
                        node=self.node, timeout=timeout + 30)
        except Exception as err:
            raise RuntimeError('RabbitMQ node %s did not start: %s\n%s' % (
                self.node, err, self.log_tail()))
        with open(self.pid_file) as f:
            self.pid = int(f.read().strip())
        self.start_seconds.append(time.monotonic() - started)

    def stop(self, timeout=STOP_TIMEOUT):
        """SIGTERM to the node's pid; nothing of it remains afterwards."""
        started = time.monotonic()
        if self.pid is not None:
            try:
                os.kill(self.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            self.pid = None
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                pass
        # SIGTERM and SIGKILL to the script, then to any leftover.
        self.process.stop()
        self.stop_seconds.append(time.monotonic() - started)

    def _cleanup(self):
        if self.process.process is not None:
            self.stop()

    def log_tail(self, lines=30):
        tails = []
        for path in (self.process.log_file, os.path.join(
                self.tmp, 'log', '%s.log' % self.node)):
            try:
                with open(path, errors='replace') as f:
                    tails.append(''.join(f.readlines()[-lines:]))
            except OSError as err:
                tails.append('(%s: %s)' % (path, err))
        return '\n'.join(tails)

    def names(self, kind, vhost='/'):
        return rabbitmq_names(kind, vhost, node=self.node)


# MariaDB

class MariaDBServer(fixtures.Fixture):
    """A MariaDB server of the test's own, with the database ``url``.

    For the tests that stop the database: the shared server is never
    stopped. ``stop()`` sends SIGTERM to mariadbd's pid; ``start()`` starts
    it again on the same data directory and port. Creating the data
    directory takes about a second, a start a fraction of one.
    """

    DATABASE = 'zun_hostcap'

    def __init__(self, test):
        super().__init__()
        self.test = test

    def _setUp(self):
        server = shutil.which('mariadbd') or shutil.which('mysqld')
        install = (shutil.which('mariadb-install-db') or
                   shutil.which('mysql_install_db'))
        require(self.test, server and install,
                'mariadbd and mariadb-install-db are needed for a MariaDB '
                "server of the test's own")
        self.tmp = self.useFixture(fixtures.TempDir()).path
        datadir = os.path.join(self.tmp, 'data')
        self.port = free_port()
        user = ['--user=%s' % pwd.getpwuid(os.geteuid()).pw_name]
        # Small InnoDB files: a short-lived server with one small database.
        small = ['--innodb-log-file-size=8M',
                 '--innodb-buffer-pool-size=32M']
        started = time.monotonic()
        result = subprocess.run(
            [install, '--no-defaults', '--datadir=' + datadir,
             '--auth-root-authentication-method=normal', '--skip-test-db',
             '--skip-name-resolve'] + user + small,
            capture_output=True, text=True, timeout=120)
        if result.returncode:
            raise RuntimeError('%s failed with %d:\n%s%s' % (
                install, result.returncode, result.stdout, result.stderr))
        self.init_seconds = time.monotonic() - started
        self.process = self.useFixture(Process(
            'mariadbd',
            [server, '--no-defaults', '--datadir=' + datadir,
             '--port=%d' % self.port, '--bind-address=127.0.0.1',
             '--socket=' + os.path.join(self.tmp, 'mysqld.sock'),
             '--pid-file=' + os.path.join(self.tmp, 'mysqld.pid'),
             '--skip-name-resolve'] + user + small,
            os.path.join(self.tmp, 'mariadbd.log')))
        self.admin_url = 'mysql+pymysql://root@127.0.0.1:%d/' % self.port
        # A new connection per query: the server goes away on purpose.
        self._admin = sa.create_engine(self.admin_url,
                                       poolclass=sa_pool.NullPool)
        self.addCleanup(self._admin.dispose)
        self.start_seconds = [self._wait_until_up()]
        with self._admin.connect() as conn:
            conn.execute(sa.text('CREATE DATABASE %s' % self.DATABASE))
        self.url = self.admin_url + self.DATABASE
        self.engine = sa.create_engine(self.url, poolclass=sa_pool.NullPool)
        self.addCleanup(self.engine.dispose)

    def _wait_until_up(self, timeout=30):
        def up():
            self.process.assert_running(self.test)
            try:
                with self._admin.connect() as conn:
                    conn.execute(sa.text('SELECT 1'))
                return True
            except sa.exc.OperationalError:
                return False
        wait_for(up, timeout, interval=0.05, message='mariadbd to answer',
                 processes=(self.process,))
        return time.monotonic() - self.process.started_at

    def stop(self):
        """SIGTERM to mariadbd; its exit status."""
        return self.process.stop()

    def start(self):
        """mariadbd again, same data and port; seconds until it answers."""
        self.process.start()
        seconds = self._wait_until_up()
        self.start_seconds.append(seconds)
        return seconds

    def rows(self, query, **params):
        return _rows(self.engine, query, params)


class Deployment(fixtures.Fixture):
    """A conductor and a compute service as processes, and an API.

    They share RabbitMQ, in a virtual host of their own, and a MariaDB
    database of their own, with a private exchange, topic and host name.
    ``database`` (something with ``url`` and ``rows()``, such as a
    ``MariaDBServer``) and ``transport_url`` replace the shared servers.
    The services log DEBUG unless ``debug`` is False.
    """

    def __init__(self, test, interval=1, notification_format='none',
                 database=None, transport_url=None, report_interval=None,
                 debug=True):
        super().__init__()
        self.test = test
        self.debug = debug
        self.interval = interval
        self.report_interval = report_interval or interval
        self.notification_format = notification_format
        self.database = database
        self.transport_url = transport_url
        self.conductor = self.compute = self.api = None
        self.vhost = None

    def _setUp(self):
        if self.database is None:
            require_port(self.test, 'MariaDB', 3306)
            self.db = self.useFixture(MySQLDatabase())
        else:
            self.db = self.database
        if self.transport_url is None:
            self.vhost = self.useFixture(RabbitVhost(self.test))
            self.transport_url = self.vhost.url
        self.tmp = self.useFixture(fixtures.TempDir()).path
        self.suffix = uuid.uuid4().hex[:8]
        self.hostname = 'functional-%s' % self.suffix
        self.exchange = 'zun-hostcap-test-%s' % self.suffix
        self.conductor_topic = 'zun-hostcap-conductor-%s' % self.suffix
        self.common = {
            'DEFAULT': {
                'transport_url': self.transport_url,
                'control_exchange': self.exchange,
                'state_path': self.tmp,
                'report_interval': self.report_interval,
                'debug': str(self.debug).lower(),
                'host': self.hostname,
            },
            # A call lost in a broker restart is given up after the call
            # monitor's timeout; scaled down with the intervals, as the
            # default (10 s) is to the default interval (60 s).
            'conductor': {'topic': self.conductor_topic,
                          'call_monitor_timeout': max(2, self.interval)},
            'compute': {'resource_update_interval': self.interval},
            # Reconnections to RabbitMQ back off up to 30 s by default, half
            # the default interval; scaled down in the same way.
            'oslo_messaging_rabbit': {'rabbit_retry_backoff': 0,
                                      'rabbit_interval_max': 1},
            'notifications': {
                'notification_format': self.notification_format},
        }
        if self.notification_format != 'none':
            # Notifications are off without a driver, as in every oslo
            # service.
            self.common['oslo_messaging_notifications'] = {
                'driver': 'messagingv2'}

    def _config(self, name, **sections):
        merged = {section: dict(options)
                  for section, options in self.common.items()}
        for section, options in sections.items():
            merged.setdefault(section, {}).update(options)
        return write_config(os.path.join(self.tmp, name + '.conf'), merged)

    def start(self, compute_options, **compute_sections):
        """Build the schema, then start conductor and compute.

        ``compute_sections``: other sections of the compute's options.
        """
        conductor_conf = self._config(
            'conductor', database={'connection': self.db.url})
        subprocess.run(console_script('zun-hostcap-db-manage') +
                       ['--config-file', conductor_conf, 'upgrade'],
                       check=True, capture_output=True)
        # The compute gets a database URL that cannot work: it must never
        # need one.
        compute_conf = self._config(
            'compute', database={
                'connection': 'mysql+pymysql://nobody:nothing@127.0.0.1:1/x'},
            compute=compute_options, **compute_sections)
        self.conductor = self.useFixture(ServiceProcess(
            'zun-hostcap-conductor', conductor_conf, self.tmp))
        self.compute = self.useFixture(ServiceProcess(
            'zun-hostcap-compute', compute_conf, self.tmp))

    def start_api(self, timeout=30, port=None):
        """zun-hostcap-api on a port of its own, noauth2; its base URL."""
        port = port or free_port()
        api_conf = self._config(
            'api', database={'connection': self.db.url},
            api={'host': '127.0.0.1', 'port': port, 'workers': 1,
                 'auth_strategy': 'noauth2'})
        self.api = self.useFixture(ServiceProcess(
            'zun-hostcap-api', api_conf, self.tmp))
        self.api_url = 'http://127.0.0.1:%d' % port
        wait_until_serving(self.test, self.api, self.api_url + '/', timeout)
        return self.api_url

    def processes(self):
        return tuple(process for process in
                     (self.conductor, self.compute, self.api) if process)

    def node(self):
        """The compute_nodes row of this deployment's host, or None."""
        rows = self.db.rows('SELECT * FROM compute_nodes WHERE '
                            'hostname = :h', h=self.hostname)
        return rows[0] if rows else None

    def wait_for_node(self, timeout=30):
        def node():
            self.conductor.assert_running(self.test)
            self.compute.assert_running(self.test)
            return self.node()
        return wait_for(node, timeout, message='the compute node row',
                        processes=(self.conductor, self.compute))
