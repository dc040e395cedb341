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

"""Request bodies are decoded by the routes that take one, with limits."""

import io

import webob
import webob.exc

from zun_hostcap.api import body
from zun_hostcap.api import middleware
from zun_hostcap.api.placement import util as placement_util
from zun_hostcap.tests import base

SCHEMA = {'type': 'object',
          'properties': {'name': {'type': 'string', 'maxLength': 8}},
          'required': ['name'],
          'additionalProperties': False}


class TestBodyGuard(base.TestCase):
    """What pecan gets: no body; what the route reads: the body."""

    def _through_guard(self, data, content_type):
        seen = {}

        def route(environ, start_response):
            request = webob.Request(environ)
            seen['pecan_body'] = request.body
            seen['pecan_params'] = dict(request.params)
            try:
                seen['document'] = body.read_json(request, SCHEMA)
            except webob.exc.HTTPException as err:
                seen['error'] = err
            return webob.Response()(environ, start_response)

        request = webob.Request.blank('/things', method='POST', body=data)
        request.content_type = content_type
        request.get_response(middleware.BodyGuard(route))
        return seen

    def test_pecan_sees_no_body_and_the_route_reads_it(self):
        seen = self._through_guard(b'{"name": "n1"}', 'application/json')
        self.assertEqual(b'', seen['pecan_body'])
        self.assertEqual({}, seen['pecan_params'])
        self.assertEqual({'name': 'n1'}, seen['document'])

    def test_a_form_body_is_never_parsed(self):
        seen = self._through_guard(b'--\r\n', 'multipart/form-data; '
                                              'boundary=')
        self.assertEqual({}, seen['pecan_params'])
        self.assertEqual(415, seen['error'].code)


class TestReadJSON(base.TestCase):

    def _read(self, data, content_type='application/json'):
        environ = webob.Request.blank('/').environ
        environ[middleware.RAW_BODY] = {'input': io.BytesIO(data),
                                        'length': str(len(data)),
                                        'type': content_type}
        return body.read_json(webob.Request(environ), SCHEMA)

    def _error(self, data, content_type='application/json'):
        return self.assertRaises(webob.exc.HTTPException, self._read, data,
                                 content_type)

    def test_a_valid_document(self):
        self.assertEqual({'name': 'x'}, self._read(b'{"name": "x"}'))
        self.assertEqual({'name': 'x'}, self._read(
            b'{"name": "x"}', 'application/json; charset=UTF-8'))

    def test_another_media_type_is_415(self):
        err = self._error(b'name=x', 'application/x-www-form-urlencoded')
        self.assertEqual(415, err.code)
        self.assertEqual('container.unsupported_media_type', err.comment)
        self.assertEqual(415, self._error(b'{}', None).code)

    def test_another_charset_is_415(self):
        err = self._error(b'{}', 'application/json; charset=no-such-one')
        self.assertEqual(415, err.code)
        self.assertIn("'no-such-one'", err.detail)

    def test_bytes_that_are_not_utf8_are_400(self):
        err = self._error(b'{"name": "\xff"}')
        self.assertEqual(400, err.code)
        self.assertEqual('The request body is not valid UTF-8.', err.detail)

    def test_json_nested_thousands_deep_is_400_without_parsing(self):
        err = self._error(b'[' * 100000 + b']' * 100000)
        self.assertEqual(400, err.code)
        self.assertIn('deeper than %d levels' % body.MAX_DEPTH, err.detail)

    def test_brackets_in_strings_do_not_count(self):
        name = '[' * 8
        self.assertEqual({'name': name},
                         self._read(('{"name": "%s"}' % name).encode()))

    def test_json_that_does_not_parse_is_400(self):
        err = self._error(b'{"name": ')
        self.assertEqual(400, err.code)
        self.assertIn('not valid JSON', err.detail)

    def test_a_document_the_schema_refuses_is_400(self):
        err = self._error(b'{"name": "far too long"}')
        self.assertEqual(400, err.code)
        self.assertIn('at name', err.detail)
        self.assertEqual(400, self._error(b'{}').code)


class TestOneReaderForBothAPIs(base.TestCase):
    """The Zun API and the Placement API read a JSON body the same way.

    Each says a refusal in its own words and statuses; the bodies they
    take and refuse are the same.
    """

    def _request(self, data, content_type):
        environ = webob.Request.blank('/').environ
        environ[middleware.RAW_BODY] = {'input': io.BytesIO(data),
                                        'length': str(len(data)),
                                        'type': content_type}
        return webob.Request(environ)

    def _both(self, data, content_type):
        """What each API makes of the body: the document or the error."""
        results = []
        for read in (body.read_json, placement_util.read_json):
            try:
                results.append(read(self._request(data, content_type),
                                    SCHEMA))
            except webob.exc.HTTPException as err:
                results.append(err)
        return results

    def test_both_take_the_same_bodies(self):
        for content_type in ('application/json',
                             'application/json; charset=UTF-8',
                             'application/json;charset="utf8"',
                             'Application/JSON; charset = utf-8'):
            zun, placement = self._both(b'{"name": "n1"}', content_type)
            self.assertEqual({'name': 'n1'}, zun, content_type)
            self.assertEqual({'name': 'n1'}, placement, content_type)

    def test_both_refuse_the_same_bodies(self):
        cases = [
            (b'{"name": "n1"}', 'text/plain', 415,
             'The media type text/plain is not supported, use '
             'application/json'),
            (b'{"name": "n1"}', 'application/json; charset=latin-1', 415,
             'JSON bodies must be UTF-8.'),
            (b'{"name": "\xff"}', 'application/json', 400,
             'Malformed JSON: the body is not UTF-8.'),
            (b'[' * 40 + b']' * 40, 'application/json', 400,
             'Malformed JSON: arrays or objects nest deeper than 32 '
             'levels.'),
            (b'{"name": ', 'application/json', 400,
             'Malformed JSON: Expecting value: line 1 column 10 (char 9)'),
        ]
        for data, content_type, status, placement_detail in cases:
            zun, placement = self._both(data, content_type)
            self.assertEqual(status, zun.code, data)
            self.assertEqual(status, placement.code, data)
            self.assertEqual(placement_detail, placement.detail)
            self.assertNotEqual(placement.detail, zun.detail)

    def test_placement_wants_a_content_type_with_a_body(self):
        _zun, placement = self._both(b'{"name": "n1"}', '')
        self.assertEqual(400, placement.code)
        self.assertEqual('content-type header required when '
                         'content-length > 0', placement.detail)
