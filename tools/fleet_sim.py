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

"""Simulate a fleet of compute hosts against a real conductor.

Each simulated host runs the real ResourceTracker, with an in-memory
os_capability driver (capabilities varied from a template), and the real
service heartbeat (``zun_hostcap.service.Service.report_state``),
against a real zun-hostcap-conductor over the configured RabbitMQ and
database. Hosts are not processes nor threads: a few worker processes each
hold a share of them, one RPC transport and client per process, and run
their updates and heartbeats from one timer queue on a small thread pool.

Every minute it prints saves/s and heartbeats/s with the p50/p99 of their
RPC times, the heartbeat lag (sending to writing, from the conductor's
log), the conductor's CPU, and how many hosts /v1/services would show
late or down (read from the database with the API's rule). See
doc/source/admin/fleet-simulator.rst.

Usage:
  python tools/fleet_sim.py --config-file sim.conf --start-conductor \\
      --hosts 10000 --duration 600
"""

import argparse
import dataclasses
import heapq
import json
import multiprocessing
import os
import queue
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time

# First: it selects oslo.service's threading backend, and quiets the
# deprecation banner of eventlet, which futurist imports when installed.
import zun_hostcap  # noqa: F401,I100

import futurist  # noqa: I100
from oslo_log import log as oslo_log
from oslo_utils import timeutils
from zun_hostcap.api.controllers.v1 import services as services_api
from zun_hostcap.common import context as zun_context
from zun_hostcap.common import rpc
from zun_hostcap.compute.container import base as container_base
from zun_hostcap.compute.container import fake as fake_containers
from zun_hostcap.compute import resource_tracker
from zun_hostcap.conductor import rpcapi as conductor_rpcapi
import zun_hostcap.conf
from zun_hostcap.db import api as db_api
from zun_hostcap.objects import base as objects_base
from zun_hostcap.os_capability import fake as fake_host
from zun_hostcap.os_capability import model
from zun_hostcap import service as zun_service

CONF = zun_hostcap.conf.CONF
COMPUTE_BINARY = 'zun-hostcap-compute'
# The conductor's heartbeat summary (zun_hostcap/conductor/heartbeats.py).
CONDUCTOR_SUMMARY = re.compile(
    r'Heartbeats written in the last \d+ s: (?P<beats>\d+) in \d+ batches '
    r'.*?lag from sending to writing p50 (?P<p50>[\d.]+) s, '
    r'p99 (?P<p99>[\d.]+) s, max (?P<max>[\d.]+) s')
# Errors kept per minute and process to be shown; the rest are counted.
ERRORS_SHOWN = 5


# Simulated hosts

def host_capabilities(index, hostname):
    """A host of the fleet: the sample host with its figures varied."""
    rng = random.Random(index)
    template = fake_host.sample_capabilities()
    sockets = rng.choice((1, 2, 2, 4))
    cores = rng.choice((4, 8, 16))
    threads = 2
    cpus = sockets * cores * threads
    cells = sockets
    per_cell = cpus // cells
    numa_cpus = {cell: tuple(range(cell * per_cell, (cell + 1) * per_cell))
                 for cell in range(cells)}
    mem_total = rng.choice((32, 64, 128, 256, 512)) * 1024 * 1024  # KiB
    mem_free = int(mem_total * rng.uniform(0.6, 0.9))
    devices = tuple(
        model.PciDevice(address='0000:%02x:00.%d' % (0x10 + n // 2, n % 2),
                        vendor_id=rng.choice(('8086', '15b3', '10de')),
                        product_id=rng.choice(('1572', '1017', '20b0')),
                        class_code=rng.choice(('020000', '030200')),
                        numa_node=n % cells, driver=None)
        for n in range(rng.randint(0, 4)))
    return dataclasses.replace(
        template,
        cpu=dataclasses.replace(
            template.cpu, cpus=cpus, online_cpus=tuple(range(cpus)),
            sockets=sockets, cores_per_socket=cores,
            threads_per_core=threads, numa_nodes=cells,
            numa_cpus=numa_cpus, usable_cpus=tuple(range(cpus))),
        memory=dataclasses.replace(
            template.memory, mem_total=mem_total, mem_free=mem_free,
            mem_available=mem_free),
        numa_topology=tuple(
            model.NumaNode(id=cell, cpus=numa_cpus[cell],
                           mem_total_kb=mem_total // cells,
                           mem_free_kb=mem_free // cells)
            for cell in range(cells)),
        pci_devices=devices,
        os=dataclasses.replace(template.os, hostname=hostname))


class SimulatedHost:
    """One compute host: its driver, its tracker and its service."""

    def __init__(self, index, hostname, conductor_api, granularity):
        self.index = index
        self.hostname = hostname
        self.driver = fake_host.FakeDriver(
            host_capabilities(index, hostname))
        self.containers = fake_containers.FakeContainerDriver()
        self.tracker = resource_tracker.ResourceTracker(
            hostname, self.driver, self.containers,
            granularity_percent=granularity)
        self.service = zun_service.Service(COMPUTE_BINARY, None,
                                           host=hostname, use_conductor=True)
        # Set, not passed: the tool also runs against releases whose
        # Service takes no conductor_api (the "before" measurements).
        self.service.conductor_api = conductor_api
        self.cycles = 0

    def report_state(self):
        beat = getattr(self.service, 'report_state', None)
        (beat or self.service._report_state)()

    def change(self):
        """Move something that is saved: free memory or the containers."""
        if self.cycles % 2:
            memory = self.driver.get_memory_info()
            step = memory.mem_total // 20   # 5%, above any granularity
            free = memory.mem_free + (step if self.cycles % 4 == 1
                                      else -step)
            self.driver.update(memory=dataclasses.replace(
                memory, mem_free=free, mem_available=free))
        else:
            running = self.containers.get_usage().running + 1
            self.containers.set_usage(container_base.ContainerUsage(
                total=running, running=running, runtimes=('runc',)))


# Figures of one worker process

class Figures:
    """What a worker did in the current minute; thread-safe."""

    def __init__(self):
        self._lock = threading.Lock()
        self.reset()
        self.hosts_started = 0
        self.hosts_saved = set()

    def reset(self):
        self.times = {'save': [], 'heartbeat': [], 'create': [],
                      'other': []}
        self.delays = []
        self.errors = 0
        self.error_samples = []

    def timed(self, kind, seconds):
        with self._lock:
            self.times[kind].append(seconds)

    def delay(self, seconds):
        with self._lock:
            self.delays.append(seconds)

    def error(self, what):
        with self._lock:
            self.errors += 1
            if len(self.error_samples) < ERRORS_SHOWN:
                self.error_samples.append(what)

    def saved(self, hostname):
        """``hostname`` saved a change of its compute node."""
        with self._lock:
            self.hosts_saved.add(hostname)

    def started(self):
        with self._lock:
            self.hosts_started += 1

    def take(self):
        """This minute's figures, as plain data; the next minute begins."""
        with self._lock:
            taken = {'times': self.times, 'delays': self.delays,
                     'errors': self.errors,
                     'error_samples': self.error_samples,
                     'hosts_started': self.hosts_started,
                     'hosts_saved': len(self.hosts_saved)}
            self.reset()
        return taken


class TimedConductorAPI(conductor_rpcapi.ConductorAPI):
    """The real conductor client, timing each RPC the hosts make."""

    KINDS = {'ComputeNode.save': 'save', 'ComputeNode.create': 'create',
             'Service.heartbeat': 'heartbeat'}

    def __init__(self, figures):
        super().__init__()
        self.figures = figures
        self._local = threading.local()

    def _timed(self, name, send, *args, **kwargs):
        kind = self.KINDS.get(name, 'other')
        if getattr(self._local, 'in_heartbeat', False):
            return send(*args, **kwargs)   # 1.0 fallback, counted outside
        started = time.perf_counter()
        try:
            result = send(*args, **kwargs)
        except Exception as err:
            # The service swallows a failed heartbeat (and logs it); an
            # update's failure is counted by the fleet.
            if kind == 'heartbeat':
                self.figures.error('%s: %s: %s' % (
                    name, type(err).__name__, str(err).split('\n')[0]))
            raise
        finally:
            self.figures.timed(kind, time.perf_counter() - started)
        if kind == 'save':
            self.figures.saved(args[1].hostname)
        return result

    def object_action(self, context, objinst, objmethod, args, kwargs):
        return self._timed('%s.%s' % (objinst.obj_name(), objmethod),
                           super().object_action, context, objinst,
                           objmethod, args, kwargs)

    def object_class_action_versions(self, context, objname, objmethod,
                                     object_versions, args, kwargs):
        return self._timed('%s.%s' % (objname, objmethod),
                           super().object_class_action_versions, context,
                           objname, objmethod, object_versions, args,
                           kwargs)

    def service_report_state(self, context, service):
        def send():
            self._local.in_heartbeat = True
            try:
                return super(TimedConductorAPI, self).service_report_state(
                    context, service)
            finally:
                self._local.in_heartbeat = False
        return self._timed('Service.heartbeat', send)


# A worker process

class Fleet:
    """The hosts of one worker process, run from one timer queue."""

    def __init__(self, hosts, args, figures, stop):
        self.hosts = hosts
        self.args = args
        self.figures = figures
        self.stop = stop
        self.context = zun_context.get_admin_context()
        self._timers = []
        self._cond = threading.Condition()
        self._sequence = 0
        self._period = max(1, round(1 / args.change_fraction)) \
            if args.change_fraction > 0 else 0
        self._pool = futurist.ThreadPoolExecutor(max_workers=args.threads)
        self._starters = futurist.ThreadPoolExecutor(
            max_workers=args.start_threads)

    def _at(self, due, what, host):
        with self._cond:
            self._sequence += 1
            heapq.heappush(self._timers, (due, self._sequence, what, host))
            self._cond.notify()

    def run(self):
        for host in self.hosts:
            self._starters.submit(self._start, host)
        while not self.stop.is_set():
            with self._cond:
                now = time.monotonic()
                due = []
                while self._timers and self._timers[0][0] <= now:
                    due.append(heapq.heappop(self._timers))
                if not due:
                    wait = (self._timers[0][0] - now) if self._timers else 1
                    self._cond.wait(min(wait, 1))
                    continue
            for when, _seq, what, host in due:
                self._pool.submit(what, host, when)
        self._starters.shutdown(wait=True)
        self._pool.shutdown(wait=True)

    def _start(self, host):
        """Register the service and create or load the compute node."""
        if self.stop.is_set():
            return
        host.report_state()   # no row yet: registers
        if host.service.service_ref is None:
            self.figures.error('%s could not register' % host.hostname)
        self._update(host)
        self.figures.started()
        now = time.monotonic()
        rng = random.Random(host.index)
        self._at(now + rng.uniform(0, self.args.report_interval),
                 self._heartbeat, host)
        self._at(now + self.args.update_interval, self._periodic_update,
                 host)

    def _heartbeat(self, host, due):
        self.figures.delay(time.monotonic() - due)
        host.report_state()
        self._at(due + self.args.report_interval, self._heartbeat, host)

    def _periodic_update(self, host, due):
        self.figures.delay(time.monotonic() - due)
        host.cycles += 1
        if self._period and (host.index + host.cycles) % self._period == 0:
            host.change()
        self._update(host)
        self._at(due + self.args.update_interval, self._periodic_update,
                 host)

    def _update(self, host):
        try:
            host.tracker.update_available_resource(self.context)
        except Exception as err:
            self.figures.error('update of %s: %s: %s' % (
                host.hostname, type(err).__name__,
                str(err).split('\n')[0]))


def _worker(number, first, count, args, started, results, stop):
    """Run hosts first..first+count-1 until ``stop``; report each minute."""
    # The configuration and the logging are the parent's (forked); a
    # compute never opens the database, nor do the simulated ones. The
    # parent stops the workers (``stop``).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    db_api.block_access('zun-hostcap-fleet-sim')
    rpc.init(CONF)
    figures = Figures()
    conductor = TimedConductorAPI(figures)
    objects_base.install_indirection_api(conductor)
    context = zun_context.get_admin_context()
    if not conductor.wait_until_ready(context, stop):
        return
    hosts = [SimulatedHost(index, _host_name(args.prefix, index),
                           conductor, args.granularity)
             for index in range(first, first + count)]
    fleet = Fleet(hosts, args, figures, stop)

    def report():
        minute = 1
        while not stop.wait(max(0, started + minute * args.period -
                                time.time())):
            results.put((minute, number, figures.take()))
            minute += 1
    reporter = threading.Thread(target=report, daemon=True)
    reporter.start()
    fleet.run()
    rpc.cleanup()


def _oslo_argv(args, name):
    argv = [name]
    for path in args.config_file:
        argv += ['--config-file', path]
    return argv


# The parent: conductor, figures, output

def _process_cpu_seconds(pid):
    """CPU seconds of ``pid`` and of its children, from /proc."""
    ticks = os.sysconf('SC_CLK_TCK')
    total = 0.0
    pids = [pid]
    for entry in os.listdir('/proc'):
        if entry.isdigit():
            try:
                with open('/proc/%s/stat' % entry) as f:
                    fields = f.read().rsplit(')', 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:   # ppid
                pids.append(int(entry))
    for one in pids:
        try:
            with open('/proc/%d/stat' % one) as f:
                fields = f.read().rsplit(')', 1)[1].split()
        except OSError:
            continue
        # utime and stime, fields 14 and 15 of stat(5).
        total += (int(fields[11]) + int(fields[12])) / ticks
    return total


def _percentiles(values, scale=1.0):
    if not values:
        return None, None
    ordered = sorted(values)

    def at(fraction):
        return scale * ordered[min(len(ordered) - 1,
                                   int(fraction * len(ordered)))]
    return at(0.5), at(0.99)


def _host_name(prefix, index):
    return '%s-%05d' % (prefix, index)


def _service_states(hostnames, report_interval):
    """(late, down, count) of the simulated hosts, as /v1/services shows."""
    context = zun_context.get_admin_context()
    late = down = count = 0
    for row in db_api.service_get_all(context):
        if row.binary != COMPUTE_BINARY or row.host not in hostnames:
            continue
        count += 1
        if services_api.state(row) == 'down':
            down += 1
        elif row.last_seen_up is None or timeutils.is_older_than(
                row.last_seen_up, 2 * report_interval):
            late += 1
    return late, down, count


def _start_conductor(args, tmp):
    """zun-hostcap-conductor as a process of its own; (Popen, log path)."""
    log = os.path.join(tmp, 'conductor.log')
    overrides = os.path.join(tmp, 'fleet-sim-conductor-overrides.conf')
    # The heartbeat summary of every minute, which the conductor logs at
    # DEBUG when nothing is late: its logger alone at DEBUG.
    levels = oslo_log.get_default_log_levels() + [
        'zun_hostcap.conductor.heartbeats=DEBUG']
    with open(overrides, 'w') as f:
        f.write('[DEFAULT]\nreport_interval = %d\ndefault_log_levels = %s\n'
                % (args.report_interval, ','.join(levels)))
    command = [sys.executable, '-c',
               'import sys; from zun_hostcap.cmd.conductor import main; '
               'sys.exit(main())']
    for path in args.config_file + [overrides]:
        command += ['--config-file', path]
    command += ['--log-file', log]
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL,
                               start_new_session=True)
    return process, log


def _stop(process, timeout=30):
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    return process.returncode


class ConductorLog:
    """Follows the conductor's log for its heartbeat summary lines."""

    def __init__(self, path):
        self.path = path
        self.offset = 0

    def latest(self):
        if not self.path or not os.path.exists(self.path):
            return None
        with open(self.path, errors='replace') as f:
            f.seek(self.offset)
            text = f.read()
            self.offset = f.tell()
        found = list(CONDUCTOR_SUMMARY.finditer(text))
        return found[-1].groupdict() if found else None


HEADER = ('%-6s %-7s %6s %8s %15s %8s %15s %15s %6s %5s %5s %6s %9s' % (
    'minute', 'phase', 'hosts', 'saves/s', 'save p50/p99 ms', 'beats/s',
    'beat p50/p99 ms', 'lag p50/p99 s', 'cond%', 'late', 'down', 'errors',
    'delay p99'))


def _line(minute, phase, merged, states, cpu, lag, period):
    save50, save99 = _percentiles(merged['times']['save'], 1000)
    beat50, beat99 = _percentiles(merged['times']['heartbeat'], 1000)
    _d50, delay99 = _percentiles(merged['delays'])

    def pair(a, b, fmt):
        return '-' if a is None else (fmt % a) + '/' + (fmt % b)
    lag_pair = ('-' if lag is None else '%s/%s' % (lag['p50'], lag['p99']))
    return '%-6d %-7s %6d %8.1f %15s %8.1f %15s %15s %6.1f %5d %5d %6d %9s' % (
        minute, phase, merged['hosts_started'],
        len(merged['times']['save']) / period,
        pair(save50, save99, '%.1f'),
        len(merged['times']['heartbeat']) / period,
        pair(beat50, beat99, '%.1f'), lag_pair, cpu,
        states[0], states[1], merged['errors'],
        '-' if delay99 is None else '%.2f s' % delay99)


def _merge(reports):
    merged = {'times': {'save': [], 'heartbeat': [], 'create': [],
                        'other': []},
              'delays': [], 'errors': 0, 'error_samples': [],
              'hosts_started': 0, 'hosts_saved': 0}
    for report in reports:
        for kind, times in report['times'].items():
            merged['times'][kind].extend(times)
        merged['delays'].extend(report['delays'])
        merged['errors'] += report['errors']
        merged['error_samples'].extend(report['error_samples'])
        merged['hosts_started'] += report['hosts_started']
        merged['hosts_saved'] += report['hosts_saved']
    return merged


def _parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--config-file', action='append', required=True,
                        help='zun-hostcap configuration: transport_url, '
                             '[database] connection, [conductor] topic')
    parser.add_argument('--hosts', type=int, default=1000)
    parser.add_argument('--duration', type=int, default=600,
                        help='seconds measured once every host started')
    parser.add_argument('--processes', type=int, default=2)
    parser.add_argument('--threads', type=int, default=16,
                        help='threads per process running updates and '
                             'heartbeats')
    parser.add_argument('--start-threads', type=int, default=8,
                        help='threads per process registering hosts')
    parser.add_argument('--update-interval', type=float, default=60)
    parser.add_argument('--report-interval', type=int, default=10)
    parser.add_argument('--change-fraction', type=float, default=0.01,
                        help='fraction of the hosts whose capabilities '
                             'change per update interval')
    parser.add_argument('--granularity', type=float, default=1.0,
                        help='[compute] usage_report_granularity')
    parser.add_argument('--prefix', default='sim',
                        help='host names are PREFIX-00000, PREFIX-00001...')
    conductor = parser.add_mutually_exclusive_group()
    conductor.add_argument('--start-conductor', action='store_true',
                           help='run a zun-hostcap-conductor with the same '
                                'configuration and stop it at the end')
    conductor.add_argument('--conductor-pid', type=int,
                           help='the running conductor, for its CPU figure')
    parser.add_argument('--conductor-log',
                        help="the running conductor's log file, for the "
                             'heartbeat lag')
    parser.add_argument('--period', type=int, default=60,
                        help='seconds per line of figures (a "minute")')
    parser.add_argument('--work-dir',
                        help='where the logs go (default: a new temporary '
                             'directory)')
    parser.add_argument('--log-file',
                        help="the simulated hosts' log (default: in a new "
                             'temporary directory)')
    parser.add_argument('--json', help='write the figures here at the end')
    return parser.parse_args(argv)


def _interrupt(signo, frame):
    raise KeyboardInterrupt()


def main(argv=None):
    args = _parse_args(sys.argv[1:] if argv is None else argv)
    # SIGTERM (and SIGINT, which a shell's background job ignores) stop the
    # run as its end does: workers and conductor stopped, figures printed.
    signal.signal(signal.SIGTERM, _interrupt)
    tmp = args.work_dir or tempfile.mkdtemp(prefix='fleet-sim-')
    os.makedirs(tmp, exist_ok=True)
    # The hosts' own log lines (a thousand "Created compute node") go to
    # a file; the figures to stdout.
    log_file = args.log_file or os.path.join(tmp, 'fleet-sim.log')
    zun_service.prepare_service(
        _oslo_argv(args, 'zun-hostcap-fleet-sim') + ['--log-file', log_file])
    CONF.set_override('report_interval', args.report_interval)
    conductor = None
    conductor_pid, conductor_log = args.conductor_pid, args.conductor_log
    if args.start_conductor:
        conductor, conductor_log = _start_conductor(args, tmp)
        conductor_pid = conductor.pid
        print('conductor pid %d, log %s' % (conductor_pid, conductor_log))
    log = ConductorLog(conductor_log)
    context = multiprocessing.get_context('fork')
    results = context.Queue()
    stop = context.Event()
    started = time.time()
    share, extra = divmod(args.hosts, args.processes)
    workers, first = [], 0
    for number in range(args.processes):
        count = share + (1 if number < extra else 0)
        worker = context.Process(target=_worker, name='fleet-sim-%d' % number,
                                 args=(number, first, count, args, started,
                                       results, stop))
        worker.start()
        workers.append(worker)
        first += count
    print('%d hosts in %d processes (pids %s); update every %g s, heartbeat '
          'every %d s, %g%% changing per update interval; log %s' % (
              args.hosts, args.processes,
              ' '.join(str(w.pid) for w in workers), args.update_interval,
              args.report_interval, 100 * args.change_fraction, log_file))
    print(HEADER, flush=True)
    minutes, pending, measured_from = [], {}, None
    # Rows of other runs with the same prefix are not this run's hosts.
    hostnames = {_host_name(args.prefix, index)
                 for index in range(args.hosts)}
    cpu_before = _process_cpu_seconds(conductor_pid) if conductor_pid else 0
    try:
        while True:
            try:
                minute, number, report = results.get(timeout=5)
            except queue.Empty:
                if not all(w.is_alive() for w in workers):
                    print('a worker process ended early', flush=True)
                    break
                continue
            pending.setdefault(minute, {})[number] = report
            if len(pending[minute]) < len(workers):
                continue
            merged = _merge(pending.pop(minute).values())
            cpu_now = (_process_cpu_seconds(conductor_pid)
                       if conductor_pid else 0)
            cpu = 100.0 * (cpu_now - cpu_before) / args.period
            cpu_before = cpu_now
            states = _service_states(hostnames, args.report_interval)
            lag = log.latest()
            if measured_from is None and merged['hosts_started'] == \
                    args.hosts:
                measured_from = minute + 1
            phase = ('measure' if measured_from and minute >= measured_from
                     else 'warm-up')
            print(_line(minute, phase, merged, states, cpu, lag,
                        args.period), flush=True)
            for sample in merged['error_samples']:
                print('    error: %s' % sample, flush=True)
            minutes.append({
                'minute': minute, 'phase': phase,
                'hosts_started': merged['hosts_started'],
                'hosts_saved': merged['hosts_saved'],
                'saves': len(merged['times']['save']),
                'creates': len(merged['times']['create']),
                'heartbeats': len(merged['times']['heartbeat']),
                'save_ms': _percentiles(merged['times']['save'], 1000),
                'heartbeat_ms': _percentiles(merged['times']['heartbeat'],
                                             1000),
                'lag_s': lag, 'conductor_cpu_percent': cpu,
                'late': states[0], 'down': states[1],
                'services': states[2], 'errors': merged['errors'],
                'error_samples': merged['error_samples']})
            if measured_from and minute >= measured_from - 1 + max(
                    1, round(args.duration / args.period)):
                break
    except KeyboardInterrupt:
        print('interrupted', flush=True)
    finally:
        stop.set()
        for worker in workers:
            worker.join(60)
            if worker.is_alive():
                os.kill(worker.pid, signal.SIGKILL)
                worker.join()
        if conductor is not None:
            status = _stop(conductor)
            print('conductor stopped with status %s' % status)
    verdict = _verdict(minutes, args)
    for line in verdict['lines']:
        print(line)
    if args.json:
        with open(args.json, 'w') as f:
            json.dump({'minutes': minutes, 'verdict': verdict,
                       'conductor_log': conductor_log}, f, indent=1)
    return 0 if verdict['ok'] else 1


def _verdict(minutes, args):
    measured = [m for m in minutes if m['phase'] == 'measure']
    lines, ok = [], bool(measured)
    if not measured:
        lines.append('FAILED: no measured minute (the hosts did not all '
                     'start)')
        return {'ok': False, 'lines': lines}
    checks = [
        ('no error', sum(m['errors'] for m in minutes) == 0),
        ('no host shown down',
         max(m['down'] for m in measured) == 0),
        ('no host late', max(m['late'] for m in measured) == 0),
        ('heartbeats arrived', all(m['heartbeats'] for m in measured)),
        ('heartbeat lag p99 under the report interval',
         all(m['lag_s'] is None or float(m['lag_s']['p99']) <
             args.report_interval for m in measured)),
    ]
    for name, passed in checks:
        ok = ok and passed
        lines.append('%s: %s' % ('met' if passed else 'MISSED', name))
    lines.append('hosts that saved a change at least once: %d of %d' % (
        measured[-1]['hosts_saved'], args.hosts))
    return {'ok': ok, 'lines': lines,
            'checks': {name: passed for name, passed in checks}}


if __name__ == '__main__':
    sys.exit(main())
