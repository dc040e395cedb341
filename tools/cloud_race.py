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

"""The allocation race across Galera writers: zun-hostcap and Placement.

On a lab that is up (``tools/cloud_lab.py up --dir DIR``): THREADS
client threads x ROUNDS rounds, each thread asking for 1 VCPU of one
provider of 10 VCPU at once, spread over two API servers that each
write to their own Galera node (multi-writer). First zun-hostcap's two
replicas; then two openstack-placement 16.0 servers
(``tools/placement_peer.py serve``) on a database of their own on the
same cluster, one on node 1, one on node 2. For each: VCPU taken per
round (10 is exact; more is an over-allocation), refusals, 5xx, the
usage read on every node, and the seconds per round. Not a test: the
figures go into doc/source/admin/high-availability.rst.

Usage:
  python tools/cloud_race.py --dir DIR [--threads 50] [--rounds 5]
"""

import argparse
import collections
import http.client
import json
import os
import sys
import threading
import time
import uuid

import sqlalchemy as sa

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402  (tools/ is no package)
import placement_peer  # noqa: E402

from zun_hostcap.tests.functional import cloud  # noqa: E402

VCPU = 10
MICROVERSION = 'placement 1.39'
PLACEMENT_DATABASE = 'placement_race'


def call(conn, method, path, body=None):
    headers = {'X-Auth-Token': 'admin', 'Accept': 'application/json',
               'OpenStack-API-Version': MICROVERSION}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers['Content-Type'] = 'application/json'
    conn.request(method, path, body=data, headers=headers)
    resp = conn.getresponse()
    payload = resp.read()
    doc = json.loads(payload) if payload and resp.getheader(
        'Content-Type', '').startswith('application/json') else None
    return resp.status, doc


def connect(url):
    host, port = url.split('//')[1].split(':')
    return http.client.HTTPConnection(host, int(port), timeout=120)


def provider(url, prefix):
    conn = connect(url)
    rp_uuid = str(uuid.uuid4())
    status, doc = call(conn, 'POST', prefix + '/resource_providers',
                       {'name': 'race-%s' % rp_uuid[:8], 'uuid': rp_uuid})
    assert status == 200, (status, doc)
    status, doc = call(
        conn, 'PUT', prefix + '/resource_providers/%s/inventories' % rp_uuid,
        {'resource_provider_generation': doc['generation'],
         'inventories': {'VCPU': {'total': VCPU}}})
    assert status == 200, (status, doc)
    conn.close()
    return rp_uuid


def race_round(urls, prefix, rp_uuid, threads):
    """``threads`` PUTs of 1 VCPU at once, over ``urls``; [(status, id)]."""
    barrier = threading.Barrier(threads)
    answers = []
    lock = threading.Lock()

    def run(number):
        conn = connect(urls[number % len(urls)])
        consumer = str(uuid.uuid4())
        try:
            call(conn, 'GET', prefix + '/')
            barrier.wait(60)
            status, _doc = call(
                conn, 'PUT', prefix + '/allocations/%s' % consumer,
                {'allocations': {rp_uuid: {'resources': {'VCPU': 1}}},
                 'project_id': 'race', 'user_id': 'race',
                 'consumer_generation': None, 'consumer_type': 'INSTANCE'})
        except (OSError, http.client.HTTPException):
            status = 0
        finally:
            conn.close()
        with lock:
            answers.append((status, consumer))
    workers = [threading.Thread(target=run, args=(n,))
               for n in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return answers


def node_used(url, rp_uuid):
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as conn:
            conn.execute(sa.text('SET SESSION wsrep_sync_wait = 1'))
            return int(conn.execute(sa.text(
                'SELECT COALESCE(SUM(a.used), 0) FROM allocations a JOIN '
                'resource_providers rp ON rp.id = a.resource_provider_id '
                'WHERE rp.uuid = :uuid'), {'uuid': rp_uuid}).scalar())
    finally:
        engine.dispose()


def race(name, urls, prefix, node_urls, threads, rounds):
    rp_uuid = provider(urls[0], prefix)
    taken, statuses, used, seconds = [], collections.Counter(), [], []
    for _ in range(rounds):
        started = time.monotonic()
        answers = race_round(urls, prefix, rp_uuid, threads)
        seconds.append(time.monotonic() - started)
        statuses.update(status for status, _ in answers)
        won = [consumer for status, consumer in answers if status == 204]
        taken.append(len(won))
        used.append([node_used(url, rp_uuid) for url in node_urls])
        conn = connect(urls[0])
        for consumer in won:
            call(conn, 'DELETE', prefix + '/allocations/%s' % consumer)
        conn.close()
    print('%-12s taken per round %s (exact: %d); answers %s; used on the '
          'nodes %s; %.2f s per round' % (
              name, taken, VCPU, dict(sorted(statuses.items())), used,
              sum(seconds) / len(seconds)), flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--dir', required=True, help="the lab's directory")
    parser.add_argument('--threads', type=int, default=50)
    parser.add_argument('--rounds', type=int, default=5)
    parser.add_argument('--cache-dir', default=benchlib.CACHE_DIR)
    args = parser.parse_args(argv)
    lab = cloud.Lab(args.dir)
    summary = lab.summary()
    nodes = lab.galera[:2]
    print('load average %s' % ' '.join(
        '%.1f' % value for value in os.getloadavg()))
    race('zun-hostcap', summary['api'], '/placement',
         [node.url() for node in lab.galera], args.threads, args.rounds)
    lab.galera[0].query('DROP DATABASE IF EXISTS %s' % PLACEMENT_DATABASE)
    lab.galera[0].query('CREATE DATABASE %s' % PLACEMENT_DATABASE)
    servers = []
    try:
        for node in nodes:
            url = node.url().replace('/%s?' % cloud.DATABASE,
                                     '/%s?' % PLACEMENT_DATABASE)
            state = os.path.join(lab.dir, 'placement-%s' % node.name)
            os.makedirs(state, exist_ok=True)
            port = benchlib.free_port()
            server = benchlib.Process(
                'placement-%s' % node.name,
                [sys.executable, os.path.join(os.path.dirname(__file__),
                                              'placement_peer.py'),
                 '--cache-dir', args.cache_dir, 'serve', '--port', str(port),
                 '--state-dir', state, '--connection', url],
                os.path.join(lab.dir, 'log', 'placement-%s.log' % node.name))
            server.start()
            servers.append((server, 'http://%s:%d' % (benchlib.HOST, port)))
            local_wait(server, port)
        race('placement %s' % placement_peer.PLACEMENT_VERSION,
             [url for _server, url in servers], '',
             [node.url().replace('/%s?' % cloud.DATABASE,
                                 '/%s?' % PLACEMENT_DATABASE)
              for node in lab.galera], args.threads, args.rounds)
    finally:
        for server, _url in servers:
            server.stop()
        lab.galera[0].query('DROP DATABASE IF EXISTS %s' % PLACEMENT_DATABASE)
    return 0


def local_wait(server, port, timeout=180):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not server.running():
            raise SystemExit('%s exited:\n%s' % (
                server.name, server.log_tail()))
        try:
            conn = http.client.HTTPConnection(benchlib.HOST, port, timeout=5)
            conn.request('GET', '/')
            if conn.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.5)
    raise SystemExit('%s did not answer in %d s' % (server.name, timeout))


if __name__ == '__main__':
    sys.exit(main())
