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

"""Unexpected failures become a 500 document, logged, without details."""

import logging

import fixtures
from oslotest import base
import sqlalchemy as sa
import webob

from zun_hostcap.api import app
from zun_hostcap.api import errors
from zun_hostcap.db.sqlalchemy import api as sqla_api
from zun_hostcap.tests import gabbi_fixtures

REQUEST_ID = 'req-6f1d7c1e-0b5a-4f36-9a57-2b8f0d3c4e21'


class TestInternalErrors(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        gabbi_fixtures.use(self)
        self.log = self.useFixture(fixtures.FakeLogger(
            name='zun_hostcap.api.errors', level=logging.INFO))

    def _assert_internal_error(self, resp):
        self.assertEqual(500, resp.status_int)
        self.assertEqual('application/json', resp.content_type)
        error = resp.json['errors'][0]
        self.assertEqual('container.internal_error', error['code'])
        self.assertEqual(500, error['status'])
        self.assertEqual('The server hit an unexpected error; its log has '
                         'the details.', error['detail'])
        self.assertNotIn('Traceback', resp.text)
        # The log has them.
        self.assertIn('Unexpected error serving GET /v1/hosts',
                      self.log.output)
        self.assertIn('Traceback', self.log.output)

    def test_a_handler_failure(self):
        # The database lost its table: the handler raises, pecan's hook
        # answers, with the version headers.
        with sqla_api.get_engine().begin() as conn:
            conn.execute(sa.text('DROP TABLE compute_nodes'))
        resp = webob.Request.blank('/v1/hosts', headers={
            'X-Auth-Token': 'admin',
            'OpenStack-API-Version': 'container 1.40'}).get_response(
                app.setup_app())
        self._assert_internal_error(resp)
        self.assertEqual('container 1.40',
                         resp.headers['OpenStack-API-Version'])
        self.assertEqual(resp.headers['x-openstack-request-id'],
                         resp.json['errors'][0]['request_id'])

    def test_a_failure_outside_pecan(self):
        def broken(environ, start_response):
            raise RuntimeError('secret detail')

        middleware = errors.ErrorDocumentMiddleware(broken)
        req = webob.Request.blank('/v1/hosts')
        req.environ['openstack.request_id'] = REQUEST_ID
        resp = req.get_response(middleware)
        self._assert_internal_error(resp)
        self.assertEqual(REQUEST_ID, resp.json['errors'][0]['request_id'])
        self.assertNotIn('secret detail', resp.text)
        self.assertIn('secret detail', self.log.output)
