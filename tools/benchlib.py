"""What the benchmark tools of tools/ share.

The tools are scripts, not a package: each puts this directory first on
``sys.path`` and imports this module. It holds the helpers that are the
same for all of them: the configuration files, the console scripts, a
free port, versions of installed distributions, and a WSGI application
served by waitress in a process of its own, stopped by its own pid, a
MariaDB database made and dropped, a RabbitMQ virtual host made and
deleted, an oslo.messaging notification listener in a process of its own
that counts what it gets, a profile printed.
"""

import argparse
import http.client
import importlib.metadata
import json
import os
import pstats
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import uuid

HOST = '127.0.0.1'

# The repository tools/ is in, and where the tools keep the virtualenvs
# they make (openstack-placement, the previous release): its .bench/, or
# $ZUN_HOSTCAP_BENCH_CACHE.
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE_DIR = os.environ.get('ZUN_HOSTCAP_BENCH_CACHE',
                           os.path.join(REPO, '.bench'))

# Run with a Python of its own: waitress serving the WSGI application
# named module:attribute ("hello" for a hello-world one), optionally
# profiled request by request (cProfile in the thread that serves the
# request, merged in one file written on SIGTERM). The same code for
# every server a tool compares, so the server is the same.
SERVE = r'''
import cProfile, importlib, os, pstats, signal, sys, threading
import waitress
target, port, threads, profile = sys.argv[1:5]
if target == 'hello':
    def application(environ, start_response):
        start_response('200 OK', [('Content-Type', 'application/json'),
                                  ('Content-Length', '2')])
        return [b'{}']
else:
    module, _, attribute = target.partition(':')
    application = getattr(importlib.import_module(module), attribute)
if profile:
    inner, lock, merged = application, threading.Lock(), []
    def application(environ, start_response):
        prof = cProfile.Profile()
        prof.enable()
        try:
            body = inner(environ, start_response)
            try:
                data = list(body)
            finally:
                close = getattr(body, 'close', None)
                if close:
                    close()
        finally:
            prof.disable()
        with lock:
            if merged:
                merged[0].add(prof)
            else:
                merged.append(pstats.Stats(prof))
        return data
def stop(signo, frame):
    if profile:
        with lock:
            if merged:
                merged[0].dump_stats(profile)
    os._exit(0)
signal.signal(signal.SIGTERM, stop)
waitress.serve(application, host='127.0.0.1', port=int(port),
               threads=int(threads), ident='bench', _quiet=True)
'''


def tool_parser(doc):
    """The argument parser of a tool that keeps a virtualenv.

    Described by the first line of ``doc``; ``--cache-dir`` says where.
    """
    parser = argparse.ArgumentParser(
        description=doc.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--cache-dir', default=CACHE_DIR,
                        help='where the virtualenv is kept '
                        '(default %(default)s)')
    return parser


def version(dist, python=None):
    """The version of ``dist`` installed for ``python``; None if absent."""
    if python is None:
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            return None
    result = subprocess.run(
        [python, '-c', 'import importlib.metadata as m, sys; '
         'print(m.version(sys.argv[1]))', dist],
        capture_output=True, text=True)
    return result.stdout.strip() if result.returncode == 0 else None


def write_config(path, sections):
    """An INI file of {section: {option: value}} at ``path``; the path."""
    with open(path, 'w') as f:
        for section, options in sections.items():
            f.write('[%s]\n' % section)
            for name, value in options.items():
                f.write('%s = %s\n' % (name, value))
            f.write('\n')
    return path


def console_script(name, python=None):
    """The command of console script ``name`` installed beside ``python``.

    This Python's by default; else the one in PATH.
    """
    python = python or sys.executable
    script = os.path.join(os.path.dirname(python), name)
    if os.path.exists(script):
        return [script]
    found = shutil.which(name)
    if found:
        return [found]
    raise SystemExit('%s not found beside %s nor in PATH' % (name, python))


def free_port():
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


class Process(object):
    """A command in a process of its own, stopped by its own pid."""

    def __init__(self, label, argv, log_path, env=None):
        self.label = label
        self.argv = argv
        self.log_path = log_path
        self.env = env
        self.process = None

    def start(self):
        with open(self.log_path, 'w') as log:
            self.process = subprocess.Popen(
                self.argv, env=self.env, stdout=log,
                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True)

    def stop(self, timeout=15):
        """SIGTERM to its pid; SIGKILL if it outlives ``timeout`` s."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def log_tail(self, lines=30):
        try:
            with open(self.log_path, errors='replace') as f:
                return ''.join(f.readlines()[-lines:])
        except OSError as err:
            return str(err)


class WSGIServer(Process):
    """``SERVE`` in a process of its own, stopped by its own pid.

    :param target: module:attribute of the WSGI application, or "hello".
    :param python: the Python that serves it (this one by default).
    :param env: its environment (its configuration is found through it).
    :param profile: a file to write the merged profile into on stop.
    """

    def __init__(self, label, target, threads, env, log_path, python=None,
                 profile=None):
        self.port = free_port()
        super().__init__(
            label, [python or sys.executable, '-c', SERVE, target,
                    str(self.port), str(threads), profile or ''],
            log_path, env)

    def start(self, timeout=90):
        """Start it; return once ``GET /`` answers 200."""
        super().start()
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise RuntimeError('%s exited with %s:\n%s' % (
                    self.label, self.process.returncode, self.log_tail()))
            try:
                conn = http.client.HTTPConnection(HOST, self.port, timeout=30)
                conn.request('GET', '/', headers={'Accept':
                                                  'application/json'})
                status = conn.getresponse().status
                conn.close()
                if status == 200:
                    return
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError('%s did not answer in %ss:\n%s' % (
                    self.label, timeout, self.log_tail()))
            time.sleep(0.2)


class MariaDB(object):
    """A MariaDB/MySQL server reached with an administrator URL."""

    def __init__(self, admin_url):
        self.admin_url = admin_url.rstrip('/') + '/'

    def execute(self, statement):
        """Run ``statement``; its rows, or None if it returns none."""
        import sqlalchemy as sa
        engine = sa.create_engine(self.admin_url,
                                  poolclass=sa.pool.NullPool)
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


def cpu_seconds(pid):
    """CPU time (user + system) process ``pid`` took so far; or None."""
    try:
        with open('/proc/%d/stat' % pid) as f:
            fields = f.read().rpartition(')')[2].split()
    except (OSError, TypeError):
        return None
    # utime and stime: fields 14 and 15 of stat(5), after "pid (comm)".
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


# RabbitMQ

def rabbitmqctl(*args, timeout=120):
    """Run rabbitmqctl (of the local node) with ``args``; its stdout."""
    command = ['rabbitmqctl'] + list(args)
    result = subprocess.run(command, capture_output=True, text=True,
                            timeout=timeout)
    if result.returncode:
        raise RuntimeError('%s failed with %d: %s%s' % (
            ' '.join(command), result.returncode, result.stdout.strip(),
            result.stderr.strip()))
    return result.stdout


class RabbitVhost(object):
    """A virtual host of the local RabbitMQ, made and deleted by a tool.

    Its exchanges and queues, and the messages left in them, go with it.
    ``rabbitmqctl`` manages it (it runs as root here).
    """

    def __init__(self, base_url, prefix):
        self.base_url = base_url
        self.prefix = prefix
        self.name = None
        self.url = None

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


# Run with a Python where oslo.messaging is installed: an oslo.messaging
# notification listener (threading executor) of the topic's info queue,
# counting what it gets by event type. Its state, a JSON document, is
# written into a file when it is listening (its queue declared), then
# every 0.2 s while it changes, then once more when SIGTERM stopped it.
# At the lowest CPU priority: it drains what the broker holds when the
# CPUs have time, and takes as little as it can from what is measured.
LISTEN = r'''
import json, os, signal, sys, threading, time
from oslo_config import cfg
import oslo_messaging as messaging
url, exchange, topic, state_path = sys.argv[1:5]
os.nice(19)
lock, changed, stop = threading.Lock(), threading.Event(), threading.Event()
state = {'total': 0, 'counts': {}, 'payloads': {}, 'publishers': [],
         'first': None, 'last': None, 'listening': False}
class Endpoint(object):
    def info(self, ctxt, publisher_id, event_type, payload, metadata):
        name = None
        if isinstance(payload, dict):
            name = next((v for k, v in payload.items()
                         if k.endswith('_object.name')), None)
        with lock:
            now = time.time()
            state['total'] += 1
            state['counts'][event_type] = \
                state['counts'].get(event_type, 0) + 1
            names = state['payloads'].setdefault(event_type, [])
            if name not in names:
                names.append(name)
            if publisher_id not in state['publishers']:
                state['publishers'].append(publisher_id)
            state['first'] = state['first'] or now
            state['last'] = now
        changed.set()
def write():
    with lock:
        text = json.dumps(state)
    with open(state_path + '.tmp', 'w') as f:
        f.write(text)
    os.replace(state_path + '.tmp', state_path)
def on_term(signo, frame):
    if not state['listening']:
        os._exit(1)   # still connecting: nothing to stop
    stop.set()
signal.signal(signal.SIGTERM, on_term)
conf = cfg.ConfigOpts()
conf([], project='bench-listener', default_config_files=[],
     default_config_dirs=[])
transport = messaging.get_notification_transport(conf, url=url)
listener = messaging.get_notification_listener(
    transport, [messaging.Target(topic=topic, exchange=exchange)],
    [Endpoint()], executor='threading')
listener.start()
state['listening'] = True
write()
while not stop.is_set():
    if changed.wait(0.2):
        changed.clear()
        write()
listener.stop()
listener.wait()
write()
transport.cleanup()
os._exit(0)
'''


class NotificationListener(Process):
    """``LISTEN`` in a process of its own, stopped by its own pid.

    :param url: the transport URL (a virtual host of the run's own).
    :param exchange: the exchange the notifier sends to (the notifying
        service's ``control_exchange``).
    :param topic: the notification topic; its queue ``<topic>.info`` is
        drained.
    """

    def __init__(self, label, url, exchange, topic, workdir, python=None):
        self.state_path = os.path.join(workdir, 'listener.json')
        super().__init__(
            label, [python or sys.executable, '-c', LISTEN, url, exchange,
                    topic, self.state_path],
            os.path.join(workdir, 'listener.log'))
        self.final = None

    def start(self, timeout=60):
        """Start it; return once its queue is declared."""
        if os.path.exists(self.state_path):
            os.unlink(self.state_path)
        super().start()
        deadline = time.monotonic() + timeout
        while not (self.state() or {}).get('listening'):
            if self.process.poll() is not None:
                raise RuntimeError('%s exited with %s:\n%s' % (
                    self.label, self.process.returncode, self.log_tail()))
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError('%s was not listening after %ss:\n%s' % (
                    self.label, timeout, self.log_tail()))
            time.sleep(0.1)

    def state(self):
        """What it got so far: the JSON document of ``LISTEN``; or None."""
        try:
            with open(self.state_path) as f:
                return json.load(f)
        except (OSError, ValueError):
            return None

    def settle(self, expected=None, quiet=3.0, timeout=300.0):
        """Wait until it got ``expected`` or nothing for ``quiet`` s.

        :returns: its state then.
        """
        deadline = time.monotonic() + timeout
        last_total, last_change = None, time.monotonic()
        while True:
            state = self.state() or {}
            total = state.get('total', 0)
            now = time.monotonic()
            if expected is not None and total >= expected:
                return state
            if total != last_total:
                last_total, last_change = total, now
            elif now - last_change >= quiet:
                return state
            if now > deadline or self.process.poll() is not None:
                return state
            time.sleep(0.1)

    def stop(self, timeout=15):
        """Stop it; its final state is ``final`` (None if it had none)."""
        running = self.process is not None and self.process.poll() is None
        super().stop(timeout)
        if running or self.final is None:
            self.final = self.state()


def print_profile(path, title, limit=35):
    """The profile in ``path`` by cumulative then own time.

    Nothing without a path (no profile asked for).
    """
    if not path:
        return
    if not os.path.exists(path):
        print('no profile was written into %s' % path)
        return
    print('\nProfile of %s (%s), by cumulative time:' % (title, path))
    stats = pstats.Stats(path)
    stats.sort_stats('cumulative').print_stats(limit)
    print('By own time:')
    stats.sort_stats('tottime').print_stats(limit)
