"""The SQLite file engine: WAL, a pool, writers that wait for each other."""

import threading

from oslo_utils import uuidutils
import sqlalchemy as sa

from zun_hostcap.db.sqlalchemy import api as sqla_api
from zun_hostcap.db.sqlalchemy.placement import allocations as alloc_db
from zun_hostcap.db.sqlalchemy.placement import resource_providers as rp_db
from zun_hostcap.tests import base
from zun_hostcap.tests import fixtures
from zun_hostcap.tests.unit.placement import test_resource_providers


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
        errors, start = [], threading.Barrier(16)
        busy = self._count_busy()

        def writer():
            start.wait()
            try:
                for _ in range(5):
                    consumer = uuidutils.generate_uuid()
                    alloc_db.replace_all(self.context, {consumer: {
                        'allocations': {provider['uuid']: {'VCPU': 1}},
                        'project_id': 'p', 'user_id': 'u'}})
                    alloc_db.delete_by_consumer(self.context, consumer)
            except Exception as exc:
                errors.append(exc)
        threads = [threading.Thread(target=writer) for _ in range(16)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual([], errors)
        # Each write waits for the file's lock at BEGIN: none was
        # refused after reading and run again.
        self.assertEqual([], busy)


class TestSQLiteMemory(base.TestCase):

    def test_in_memory_database_is_left_alone(self):
        engine = sa.create_engine('sqlite://')
        sqla_api.configure_sqlite(engine)
        with engine.connect() as conn:
            self.assertEqual('memory', conn.exec_driver_sql(
                'PRAGMA journal_mode').scalar())
        self.assertNotIsInstance(engine.pool, sa.pool.QueuePool)
