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

"""The samples of the /placement API reference, checked against the API.

The pages ``api-ref/source/placement-*.rst`` show requests with their
bodies and the bodies the API answers, from ``doc/api_samples/placement``.
Each test here starts from a fresh database, builds the same small
deployment through the API (``DEPLOYMENT``: a compute node with a nested
child, a shared storage provider, an aggregate, traits, a custom resource
class and an instance's allocations), sends the request of one sample
(its body from the ``-req.json`` file) and compares the response with
the ``-resp.json`` file. Every uuid is chosen by the requests, so only
request ids need fixing (``req-00000000-0000-0000-0000-000000000000``).

With ``ZUN_HOSTCAP_TEST_REGENERATE_SAMPLES=1`` the tests write the
response files instead, and pass; review the diff before you commit it.
"""

import difflib
import json
import os
import re

import jsonschema
from oslotest import base
import testscenarios
import webob

from zun_hostcap.api import app
from zun_hostcap.api.schemas.placement import responses
from zun_hostcap.tests import gabbi_fixtures

REPO = os.path.normpath(os.path.join(os.path.dirname(__file__), '..', '..',
                                     '..', '..'))
SAMPLES_DIR = os.path.join(REPO, 'doc', 'api_samples', 'placement')
API_REF_DIR = os.path.join(REPO, 'api-ref', 'source')
REGENERATE_ENV = 'ZUN_HOSTCAP_TEST_REGENERATE_SAMPLES'

REQUEST_ID = 'req-00000000-0000-0000-0000-000000000000'
_REQUEST_ID_RE = re.compile(r'req-[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}')
# The pages include the samples as "/../../doc/api_samples/placement/X"
# (relative to api-ref/source).
_INCLUDE_RE = re.compile(r'literalinclude:: \S*api_samples/placement/(\S+)')

LATEST = '1.39'

# The uuids of the samples.
COMPUTE = '4e8e5957-649f-477b-9e5b-f1f75b21c03c'
NUMA0 = '99c09379-6e52-4ef8-9a95-b9ce6f68452e'
STORAGE = 'd1e2c6f9-0f5e-4a32-b2d8-3a6f0b2c9e41'
SPARE = 'b7a8d6c1-2e3f-4a5b-8c9d-0e1f2a3b4c5d'
AGGREGATE = '42896e0d-205d-4fe3-bd1e-100924931787'
AGGREGATE_2 = '5e08ea53-c4c6-448e-9334-ac4953de3cfa'
INSTANCE = '9f2b5a0c-7d1e-4c8b-a3f6-2e4d8c1b0a97'
INSTANCE_2 = '1c9e8d7f-6a5b-4c3d-9e2f-8a7b6c5d4e3f'
MIGRATION = 'a6f1c2d3-e4b5-4a69-8c7d-1e2f3a4b5c6d'
PROJECT = '6e2c1f9a8b7d4e3c9a1b2c3d4e5f6a7b'
USER = '3f9e8d7c6b5a4c3d8e9f0a1b2c3d4e5f'

# The deployment every test starts from: (method, path, body), sent in
# order at the latest microversion as the administrator.
DEPLOYMENT = [
    ('POST', '/resource_providers',
     {'name': 'compute-1', 'uuid': COMPUTE}),
    ('POST', '/resource_providers',
     {'name': 'compute-1_numa0', 'uuid': NUMA0,
      'parent_provider_uuid': COMPUTE}),
    ('POST', '/resource_providers',
     {'name': 'shared-storage', 'uuid': STORAGE}),
    ('PUT', '/resource_classes/CUSTOM_FPGA', None),
    ('PUT', '/traits/CUSTOM_HW_FPGA_CLASS1', None),
    ('PUT', '/resource_providers/%s/inventories' % COMPUTE,
     {'resource_provider_generation': 0,
      'inventories': {
          'VCPU': {'total': 8, 'allocation_ratio': 4.0, 'reserved': 0,
                   'min_unit': 1, 'max_unit': 8, 'step_size': 1},
          'MEMORY_MB': {'total': 16384, 'allocation_ratio': 1.5,
                        'reserved': 512, 'min_unit': 1,
                        'max_unit': 16384, 'step_size': 1}}}),
    ('PUT', '/resource_providers/%s/inventories' % NUMA0,
     {'resource_provider_generation': 0,
      'inventories': {'CUSTOM_FPGA': {'total': 2, 'max_unit': 1}}}),
    ('PUT', '/resource_providers/%s/inventories' % STORAGE,
     {'resource_provider_generation': 0,
      'inventories': {'DISK_GB': {'total': 2048, 'reserved': 100,
                                  'min_unit': 10, 'step_size': 10,
                                  'max_unit': 1000}}}),
    ('PUT', '/resource_providers/%s/aggregates' % COMPUTE,
     {'resource_provider_generation': 1, 'aggregates': [AGGREGATE]}),
    ('PUT', '/resource_providers/%s/aggregates' % STORAGE,
     {'resource_provider_generation': 1, 'aggregates': [AGGREGATE]}),
    ('PUT', '/resource_providers/%s/traits' % COMPUTE,
     {'resource_provider_generation': 2,
      'traits': ['HW_CPU_X86_AVX2', 'COMPUTE_VOLUME_MULTI_ATTACH']}),
    ('PUT', '/resource_providers/%s/traits' % STORAGE,
     {'resource_provider_generation': 2,
      'traits': ['MISC_SHARES_VIA_AGGREGATE']}),
    ('PUT', '/resource_providers/%s/traits' % NUMA0,
     {'resource_provider_generation': 1,
      'traits': ['CUSTOM_HW_FPGA_CLASS1']}),
    ('PUT', '/allocations/%s' % INSTANCE,
     {'allocations': {
         COMPUTE: {'resources': {'VCPU': 2, 'MEMORY_MB': 2048}},
         NUMA0: {'resources': {'CUSTOM_FPGA': 1}},
         STORAGE: {'resources': {'DISK_GB': 20}}},
      'consumer_generation': None, 'project_id': PROJECT, 'user_id': USER,
      'consumer_type': 'INSTANCE'}),
]


def _case(method, path, status, schema=None, version=LATEST,
          token='admin', req=None, resp=None, roles=None):
    return dict(method=method, path=path, status=status, schema=schema,
                version=version, token=token, request_sample=req,
                response_sample=resp, roles=roles)


# One scenario for each route at least: the request of the page (its
# body from the file ``req``), its status, and the file ``resp`` of the
# body it answers (None when the response has no body).
SAMPLES = [
    # Root, microversions, errors.
    ('root', _case('GET', '', 200, responses.VERSIONS,
                   resp='root-resp.json')),
    ('error-version', _case('GET', '/resource_providers', 406,
                            responses.ERROR_DOCUMENT, version='1.40',
                            resp='error-version-not-acceptable-resp.json')),
    ('error-not-found', _case('GET', '/resource_providers/%s' % SPARE, 404,
                              responses.ERROR_DOCUMENT,
                              resp='error-not-found-resp.json')),
    ('error-forbidden', _case('GET', '/resource_providers', 403,
                              responses.ERROR_DOCUMENT, token='demo:demo',
                              resp='error-forbidden-resp.json')),
    # Resource classes.
    ('resource-classes-list', _case('GET', '/resource_classes', 200,
                                    responses.RESOURCE_CLASSES,
                                    resp='resource-classes-list-resp.json')),
    ('resource-class-create', _case('POST', '/resource_classes', 201,
                                    req='resource-class-create-req.json')),
    ('resource-class-show', _case('GET', '/resource_classes/CUSTOM_FPGA',
                                  200, responses.RESOURCE_CLASS,
                                  resp='resource-class-show-resp.json')),
    ('resource-class-update', _case('PUT', '/resource_classes/CUSTOM_GPU',
                                    201)),
    ('resource-class-delete', _case('DELETE', '/resource_classes/CUSTOM_FPGA',
                                    409, responses.ERROR_DOCUMENT,
                                    resp='resource-class-in-use-resp.json')),
    # Resource providers.
    ('resource-providers-list', _case(
        'GET', '/resource_providers?in_tree=%s' % COMPUTE, 200,
        responses.RESOURCE_PROVIDERS,
        resp='resource-providers-list-resp.json')),
    ('resource-providers-list-resources', _case(
        'GET', '/resource_providers?resources=VCPU:2,MEMORY_MB:4096'
        '&required=HW_CPU_X86_AVX2&member_of=%s' % AGGREGATE, 200,
        responses.RESOURCE_PROVIDERS,
        resp='resource-providers-list-filtered-resp.json')),
    ('resource-provider-create', _case(
        'POST', '/resource_providers', 200, responses.RESOURCE_PROVIDER,
        req='resource-provider-create-req.json',
        resp='resource-provider-create-resp.json')),
    ('resource-provider-show', _case(
        'GET', '/resource_providers/%s' % NUMA0, 200,
        responses.RESOURCE_PROVIDER,
        resp='resource-provider-show-resp.json')),
    ('resource-provider-update', _case(
        'PUT', '/resource_providers/%s' % NUMA0, 200,
        responses.RESOURCE_PROVIDER,
        req='resource-provider-update-req.json',
        resp='resource-provider-update-resp.json')),
    ('resource-provider-delete', _case(
        'DELETE', '/resource_providers/%s' % COMPUTE, 409,
        responses.ERROR_DOCUMENT,
        resp='resource-provider-delete-parent-resp.json')),
    # Inventories.
    ('inventories-list', _case(
        'GET', '/resource_providers/%s/inventories' % COMPUTE, 200,
        responses.PROVIDER_INVENTORIES, resp='inventories-list-resp.json')),
    ('inventories-update', _case(
        'PUT', '/resource_providers/%s/inventories' % COMPUTE, 200,
        responses.PROVIDER_INVENTORIES, req='inventories-update-req.json',
        resp='inventories-update-resp.json')),
    ('inventories-update-conflict', _case(
        'PUT', '/resource_providers/%s/inventories' % COMPUTE, 409,
        responses.ERROR_DOCUMENT,
        req='inventories-update-conflict-req.json',
        resp='inventories-update-conflict-resp.json')),
    ('inventory-create', _case(
        'POST', '/resource_providers/%s/inventories' % STORAGE, 201,
        responses.PROVIDER_INVENTORY, req='inventory-create-req.json',
        resp='inventory-create-resp.json')),
    ('inventories-delete', _case(
        'DELETE', '/resource_providers/%s/inventories' % COMPUTE, 409,
        responses.ERROR_DOCUMENT, resp='inventories-delete-in-use-resp.json')),
    ('inventory-show', _case(
        'GET', '/resource_providers/%s/inventories/VCPU' % COMPUTE, 200,
        responses.PROVIDER_INVENTORY, resp='inventory-show-resp.json')),
    ('inventory-update', _case(
        'PUT', '/resource_providers/%s/inventories/VCPU' % COMPUTE, 200,
        responses.PROVIDER_INVENTORY, req='inventory-update-req.json',
        resp='inventory-update-resp.json')),
    ('inventory-delete', _case(
        'DELETE', '/resource_providers/%s/inventories/VCPU' % COMPUTE, 409,
        responses.ERROR_DOCUMENT, resp='inventory-delete-in-use-resp.json')),
    # Aggregates.
    ('aggregates-list', _case(
        'GET', '/resource_providers/%s/aggregates' % COMPUTE, 200,
        responses.PROVIDER_AGGREGATES, resp='aggregates-list-resp.json')),
    ('aggregates-update', _case(
        'PUT', '/resource_providers/%s/aggregates' % COMPUTE, 200,
        responses.PROVIDER_AGGREGATES, req='aggregates-update-req.json',
        resp='aggregates-update-resp.json')),
    # Traits.
    ('traits-list', _case(
        'GET', '/traits?name=startswith:CUSTOM_&associated=true', 200,
        responses.TRAITS, resp='traits-list-resp.json')),
    ('trait-show', _case('GET', '/traits/CUSTOM_HW_FPGA_CLASS1', 204)),
    ('trait-update', _case('PUT', '/traits/CUSTOM_HW_FPGA_CLASS2', 201)),
    ('trait-delete', _case('DELETE', '/traits/CUSTOM_HW_FPGA_CLASS1', 409,
                           responses.ERROR_DOCUMENT,
                           resp='trait-delete-in-use-resp.json')),
    ('provider-traits-list', _case(
        'GET', '/resource_providers/%s/traits' % COMPUTE, 200,
        responses.PROVIDER_TRAITS, resp='provider-traits-list-resp.json')),
    ('provider-traits-update', _case(
        'PUT', '/resource_providers/%s/traits' % COMPUTE, 200,
        responses.PROVIDER_TRAITS, req='provider-traits-update-req.json',
        resp='provider-traits-update-resp.json')),
    ('provider-traits-delete', _case(
        'DELETE', '/resource_providers/%s/traits' % COMPUTE, 204)),
    # Allocations.
    ('provider-allocations-list', _case(
        'GET', '/resource_providers/%s/allocations' % COMPUTE, 200,
        responses.PROVIDER_ALLOCATIONS,
        resp='provider-allocations-list-resp.json')),
    ('allocations-show', _case(
        'GET', '/allocations/%s' % INSTANCE, 200,
        responses.CONSUMER_ALLOCATIONS, resp='allocations-show-resp.json')),
    ('allocations-update', _case(
        'PUT', '/allocations/%s' % INSTANCE_2, 204,
        req='allocations-update-req.json')),
    ('allocations-update-conflict', _case(
        'PUT', '/allocations/%s' % INSTANCE, 409, responses.ERROR_DOCUMENT,
        req='allocations-update-conflict-req.json',
        resp='allocations-update-conflict-resp.json')),
    ('allocations-update-capacity', _case(
        'PUT', '/allocations/%s' % INSTANCE_2, 409, responses.ERROR_DOCUMENT,
        req='allocations-update-capacity-req.json',
        resp='allocations-update-capacity-resp.json')),
    ('allocations-post', _case(
        'POST', '/allocations', 204, req='allocations-post-req.json')),
    ('allocations-delete', _case('DELETE', '/allocations/%s' % INSTANCE,
                                 204)),
    # The reshaper: a service's (X-Roles: admin,service with noauth2).
    ('reshaper-post', _case('POST', '/reshaper', 204,
                            req='reshaper-post-req.json',
                            roles='admin,service')),
    ('reshaper-post-conflict', _case(
        'POST', '/reshaper', 409, responses.ERROR_DOCUMENT,
        req='reshaper-post-conflict-req.json',
        resp='reshaper-post-conflict-resp.json', roles='admin,service')),
    # Usages.
    ('provider-usages', _case(
        'GET', '/resource_providers/%s/usages' % COMPUTE, 200,
        responses.PROVIDER_USAGES, resp='provider-usages-resp.json')),
    ('usages', _case(
        'GET', '/usages?project_id=%s' % PROJECT, 200, responses.USAGES,
        resp='usages-resp.json')),
    # Allocation candidates.
    ('allocation-candidates', _case(
        'GET', '/allocation_candidates?resources=VCPU:1,MEMORY_MB:1024,'
        'DISK_GB:10&resources_ACCEL=CUSTOM_FPGA:1'
        '&required_ACCEL=CUSTOM_HW_FPGA_CLASS1&group_policy=isolate&limit=5',
        200, responses.ALLOCATION_CANDIDATES,
        resp='allocation-candidates-resp.json')),
    ('allocation-candidates-1.10', _case(
        'GET', '/allocation_candidates?resources=VCPU:1,MEMORY_MB:1024,'
        'DISK_GB:10', 200, responses.ALLOCATION_CANDIDATES, version='1.10',
        resp='allocation-candidates-1.10-resp.json')),
]

REQUEST_SAMPLES = frozenset(case['request_sample']
                            for _name, case in SAMPLES
                            if case['request_sample'])
RESPONSE_SAMPLES = frozenset(case['response_sample']
                             for _name, case in SAMPLES
                             if case['response_sample'])


def _request(application, method, path, body=None, version=LATEST,
             token='admin', roles=None):
    headers = {'Accept': 'application/json'}
    if token is not None:
        headers['X-Auth-Token'] = token
    if roles is not None:
        headers['X-Roles'] = roles
    if version is not None:
        headers['OpenStack-API-Version'] = 'placement %s' % version
    req = webob.Request.blank('/placement' + path, method=method,
                              headers=headers)
    if body is not None:
        req.body = json.dumps(body).encode('utf-8')
        req.content_type = 'application/json'
    return req.get_response(application)


def normalise(data):
    """``data`` with the request ids made fixed."""
    if isinstance(data, dict):
        return {key: normalise(value) for key, value in data.items()}
    if isinstance(data, list):
        return [normalise(value) for value in data]
    if isinstance(data, str):
        return _REQUEST_ID_RE.sub(REQUEST_ID, data)
    return data


class TestPlacementAPISamples(testscenarios.WithScenarios,
                              base.BaseTestCase):
    """One test per route sample of the /placement pages."""

    scenarios = SAMPLES

    def setUp(self):
        super().setUp()
        if not os.path.isdir(SAMPLES_DIR):
            self.skipTest('%s is not here (not a source tree)'
                          % SAMPLES_DIR)
        gabbi_fixtures.use(self, gabbi_fixtures.PlacementFixture)
        self.app = app.setup_app()
        for method, path, body in DEPLOYMENT:
            resp = _request(self.app, method, path, body)
            self.assertLess(resp.status_int, 300,
                            '%s %s: %s' % (method, path, resp.text))

    def _read(self, name):
        path = os.path.join(SAMPLES_DIR, name)
        if not os.path.exists(path):
            self.fail('No sample %s.' % path)
        with open(path) as f:
            return f.read()

    def test_sample(self):
        body = None
        if self.request_sample:
            body = json.loads(self._read(self.request_sample))
        resp = _request(self.app, self.method, self.path, body,
                        version=self.version, token=self.token,
                        roles=self.roles)
        self.assertEqual(self.status, resp.status_int, resp.text)
        self.assertTrue(resp.headers['X-OpenStack-Request-ID'].startswith(
            'req-'))
        if self.version is not None:
            self.assertEqual(
                'placement %s' % self.version
                if self.status != 406 else None,
                resp.headers.get('OpenStack-API-Version'))
        if not self.response_sample:
            self.assertEqual(b'', resp.body)
            return
        self.assertEqual('application/json', resp.content_type)
        data = normalise(json.loads(resp.text))
        if self.schema is not None:
            jsonschema.Draft202012Validator(
                self.schema,
                format_checker=jsonschema.FormatChecker()).validate(data)
        text = json.dumps(data, indent=4) + '\n'
        path = os.path.join(SAMPLES_DIR, self.response_sample)
        if os.environ.get(REGENERATE_ENV) == '1':
            with open(path, 'w') as f:
                f.write(text)
            return
        expected = self._read(self.response_sample)
        if expected != text:
            diff = ''.join(difflib.unified_diff(
                expected.splitlines(True), text.splitlines(True),
                'doc/api_samples/placement/%s' % self.response_sample,
                'what the API answers'))
            self.fail('The API does not answer as sample %s says:\n%s\n'
                      'If the API is right, run this test with %s=1, '
                      'review the diff, and update the API reference if '
                      'it describes what changed.'
                      % (self.response_sample, diff, REGENERATE_ENV))


class TestPlacementSampleFiles(base.BaseTestCase):
    """No sample goes untested, and the pages show each one."""

    def setUp(self):
        super().setUp()
        if not os.path.isdir(SAMPLES_DIR):
            self.skipTest('%s is not here (not a source tree)'
                          % SAMPLES_DIR)

    def test_every_sample_file_is_tested(self):
        on_disk = {name for name in os.listdir(SAMPLES_DIR)
                   if name.endswith('.json')}
        self.assertEqual(set(), on_disk - REQUEST_SAMPLES - RESPONSE_SAMPLES,
                         'sample files that no test uses')
        self.assertEqual(set(), (REQUEST_SAMPLES | RESPONSE_SAMPLES) -
                         on_disk, 'samples missing')

    def test_request_samples_are_json(self):
        for name in REQUEST_SAMPLES:
            with open(os.path.join(SAMPLES_DIR, name)) as f:
                self.assertIsInstance(json.load(f), (dict, list), name)

    def _pages(self):
        if not os.path.isdir(API_REF_DIR):
            self.skipTest('no API reference beside the samples')
        pages = []
        for name in sorted(os.listdir(API_REF_DIR)):
            if name.startswith('placement') and name.endswith('.rst'):
                with open(os.path.join(API_REF_DIR, name)) as f:
                    pages.append(f.read())
        return pages

    def test_every_request_is_in_the_api_reference(self):
        # The method and path of each tested request, as the pages show
        # it (in a request example or in the text before a sample).
        text = ' '.join(' '.join(self._pages()).split()).replace('``', '')
        missing = []
        for _name, case in SAMPLES:
            request = '%s /placement%s' % (case['method'], case['path'])
            if not re.search(re.escape(request) + r'(?=[\s:,.)]|$)', text):
                missing.append(request)
        self.assertEqual([], missing,
                         'requests the API reference does not show')

    def test_every_sample_is_in_the_api_reference(self):
        shown = set()
        for page in self._pages():
            shown.update(_INCLUDE_RE.findall(page))
        samples = REQUEST_SAMPLES | RESPONSE_SAMPLES
        self.assertEqual(set(), samples - shown,
                         'samples the API reference does not include')
        self.assertEqual(set(), shown - samples,
                         'samples the API reference includes that no test '
                         'checks')
