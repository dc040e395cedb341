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

"""oslo.middleware's request id and proxy headers, called as plain WSGI.

Each answers what oslo.middleware's own class answers, side by side.
And a large body handed to the server through its file wrapper.
"""

from wsgiref import util as wsgiref_util

from oslo_config import cfg
from oslo_config import fixture as config_fixture
from oslo_middleware import http_proxy_to_wsgi
from oslo_middleware import request_id
import webob

from zun_hostcap.api import middleware
from zun_hostcap.tests import base

GLOBAL_ID = 'req-6f1d7c1e-0b5a-4f36-9a57-2b8f0d3c4e21'


def _echo(environ, start_response):
    """Answers what the middleware left in the environ."""
    headers = [('Content-Type', 'text/plain')]
    if environ.get('PATH_INFO') == '/named':
        headers.append(('X-OpenStack-Request-ID', 'req-from-the-app'))
    start_response('200 OK', headers)
    return [('%s %s %s %s %s' % (
        environ.get('wsgi.url_scheme'), environ.get('HTTP_HOST'),
        environ.get('REMOTE_ADDR'), environ.get('SCRIPT_NAME'),
        environ.get(request_id.GLOBAL_REQ_ID))).encode()]


class TestPlainMiddleware(base.TestCase):

    def setUp(self):
        super().setUp()
        conf = self.useFixture(config_fixture.Config(cfg.ConfigOpts())).conf
        self.conf = conf
        self.ours = middleware.ProxyHeaders(middleware.RequestId(_echo),
                                            conf)
        self.theirs = http_proxy_to_wsgi.HTTPProxyToWSGI(
            request_id.RequestId(_echo), conf)

    def _both(self, path='/', method='GET', **headers):
        answers = []
        for app in (self.ours, self.theirs):
            req = webob.Request.blank(path, method=method, headers=headers)
            req.environ['REMOTE_ADDR'] = '192.0.2.1'
            answers.append(req.get_response(app))
        return answers

    def _same(self, ours, theirs):
        self.assertEqual(theirs.status, ours.status)
        self.assertEqual(theirs.body, ours.body)
        self.assertEqual(
            theirs.headers.getall('x-openstack-request-id')[0][:4],
            ours.headers.getall('x-openstack-request-id')[0][:4])
        self.assertEqual(len(theirs.headers.getall('x-openstack-request-id')),
                         len(ours.headers.getall('x-openstack-request-id')))

    def test_request_id_on_every_answer(self):
        ours, theirs = self._both()
        self._same(ours, theirs)
        self.assertTrue(ours.headers['x-openstack-request-id'].startswith(
            'req-'))

    def test_an_id_the_application_names_is_kept(self):
        ours, theirs = self._both('/named')
        self._same(ours, theirs)
        self.assertEqual(['req-from-the-app'],
                         ours.headers.getall('x-openstack-request-id'))

    def test_a_valid_inbound_id_is_the_global_one(self):
        ours, theirs = self._both(**{'X-Openstack-Request-Id': GLOBAL_ID})
        self._same(ours, theirs)
        self.assertTrue(ours.body.endswith(GLOBAL_ID.encode()))
        ours, theirs = self._both(**{'X-Openstack-Request-Id': 'forged'})
        self._same(ours, theirs)
        self.assertTrue(ours.body.endswith(b'None'))

    def test_head_has_no_body(self):
        ours, theirs = self._both(method='HEAD')
        self._same(ours, theirs)
        self.assertEqual(b'', ours.body)

    def test_proxy_headers_only_when_enabled(self):
        forwarded = {'X-Forwarded-Proto': 'https',
                     'X-Forwarded-Host': 'api.example.com',
                     'X-Forwarded-For': '203.0.113.9',
                     'X-Forwarded-Prefix': '/placement'}
        ours, theirs = self._both(**forwarded)
        self._same(ours, theirs)
        self.assertTrue(ours.body.startswith(b'http localhost:80 192.0.2.1'))
        self.conf.set_override('enable_proxy_headers_parsing', True,
                               group='oslo_middleware')
        ours, theirs = self._both(**forwarded)
        self._same(ours, theirs)
        self.assertTrue(ours.body.startswith(
            b'https api.example.com 203.0.113.9 /placement'))
        ours, theirs = self._both(
            Forwarded='for=198.51.100.7;proto=https;host=h.example')
        self._same(ours, theirs)
        self.assertTrue(ours.body.startswith(
            b'https h.example 198.51.100.7'))


def _answering(body):
    """An application answering ``body`` (an iterable) as it is."""
    def app(environ, start_response):
        start_response('200 OK', [('Content-Type', 'application/json')])
        return body
    return app


class TestLargeBodyAsFile(base.TestCase):

    def _call(self, app, file_wrapper=wsgiref_util.FileWrapper):
        environ = webob.Request.blank('/').environ
        if file_wrapper is not None:
            environ['wsgi.file_wrapper'] = file_wrapper
        return middleware.LargeBodyAsFile(app, least=16)(
            environ, lambda status, headers, exc_info=None: None)

    def test_a_large_body_goes_through_the_file_wrapper(self):
        content = b'[' + b'1, ' * 40 + b'2]'
        body = self._call(_answering([content]))
        self.assertIsInstance(body, wsgiref_util.FileWrapper)
        # A server iterating over it gets the whole body in one piece.
        self.assertEqual([content], list(body))

    def test_a_small_body_is_left_as_it_is(self):
        body = self._call(_answering([b'{"a": 1}']))
        self.assertEqual([b'{"a": 1}'], body)

    def test_a_body_in_pieces_or_streamed_is_left_as_it_is(self):
        pieces = [b'x' * 20, b'y' * 20]
        self.assertEqual(pieces, self._call(_answering(pieces)))
        streamed = iter([b'z' * 40])
        self.assertIs(streamed, self._call(_answering(streamed)))

    def test_without_a_file_wrapper_the_body_is_left_as_it_is(self):
        body = self._call(_answering([b'x' * 40]), file_wrapper=None)
        self.assertEqual([b'x' * 40], body)

    def test_an_empty_head_answer_is_left_as_it_is(self):
        app = middleware.RequestId(_answering([b'x' * 40]))
        environ = webob.Request.blank('/', method='HEAD').environ
        environ['wsgi.file_wrapper'] = wsgiref_util.FileWrapper
        body = middleware.LargeBodyAsFile(app, least=16)(
            environ, lambda status, headers, exc_info=None: None)
        self.assertEqual([], body)
