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

"""Consumers, projects, users and consumer types in the database."""

from oslo_db import exception as db_exc
from oslo_utils import uuidutils
import sqlalchemy as sa

from zun_hostcap.common import exception
from zun_hostcap.db.sqlalchemy.placement import common
from zun_hostcap.db.sqlalchemy.placement import consumers as consumer_db
from zun_hostcap import objects
from zun_hostcap.tests import base
from zun_hostcap.tests import fixtures


@common.writer
def _ensure(context, *args):
    return consumer_db.ensure_ids(context, *args)


@common.writer
def _create(context, uuid, project, user, ctype=None):
    projects, users, types = consumer_db.ensure_ids(
        context, [project], [user], [ctype] if ctype else [])
    consumer_db.create(context, [{
        'uuid': uuid, 'project_id': projects[project],
        'user_id': users[user], 'generation': 1,
        'consumer_type_id': types.get(ctype)}])


@common.writer
def _bump(context, uuid, expected):
    row = consumer_db.consumer_rows(context, [uuid])[uuid]
    return consumer_db.increment_generation(context, row.id, expected)


@common.writer
def _delete_unused(context, uuids):
    consumer_db.delete_if_no_allocations(context, uuids)


class ConsumersTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.database = self.useFixture(fixtures.Database())
        self.uuid = uuidutils.generate_uuid()

    def test_ensure_ids_makes_missing_once(self):
        first = _ensure(self.context, ['p1', 'p2'], ['u1'], ['INSTANCE'])
        self.assertEqual({'p1', 'p2'}, set(first[0]))
        self.assertEqual({'u1'}, set(first[1]))
        self.assertEqual({'INSTANCE'}, set(first[2]))
        writes = self.database.count_writes()
        self.assertEqual(first, _ensure(self.context, ['p1', 'p2'], ['u1'],
                                        ['INSTANCE']))
        self.assertEqual([], writes)
        self.assertEqual(({}, {}, {}), _ensure(self.context, [], [], []))

    def test_known_ids_need_no_query(self):
        first = _ensure(self.context, ['p1'], ['u1'], ['INSTANCE'])
        # Made by that transaction: not known until read committed.
        _ensure(self.context, ['p1'], ['u1'], ['INSTANCE'])
        statements = self.database.count_statements()
        self.assertEqual(first, _ensure(self.context, ['p1'], ['u1'],
                                        ['INSTANCE']))
        self.assertEqual([], statements)
        # Only what is not known yet is looked up (and made).
        second = _ensure(self.context, ['p1', 'p2'], ['u1'], [])
        self.assertEqual(first[0]['p1'], second[0]['p1'])
        self.assertEqual({'p1', 'p2'}, set(second[0]))
        self.assertTrue(statements)
        self.assertNotIn("'p1'", ' '.join(statements))

    def test_ids_of_a_rolled_back_transaction_are_not_kept(self):
        class Abort(Exception):
            pass

        @common.writer
        def make_then_fail(context):
            _ensure(context, ['lost'], ['lost'], ['LOST'])
            raise Abort()

        self.assertRaises(Abort, make_then_fail, self.context)
        # Nothing of the rolled back transaction is remembered: the rows
        # are made again, and a consumer can use them.
        _create(self.context, self.uuid, 'lost', 'lost', 'LOST')
        consumer = objects.Consumer.get_by_uuid(self.context, self.uuid)
        self.assertEqual(('lost', 'lost', 'LOST'),
                         (consumer.project_id, consumer.user_id,
                          consumer.consumer_type))

    def test_consumer(self):
        self.assertRaises(exception.ConsumerNotFound,
                          objects.Consumer.get_by_uuid, self.context,
                          self.uuid)
        _create(self.context, self.uuid, 'p', 'u', 'INSTANCE')
        consumer = objects.Consumer.get_by_uuid(self.context, self.uuid)
        self.assertEqual(('p', 'u', 1, 'INSTANCE'),
                         (consumer.project_id, consumer.user_id,
                          consumer.generation, consumer.consumer_type))
        self.assertFalse(_bump(self.context, self.uuid, 0))
        self.assertTrue(_bump(self.context, self.uuid, 1))
        self.assertEqual(2, objects.Consumer.get_by_uuid(
            self.context, self.uuid).generation)

    def test_no_type(self):
        _create(self.context, self.uuid, 'p', 'u')
        self.assertIsNone(objects.Consumer.get_by_uuid(
            self.context, self.uuid).consumer_type)

    def test_delete_if_no_allocations(self):
        _create(self.context, self.uuid, 'p', 'u')
        _delete_unused(self.context, [self.uuid])
        self.assertRaises(exception.ConsumerNotFound,
                          consumer_db.get_by_uuid, self.context, self.uuid)

    def test_duplicate_consumer_is_refused(self):
        _create(self.context, self.uuid, 'p', 'u')
        self.assertRaises(db_exc.DBDuplicateEntry, _create, self.context,
                          self.uuid, 'p', 'u')
        with self.database.engine.connect() as conn:
            self.assertEqual(1, conn.execute(
                sa.select(sa.func.count()).select_from(
                    consumer_db.CONSUMER)).scalar())
