"""Helpers for functional tests: real servers and real processes.

MariaDB, PostgreSQL and RabbitMQ are expected on 127.0.0.1. A test that
needs one skips on a developer machine without it, and fails when the
``CI`` environment variable is set, so CI cannot pass by skipping.

Those shared servers are never stopped by a test. A test that uses the
shared RabbitMQ gets a virtual host of its own (``RabbitVhost``), deleted
with everything in it when the test ends. A test that stops a server runs
its own: ``RabbitMQServer`` (a private node) or ``MariaDBServer``.

Every process a test starts is a ``Process``: stopped by its own pid
(SIGTERM, then SIGKILL), and whatever it started is found again (``family``:
descendants, session, a marker in the environment) and killed if it
outlives it, since cotyledon's master calls setsid() and a process-group
kill can miss its workers.
"""

import json
import os
import pwd
import random
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
import psutil
import sqlalchemy as sa
from sqlalchemy import pool as sa_pool

CI = bool(os.environ.get('CI'))

MYSQL_ADMIN_URL = os.environ.get(
    'ZUN_HOSTCAP_TEST_MYSQL_URL',
    'mysql+pymysql://openstack_citest:openstack_citest@127.0.0.1:3306/')
RABBIT_URL = os.environ.get('ZUN_HOSTCAP_TEST_TRANSPORT_URL',
                            'rabbit://guest:guest@127.0.0.1:5672/')

# Environment variable set on every process a test starts, inherited by
# whatever those start: how the leftovers of a process are found.
PROCESS_MARKER = 'ZUN_HOSTCAP_TEST_PROCESS'
# Seconds a process has to stop on SIGTERM before it gets SIGKILL. Above
# a service's own clean stop, well below oslo.service's 60 s
# graceful_shutdown_timeout.
STOP_TIMEOUT = 20
# Seconds the processes a stopped process started have to end by
# themselves before they get SIGKILL.
LEFTOVER_GRACE = 5
# The machine's temporary directory, read before any test nests its own
# (fixtures.NestedTempfile) in a directory only root may enter.
SYSTEM_TMP = tempfile.gettempdir()
# Processes shared by every Erlang node of the machine: one that a node of
# ours started must outlive it.
_SHARED_PROCESS_NAMES = frozenset(['epmd'])


# Where free_port looks first: below the kernel's ephemeral ports.
LOWEST_PORT = 10000


def _ephemeral_ports():
    """(low, high) of the ports the kernel gives outgoing connections."""
    try:
        with open('/proc/sys/net/ipv4/ip_local_port_range') as f:
            low, high = (int(value) for value in f.read().split())
    except (OSError, ValueError):
        return None
    return low, high


def free_port(host='127.0.0.1'):
    """A TCP port nobody listens on now, for a server to bind later.

    Taken below the ephemeral range where it can: a port of that range
    may go to another test's outgoing connection (to RabbitMQ, a
    database) before the server binds it, and the server then fails with
    "Address already in use".
    """
    ephemeral = _ephemeral_ports()
    if ephemeral is not None and ephemeral[0] > LOWEST_PORT + 1000:
        for _attempt in range(100):
            port = random.randint(LOWEST_PORT, ephemeral[0] - 1)
            with socket.socket() as sock:
                try:
                    sock.bind((host, port))
                except OSError:
                    continue
            return port
    with socket.socket() as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


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
        admin = sa.create_engine(self.admin_url)
        with admin.connect() as conn:
            conn.execute(sa.text('CREATE DATABASE %s' % self.name))
        self.addCleanup(self._drop, admin)
        self.url = self.admin_url.rstrip('/') + '/' + self.name
        self.engine = sa.create_engine(self.url)
        self.addCleanup(self.engine.dispose)

    def _drop(self, admin):
        with admin.connect() as conn:
            conn.execute(sa.text('DROP DATABASE IF EXISTS %s' % self.name))
        admin.dispose()

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


def _session(pid):
    try:
        return os.getsid(pid)
    except OSError:
        return None


def family(pid, marker, created=None, keep=_SHARED_PROCESS_NAMES):
    """The live processes of the process ``pid`` started by a test.

    Found three ways, as each alone can miss some: its descendants; the
    members of the session it leads (``start_new_session``), which stay
    members when their parent dies; and the processes whose environment
    carries ``marker``, which daemons that start a session of their own
    keep, unless they retitle themselves (setproctitle, as cotyledon
    does, overwrites what /proc shows of the environment). Processes
    named in ``keep`` are left out: shared by the whole machine.
    ``created``, the start time of ``pid`` (psutil's create_time), tells
    it from another process that got the same pid later.
    """
    found = {}
    session = pid
    try:
        leader = psutil.Process(pid)
        if created is not None and leader.create_time() != created:
            session = None   # the pid is another's now
        else:
            for proc in [leader] + leader.children(recursive=True):
                found[proc.pid] = proc
    except psutil.NoSuchProcess:
        pass
    for proc in psutil.process_iter():
        if proc.pid in found:
            continue
        try:
            if ((session is not None and _session(proc.pid) == session) or
                    proc.environ().get(PROCESS_MARKER) == marker):
                found[proc.pid] = proc
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            pass
    alive = []
    for proc in found.values():
        try:
            if (proc.status() != psutil.STATUS_ZOMBIE and
                    proc.name() not in keep):
                alive.append(proc)
        except psutil.NoSuchProcess:
            pass
    return alive


def kill_family(pid, marker, created=None, grace=LEFTOVER_GRACE):
    """SIGKILL what is left of ``family(pid, ...)`` after ``grace`` s.

    Returns the pids killed.
    """
    deadline = time.monotonic() + grace
    leftovers = family(pid, marker, created)
    while leftovers and time.monotonic() < deadline:
        time.sleep(0.1)
        leftovers = family(pid, marker, created)
    killed = []
    for proc in leftovers:
        try:
            proc.kill()
            killed.append(proc.pid)
        except psutil.NoSuchProcess:
            pass
    if killed:
        wait_for(lambda: not family(pid, marker, created), 10,
                 interval=0.1,
                 message='SIGKILLed processes %s to end' % killed)
    return killed


class Process(fixtures.Fixture):
    """A real process of a test, stopped by its own pid.

    ``stop()`` sends SIGTERM to the pid the test started, waits, then
    makes sure nothing it started remains (SIGKILL to the pid after
    ``STOP_TIMEOUT``, then to every leftover of its ``family``). Each
    exit status is kept in ``exit_statuses``, in order. The process leads
    a session of its own.
    """

    def __init__(self, name, command, log_file, env=None):
        super().__init__()
        self.name = name
        self.command = list(command)
        self.log_file = log_file
        self.env = dict(env or {})
        self.process = None
        self.marker = None
        self.started_at = None
        self.exit_statuses = []
        # Pids of processes that outlived their stop and were SIGKILLed.
        self.killed_leftovers = []

    def _setUp(self):
        self.addCleanup(self.stop)
        self.start()

    def start(self):
        """Start the command, its output appended to the log file."""
        if self.running():
            raise RuntimeError('%s is running already (pid %d)' % (
                self.name, self.process.pid))
        self.marker = '%s-%s' % (self.name, uuid.uuid4().hex)
        env = dict(os.environ, **self.env)
        env[PROCESS_MARKER] = self.marker
        mode = 'a' if self.process is not None else 'w'
        with open(self.log_file, mode) as log:
            self.process = subprocess.Popen(
                self.command, stdout=log, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, env=env, start_new_session=True)
        self.started_at = time.monotonic()
        try:
            self._created = psutil.Process(self.process.pid).create_time()
        except psutil.NoSuchProcess:
            self._created = None   # gone already; it was ours
        self._recorded = False
        return self.process

    @property
    def pid(self):
        return self.process.pid if self.process is not None else None

    def running(self):
        return self.process is not None and self.process.poll() is None

    def pids(self):
        """The pids of this process and of those it started, alive now."""
        if self.marker is None:
            return set()
        return {proc.pid for proc in self._family()}

    def _family(self):
        return family(self.process.pid, self.marker, self._created)

    def send_signal(self, signo):
        """Send ``signo`` to the process's own pid."""
        self.process.send_signal(signo)

    def wait(self, timeout=STOP_TIMEOUT):
        """Wait for the process to end; its exit status."""
        status = self.process.wait(timeout)
        self._record_exit()
        return status

    def stop(self, timeout=STOP_TIMEOUT):
        """SIGTERM to the pid; SIGKILL if it is not gone after ``timeout``.

        Returns the exit status, or None if it never started.
        """
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._cleanup_exit()
        return self.process.returncode

    def kill(self, signo=signal.SIGKILL):
        """Send ``signo`` to the process and to all it started at once.

        As the kernel's OOM killer or ``systemctl kill`` would: nothing of
        the service gets a chance to clean up. Returns the exit status.
        """
        for proc in self._family():
            try:
                proc.send_signal(signo)
            except psutil.NoSuchProcess:
                pass
        try:
            self.process.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._cleanup_exit()
        return self.process.returncode

    def restart(self):
        """Stop (if running) and start again: same command, same log."""
        self.stop()
        return self.start()

    def _cleanup_exit(self):
        self.killed_leftovers.extend(kill_family(
            self.process.pid, self.marker, self._created))
        self._record_exit()

    def _record_exit(self):
        if not self._recorded and self.process.returncode is not None:
            self._recorded = True
            self.exit_statuses.append(self.process.returncode)

    def log(self, since=0):
        """The log, from byte offset ``since`` (see ``log_size``)."""
        with open(self.log_file, errors='replace') as f:
            f.seek(since)
            return f.read()

    def log_size(self):
        return os.path.getsize(self.log_file)

    def log_tail(self, lines=40):
        """The last lines of the log that are not DEBUG."""
        return '\n'.join([line for line in self.log().splitlines()
                          if ' DEBUG ' not in line][-lines:])

    def assert_running(self, test):
        if self.process.poll() is not None:
            test.fail('%s exited with %s:\n%s' % (
                self.name, self.process.returncode, self.log_tail()))


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

def rabbitmqctl(*args, node=None, timeout=60, env=None):
    """Run rabbitmqctl (on ``node``, else the local default node); stdout.

    Each call costs about 0.6 s: the CLI is an Erlang VM of its own.
    """
    command = ['rabbitmqctl'] + (['-n', node] if node else []) + list(args)
    result = subprocess.run(command, capture_output=True, text=True,
                            timeout=timeout,
                            env=dict(os.environ, **(env or {})))
    if result.returncode:
        raise RuntimeError('%s failed with %d: %s%s' % (
            ' '.join(command), result.returncode, result.stdout,
            result.stderr))
    return result.stdout


def rabbitmq_names(kind, vhost, node=None):
    """The names of the ``kind`` (exchanges, queues) of ``vhost``."""
    output = rabbitmqctl('-q', 'list_%s' % kind, '-p', vhost, 'name',
                         '--formatter', 'json', node=node)
    return {item['name'] for item in json.loads(output or '[]')}


def require_rabbitmqctl(test):
    """rabbitmqctl manages the local nodes; it runs as root here."""
    require(test, shutil.which('rabbitmqctl') and os.geteuid() == 0,
            'rabbitmqctl is needed, run as root, to give the test a '
            'RabbitMQ virtual host or node of its own')


class RabbitVhost(fixtures.Fixture):
    """A virtual host of the shared RabbitMQ for one test.

    Its exchanges and queues go with it when the test ends.
    """

    def __init__(self, test, url=RABBIT_URL):
        super().__init__()
        self.test = test
        self.base_url = url

    def _setUp(self):
        parsed = urllib.parse.urlsplit(self.base_url)
        require_port(self.test, 'RabbitMQ', parsed.port or 5672,
                     parsed.hostname)
        require_rabbitmqctl(self.test)
        self.name = 'zun-hostcap-test-%s' % uuid.uuid4().hex[:12]
        rabbitmqctl('add_vhost', self.name)
        self.addCleanup(rabbitmqctl, 'delete_vhost', self.name)
        rabbitmqctl('set_permissions', '-p', self.name,
                    urllib.parse.unquote(parsed.username or 'guest'),
                    '.*', '.*', '.*')
        self.url = urllib.parse.urlunsplit(parsed._replace(
            path='/' + urllib.parse.quote(self.name, safe='')))

    def names(self, kind):
        return rabbitmq_names(kind, self.name)


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
