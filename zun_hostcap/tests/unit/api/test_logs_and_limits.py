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

"""What the API logs of a client's mistakes, and the body size limits.

- A client whose Accept rules out JSON is refused (406) without an
  ERROR line: a client's mistake is never one.
- The access line of a /placement request names the path the client
  sent, with its prefix.
- /placement takes bodies up to [placement] max_request_body_size; the
  rest of the API keeps [oslo_middleware] max_request_body_size.
"""

import json
import logging
import uuid

import fixtures
from oslotest import base
import webob

from zun_hostcap.api import app
from zun_hostcap.api.placement import app as placement_app
import zun_hostcap.conf
from zun_hostcap.tests import gabbi_fixtures

CONF = zun_hostcap.conf.CONF

LOG_FORMAT = '%(levelname)s %(name)s %(message)s'


def _request(application, method, path, body=None, **headers):
    headers.setdefault('X-Auth-Token', 'admin')
    req = webob.Request.blank(path, method=method, headers=headers)
    if body is not None:
        req.body = body
        req.content_type = 'application/json'
    return req.get_response(application)


class TestLogs(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        gabbi_fixtures.use(self)
        # Every logger, from DEBUG: whatever logs the refusal is caught.
        self.log = self.useFixture(fixtures.FakeLogger(
            level=logging.DEBUG, format=LOG_FORMAT))
        self.app = app.setup_app()

    def test_a_client_refusing_json_logs_no_error(self):
        for path, version in (
                ('/v1/hosts', 'container 1.40'),
                ('/', 'container 1.40'),
                ('/v1', 'container 1.40'),
                ('/placement/resource_providers', 'placement latest')):
            resp = _request(self.app, 'GET', path, Accept='text/html',
                            **{'OpenStack-API-Version': version})
            self.assertEqual(406, resp.status_int, path)
        self.assertNotIn('does not support content_type', self.log.output)
        for line in self.log.output.splitlines():
            self.assertFalse(line.startswith(('ERROR', 'CRITICAL')), line)
        # The refusals are in the access log all the same.
        self.assertIn('"GET /v1/hosts" status: 406', self.log.output)

    def test_an_unknown_path_refusing_json_is_still_a_404(self):
        resp = _request(self.app, 'GET', '/v1/nothing', Accept='text/html')
        self.assertEqual(404, resp.status_int)

    def test_placement_access_lines_name_the_path_the_client_sent(self):
        resp = _request(self.app, 'GET',
                        '/placement/resource_providers?name=x',
                        **{'OpenStack-API-Version': 'placement 1.14'})
        self.assertEqual(200, resp.status_int)
        self.assertIn('INFO zun_hostcap.api.access None '
                      '"GET /placement/resource_providers?name=x" '
                      'status: 200', self.log.output)
        self.assertNotIn('"GET /resource_providers', self.log.output)

    def test_the_placement_wsgi_app_logs_the_path_it_is_sent(self):
        # zun_hostcap.wsgi.placement serves the API at /, as Placement.
        resp = _request(placement_app.setup_standalone_app(), 'GET',
                        '/resource_providers')
        self.assertEqual(200, resp.status_int)
        self.assertIn('"GET /resource_providers" status: 200',
                      self.log.output)

    def test_a_mounted_placement_app_logs_its_mount_point(self):
        # As behind uwsgi or Apache at /placement (SCRIPT_NAME).
        req = webob.Request.blank('/resource_providers',
                                  headers={'X-Auth-Token': 'admin'})
        req.script_name = '/placement'
        resp = req.get_response(placement_app.setup_standalone_app())
        self.assertEqual(200, resp.status_int)
        self.assertIn('"GET /placement/resource_providers" status: 200',
                      self.log.output)

    def test_an_allocation_over_capacity_is_no_warning(self):
        version = {'OpenStack-API-Version': 'placement 1.39'}
        rp = str(uuid.uuid4())
        self.assertEqual(200, _request(
            self.app, 'POST', '/placement/resource_providers',
            json.dumps({'name': 'small', 'uuid': rp}).encode(),
            **version).status_int)
        self.assertEqual(200, _request(
            self.app, 'PUT', '/placement/resource_providers/%s/inventories'
            % rp, json.dumps({'resource_provider_generation': 0,
                              'inventories': {'VCPU': {'total': 1}}}
                             ).encode(), **version).status_int)
        resp = _request(
            self.app, 'PUT', '/placement/allocations/%s' % uuid.uuid4(),
            json.dumps({'allocations': {rp: {'resources': {'VCPU': 50}}},
                        'project_id': 'p', 'user_id': 'u',
                        'consumer_generation': None,
                        'consumer_type': 'INSTANCE'}).encode(), **version)
        self.assertEqual(409, resp.status_int)
        # The client's mistake is in its answer, and at DEBUG.
        self.assertIn('DEBUG zun_hostcap.db.sqlalchemy.placement.allocations'
                      ' Over capacity', self.log.output)
        for line in self.log.output.splitlines():
            self.assertFalse(line.startswith(('WARNING', 'ERROR')), line)


class TestBodySizeLimits(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        # [oslo_middleware] max_request_body_size is 256 here; [placement]
        # max_request_body_size keeps its default.
        gabbi_fixtures.use(self)
        self.app = app.setup_app()

    def _provider_body(self, padding):
        """A provider to create, with ``padding`` bytes of whitespace."""
        return json.dumps({'name': 'big-%s' % uuid.uuid4().hex[:8],
                           'uuid': str(uuid.uuid4())}).encode() + (
            b' ' * padding)

    def test_placement_takes_bodies_over_the_global_limit(self):
        # Over the 112 KiB default of oslo.middleware, let alone 256.
        self.assertGreater(CONF.placement.max_request_body_size, 1 << 20)
        resp = _request(self.app, 'POST', '/placement/resource_providers',
                        self._provider_body(200 * 1024),
                        **{'OpenStack-API-Version': 'placement latest'})
        self.assertEqual(200, resp.status_int, resp.text)

    def test_placement_refuses_bodies_over_its_own_limit(self):
        CONF.set_override('max_request_body_size', 1024, group='placement')
        self.addCleanup(CONF.clear_override, 'max_request_body_size',
                        group='placement')
        resp = _request(self.app, 'POST', '/placement/resource_providers',
                        self._provider_body(2048),
                        **{'OpenStack-API-Version': 'placement latest'})
        self.assertEqual(413, resp.status_int)
        self.assertTrue(resp.json['errors'][0]['detail'].endswith(
            ' The request body is larger than the 1024 bytes this API '
            'accepts ([placement] max_request_body_size).  '),
            resp.json['errors'][0]['detail'])

    def test_the_rest_keeps_the_global_limit(self):
        resp = _request(self.app, 'POST', '/v1/hosts',
                        self._provider_body(1024),
                        **{'OpenStack-API-Version': 'container 1.40'})
        self.assertEqual(413, resp.status_int)

    def test_a_length_that_is_no_number_is_placement_s_400(self):
        # (No HTTP client sends one; the limiter must not hide it.)
        req = webob.Request.blank(
            '/placement/resource_providers', method='POST',
            headers={'X-Auth-Token': 'admin',
                     'Content-Type': 'application/json'})
        req.environ['CONTENT_LENGTH'] = 'hi mom'
        resp = req.get_response(self.app)
        self.assertEqual(400, resp.status_int)
        self.assertTrue(resp.json['errors'][0]['detail'].endswith(
            '\n\n content-length header must be an integer  '),
            resp.json['errors'][0]['detail'])
