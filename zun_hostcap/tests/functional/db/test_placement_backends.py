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

"""The resource provider model on MariaDB and PostgreSQL.

The unit tests of the model run on SQLite; these run the parts that
depend on the engine (standard ids stored as they are, writers racing for
one provider, what the notifications read of the state before a write,
the allocation candidates' statements) on the servers of every
deployment, failing in CI when one is missing.
"""

from zun_hostcap.tests import base
from zun_hostcap.tests import fixtures
from zun_hostcap.tests.functional import base as functional_base
from zun_hostcap.tests.unit.api import test_metrics
from zun_hostcap.tests.unit.placement import test_allocation_candidates
from zun_hostcap.tests.unit.placement import test_allocations
from zun_hostcap.tests.unit.placement import test_notifications
from zun_hostcap.tests.unit.placement import test_reshaper
from zun_hostcap.tests.unit.placement import test_resource_classes
from zun_hostcap.tests.unit.placement import test_resource_providers

ConcurrentAllocationsMixin = test_allocations.ConcurrentAllocationsMixin
ConcurrentReshapeMixin = test_reshaper.ConcurrentReshapeMixin
DeleteByConsumerMixin = test_allocations.DeleteByConsumerMixin
LookupTests = test_resource_classes.LookupTests
ListingTests = test_resource_providers.ListingTests
ThrowAwayDatabase = test_resource_classes.ThrowAwayDatabase
MYSQL_ADMIN_URL = test_resource_classes.MYSQL_ADMIN_URL
POSTGRESQL_ADMIN_URL = test_resource_classes.POSTGRESQL_ADMIN_URL


class MariaDBTestCase(LookupTests, ListingTests, base.TestCase):

    def setUp(self):
        super().setUp()
        self.database = self.useFixture(
            ThrowAwayDatabase(self, MYSQL_ADMIN_URL))


class PostgreSQLTestCase(LookupTests, ListingTests, base.TestCase):

    def setUp(self):
        super().setUp()
        self.database = self.useFixture(
            ThrowAwayDatabase(self, POSTGRESQL_ADMIN_URL))


def use_mariadb(test):
    """Run ``test``'s model on a throw-away MariaDB database.

    :returns: the tests.fixtures.Database fixture.
    """
    functional_base.require_port(test, 'MariaDB', 3306)
    db = test.useFixture(functional_base.MySQLDatabase())
    return test.useFixture(fixtures.Database(connection=db.url))


def use_postgresql(test):
    """Run ``test``'s model on a throw-away PostgreSQL database.

    :returns: the tests.fixtures.Database fixture.
    """
    functional_base.require_port(test, 'PostgreSQL', 5432)
    from zun_hostcap.tests.functional import test_operations
    db = test.useFixture(test_operations.PostgreSQLDatabase())
    return test.useFixture(fixtures.Database(connection=db.url))


class MariaDBAllocationsTestCase(ConcurrentAllocationsMixin,
                                 DeleteByConsumerMixin, base.TestCase):

    def setUp(self):
        super().setUp()
        use_mariadb(self)


class PostgreSQLAllocationsTestCase(ConcurrentAllocationsMixin,
                                    DeleteByConsumerMixin, base.TestCase):

    def setUp(self):
        super().setUp()
        use_postgresql(self)


class MariaDBReshapeTestCase(ConcurrentReshapeMixin, base.TestCase):

    def setUp(self):
        super().setUp()
        use_mariadb(self)


class PostgreSQLReshapeTestCase(ConcurrentReshapeMixin, base.TestCase):

    def setUp(self):
        super().setUp()
        use_postgresql(self)


class MariaDBNotificationsTestCase(
        test_notifications.TestPlacementNotifications):

    def setUp(self):
        super().setUp()
        use_mariadb(self)


class PostgreSQLNotificationsTestCase(
        test_notifications.TestPlacementNotifications):

    def setUp(self):
        super().setUp()
        use_postgresql(self)


class MariaDBCandidatesTestCase(test_allocation_candidates.CandidateTests,
                                base.TestCase):

    def setUp(self):
        super().setUp()
        self.database = use_mariadb(self)


class PostgreSQLCandidatesTestCase(
        test_allocation_candidates.CandidateTests, base.TestCase):

    def setUp(self):
        super().setUp()
        self.database = use_postgresql(self)


class MariaDBMetricsTestCase(test_metrics.TestPlacementFamilies):
    """/metrics' one statement for every inventory, on MariaDB."""

    def setUp(self):
        super().setUp()
        self.database = use_mariadb(self)


class PostgreSQLMetricsTestCase(test_metrics.TestPlacementFamilies):
    """/metrics' one statement for every inventory, on PostgreSQL."""

    def setUp(self):
        super().setUp()
        self.database = use_postgresql(self)
