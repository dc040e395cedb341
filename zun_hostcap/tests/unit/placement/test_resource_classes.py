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

"""Resource classes in the database: the standard sync, the name cache,
and the custom classes' create, rename and delete."""

import os
import threading
import uuid

import os_resource_classes as orc
from oslo_utils import uuidutils
import sqlalchemy as sa

from zun_hostcap.common import exception
from zun_hostcap.db.sqlalchemy import models
from zun_hostcap.db.sqlalchemy.placement import common
from zun_hostcap.db.sqlalchemy.placement import resource_classes as rc_db
from zun_hostcap.db.sqlalchemy.placement import resource_providers as rp_db
from zun_hostcap.db.sqlalchemy.placement import traits as trait_db
from zun_hostcap import objects
from zun_hostcap.tests import base
from zun_hostcap.tests import fixtures
from zun_hostcap.tests.functional import base as functional_base

RC = models.ResourceClass.__table__
INV = models.Inventory.__table__
ALLOC = models.Allocation.__table__

MYSQL_ADMIN_URL = os.environ.get(
    'ZUN_HOSTCAP_TEST_MYSQL_URL',
    'mysql+pymysql://openstack_citest:openstack_citest@127.0.0.1:3306/')
POSTGRESQL_ADMIN_URL = os.environ.get(
    'ZUN_HOSTCAP_TEST_POSTGRESQL_URL',
    'postgresql+psycopg://openstack_citest:openstack_citest@127.0.0.1:'
    '5432/postgres')


def _rows(engine, table):
    with engine.connect() as conn:
        return [tuple(row) for row in conn.execute(
            sa.select(table.c.id, table.c.name).order_by(table.c.id))]


class ThrowAwayDatabase(fixtures.Database):
    """A fresh database on a MariaDB or PostgreSQL server, if it answers.

    The test is skipped when the server is not reachable, or fails in CI.
    """

    def __init__(self, test, admin_url):
        super().__init__()
        self.test = test
        self.admin_url = admin_url

    def _setUp(self):
        name = 'zhc_rc_%s' % uuid.uuid4().hex[:12]
        admin = sa.create_engine(self.admin_url,
                                 isolation_level='AUTOCOMMIT')
        self.addCleanup(admin.dispose)
        try:
            with admin.connect() as conn:
                conn.execute(sa.text('CREATE DATABASE %s' % name))
        except Exception as exc:
            functional_base.require(self.test, False, '%s is not available: %s'
                                    % (admin.dialect.name, exc))

        def drop():
            with admin.connect() as conn:
                conn.execute(sa.text('DROP DATABASE IF EXISTS %s' % name))
        self.addCleanup(drop)
        url = sa.engine.make_url(self.admin_url).set(database=name)
        if url.get_backend_name() == 'mysql':
            url = url.update_query_dict({'charset': 'utf8mb4'})
        self.connection = url.render_as_string(hide_password=False)
        super()._setUp()


class LookupTests(object):
    """What every backend must do; ``self.database`` is set up."""

    def test_standard_ids_are_their_index(self):
        names = list(orc.STANDARDS)
        ids = rc_db.ids_for_names(self.context, names)
        self.assertEqual({name: index for index, name in enumerate(names)},
                         ids)
        self.assertEqual(list(enumerate(names)),
                         _rows(self.database.engine, RC))
        self.assertEqual({0: 'VCPU', 2: 'DISK_GB'},
                         rc_db.names_for_ids(self.context, [0, 2]))
        self.assertEqual(1, rc_db.id_for_name(self.context, 'MEMORY_MB'))

    def test_unknown(self):
        exc = self.assertRaises(exception.ResourceClassNotFound,
                                rc_db.ids_for_names, self.context,
                                ['VCPU', 'CUSTOM_NOPE'])
        self.assertEqual(404, exc.code)
        self.assertIn('CUSTOM_NOPE', exc.message)
        self.assertRaises(exception.ResourceClassNotFound,
                          rc_db.names_for_ids, self.context, [0, 9999])

    def test_custom_classes(self):
        rc_db.ensure_standard(self.context)
        first = rc_db.create(self.context, 'CUSTOM_A')
        second = rc_db.create(self.context, 'CUSTOM_B')
        self.assertEqual(rc_db.MIN_CUSTOM_ID, first['id'])
        self.assertEqual(rc_db.MIN_CUSTOM_ID + 1, second['id'])
        self.assertIsNotNone(first['created_at'])
        self.assertEqual({'CUSTOM_A': first['id'], 'VCPU': 0},
                         rc_db.ids_for_names(self.context,
                                             ['CUSTOM_A', 'VCPU']))
        exc = self.assertRaises(exception.ResourceClassExists,
                                rc_db.create, self.context, 'CUSTOM_A')
        self.assertEqual('placement.undefined_code', exc.error_code)

    def test_sync_inside_a_writer_after_a_write(self):
        """The first lookup may come in another module's transaction."""
        provider = uuidutils.generate_uuid()

        @common.writer
        def write_then_look_up(context):
            context.session.execute(models.User.__table__.insert().values(
                external_id='someone'))
            return (rc_db.ids_for_names(context, ['VCPU', 'DISK_GB']),
                    trait_db.ids_for_names(context, ['HW_CPU_X86_AVX']),
                    rp_db.create(context, provider, 'rp'))

        classes, traits, _rp = write_then_look_up(self.context)
        self.assertEqual({'VCPU': 0, 'DISK_GB': 2}, classes)
        self.assertEqual(['HW_CPU_X86_AVX'], list(traits))
        self.assertEqual(classes,
                         rc_db.ids_for_names(self.context,
                                             ['VCPU', 'DISK_GB']))
        self.assertEqual(traits, trait_db.ids_for_names(
            self.context, ['HW_CPU_X86_AVX']))

    def test_sync_inside_a_reader(self):
        @common.reader
        def look_up(context):
            return (rc_db.ids_for_names(context, ['VCPU']),
                    sorted(trait_db.ids_for_names(
                        context, ['HW_CPU_X86_AVX', 'COMPUTE_NODE'])))

        self.assertEqual(({'VCPU': 0}, ['COMPUTE_NODE', 'HW_CPU_X86_AVX']),
                         look_up(self.context))
        # (On SQLite the reader's sync is rolled back with it.)
        rc_db.ensure_standard(self.context)
        self.assertEqual(len(orc.STANDARDS),
                         len(_rows(self.database.engine, RC)))


class SQLiteTestCase(LookupTests, base.TestCase):

    def setUp(self):
        super().setUp()
        self.database = self.useFixture(fixtures.Database())

    def test_synchronised_once(self):
        rc_db.ids_for_names(self.context, ['VCPU'])
        writes = self.database.count_writes()
        for _ in range(3):
            rc_db.ids_for_names(self.context, ['VCPU', 'MEMORY_MB'])
            rc_db.names_for_ids(self.context, [0, 1])
            rc_db.ensure_standard(self.context)
        self.assertEqual([], writes)

    def test_cached(self):
        rc_db.ids_for_names(self.context, ['VCPU'])
        statements = []

        def count(conn, cursor, statement, *args):
            statements.append(statement)
        sa.event.listen(self.database.engine, 'before_cursor_execute',
                        count)
        self.addCleanup(sa.event.remove, self.database.engine,
                        'before_cursor_execute', count)
        rc_db.ids_for_names(self.context, orc.STANDARDS)
        rc_db.names_for_ids(self.context, range(len(orc.STANDARDS)))
        self.assertEqual([], [s for s in statements
                              if 'resource_classes' in s])

    def test_rolled_back_sync_is_not_remembered(self):
        """A sync in the caller's SQLite transaction that rolls back."""

        class Boom(Exception):
            pass

        @common.writer
        def fail(context):
            context.session.execute(models.User.__table__.insert().values(
                external_id='someone'))
            rc_db.ids_for_names(context, ['VCPU'])
            raise Boom()

        self.assertRaises(Boom, fail, self.context)
        self.assertEqual([], _rows(self.database.engine, RC))
        self.assertEqual({'VCPU': 0},
                         rc_db.ids_for_names(self.context, ['VCPU']))
        self.assertEqual(len(orc.STANDARDS),
                         len(_rows(self.database.engine, RC)))

    def test_another_process_synchronised_first(self):
        """Rows already there (another process): nothing is written."""
        rc_db.CACHE.ensure(self.context)
        other = common.NameCache(RC, rc_db._standard_rows,
                                 rc_db._is_custom, 'resource classes')
        writes = self.database.count_writes()
        other.ensure(self.context)
        self.assertEqual({'VCPU': 0},
                         other.ids_for_names(self.context, ['VCPU']))
        self.assertEqual([], writes)

    def test_concurrent_first_use(self):
        """Threads of two "processes" sync the same database at once."""
        caches = [rc_db.CACHE,
                  common.NameCache(RC, rc_db._standard_rows,
                                   rc_db._is_custom, 'resource classes')]
        results, errors = [], []

        def look_up(cache):
            try:
                results.append(cache.ids_for_names(self.context,
                                                   ['VCPU', 'PCPU']))
            except Exception as exc:
                errors.append(exc)

        threads = [threading.Thread(target=look_up, args=(caches[i % 2],))
                   for i in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual([], errors)
        self.assertEqual(8 * [{'VCPU': 0, 'PCPU': orc.STANDARDS.index(
            'PCPU')}], results)
        self.assertEqual(len(orc.STANDARDS),
                         len(_rows(self.database.engine, RC)))

    def test_a_new_database_is_synchronised_again(self):
        rc_db.ids_for_names(self.context, ['VCPU'])
        rc_db.create(self.context, 'CUSTOM_OLD')
        self.useFixture(fixtures.Database())
        self.assertEqual({'VCPU': 0},
                         rc_db.ids_for_names(self.context, ['VCPU']))
        self.assertRaises(exception.ResourceClassNotFound,
                          rc_db.ids_for_names, self.context, ['CUSTOM_OLD'])

    def test_custom_class_created_elsewhere_is_found(self):
        """A miss looks in the table before it is an error."""
        rc_db.ensure_standard(self.context)
        self.assertRaises(exception.ResourceClassNotFound,
                          rc_db.id_for_name, self.context, 'CUSTOM_LATE')
        with self.database.engine.begin() as conn:
            conn.execute(RC.insert().values(id=12345, name='CUSTOM_LATE'))
        self.assertEqual(12345, rc_db.id_for_name(self.context,
                                                  'CUSTOM_LATE'))
        self.assertEqual({12345: 'CUSTOM_LATE'},
                         rc_db.names_for_ids(self.context, [12345]))

    def test_delete_clears_the_cache(self):
        created = rc_db.create(self.context, 'CUSTOM_GONE')
        self.assertEqual(created['id'],
                         rc_db.id_for_name(self.context, 'CUSTOM_GONE'))
        rc_db.delete(self.context, 'CUSTOM_GONE')
        self.assertRaises(exception.ResourceClassNotFound,
                          rc_db.id_for_name, self.context, 'CUSTOM_GONE')
        self.assertRaises(exception.ResourceClassNotFound,
                          rc_db.names_for_ids, self.context,
                          [created['id']])
        # Ids are not reused while a later one exists, and restart above.
        again = rc_db.create(self.context, 'CUSTOM_GONE')
        self.assertEqual(rc_db.MIN_CUSTOM_ID, again['id'])

    def test_rename(self):
        created = rc_db.create(self.context, 'CUSTOM_OLD')
        rc_db.id_for_name(self.context, 'CUSTOM_OLD')
        renamed = rc_db.update(self.context, 'CUSTOM_OLD', 'CUSTOM_NEW')
        self.assertEqual(created['id'], renamed['id'])
        self.assertEqual('CUSTOM_NEW', renamed['name'])
        self.assertIsNotNone(renamed['updated_at'])
        self.assertEqual(created['id'],
                         rc_db.id_for_name(self.context, 'CUSTOM_NEW'))
        self.assertRaises(exception.ResourceClassNotFound,
                          rc_db.id_for_name, self.context, 'CUSTOM_OLD')
        self.assertEqual({created['id']: 'CUSTOM_NEW'},
                         rc_db.names_for_ids(self.context, [created['id']]))

    def test_rename_errors(self):
        rc_db.create(self.context, 'CUSTOM_A')
        rc_db.create(self.context, 'CUSTOM_B')
        self.assertRaises(exception.ResourceClassNotFound, rc_db.update,
                          self.context, 'CUSTOM_NONE', 'CUSTOM_C')
        self.assertRaises(exception.ResourceClassCannotUpdateStandard,
                          rc_db.update, self.context, 'VCPU', 'CUSTOM_C')
        self.assertRaises(exception.ResourceClassExists, rc_db.update,
                          self.context, 'CUSTOM_A', 'CUSTOM_B')
        self.assertEqual('CUSTOM_A',
                         rc_db.update(self.context, 'CUSTOM_A',
                                      'CUSTOM_A')['name'])

    def test_delete_errors(self):
        self.assertRaises(exception.ResourceClassNotFound, rc_db.delete,
                          self.context, 'CUSTOM_NONE')
        exc = self.assertRaises(exception.ResourceClassCannotDeleteStandard,
                                rc_db.delete, self.context, 'VCPU')
        self.assertEqual(400, exc.code)

    def test_in_use(self):
        class_id = rc_db.create(self.context, 'CUSTOM_USED')['id']
        with self.database.engine.begin() as conn:
            conn.execute(ALLOC.insert().values(
                resource_provider_id=1, consumer_id='c',
                resource_class_id=class_id, used=1))
        exc = self.assertRaises(exception.ResourceClassInUse, rc_db.delete,
                                self.context, 'CUSTOM_USED')
        self.assertEqual(409, exc.code)
        with self.database.engine.begin() as conn:
            conn.execute(ALLOC.delete())
            conn.execute(INV.insert().values(
                resource_provider_id=1, resource_class_id=class_id,
                total=1, reserved=0, min_unit=1, max_unit=1, step_size=1,
                allocation_ratio=1.0))
        self.assertRaises(exception.ResourceClassInUse, rc_db.delete,
                          self.context, 'CUSTOM_USED')
        with self.database.engine.begin() as conn:
            conn.execute(INV.delete())
        rc_db.delete(self.context, 'CUSTOM_USED')

    def test_get_all(self):
        rc_db.create(self.context, 'CUSTOM_Z')
        rows = rc_db.get_all(self.context)
        self.assertEqual(list(orc.STANDARDS) + ['CUSTOM_Z'],
                         [row['name'] for row in rows])
        self.assertIsNone(rows[0]['created_at'])
        self.assertIsNotNone(rows[-1]['created_at'])

    def test_objects(self):
        rc = objects.ResourceClass(self.context, name='CUSTOM_OBJ')
        rc.create()
        self.assertEqual(rc_db.MIN_CUSTOM_ID, rc.id)
        self.assertFalse(rc.is_standard)
        vcpu = objects.ResourceClass.get_by_name(self.context, 'VCPU')
        self.assertTrue(vcpu.is_standard)
        self.assertIsNone(vcpu.created_at)
        rc.name = 'CUSTOM_RENAMED'
        rc.rename('CUSTOM_OBJ')
        self.assertEqual('CUSTOM_RENAMED', objects.ResourceClass.get_by_name(
            self.context, 'CUSTOM_RENAMED').name)
        self.assertEqual(
            len(orc.STANDARDS) + 1,
            len(objects.ResourceClassList.get_all(self.context)))
        rc.destroy()
        self.assertRaises(exception.ResourceClassNotFound,
                          objects.ResourceClass.get_by_name, self.context,
                          'CUSTOM_RENAMED')
