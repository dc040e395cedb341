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

"""Real processes and the local servers they use, for tests and tools.

Shared by the functional tests (``base``) and the benchmark tools of
tools/ (``benchlib``): a configuration file, a free port, a process
stopped by its own pid with whatever it started, a MariaDB or PostgreSQL
database made and dropped, a RabbitMQ virtual host made and deleted. It
imports nothing of zun_hostcap, so a tool can use it from any
environment where the package is installed with its test requirements.

Every process is a ``Process``: stopped by its own pid (SIGTERM, then
SIGKILL), and whatever it started is found again (``family``:
descendants, session, a marker in the environment) and killed if it
outlives it, since cotyledon's master calls setsid() and a process-group
kill can miss its workers.
"""

import json
import os
import random
import shutil
import signal
import socket
import subprocess
import time
import urllib.parse
import uuid

import fixtures
import psutil
import sqlalchemy as sa

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


def write_config(path, sections):
    """Write an ini file from {section: {option: value}}."""
    with open(path, 'w') as f:
        for section, options in sections.items():
            f.write('[%s]\n' % section)
            for name, value in options.items():
                f.write('%s = %s\n' % (name, value))
            f.write('\n')
    return path


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
    """A real process of a test or a tool, stopped by its own pid.

    ``stop()`` sends SIGTERM to the pid the test started, waits, then
    makes sure nothing it started remains (SIGKILL to the pid after
    ``STOP_TIMEOUT``, then to every leftover of its ``family``). Each
    exit status is kept in ``exit_statuses``, in order. The process leads
    a session of its own. The log is started anew on the first start,
    unless ``append``.
    """

    def __init__(self, name, command, log_file, env=None, append=False):
        super().__init__()
        self.name = name
        self.command = list(command)
        self.log_file = log_file
        self.env = dict(env or {})
        self.process = None
        self.append = append
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
        mode = 'a' if self.process is not None or self.append else 'w'
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


# MariaDB

class MariaDB(object):
    """A MariaDB/MySQL server reached with an administrator URL."""

    def __init__(self, admin_url):
        self.admin_url = admin_url.rstrip('/') + '/'

    # Options of the engine each statement is run with.
    ENGINE_OPTIONS = {}

    def execute(self, statement):
        """Run ``statement``; its rows, or None if it returns none."""
        engine = sa.create_engine(self.admin_url, poolclass=sa.pool.NullPool,
                                  **self.ENGINE_OPTIONS)
        try:
            with engine.connect() as conn:
                result = conn.execute(sa.text(statement))
                return result.fetchall() if result.returns_rows else None
        finally:
            engine.dispose()

    def version(self):
        return 'MariaDB/MySQL %s' % self.execute('SELECT VERSION()')[0][0]

    def fresh(self, name):
        """The URL of an empty database ``name``, made again if it was."""
        self.drop(name)
        self.execute('CREATE DATABASE %s CHARACTER SET utf8mb4' % name)
        return self.admin_url + name + '?charset=utf8mb4'

    def drop(self, name):
        self.execute('DROP DATABASE IF EXISTS %s' % name)


# PostgreSQL

class PostgreSQL(MariaDB):
    """A PostgreSQL server reached with an administrator URL.

    ``CREATE DATABASE`` cannot run in a transaction: the statements run
    in autocommit.
    """

    ENGINE_OPTIONS = {'isolation_level': 'AUTOCOMMIT'}

    def version(self):
        return 'PostgreSQL %s' % self.execute('SHOW server_version')[0][0]

    def fresh(self, name):
        self.drop(name)
        self.execute("CREATE DATABASE %s ENCODING 'UTF8'" % name)
        return self.admin_url + name

    def drop(self, name):
        # WITH (FORCE): a server that was killed may leave a session.
        self.execute('DROP DATABASE IF EXISTS %s WITH (FORCE)' % name)


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


class RabbitVhost(fixtures.Fixture):
    """A virtual host of the local RabbitMQ, made and deleted.

    Its exchanges and queues, and the messages left in them, go with it.
    ``rabbitmqctl`` manages it (it runs as root here). A tool calls
    ``create()`` and ``delete()``; as a fixture it is made at setUp and
    deleted at cleanUp.
    """

    def __init__(self, base_url, prefix):
        super().__init__()
        self.base_url = base_url
        self.prefix = prefix
        self.name = None
        self.url = None

    def _setUp(self):
        self.create()
        self.addCleanup(self.delete)

    def create(self):
        """Make it, with every permission for the URL's user; its URL."""
        if not shutil.which('rabbitmqctl'):
            raise RuntimeError('rabbitmqctl is not in PATH: it is needed to '
                               'make a RabbitMQ virtual host of the run')
        parsed = urllib.parse.urlsplit(self.base_url)
        # Named before it is made: delete() tries even if add_vhost was
        # interrupted after the node made it.
        self.name = '%s-%s' % (self.prefix, uuid.uuid4().hex[:8])
        rabbitmqctl('add_vhost', self.name)
        rabbitmqctl('set_permissions', '-p', self.name,
                    urllib.parse.unquote(parsed.username or 'guest'),
                    '.*', '.*', '.*')
        self.url = urllib.parse.urlunsplit(parsed._replace(
            path='/' + urllib.parse.quote(self.name, safe='')))
        return self.url

    @staticmethod
    def broker_pid():
        """The pid of the local RabbitMQ node's VM; None if unknown."""
        try:
            return int(rabbitmqctl('-q', 'eval', 'os:getpid().').strip()
                       .strip('"'))
        except (RuntimeError, ValueError, OSError,
                subprocess.TimeoutExpired):
            return None

    def delete(self):
        """Delete it, if it was made; once."""
        name, self.name = self.name, None
        if not name:
            return
        try:
            rabbitmqctl('delete_vhost', name)
        except RuntimeError as err:
            if 'does not exist' not in str(err):
                raise

    def names(self, kind):
        """The names of its ``kind`` (exchanges, queues)."""
        return rabbitmq_names(kind, self.name)
