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

"""Measure a Prometheus scrape of /metrics against an exporter's walk.

For each database engine (SQLite, then MariaDB): serves this service's
whole API (``zun_hostcap.wsgi.api``, ``[metrics] enabled``) with waitress
in a process of its own, on a fresh database loaded with N providers of
3 classes each (VCPU, MEMORY_MB, DISK_GB), each with one consumer's
allocation; then measures

- the scrape: ``GET /metrics`` as Prometheus asks for it (gzip), and
  without compression, several times; its size and samples;
- the walk an openstack-exporter makes for the same figures: the list of
  providers, then each provider's inventories and usages, over
  keep-alive connections from a few threads: its requests and time.

Then, in this process, what the request metrics add to a request: the
counting middleware around an application that answers at once, against
that application alone, in microseconds per request, beside the median
time of a GET of one provider's usages over HTTP.

The providers are written with SQL in bulk, as a large cloud's database
would hold them, after the API has written the standard classes.

Run it with the Python of an environment where zun-hostcap is installed
(such as ``.tox/functional/bin/python``)::

    python tools/bench_metrics.py [--providers N] [--only sqlite|mysql]
                                  [--scrapes N] [--walk-threads N]
                                  [--database-prefix PREFIX]

MariaDB is expected on 127.0.0.1:3306 with a root user without password
(``--mysql-url`` to change it); the database ``bench_metrics`` (another
prefix than ``bench_`` with ``--database-prefix``) is created and
dropped. Every server is started by its own pid and stopped by it.
"""

import argparse
import concurrent.futures
import gzip
import http.client
import json
import os
import platform
import shutil
import signal
import sqlite3
import statistics
import sys
import tempfile
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402  (tools/ is no package)

DEFAULT_MYSQL_URL = 'mysql+pymysql://root@127.0.0.1:3306/'
# The database made on MariaDB, after the run's prefix.
DATABASE = 'metrics'
DEFAULT_DATABASE_PREFIX = 'bench_'
SERVER_THREADS = 8
MICROVERSION = 'placement 1.39'
# Issue 33: a scrape of 10,000 providers on MariaDB within 100 ms.
TARGET_MS = 100.0

# Every provider's inventory, and what its one consumer takes.
INVENTORY = {
    'VCPU': {'total': 64, 'reserved': 0, 'allocation_ratio': 4.0},
    'MEMORY_MB': {'total': 262144, 'reserved': 512,
                  'allocation_ratio': 1.0},
    'DISK_GB': {'total': 4096, 'reserved': 0, 'allocation_ratio': 1.0},
}
ALLOCATION = {'VCPU': 2, 'MEMORY_MB': 4096, 'DISK_GB': 40}
# Rows per INSERT statement of the load.
CHUNK = 2000

_RUNNING = set()


def _stop_all(*args):
    for server in list(_RUNNING):
        server.stop()
    if args:
        raise SystemExit(128 + args[0])


def _run(argv):
    import subprocess
    result = subprocess.run(argv, capture_output=True, text=True)
    if result.returncode:
        raise RuntimeError('%s failed with %d:\n%s%s' % (
            ' '.join(argv), result.returncode, result.stdout[-2000:],
            result.stderr[-2000:]))


class Connection(object):
    """One keep-alive HTTP connection."""

    def __init__(self, port):
        self.conn = http.client.HTTPConnection(benchlib.HOST, port,
                                               timeout=300)

    def get(self, path, headers=None):
        """(status, body bytes as sent, headers)."""
        self.conn.request('GET', path, headers=headers or {})
        resp = self.conn.getresponse()
        return resp.status, resp.read(), dict(resp.getheaders())

    def close(self):
        self.conn.close()


PLACEMENT = {'X-Auth-Token': 'admin', 'OpenStack-API-Version': MICROVERSION,
             'Accept': 'application/json'}


def provider_name(index):
    return 'compute-%05d.bench.example.org' % index


def load(url, count):
    """Write ``count`` providers, inventories and allocations with SQL."""
    import sqlalchemy as sa
    from zun_hostcap.db.sqlalchemy import models

    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    now = sa.func.now()
    tables = {name: getattr(models, name).__table__ for name in (
        'ResourceProvider', 'Inventory', 'Allocation', 'Consumer',
        'Project', 'User', 'ResourceClass')}
    with engine.begin() as conn:
        classes = dict(conn.execute(
            sa.select(tables['ResourceClass'].c.name,
                      tables['ResourceClass'].c.id).where(
                tables['ResourceClass'].c.name.in_(list(INVENTORY)))).all())
        if len(classes) != len(INVENTORY):
            raise RuntimeError('standard classes missing: %s' % classes)
        conn.execute(tables['Project'].insert().values(
            id=1, external_id='bench-project', created_at=now))
        conn.execute(tables['User'].insert().values(
            id=1, external_id='bench-user', created_at=now))
        for start in range(0, count, CHUNK):
            ids = range(start + 1, min(start + CHUNK, count) + 1)
            consumers = {i: str(uuid.uuid4()) for i in ids}
            conn.execute(tables['ResourceProvider'].insert(), [
                {'id': i, 'uuid': str(uuid.uuid4()),
                 'name': provider_name(i),
                 'generation': 2, 'root_provider_id': None}
                for i in ids])
            conn.execute(tables['ResourceProvider'].update().where(
                tables['ResourceProvider'].c.id.in_(list(ids))).values(
                root_provider_id=tables['ResourceProvider'].c.id))
            conn.execute(tables['Inventory'].insert(), [
                dict(fields, resource_provider_id=i,
                     resource_class_id=classes[name], min_unit=1,
                     max_unit=fields['total'], step_size=1)
                for i in ids for name, fields in INVENTORY.items()])
            conn.execute(tables['Consumer'].insert(), [
                {'uuid': consumers[i], 'project_id': 1, 'user_id': 1,
                 'generation': 1} for i in ids])
            conn.execute(tables['Allocation'].insert(), [
                {'resource_provider_id': i, 'consumer_id': consumers[i],
                 'resource_class_id': classes[name], 'used': used}
                for i in ids for name, used in ALLOCATION.items()])
    engine.dispose()


def _stats(values):
    return statistics.median(values), min(values), max(values)


def scrape(port, scrapes, pid=None):
    """Figures of GET /metrics, with gzip (as Prometheus) and without.

    With the server's ``pid``, also the CPU time the server took for a
    scrape (gzip), which other work on the machine changes less than the
    time the scrape lasted.
    """
    conn = Connection(port)
    figures = {}
    try:
        for label, headers in (('gzip', {'Accept-Encoding': 'gzip'}),
                               ('identity', {})):
            times = []
            cpu = benchlib.cpu_seconds(pid) if pid else None
            for _ in range(scrapes):
                began = time.perf_counter()
                status, body, resp_headers = conn.get('/metrics', headers)
                times.append(time.perf_counter() - began)
                if status != 200:
                    raise RuntimeError('GET /metrics: %d %s' % (
                        status, body[:300]))
            if cpu is not None and label == 'gzip':
                figures['cpu'] = (benchlib.cpu_seconds(pid) - cpu) / scrapes
            figures[label] = (_stats(times), len(body))
        text = (gzip.decompress(body) if resp_headers.get(
            'Content-Encoding') == 'gzip' else body).decode()
        figures['samples'] = sum(
            1 for line in text.splitlines()
            if line.startswith('openstack_placement_resource_'))
    finally:
        conn.close()
    return figures


def walk(port, threads):
    """openstack-exporter's walk: list, then inventories and usages."""
    began = time.perf_counter()
    conn = Connection(port)
    status, body, _headers = conn.get('/placement/resource_providers',
                                      PLACEMENT)
    conn.close()
    if status != 200:
        raise RuntimeError('GET /resource_providers: %d' % status)
    providers = [rp['uuid'] for rp in json.loads(body)['resource_providers']]
    requests = 1
    chunks = [providers[index::threads] for index in range(threads)]

    def fetch(uuids):
        conn = Connection(port)
        done = 0
        try:
            for rp in uuids:
                for what in ('inventories', 'usages'):
                    status, body, _h = conn.get(
                        '/placement/resource_providers/%s/%s' % (rp, what),
                        PLACEMENT)
                    if status != 200:
                        raise RuntimeError('%s of %s: %d' % (what, rp,
                                                             status))
                    done += 1
        finally:
            conn.close()
        return done

    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        requests += sum(pool.map(fetch, chunks))
    return requests, time.perf_counter() - began, len(providers)


def usages_latency(port, count=300):
    """Median ms of GET of one provider's usages, keep-alive."""
    conn = Connection(port)
    try:
        status, body, _h = conn.get(
            '/placement/resource_providers?name=%s' % provider_name(1),
            PLACEMENT)
        rp = json.loads(body)['resource_providers'][0]['uuid']
        times = []
        for _ in range(count):
            began = time.perf_counter()
            conn.get('/placement/resource_providers/%s/usages' % rp,
                     PLACEMENT)
            times.append(time.perf_counter() - began)
    finally:
        conn.close()
    return statistics.median(times) * 1000.0


def breakdown(url, repeats):
    """Median ms of the parts of a scrape, in this process.

    The statement (with its rows fetched), the text, its compression.
    """
    from oslo_db.sqlalchemy import enginefacade

    from zun_hostcap.api import metrics as metrics_api
    from zun_hostcap.common import context
    from zun_hostcap.db.sqlalchemy import api as sqla_api
    from zun_hostcap.db.sqlalchemy.placement import metrics as placement_db

    facade = enginefacade.transaction_context()
    facade.configure(connection=url, **sqla_api.ENGINE_OPTIONS)
    for hook in sqla_api.ON_ENGINE_CREATE:
        facade.append_on_engine_create(hook)
    restore = sqla_api.main_context_manager.patch_factory(facade._factory)
    parts = {'statement': [], 'text': [], 'gzip': []}
    try:
        ctxt = context.get_admin_context()
        for _ in range(repeats + 1):
            began = time.perf_counter()
            rows = placement_db.capacity(ctxt)
            fetched = time.perf_counter()
            text = list(metrics_api.placement_families(rows, True))
            rendered = time.perf_counter()
            metrics_api._gzip(text)
            done = time.perf_counter()
            for name, seconds in (('statement', fetched - began),
                                  ('text', rendered - fetched),
                                  ('gzip', done - rendered)):
                parts[name].append(seconds)
    finally:
        restore()
    # The first, which warms the statement cache, left out.
    return {name: statistics.median(values[1:]) * 1000.0
            for name, values in parts.items()}


def counting_overhead(tmp, requests=20000):
    """Microseconds the request metrics add to one request, in-process.

    The counting middleware around an application that answers at once,
    against that application alone, alternated five times; the median.
    """
    from zun_hostcap.api import metrics as metrics_api
    from zun_hostcap.common import metrics

    def bare(environ, start_response):
        start_response('200 OK', [('Content-Length', '2')])
        return [b'{}']

    metrics.setup(None, directory=os.path.join(tmp, 'overhead'))
    counted = metrics_api.RequestMetrics(bare, placement_prefix='/placement')
    environ = {'REQUEST_METHOD': 'GET',
               'PATH_INFO': '/placement/resource_providers/x/usages',
               'placement.route_template': '/resource_providers/{uuid}/usages'}

    def start_response(status, headers, exc_info=None):
        pass

    def per_request(app):
        began = time.perf_counter()
        for _ in range(requests):
            app(dict(environ), start_response)
        return (time.perf_counter() - began) / requests * 1e6

    differences = []
    for _ in range(5):
        differences.append(per_request(counted) - per_request(bare))
    metrics.reset()
    return statistics.median(differences)


class SQLiteEngine(object):
    name = 'sqlite'

    def __init__(self, tmp):
        self.tmp = tmp

    def url(self):
        path = os.path.join(self.tmp, 'bench_metrics.sqlite')
        for suffix in ('', '-wal', '-shm'):
            if os.path.exists(path + suffix):
                os.unlink(path + suffix)
        return 'sqlite:///' + path

    def version(self):
        return 'SQLite %s' % sqlite3.sqlite_version

    def drop(self):
        pass


class MySQLEngine(object):
    name = 'mysql'

    def __init__(self, admin_url, prefix=DEFAULT_DATABASE_PREFIX):
        self.server = benchlib.MariaDB(admin_url)
        self.database = prefix + DATABASE

    def url(self):
        return self.server.fresh(self.database)

    def version(self):
        return self.server.version()

    def drop(self):
        self.server.drop(self.database)


def measure(engine, tmp, args):
    """{figure: value} of one engine."""
    url = engine.url()
    work = os.path.join(tmp, engine.name)
    os.makedirs(work, exist_ok=True)
    config = benchlib.write_config(os.path.join(work, 'zun-hostcap.conf'), {
        'DEFAULT': {'debug': 'false', 'state_path': work},
        'api': {'auth_strategy': 'noauth2'},
        'database': {'connection': url},
        'metrics': {'enabled': 'true'},
        'oslo_policy': {'policy_file': os.path.join(work, 'policy.yaml')},
    })
    _run(benchlib.console_script('zun-hostcap-db-manage') +
         ['--config-file', config, 'upgrade'])
    server = benchlib.WSGIServer(
        'zun-hostcap', 'zun_hostcap.wsgi.api:application', SERVER_THREADS,
        dict(os.environ, ZUN_HOSTCAP_CONFIG_FILE=config),
        os.path.join(work, 'server.log'))
    _RUNNING.add(server)
    try:
        server.start()
        conn = Connection(server.port)
        # The API writes the standard classes at its first use.
        status, _body, _h = conn.get('/placement/resource_classes',
                                     PLACEMENT)
        conn.close()
        if status != 200:
            raise RuntimeError('GET /resource_classes: %d' % status)
        began = time.perf_counter()
        load(url, args.providers)
        loaded = time.perf_counter() - began
        figures = {'load': loaded}
        # The first scrape warms the caches of both sides alike.
        scrape(server.port, 1)
        figures['scrape'] = scrape(server.port, args.scrapes,
                                   server.process.pid)
        figures['walk'] = walk(server.port, args.walk_threads)
        figures['usages_ms'] = usages_latency(server.port)
        figures['parts'] = breakdown(url, args.scrapes)
        return figures
    finally:
        server.stop()
        _RUNNING.discard(server)
        engine.drop()


def report(engine, figures, args):
    scraped = figures['scrape']
    (median, low, high), size = scraped['gzip']
    (plain, plain_low, plain_high), plain_size = scraped['identity']
    requests, seconds, providers = figures['walk']
    lines = [
        '%s: %d providers, %d Placement samples' % (
            engine.version(), providers, scraped['samples']),
        '  scrape, gzip (as Prometheus):  %7.1f ms median (%.1f-%.1f), '
        '%d bytes  [target %d ms: %s]' % (
            median * 1000, low * 1000, high * 1000, size, TARGET_MS,
            'met' if median * 1000 <= TARGET_MS else 'NOT met'),
        '  scrape, uncompressed:          %7.1f ms median (%.1f-%.1f), '
        '%d bytes' % (plain * 1000, plain_low * 1000, plain_high * 1000,
                      plain_size),
        '  API process CPU per scrape (gzip): %.0f ms (a MariaDB server\'s '
        'own not counted)' % (scraped['cpu'] * 1000),
        '  exporter walk: %d requests in %.1f s (%d threads), %.0f times '
        'the scrape' % (requests, seconds, args.walk_threads,
                        seconds / median),
        '  its parts, in-process: statement %.1f ms, text %.1f ms, gzip '
        '%.1f ms (medians)' % (figures['parts']['statement'],
                               figures['parts']['text'],
                               figures['parts']['gzip']),
        '  GET of one provider\'s usages: %.2f ms median' % (
            figures['usages_ms']),
    ]
    return '\n'.join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--providers', type=benchlib.at_least(1),
                        default=10000,
                        help='providers to load (default 10000)')
    parser.add_argument('--only', choices=('sqlite', 'mysql'),
                        help='one database engine only')
    parser.add_argument('--scrapes', type=benchlib.at_least(1),
                        default=10,
                        help='scrapes measured of each kind (default 10)')
    parser.add_argument('--walk-threads', type=benchlib.at_least(1),
                        default=4,
                        help='threads of the exporter walk (default 4)')
    parser.add_argument('--mysql-url', default=DEFAULT_MYSQL_URL,
                        help='an administrator URL of the MariaDB server '
                        '(default %(default)s)')
    parser.add_argument('--database-prefix', default=DEFAULT_DATABASE_PREFIX,
                        type=benchlib.database_prefix,
                        help='the name of the database made on MariaDB: '
                        'PREFIX + %s (default %%(default)s)' % DATABASE)
    args = parser.parse_args(argv)
    try:
        import zun_hostcap  # noqa: F401
    except ImportError:
        raise SystemExit('zun_hostcap is not importable by %s: run this '
                         'with the Python of an environment where it is '
                         'installed (e.g. .tox/functional/bin/python)' %
                         sys.executable)
    signal.signal(signal.SIGTERM, _stop_all)
    tmp = tempfile.mkdtemp(prefix='bench-metrics-')
    engines = []
    if args.only in (None, 'sqlite'):
        engines.append(SQLiteEngine(tmp))
    if args.only in (None, 'mysql'):
        engines.append(MySQLEngine(args.mysql_url, args.database_prefix))
    uname = platform.uname()
    print('zun-hostcap %s, waitress %s with %d threads, one process; '
          'machine: %d CPUs, %s %s; Python %s' % (
              benchlib.version('zun-hostcap'), benchlib.version('waitress'),
              SERVER_THREADS, os.cpu_count(), uname.system, uname.release,
              platform.python_version()), flush=True)
    try:
        for engine in engines:
            try:
                figures = measure(engine, tmp, args)
            except Exception as exc:  # noqa: B902  reported, next engine
                print('%s: failed: %s: %s' % (engine.name,
                                              type(exc).__name__, exc))
                continue
            print(report(engine, figures, args), flush=True)
        print('request metrics: %.1f us added to a request (counting '
              'middleware, in-process, median of 5)' %
              counting_overhead(tmp), flush=True)
    finally:
        _stop_all()
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
