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

"""The API reference's samples, checked against what the API answers.

Each test sends one request of the API reference (``doc/source/api-ref``)
to the in-process application, with the data of the gabbi fixture, and
compares the JSON body with its file in ``doc/api_samples``. Values that
change from run to run are replaced first: host uuids by a uuid derived
from the hostname, request ids by a zero one, and timestamps by a fixed
time that keeps their distance, in whole minutes, from the time the data
was made.

With ``ZUN_HOSTCAP_TEST_REGENERATE_SAMPLES=1`` the tests write the files
instead, and pass; review the diff before you commit it.
"""

import datetime
import difflib
import json
import os
import re
import uuid

import jsonschema
from oslo_utils import timeutils
from oslotest import base
import testscenarios
import webob

from zun_hostcap.api import app
from zun_hostcap.api.schemas import errors as error_schemas
from zun_hostcap.api.schemas import hosts as host_schemas
from zun_hostcap.api.schemas import services as service_schemas
from zun_hostcap.api.schemas import versions as version_schemas
from zun_hostcap.common import context
from zun_hostcap import objects
from zun_hostcap.tests import gabbi_fixtures
from zun_hostcap.tests.unit.api import test_openapi

REPO = os.path.normpath(os.path.join(os.path.dirname(__file__), '..', '..',
                                     '..', '..'))
SAMPLES_DIR = os.path.join(REPO, 'doc', 'api_samples')
API_REF_DIR = os.path.join(REPO, 'api-ref', 'source')
REGENERATE_ENV = 'ZUN_HOSTCAP_TEST_REGENERATE_SAMPLES'

REQUEST_ID = 'req-00000000-0000-0000-0000-000000000000'
# What the samples show as the time the fixture's data was made.
SAMPLE_NOW = datetime.datetime(2026, 1, 15, 9, 30,
                               tzinfo=datetime.timezone.utc)
# Host uuids in the samples: stable, and different for each hostname.
SAMPLE_UUID_NAMESPACE = uuid.UUID('6c7e0f7e-2d2f-4b8a-9d1c-1f0a3e5b7c90')

_REQUEST_ID_RE = re.compile(r'req-[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}')
_UUID_RE = re.compile(r'[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}')
_TIMESTAMP_RE = re.compile(
    r'^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:[+-]\d\d:\d\d|Z)?$')

_HOST_REF_RE = re.compile(r'\{uuid of ([^}]+)\}')
_INCLUDE_RE = re.compile(
    r'literalinclude:: (?:\.\./)+(?:doc/)?api_samples/([^/\s]+)$', re.M)


def sample_uuid(hostname):
    """The uuid a host of this name has in the samples."""
    return str(uuid.uuid5(SAMPLE_UUID_NAMESPACE, hostname))


def _headers(version=None, token='admin'):
    headers = {}
    if token is not None:
        headers['X-Auth-Token'] = token
    if version is not None:
        headers['OpenStack-API-Version'] = 'container %s' % version
    return headers


# Each sample: the request the API reference shows, its status, and what
# else must hold of the body (so that a regenerated sample is still one of
# the right case). "{uuid of NAME}" in a path is the uuid of host NAME.
SAMPLES = [
    ('versions-get-resp.json',
     dict(path='/', headers={}, status=200,
          schema=version_schemas.GET_ROOT_RESPONSE_v1_1)),
    ('v1-get-resp.json',
     dict(path='/v1', headers={}, status=200,
          schema=version_schemas.GET_V1_RESPONSE_v1_1)),
    ('hosts-list-resp.json',
     dict(path='/v1/hosts', headers=_headers('1.40'), status=200,
          expect=lambda body: len(body['hosts']) == 3 and
          body['next'] is None,
          schema=host_schemas.GET_HOSTS_RESPONSE_v1_29,
          not_schema=host_schemas.GET_HOSTS_RESPONSE_v1_4)),
    ('hosts-list-paginated-resp.json',
     dict(path='/v1/hosts?limit=2', headers=_headers('1.40'), status=200,
          expect=lambda body: len(body['hosts']) == 2 and
          body['next'] is not None,
          schema=host_schemas.GET_HOSTS_RESPONSE_v1_29,
          not_schema=host_schemas.GET_HOSTS_RESPONSE_v1_4)),
    ('host-show-resp.json',
     dict(path='/v1/hosts/{uuid of host-a.example.com}',
          headers=_headers('1.40'), status=200,
          expect=lambda body: 'enable_cpu_pinning' in body,
          schema=host_schemas.HOST_v1_29,
          not_schema=host_schemas.HOST_v1_4)),
    ('host-show-v1.28-resp.json',
     dict(path='/v1/hosts/host-a.example.com', headers=_headers('1.28'),
          status=200,
          expect=lambda body: 'enable_cpu_pinning' not in body,
          schema=host_schemas.HOST_v1_4,
          not_schema=host_schemas.HOST_v1_29)),
    ('services-list-resp.json',
     dict(path='/v1/services', headers=_headers(), status=200,
          schema=service_schemas.GET_SERVICES_RESPONSE_v1_1)),
    ('host-not-found-resp.json',
     dict(path='/v1/hosts/no-such-host', headers=_headers('1.40'),
          status=404)),
    ('version-not-acceptable-resp.json',
     dict(path='/v1/hosts', headers=_headers('1.41'), status=406)),
    ('hosts-version-too-old-resp.json',
     dict(path='/v1/hosts', headers=_headers('1.3'), status=406)),
    ('invalid-query-resp.json',
     dict(path='/v1/hosts?limit=0', headers=_headers('1.40'), status=400)),
    ('unauthorized-resp.json',
     dict(path='/v1/hosts', headers=_headers('1.40', token=None),
          status=401)),
    ('forbidden-resp.json',
     dict(path='/v1/hosts', headers=_headers('1.40', token='demo'),
          status=403)),
]
SAMPLE_NAMES = frozenset(name for name, _case in SAMPLES)
# Every error answers with the error document.
for _name, _case in SAMPLES:
    if _case['status'] >= 400:
        _case.setdefault('schema', error_schemas.ERROR_DOCUMENT_v1_1)


class TestAPISamples(testscenarios.WithScenarios, base.BaseTestCase):
    """One test per sample file of doc/api_samples."""

    scenarios = [(name, dict(case, sample=name)) for name, case in SAMPLES]
    expect = None
    not_schema = None

    def setUp(self):
        super().setUp()
        if not os.path.isdir(SAMPLES_DIR):
            self.skipTest('%s is not here (not a source tree)'
                          % SAMPLES_DIR)
        gabbi_fixtures.use(self)
        # The fixture made its data a few milliseconds ago.
        self.data_time = timeutils.utcnow(with_timezone=True)
        nodes = objects.ComputeNodeList.get_all(context.get_admin_context())
        self.uuid_of = {node.hostname: node.uuid for node in nodes}
        self.shown_uuids = {node.uuid: sample_uuid(node.hostname)
                            for node in nodes}
        self.app = app.setup_app()
        self.conformance = test_openapi.Conformance()

    # Normalising what varies between runs.

    def _timestamp(self, value):
        when = datetime.datetime.fromisoformat(value.replace('Z', '+00:00'))
        if when.tzinfo is None:
            when = when.replace(tzinfo=datetime.timezone.utc)
        minutes = round((when - self.data_time).total_seconds() / 60)
        shown = SAMPLE_NOW + datetime.timedelta(minutes=minutes)
        return shown.isoformat(timespec='microseconds')

    def _string(self, value):
        if _TIMESTAMP_RE.match(value):
            return self._timestamp(value)
        value = _REQUEST_ID_RE.sub(REQUEST_ID, value)
        for real, shown in self.shown_uuids.items():
            value = value.replace(real, shown)
        # Any other uuid would differ at every run.
        leftover = [found for found in _UUID_RE.findall(value)
                    if found not in self.shown_uuids.values() and
                    'req-' + found != REQUEST_ID]
        self.assertEqual([], leftover,
                         'uuid(s) a sample cannot show in %r' % value)
        return value

    def normalise(self, data):
        """``data`` with what varies between runs made fixed."""
        if isinstance(data, dict):
            return {key: self.normalise(value)
                    for key, value in data.items()}
        if isinstance(data, list):
            return [self.normalise(value) for value in data]
        if isinstance(data, str):
            return self._string(data)
        return data

    # The test.

    def _get(self):
        path = _HOST_REF_RE.sub(lambda m: self.uuid_of[m.group(1)],
                                self.path)
        req = webob.Request.blank(path, headers=self.headers)
        req.accept = 'application/json'
        resp = req.get_response(self.app)
        self.assertEqual(self.status, resp.status_int, resp.text)
        self.assertEqual('application/json', resp.content_type)
        self.assertTrue(resp.headers['X-OpenStack-Request-ID'].startswith(
            'req-'))
        return resp

    def _sample(self):
        path = os.path.join(SAMPLES_DIR, self.sample)
        if not os.path.exists(path):
            self.skipTest('no sample %s yet; test_sample says how to write '
                          'it' % self.sample)
        with open(path) as f:
            return json.load(f)

    def test_response_conforms_to_the_openapi_document(self):
        # Status, content type, headers and body, as the document says.
        self.conformance.check_response('GET', self.path, self._get())

    def test_sample_matches_the_openapi_document(self):
        self.conformance.check_body('GET', self.path, self.status,
                                    self._sample())

    def test_sample_matches_its_microversion(self):
        # The document allows every microversion of a response (anyOf);
        # a sample is the response of its own.
        sample = self._sample()
        jsonschema.Draft202012Validator(
            self.schema, format_checker=jsonschema.FormatChecker()).validate(
                sample)
        if self.not_schema is not None:
            self.assertFalse(
                jsonschema.Draft202012Validator(self.not_schema).is_valid(
                    sample),
                '%s is also valid for the schema of another microversion'
                % self.sample)

    def test_sample(self):
        body = json.loads(self._get().text)
        if self.expect is not None:
            self.assertTrue(self.expect(body),
                            'not the case of %s: %s' % (self.sample, body))
        text = json.dumps(self.normalise(body), indent=4,
                          sort_keys=False) + '\n'
        path = os.path.join(SAMPLES_DIR, self.sample)
        if os.environ.get(REGENERATE_ENV) == '1':
            with open(path, 'w') as f:
                f.write(text)
            return
        if not os.path.exists(path):
            self.fail('No sample %s. Write it with %s=1 and review it.'
                      % (path, REGENERATE_ENV))
        with open(path) as f:
            expected = f.read()
        if expected != text:
            diff = ''.join(difflib.unified_diff(
                expected.splitlines(True), text.splitlines(True),
                'doc/api_samples/%s' % self.sample, 'what the API answers'))
            self.fail('The API does not answer as sample %s says:\n%s\n'
                      'If the API is right, run this test with %s=1, '
                      'review the diff of doc/api_samples, and update the '
                      'API reference if it describes what changed.'
                      % (self.sample, diff, REGENERATE_ENV))


class TestSampleFiles(base.BaseTestCase):
    """No sample goes untested, and the API reference shows each one."""

    def setUp(self):
        super().setUp()
        if not os.path.isdir(SAMPLES_DIR):
            self.skipTest('%s is not here (not a source tree)'
                          % SAMPLES_DIR)

    def test_every_sample_file_is_tested(self):
        on_disk = {name for name in os.listdir(SAMPLES_DIR)
                   if name.endswith('.json')}
        self.assertEqual(set(), on_disk - SAMPLE_NAMES,
                         'sample files that no test checks')

    def test_every_sample_is_in_the_api_reference(self):
        if not os.path.isdir(API_REF_DIR):
            self.skipTest('no API reference beside the samples')
        shown = set()
        for name in os.listdir(API_REF_DIR):
            if name.endswith('.rst'):
                with open(os.path.join(API_REF_DIR, name)) as f:
                    shown.update(_INCLUDE_RE.findall(f.read()))
        self.assertEqual(set(), SAMPLE_NAMES - shown,
                         'samples the API reference does not include')
        self.assertEqual(set(), shown - SAMPLE_NAMES,
                         'samples the API reference includes that no test '
                         'checks')
