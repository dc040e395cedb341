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

"""A database that cannot be reached: 503s and warnings, not 500s.

The "down" database is a MariaDB URL on a port nobody listens on, so the
real driver fails the real way (connection refused), quickly: oslo.db is
told not to retry.
"""

import logging

import fixtures
from oslo_db.sqlalchemy import enginefacade
import webob

from zun_hostcap.api import app
from zun_hostcap.common import exception
from zun_hostcap.conductor import manager as conductor_manager
from zun_hostcap.db import api as db_api
from zun_hostcap.db.sqlalchemy import api as sqla_api
from zun_hostcap import objects
from zun_hostcap import service
from zun_hostcap.tests import base
from zun_hostcap.tests import fixtures as zun_fixtures
from zun_hostcap.tests.functional import base as functional_base
from zun_hostcap.tests import gabbi_fixtures
from zun_hostcap.tests.unit.objects import test_compute_node

DOWN = 'mysql+pymysql://nobody:nothing@127.0.0.1:%d/zun_hostcap'


class UnreachableDatabase(fixtures.Fixture):
    """[database] connection names a server that is not there."""

    def _setUp(self):
        facade = enginefacade.transaction_context()
        facade.configure(connection=DOWN % functional_base.free_port(),
                         max_retries=0)
        self.addCleanup(sqla_api.main_context_manager.patch_factory(
            facade._factory))


class TestDatabaseAPI(base.TestCase):

    def test_an_unreachable_database_is_database_unavailable(self):
        self.useFixture(UnreachableDatabase())
        err = self.assertRaises(exception.DatabaseUnavailable,
                                db_api.service_get_all, self.context)
        self.assertEqual(503, err.code)
        # Clients are told to retry; the log gets the driver's words.
        self.assertEqual('The database cannot be reached; try again later.',
                         err.message)
        self.assertIn("Can't connect to MySQL server", err.kwargs['reason'])

    def test_a_bad_query_is_not_an_outage(self):
        self.useFixture(zun_fixtures.Database())
        self.assertRaises(exception.InvalidSortKey,
                          db_api.compute_node_get_all, self.context,
                          sort_key='nope')


class TestAPI(base.TestCase):

    def setUp(self):
        super().setUp()
        gabbi_fixtures.use(self)
        self.useFixture(UnreachableDatabase())
        self.log = self.useFixture(fixtures.FakeLogger(
            name='zun_hostcap', level=logging.INFO))
        self.app = app.setup_app()

    def _get(self, path):
        return webob.Request.blank(path, headers={
            'X-Auth-Token': 'admin',
            'OpenStack-API-Version': 'container latest'}).get_response(
                self.app)

    def test_every_route_answers_503_with_one_log_line(self):
        for path in ('/v1/hosts', '/v1/hosts/host-a', '/v1/services'):
            resp = self._get(path)
            self.assertEqual(503, resp.status_int, path)
            self.assertEqual('application/json', resp.content_type)
            error = resp.json['errors'][0]
            self.assertEqual('container.database_unavailable', error['code'])
            self.assertEqual('The database cannot be reached; try again '
                             'later', error['title'])
            self.assertEqual(resp.headers['x-openstack-request-id'],
                             error['request_id'])
        self.assertNotIn('Traceback', self.log.output)
        warnings = [line for line in self.log.output.splitlines()
                    if 'cannot be reached' in line]
        self.assertEqual(3, len(warnings), self.log.output)
        self.assertIn("Can't connect to MySQL server", warnings[0])

    def test_routes_without_the_database_still_answer(self):
        self.assertEqual(200, self._get('/').status_int)
        self.assertEqual(200, self._get('/v1').status_int)

    def test_the_healthcheck_reports_the_database(self):
        resp = self._get('/healthcheck')
        self.assertEqual(503, resp.status_int)
        self.assertIn('Database unavailable', resp.text)
        self.assertNotIn('Traceback', self.log.output)


class TestHealthcheckWithTheDatabaseUp(base.TestCase):

    def test_the_healthcheck_is_ok(self):
        gabbi_fixtures.use(self)
        resp = webob.Request.blank('/healthcheck').get_response(
            app.setup_app())
        self.assertEqual(200, resp.status_int)
        self.assertIn('Database OK', resp.text)


class TestConductor(base.TestCase):
    """The compute side hears DatabaseUnavailable; nobody logs tracebacks."""

    def setUp(self):
        super().setUp()
        self.db = self.useFixture(zun_fixtures.Database())
        self.useFixture(zun_fixtures.RPC(self.conf))
        self.useFixture(zun_fixtures.Conductor(self.conf))
        self.log = self.useFixture(fixtures.FakeLogger(level=logging.INFO))

    def test_the_caller_gets_database_unavailable(self):
        node = test_compute_node.make_compute_node(self.context)
        node.create()
        node.mem_used = 1
        self.useFixture(UnreachableDatabase())
        self.assertRaises(exception.DatabaseUnavailable, node.save)
        self.assertRaises(exception.DatabaseUnavailable,
                          objects.ComputeNode.get_by_hostname,
                          self.context, node.hostname)
        self.assertNotIn('Traceback', self.log.output)
        self.assertNotIn('ERROR', self.log.output)


class TestServiceHeartbeat(base.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(zun_fixtures.Database())
        # The tests beat themselves (report_state()); the service's own
        # timer must not add a beat in between, as it did at 1 s on a
        # loaded machine (4 failed heartbeats counted instead of 3).
        self.flags(transport_url='fake:/', report_interval=3600)
        self.addCleanup(service.rpc.cleanup)
        self.log = self.useFixture(fixtures.FakeLogger(
            name='zun_hostcap.service', level=logging.INFO,
            format='%(message)s'))

    def test_a_lost_database_is_one_warning_per_outage(self):
        svc = service.Service('zun-hostcap-conductor',
                              conductor_manager.ConductorManager(),
                              host='h1')
        svc.start()
        self.addCleanup(svc.stop)
        down = UnreachableDatabase()
        down.setUp()
        for _beat in range(3):
            svc.report_state()
        down.cleanUp()
        svc.report_state()
        svc.report_state()
        lines = self.log.output.splitlines()[1:]  # after "Starting"
        self.assertEqual(2, len(lines), self.log.output)
        self.assertTrue(lines[0].startswith(
            'Heartbeat of zun-hostcap-conductor on h1: The database cannot '
            'be reached'), lines[0])
        self.assertIn("Can't connect to MySQL server", lines[0])
        self.assertEqual('zun-hostcap-conductor on h1 reports its state '
                         'again, after 3 failed heartbeats.', lines[1])
        self.assertNotIn('Traceback', self.log.output)

    def test_a_service_starting_without_its_database_registers_later(self):
        down = UnreachableDatabase()
        down.setUp()
        svc = service.Service('zun-hostcap-conductor',
                              conductor_manager.ConductorManager(),
                              host='h1')
        svc.start()
        self.addCleanup(svc.stop)
        self.assertIsNone(svc.service_ref)
        self.assertIn('Registering zun-hostcap-conductor on h1: The '
                      'database cannot be reached', self.log.output)
        # The database is back: the next heartbeat registers.
        down.cleanUp()
        svc.report_state()
        self.assertEqual('h1', svc.service_ref.host)
        self.assertEqual(1, len(objects.ServiceList.get_all(self.context)))
