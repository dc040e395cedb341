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

"""The service as a cloud runs it: nothing is lost when a part fails.

One lab (``cloud.Lab``, the one of tools/cloud_lab.py) for the whole
class, whose tests run on one stestr worker (``group_regex``): a 3-node
MariaDB Galera cluster, a 3-node RabbitMQ cluster with quorum queues,
HAProxy, two API replicas (replica N writes to Galera node N), two
conductors, the fleet simulator and a real compute.

- The allocation race across two writers: 50 threads x 5 rounds over
  both replicas against a provider of 10 VCPU; exactly 10 taken each
  round, no 5xx, every node's usages equal to the successes. The
  certification conflicts retried are counted.
- A Galera node SIGKILLed under a steady write load: no 500, every
  acknowledged write on every node, the node back by IST, no host down.
- A Galera node that refuses queries: its replica answers 503, HAProxy
  serves from the other.
- A RabbitMQ node SIGKILLed and restarted with the fleet running: no
  host down, no call failed beyond its retry, every notification sent
  to a quorum queue received.
- A rolling restart of the API replicas (drained in HAProxy) and of the
  conductors under load: no failed request, no failed call.
- A rolling upgrade: the API replicas and conductors of the previous
  release (tools/previous-release.ini) on a schema it made, upgraded in
  the order of doc/source/admin/upgrades.rst under reads through
  HAProxy (writes too once /placement is served): no failed request, no
  host down, no compute or fleet error.

Each test leaves the lab whole for the next. Without the lab's packages
or root, the tests skip, except in CI where they fail.
"""

import collections
import http.client
import json
import os
import re
import shutil
import tempfile
import threading
import time
import unittest
import uuid

from oslo_config import cfg
from oslo_log import log as logging
import oslo_messaging as messaging
from oslotest import base
import pymysql
import sqlalchemy as sa
from testtools import content

from zun_hostcap.tests.functional import base as functional_base
from zun_hostcap.tests.functional import cloud
from zun_hostcap.tests.functional import releases

LOG = logging.getLogger(__name__)

MICROVERSION = 'placement 1.39'
ZUN_VERSION = 'container latest'
PROJECT_ID = uuid.uuid4().hex
USER_ID = uuid.uuid4().hex
RACE_THREADS = 50
RACE_ROUNDS = 5
RACE_VCPU = 10
# Threads of the steady loads, and how long a load runs around a fault.
LOAD_THREADS = 4
RECONNECTING = re.compile(r'impl_rabbit .*(is unreachable: .* Trying again '
                          r'in \d+ seconds|\(retrying in \d+ seconds\))')
DEADLOCKS = re.compile(r'^zun_hostcap_db_deadlock_retries_total ([\d.e+]+)$',
                       re.M)


class Client(object):
    """One keep-alive HTTP connection, as admin (noauth2)."""

    def __init__(self, url, timeout=60):
        self.host, port = url.split('//')[1].split(':')
        self.port = int(port)
        self.timeout = timeout
        self.conn = None

    def call(self, method, path, body=None, version=MICROVERSION):
        """(status, decoded JSON or None); status 0 if no answer came."""
        headers = {'X-Auth-Token': 'admin', 'Accept': 'application/json',
                   'OpenStack-API-Version': version}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers['Content-Type'] = 'application/json'
        try:
            if self.conn is None:
                self.conn = http.client.HTTPConnection(
                    self.host, self.port, timeout=self.timeout)
            self.conn.request(method, path, body=data, headers=headers)
            resp = self.conn.getresponse()
            payload = resp.read()
        except (OSError, http.client.HTTPException) as err:
            self.close()
            return 0, {'error': '%s: %s' % (type(err).__name__, err)}
        doc = None
        if payload and resp.getheader('Content-Type', '').startswith(
                'application/json'):
            doc = json.loads(payload)
        return resp.status, doc

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def allocation(rp_uuid, vcpu):
    return {'allocations': {rp_uuid: {'resources': {'VCPU': vcpu}}},
            'project_id': PROJECT_ID, 'user_id': USER_ID,
            'consumer_generation': None, 'consumer_type': 'INSTANCE'}


class Load(object):
    """Threads calling ``work(client, record)`` until stopped.

    Every answer is recorded as (time, kind, status, detail).
    """

    def __init__(self, url, work, threads=LOAD_THREADS):
        self.url = url
        self.work = work
        self.stop_event = threading.Event()
        self.lock = threading.Lock()
        self.answers = []
        self.errors = []
        self.threads = [threading.Thread(target=self._run, args=(n,))
                        for n in range(threads)]

    def record(self, kind, status, detail=None):
        with self.lock:
            self.answers.append((time.monotonic(), kind, status, detail))

    def _run(self, number):
        client = Client(self.url)
        try:
            while not self.stop_event.is_set():
                self.work(client, self.record, number)
        except Exception as err:   # noqa: B902  reported by the test
            with self.lock:
                self.errors.append('%s: %s' % (type(err).__name__, err))
        finally:
            client.close()

    def start(self):
        for thread in self.threads:
            thread.start()
        return self

    def stop(self):
        self.stop_event.set()
        for thread in self.threads:
            thread.join(120)
        return self.answers

    def tally(self):
        return collections.Counter((kind, status)
                                   for _t, kind, status, _d in self.answers)


class TestCloud(base.BaseTestCase):
    """One lab for every test; each leaves it whole."""

    lab = None

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        missing = cloud.missing_requirements()
        if missing:
            message = ('the HA lab needs %s (tools/test-setup.sh installs '
                       'the packages)' % ', '.join(missing))
            if functional_base.CI:
                raise AssertionError(message)
            raise unittest.SkipTest(message)
        # Not in a test's own temporary directory, which only root may
        # enter: the RabbitMQ nodes run as the rabbitmq user.
        cls.lab_dir = tempfile.mkdtemp(prefix='zun-hostcap-lab-',
                                       dir=functional_base.SYSTEM_TMP)
        cls.lab = cloud.Lab(cls.lab_dir, fleet_hosts=20)
        started = time.monotonic()
        try:
            cls.summary = cls.lab.up()
        except BaseException:
            cls._tear_down_lab()
            raise
        cls.up_seconds = time.monotonic() - started
        LOG.info('The lab is up in %.1f s', cls.up_seconds)

    @classmethod
    def tearDownClass(cls):
        cls._tear_down_lab()
        super().tearDownClass()

    @classmethod
    def _tear_down_lab(cls):
        if cls.lab is not None:
            cls.lab.down()
            cls.lab = None
        shutil.rmtree(cls.lab_dir, ignore_errors=True)

    def setUp(self):
        super().setUp()
        self.addDetail('lab up', content.text_content(
            '%.1f s' % self.up_seconds))
        self.api = [Client(url) for url in self.summary['api']]
        self.haproxy = Client(self.summary['haproxy_api'])
        for client in self.api + [self.haproxy]:
            self.addCleanup(client.close)
        self.log_offsets = {name: self._log_size(name)
                            for name in ('compute', 'fleet-sim')}

    # Helpers

    def _log_path(self, name):
        if name == 'fleet-sim':
            return os.path.join(self.lab.dir, 'fleet', 'fleet-sim.log')
        return self.lab.part(name).log_file()

    def _log_size(self, name):
        try:
            return os.path.getsize(self._log_path(name))
        except OSError:
            return 0

    def _new_log_errors(self, name):
        """ERROR lines ``name`` logged since the test began.

        oslo.messaging's own reconnections, logged as errors, are left
        out: they are its retry, not a call that failed.
        """
        try:
            with open(self._log_path(name), errors='replace') as f:
                f.seek(self.log_offsets[name])
                return [line for line in f if ' ERROR ' in line and
                        not RECONNECTING.search(line)]
        except OSError:
            return []

    def _provider(self, vcpu):
        rp_uuid = str(uuid.uuid4())
        status, doc = self.api[0].call('POST', '/placement/resource_providers',
                                       {'name': 'lab-%s' % rp_uuid[:8],
                                        'uuid': rp_uuid})
        self.assertEqual(200, status, doc)
        status, doc = self.api[0].call(
            'PUT', '/placement/resource_providers/%s/inventories' % rp_uuid,
            {'resource_provider_generation': doc['generation'],
             'inventories': {'VCPU': {'total': vcpu}}})
        self.assertEqual(200, status, doc)
        return rp_uuid

    def _node_rows(self, node, query, **params):
        engine = sa.create_engine(node.url(), poolclass=sa.pool.NullPool)
        try:
            with engine.connect() as conn:
                # Whatever the other nodes certified is applied first.
                conn.execute(sa.text('SET SESSION wsrep_sync_wait = 1'))
                return [tuple(row) for row in
                        conn.execute(sa.text(query), params)]
        finally:
            engine.dispose()

    def _node_used(self, node, rp_uuid):
        rows = self._node_rows(
            node, 'SELECT COALESCE(SUM(a.used), 0) FROM allocations a JOIN '
            'resource_providers rp ON rp.id = a.resource_provider_id '
            'WHERE rp.uuid = :uuid', uuid=rp_uuid)
        return int(rows[0][0])

    def _deadlocks(self):
        """Deadlock retries of both replicas, from their /metrics."""
        total = 0
        for client in self.api:
            status, _doc = client.call('GET', '/healthcheck')
            conn = http.client.HTTPConnection(client.host, client.port,
                                              timeout=30)
            try:
                conn.request('GET', '/metrics')
                text = conn.getresponse().read().decode()
            finally:
                conn.close()
            found = DEADLOCKS.search(text)
            total += int(float(found.group(1))) if found else 0
        return total

    def _hosts_down(self):
        """Compute services the API shows down now; None if no answer."""
        status, doc = self.haproxy.call('GET', '/v1/services',
                                        version=ZUN_VERSION)
        if status != 200:
            return None
        return sorted(service['host'] for service in doc['services']
                      if service['binary'] == 'zun-hostcap-compute' and
                      service['state'] != 'up')

    def _watch_hosts(self):
        """A thread that polls the host states; returns (stop, seen)."""
        stop = threading.Event()
        seen = {'down': set(), 'polls': 0, 'no_answer': 0}

        def watch():
            while not stop.wait(1):
                down = self._hosts_down()
                seen['polls'] += 1
                if down is None:
                    seen['no_answer'] += 1
                else:
                    seen['down'].update(down)
        thread = threading.Thread(target=watch)
        thread.start()

        def stopped():
            stop.set()
            thread.join(30)
            return seen
        return stopped

    def _wait_fleet_up(self, timeout=120):
        def all_up():
            status, doc = self.haproxy.call('GET', '/v1/services',
                                            version=ZUN_VERSION)
            if status != 200:
                return False
            computes = [s for s in doc['services']
                        if s['binary'] == 'zun-hostcap-compute']
            return (len(computes) >= self.lab.fleet_hosts + 1 and
                    all(s['state'] == 'up' for s in computes))
        functional_base.wait_for(all_up, timeout, interval=1,
                                 message='every compute to be up')

    # 1. The allocation race across writers

    def test_race_across_galera_writers(self):
        rp_uuid = self._provider(RACE_VCPU)
        deadlocks_before = self._deadlocks()
        started = time.monotonic()
        rounds = []
        for round_number in range(RACE_ROUNDS):
            answers = self._race_round(rp_uuid)
            statuses = collections.Counter(status for status, _ in answers)
            self.addDetail('round %d' % round_number, content.text_content(
                json.dumps(sorted(statuses.items()))))
            self.assertEqual([], [a for a in answers if a[0] >= 500])
            taken = [consumer for status, consumer in answers
                     if status == 204]
            self.assertEqual(RACE_VCPU, len(taken), statuses)
            # Every node holds exactly what the API acknowledged.
            for node in self.lab.galera:
                self.assertEqual(len(taken), self._node_used(node, rp_uuid),
                                 node.name)
            for client in self.api:
                status, doc = client.call(
                    'GET', '/placement/resource_providers/%s/usages'
                    % rp_uuid)
                self.assertEqual(200, status, doc)
                self.assertEqual({'VCPU': RACE_VCPU}, doc['usages'])
            rounds.append(statuses)
            for consumer in taken:
                status, doc = self.api[0].call(
                    'DELETE', '/placement/allocations/%s' % consumer)
                self.assertEqual(204, status, doc)
        seconds = time.monotonic() - started
        deadlocks = self._deadlocks() - deadlocks_before
        line = ('Race on Galera, %d threads x %d rounds over 2 API replicas '
                'writing to 2 nodes: %d taken per round, %d refused, no '
                '5xx; %d deadlocks (certification conflicts) retried; '
                '%.1f s' % (RACE_THREADS, RACE_ROUNDS, RACE_VCPU,
                            sum(r[409] for r in rounds), deadlocks, seconds))
        LOG.info(line)
        self.addDetail('figures', content.text_content(line))

    def _race_round(self, rp_uuid):
        """RACE_THREADS allocations of 1 VCPU at once, over both replicas.

        Returns [(status, consumer)].
        """
        barrier = threading.Barrier(RACE_THREADS)
        answers, errors = [], []
        lock = threading.Lock()

        def run(number):
            client = Client(self.summary['api'][number % 2])
            consumer = str(uuid.uuid4())
            try:
                # A connection made before the start.
                client.call('GET', '/placement/')
                barrier.wait(60)
                status, doc = client.call(
                    'PUT', '/placement/allocations/%s' % consumer,
                    allocation(rp_uuid, 1))
                with lock:
                    answers.append((status, consumer))
                    if status not in (204, 409):
                        errors.append((status, doc))
            except Exception as err:   # noqa: B902  reported below
                with lock:
                    errors.append('%s: %s' % (type(err).__name__, err))
            finally:
                client.close()
        threads = [threading.Thread(target=run, args=(n,))
                   for n in range(RACE_THREADS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(180)
        self.assertFalse([t for t in threads if t.is_alive()])
        self.assertEqual([], errors)
        return answers

    # 2. A database node lost

    def _write_load(self, rp_uuid):
        """Allocations made and deleted through HAProxy, one in four kept.

        Records ('put'|'delete', status, consumer).
        """
        def work(client, record, number):
            consumer = str(uuid.uuid4())
            status, _doc = client.call(
                'PUT', '/placement/allocations/%s' % consumer,
                allocation(rp_uuid, 1))
            record('put', status, consumer)
            if status == 204 and int(consumer[-1], 16) % 4:
                status, _doc = client.call(
                    'DELETE', '/placement/allocations/%s' % consumer)
                record('delete', status, consumer)
        return Load(self.summary['haproxy_api'], work)

    def _expected_consumers(self, answers):
        """(consumers acknowledged present, acknowledged deleted)."""
        present, deleted, unknown = set(), set(), set()
        for _t, kind, status, consumer in answers:
            if kind == 'put' and status == 204:
                present.add(consumer)
            elif kind == 'delete':
                present.discard(consumer)
                (deleted if status == 204 else unknown).add(consumer)
        return present, deleted

    def _node_consumers(self, node, rp_uuid):
        return {row[0] for row in self._node_rows(
            node, 'SELECT a.consumer_id FROM allocations a JOIN '
            'resource_providers rp ON rp.id = a.resource_provider_id '
            'WHERE rp.uuid = :uuid', uuid=rp_uuid)}

    def test_galera_node_killed_under_write_load(self):
        self._wait_fleet_up()
        rp_uuid = self._provider(1000000)
        node = self.lab.galera[0]
        log_offset = os.path.getsize(node.log_file())
        watch = self._watch_hosts()
        load = self._write_load(rp_uuid).start()
        time.sleep(3)
        killed_at = time.monotonic()
        node.kill()
        time.sleep(5)
        restarted_at = time.monotonic()
        node.start()
        node.wait_synced()
        synced_at = time.monotonic()
        # The replica of the node answers again (HAProxy puts it back).
        functional_base.wait_for(
            lambda: self.api[0].call('GET', '/healthcheck')[0] == 200, 60,
            message='api1 to be healthy again')
        time.sleep(3)
        answers = load.stop()
        seen = watch()
        self.assertEqual([], load.errors)
        tally = load.tally()
        figures = ('%s; killed for %.1f s, synced %.1f s after its start; '
                   'host polls %d (no answer %d)' % (
                       sorted(tally.items()), restarted_at - killed_at,
                       synced_at - restarted_at, seen['polls'],
                       seen['no_answer']))
        LOG.info('Galera node killed under load: %s', figures)
        self.addDetail('figures', content.text_content(figures))
        self.assertEqual([], [a for a in answers
                              if a[2] != 503 and (a[2] >= 500 or
                                                  a[2] == 0)])
        self.assertGreater(tally[('put', 204)], 20)
        # Every acknowledged write is on every node.
        present, deleted = self._expected_consumers(answers)
        for each in self.lab.galera:
            held = self._node_consumers(each, rp_uuid)
            self.assertEqual(set(), present - held, each.name)
            self.assertEqual(set(), deleted & held, each.name)
        # Back by an incremental state transfer, not a full copy.
        with open(node.log_file(), errors='replace') as f:
            f.seek(log_offset)
            log = f.read()
        self.assertIn('IST received', log)
        self.assertEqual(set(), seen['down'])

    def test_node_refusing_queries_is_unavailable_not_an_error(self):
        # Galera node 2, replica 2's, refuses every query, as a node does
        # while it is out of the primary component or still joining
        # (ER_UNKNOWN_COM_ERROR, "WSREP has not yet prepared node").
        node = self.lab.galera[1]
        replica = self.api[1]
        self.assertEqual(200, replica.call('GET', '/healthcheck')[0])
        self.assertIsNotNone(node.query(
            'SET GLOBAL wsrep_reject_queries = ALL'))
        try:
            status, doc = replica.call('GET', '/healthcheck')
            self.assertEqual(503, status, doc)
            # The replica's own answers: unavailable, never an error.
            for method, path, body, version in (
                    ('GET', '/placement/resource_providers', None,
                     MICROVERSION),
                    ('PUT', '/placement/allocations/%s' % uuid.uuid4(),
                     allocation(str(uuid.uuid4()), 1), MICROVERSION),
                    ('GET', '/v1/hosts', None, ZUN_VERSION)):
                status, doc = replica.call(method, path, body, version)
                self.assertEqual(503, status, (method, path, doc))
            # HAProxy serves every request from replica 1 meanwhile.
            for _ in range(10):
                status, doc = self.haproxy.call(
                    'GET', '/placement/resource_providers')
                self.assertEqual(200, status, doc)
        finally:
            node.query('SET GLOBAL wsrep_reject_queries = NONE')
        functional_base.wait_for(
            lambda: replica.call('GET', '/healthcheck')[0] == 200, 60,
            message='replica 2 to be healthy again')

    # 3. A broker node lost

    def test_rabbit_node_killed_and_restarted(self):
        self._wait_fleet_up()
        topic = 'lab-test-%s' % uuid.uuid4().hex[:8]
        received, listener = self._listener(topic)
        notifier, sent = self._notifier(topic)
        watch = self._watch_hosts()
        stop = threading.Event()

        def emit():
            number = 0
            while not stop.is_set():
                notifier.info({}, 'lab.test', {'number': number})
                sent.append(number)
                number += 1
                time.sleep(0.05)
        thread = threading.Thread(target=emit)
        thread.start()
        # The first node of the URL: every client is connected to it.
        node = self.lab.rabbit[0]
        try:
            time.sleep(3)
            node.kill()
            time.sleep(5)
            node.start()
            node.wait_started()
            time.sleep(5)
        finally:
            stop.set()
            thread.join(60)
        # Every notification sent arrives, once the queue is drained.
        functional_base.wait_for(lambda: set(sent) <= set(received), 60,
                                 message='every notification')
        listener.stop()
        listener.wait()
        seen = watch()
        figures = ('notifications sent %d, received %d (%d distinct); host '
                   'polls %d (no answer %d)' % (
                       len(sent), len(received), len(set(received)),
                       seen['polls'], seen['no_answer']))
        LOG.info('RabbitMQ node killed: %s', figures)
        self.addDetail('figures', content.text_content(figures))
        self.assertEqual(set(), seen['down'])
        self.assertEqual([], self._new_log_errors('compute'))
        self.assertEqual([], self._new_log_errors('fleet-sim'))

    def _transport(self, conf):
        conf([], project='lab-test', default_config_files=[],
             default_config_dirs=[])
        transport = messaging.get_notification_transport(
            conf, url=self.summary['transport_url'])
        conf.set_override('rabbit_quorum_queue', True,
                          group='oslo_messaging_rabbit')
        conf.set_override('rabbit_retry_backoff', 0,
                          group='oslo_messaging_rabbit')
        conf.set_override('rabbit_interval_max', 1,
                          group='oslo_messaging_rabbit')
        self.addCleanup(transport.cleanup)
        return transport

    def _listener(self, topic):
        """A listener of ``topic`` on a quorum queue; (numbers, listener)."""
        received = []

        class Endpoint(object):
            def info(self, ctxt, publisher_id, event_type, payload,
                     metadata):
                received.append(payload['number'])
        transport = self._transport(cfg.ConfigOpts())
        listener = messaging.get_notification_listener(
            transport, [messaging.Target(topic=topic,
                                         exchange='lab-test')],
            [Endpoint()], executor='threading')
        listener.start()
        return received, listener

    def _notifier(self, topic):
        transport = self._transport(cfg.ConfigOpts())
        conf = transport.conf
        conf.set_override('control_exchange', 'lab-test')
        notifier = messaging.Notifier(transport, publisher_id='lab-test',
                                      driver='messagingv2', topics=[topic])
        return notifier, []

    # 4. A rolling restart

    def _read_write_load(self):
        """Reads and writes through HAProxy, each thread its provider.

        Records every answer; ``failed`` are those not as expected.
        """
        providers = [self._provider(1000000) for _ in range(LOAD_THREADS)]
        expected = {'put': 204, 'delete': 204, 'usages': 200, 'hosts': 200}

        def work(client, record, number):
            rp_uuid = providers[number]
            consumer = str(uuid.uuid4())
            for kind, method, path, body, version in (
                    ('put', 'PUT', '/placement/allocations/%s' % consumer,
                     allocation(rp_uuid, 1), MICROVERSION),
                    ('usages', 'GET', '/placement/resource_providers/%s/'
                     'usages' % rp_uuid, None, MICROVERSION),
                    ('hosts', 'GET', '/v1/hosts?limit=5', None, ZUN_VERSION),
                    ('delete', 'DELETE', '/placement/allocations/%s'
                     % consumer, None, MICROVERSION)):
                status, doc = client.call(method, path, body, version)
                record(kind, status, None if status == expected[kind]
                       else doc)
        load = Load(self.summary['haproxy_api'], work)
        load.expected = expected
        return load

    def _restart_api(self, number, release=None):
        """Drain replica ``number`` in HAProxy, SIGTERM it, start it.

        Started from ``release`` (a ``releases.Release``), else this one.
        """
        server = 'zun_hostcap_api_replicas/api%d' % number
        self.lab.haproxy_command('set server %s state drain' % server)
        functional_base.wait_for(lambda: self.lab.api_sessions(number) == 0,
                                 30, interval=0.1,
                                 message='api%d to be drained' % number)
        part = self.lab.part('api%d' % number)
        part.stop()
        self.assertFalse(part.alive())
        self.lab.start_api(number, release=release)
        self.lab.haproxy_command('set server %s state ready' % server)
        self._wait_in_rotation(number)

    def _wait_in_rotation(self, number):
        server = ['zun_hostcap_api_replicas', 'api%d' % number]

        def in_rotation():
            for line in self.lab.haproxy_command('show stat').splitlines():
                fields = line.split(',')
                if fields[:2] == server:
                    return fields[17] == 'UP'
            return False
        functional_base.wait_for(in_rotation, 30, interval=0.2,
                                 message='api%d in rotation' % number)

    def test_rolling_restart_under_load(self):
        load = self._read_write_load().start()
        started = time.monotonic()
        try:
            time.sleep(2)
            for number in (1, 2):
                self._restart_api(number)
                time.sleep(1)
            for number in (1, 2):
                part = self.lab.part('conductor%d' % number)
                part.stop()
                self.assertFalse(part.alive())
                self.lab.start_service('conductor%d' % number,
                                       self.lab.conductor_config(number))
                # Its RPC server consumes before the next one stops.
                time.sleep(3)
            time.sleep(2)
        finally:
            answers = load.stop()
        seconds = time.monotonic() - started
        self.assertEqual([], load.errors)
        failed = [a for a in answers if a[2] != load.expected[a[1]]]
        figures = '%d requests in %.1f s: %s; failed %d' % (
            len(answers), seconds, sorted(load.tally().items()),
            len(failed))
        LOG.info('Rolling restart: %s', figures)
        self.addDetail('figures', content.text_content(figures))
        self.assertEqual([], failed)
        self.assertGreater(len(answers), 100)
        self.assertEqual([], self._new_log_errors('compute'))
        self.assertEqual([], self._new_log_errors('fleet-sim'))

    # 5. A rolling upgrade

    def _stop_parts(self, *names):
        """SIGTERM the parts ``names`` together; wait until they exit."""
        threads = [threading.Thread(target=self.lab.part(name).stop)
                   for name in names]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for name in names:
            self.assertFalse(self.lab.part(name).alive(), name)

    def _read_load(self):
        """What both releases serve, read through HAProxy."""
        def work(client, record, number):
            for kind, path in (('hosts', '/v1/hosts?limit=5'),
                               ('services', '/v1/services')):
                status, doc = client.call('GET', path, version=ZUN_VERSION)
                record(kind, status, None if status == 200 else doc)
        load = Load(self.summary['haproxy_api'], work)
        load.expected = {'hosts': 200, 'services': 200}
        return load

    def _wait_logged(self, name, text, timeout):
        def logged():
            with open(self._log_path(name), errors='replace') as f:
                f.seek(self.log_offsets[name])
                return text in f.read()
        functional_base.wait_for(logged, timeout, interval=0.5,
                                 message='%s to log %r' % (name, text))

    def _previous_release_on_the_lab(self, old):
        """The lab's services as a deployment of ``old`` runs them.

        The database made again by ``old``'s schema; its conductors and
        API replicas; the compute and the fleet of this release (their
        [upgrade_levels] conductor = auto pins them to ``old``), as
        upgrades.rst says a compute upgraded first does.
        """
        self._stop_parts('fleet', 'compute', 'api1', 'api2', 'conductor1',
                         'conductor2')
        node = self.lab.galera[0]
        for statement in ('DROP DATABASE IF EXISTS %s' % cloud.DATABASE,
                          'CREATE DATABASE %s CHARACTER SET utf8mb4'
                          % cloud.DATABASE):
            self.assertIsNotNone(node.query(statement, timeout=120),
                                 statement)
        self.lab.db_sync(release=old)
        for number in (1, 2):
            self.lab.start_service('conductor%d' % number,
                                   self.lab.conductor_config(number),
                                   release=old)
        for number in (1, 2):
            self.lab.start_api(number, release=old)
            self._wait_in_rotation(number)
        self.log_offsets = {name: self._log_size(name)
                            for name in ('compute', 'fleet-sim')}
        self.lab.start_service('compute', self.lab.compute_config())
        self.lab.start_fleet()
        self._wait_fleet_up()
        self._wait_logged('compute', 'a zun-hostcap-conductor of %s runs'
                          % old.name, 60)

    def _lab_of_this_release(self):
        """After a failure: every service of this release again."""
        self._stop_parts('fleet', 'compute', 'api1', 'api2', 'conductor1',
                         'conductor2')
        self.lab.up_services()

    def _galera_reader(self, tables):
        """A transaction on a Galera node that has read ``tables``.

        What a request of 2026.2's API is while it reads. Returns a
        function that reads them again in the same transaction and
        commits: the error it met, or None.
        """
        connection = self.lab.galera[1].connect(timeout=120,
                                                database=cloud.DATABASE)
        self.addCleanup(connection.close)

        def read():
            with connection.cursor() as cursor:
                for table in tables:
                    cursor.execute('SELECT COUNT(*) FROM %s' % table)
        read()

        def read_again():
            try:
                read()
                connection.commit()
            except pymysql.MySQLError as err:
                return err
        return read_again

    def test_rolling_upgrade_under_load(self):
        try:
            old, install_seconds = releases.previous_release()
        except SystemExit as err:   # the tool's one-line errors
            self.fail('The previous release cannot be installed: %s' % err)
        steps = []

        def step(title):
            steps.append((title, time.monotonic()))
        upgraded = []
        self.addCleanup(lambda: upgraded or self._lab_of_this_release())
        step('%s on the lab' % old.name)
        self._previous_release_on_the_lab(old)
        watch = self._watch_hosts()
        reads = self._read_load().start()
        writes = None
        try:
            time.sleep(2)
            step('schema (db-manage upgrade)')
            # An ALTER TABLE would abort it on every node (Galera's
            # total order isolation): a 500 from 2026.2.
            read_again = self._galera_reader(('services', 'compute_nodes'))
            self.lab.db_sync()
            reader_aborted = read_again()
            for number in (1, 2):
                step('conductor %d' % number)
                part = self.lab.part('conductor%d' % number)
                part.stop()
                self.assertFalse(part.alive())
                self.lab.start_service('conductor%d' % number,
                                       self.lab.conductor_config(number))
                # Its RPC server consumes before the next one stops.
                time.sleep(3)
            for number in (1, 2):
                step('API replica %d' % number)
                self._restart_api(number)
                time.sleep(1)
            # Every replica serves /placement now: its writes too.
            step('online data migrations, under writes too')
            writes = self._read_write_load().start()
            migrated = self.lab.db_manage('online_data_migrations')
            step('the computes unpin themselves (auto)')
            self._wait_logged('compute', 'runs this release', 90)
            self._wait_logged('fleet-sim', 'runs this release', 90)
            time.sleep(2)
        finally:
            step('end')
            answers = reads.stop()
            if writes is not None:
                answers += writes.stop()
            seen = watch()
        upgraded.append(True)
        timeline = ['previous release installed in %.0f s (0: cached)'
                    % install_seconds]
        timeline += ['%5.1f s  %s' % (end - started, title) for (
            title, started), (_next, end) in zip(steps, steps[1:])]
        LOG.info('Rolling upgrade steps:\n%s', '\n'.join(timeline))
        self.addDetail('steps', content.text_content('\n'.join(timeline)))
        self.assertEqual([], reads.errors)
        expected = dict(reads.expected)
        tally = reads.tally()
        if writes is not None:
            self.assertEqual([], writes.errors)
            expected.update(writes.expected)
            tally.update(writes.tally())
        failed = [a for a in answers if a[2] != expected[a[1]]]
        seconds = steps[-1][1] - steps[1][1]
        figures = ('%d requests in %.1f s: %s; failed %d; host polls %d '
                   '(no answer %d), hosts shown down %d' % (
                       len(answers), seconds, sorted(tally.items()),
                       len(failed), seen['polls'], seen['no_answer'],
                       len(seen['down'])))
        LOG.info('Rolling upgrade from %s: %s', old.name, figures)
        self.addDetail('figures', content.text_content(figures))
        self.addDetail('online data migrations',
                       content.text_content(migrated))
        self.assertIsNone(reader_aborted, "The schema upgrade aborted a "
                          "transaction reading 2026.2's tables")
        self.assertEqual([], failed[:20])
        self.assertGreater(tally[('hosts', 200)], 50)
        self.assertGreater(tally[('put', 204)], 20)
        self.assertEqual(set(), seen['down'])
        self.assertEqual(0, seen['no_answer'])
        self.assertIn('create_compute_node_providers', migrated)
        self.assertEqual([], self._new_log_errors('compute'))
        self.assertEqual([], self._new_log_errors('fleet-sim'))
