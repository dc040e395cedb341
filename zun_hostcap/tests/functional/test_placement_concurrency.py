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

"""Racing allocations never over-allocate a resource provider.

A live zun-hostcap-api (two worker processes, several threads each) on a
fresh MariaDB or PostgreSQL database (oslo.db's opportunistic databases,
user openstack_citest, made by tools/test-setup.sh) takes allocations
from 20 client threads at once against one small provider (8 VCPU). The
provider is never over-allocated, in what the API reports and in the
database; every refusal is a 409 with a Placement error code; nothing
answers 5xx; no allocation or consumer is left behind by a refusal.

Without a database server the tests skip, except in CI where they fail.
"""

import collections
import http.client
import json
import os
import subprocess
import threading
import time
import uuid

import fixtures
from oslo_db.sqlalchemy import enginefacade
from oslo_db.sqlalchemy import test_fixtures
from oslotest import base
import sqlalchemy as sa
from testtools import content

from zun_hostcap.tests.functional import base as functional_base

HOST = '127.0.0.1'
THREADS = 20
# Allocation attempts of each thread.
ROUNDS = 5
VCPU_TOTAL = 8
MEMORY_TOTAL = 4096
MICROVERSION = 'placement 1.39'
PROJECT_ID = uuid.uuid4().hex
USER_ID = uuid.uuid4().hex
# Placement's codes of a refused allocation: capacity (no specific code)
# or a concurrent change it gave up retrying.
REFUSAL_CODES = ('placement.undefined_code', 'placement.concurrent_update')


class Client(object):
    """One keep-alive HTTP connection to the API, as admin (noauth2)."""

    def __init__(self, port):
        self.conn = http.client.HTTPConnection(HOST, port, timeout=60)

    def call(self, method, path, body=None):
        """(status, decoded JSON body or None)."""
        headers = {'X-Auth-Token': 'admin',
                   'OpenStack-API-Version': MICROVERSION,
                   'Accept': 'application/json'}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers['Content-Type'] = 'application/json'
        self.conn.request(method, '/placement' + path, body=data,
                          headers=headers)
        resp = self.conn.getresponse()
        payload = resp.read()
        doc = None
        if payload and resp.getheader('Content-Type', '').startswith(
                'application/json'):
            doc = json.loads(payload)
        return resp.status, doc

    def close(self):
        self.conn.close()


def allocation(rp_uuid, vcpu, memory_mb):
    return {
        'allocations': {rp_uuid: {'resources': {'VCPU': vcpu,
                                                'MEMORY_MB': memory_mb}}},
        'project_id': PROJECT_ID,
        'user_id': USER_ID,
        'consumer_generation': None,
        'consumer_type': 'INSTANCE',
    }


class _ConcurrencyMixin(test_fixtures.OpportunisticDBTestMixin):

    SKIP_ON_UNAVAILABLE_DB = not functional_base.CI

    def setUp(self):
        super().setUp()
        self.engine = enginefacade.writer.get_engine()
        url = self.engine.url.render_as_string(hide_password=False)
        tmp = self.useFixture(fixtures.TempDir()).path
        self.port = functional_base.free_port(HOST)
        config = functional_base.write_config(
            os.path.join(tmp, 'zun-hostcap-api.conf'), {
                'DEFAULT': {'state_path': tmp, 'debug': 'false'},
                'api': {'host': HOST, 'port': self.port, 'workers': 2,
                        'threads': 10, 'auth_strategy': 'noauth2'},
                'database': {'connection': url},
                'notifications': {'notification_format': 'none'},
                # No policy file of this machine.
                'oslo_policy': {
                    'policy_file': os.path.join(tmp, 'policy.yaml')},
            })
        result = subprocess.run(
            functional_base.console_script('zun-hostcap-db-manage') +
            ['--config-file', config, 'upgrade'],
            capture_output=True, text=True, timeout=120)
        self.assertEqual(0, result.returncode, result.stderr)
        self.api = self.useFixture(functional_base.ServiceProcess(
            'zun-hostcap-api', config, tmp))
        functional_base.wait_until_serving(
            self, self.api, 'http://%s:%d/' % (HOST, self.port))
        self.client = Client(self.port)
        self.addCleanup(self.client.close)
        self.rp_uuid = self._provider()

    def _provider(self):
        rp_uuid = str(uuid.uuid4())
        status, doc = self.client.call('POST', '/resource_providers', {
            'name': 'concurrency-%s' % rp_uuid[:8], 'uuid': rp_uuid})
        self.assertEqual(200, status, doc)
        status, doc = self.client.call(
            'PUT', '/resource_providers/%s/inventories' % rp_uuid, {
                'resource_provider_generation': doc['generation'],
                'inventories': {
                    'VCPU': {'total': VCPU_TOTAL},
                    'MEMORY_MB': {'total': MEMORY_TOTAL},
                }})
        self.assertEqual(200, status, doc)
        return rp_uuid

    # What the API and the database say is used

    def _api_usages(self, client=None):
        status, doc = (client or self.client).call(
            'GET', '/resource_providers/%s/usages' % self.rp_uuid)
        self.assertEqual(200, status, doc)
        return doc['usages']

    def _db_used(self):
        """{resource_class_id: sum of used} of the provider's allocations."""
        query = sa.text(
            'SELECT a.resource_class_id, SUM(a.used) FROM allocations a '
            'JOIN resource_providers rp ON rp.id = a.resource_provider_id '
            'WHERE rp.uuid = :uuid GROUP BY a.resource_class_id')
        with self.engine.connect() as conn:
            return {row[0]: int(row[1])
                    for row in conn.execute(query, {'uuid': self.rp_uuid})}

    def _db_count(self, table):
        with self.engine.connect() as conn:
            return conn.execute(
                sa.text('SELECT COUNT(*) FROM %s' % table)).scalar()

    # Racing clients

    def _race(self, work):
        """Run ``work(client, record)`` in THREADS threads started at once.

        ``record(method, status, doc)`` collects every answer; returns
        them, and fails on any exception of a thread.
        """
        answers = []
        errors = []
        lock = threading.Lock()
        barrier = threading.Barrier(THREADS)

        def record(method, status, doc):
            with lock:
                answers.append((method, status, doc))

        def run():
            client = Client(self.port)
            try:
                barrier.wait(30)
                work(client, record)
            except Exception as exc:   # noqa: B902  reported below
                with lock:
                    errors.append('%s: %s' % (type(exc).__name__, exc))
            finally:
                client.close()
        threads = [threading.Thread(target=run) for _ in range(THREADS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
        self.assertFalse([t for t in threads if t.is_alive()],
                         'client threads still running after 120 s')
        self.assertEqual([], errors)
        tally = collections.Counter(
            (method, status, (doc or {}).get('errors', [{}])[0].get('code'))
            for method, status, doc in answers)
        self.addDetail('answers', content.text_content('\n'.join(
            '%s %s %s: %d' % (key + (count,))
            for key, count in sorted(tally.items(), key=str))))
        return answers

    def _assert_answers(self, answers):
        """No 5xx; a refusal is a 409 with a Placement error document."""
        for method, status, doc in answers:
            self.assertLess(status, 500, (method, doc))
            if method == 'PUT' and status != 204:
                self.assertEqual(409, status, doc)
                self.assertIn(doc['errors'][0]['code'], REFUSAL_CODES, doc)
            elif method == 'DELETE':
                self.assertEqual(204, status, doc)

    def test_racing_allocations_never_exceed_capacity(self):
        """100 attempts at one VCPU each for 8 VCPU: at most 8 stay."""
        def work(client, record):
            for _ in range(ROUNDS):
                status, doc = client.call(
                    'PUT', '/allocations/%s' % uuid.uuid4(),
                    allocation(self.rp_uuid, 1, 256))
                record('PUT', status, doc)

        answers = self._race(work)
        self.assertEqual(THREADS * ROUNDS, len(answers))
        self._assert_answers(answers)
        granted = sum(1 for _, status, _ in answers if status == 204)
        self.assertGreaterEqual(granted, 1)
        self.assertLessEqual(granted, VCPU_TOTAL)
        self.assertEqual({'VCPU': granted, 'MEMORY_MB': 256 * granted},
                         self._api_usages())
        self.assertEqual(sorted([granted, 256 * granted]),
                         sorted(self._db_used().values()))
        # A refusal leaves no consumer behind.
        self.assertEqual(granted, self._db_count('consumers'))

        # No capacity was lost: the rest is granted, then no more.
        for _ in range(VCPU_TOTAL - granted):
            status, doc = self.client.call(
                'PUT', '/allocations/%s' % uuid.uuid4(),
                allocation(self.rp_uuid, 1, 256))
            self.assertEqual(204, status, doc)
        status, doc = self.client.call(
            'PUT', '/allocations/%s' % uuid.uuid4(),
            allocation(self.rp_uuid, 1, 256))
        self.assertEqual(409, status, doc)
        self.assertEqual('placement.undefined_code', doc['errors'][0]['code'])
        self.assertEqual({'VCPU': VCPU_TOTAL, 'MEMORY_MB': 256 * VCPU_TOTAL},
                         self._api_usages())

    def test_churn_never_over_allocates(self):
        """Allocate 2 VCPU and free them again, 20 threads, watched.

        A watcher samples the usages through the API and in the database
        while the clients run: no sample is above the capacity.
        """
        done = threading.Event()
        samples = []
        failures = []

        def watch():
            client = Client(self.port)
            try:
                while not done.is_set():
                    samples.append(('api', self._api_usages(client)
                                    .get('VCPU', 0)))
                    # VCPU's sum, the smaller (MEMORY_MB is 64 times it).
                    samples.append(('db', min(
                        self._db_used().values(), default=0)))
                    time.sleep(0.01)
            except Exception as exc:   # noqa: B902  reported below
                failures.append('%s: %s' % (type(exc).__name__, exc))
            finally:
                client.close()
        watcher = threading.Thread(target=watch)
        watcher.start()

        def work(client, record):
            for _ in range(ROUNDS):
                path = '/allocations/%s' % uuid.uuid4()
                status, doc = client.call(
                    'PUT', path, allocation(self.rp_uuid, 2, 128))
                record('PUT', status, doc)
                if status == 204:
                    status, doc = client.call('DELETE', path)
                    record('DELETE', status, doc)

        try:
            answers = self._race(work)
        finally:
            done.set()
            watcher.join(30)
        self.assertEqual([], failures)
        self._assert_answers(answers)
        granted = sum(1 for method, status, _ in answers
                      if method == 'PUT' and status == 204)
        self.assertGreaterEqual(granted, 1)
        self.assertTrue(samples)
        self.assertEqual(
            [], [(where, used) for where, used in samples
                 if used > VCPU_TOTAL])
        # Everything was given back.
        self.assertEqual({'VCPU': 0, 'MEMORY_MB': 0}, self._api_usages())
        self.assertEqual({}, self._db_used())
        self.assertEqual(0, self._db_count('allocations'))
        self.assertEqual(0, self._db_count('consumers'))


class TestPlacementConcurrencyMySQL(_ConcurrencyMixin, base.BaseTestCase):
    FIXTURE = test_fixtures.MySQLOpportunisticFixture


class TestPlacementConcurrencyPostgreSQL(_ConcurrencyMixin,
                                         base.BaseTestCase):
    FIXTURE = test_fixtures.PostgresqlOpportunisticFixture
