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

"""zun-hostcap-db-manage.

The schema commands run as an operator runs them: the console script, a
configuration file, a SQLite file. online_data_migrations runs in this
process, with migrations the tests register, on a migrated SQLite file.
"""

import logging
import os
import sqlite3
import subprocess
import sys

import fixtures
from oslo_db.sqlalchemy import enginefacade

from zun_hostcap.cmd import db_manage
from zun_hostcap.db import api as db_api
from zun_hostcap.db import migration
from zun_hostcap.db import online_migrations
from zun_hostcap.db.sqlalchemy import api as sqla_api
from zun_hostcap.db.sqlalchemy import models
from zun_hostcap.tests import base
from zun_hostcap.tests import fixtures as zun_fixtures
from zun_hostcap.tests.functional import base as functional_base

PROG = 'zun-hostcap-db-manage'
NO_SCHEMA = ('%s: the database has no schema revision; create the schema '
             'with "%s upgrade"\n' % (PROG, PROG))


class TestSchemaCommands(base.TestCase):
    """upgrade, version and stamp: exact stdout, stderr and exit status."""

    def setUp(self):
        super().setUp()
        self.tmp = self.useFixture(fixtures.TempDir()).path
        self.db_file = os.path.join(self.tmp, 'zun-hostcap.sqlite')
        self.config = self._config('sqlite:///%s' % self.db_file)

    def _config(self, connection):
        return functional_base.write_config(
            os.path.join(self.tmp, 'zun-hostcap.conf'),
            {'DEFAULT': {'state_path': self.tmp},
             'database': {'connection': connection}})

    def _run(self, *args):
        result = subprocess.run(
            functional_base.console_script(PROG) +
            ['--config-file', self.config] + list(args),
            capture_output=True, text=True, timeout=60)
        return result.returncode, result.stdout, result.stderr

    def _tables(self):
        with sqlite3.connect(self.db_file) as conn:
            return {row[0] for row in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}

    def test_version_without_schema_says_so_on_stderr(self):
        self.assertEqual((1, '', NO_SCHEMA), self._run('version'))

    def test_upgrade_then_version_prints_only_the_revision(self):
        code, out, _err = self._run('upgrade')
        self.assertEqual((0, 'Database is at revision 0003\n'),
                         (code, out))
        self.assertEqual((0, '0003\n', ''), self._run('version'))

    def test_a_second_upgrade_has_nothing_to_say(self):
        code, _out, err = self._run('upgrade')
        self.assertEqual(0, code)
        self.assertIn('Running upgrade', err)
        code, out, err = self._run('upgrade')
        self.assertEqual((0, 'Database is at revision 0003\n'), (code, out))
        # No alembic line when the schema is at its head already.
        self.assertNotIn('alembic', err)

    def test_stamp_records_a_revision_without_migrating(self):
        self.assertEqual(0, self._run('upgrade')[0])
        self.assertEqual((0, 'Database has no revision (base)\n', ''),
                         self._run('stamp', 'base'))
        self.assertEqual((1, '', NO_SCHEMA), self._run('version'))
        # The tables stay: stamp only changes the recorded revision.
        self.assertIn('compute_nodes', self._tables())
        self.assertEqual((0, 'Database is at revision 0003\n', ''),
                         self._run('stamp', 'head'))
        self.assertEqual((0, '0003\n', ''), self._run('version'))

    def test_stamp_of_a_schema_made_elsewhere(self):
        # As after restoring a dump that lost the alembic_version table.
        migration.upgrade(engine=self._engine())
        migration.stamp('base', engine=self._engine())
        self.assertEqual((0, 'Database is at revision 0003\n', ''),
                         self._run('stamp', '0003'))

    def _engine(self):
        facade = enginefacade.transaction_context()
        facade.configure(connection='sqlite:///%s' % self.db_file)
        engine = facade.writer.get_engine()
        self.addCleanup(engine.dispose)
        return engine

    def test_unknown_revision_is_one_line_and_changes_nothing(self):
        message = "%s: Can't locate revision identified by 'nonsense'\n" % (
            PROG)
        self.assertEqual((1, '', message), self._run('stamp', 'nonsense'))
        self.assertEqual((1, '', message), self._run('upgrade', 'nonsense'))
        self.assertNotIn('alembic_version', self._tables())

    def test_unreachable_database_is_one_line(self):
        missing = os.path.join(self.tmp, 'no-such-dir', 'x.sqlite')
        self.config = self._config('sqlite:///%s' % missing)
        expected = ('%s: database sqlite:///%s: (sqlite3.OperationalError) '
                    'unable to open database file\n' % (PROG, missing))
        for command in (['version'], ['stamp', 'head'], ['upgrade']):
            self.assertEqual((1, '', expected), self._run(*command),
                             command)


class RestoreLogging(fixtures.Fixture):
    """Undo what oslo.log's setup does to this process's root logger."""

    def _setUp(self):
        root = logging.getLogger()
        handlers, level = list(root.handlers), root.level
        self.useFixture(fixtures.MonkeyPatch('sys.excepthook',
                                             sys.excepthook))

        def restore():
            for handler in list(root.handlers):
                root.removeHandler(handler)
            for handler in handlers:
                root.addHandler(handler)
            root.setLevel(level)
        self.addCleanup(restore)


class RegisteredMigrations(fixtures.Fixture):
    """Online data migrations of a test in place of the release's."""

    def __init__(self, *migrations):
        super().__init__()
        self.migrations = migrations

    def _setUp(self):
        self.useFixture(fixtures.MonkeyPatch(
            'zun_hostcap.db.online_migrations.MIGRATIONS',
            tuple(self.migrations)))


def fill_column(column, value, calls):
    """A migration that fills ``column`` of compute nodes where it is NULL.

    As the next release's will; ``calls`` collects the max_count given.
    """
    attribute = getattr(models.ComputeNode, column)

    @sqla_api.main_context_manager.writer
    def migrate(context, max_count, count_only=False):
        query = context.session.query(models.ComputeNode).filter(
            attribute.is_(None))
        if count_only:
            return query.count(), 0
        calls.append(max_count)
        nodes = query.limit(max_count).all()
        for node in nodes:
            setattr(node, column, value)
        return len(nodes), len(nodes)

    migrate.__name__ = 'fill_%s' % column
    return migrate


def create_nodes(context, count, prefix='host', **values):
    """``count`` compute nodes; ``values`` for the columns under test."""
    for i in range(count):
        db_api.compute_node_create(context, dict(
            hostname='%s-%03d' % (prefix, i), cpus=2, cpu_used=0.0,
            mem_total=1024, mem_free=512, mem_available=512, mem_buffers=0,
            mem_cached=0, mem_used=512, total_containers=0,
            running_containers=0, paused_containers=0, stopped_containers=0,
            disk_total=10, disk_used=1, disk_quota_supported=False,
            enable_cpu_pinning=False, **values))


def broken_migration(context, max_count, count_only=False):
    raise RuntimeError('the frobnicator is missing\nsecond line of detail')


EMPTY_TABLE = """\
+-----------+--------------+-----------+
| Migration | Total Needed | Completed |
+-----------+--------------+-----------+
+-----------+--------------+-----------+
"""


class TestOnlineDataMigrations(base.TestCase):

    def setUp(self):
        super().setUp()
        self.tmp = self.useFixture(fixtures.TempDir()).path
        self.db = self.useFixture(zun_fixtures.Database())
        self.config = functional_base.write_config(
            os.path.join(self.tmp, 'zun-hostcap.conf'),
            {'DEFAULT': {'state_path': self.tmp}})
        self.useFixture(RestoreLogging())

    def _null(self, column):
        with self.db.engine.connect() as conn:
            return conn.exec_driver_sql(
                'SELECT count(*) FROM compute_nodes WHERE %s IS NULL'
                % column).scalar()

    def _run(self, *args):
        out = self.useFixture(fixtures.StringStream('stdout')).stream
        err = self.useFixture(fixtures.StringStream('stderr')).stream
        self.useFixture(fixtures.MonkeyPatch('sys.stdout', out))
        self.useFixture(fixtures.MonkeyPatch('sys.stderr', err))
        try:
            code = db_manage.main([PROG, '--config-file', self.config,
                                   'online_data_migrations'] + list(args))
        finally:
            self.conf.reset()
            self.conf.unregister_opt(db_manage.COMMAND_OPT)
        out.seek(0)
        err.seek(0)
        return code, out.read(), err.read()

    def test_no_migrations(self):
        self.useFixture(RegisteredMigrations())
        self.assertEqual(
            (0, 'Running batches of 50 until complete\n' + EMPTY_TABLE, ''),
            self._run())

    def test_the_compute_nodes_of_2026_2_get_their_providers(self):
        self.assertEqual(
            ['create_compute_node_providers'],
            [online_migrations.name(m) for m in online_migrations.MIGRATIONS])
        create_nodes(self.context, 60)
        code, out, err = self._run()
        self.assertEqual((0, ''), (code, err))
        self.assertEqual(
            'Running batches of 50 until complete\n'
            'create_compute_node_providers: 50 rows found, 50 migrated\n'
            'create_compute_node_providers: 10 rows found, 10 migrated\n'
            '+-------------------------------+--------------+-----------+\n'
            '|           Migration           | Total Needed | Completed |\n'
            '+-------------------------------+--------------+-----------+\n'
            '| create_compute_node_providers |      60      |     60    |\n'
            '+-------------------------------+--------------+-----------+\n',
            out)
        with self.db.engine.connect() as conn:
            self.assertEqual(60, conn.exec_driver_sql(
                'SELECT count(*) FROM resource_providers rp JOIN '
                'compute_nodes cn ON cn.uuid = rp.uuid AND '
                'cn.hostname = rp.name').scalar())
        # Again: nothing to do.
        code, out, _err = self._run()
        self.assertEqual(0, code)
        self.assertNotIn('rows found', out)

    def test_batches_of_50_until_complete(self):
        calls = []
        self.useFixture(RegisteredMigrations(
            fill_column('os_type', 'linux', calls)))
        create_nodes(self.context, 120)
        code, out, _err = self._run()
        self.assertEqual(0, code)
        self.assertEqual(
            'Running batches of 50 until complete\n'
            'fill_os_type: 50 rows found, 50 migrated\n'
            'fill_os_type: 50 rows found, 50 migrated\n'
            'fill_os_type: 20 rows found, 20 migrated\n'
            '+--------------+--------------+-----------+\n'
            '|  Migration   | Total Needed | Completed |\n'
            '+--------------+--------------+-----------+\n'
            '| fill_os_type |     120      |    120    |\n'
            '+--------------+--------------+-----------+\n', out)
        # The last batch finds nothing: that is how the run knows.
        self.assertEqual([50, 50, 50, 50], calls)
        self.assertEqual(0, self._null('os_type'))

    def test_max_count_stops_early_and_asks_to_run_again(self):
        calls = []
        self.useFixture(RegisteredMigrations(
            fill_column('os_type', 'linux', calls)))
        create_nodes(self.context, 120)
        code, out, _err = self._run('--max-count', '70')
        self.assertEqual(1, code)
        self.assertEqual(
            'Running batches of up to 50 rows until 70 are migrated\n'
            'fill_os_type: 50 rows found, 50 migrated\n'
            'fill_os_type: 20 rows found, 20 migrated\n'
            '+--------------+--------------+-----------+\n'
            '|  Migration   | Total Needed | Completed |\n'
            '+--------------+--------------+-----------+\n'
            '| fill_os_type |      70      |     70    |\n'
            '+--------------+--------------+-----------+\n', out)
        self.assertEqual([50, 20], calls)
        self.assertEqual(50, self._null('os_type'))
        # An operator runs it again until it exits 0.
        self.assertEqual(1, self._run('--max-count', '70')[0])
        self.assertEqual(0, self._null('os_type'))
        code, out, _err = self._run('--max-count', '70')
        self.assertEqual(0, code)
        self.assertIn('| fill_os_type |      0       |     0     |', out)

    def test_migrations_share_a_batch_in_order(self):
        os_calls, arch_calls = [], []
        self.useFixture(RegisteredMigrations(
            fill_column('os_type', 'linux', os_calls),
            fill_column('architecture', 'x86_64', arch_calls)))
        create_nodes(self.context, 30)
        code, out, _err = self._run()
        self.assertEqual(0, code)
        self.assertEqual([50, 50, 50], os_calls)
        self.assertEqual([20, 50, 50], arch_calls)
        self.assertEqual(
            'Running batches of 50 until complete\n'
            'fill_os_type: 30 rows found, 30 migrated\n'
            'fill_architecture: 20 rows found, 20 migrated\n'
            'fill_architecture: 10 rows found, 10 migrated\n'
            '+-------------------+--------------+-----------+\n'
            '|     Migration     | Total Needed | Completed |\n'
            '+-------------------+--------------+-----------+\n'
            '|    fill_os_type   |      30      |     30    |\n'
            '| fill_architecture |      30      |     30    |\n'
            '+-------------------+--------------+-----------+\n', out)
        self.assertEqual((0, 0), (self._null('os_type'),
                                  self._null('architecture')))

    def test_invalid_max_count_is_127_and_migrates_nothing(self):
        calls = []
        self.useFixture(RegisteredMigrations(
            fill_column('os_type', 'linux', calls)))
        create_nodes(self.context, 3)
        for value in ('0', '-5', 'many'):
            self.assertEqual(
                (127, '', '%s: --max-count must be a positive integer, '
                          'not %r\n' % (PROG, value)),
                self._run('--max-count', value))
        self.assertEqual([], calls)
        self.assertEqual(3, self._null('os_type'))

    def test_a_failing_migration_is_reported_and_the_others_run(self):
        calls = []
        self.useFixture(RegisteredMigrations(
            broken_migration, fill_column('os_type', 'linux', calls)))
        create_nodes(self.context, 60)
        code, out, err = self._run()
        # The others finished, but the broken one never will by itself.
        self.assertEqual(2, code)
        self.assertEqual(0, self._null('os_type'))
        self.assertEqual(
            'Running batches of 50 until complete\n'
            'fill_os_type: 50 rows found, 50 migrated\n'
            'fill_os_type: 10 rows found, 10 migrated\n'
            '+------------------+--------------+-----------+\n'
            '|    Migration     | Total Needed | Completed |\n'
            '+------------------+--------------+-----------+\n'
            '| broken_migration |      0       |     0     |\n'
            '|   fill_os_type   |      60      |     60    |\n'
            '+------------------+--------------+-----------+\n'
            'Some migrations failed: broken_migration. The log on stderr '
            'says why; fix the cause and run this command again.\n', out)
        # One line per batch that ran it, without a traceback.
        failures = [line for line in err.splitlines()
                    if 'broken_migration' in line]
        self.assertEqual(3, len(failures), err)
        self.assertIn('ERROR zun_hostcap.db.online_migrations', failures[0])
        self.assertTrue(failures[0].endswith(
            'Online data migration broken_migration failed: the '
            'frobnicator is missing'), failures[0])
        self.assertNotIn('Traceback', err)

    def test_failure_alongside_progress_with_max_count_is_1(self):
        calls = []
        self.useFixture(RegisteredMigrations(
            broken_migration, fill_column('os_type', 'linux', calls)))
        create_nodes(self.context, 30)
        # Rows moved: the failure may resolve once the others are done.
        self.assertEqual(1, self._run('--max-count', '10')[0])
        self.assertEqual(20, self._null('os_type'))

    def test_only_failures_with_max_count_is_2(self):
        self.useFixture(RegisteredMigrations(
            broken_migration, fill_column('os_type', 'linux', [])))
        self.assertEqual(2, self._run('--max-count', '10')[0])


class TestDatabaseURL(base.TestCase):

    def test_password_is_hidden(self):
        self.flags(connection='mysql+pymysql://zun:s3cret@db/zun',
                   group='database')
        self.assertEqual('mysql+pymysql://zun:***@db/zun',
                         migration.database_url())
