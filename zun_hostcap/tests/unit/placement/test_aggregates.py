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

"""Provider aggregates in the database."""

from oslo_utils import uuidutils
import sqlalchemy as sa

from zun_hostcap.common import exception
from zun_hostcap.db.sqlalchemy import models
from zun_hostcap.db.sqlalchemy.placement import aggregates as agg_db
from zun_hostcap.db.sqlalchemy.placement import common
from zun_hostcap.db.sqlalchemy.placement import resource_providers as rp_db
from zun_hostcap.tests import base
from zun_hostcap.tests import fixtures

AGG = models.PlacementAggregate.__table__


@common.reader
def _aggregate_rows(context):
    return context.session.execute(
        sa.select(sa.func.count()).select_from(AGG)).scalar()


class AggregatesTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.database = self.useFixture(fixtures.Database())
        self.uuid = uuidutils.generate_uuid()
        rp_db.create(self.context, self.uuid, 'rp')
        self.aggs = sorted(uuidutils.generate_uuid() for _ in range(3))

    def test_none(self):
        self.assertEqual((0, []),
                         agg_db.get_by_provider(self.context, self.uuid))

    def test_not_found(self):
        missing = uuidutils.generate_uuid()
        self.assertRaises(exception.ResourceProviderNotFound,
                          agg_db.get_by_provider, self.context, missing)
        self.assertRaises(exception.ResourceProviderNotFound,
                          agg_db.set_for_provider, self.context, missing,
                          [])

    def test_set_with_generation(self):
        self.assertEqual(1, agg_db.set_for_provider(
            self.context, self.uuid, self.aggs[:2], 0))
        self.assertEqual((1, self.aggs[:2]),
                         agg_db.get_by_provider(self.context, self.uuid))
        self.assertEqual(2, agg_db.set_for_provider(
            self.context, self.uuid, self.aggs[1:], 1))
        self.assertEqual((2, self.aggs[1:]),
                         agg_db.get_by_provider(self.context, self.uuid))

    def test_stale_generation(self):
        agg_db.set_for_provider(self.context, self.uuid, self.aggs[:1], 0)
        exc = self.assertRaises(exception.ResourceProviderConcurrentUpdate,
                                agg_db.set_for_provider, self.context,
                                self.uuid, self.aggs, 0)
        self.assertEqual('placement.concurrent_update', exc.error_code)
        self.assertEqual((1, self.aggs[:1]),
                         agg_db.get_by_provider(self.context, self.uuid))

    def test_set_without_generation(self):
        self.assertEqual(0, agg_db.set_for_provider(
            self.context, self.uuid, self.aggs))
        self.assertEqual((0, self.aggs),
                         agg_db.get_by_provider(self.context, self.uuid))

    def test_rows_are_shared_and_kept(self):
        other = uuidutils.generate_uuid()
        rp_db.create(self.context, other, 'other')
        agg_db.set_for_provider(self.context, self.uuid, self.aggs)
        agg_db.set_for_provider(self.context, other, self.aggs[:1])
        self.assertEqual(3, _aggregate_rows(self.context))
        agg_db.set_for_provider(self.context, self.uuid, [])
        agg_db.set_for_provider(self.context, other, [])
        # An aggregate is only a uuid; its row stays, as in Placement.
        self.assertEqual(3, _aggregate_rows(self.context))
        self.assertEqual((0, []),
                         agg_db.get_by_provider(self.context, other))

    def test_membership_in_filters(self):
        agg_db.set_for_provider(self.context, self.uuid, self.aggs[:1])
        providers = rp_db.get_all_by_filters(
            self.context, {'member_of': [set(self.aggs[:1])]})
        self.assertEqual([self.uuid], [p['uuid'] for p in providers])
