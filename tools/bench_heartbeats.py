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

"""Heartbeats per second one zun-hostcap-conductor writes at saturation.

Starts a conductor with the given configuration (a MariaDB database with
the schema, a RabbitMQ virtual host), registers ``--services`` compute
services from this process (as zun-hostcap-compute does: object calls
through the conductor) and then, with the real heartbeat code
(``Service.report_state``):

call   ``--threads`` threads beat as fast as they can for ``--seconds``;
       the rate of what they sent and of what the database got. With a
       conductor RPC API of 1.0 (before 1.1, or [upgrade_levels]
       conductor = 1.0) each heartbeat is a call: the senders wait.
drain  the conductor is stopped, ``--beats`` heartbeats are cast into
       its queue, and it is started again: the rate at which it writes
       them, with nothing else running (the conductor's own capacity).

Runs against older trees too (PYTHONPATH=<tree>), for before/after
figures. Usage:
  python tools/bench_heartbeats.py --config-file bench.conf --mode call
"""

import argparse
import os
import sys
import tempfile
import threading
import time

import sqlalchemy as sa

import zun_hostcap  # noqa: F401  selects oslo.service's threading backend
from zun_hostcap.common import context as zun_context
from zun_hostcap.common import rpc
from zun_hostcap.conductor import rpcapi as conductor_rpcapi
import zun_hostcap.conf
from zun_hostcap.db.sqlalchemy import api as sqla_api
from zun_hostcap.objects import base as objects_base
from zun_hostcap import service as zun_service

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fleet_sim  # noqa: E402,I202  (tools/ is no package)

CONF = zun_hostcap.conf.CONF
BINARY = 'zun-hostcap-compute'


def _beats_written(prefix):
    with sqla_api.get_engine().connect() as conn:
        return int(conn.execute(sa.text(
            'SELECT COALESCE(SUM(report_count), 0) FROM services '
            'WHERE host LIKE :p'), {'p': prefix + '-%'}).scalar())


def _beat(svc):
    (getattr(svc, 'report_state', None) or svc._report_state)()


def _run_threads(threads, target):
    workers = [threading.Thread(target=target, args=(n,))
               for n in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()


def _register(services, threads):
    def register(number):
        for svc in services[number::threads]:
            _beat(svc)   # no row yet: registers
            if svc.service_ref is None:
                raise SystemExit('%s could not register' % svc.host)
    _run_threads(threads, register)


def _send(services, threads, until=None, beats=None):
    """Beat round-robin until ``until`` (monotonic) or ``beats`` sent."""
    sent = [0] * threads

    def send(number):
        mine = services[number::threads]
        quota = None if beats is None else beats // threads
        n = 0
        while True:
            if until is not None and time.monotonic() >= until:
                break
            if quota is not None and n >= quota:
                break
            _beat(mine[n % len(mine)])
            n += 1
        sent[number] = n
    _run_threads(threads, send)
    return sum(sent)


def _wait_written(prefix, target, stall=15):
    """Poll until ``target`` beats are written; (first, last, count)."""
    first = last = None
    count = _beats_written(prefix)
    start_count = count
    stalled_since = time.monotonic()
    while count < target and time.monotonic() - stalled_since < stall:
        time.sleep(0.1)
        now_count = _beats_written(prefix)
        now = time.monotonic()
        if now_count != count:
            if first is None:
                first = now
                start_count = count
            last = now
            stalled_since = now
            count = now_count
    return first, last, count, start_count


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--config-file', action='append', required=True)
    parser.add_argument('--mode', choices=('call', 'drain'), default='call')
    parser.add_argument('--services', type=int, default=1000)
    parser.add_argument('--threads', type=int, default=32)
    parser.add_argument('--seconds', type=int, default=30)
    parser.add_argument('--beats', type=int, default=60000)
    parser.add_argument('--prefix', default='bench')
    args = parser.parse_args()
    # Casts wait in RabbitMQ for report_interval; the drain needs longer.
    args.report_interval = 3600
    tmp = tempfile.mkdtemp(prefix='bench-heartbeats-')
    zun_service.prepare_service(
        ['bench-heartbeats', '--log-file', os.path.join(tmp, 'bench.log')] +
        [opt for path in args.config_file
         for opt in ('--config-file', path)])
    CONF.set_override('report_interval', args.report_interval)
    conductor, conductor_log = fleet_sim._start_conductor(args, tmp)
    print('conductor pid %d, log %s' % (conductor.pid, conductor_log))
    try:
        rpc.init(CONF)
        api = conductor_rpcapi.ConductorAPI()
        objects_base.install_indirection_api(api)
        api.wait_until_ready(zun_context.get_admin_context())
        services = []
        for number in range(args.services):
            svc = zun_service.Service(BINARY, None, use_conductor=True,
                                      host='%s-%05d' % (args.prefix, number))
            svc.conductor_api = api
            services.append(svc)
        _register(services, min(args.threads, 16))
        print('%d services registered; RPC API %s, cap %s' % (
            len(services), getattr(api, 'RPC_API_VERSION', '?'),
            CONF.upgrade_levels.conductor))
        before = _beats_written(args.prefix)
        if args.mode == 'call':
            cpu0 = fleet_sim._process_cpu_seconds(conductor.pid)
            started = time.monotonic()
            sent = _send(services, args.threads,
                         until=started + args.seconds)
            elapsed = time.monotonic() - started
            written_in_window = _beats_written(args.prefix) - before
            cpu = fleet_sim._process_cpu_seconds(conductor.pid) - cpu0
            first, last, count, _s = _wait_written(args.prefix,
                                                   before + sent)
            drained = time.monotonic() - started
            print('call mode, %d threads, %.1f s: sent %d (%.0f/s); '
                  'written during the window %d (%.0f/s), all %d written '
                  'after %.1f s (%.0f/s); conductor CPU %.0f%% during '
                  'the window' % (
                      args.threads, elapsed, sent, sent / elapsed,
                      written_in_window, written_in_window / elapsed,
                      count - before, drained,
                      (count - before) / drained, 100 * cpu / elapsed))
        else:
            fleet_sim._stop(conductor)
            started = time.monotonic()
            sent = _send(services, args.threads, beats=args.beats)
            print('conductor stopped; %d heartbeats cast in %.1f s '
                  '(%.0f/s)' % (sent, time.monotonic() - started,
                                sent / (time.monotonic() - started)))
            conductor, conductor_log = fleet_sim._start_conductor(args, tmp)
            cpu0 = fleet_sim._process_cpu_seconds(conductor.pid)
            first, last, count, start_count = _wait_written(
                args.prefix, before + sent)
            cpu = fleet_sim._process_cpu_seconds(conductor.pid) - cpu0
            if first is None:
                print('nothing was written')
                return 1
            # The first poll that saw a change ends the first interval.
            elapsed = max(last - first, 0.001)
            print('drain: %d of %d written in %.1f s: %.0f heartbeats/s; '
                  'conductor CPU %.1f s (from its start)' % (
                      count - before, sent, elapsed,
                      (count - start_count) / elapsed, cpu))
    finally:
        fleet_sim._stop(conductor)
        rpc.cleanup()
    return 0


if __name__ == '__main__':
    sys.exit(main())
