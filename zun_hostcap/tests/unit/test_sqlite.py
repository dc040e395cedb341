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

"""The SQLite file engine: WAL, a pool, writers that wait for each other."""

import os
import shutil
import sqlite3

import fixtures as pyfixtures
from oslo_utils import uuidutils
import sqlalchemy as sa

from zun_hostcap.db import api as db_api
from zun_hostcap.db.sqlalchemy import api as sqla_api
from zun_hostcap.db.sqlalchemy.placement import aggregates as agg_db
from zun_hostcap.db.sqlalchemy.placement import allocations as alloc_db
from zun_hostcap.db.sqlalchemy.placement import resource_providers as rp_db
from zun_hostcap import objects
from zun_hostcap.tests import base
from zun_hostcap.tests import fixtures
from zun_hostcap.tests.unit.objects import test_compute_node
from zun_hostcap.tests.unit.placement import test_resource_providers
from zun_hostcap.tests import utils as test_utils

# As many savers as the conductor has RPC handler threads at most.
SAVERS = 32
ROUNDS = 5


class TestSQLiteFile(base.TestCase):

    def setUp(self):
        super().setUp()
        self.database = self.useFixture(fixtures.Database())
        self.engine = self.database.engine

    def _pragma(self, name):
        with self.engine.connect() as conn:
            return conn.exec_driver_sql('PRAGMA %s' % name).scalar()

    def test_write_ahead_log_synced_at_checkpoints(self):
        self.assertEqual('wal', self._pragma('journal_mode'))
        # NORMAL: 1.
        self.assertEqual(1, self._pragma('synchronous'))
        self.assertEqual(sqla_api.SQLITE_BUSY_TIMEOUT_MS,
                         self._pragma('busy_timeout'))

    def test_connections_are_pooled(self):
        # Closing the last connection of a WAL database checkpoints and
        # removes the log; a pool keeps them open between requests.
        self.assertIsInstance(self.engine.pool, sa.pool.QueuePool)
        with self.engine.connect() as conn:
            first = conn.connection.dbapi_connection
        with self.engine.connect() as conn:
            self.assertIs(first, conn.connection.dbapi_connection)

    def _count_busy(self):
        """Statements refused with "database is locked", from now on."""
        busy = []

        def on_error(context):
            if 'database is locked' in str(context.original_exception):
                busy.append(context.statement)
        # First: oslo.db's own listener raises its translation, and the
        # listeners after it are not called.
        earlier = list(self.engine.dialect.dispatch.handle_error)
        for listener in earlier:
            sa.event.remove(self.engine, 'handle_error', listener)
        sa.event.listen(self.engine, 'handle_error', on_error)
        for listener in earlier:
            sa.event.listen(self.engine, 'handle_error', listener)
        self.addCleanup(sa.event.remove, self.engine, 'handle_error',
                        on_error)
        return busy

    def test_writers_take_the_lock_at_begin(self):
        seen = []
        sa.event.listen(self.engine, 'before_cursor_execute',
                        lambda conn, cursor, statement, *args:
                        seen.append(statement))
        with sqla_api.write_lock_first():
            rp_db.create(self.context, uuidutils.generate_uuid(), 'w', None)
        rp_db.get_all_by_filters(self.context)
        self.assertEqual('BEGIN IMMEDIATE', seen[0])
        # Readers begin as before: they read beside a writer.
        self.assertIn('BEGIN', seen)
        self.assertEqual(1, seen.count('BEGIN IMMEDIATE'))

    def test_concurrent_writers_all_succeed(self):
        provider = rp_db.create(self.context, uuidutils.generate_uuid(),
                                'busy', None)
        test_resource_providers._insert(
            self.context, test_resource_providers.INV,
            resource_provider_id=provider['id'], resource_class_id=0,
            total=1000, reserved=0, min_unit=1, max_unit=1000,
            step_size=1, allocation_ratio=1.0)
        busy = self._count_busy()

        def writer(index):
            for _ in range(5):
                consumer = uuidutils.generate_uuid()
                alloc_db.replace_all(self.context, {consumer: {
                    'allocations': {provider['uuid']: {'VCPU': 1}},
                    'project_id': 'p', 'user_id': 'u'}})
                alloc_db.delete_by_consumer(self.context, consumer)
        errors = test_utils.all_at_once(16, writer)
        self.assertEqual([], errors)
        # Each write waits for the file's lock at BEGIN: none was
        # refused after reading and run again.
        self.assertEqual([], busy)

    def test_concurrent_aggregate_writers_all_succeed(self):
        providers = [rp_db.create(self.context, uuidutils.generate_uuid(),
                                  'agg-%d' % index, None)
                     for index in range(16)]
        busy = self._count_busy()

        def writer(index):
            uuid = providers[index]['uuid']
            for generation in range(5):
                agg_db.set_for_provider(
                    self.context, uuid, [uuidutils.generate_uuid()],
                    generation=generation)
        errors = test_utils.all_at_once(16, writer)
        self.assertEqual([], errors)
        # As the allocations' writers: none was refused after reading.
        self.assertEqual([], busy)

    def test_host_writers_take_the_lock_at_begin(self):
        seen = []
        sa.event.listen(self.engine, 'before_cursor_execute',
                        lambda conn, cursor, statement, *args:
                        seen.append(statement))
        node = test_compute_node.make_compute_node(self.context)
        node.create()
        node.mem_used = 1
        node.save()
        service = objects.Service(self.context, host='h', binary='b')
        service.create()
        service.heartbeat()
        service.disabled = True
        service.save()
        service.destroy()
        node.destroy()
        self.assertEqual(7, seen.count('BEGIN IMMEDIATE'))
        self.assertNotIn('BEGIN', seen)

    def test_concurrent_compute_node_saves_and_heartbeats_succeed(self):
        # What a conductor serving SAVERS computes at once does: each
        # registers, creates its node, then saves it and heartbeats.
        busy = self._count_busy()

        def compute(index):
            hostname = 'host-%d' % index
            service = objects.Service(self.context, host=hostname,
                                      binary='zun-hostcap-compute')
            service.create()
            node = test_compute_node.make_compute_node(
                self.context, hostname=hostname)
            node.create()
            for round_ in range(1, ROUNDS + 1):
                node.mem_used = index * 1000 + round_
                node.numa_topology.nodes[0].mem_available = round_
                node.save()
                service.heartbeat()

        self.assertEqual([], test_utils.all_at_once(SAVERS, compute))
        self.assertEqual([], busy)
        with db_api.conductor_scope():
            nodes = objects.ComputeNodeList.get_all(self.context)
            services = objects.ServiceList.get_all(self.context)
        self.assertEqual(
            {'host-%d' % index: (index * 1000 + ROUNDS, ROUNDS)
             for index in range(SAVERS)},
            {node.hostname: (node.mem_used,
                             node.numa_topology.nodes[0].mem_available)
             for node in nodes})
        self.assertEqual([ROUNDS] * SAVERS,
                         [service.report_count for service in services])

    def test_concurrent_saves_of_one_node_succeed(self):
        # Several writers of the same row (the API and the conductor):
        # each waits for the one before, none is refused.
        node = test_compute_node.make_compute_node(self.context)
        node.create()
        busy = self._count_busy()

        def save(index):
            mine = objects.ComputeNode.get_by_uuid(self.context, node.uuid)
            mine.labels = {'saver-%d' % index: 'yes'}
            mine.save()

        self.assertEqual([], test_utils.all_at_once(SAVERS, save))
        self.assertEqual([], busy)
        labels = objects.ComputeNode.get_by_uuid(self.context,
                                                 node.uuid).labels
        self.assertEqual(1, len(labels))
        self.assertIn(next(iter(labels)),
                      {'saver-%d' % index for index in range(SAVERS)})

    def test_at_stop_the_file_alone_holds_the_data(self):
        node = test_compute_node.make_compute_node(self.context,
                                                   hostname='kept-1')
        node.create()
        path = self.engine.url.database
        self.assertGreater(os.path.getsize(path + '-wal'), 0)
        # The compute's guard does not keep the owner from its file.
        db_api.block_access('zun-hostcap-compute')
        self.addCleanup(db_api.unblock_access)

        self.assertTrue(db_api.checkpoint_at_stop())
        self.assertFalse(os.path.exists(path + '-wal') and
                         os.path.getsize(path + '-wal'))
        copy = os.path.join(self.useFixture(pyfixtures.TempDir()).path,
                            'copy.sqlite')
        shutil.copyfile(path, copy)
        conn = sqlite3.connect(copy)
        self.addCleanup(conn.close)
        self.assertEqual([('kept-1',)], conn.execute(
            'SELECT hostname FROM compute_nodes').fetchall())


class TestSQLiteMemory(base.TestCase):

    def test_in_memory_database_is_left_alone(self):
        engine = sa.create_engine('sqlite://')
        sqla_api.configure_sqlite(engine)
        with engine.connect() as conn:
            self.assertEqual('memory', conn.exec_driver_sql(
                'PRAGMA journal_mode').scalar())
        self.assertNotIsInstance(engine.pool, sa.pool.QueuePool)
        # Nothing to write back at stop.
        self.assertNotIn(engine, list(sqla_api._SQLITE_FILES))
