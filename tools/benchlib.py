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

"""What the benchmark tools of tools/ share.

The tools are scripts, not a package: each puts this directory first on
``sys.path`` and imports this module. It holds the helpers that are the
same for all of them: the console scripts, versions of installed
distributions, a WSGI application served by waitress in a process of its
own, stopped by its own pid, an oslo.messaging notification listener in
a process of its own that counts what it gets, a profile printed.

The configuration files, a free port, a process stopped by its own pid,
a MariaDB or PostgreSQL database made and dropped and a RabbitMQ
virtual host made and deleted are the functional tests'
(``zun_hostcap.tests.functional.local_servers``), named here for the
tools: one home for both.
"""

import argparse
import http.client
import importlib.metadata
import json
import os
import pstats
import re
import shutil
import subprocess
import sys
import time

from zun_hostcap.tests.functional import local_servers

HOST = '127.0.0.1'

MariaDB = local_servers.MariaDB
PostgreSQL = local_servers.PostgreSQL
Process = local_servers.Process
RabbitVhost = local_servers.RabbitVhost
free_port = local_servers.free_port
rabbitmqctl = local_servers.rabbitmqctl
write_config = local_servers.write_config

# The repository tools/ is in, and where the tools keep the virtualenvs
# they make (openstack-placement, the previous release): its .bench/, or
# $ZUN_HOSTCAP_BENCH_CACHE.
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE_DIR = os.environ.get('ZUN_HOSTCAP_BENCH_CACHE',
                           os.path.join(REPO, '.bench'))

# Run with a Python of its own: waitress serving the WSGI application
# named module:attribute ("hello" for a hello-world one, "bytes:FILE" for
# one that answers every request with the bytes of FILE), optionally
# profiled request by request (cProfile in the thread that serves the
# request, merged in one file written on SIGTERM). The same code for
# every server a tool compares, so the server is the same.
SERVE = r'''
import cProfile, importlib, os, pstats, signal, sys, threading
import waitress
target, port, threads, profile = sys.argv[1:5]
# An application may parse the command line as its own (Keystone does).
del sys.argv[1:]
if target == 'hello' or target.startswith('bytes:'):
    answer = b'{}'
    if target != 'hello':
        with open(target[6:], 'rb') as f:
            answer = f.read()
    length = str(len(answer))
    def application(environ, start_response):
        start_response('200 OK', [('Content-Type', 'application/json'),
                                  ('Content-Length', length)])
        return [answer]
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


# The database engines the tools measure on, and their display names.
ENGINE_NAMES = {'sqlite': 'SQLite', 'mysql': 'MariaDB',
                'postgresql': 'PostgreSQL'}


def engine_list(text):
    """An argparse type: comma-separated engines, each of ENGINE_NAMES."""
    engines = text.split(',')
    unknown = set(engines) - set(ENGINE_NAMES)
    if unknown:
        raise argparse.ArgumentTypeError('no engine %s (of %s)' % (
            ', '.join(sorted(unknown)), ', '.join(ENGINE_NAMES)))
    return engines


def at_least(minimum):
    """An argparse type: an integer of ``minimum`` or more."""
    def integer(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError('%r is not an integer' % text)
        if value < minimum:
            raise argparse.ArgumentTypeError('at least %d' % minimum)
        return value
    return integer


def database_prefix(text):
    """An argparse type: the prefix of the databases a tool makes.

    It becomes part of database names in SQL: lower-case letters, digits
    and _ only, not a digit first.
    """
    if not re.fullmatch('[a-z_][a-z0-9_]{0,40}', text):
        raise argparse.ArgumentTypeError(
            'lower-case letters, digits and _ only, not a digit first')
    return text


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


class PeerVenv(object):
    """A virtualenv of its own, in the cache, for a peer from PyPI.

    Named ``NAME-pyX.Y``. ``bench-ready`` in it lists what pip installed,
    written last: a virtualenv without it is an interrupted install, made
    again from the start.
    """

    def __init__(self, name, cache_dir=CACHE_DIR):
        self.path = os.path.join(os.path.abspath(cache_dir), '%s-py%d.%d' % (
            (name,) + sys.version_info[:2]))
        self.python = os.path.join(self.path, 'bin', 'python')
        self._ready = os.path.join(self.path, 'bench-ready')

    def installed_python(self):
        """Its Python if it was made in full, else None."""
        return self.python if os.path.exists(self._ready) else None

    def installed(self):
        """The requirements pip installed in it, as recorded."""
        with open(self._ready) as f:
            return f.read().split()

    def create(self, packages, then=None):
        """Make it anew with ``packages`` (requirement strings).

        ``then(python)`` runs after pip and before the virtualenv is
        marked ready. SystemExit if pip fails.
        """
        if os.path.exists(self.path):
            shutil.rmtree(self.path)   # an earlier, interrupted install
        print('Installing %s into %s ...' % (' and '.join(packages[:2]),
                                             self.path), flush=True)
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        subprocess.run([sys.executable, '-m', 'venv', self.path],
                       check=True)
        self._pip_install(packages)
        if then is not None:
            then(self.python)
        self._record(packages)

    def add(self, packages):
        """Install ``packages`` that a ready virtualenv lacks, by name."""
        installed = self.installed()
        names = {requirement_name(p) for p in installed}
        missing = [p for p in packages if requirement_name(p) not in names]
        if missing:
            self._pip_install(missing)
            self._record(installed + missing)

    def _pip_install(self, packages):
        result = subprocess.run(
            [self.python, '-m', 'pip', 'install', '--quiet'] + packages,
            capture_output=True, text=True)
        if result.returncode:
            raise SystemExit('pip install %s failed:\n%s%s' % (
                ' '.join(packages), result.stdout[-4000:],
                result.stderr[-4000:]))

    def _record(self, packages):
        with open(self._ready, 'w') as f:
            f.write(' '.join(packages) + '\n')


def requirement_name(requirement):
    """The name of a requirement: ``psycopg`` of ``psycopg[binary]``."""
    return re.split(r'[=<>!~\[ ]', requirement, 1)[0].lower()


def pinned(dist):
    """``dist==X``, X the version this environment has; ``dist`` if none.

    So that a peer runs the same server and drivers as this service.
    """
    installed = version(dist)
    return '%s==%s' % (dist, installed) if installed else dist


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


class WSGIServer(Process):
    """``SERVE`` in a process of its own, stopped by its own pid.

    :param target: module:attribute of the WSGI application, "hello", or
        "bytes:FILE" (an application that answers FILE's bytes).
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
                    self.name, self.process.returncode, self.log_tail()))
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
                    self.name, timeout, self.log_tail()))
            time.sleep(0.2)


def cpu_seconds(pid):
    """CPU time (user + system) process ``pid`` took so far; or None."""
    try:
        with open('/proc/%d/stat' % pid) as f:
            fields = f.read().rpartition(')')[2].split()
    except (OSError, TypeError):
        return None
    # utime and stime: fields 14 and 15 of stat(5), after "pid (comm)".
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


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
                    self.name, self.process.returncode, self.log_tail()))
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError('%s was not listening after %ss:\n%s' % (
                    self.name, timeout, self.log_tail()))
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
