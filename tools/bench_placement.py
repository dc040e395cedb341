#!/usr/bin/env python3
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

"""Measure this service's Placement API against OpenStack Placement.

In one run: installs openstack-placement (pinned) from PyPI into a
virtualenv of its own, kept in a cache directory and reused; then, for
each database engine (SQLite, MariaDB, then PostgreSQL), serves
Placement and this service's standalone Placement API
(``zun_hostcap.wsgi.placement``) one after the other, each in a process
of its own, with the same WSGI server (waitress, same version, same
thread count), on a fresh database of the same engine, with noauth2;
loads the providers and measures the same steps on both over keep-alive
HTTP connections. It prints one table:
operations per second and median latency of each step on both, and the
ratio ours/theirs against the target.

With ``--notifications [URL]``, this service is served a second time on
each engine, after the first, with versioned notifications on
(``[oslo_messaging_notifications] driver = messagingv2``, notification
format ``versioned``) over the RabbitMQ of URL (default
rabbit://guest:guest@127.0.0.1:5672/), in a virtual host made for that
server and deleted after it; a notification listener (oslo.messaging, in
a process of its own at the lowest CPU priority) drains
``versioned_notifications.info`` meanwhile. A second table then gives
our figures with notifications off (the first run: no driver configured)
and on, and their ratio; under it, the notifications the listener got,
by event type, against those the steps should send.

With ``--candidates [KEYS]``, the allocation candidate scenarios of
``candidate_scenarios.py`` run instead of the steps (all of them, or
those whose letters KEYS names, such as ``ace``): each is loaded into
both services the same way, on each engine, and its queries timed; the
table gives requests (or, for the scheduler loop, placements) per second
of both, the ratio, the number of candidates each answered and each
server's peak RSS. A query Placement does not answer within
``--timeout`` seconds (60) is shown as such and its server stopped.
Under the table, for the queries of (a), (e) and (g), their floor
(``candidates_floor.py``: our statements alone, and the same answer's
bytes through waitress), measured on the database loaded for our server,
with our request in process and served (p50 and CPU a request).
Between the load and the timing, each side's database is settled the
same way: what the engine would do in the background after thousands
of fresh writes is done first (PostgreSQL: ``VACUUM ANALYZE``, as
autovacuum would; MariaDB: ``ANALYZE TABLE`` of its tables, as InnoDB's
statistics recalculation would, then a wait until InnoDB's purge is
through the history; SQLite: nothing), since a cloud's scheduler
queries a database that has been steady for hours; a line says what was
done and how long it took.

Run it with the Python of an environment where zun-hostcap is installed
(such as ``.tox/functional/bin/python``)::

    python tools/bench_placement.py [--providers N]
                                    [--only sqlite,mysql,postgresql]
                                    [--quick] [--profile FILE]
                                    [--notifications [URL]]
                                    [--candidates [KEYS]] [--timeout S]

MariaDB is expected on 127.0.0.1:3306 with a root user without password
(``--mysql-url`` to change it), PostgreSQL on 127.0.0.1:5432 with a
``postgres`` user it trusts (``--postgresql-url``); on each, the
databases ``bench_ours``, ``bench_theirs`` (and ``bench_ours_on``;
another prefix than ``bench_`` with ``--database-prefix``) are
created and dropped. Both sides reach PostgreSQL through psycopg2
(Placement 16.0 fails on psycopg 3).
RabbitMQ, for ``--notifications``, on the local node, managed with
``rabbitmqctl``. A step that fails shows its error in its row; the other
steps still run. Every server and listener is started by its own pid and
stopped by it: nothing is left running.
"""

import argparse
import functools
import http.client
import json
import os
import platform
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import uuid

import sqlalchemy as sa

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402  (tools/ is no package)
import candidate_scenarios  # noqa: E402
import candidates_floor  # noqa: E402
import pair_floor  # noqa: E402
import placement_peer  # noqa: E402

PLACEMENT_DIST = placement_peer.PLACEMENT_DIST
MICROVERSION = 'placement 1.39'
TOKEN = 'admin'
SERVER_THREADS = 8
CLIENT_THREADS = 8
DEFAULT_MYSQL_URL = 'mysql+pymysql://root@127.0.0.1:3306/'
DEFAULT_POSTGRESQL_URL = 'postgresql+psycopg2://postgres@127.0.0.1:5432/'
# The databases of each side on a server, after the run's prefix.
DATABASES = {'ours': 'ours', 'theirs': 'theirs', 'ours_on': 'ours_on'}
DEFAULT_DATABASE_PREFIX = 'bench_'
DEFAULT_RABBIT_URL = 'rabbit://guest:guest@127.0.0.1:5672/'
# A settled MariaDB: InnoDB's history list no longer than this (other
# clients of the server may be writing), waited for at most PURGE_WAIT s.
PURGE_LAG = 100
PURGE_WAIT = 60
# Seconds an allocation candidates query may take before it is given up.
TIMEOUT = 60
# Where our server sends its versioned notifications: the exchange (set
# in its configuration, so that the listener's matches) and the topic.
NOTIFY_EXCHANGE = 'zun-hostcap'
NOTIFY_TOPIC = 'versioned_notifications'

# Inventory of every provider, and what one allocation takes from it.
INVENTORY = {
    'VCPU': {'total': 64, 'allocation_ratio': 4.0},
    'MEMORY_MB': {'total': 262144, 'reserved': 512},
    'DISK_GB': {'total': 4096},
}
ALLOCATION = {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 10}
RESOURCES_QUERY = 'VCPU:1,MEMORY_MB:512,DISK_GB:10'
PROJECT_ID = '6f1a7b3c2d4e4f5a8b9c0d1e2f3a4b5c'
USER_ID = '0a1b2c3d4e5f40718293a4b5c6d7e8f9'

# Iterations of each step: (full run, --quick).
ITERATIONS = {
    'root': (300, 30),
    'list': (30, 3),
    'query': (30, 3),
    'pairs': (300, 30),
    'pairs_threaded': (800, 80),
    'usages': (300, 30),
}

# Minimum ratio ours/theirs of operations per second.
TARGET_PAIRS = 10.0
TARGET_LIST = 5.0
TARGET_OTHER = 3.0


def pair_body(rp):
    """The body of an allocation PUT of the pairs: ALLOCATION on ``rp``."""
    return {'allocations': {rp: {'resources': ALLOCATION}},
            'project_id': PROJECT_ID, 'user_id': USER_ID,
            'consumer_generation': None, 'consumer_type': 'INSTANCE'}


class StepError(Exception):
    """A request of a step got an answer it should not have."""


# Databases

class Engine(object):
    """Fresh databases of one engine for both sides."""

    name = None

    def url(self, side):
        raise NotImplementedError

    def version(self):
        raise NotImplementedError

    def drop(self, side):
        pass

    def settle(self, side):
        """Do now what the server would do in the background after a load.

        What it does, if anything: a sentence for the output.
        """
        return None


class SQLiteEngine(Engine):
    name = 'sqlite'

    def __init__(self, tmp):
        self.tmp = tmp

    def url(self, side):
        path = os.path.join(self.tmp, 'bench_%s.sqlite' % side)
        if os.path.exists(path):
            os.unlink(path)
        return 'sqlite:///' + path

    def version(self):
        return 'SQLite %s' % sqlite3.sqlite_version


class MySQLEngine(Engine):
    name = 'mysql'

    def __init__(self, admin_url, prefix=DEFAULT_DATABASE_PREFIX):
        self.server = benchlib.MariaDB(admin_url)
        self.prefix = prefix

    def version(self):
        try:
            return self.server.version()
        except Exception as exc:   # noqa: B902  shown in every row too
            return 'MariaDB/MySQL unreachable (%s)' % type(exc).__name__

    def url(self, side):
        return self.server.fresh(self.prefix + DATABASES[side])

    def drop(self, side):
        self.server.drop(self.prefix + DATABASES[side])

    def _execute(self, side, statements):
        """Run ``statements`` on the database of ``side``, in autocommit."""
        engine = sa.create_engine(self.server.admin_url +
                                  self.prefix + DATABASES[side],
                                  poolclass=sa.pool.NullPool,
                                  isolation_level='AUTOCOMMIT')
        try:
            with engine.connect() as conn:
                for statement in statements:
                    conn.execute(sa.text(statement)).close()
        finally:
            engine.dispose()

    def settle(self, side):
        # The statistics of each table (InnoDB recomputes them in the
        # background once a tenth of a table changed), then a wait until
        # InnoDB's purge is through the load's history (the history list
        # is the server's: other clients may be writing too).
        name = self.prefix + DATABASES[side]
        tables = [row[0] for row in self.server.execute(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = '%s'" % name)]
        self._execute(side, ['ANALYZE TABLE ' + ', '.join(
            '`%s`.`%s`' % (name, table) for table in tables)])
        deadline = time.monotonic() + PURGE_WAIT
        while True:
            history = int(self.server.execute(
                "SHOW GLOBAL STATUS LIKE 'Innodb_history_list_length'"
            )[0][1])
            if history <= PURGE_LAG or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        return ('ANALYZE TABLE of its %d tables; InnoDB history list %d '
                'long' % (len(tables), history))


class PostgreSQLEngine(MySQLEngine):
    name = 'postgresql'

    def __init__(self, admin_url, prefix=DEFAULT_DATABASE_PREFIX):
        self.server = benchlib.PostgreSQL(admin_url)
        self.prefix = prefix

    def version(self):
        try:
            return self.server.version()
        except Exception as exc:   # noqa: B902  shown in every row too
            return 'PostgreSQL unreachable (%s)' % type(exc).__name__

    def settle(self, side):
        # What autovacuum would do: vacuum and analyze every table.
        self._execute(side, ['VACUUM ANALYZE'])
        return 'VACUUM ANALYZE'


# The engines, in the order they are measured.
ENGINES = tuple(benchlib.ENGINE_NAMES)


# Servers

# The servers started and not stopped yet, stopped on a signal.
_RUNNING = set()


def _stop_all(*args):
    for server in list(_RUNNING):
        server.stop()
    if args:   # called as a signal handler
        raise SystemExit(128 + args[0])


class Side(object):
    """How to prepare and serve one implementation."""

    def __init__(self, name, label, python, target, config=None):
        self.name = name
        self.label = label
        self.python = python
        self.target = target
        # Configuration beyond the side's own: {section: {option: value}}.
        self.config = config or {}
        # {engine name: {process: CPU seconds over the steps}}
        self.cpu = {}

    def prepare(self, tmp, url):
        """Write the configuration, build the schema; the environment."""
        raise NotImplementedError

    def setup(self, tmp, engine):
        """What the side needs before its server is prepared."""

    def settle(self, engine):
        """After the steps, before the server stops."""

    def teardown(self, engine):
        """After the server stopped, even if it failed: undo ``setup``."""

    def cpu_pids(self):
        """{name: pid} of the processes besides the server to account."""
        return {}

    def server(self, tmp, url, profile=None):
        env = self.prepare(tmp, url)
        return benchlib.WSGIServer(
            self.label, self.target, SERVER_THREADS, env,
            os.path.join(tmp, '%s.log' % self.name), python=self.python,
            profile=profile)


class Ours(Side):

    def __init__(self, config=None):
        super().__init__('ours', 'zun-hostcap', sys.executable,
                         'zun_hostcap.wsgi.placement:application', config)

    def sections(self, tmp, url):
        """The configuration: notifications off (no driver)."""
        return _merged({
            'DEFAULT': {'debug': 'false', 'state_path': tmp},
            'api': {'auth_strategy': 'noauth2'},
            'database': {'connection': url},
            # Not a policy file of this machine: the defaults.
            'oslo_policy': {'policy_file': os.path.join(tmp, 'policy.yaml')},
        }, self.config)

    def prepare(self, tmp, url):
        config = benchlib.write_config(os.path.join(tmp, 'zun-hostcap.conf'),
                                       self.sections(tmp, url))
        _run(benchlib.console_script('zun-hostcap-db-manage', self.python) +
             ['--config-file', config, 'upgrade'])
        return dict(os.environ, ZUN_HOSTCAP_CONFIG_FILE=config)


class OursNotifying(Ours):
    """Ours with versioned notifications on, and a listener of them.

    Each server gets a RabbitMQ virtual host of its own, made before it
    starts and deleted after it stopped, and a listener that drains
    ``NOTIFY_TOPIC``.info from before the server starts until the
    notifications stop coming; what it got is kept by engine in
    ``received``.
    """

    def __init__(self, rabbit_url, expected):
        super().__init__()
        self.name = 'ours_on'
        self.label = 'zun-hostcap (notifications on)'
        self.rabbit_url = rabbit_url
        self.expected = expected
        self.vhost = None
        self.listener = None
        self.broker_pid = None
        self.ran_until = None
        self.received = {}

    def setup(self, tmp, engine):
        self.vhost = benchlib.RabbitVhost(self.rabbit_url,
                                          'bench-placement-%s' % engine.name)
        self.vhost.create()
        if self.broker_pid is None:
            self.broker_pid = self.vhost.broker_pid()
        self.listener = benchlib.NotificationListener(
            'notification listener', self.vhost.url, NOTIFY_EXCHANGE,
            NOTIFY_TOPIC, tmp)
        _RUNNING.add(self.listener)
        self.listener.start()
        # Paused while the steps run: on a small machine its CPU would be
        # taken from the server measured. The broker keeps what comes.
        os.kill(self.listener.process.pid, signal.SIGSTOP)

    def sections(self, tmp, url):
        sections = super().sections(tmp, url)
        sections['DEFAULT'].update(transport_url=self.vhost.url,
                                   control_exchange=NOTIFY_EXCHANGE)
        sections['oslo_messaging_notifications'] = {
            'driver': 'messagingv2', 'transport_url': self.vhost.url}
        sections['notifications'] = {
            'notification_format': 'versioned',
            'versioned_notifications_topics': NOTIFY_TOPIC}
        return sections

    def settle(self, engine):
        self.ran_until = time.time()
        os.kill(self.listener.process.pid, signal.SIGCONT)
        self.listener.settle(sum(self.expected.values()))

    def cpu_pids(self):
        pids = {'listener': self.listener.process.pid}
        if self.broker_pid:
            pids['broker'] = self.broker_pid
        return pids

    def teardown(self, engine):
        listener, self.listener = self.listener, None
        vhost, self.vhost = self.vhost, None
        try:
            if listener is not None:
                # Paused still, if the steps failed: a stopped process
                # takes no SIGTERM.
                if listener.process.poll() is None:
                    os.kill(listener.process.pid, signal.SIGCONT)
                listener.stop()
                _RUNNING.discard(listener)
                self.received[engine.name] = (
                    listener.final, self.ran_until, listener.log_file)
        finally:
            self.ran_until = None
            if vhost is not None:
                vhost.delete()


class Theirs(Side):

    def __init__(self, python, config=None):
        super().__init__('theirs', 'placement', python,
                         'placement.wsgi.api:application', config)

    def prepare(self, tmp, url):
        confdir = placement_peer.write_config(tmp, url, self.config)
        try:
            placement_peer.db_sync(self.python, confdir)
        except subprocess.CalledProcessError as err:
            raise RuntimeError('placement-manage db sync failed with %d:\n'
                               '%s%s' % (err.returncode, err.stdout[-2000:],
                                         err.stderr[-2000:]))
        return dict(os.environ, OS_PLACEMENT_CONFIG_DIR=confdir)


def _merged(sections, extra):
    """``sections`` with the options of ``extra`` added (or replaced)."""
    merged = {name: dict(options) for name, options in sections.items()}
    for name, options in extra.items():
        merged.setdefault(name, {}).update(options)
    return merged


def _run(argv):
    result = subprocess.run(argv, capture_output=True, text=True)
    if result.returncode:
        raise RuntimeError('%s failed with %d:\n%s%s' % (
            ' '.join(argv), result.returncode, result.stdout[-2000:],
            result.stderr[-2000:]))


# The client

class Client(object):
    """One keep-alive HTTP connection (one per thread)."""

    def __init__(self, port, timeout=120):
        self.port = port
        self.conn = http.client.HTTPConnection(benchlib.HOST, port,
                                               timeout=timeout)
        self.headers = {
            'X-Auth-Token': TOKEN,
            'OpenStack-API-Version': MICROVERSION,
            'Accept': 'application/json',
        }

    def call(self, method, path, body=None, expect=(200,), parse=True):
        """The decoded JSON body (or None); StepError on another status.

        ``parse`` False: the body's bytes, read in full but not decoded.
        """
        headers = dict(self.headers)
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers['Content-Type'] = 'application/json'
        for attempt in (1, 2):
            try:
                self.conn.request(method, path, body=data, headers=headers)
                resp = self.conn.getresponse()
                payload = resp.read()
                break
            except (http.client.RemoteDisconnected, BrokenPipeError,
                    ConnectionResetError):
                # The server closed the kept-alive connection: once more.
                self.conn.close()
                if attempt == 2:
                    raise
        if resp.status not in expect:
            raise StepError('%s %s -> %d %s' % (
                method, path.split('?')[0], resp.status,
                payload[:300].decode('utf-8', 'replace').strip()))
        if not parse:
            return payload
        if payload and resp.getheader('Content-Type', '').startswith(
                'application/json'):
            return json.loads(payload)
        return None

    def close(self):
        self.conn.close()


class Result(object):
    """The figures of one step on one side.

    ``failures`` counts the operations that got a wrong answer in a step
    that goes on past them (the threaded one); ``failure`` is the first.
    """

    def __init__(self, ops=0, seconds=0.0, latencies=(), error=None,
                 failures=0, failure=None):
        self.ops = ops
        self.seconds = seconds
        self.latencies = list(latencies)
        self.error = error
        self.failures = failures
        self.failure = failure

    @property
    def rate(self):
        """Successful operations per second."""
        if self.error or not self.seconds or not self.ops:
            return None
        return self.ops / self.seconds

    @property
    def p50(self):
        if self.error or not self.latencies:
            return None
        return statistics.median(self.latencies) * 1000.0


def _timed(ops, tolerate=False):
    """Run the callables ``ops`` in order; a Result.

    With ``tolerate``, an operation that raises StepError is counted as
    a failure and the others go on.
    """
    latencies = []
    failures = 0
    failure = None
    start = time.perf_counter()
    for op in ops:
        began = time.perf_counter()
        try:
            op()
        except StepError as exc:
            if not tolerate:
                raise
            failures += 1
            failure = failure or str(exc)
            continue
        latencies.append(time.perf_counter() - began)
    return Result(len(latencies), time.perf_counter() - start, latencies,
                  failures=failures, failure=failure)


def _step(func, *args):
    try:
        return func(*args)
    except StepError as exc:
        return Result(error=str(exc))
    except Exception as exc:   # noqa: B902  a failing step is reported
        return Result(error='%s: %s' % (type(exc).__name__, exc))


class Bench(object):
    """The steps, against one server."""

    def __init__(self, port, providers, quick):
        self.port = port
        self.count = providers
        self.quick = quick
        self.client = Client(port)
        self.providers = []

    def n(self, step):
        return ITERATIONS[step][1 if self.quick else 0]

    def root(self):
        """GET /: the server and the middleware, without the database."""
        def op():
            self.client.call('GET', '/')
        op()
        return _timed(op for _ in range(self.n('root')))

    def create_providers(self):
        client = self.client

        def create(index):
            def op():
                rp = str(uuid.uuid4())
                client.call('POST', '/resource_providers',
                            {'name': 'bench-rp-%05d' % index, 'uuid': rp})
                client.call('PUT', '/resource_providers/%s/inventories' % rp,
                            {'resource_provider_generation': 0,
                             'inventories': INVENTORY})
                self.providers.append(rp)
            return op
        return _timed(create(i) for i in range(self.count))

    def _check_listed(self, doc):
        listed = len((doc or {}).get('resource_providers', ()))
        if listed != self.count:
            raise StepError('listed %d providers, expected %d' % (
                listed, self.count))

    def _listing(self, path, step):
        """Timed GETs of a list of all the providers.

        The first answer is decoded and checked; the timed ones are read
        in full and compared by length, not decoded: parsing 600 kB of
        JSON is the client's work, the same whichever server sent it,
        and would hide how long the server takes.
        """
        checked = self.client.call('GET', path, parse=False)
        self._check_listed(json.loads(checked))

        def op():
            body = self.client.call('GET', path, parse=False)
            if len(body) != len(checked):
                raise StepError('%s: %d bytes, then %d' % (
                    path, len(checked), len(body)))
        return _timed(op for _ in range(self.n(step)))

    def list_providers(self):
        return self._listing('/resource_providers', 'list')

    def query_providers(self):
        return self._listing('/resource_providers?resources=' +
                             urllib.parse.quote(RESOURCES_QUERY, safe=':,'),
                             'query')

    def _pair(self, client, rp):
        path = '/allocations/%s' % uuid.uuid4()
        body = pair_body(rp)

        def op():
            client.call('PUT', path, body, expect=(204,))
            client.call('DELETE', path, expect=(204,))
        return op

    def _need_providers(self):
        if not self.providers:
            raise StepError('no provider was created')

    def allocation_pairs(self):
        self._need_providers()
        rps = self.providers
        ops = [self._pair(self.client, rps[i % len(rps)])
               for i in range(self.n('pairs'))]
        ops[0]()   # warm up
        return _timed(ops[1:])

    def allocation_pairs_threaded(self):
        """CLIENT_THREADS threads, each on providers of its own."""
        self._need_providers()
        total = self.n('pairs_threaded')
        per_thread = total // CLIENT_THREADS
        results = [None] * CLIENT_THREADS
        barrier = threading.Barrier(CLIENT_THREADS + 1)

        def worker(index):
            client = Client(self.port)
            try:
                rps = self.providers[index::CLIENT_THREADS] or self.providers
                ops = [self._pair(client, rps[i % len(rps)])
                       for i in range(per_thread)]
                try:
                    ops[0]()   # warm up (and open the connection)
                except StepError:
                    pass   # counted in the measured ones, if it recurs
            except Exception as exc:   # noqa: B902
                results[index] = Result(error='warm-up: %s' % exc)
                barrier.abort()
                return
            try:
                barrier.wait()
            except threading.BrokenBarrierError:
                return
            try:
                results[index] = _timed(ops[1:], tolerate=True)
            except Exception as exc:   # noqa: B902
                results[index] = Result(error='%s: %s' % (
                    type(exc).__name__, exc))
            finally:
                client.close()
        threads = [threading.Thread(target=worker, args=(i,))
                   for i in range(CLIENT_THREADS)]
        for thread in threads:
            thread.start()
        try:
            barrier.wait()
        except threading.BrokenBarrierError:
            pass
        start = time.perf_counter()
        for thread in threads:
            thread.join()
        seconds = time.perf_counter() - start
        errors = [r.error for r in results if r and r.error]
        if errors or None in results:
            raise StepError(errors[0] if errors else
                            'a client thread did not finish')
        latencies = [lat for r in results for lat in r.latencies]
        failures = [r.failure for r in results if r.failure]
        return Result(len(latencies), seconds, latencies,
                      failures=sum(r.failures for r in results),
                      failure=failures[0] if failures else None)

    def usages(self):
        """GET usages of providers each holding one allocation."""
        self._need_providers()
        rps = self.providers[:min(len(self.providers), 100)]
        for rp in rps:
            self.client.call('PUT', '/allocations/%s' % uuid.uuid4(),
                             pair_body(rp), expect=(204,))

        def usage(rp):
            def op():
                doc = self.client.call(
                    'GET', '/resource_providers/%s/usages' % rp)
                if (doc or {}).get('usages', {}).get('VCPU') != 1:
                    raise StepError('usages of %s: %s' % (rp, doc))
            return op
        ops = [usage(rps[i % len(rps)]) for i in range(self.n('usages'))]
        ops[0]()
        return _timed(ops[1:])

    def run(self):
        results = {}
        for name, func in STEPS:
            results[name] = _step(getattr(self, func))
        self.client.close()
        return results


# (key, method of Bench), in the order they run.
STEPS = [
    ('root', 'root'),
    ('create', 'create_providers'),
    ('list', 'list_providers'),
    ('query', 'query_providers'),
    ('pairs', 'allocation_pairs'),
    ('pairs_threaded', 'allocation_pairs_threaded'),
    ('usages', 'usages'),
]
LABELS = {
    'root': ('GET / (no database; for reference)', None),
    'create': ('create provider + PUT inventory', TARGET_OTHER),
    'list': ('GET /resource_providers (all)', TARGET_LIST),
    'query': ('GET /resource_providers?resources=', TARGET_OTHER),
    'pairs': ('allocation PUT+DELETE, sequential', TARGET_PAIRS),
    'pairs_threaded': ('allocation PUT+DELETE, %d threads' % CLIENT_THREADS,
                       TARGET_PAIRS),
    'usages': ('GET /resource_providers/{uuid}/usages', TARGET_OTHER),
}


def measure(side, engine, tmp, args):
    """Serve ``side`` on a fresh database of ``engine``; its results."""
    workdir = os.path.join(tmp, '%s-%s' % (engine.name, side.name))
    os.makedirs(workdir)
    profile = None
    if args.profile and side.name == 'ours':
        profile = '%s.%s' % (args.profile, engine.name)
    elif args.profile and side.name == 'ours_on':
        profile = '%s.%s.notifications' % (args.profile, engine.name)
    server = None
    try:
        try:
            side.setup(workdir, engine)
            server = side.server(workdir, engine.url(side.name), profile)
            _RUNNING.add(server)
            server.start()
        except Exception as exc:   # noqa: B902
            error = 'did not start: %s' % exc
            return {name: Result(error=error) for name, _ in STEPS}, None
        print('  %s on %s: serving on port %d (pid %d), %d providers ...' % (
            side.label, engine.name, server.port, server.process.pid,
            args.providers), flush=True)
        pids = dict(side.cpu_pids(), server=server.process.pid)
        cpu = {name: benchlib.cpu_seconds(pid) for name, pid in pids.items()}
        results = Bench(server.port, args.providers, args.quick).run()
        side.settle(engine)
        side.cpu[engine.name] = {
            name: after - cpu[name] for name, after in (
                (name, benchlib.cpu_seconds(pid))
                for name, pid in pids.items())
            if after is not None and cpu[name] is not None}
    finally:
        if server is not None:
            server.stop()
            _RUNNING.discard(server)
        try:
            side.teardown(engine)
        except Exception as exc:   # noqa: B902
            print('  could not clean up after %s: %s' % (side.label, exc))
        try:
            engine.drop(side.name)
        except Exception as exc:   # noqa: B902
            print('  could not drop the database of %s: %s' % (
                side.label, exc))
    failed = [name for name, r in results.items() if r.error or r.failures]
    if failed:
        print('  %s: failures in %s (see below); log: %s' % (
            side.label, ', '.join(failed), server.log_file), flush=True)
    return results, profile


def _fmt(value, width, digits):
    if value is None:
        return '-'.rjust(width)
    return ('%.*f' % (digits, value)).rjust(width)


def table(rows):
    """The text of the table of (engine, key, ours, theirs) rows.

    The verdict is ok or MISS against the target; FAIL when our side
    failed or got a wrong answer. A * marks a rate of successful
    operations only, some having failed.
    """
    head = ('%-10s %-38s %9s %8s %9s %8s %7s %6s %s' % (
        'engine', 'step', 'ours/s', 'p50 ms', 'theirs/s', 'p50 ms',
        'ratio', 'target', 'verdict'))
    lines = [head, '-' * len(head)]
    notes = []
    for engine, key, ours, theirs in rows:
        label, target = LABELS[key]
        ratio = (ours.rate / theirs.rate
                 if ours.rate and theirs.rate else None)
        if ours.error or ours.failures:
            verdict = 'FAIL'
        elif ratio is None or target is None:
            verdict = '-'
        else:
            verdict = 'ok' if ratio >= target else 'MISS'
        lines.append('%-10s %-38s %9s %8s %9s %8s %7s %6s %s' % (
            engine, label, _rate(ours), _fmt(ours.p50, 8, 2),
            _rate(theirs), _fmt(theirs.p50, 8, 2),
            _fmt(ratio, 6, 1) + ('x' if ratio is not None else ' '),
            '%.0fx' % target if target else '-', verdict))
        for who, result in (('ours', ours), ('theirs', theirs)):
            if result.error:
                notes.append((engine, who, label, result.error[:400]))
            elif result.failures:
                summary = '%d of %d failed, e.g. %s' % (
                    result.failures, result.failures + result.ops,
                    result.failure[:300])
                notes.append((engine, who, label, summary))
    text = []
    seen = set()
    for engine, who, label, error in notes:
        if (engine, who, error) in seen:
            continue   # a server that did not start: every step
        seen.add((engine, who, error))
        text.append('error: %s %s, %s: %s' % (engine, who, label, error))
    return '\n'.join(lines + ([''] + text if text else []))


def _rate(result):
    text = _fmt(result.rate, 9 - bool(result.failures), 1)
    return text + '*' if result.failures and result.rate else text


def expected_notifications(args):
    """{event type: count} the steps send if every write succeeds.

    One ``resource_provider.create`` and one
    ``resource_provider.inventory.update`` a provider created; one
    ``allocation.create`` and one ``allocation.delete`` a pair (warm-up
    ones included); one ``allocation.create`` an allocation the usages
    step makes (and leaves).
    """
    quick = 1 if args.quick else 0
    pairs = (ITERATIONS['pairs'][quick] +
             ITERATIONS['pairs_threaded'][quick] // CLIENT_THREADS *
             CLIENT_THREADS)
    return {
        'resource_provider.create': args.providers,
        'resource_provider.inventory.update': args.providers,
        'allocation.create': pairs + min(args.providers, 100),
        'allocation.delete': pairs,
    }


def _seconds(value):
    return '-' if value is None else '%.2f s' % value


def notifications_table(rows):
    """The text of the table of (engine, key, off, on) rows: ours only.

    on/off is the ratio of operations per second, notifications on to
    off; below 1 is the cost of sending them.
    """
    head = '%-10s %-38s %9s %8s %9s %8s %7s' % (
        'engine', 'step', 'off/s', 'p50 ms', 'on/s', 'p50 ms', 'on/off')
    lines = [head, '-' * len(head)]
    notes = []
    for engine, key, off, on in rows:
        label = LABELS[key][0]
        ratio = on.rate / off.rate if on.rate and off.rate else None
        lines.append('%-10s %-38s %9s %8s %9s %8s %7s' % (
            engine, label, _rate(off), _fmt(off.p50, 8, 2), _rate(on),
            _fmt(on.p50, 8, 2),
            _fmt(ratio, 6, 2) + ('x' if ratio is not None else ' ')))
        # The errors of "off" are under the first table.
        if on.error:
            notes.append((engine, label, on.error[:400]))
        elif on.failures:
            notes.append((engine, label, '%d of %d failed, e.g. %s' % (
                on.failures, on.failures + on.ops, on.failure[:300])))
    text = []
    seen = set()
    for engine, label, error in notes:
        if (engine, error) not in seen:
            seen.add((engine, error))
            text.append('error: %s ours (notifications on), %s: %s' % (
                engine, label, error))
    return '\n'.join(lines + ([''] + text if text else []))


def received_text(side, off, engines):
    """What the listener got on each engine, against what was expected.

    And the CPU time the processes took over the steps, with ``off``
    (ours, notifications off) and ``side`` (on; until the listener had
    them all).
    """
    lines = ['Notifications received on %s.info (exchange %s) while ours '
             'ran with them on:' % (NOTIFY_TOPIC, NOTIFY_EXCHANGE)]
    expected = side.expected
    for engine in engines:
        if engine.name not in side.received:
            lines.append('  %s: no listener ran (see the errors above)' %
                         engine.name)
            continue
        state, ran_until, log_path = side.received[engine.name]
        if not state:
            lines.append('  %s: the listener left no count (log: %s)' % (
                engine.name, log_path))
            continue
        counts = state['counts']
        total = state['total']
        if state['last'] is None:
            when = 'none received'
        elif ran_until is None:
            when = 'the steps did not all run'
        elif state['last'] <= ran_until:
            when = 'all in before the last step ended'
        else:
            when = 'the last %.2f s after the last step ended' % (
                state['last'] - ran_until)
        lines.append('  %s: %d of %d expected; %s; publisher %s' % (
            engine.name, total, sum(expected.values()), when,
            ', '.join(state['publishers']) or '-'))
        for event in sorted(set(expected) | set(counts)):
            got, want = counts.get(event, 0), expected.get(event, 0)
            payloads = ', '.join(str(name)
                                 for name in state['payloads'].get(event, ()))
            verdict = 'ok' if got == want else (
                'MISSING' if got < want else 'EXTRA')
            lines.append(('    %-36s %6d of %6d %-7s %s' % (
                event, got, want, verdict, payloads)).rstrip())
        cpu_off = off.cpu.get(engine.name, {})
        cpu_on = side.cpu.get(engine.name, {})
        if 'server' in cpu_off and 'server' in cpu_on:
            lines.append(
                '    CPU time over the steps: our server %.2f s with them '
                'off, %.2f s on (%s); RabbitMQ %s, the listener %s' % (
                    cpu_off['server'], cpu_on['server'],
                    '%.2fx' % (cpu_on['server'] / cpu_off['server'])
                    if cpu_off['server'] else '-',
                    _seconds(cpu_on.get('broker')),
                    _seconds(cpu_on.get('listener'))))
    return '\n'.join(lines)


def floor(args, rows, engines):
    """The floor of a pair (``pair_floor``) on each engine, as text."""
    pairs = ITERATIONS['pairs'][args.quick] * 5
    texts = []
    try:
        http_ms = pair_floor.http_floor(Client, pair_body(str(uuid.uuid4())),
                                        pairs)
    except Exception as exc:   # noqa: B902  the table stands without it
        return 'floor of a pair not measured: %s: %s' % (
            type(exc).__name__, exc)
    database = args.database_prefix + 'floor'
    for engine in engines:
        server = pair_floor.database_server(
            engine.name, args.mysql_url, args.postgresql_url)
        try:
            sql_ms = pair_floor.sql_floor(server, pairs, database)
            served_ms = pair_floor.served_floor(
                Client, pair_body(str(uuid.uuid4())), pairs, server,
                database)
        except Exception as exc:   # noqa: B902  the table stands without it
            texts.append('floor of a pair on %s not measured: %s: %s' % (
                engine.name, type(exc).__name__, exc))
            continue
        times = {}
        for name, key, ours, theirs in rows:
            if name == engine.name and key == 'pairs':
                times = {side: 1000.0 / result.rate
                         for side, result in (('ours', ours),
                                              ('theirs', theirs))
                         if result.rate}
        texts.append(pair_floor.report(http_ms, sql_ms, times.get('theirs'),
                                       engine.name, times.get('ours'),
                                       served_ms))
    return '\n\n'.join(texts)


# Allocation candidates (--candidates)

def _candidate_server(side, engine, tmp, tag):
    """Serve ``side`` on a fresh database; the started server."""
    workdir = os.path.join(tmp, '%s-%s-%s' % (engine.name, side.name, tag))
    os.makedirs(workdir)
    side.setup(workdir, engine)
    url = engine.url(side.name)   # a fresh database
    server = side.server(workdir, url)
    server.workdir, server.url = workdir, url
    _RUNNING.add(server)
    server.start()
    return server


def _measure_scenario(sides, engine, tmp, tag, scenario, timeout):
    """[{query label: Figures}] of ``scenario``, one for each of ``sides``.

    A scenario whose queries may not be answered in time has servers
    (and loads) for each of them.
    """
    if not scenario.server_per_query:
        return _measure(sides, engine, tmp, tag, scenario,
                        scenario.queries(), timeout)
    results = [{} for _ in sides]
    for index, query in enumerate(scenario.queries()):
        for mine, figures in zip(results, _measure(
                sides, engine, tmp, '%s%d' % (tag, index), scenario,
                [query], timeout)):
            mine.update(figures)
    return results


def _settle(engine, side):
    """Settle the database of ``side`` after its load, and say so.

    What a database does in the background after thousands of fresh
    writes (statistics, vacuum, purge), done before the timing: a cloud's
    scheduler queries a database that has been steady for hours.
    """
    began = time.perf_counter()
    try:
        done = engine.settle(side.name)
    except Exception as exc:   # noqa: B902  timed as it is then
        print('    %s: could not settle the database: %s' % (
            side.label, exc), flush=True)
        return
    if done:
        print('    %s: database settled (%s) in %.1f s' % (
            side.label, done, time.perf_counter() - began), flush=True)


def _measure(sides, engine, tmp, tag, scenario, queries, timeout):
    """[{query label: Figures}] of ``queries``, one for each of ``sides``.

    Each side is served on a fresh database of its own and loaded; the
    databases are settled; then the sides' requests of each query take
    turns (``time_alternately``). The scheduler loop has one side.
    """
    labels = [q.label for q in queries] or ['(f) scheduler loop']
    results = [{} for _ in sides]
    started = []   # (side, server)
    loaded = []    # (side, server, results)

    def failed(mine, why):
        mine.update((label, candidate_scenarios.Figures(why))
                    for label in labels)
    try:
        for side, mine in zip(sides, results):
            try:
                server = _candidate_server(side, engine, tmp, tag)
            except Exception as exc:   # noqa: B902
                failed(mine, 'did not start: %s' % exc)
                continue
            started.append((side, server))
            print('  %s on %s (%s): loading %d providers on port %d ...' % (
                side.label, engine.name, tag, len(scenario.providers),
                server.port), flush=True)
            began = time.perf_counter()
            try:
                candidate_scenarios.load(scenario, _client_of(server))
            except Exception as exc:   # noqa: B902
                failed(mine, 'loading failed: %s' % exc)
                continue
            print('    loaded in %.0f s' % (time.perf_counter() - began),
                  flush=True)
            loaded.append((side, server, mine))
        for side, _server, _mine in loaded:
            _settle(engine, side)
        if not queries and loaded:
            side, server, mine = loaded[0]
            mine[labels[0]] = candidate_scenarios.scheduler_loop(
                _client_of(server), scenario, StepError)
        for query in queries:
            all_figures = candidate_scenarios.time_alternately(
                [_client_of(server) for _side, server, _mine in loaded],
                query, timeout)
            for (side, _server, mine), figures in zip(loaded, all_figures):
                mine[query.label] = figures
                print('    %s, %s: %s' % (
                    side.label, query.label,
                    figures.error or '%.1f ms' % figures.p50), flush=True)
            if any(figures.timed_out for figures in all_figures):
                break   # a server is still at it: no fair next query
        for side, server, mine in loaded:
            if scenario.floor and isinstance(side, Ours):
                _measure_floors(engine, server, queries, mine)
            rss = candidate_scenarios.peak_rss_mb(server.process.pid)
            for figures in mine.values():
                figures.rss_mb = rss
        for mine in results:
            for label in labels:
                mine.setdefault(label, candidate_scenarios.Figures(
                    'not run: an earlier query timed out'))
        return results
    finally:
        for side, server in started:
            server.stop()
            _RUNNING.discard(server)
        for side in sides:
            try:
                side.teardown(engine)
                engine.drop(side.name)
            except Exception as exc:   # noqa: B902
                print('  could not clean up after %s: %s' % (side.label,
                                                             exc))


def _client_of(server):
    """A maker of keep-alive clients of ``server``."""
    def make_client(client_timeout=120):
        return Client(server.port, client_timeout)
    return make_client


def _measure_floors(engine, server, queries, results):
    """Each query's floor (candidates_floor), on our loaded database."""
    config = os.path.join(server.workdir, 'zun-hostcap.conf')
    requests = (20 if candidate_scenarios.Query.most_iterations
                else candidates_floor.DEFAULT_REQUESTS)
    for query in queries:
        figures = results.get(query.label)
        if figures is None or figures.error:
            continue
        try:
            figures.floor = candidates_floor.measure(
                engine.name, server.url, config, query.path, Client,
                requests, (server.port, server.process.pid))
        except Exception as exc:   # noqa: B902  the table stands without it
            figures.floor = '%s: %s' % (type(exc).__name__, exc)


def floors_text(rows):
    """The floors of the queries that have one, under their table."""
    texts = []
    for engine, label, _variant, _query, ours, theirs in rows:
        if isinstance(ours.floor, str):
            texts.append('floor of %s on %s not measured: %s' % (
                label, engine, ours.floor))
        elif ours.floor is not None:
            texts.append(ours.floor.report(label, theirs.p50, ours.p50))
    return '\n\n'.join(texts)


def run_candidates(args, engines, theirs_python, tmp):
    """The candidate scenarios on each engine; the table's rows."""
    rows = []
    keys = args.candidates
    for engine in engines:
        for scenario_class in candidate_scenarios.SCENARIOS:
            if scenario_class.key not in keys:
                continue
            if scenario_class.key == 'f' and engine.name == 'sqlite':
                continue   # the loop is measured where clouds run
            scenario = scenario_class(
                candidate_scenarios.QUICK_SCALE if args.quick else 1)
            print('%s: (%s) %s' % (engine.name, scenario.key,
                                   scenario.title), flush=True)
            if _side_by_side(scenario, args):
                (variant, config), = scenario.variants
                ours, theirs = _measure_scenario(
                    [Ours(scenario.ours_config),
                     Theirs(theirs_python, config)], engine, tmp,
                    scenario.key, scenario, args.timeout)
                rows.extend(_rows(engine, scenario, variant, ours, theirs))
                continue
            if not scenario.ours_follows_variants:
                ours, = _measure_scenario(
                    [Ours(scenario.ours_config)], engine, tmp,
                    scenario.key, scenario, args.timeout)
            for variant, config in scenario.variants:
                if scenario.ours_follows_variants:
                    ours, = _measure_scenario(
                        [Ours(_merged(scenario.ours_config, config))],
                        engine, tmp,
                        'o' + scenario.key + variant.replace(' ', '-'),
                        scenario, args.timeout)
                if args.ours_only:
                    theirs = {label: candidate_scenarios.Figures(
                        NOT_MEASURED) for label in ours}
                else:
                    theirs, = _measure_scenario(
                        [Theirs(theirs_python, config)], engine, tmp,
                        scenario.key + variant.replace(' ', '-'), scenario,
                        args.timeout)
                rows.extend(_rows(engine, scenario, variant, ours, theirs))
    return rows


def _side_by_side(scenario, args):
    """Whether both servers of ``scenario`` are measured side by side.

    Where Placement is served once (one variant), with ours, and the
    scenario has queries to time: their requests then take turns. The
    scheduler loop, and the wide trees with Placement's two
    configurations, are measured one server after the other.
    """
    return (not args.ours_only and len(scenario.variants) == 1
            and not scenario.ours_follows_variants
            and bool(scenario.queries()))


def _rows(engine, scenario, variant, ours, theirs):
    """The table's rows of one variant of ``scenario``."""
    rows = []
    queries = scenario.queries()
    for label in ours:
        query = next((q for q in queries if q.label == label), None)
        rows.append((engine.name, label, variant, query, ours[label],
                     theirs[label]))
    return rows


def candidates_table(rows):
    """The text of the candidate scenarios' table."""
    head = (ROW % (
        'engine', 'query', 'Placement', 'ours/s', 'p50 ms',
        'theirs/s', 'p50 ms', 'ratio', 'target', 'verdict',
        'answers o/t', 'RSS o/t'))
    lines = [head, '-' * len(head)]
    notes = []
    for engine, label, variant, query, ours, theirs in rows:
        ratio = (ours.rate / theirs.rate
                 if ours.rate and theirs.rate else None)
        target = query.target if query else 5.0
        if ours.error or (ours.over or 0):
            verdict = 'FAIL'
        elif query is not None and query.max_ms is not None:
            verdict = 'ok' if ours.p50 <= query.max_ms else 'MISS'
        elif theirs.timed_out:
            verdict = 'ok'
        elif ratio is None:
            verdict = '-'
        else:
            verdict = 'ok' if ratio >= target else 'MISS'
        if query is not None and query.max_ms is not None:
            target_text = '<=%.0fms' % query.max_ms
        else:
            target_text = '%.0fx' % target
        theirs_rate = ('>%ds' % args_timeout(theirs) if theirs.timed_out
                       else _fmt(theirs.rate, 9, 1))
        lines.append(ROW % (
            engine, label, VARIANTS.get(variant, variant),
            _fmt(ours.rate, 8, 1), _fmt(ours.p50, 8, 1),
            theirs_rate.rjust(9), _fmt(theirs.p50, 8, 1),
            _fmt(ratio, 6, 1) + ('x' if ratio is not None else ' '),
            target_text, verdict,
            '%s/%s' % (_count(ours.candidates), _count(theirs.candidates)),
            '%s/%s' % (_count(ours.rss_mb), _count(theirs.rss_mb))))
        for who, figures in (('ours', ours), ('theirs', theirs)):
            if figures.error == NOT_MEASURED:
                continue
            if figures.error and not figures.timed_out:
                notes.append('error: %s %s, %s: %s' % (
                    engine, who, label, figures.error))
            if figures.over is not None:
                notes.append('%s %s, scheduler loop (%s): %d placements, '
                             '%d conflicts, %d providers over capacity' % (
                                 engine, who, VARIANTS.get(variant, variant),
                                 figures.ops, figures.conflicts,
                                 figures.over))
    return '\n'.join(lines + ([''] + notes if notes else []))


# Placement's side of a row with --ours-only.
NOT_MEASURED = 'not measured (--ours-only)'
ROW = '%-10s %-52s %-9s %8s %8s %9s %8s %7s %7s %-7s %11s %9s'
# The Placement settings a row was measured with, in a word.
VARIANTS = {'': 'defaults', 'defaults': 'defaults',
            'recommended settings': 'tuned', 'randomize': 'randomize'}


def args_timeout(figures):
    return int(figures.seconds) if figures.seconds else TIMEOUT


def _count(value):
    return '-' if value is None else '%d' % value


def conditions(args, theirs_python, engines):
    uname = platform.uname()
    ours, theirs = benchlib.version, functools.partial(
        benchlib.version, python=theirs_python)
    lines = [
        'zun-hostcap %s vs %s %s, microversion %s, noauth2' % (
            ours('zun-hostcap'), PLACEMENT_DIST, theirs(PLACEMENT_DIST),
            MICROVERSION.split()[1]),
        'machine: %d CPUs, %s %s %s; Python %s' % (
            os.cpu_count(), uname.system, uname.release, uname.machine,
            platform.python_version()),
        'server: waitress %s, %d threads, one process each, one at a time'
        '%s' % (ours('waitress'), SERVER_THREADS,
                '; the candidate queries of a shape with one Placement '
                'configuration: both loaded, their requests taking turns'
                if args.candidates else ''),
        'libraries: SQLAlchemy %s (ours) / %s (theirs), oslo.db %s / %s, '
        'PyMySQL %s / %s' % (
            ours('SQLAlchemy'), theirs('SQLAlchemy'), ours('oslo.db'),
            theirs('oslo.db'), ours('PyMySQL'), theirs('PyMySQL')),
        'databases: %s' % ', '.join(e.version() for e in engines),
        'load: %d providers (VCPU/MEMORY_MB/DISK_GB); iterations: %s%s' % (
            args.providers,
            ', '.join('%s %d' % (k, v[1 if args.quick else 0])
                      for k, v in ITERATIONS.items()),
            ' (--quick)' if args.quick else ''),
        'client: http.client keep-alive, one connection per thread; '
        'ratio = ours/s / theirs/s; an op of a pair step is 2 requests',
    ]
    if args.notifications:
        try:
            rabbit = 'RabbitMQ %s' % benchlib.rabbitmqctl(
                '-q', 'version').strip()
        except Exception as exc:   # noqa: B902  shown, not needed
            rabbit = 'RabbitMQ (version unknown: %s)' % exc
        lines.append(
            'notifications: ours served twice, off (no driver) then on '
            '(messagingv2, versioned, oslo.messaging %s, %s at %s, a '
            'virtual host of its own); a listener at nice 19 drains '
            '%s.info' % (
                ours('oslo.messaging'), rabbit,
                urllib.parse.urlsplit(args.notifications).netloc.rpartition(
                    '@')[2], NOTIFY_TOPIC))
    return '\n'.join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--providers', type=benchlib.at_least(1),
                        default=1000,
                        help='providers to load (default 1000)')
    parser.add_argument('--only', metavar='ENGINES',
                        type=benchlib.engine_list,
                        help='these database engines only, of %s '
                        '(comma-separated)' % ', '.join(ENGINES))
    parser.add_argument('--quick', action='store_true',
                        help='fewer iterations, for a smoke run')
    parser.add_argument('--cache-dir', default=placement_peer.DEFAULT_CACHE,
                        help='where the virtualenv of Placement is kept '
                        '(default %(default)s)')
    parser.add_argument('--mysql-url', default=DEFAULT_MYSQL_URL,
                        help='an administrator URL of the MariaDB server '
                        '(default %(default)s)')
    parser.add_argument('--postgresql-url', default=DEFAULT_POSTGRESQL_URL,
                        help='an administrator URL of the PostgreSQL server '
                        '(default %(default)s)')
    parser.add_argument('--database-prefix', default=DEFAULT_DATABASE_PREFIX,
                        type=benchlib.database_prefix,
                        help='the names of the databases made on MariaDB '
                        'and PostgreSQL: PREFIX + ours, theirs, ours_on '
                        '(default %(default)s)')
    parser.add_argument('--profile', metavar='FILE',
                        help='profile our server (cProfile, request by '
                        'request) into FILE.<engine> and print a summary')
    parser.add_argument('--keep', action='store_true',
                        help='keep the work directory (logs, configs)')
    parser.add_argument('--notifications', metavar='URL', nargs='?',
                        const=DEFAULT_RABBIT_URL,
                        help='also serve ours with versioned notifications '
                        'on, over the RabbitMQ of URL (default %s; a '
                        'virtual host is made for each server and deleted '
                        'after it, with rabbitmqctl), and compare with '
                        'ours off' % DEFAULT_RABBIT_URL)
    parser.add_argument('--candidates', metavar='KEYS', nargs='?',
                        const=''.join(c.key for c in
                                      candidate_scenarios.SCENARIOS
                                      if c.by_default),
                        help='run the allocation candidate scenarios (all '
                        'but the 50,000 computes of h, or those whose '
                        'letters KEYS names) instead of the steps; with '
                        '--quick, small forests and few requests (a smoke '
                        'run)')
    parser.add_argument('--ours-only', action='store_true',
                        help='with --candidates: serve ours only, not '
                        'Placement (how our time grows with the forest, '
                        'on the 50,000 computes of h)')
    parser.add_argument('--timeout', type=int, default=TIMEOUT,
                        help='seconds a candidates query may take '
                        '(default %(default)s)')
    args = parser.parse_args(argv)
    only = args.only or ENGINES
    if args.notifications and not shutil.which('rabbitmqctl'):
        parser.error('--notifications needs rabbitmqctl in PATH (to make '
                     'a RabbitMQ virtual host of the run)')
    try:
        import zun_hostcap  # noqa: F401
    except ImportError:
        raise SystemExit('zun_hostcap is not importable by %s: run this '
                         'with the Python of an environment where it is '
                         'installed (e.g. .tox/functional/bin/python)' %
                         sys.executable)
    signal.signal(signal.SIGTERM, _stop_all)
    theirs_python = placement_peer.placement_venv(args.cache_dir)
    tmp = tempfile.mkdtemp(prefix='bench-placement-')
    engines = []
    if 'sqlite' in only:
        engines.append(SQLiteEngine(tmp))
    if 'mysql' in only:
        engines.append(MySQLEngine(args.mysql_url, args.database_prefix))
    if 'postgresql' in only:
        engines.append(PostgreSQLEngine(args.postgresql_url,
                                        args.database_prefix))
    ours = Ours()
    sides = [Theirs(theirs_python), ours]
    notifying = None
    if args.notifications:
        notifying = OursNotifying(args.notifications,
                                  expected_notifications(args))
        sides.append(notifying)
    if args.candidates:
        if args.quick:
            candidate_scenarios.Query.most_iterations = 2
        try:
            print(conditions(args, theirs_python, engines), flush=True)
            rows = run_candidates(args, engines, theirs_python, tmp)
        finally:
            _stop_all()
            if not args.keep:
                shutil.rmtree(tmp, ignore_errors=True)
        print()
        print(candidates_table(rows))
        floors = floors_text(rows)
        if floors:
            print()
            print(floors)
        return 0
    rows = []
    notification_rows = []
    profiles = []
    try:
        print(conditions(args, theirs_python, engines), flush=True)
        for engine in engines:
            results = {}
            for side in sides:
                results[side.name], profile = measure(side, engine, tmp, args)
                profiles.append((profile, 'our server' if side is not notifying
                                 else 'our server, notifications on'))
            for key, _ in STEPS:
                rows.append((engine.name, key, results['ours'][key],
                             results['theirs'][key]))
                if notifying:
                    notification_rows.append((
                        engine.name, key, results['ours'][key],
                        results['ours_on'][key]))
    finally:
        _stop_all()
        if args.keep:
            print('work directory kept: %s' % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print()
    print(table(rows))
    if notifying:
        print()
        print('Ours with notifications off and on:')
        print(notifications_table(notification_rows))
        print()
        print(received_text(notifying, ours, engines))
    print()
    print(floor(args, rows, engines))
    for profile, title in profiles:
        benchlib.print_profile(profile, title)
    return 0


if __name__ == '__main__':
    sys.exit(main())
