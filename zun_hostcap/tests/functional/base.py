"""Helpers for functional tests: real servers and real processes.

MariaDB, PostgreSQL and RabbitMQ are expected on 127.0.0.1. A test that
needs one skips on a developer machine without it, and fails when the
``CI`` environment variable is set, so CI cannot pass by skipping.
"""

import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import uuid

import fixtures
import sqlalchemy as sa

CI = bool(os.environ.get('CI'))

MYSQL_ADMIN_URL = os.environ.get(
    'ZUN_HOSTCAP_TEST_MYSQL_URL',
    'mysql+pymysql://openstack_citest:openstack_citest@127.0.0.1:3306/')
RABBIT_URL = os.environ.get('ZUN_HOSTCAP_TEST_TRANSPORT_URL',
                            'rabbit://guest:guest@127.0.0.1:5672/')


def free_port(host='127.0.0.1'):
    """A TCP port nobody listens on now, for a server to bind later."""
    with socket.socket() as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def require_port(test, name, port, host='127.0.0.1'):
    """Skip (or, in CI, fail) ``test`` unless ``host:port`` answers."""
    try:
        socket.create_connection((host, port), timeout=2).close()
    except OSError as err:
        message = '%s is not reachable on %s:%s: %s' % (name, host, port,
                                                        err)
        if CI:
            test.fail(message)
        test.skipTest(message)


def wait_for(predicate, timeout, interval=0.2, message='condition',
             processes=()):
    """Poll ``predicate`` until it returns a true value; return it.

    On time-out the error shows the end of the logs of ``processes``.
    """
    deadline = time.monotonic() + timeout
    while True:
        result = predicate()
        if result:
            return result
        if time.monotonic() > deadline:
            logs = ''.join('\n--- %s log (end) ---\n%s' % (
                process.name, process.log_tail()) for process in processes)
            raise AssertionError('Timed out after %ss waiting for %s%s' %
                                 (timeout, message, logs))
        time.sleep(interval)


class MySQLDatabase(fixtures.Fixture):
    """A throw-away MariaDB database for one test."""

    def _setUp(self):
        self.name = 'zhc_%s' % uuid.uuid4().hex[:12]
        admin = sa.create_engine(MYSQL_ADMIN_URL)
        with admin.connect() as conn:
            conn.execute(sa.text('CREATE DATABASE %s' % self.name))
        self.addCleanup(self._drop, admin)
        self.url = MYSQL_ADMIN_URL.rstrip('/') + '/' + self.name
        self.engine = sa.create_engine(self.url)
        self.addCleanup(self.engine.dispose)

    def _drop(self, admin):
        with admin.connect() as conn:
            conn.execute(sa.text('DROP DATABASE IF EXISTS %s' % self.name))
        admin.dispose()

    def rows(self, query, **params):
        with self.engine.connect() as conn:
            return [dict(row._mapping) for row in
                    conn.execute(sa.text(query), params)]


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


def write_config(path, sections):
    """Write an ini file from {section: {option: value}}."""
    with open(path, 'w') as f:
        for section, options in sections.items():
            f.write('[%s]\n' % section)
            for name, value in options.items():
                f.write('%s = %s\n' % (name, value))
            f.write('\n')
    return path


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


class ServiceProcess(fixtures.Fixture):
    """One of our console scripts running as a real process."""

    def __init__(self, name, config_file, log_dir):
        super().__init__()
        self.name = name
        self.config_file = config_file
        self.log_file = os.path.join(log_dir, '%s.log' % name)

    def _setUp(self):
        self._log = open(self.log_file, 'w')
        self.addCleanup(self._log.close)
        self.process = subprocess.Popen(
            console_script(self.name) + ['--config-file', self.config_file],
            stdout=self._log, stderr=subprocess.STDOUT,
            start_new_session=True)
        self.addCleanup(self.stop)

    def stop(self):
        if self.process.poll() is None:
            # The launcher forwards SIGTERM to its worker for a clean stop.
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()

    def log(self):
        with open(self.log_file) as f:
            return f.read()

    def log_tail(self, lines=40):
        """The last lines of the log that are not DEBUG."""
        return '\n'.join([line for line in self.log().splitlines()
                          if ' DEBUG ' not in line][-lines:])

    def assert_running(self, test):
        if self.process.poll() is not None:
            test.fail('%s exited with %s:\n%s' % (
                self.name, self.process.returncode, self.log_tail()))


class Deployment(fixtures.Fixture):
    """A conductor and a compute service as processes.

    They share RabbitMQ and a MariaDB database of their own, with a private
    exchange, topic and host name so that runs do not meet.
    """

    def __init__(self, test, interval=1, notification_format='none'):
        super().__init__()
        self.test = test
        self.interval = interval
        self.notification_format = notification_format
        self.conductor = self.compute = None

    def _setUp(self):
        require_port(self.test, 'MariaDB', 3306)
        require_port(self.test, 'RabbitMQ', 5672)
        self.db = self.useFixture(MySQLDatabase())
        self.tmp = self.useFixture(fixtures.TempDir()).path
        suffix = uuid.uuid4().hex[:8]
        self.hostname = 'functional-%s' % suffix
        self.exchange = 'zun-hostcap-test-%s' % suffix
        self.conductor_topic = 'zun-hostcap-conductor-%s' % suffix
        self.common = {
            'DEFAULT': {
                'transport_url': RABBIT_URL,
                'control_exchange': self.exchange,
                'state_path': self.tmp,
                'report_interval': self.interval,
                'debug': 'true',
                'host': self.hostname,
            },
            'conductor': {'topic': self.conductor_topic},
            'compute': {'resource_update_interval': self.interval},
            'notifications': {
                'notification_format': self.notification_format},
        }

    def _config(self, name, **sections):
        merged = {section: dict(options)
                  for section, options in self.common.items()}
        for section, options in sections.items():
            merged.setdefault(section, {}).update(options)
        return write_config(os.path.join(self.tmp, name + '.conf'), merged)

    def start(self, compute_options):
        """Build the schema, then start conductor and compute."""
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
            compute=compute_options)
        self.conductor = self.useFixture(ServiceProcess(
            'zun-hostcap-conductor', conductor_conf, self.tmp))
        self.compute = self.useFixture(ServiceProcess(
            'zun-hostcap-compute', compute_conf, self.tmp))

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
