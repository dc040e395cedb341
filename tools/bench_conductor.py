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

"""Measure ComputeNode.save() through one zun-hostcap-conductor.

What a fleet of compute services costs the conductor: one
``zun-hostcap-conductor`` process (RabbitMQ and MariaDB on 127.0.0.1, a
virtual host and a database of the run's own), and this process as the
computes: object indirection through the conductor's RPC API, the
database blocked, as in zun-hostcap-compute. Each save changes what a
memory move changes (MemFree, MemAvailable and a NUMA node's available
memory), so the nested NUMA topology goes over the wire and back.

Two steps: saves one at a time (latency of one call), then ``--savers``
threads saving at once, each its own host (the conductor's throughput).
It prints p50/p99, the rate and the conductor's CPU time per save.

Run it with the Python of an environment where zun-hostcap is installed::

    .tox/functional/bin/python tools/bench_conductor.py \
        [--serial 300] [--savers 32] [--per-saver 30] \
        [--notifications] [--profile FILE]

``--profile FILE`` profiles every thread of the conductor (cProfile)
and prints where its time goes. The conductor is started by its own pid
and stopped by it; the virtual host and the database are deleted at the
end: nothing is left behind.
"""

import argparse
import functools
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402  (tools/ is no package)

DEFAULT_MYSQL_URL = os.environ.get(
    'ZUN_HOSTCAP_TEST_MYSQL_URL',
    'mysql+pymysql://openstack_citest:openstack_citest@127.0.0.1:3306/')
DEFAULT_RABBIT_URL = os.environ.get(
    'ZUN_HOSTCAP_TEST_TRANSPORT_URL', 'rabbit://guest:guest@127.0.0.1:5672/')
DATABASE = 'bench_conductor'

TARGET_SATURATION = 300.0   # saves/s with the concurrent savers

# The conductor as the console script runs it, optionally with every
# thread profiled (cProfile: one profile per thread, merged and written
# when the file named <profile>.dump appears). The profiles count each
# thread's CPU time, not wall time: with 2 cores and dozens of threads,
# wall time mostly measures the wait for the GIL.
SERVE = r'''
import cProfile, os, pstats, sys, threading, time
config, profile = sys.argv[1:3]
profiles = []
if profile:
    lock = threading.Lock()
    def start(frame, event, arg):
        prof = cProfile.Profile(time.thread_time)
        with lock:
            profiles.append(prof)
        prof.enable()
    threading.setprofile(start)
    def dump():
        while not os.path.exists(profile + '.dump'):
            time.sleep(0.2)
        with lock:
            stats = None
            for prof in profiles:
                prof.disable()
                try:
                    prof.create_stats()
                except Exception:
                    continue
                if not prof.stats:
                    continue
                if stats is None:
                    stats = pstats.Stats(prof)
                else:
                    stats.add(prof)
        if stats is not None:
            stats.dump_stats(profile + '.tmp')
            os.rename(profile + '.tmp', profile)
    threading.Thread(target=dump, daemon=True).start()
from zun_hostcap.cmd import conductor
sys.exit(conductor.main(['zun-hostcap-conductor', '--config-file', config]))
'''


def _version(dist):
    return benchlib.version(dist) or '?'


def rabbitmqctl(*args):
    result = subprocess.run(['rabbitmqctl'] + list(args),
                            capture_output=True, text=True, timeout=120)
    if result.returncode:
        raise RuntimeError('rabbitmqctl %s: %s%s' % (
            ' '.join(args), result.stdout, result.stderr))
    return result.stdout


class Vhost(object):
    """A RabbitMQ virtual host of the run's own, deleted at the end."""

    def __init__(self, base_url):
        self.base_url = base_url
        self.name = None

    def create(self):
        parsed = urllib.parse.urlsplit(self.base_url)
        if not shutil.which('rabbitmqctl'):
            # The default virtual host, with an exchange of our own.
            return self.base_url
        self.name = 'bench-conductor-%s' % uuid.uuid4().hex[:8]
        rabbitmqctl('add_vhost', self.name)
        rabbitmqctl('set_permissions', '-p', self.name,
                    urllib.parse.unquote(parsed.username or 'guest'),
                    '.*', '.*', '.*')
        return urllib.parse.urlunsplit(parsed._replace(
            path='/' + urllib.parse.quote(self.name, safe='')))

    def delete(self):
        if self.name:
            rabbitmqctl('delete_vhost', self.name)
            self.name = None


class Database(object):
    """A fresh MariaDB database, dropped at the end."""

    def __init__(self, admin_url):
        self.server = benchlib.MariaDB(admin_url)

    def version(self):
        return self.server.version()

    def create(self):
        return self.server.fresh(DATABASE)

    def drop(self):
        self.server.drop(DATABASE)


class Conductor(benchlib.Process):
    """zun-hostcap-conductor in a process of its own, stopped by its pid."""

    def __init__(self, config, log_path, profile=None):
        super().__init__('zun-hostcap-conductor',
                         [sys.executable, '-c', SERVE, config, profile or ''],
                         log_path)
        self.profile = profile

    def cpu_seconds(self):
        """User + system CPU time of the conductor so far (and workers)."""
        ticks = os.sysconf('SC_CLK_TCK')
        total = 0
        for pid in [self.process.pid] + self._children():
            try:
                with open('/proc/%d/stat' % pid) as f:
                    fields = f.read().rsplit(')', 1)[1].split()
            except OSError:
                continue
            total += int(fields[11]) + int(fields[12])
        return total / ticks

    def _children(self):
        """The pids of the worker processes (descendants of ours)."""
        parents = {}
        for entry in os.listdir('/proc'):
            if not entry.isdigit():
                continue
            try:
                with open('/proc/%s/stat' % entry) as f:
                    ppid = int(f.read().rsplit(')', 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            parents.setdefault(ppid, []).append(int(entry))
        found, todo = [], [self.process.pid]
        while todo:
            children = parents.get(todo.pop(), [])
            found.extend(children)
            todo.extend(children)
        return found

    def threads(self):
        return len(os.listdir('/proc/%d/task' % self.process.pid))

    def dump_profile(self, timeout=60):
        if not self.profile:
            return None
        open(self.profile + '.dump', 'w').close()
        deadline = time.monotonic() + timeout
        while not os.path.exists(self.profile):
            if time.monotonic() > deadline:
                return None
            time.sleep(0.2)
        os.unlink(self.profile + '.dump')
        return self.profile

    def stop(self, timeout=30):
        super().stop(timeout)


def make_node(objects, context, index):
    """A host of 2 NUMA nodes and a PCI pool, as a compute reports it."""
    return objects.ComputeNode(
        context, hostname='bench-%05d' % index, cpus=16, cpu_used=0.0,
        mem_total=64000, mem_free=32000, mem_available=48000,
        mem_buffers=100, mem_cached=3000, mem_used=0, total_containers=0,
        running_containers=0, paused_containers=0, stopped_containers=0,
        architecture='x86_64', os_type='linux', os='Debian GNU/Linux 12',
        kernel_version='6.1.0', labels={'rack': 'r%d' % (index % 8)},
        disk_total=1000, disk_used=100, disk_quota_supported=False,
        enable_cpu_pinning=False, runtimes=['runc'],
        numa_topology=objects.NUMATopology(nodes=[
            objects.NUMANode(id=cell, cpuset=set(range(cell * 8,
                                                       cell * 8 + 8)),
                             pinned_cpus=set(), mem_total=32000,
                             mem_available=24000)
            for cell in (0, 1)]),
        pci_device_pools=objects.PciDevicePoolList(objects=[
            objects.PciDevicePool(vendor_id='8086', product_id='1572',
                                  numa_node=0, count=2,
                                  tags={'class_code': '020000'})]))


def connect(config):
    """This process as a compute: objects through the conductor."""
    from zun_hostcap.common import rpc
    from zun_hostcap.conductor import rpcapi
    import zun_hostcap.conf
    from zun_hostcap.db import api as db_api
    from zun_hostcap import objects
    from zun_hostcap.objects import base as objects_base

    conf = zun_hostcap.conf.CONF
    conf(['--config-file', config], project='zun-hostcap')
    objects.register_all()
    rpc.init(conf)
    conductor = rpcapi.ConductorAPI()
    objects_base.install_indirection_api(conductor)
    db_api.block_access('bench-conductor client')
    return conductor


class Saver(object):
    """One host's saves: each moves its memory figures."""

    def __init__(self, node):
        self.node = node
        self.count = 0

    def save(self):
        self.count += 1
        node = self.node
        node.mem_free = 20000 + self.count % 10000
        node.mem_available = 30000 + self.count % 10000
        node.numa_topology.nodes[self.count % 2].mem_available = (
            10000 + self.count % 10000)
        node.save()
        if node.obj_what_changed():
            raise RuntimeError('saved, but still changed: %s' %
                               node.obj_what_changed())


class Result(object):

    def __init__(self, latencies, seconds, cpu):
        self.latencies = latencies
        self.seconds = seconds
        self.cpu = cpu

    @property
    def rate(self):
        return len(self.latencies) / self.seconds

    def percentile(self, pct):
        ordered = sorted(self.latencies)
        index = min(len(ordered) - 1, int(round(pct / 100.0 *
                                                (len(ordered) - 1))))
        return ordered[index] * 1000.0

    @property
    def p50(self):
        return statistics.median(self.latencies) * 1000.0

    @property
    def cpu_per_save(self):
        return self.cpu / len(self.latencies) * 1000.0


def serial(conductor, saver, count):
    for _ in range(5):
        saver.save()   # warm up
    latencies = []
    cpu = conductor.cpu_seconds()
    start = time.perf_counter()
    for _ in range(count):
        began = time.perf_counter()
        saver.save()
        latencies.append(time.perf_counter() - began)
    seconds = time.perf_counter() - start
    return Result(latencies, seconds, conductor.cpu_seconds() - cpu)


def pings(conductor, api, context, count):
    """RPC calls that do nothing: the floor of oslo.messaging's cost."""
    cctxt = api.client.prepare()
    for _ in range(5):
        cctxt.call(context, 'ping')
    latencies = []
    cpu = conductor.cpu_seconds()
    start = time.perf_counter()
    for _ in range(count):
        began = time.perf_counter()
        cctxt.call(context, 'ping')
        latencies.append(time.perf_counter() - began)
    seconds = time.perf_counter() - start
    return Result(latencies, seconds, conductor.cpu_seconds() - cpu)


def concurrent(conductor, savers, per_saver):
    """Each of ``savers`` (callables) called ``per_saver`` times at once."""
    latencies = [[] for _ in savers]
    errors = []
    barrier = threading.Barrier(len(savers) + 1)

    def run(index):
        saver = savers[index]
        try:
            saver()   # warm up
        except Exception as exc:   # noqa: B902  reported below
            errors.append(exc)
        barrier.wait()
        for _ in range(per_saver):
            began = time.perf_counter()
            try:
                saver()
            except Exception as exc:   # noqa: B902  reported below
                errors.append(exc)
                continue
            latencies[index].append(time.perf_counter() - began)

    threads = [threading.Thread(target=run, args=(i,))
               for i in range(len(savers))]
    for thread in threads:
        thread.start()
    barrier.wait()
    cpu = conductor.cpu_seconds()
    start = time.perf_counter()
    for thread in threads:
        thread.join()
    seconds = time.perf_counter() - start
    result = Result([lat for lats in latencies for lat in lats], seconds,
                    conductor.cpu_seconds() - cpu)
    result.errors = errors
    return result


def conditions(args, database, conductor):
    uname = platform.uname()
    return '\n'.join([
        'zun-hostcap %s from %s' % (_version('zun-hostcap'),
                                    os.path.dirname(os.path.dirname(
                                        __import__('zun_hostcap').__file__))),
        'machine: %d CPUs, %s %s %s; Python %s; load average %s' % (
            os.cpu_count(), uname.system, uname.release, uname.machine,
            platform.python_version(),
            ' '.join('%.2f' % x for x in os.getloadavg())),
        'conductor: %s (%d threads), oslo.messaging %s (rabbit, '
        'threading executor), SQLAlchemy %s, oslo.db %s, PyMySQL %s' % (
            'one process' if args.workers == 1 else
            '%d worker processes' % args.workers,
            conductor.threads(), _version('oslo.messaging'),
            _version('SQLAlchemy'), _version('oslo.db'),
            _version('PyMySQL')),
        'database: %s on %s; RabbitMQ on %s (virtual host of the run)' % (
            database.version(), benchlib.HOST, benchlib.HOST),
        'notifications: %s' % ('versioned, messagingv2 driver'
                               if args.notifications else
                               'off (no driver: the default)'),
        'client: this process as %d computes, object indirection, one '
        'host each; each save changes MemFree, MemAvailable and one NUMA '
        "node's available memory" % args.savers,
    ])


def table(results):
    head = '%-50s %8s %8s %8s %10s %8s %s' % (
        'step', 'calls', 'p50 ms', 'p99 ms', 'calls/s', 'cpu ms',
        'target')
    lines = [head, '-' * len(head)]
    for label, result, target in results:
        verdict = '-'
        if target:
            verdict = '>= %d/s %s' % (target, 'ok' if result.rate >= target
                                      else 'MISS')
        lines.append('%-50s %8d %8.1f %8.1f %10.1f %8.2f %s' % (
            label, len(result.latencies), result.p50,
            result.percentile(99), result.rate, result.cpu_per_save,
            verdict))
    lines.append('(cpu ms: CPU time of the conductor process per call)')
    return '\n'.join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--serial', type=int, default=300,
                        help='saves one at a time (default 300)')
    parser.add_argument('--savers', type=int, default=32,
                        help='concurrent savers (default 32)')
    parser.add_argument('--per-saver', type=int, default=30,
                        help='saves of each concurrent saver (default 30)')
    parser.add_argument('--workers', type=int, default=1,
                        help='conductor worker processes ([conductor] '
                        'workers, default 1)')
    parser.add_argument('--notifications', action='store_true',
                        help='send versioned notifications (messagingv2)')
    parser.add_argument('--mysql-url', default=DEFAULT_MYSQL_URL,
                        help='administrator URL of MariaDB (default '
                        '%(default)s)')
    parser.add_argument('--transport-url', default=DEFAULT_RABBIT_URL,
                        help='RabbitMQ (default %(default)s)')
    parser.add_argument('--profile', metavar='FILE',
                        help='profile the conductor into FILE and print '
                        'a summary')
    parser.add_argument('--keep', action='store_true',
                        help='keep the work directory (logs, configs)')
    args = parser.parse_args(argv)
    if min(args.serial, args.savers, args.per_saver, args.workers) < 1:
        parser.error('--serial, --savers, --per-saver and --workers must '
                     'be >= 1')

    tmp = tempfile.mkdtemp(prefix='bench-conductor-')
    vhost = Vhost(args.transport_url)
    database = Database(args.mysql_url)
    conductor = None
    results = []

    def stop(signo, frame):
        raise SystemExit(128 + signo)
    signal.signal(signal.SIGTERM, stop)
    try:
        transport_url = vhost.create()
        db_url = database.create()
        suffix = uuid.uuid4().hex[:8]
        common = {
            'DEFAULT': {'transport_url': transport_url,
                        'control_exchange': 'bench-%s' % suffix,
                        'state_path': tmp, 'debug': 'false',
                        'host': 'bench-conductor'},
            'conductor': {'topic': 'bench-conductor-%s' % suffix,
                          'workers': args.workers},
            'notifications': {'notification_format':
                              'versioned' if args.notifications
                              else 'none'},
        }
        if args.notifications:
            common['oslo_messaging_notifications'] = {
                'driver': 'messagingv2'}
        server_conf = benchlib.write_config(
            os.path.join(tmp, 'conductor.conf'),
            dict(common, database={'connection': db_url}))
        client_conf = benchlib.write_config(
            os.path.join(tmp, 'client.conf'), common)
        subprocess.run(benchlib.console_script('zun-hostcap-db-manage') +
                       ['--config-file', server_conf, 'upgrade'],
                       check=True, capture_output=True)
        profile = os.path.abspath(args.profile) if args.profile else None
        if profile and os.path.exists(profile):
            os.unlink(profile)
        conductor = Conductor(server_conf,
                              os.path.join(tmp, 'conductor.log'), profile)
        conductor.start()
        api = connect(client_conf)

        from zun_hostcap.common import context
        from zun_hostcap import objects
        ctx = context.get_admin_context()
        if not api.wait_until_ready(ctx):
            raise SystemExit('the conductor did not answer')
        print('conductor pid %d; creating %d hosts ...' % (
            conductor.process.pid, args.savers), flush=True)
        savers = []
        for index in range(args.savers):
            node = make_node(objects, ctx, index)
            node.create()
            savers.append(Saver(node))

        print('pings ...', flush=True)
        results.append(('RPC ping (no object, no database), for '
                        'reference', pings(conductor, api, ctx, args.serial),
                        None))
        print('saves one at a time ...', flush=True)
        results.append(('ComputeNode.save(), one at a time',
                        serial(conductor, savers[0], args.serial), None))
        print('%d concurrent pingers ...' % args.savers, flush=True)
        cctxt = api.client.prepare()
        results.append(('RPC ping, %d concurrent callers, for reference' %
                        args.savers, concurrent(
                            conductor, [functools.partial(
                                cctxt.call, ctx, 'ping')] * args.savers,
                            args.per_saver), None))
        print('%d concurrent savers ...' % args.savers, flush=True)
        result = concurrent(conductor, [saver.save for saver in savers],
                            args.per_saver)
        results.append(('ComputeNode.save(), %d concurrent savers' %
                        args.savers, result, TARGET_SATURATION))
        print()
        print(conditions(args, database, conductor))
        print()
        print(table(results))
        if result.errors:
            print('\n%d saves failed, e.g. %r' % (
                len(result.errors), result.errors[0]))
        if profile:
            benchlib.print_profile(conductor.dump_profile() or profile,
                                   'the conductor, CPU time of every thread')
    finally:
        if conductor is not None:
            conductor.stop()
        from zun_hostcap.common import rpc
        rpc.cleanup()
        try:
            vhost.delete()
        finally:
            database.drop()
        if args.keep:
            print('work directory: %s' % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
