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

"""The migrations build exactly the schema the models describe.

Runs on SQLite always, and on MariaDB and PostgreSQL through oslo.db's
opportunistic fixtures (user openstack_citest, made by
tools/test-setup.sh). Without those servers the tests skip, except in CI
where they fail.
"""

from oslo_db.sqlalchemy import enginefacade
from oslo_db.sqlalchemy import test_fixtures
from oslo_db.sqlalchemy import test_migrations
from oslotest import base
import sqlalchemy as sa

from zun_hostcap.db import migration
from zun_hostcap.db.sqlalchemy import models
from zun_hostcap.tests.functional import base as functional_base


class _MigrationsMixin(test_fixtures.OpportunisticDBTestMixin,
                       test_migrations.ModelsMigrationsSync):

    SKIP_ON_UNAVAILABLE_DB = not functional_base.CI

    def setUp(self):
        super().setUp()
        self.engine = enginefacade.writer.get_engine()

    def get_engine(self):
        return self.engine

    def get_metadata(self):
        return models.Base.metadata

    def db_sync(self, engine):
        migration.upgrade('head', engine=engine)

    def test_upgrade_is_idempotent_and_versioned(self):
        self.db_sync(self.engine)
        self.db_sync(self.engine)
        self.assertEqual('0003', migration.version(engine=self.engine))
        tables = set(sa.inspect(self.engine).get_table_names())
        self.assertEqual({'compute_nodes', 'services'},
                         tables & {'compute_nodes', 'services'})

    def test_unique_constraints(self):
        self.db_sync(self.engine)
        inspector = sa.inspect(self.engine)
        names = {c['name'] for c in
                 inspector.get_unique_constraints('compute_nodes')}
        self.assertIn('uniq_compute_nodes0hostname', names)
        self.assertIn('uniq_compute_nodes0uuid', names)


class TestMigrationsSQLite(_MigrationsMixin, base.BaseTestCase):
    pass


class TestMigrationsMySQL(_MigrationsMixin, base.BaseTestCase):
    FIXTURE = test_fixtures.MySQLOpportunisticFixture


class TestMigrationsPostgreSQL(_MigrationsMixin, base.BaseTestCase):
    FIXTURE = test_fixtures.PostgresqlOpportunisticFixture
