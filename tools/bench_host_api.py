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

"""Measure the Zun-compatible hosts API: GET /, /v1/hosts and a host.

One API worker: ``zun_hostcap.wsgi.api:application`` (the whole API,
as zun-hostcap-api serves it) in a process of its own, on waitress with
8 threads, noauth2, on a fresh database (SQLite file and/or MariaDB)
loaded with ``--hosts`` hosts (2 NUMA nodes and a PCI pool each, as a
compute reports them). One client, one keep-alive connection, at
microversion container 1.40 as python-zunclient sends it, measures:

- ``GET /``: the version document (no database); beside it, a
  hello-world WSGI application on the same waitress, for reference;
- ``GET /v1/hosts/``: every host in one page;
- ``GET /v1/hosts/?limit=100``: one page of 100;
- ``GET /v1/hosts/{uuid}``: one host.

Each step runs for ``--seconds`` (and at least a few requests); the
first answer of each is decoded and checked, the timed ones are read in
full. It prints the run's conditions and a table with the targets.

Run it with the Python of an environment where zun-hostcap is installed::

    .tox/functional/bin/python tools/bench_host_api.py \
        [--hosts 1000] [--only sqlite|mysql] [--seconds 5] [--profile FILE]

``--profile FILE`` profiles the server request by request (cProfile)
into FILE.<engine> and prints a summary. MariaDB is reached with
``--mysql-url`` (an administrator URL); the database ``bench_host_api``
is created and dropped. Every server is started by its own pid and
stopped by it: nothing is left running.
"""

import argparse
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
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402  (tools/ is no package)

SERVER_THREADS = 8
MICROVERSION = 'container 1.40'
TOKEN = 'admin'
DEFAULT_MYSQL_URL = os.environ.get(
    'ZUN_HOSTCAP_TEST_MYSQL_URL',
    'mysql+pymysql://openstack_citest:openstack_citest@127.0.0.1:3306/')
DATABASE = 'bench_host_api'

# (label, requests per second to reach)
STEPS = {
    'hello': ('GET / of a hello-world app (reference)', None),
    'root': ('GET / (version document)', 1000.0),
    'list': ('GET /v1/hosts/ (all hosts)', 20.0),
    'page': ('GET /v1/hosts/?limit=100', 150.0),
    'show': ('GET /v1/hosts/{uuid}', 400.0),
}


class SQLiteEngine(object):
    name = 'sqlite'

    def __init__(self, tmp):
        self.path = os.path.join(tmp, 'bench_host_api.sqlite')

    def url(self):
        for suffix in ('', '-wal', '-shm'):
            if os.path.exists(self.path + suffix):
                os.unlink(self.path + suffix)
        return 'sqlite:///' + self.path

    def version(self):
        return 'SQLite %s (file)' % sqlite3.sqlite_version

    def drop(self):
        pass


class MySQLEngine(object):
    name = 'mysql'

    def __init__(self, admin_url):
        self.server = benchlib.MariaDB(admin_url)

    def version(self):
        return '%s on %s' % (self.server.version(), benchlib.HOST)

    def url(self):
        return self.server.fresh(DATABASE)

    def drop(self):
        self.server.drop(DATABASE)


def _version_of(dist):
    return benchlib.version(dist) or '?'


def load_hosts(config, count):
    """``count`` hosts in the database of ``config``; their uuids."""
    script = r'''
import sys
from zun_hostcap.common import context
import zun_hostcap.conf
from zun_hostcap import objects
conf = zun_hostcap.conf.CONF
conf(['--config-file', sys.argv[1]], project='zun-hostcap')
objects.register_all()
ctx = context.get_admin_context()
for index in range(int(sys.argv[2])):
    node = objects.ComputeNode(
        ctx, hostname='bench-%05d.example.com' % index,
        cpus=16 + index % 4 * 16, cpu_used=float(index % 7),
        mem_total=64000, mem_free=32000 - index % 1000,
        mem_available=48000 - index % 1000, mem_buffers=100,
        mem_cached=3000, mem_used=index % 5 * 1024,
        total_containers=index % 5 + index % 4, running_containers=index % 5,
        paused_containers=0, stopped_containers=index % 4,
        architecture='x86_64', os_type='linux', os='Debian GNU/Linux 12',
        kernel_version='6.1.0-%d-amd64' % (index % 30),
        labels={'rack': 'r%02d' % (index % 40), 'zone': 'z%d' % (index % 3)},
        disk_total=1000, disk_used=index % 900,
        disk_quota_supported=bool(index % 2), enable_cpu_pinning=False,
        runtimes=['runc'] if index % 3 else ['runc', 'kata-runtime'],
        numa_topology=objects.NUMATopology(nodes=[
            objects.NUMANode(id=cell, cpuset=set(range(cell * 8,
                                                       cell * 8 + 8)),
                             pinned_cpus=set(), mem_total=32000,
                             mem_available=24000 - index % 1000)
            for cell in (0, 1)]),
        pci_device_pools=objects.PciDevicePoolList(objects=[
            objects.PciDevicePool(vendor_id='8086', product_id='1572',
                                  numa_node=0, count=2,
                                  tags={'class_code': '020000'})]))
    node.create()
    print(node.uuid)
'''
    result = subprocess.run([sys.executable, '-c', script, config,
                             str(count)], capture_output=True, text=True)
    if result.returncode:
        raise RuntimeError('loading hosts failed:\n%s' % result.stderr[-3000:])
    return result.stdout.split()


class StepError(Exception):
    pass


class Client(object):
    """One keep-alive HTTP connection."""

    def __init__(self, port):
        self.conn = http.client.HTTPConnection(benchlib.HOST, port,
                                               timeout=120)
        self.headers = {'X-Auth-Token': TOKEN,
                        'OpenStack-API-Version': MICROVERSION,
                        'Accept': 'application/json'}

    def get(self, path):
        """The body's bytes; StepError unless 200."""
        self.conn.request('GET', path, headers=self.headers)
        resp = self.conn.getresponse()
        body = resp.read()
        if resp.status != 200:
            raise StepError('GET %s -> %d %s' % (
                path, resp.status, body[:300].decode('utf-8', 'replace')))
        if resp.getheader('Connection', '').lower() == 'close':
            raise StepError('GET %s: the server closed the connection'
                            % path)
        return body

    def close(self):
        self.conn.close()


class Result(object):

    def __init__(self, latencies=(), seconds=0.0, size=0, error=None):
        self.latencies = list(latencies)
        self.seconds = seconds
        self.size = size
        self.error = error

    @property
    def rate(self):
        return len(self.latencies) / self.seconds if self.seconds else None

    @property
    def p50(self):
        return (statistics.median(self.latencies) * 1000.0
                if self.latencies else None)


def timed(client, path, check, seconds, minimum=3):
    """GET ``path`` again and again for ``seconds``; a Result."""
    try:
        first = client.get(path)
        check(json.loads(first))
        latencies = []
        start = time.perf_counter()
        while (len(latencies) < minimum or
               time.perf_counter() - start < seconds):
            began = time.perf_counter()
            body = client.get(path)
            latencies.append(time.perf_counter() - began)
            if len(body) != len(first):
                raise StepError('%s: %d bytes, then %d' % (
                    path, len(first), len(body)))
        return Result(latencies, time.perf_counter() - start, len(first))
    except (StepError, ValueError, KeyError, OSError,
            http.client.HTTPException) as exc:
        return Result(error='%s: %s' % (type(exc).__name__, exc))


def _expect(condition, message):
    if not condition:
        raise StepError(message)


def measure(engine, tmp, args):
    """Load the hosts into ``engine``, serve, measure; {step: Result}."""
    workdir = os.path.join(tmp, engine.name)
    os.makedirs(workdir)
    config = benchlib.write_config(os.path.join(workdir, 'zun-hostcap.conf'), {
        'DEFAULT': {'debug': 'false', 'state_path': workdir},
        'api': {'auth_strategy': 'noauth2'},
        'database': {'connection': engine.url()},
        'oslo_policy': {'policy_file': os.path.join(workdir,
                                                    'policy.yaml')},
    })
    subprocess.run(benchlib.console_script('zun-hostcap-db-manage') +
                   ['--config-file', config, 'upgrade'], check=True,
                   capture_output=True)
    print('  %s: loading %d hosts ...' % (engine.name, args.hosts),
          flush=True)
    uuids = load_hosts(config, args.hosts)
    env = dict(os.environ, ZUN_HOSTCAP_CONFIG_FILE=config)
    profile = ('%s.%s' % (os.path.abspath(args.profile), engine.name)
               if args.profile else None)
    results = {}
    server = benchlib.WSGIServer(
        'the API', 'zun_hostcap.wsgi.api:application', SERVER_THREADS, env,
        os.path.join(workdir, 'api.log'), profile=profile)
    try:
        server.start()
        print('  %s: serving on port %d (pid %d) ...' % (
            engine.name, server.port, server.process.pid), flush=True)
        client = Client(server.port)
        seconds = args.seconds
        results['root'] = timed(
            client, '/', lambda doc: _expect(
                doc['versions'][0]['max_version'], 'no max_version'),
            seconds)
        results['list'] = timed(
            client, '/v1/hosts/', lambda doc: _expect(
                len(doc['hosts']) == min(args.hosts, 1000),
                'listed %d hosts' % len(doc['hosts'])), seconds)
        results['page'] = timed(
            client, '/v1/hosts/?limit=100', lambda doc: _expect(
                len(doc['hosts']) == min(args.hosts, 100) and
                (doc['next'] is not None) == (args.hosts >= 100),
                'a page of %d hosts' % len(doc['hosts'])), seconds)
        show = '/v1/hosts/%s' % uuids[len(uuids) // 2]
        results['show'] = timed(
            client, show, lambda doc: _expect(
                doc['uuid'] == uuids[len(uuids) // 2], 'another host'),
            seconds)
        client.close()
    except (RuntimeError, OSError) as exc:
        for step in ('root', 'list', 'page', 'show'):
            results.setdefault(step, Result(error=str(exc)[:500]))
    finally:
        server.stop()
        engine.drop()
    return results, profile


def measure_hello(tmp, args):
    server = benchlib.WSGIServer('hello-world', 'hello', SERVER_THREADS,
                                 dict(os.environ),
                                 os.path.join(tmp, 'hello.log'))
    try:
        server.start()
        client = Client(server.port)
        result = timed(client, '/', lambda doc: None, args.seconds)
        client.close()
        return result
    finally:
        server.stop()


def conditions(args, engines):
    uname = platform.uname()
    import zun_hostcap
    return '\n'.join([
        'zun-hostcap %s from %s' % (
            _version_of('zun-hostcap'),
            os.path.dirname(os.path.dirname(zun_hostcap.__file__))),
        'machine: %d CPUs, %s %s %s; Python %s; load average %s' % (
            os.cpu_count(), uname.system, uname.release, uname.machine,
            platform.python_version(),
            ' '.join('%.2f' % x for x in os.getloadavg())),
        'server: one process, waitress %s, %d threads, '
        'zun_hostcap.wsgi.api:application, noauth2; pecan %s, WebOb %s, '
        'SQLAlchemy %s, oslo.db %s' % (
            _version_of('waitress'), SERVER_THREADS, _version_of('pecan'),
            _version_of('WebOb'), _version_of('SQLAlchemy'),
            _version_of('oslo.db')),
        'databases: %s' % ', '.join(engine.version() for engine in engines),
        'load: %d hosts, 2 NUMA nodes and a PCI pool each' % args.hosts,
        'client: one keep-alive http.client connection, %s, token admin; '
        'each step %.0f s' % (MICROVERSION, args.seconds),
    ])


def _fmt(value, width, digits):
    return ('-' if value is None else '%.*f' % (digits, value)).rjust(width)


def table(rows):
    head = '%-7s %-40s %9s %9s %10s %s' % (
        'engine', 'step', 'req/s', 'p50 ms', 'bytes', 'target')
    lines = [head, '-' * len(head)]
    errors = []
    for engine, step, result in rows:
        label, target = STEPS[step]
        verdict = '-'
        if result.error:
            verdict = 'FAIL'
            errors.append('%s %s: %s' % (engine, label, result.error))
        elif target:
            verdict = '>= %d/s %s' % (target, 'ok' if result.rate >= target
                                      else 'MISS')
        lines.append('%-7s %-40s %9s %9s %10s %s' % (
            engine, label, _fmt(result.rate, 9, 1), _fmt(result.p50, 9, 2),
            result.size or '-', verdict))
    return '\n'.join(lines + ([''] + errors if errors else []))


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--hosts', type=benchlib.at_least(100), default=1000,
                        help='hosts to load (default 1000)')
    parser.add_argument('--only', choices=('sqlite', 'mysql'),
                        help='one database engine only')
    parser.add_argument('--seconds', type=float, default=5.0,
                        help='how long each step runs (default 5)')
    parser.add_argument('--mysql-url', default=DEFAULT_MYSQL_URL,
                        help='administrator URL of MariaDB (default '
                        '%(default)s)')
    parser.add_argument('--profile', metavar='FILE',
                        help='profile the API server into FILE.<engine>')
    parser.add_argument('--keep', action='store_true',
                        help='keep the work directory (logs, configs)')
    args = parser.parse_args(argv)

    def stop(signo, frame):
        raise SystemExit(128 + signo)
    signal.signal(signal.SIGTERM, stop)
    tmp = tempfile.mkdtemp(prefix='bench-host-api-')
    engines = []
    if args.only in (None, 'sqlite'):
        engines.append(SQLiteEngine(tmp))
    if args.only in (None, 'mysql'):
        engines.append(MySQLEngine(args.mysql_url))
    rows = []
    profiles = []
    try:
        print('hello-world reference ...', flush=True)
        rows.append(('-', 'hello', measure_hello(tmp, args)))
        for engine in engines:
            results, profile = measure(engine, tmp, args)
            profiles.append(profile)
            for step in ('root', 'list', 'page', 'show'):
                rows.append((engine.name, step, results[step]))
        print()
        print(conditions(args, engines))
        print()
        print(table(rows))
        for profile in profiles:
            benchlib.print_profile(profile, 'the API server')
    finally:
        if args.keep:
            print('work directory: %s' % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return 1 if any(result.error for _, _, result in rows) else 0


if __name__ == '__main__':
    sys.exit(main())
