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

"""The OpenAPI document: valid, built from the API's schemas, current.

``Conformance`` checks an answer of the API (status, content type,
headers, body) against the document; test_api_samples uses it too, for
the samples of the API reference.

With ``ZUN_HOSTCAP_TEST_REGENERATE_SAMPLES=1`` the test of the committed
``doc/api/openapi.json`` rewrites it instead, and passes; review the diff
before you commit it.
"""

import difflib
import json
import os
import re

import fixtures
import jsonschema
from oslotest import base
import referencing
import referencing.jsonschema
import schemathesis
import webob

from zun_hostcap.api import app
from zun_hostcap.api import openapi
from zun_hostcap.api import openapi_placement
from zun_hostcap.api.placement import microversion as placement_version
from zun_hostcap.api.placement import routes as placement_routes
from zun_hostcap.api.schemas import hosts as host_schemas
from zun_hostcap.api.schemas.placement import aggregates as pl_aggregates
from zun_hostcap.api.schemas.placement import allocation_candidates as pl_cand
from zun_hostcap.api.schemas.placement import allocations as pl_allocations
from zun_hostcap.api.schemas.placement import inventories as pl_inventories
from zun_hostcap.api.schemas.placement import reshaper as pl_reshaper
from zun_hostcap.api.schemas.placement import resource_classes as pl_classes
from zun_hostcap.api.schemas.placement import resource_providers as pl_rps
from zun_hostcap.api.schemas.placement import responses as pl_responses
from zun_hostcap.api.schemas.placement import traits as pl_traits
from zun_hostcap.api.schemas.placement import usages as pl_usages
from zun_hostcap.api.schemas import services as service_schemas
from zun_hostcap.common import context
from zun_hostcap.common import exception
from zun_hostcap import objects
from zun_hostcap.tests import gabbi_fixtures

REPO = os.path.normpath(os.path.join(os.path.dirname(__file__), '..', '..',
                                     '..', '..'))
DOCUMENT_PATH = os.path.join(REPO, 'doc', 'api', 'openapi.json')
REGENERATE_ENV = 'ZUN_HOSTCAP_TEST_REGENERATE_SAMPLES'

# Where the document is, for $refs to resolve against while validating.
_DOCUMENT_URI = 'urn:zun-hostcap:openapi'
_FORMAT_CHECKER = jsonschema.FormatChecker()
_METHODS = ('get', 'put', 'post', 'delete', 'options', 'head', 'patch',
            'trace')


def _escape(token):
    return token.replace('~', '~0').replace('/', '~1')


def _pointer(*tokens):
    return ''.join('/' + _escape(str(token)) for token in tokens)


class Conformance(object):
    """What the document says of each answer, and checks of answers."""

    def __init__(self, document=None):
        self.document = document or openapi.document()
        resource = referencing.Resource.from_contents(
            self.document,
            default_specification=referencing.jsonschema.DRAFT202012)
        self.registry = referencing.Registry().with_resource(_DOCUMENT_URI,
                                                             resource)
        self._templates = [
            (template, re.compile('^%s$' % re.sub(
                r'\\\{[^}]+\\\}', '[^/]+', re.escape(template))))
            for template in self.document['paths']]

    def resolve(self, pointer):
        """(pointer, node) at ``pointer``, following $refs to the end."""
        node = self.document
        for token in pointer.lstrip('/').split('/') if pointer else ():
            token = token.replace('~1', '/').replace('~0', '~')
            node = node[int(token) if isinstance(node, list) else token]
        if isinstance(node, dict) and '$ref' in node:
            return self.resolve(node['$ref'][1:])
        return pointer, node

    def template(self, path):
        """The path of the document that ``path`` is, or None."""
        path = path.split('?', 1)[0]
        matches = [template for template, regex in self._templates
                   if regex.match(path)]
        # /v1/hosts is itself, not /v1/{anything}.
        exact = [template for template in matches if template == path]
        return (exact or matches or [None])[0]

    def response_pointer(self, method, path, status):
        """The pointer of the documented response, or fail."""
        template = self.template(path)
        if template is None:
            raise AssertionError('%s is no path of the document' % path)
        if method.lower() not in self.document['paths'][template]:
            raise AssertionError('%s %s is no operation of the document'
                                 % (method, template))
        operation = _pointer('paths', template, method.lower())
        responses = self.resolve(operation)[1]['responses']
        if str(status) not in responses:
            raise AssertionError(
                '%s %s answered %s, which the document does not list '
                '(it lists %s)' % (method, template, status,
                                   ', '.join(sorted(responses))))
        return self.resolve(_pointer('paths', template, method.lower(),
                                     'responses', str(status)))[0]

    def validator(self, pointer):
        """A 2020-12 validator of the schema at ``pointer``."""
        return jsonschema.Draft202012Validator(
            {'$ref': '%s#%s' % (_DOCUMENT_URI, pointer)},
            registry=self.registry, format_checker=_FORMAT_CHECKER)

    def check_body(self, method, path, status, body,
                   media_type='application/json'):
        """``body`` (parsed JSON) is what the document says; else raise."""
        response = self.response_pointer(method, path, status)
        content = self.resolve(response)[1].get('content', {})
        if media_type not in content:
            raise AssertionError(
                '%s %s %s answered %s, which the document does not list '
                '(it lists %s)' % (method, path, status, media_type,
                                   ', '.join(content) or 'no body'))
        self._check_body(response + _pointer('content', media_type, 'schema'),
                         '%s %s %s' % (method, path, status), body)

    def _check_body(self, schema, label, body):
        error = jsonschema.exceptions.best_match(
            self.validator(schema).iter_errors(body))
        if error is not None:
            raise AssertionError('%s: the body does not match the document: '
                                 '%s at %s' % (label, error.message, '/'.join(
                                     map(str, error.absolute_path))))

    def check_response(self, method, path, resp):
        """A webob response conforms: status, type, headers, body."""
        self._check(self.response_pointer(method, path, resp.status_int),
                    '%s %s %s' % (method, path, resp.status_int), resp)

    def check_component_response(self, name, resp):
        """A webob response is the component response ``name``."""
        self._check(_pointer('components', 'responses', name),
                    '%s (%s)' % (resp.status_int, name), resp)

    def _check(self, response, label, resp):
        definition = self.resolve(response)[1]
        for name, header in definition.get('headers', {}).items():
            header_pointer, header = self.resolve(
                header['$ref'][1:] if '$ref' in header else
                response + _pointer('headers', name))
            value = resp.headers.get(name)
            if value is None:
                if header.get('required'):
                    raise AssertionError('%s: header %s is missing' %
                                         (label, name))
                continue
            error = jsonschema.exceptions.best_match(self.validator(
                header_pointer + '/schema').iter_errors(value))
            if error is not None:
                raise AssertionError('%s: header %s: %s' % (
                    label, name, error.message))
        content = definition.get('content', {})
        if not content:
            if resp.body:
                raise AssertionError('%s: a body the document does not '
                                     'have' % label)
            return
        media_type = (resp.content_type or '').split(';')[0]
        if media_type not in content:
            raise AssertionError('%s: %s, which the document does not list '
                                 '(it lists %s)' % (label, media_type,
                                                    ', '.join(content)))
        body = (json.loads(resp.text) if media_type == 'application/json'
                else resp.text)
        self._check_body(response + _pointer('content', media_type,
                                             'schema'), label, body)


def _schemas_of(node, found):
    """Every Schema Object of an OpenAPI document, walking it."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == 'schema' and isinstance(value, dict):
                found.append(value)
            elif key == 'schemas' and isinstance(value, dict):
                found.extend(value.values())
            else:
                _schemas_of(value, found)
    elif isinstance(node, list):
        for value in node:
            _schemas_of(value, found)
    return found


def _refs_of(node, found):
    if isinstance(node, dict):
        if isinstance(node.get('$ref'), str):
            found.append(node['$ref'])
        for value in node.values():
            _refs_of(value, found)
    elif isinstance(node, list):
        for value in node:
            _refs_of(value, found)
    return found


class TestDocument(base.BaseTestCase):
    """The document as a document: valid, and from the API's schemas."""

    def setUp(self):
        super().setUp()
        self.document = openapi.document()

    def test_valid_openapi_3_1(self):
        self.assertEqual('3.1.0', self.document['openapi'])
        # schemathesis checks it against the OpenAPI 3.1 meta-schema.
        schemathesis.openapi.from_dict(self.document).validate()

    def test_every_schema_is_json_schema_2020_12(self):
        self.assertEqual(jsonschema.Draft202012Validator.META_SCHEMA['$id'],
                         self.document['jsonSchemaDialect'])
        schemas = _schemas_of(self.document, [])
        self.assertGreater(len(schemas), 20)
        for schema in schemas:
            jsonschema.Draft202012Validator.check_schema(schema)

    def test_every_ref_resolves(self):
        conformance = Conformance(self.document)
        refs = _refs_of(self.document, [])
        self.assertTrue(refs)
        for ref in refs:
            self.assertTrue(ref.startswith('#/'), ref)
            conformance.resolve(ref[1:])

    def test_the_document_is_json_and_the_same_each_time(self):
        self.assertEqual(self.document,
                         json.loads(json.dumps(self.document)))
        self.assertEqual(openapi.document_text(),
                         json.dumps(openapi.document(), indent=2) + '\n')

    def _query_parameters(self, path):
        operation = self.document['paths'][path]['get']
        return {parameter['name']: parameter
                for parameter in operation['parameters']
                if parameter.get('in') == 'query'}

    def test_query_parameters_are_the_validated_schemas(self):
        # The very properties validate_query checks, parameter by
        # parameter, bookmarks included.
        for path, schema in (
                ('/v1/hosts', host_schemas.GET_HOSTS_QUERY_v1_4),
                ('/hosts', host_schemas.GET_HOSTS_QUERY_v1_4),
                ('/v1/hosts/{host_ident}', host_schemas.GET_HOST_QUERY_v1_4),
                ('/hosts/{host_ident}', host_schemas.GET_HOST_QUERY_v1_4),
                ('/v1/services', service_schemas.GET_SERVICES_QUERY_v1_1),
                ('/services', service_schemas.GET_SERVICES_QUERY_v1_1)):
            parameters = self._query_parameters(path)
            self.assertEqual(schema['properties'],
                             {name: parameter['schema']
                              for name, parameter in parameters.items()},
                             path)
            self.assertEqual(set(schema.get('required', ())),
                             {name for name, parameter in parameters.items()
                              if parameter['required']}, path)

    def test_shared_schemas_are_components(self):
        # One host schema, referred to from the list and the show.
        host = self.document['components']['schemas']['Host_v1_29']
        self.assertEqual({'$ref': '#/components/schemas/NUMATopology'},
                         host['properties']['numa_topology'])
        hosts = self.document['components']['schemas']['HostList_v1_29']
        self.assertEqual({'$ref': '#/components/schemas/Host_v1_29'},
                         hosts['properties']['hosts']['items'])

    def test_microversion_header_lists_the_range(self):
        params = self.document['components']['parameters']
        every = params['OpenStackAPIVersion']['schema']['enum']
        hosts = params['OpenStackAPIVersion_v1_4']['schema']['enum']
        self.assertEqual(['container 1.1', 'container 1.2'], every[:2])
        self.assertEqual(['container 1.40', 'container latest'], every[-2:])
        self.assertEqual('container 1.4', hosts[0])
        self.assertEqual(every[3:], hosts)
        self.assertFalse(params['OpenStackAPIVersion']['required'])
        self.assertTrue(params['OpenStackAPIVersion_v1_4']['required'])

    def test_public_routes_need_no_token(self):
        self.assertEqual([{'keystone': []}], self.document['security'])
        public = {(path, method)
                  for path, item in self.document['paths'].items()
                  for method, operation in item.items()
                  if operation.get('security') == []}
        self.assertEqual({('/', 'get'), ('/v1', 'get'),
                          ('/openapi.json', 'get'), ('/healthcheck', 'get'),
                          ('/healthcheck', 'head'),
                          ('/placement', 'get')}, public)


_PLACEMENT_MODULES = {
    'aggregates': pl_aggregates, 'allocations': pl_allocations,
    'allocation_candidates': pl_cand,
    'inventories': pl_inventories, 'resource_classes': pl_classes,
    'resource_providers': pl_rps, 'traits': pl_traits, 'usages': pl_usages,
    'reshaper': pl_reshaper,
}


def _versions_of(module, base):
    """{minor: constant} of ``base`` and ``base_v1_N`` in ``module``."""
    found = {}
    for name in dir(module):
        match = re.match(r'^%s(?:_[vV]1_([0-9]+))?$' % re.escape(base), name)
        if match and isinstance(getattr(module, name), dict):
            found[int(match.group(1) or 0)] = getattr(module, name)
    return found


def _inline(node, schemas):
    """``node`` with each $ref to a schema component replaced by it."""
    if isinstance(node, dict):
        ref = node.get('$ref', '')
        if ref.startswith('#/components/schemas/'):
            return _inline(schemas[ref.rsplit('/', 1)[1]], schemas)
        return {key: _inline(value, schemas) for key, value in node.items()}
    if isinstance(node, list):
        return [_inline(value, schemas) for value in node]
    return node


class TestPlacementDocument(base.BaseTestCase):
    """The /placement part: from Placement's schemas and versions."""

    def setUp(self):
        super().setUp()
        self.document = openapi.document()
        self.operations = {
            (method, path): operation
            for path, item in self.document['paths'].items()
            if path.startswith(openapi_placement.PREFIX)
            for method, operation in item.items()}

    def _routes(self, methods=None):
        """{(method, document path)} of the route table."""
        return {(method.lower(),
                 (openapi_placement.PREFIX + template).rstrip('/'))
                for template, _controller, route_methods in
                placement_routes.ROUTES
                for method in route_methods
                if methods is None or method in methods}

    def test_every_placement_route_is_there(self):
        # Path by path, both ways: the document has what the route table
        # routes, and nothing else.
        self.assertEqual(sorted(self._routes()), sorted(self.operations))
        self.assertEqual(set(openapi_placement.operation_minimums()),
                         set(self.operations))

    def test_every_schema_the_api_validates_with_is_found(self):
        self.assertEqual([], openapi_placement.missing_schemas())

    def test_request_bodies_are_the_newest_validated_schemas(self):
        schemas = self.document['components']['schemas']
        for name, module, constant in openapi_placement.REQUEST_SCHEMAS:
            versions = _versions_of(_PLACEMENT_MODULES[module], constant)
            self.assertTrue(versions, constant)
            self.assertEqual(
                json.loads(json.dumps(versions[max(versions)])),
                _inline(schemas[name], schemas), name)
        bodies = {operation['operationId']:
                  operation['requestBody']['content']['application/json']
                  ['schema']['$ref'].rsplit('/', 1)[1]
                  for operation in self.operations.values()
                  if 'requestBody' in operation}
        self.assertEqual('SetAllocationsRequest', bodies['setAllocations'])
        self.assertEqual('SetInventoriesRequest', bodies['setInventories'])
        # Every POST and PUT of the route table takes a body, but the PUT
        # of a trait, as in Placement.
        with_body = {key for key, operation in self.operations.items()
                     if 'requestBody' in operation}
        self.assertEqual(
            sorted(self._routes(('POST', 'PUT')) -
                   {('put', '/placement/traits/{name}')}),
            sorted(with_body))

    def test_query_parameters_are_the_validated_schemas(self):
        for operation_id, module, constant in openapi_placement.QUERY_SCHEMAS:
            versions = _versions_of(_PLACEMENT_MODULES[module], constant)
            schema = versions[max(versions)]
            operation = next(op for op in self.operations.values()
                             if op['operationId'] == operation_id)
            parameters = {p['name']: p for p in operation['parameters']
                          if p.get('in') == 'query'}
            # Keys named by pattern: one object, each key a parameter.
            groups = parameters.pop(openapi_placement.PATTERN_PARAMETER,
                                    None)
            self.assertEqual(schema['properties'],
                             {name: p['schema']
                              for name, p in parameters.items()},
                             operation_id)
            self.assertEqual(set(schema.get('required', ())),
                             {name for name, p in parameters.items()
                              if p['required']}, operation_id)
            if 'patternProperties' not in schema:
                self.assertIsNone(groups, operation_id)
                continue
            self.assertEqual(('form', True, False),
                             (groups['style'], groups['explode'],
                              groups['required']))
            self.assertEqual(schema['patternProperties'],
                             groups['schema']['patternProperties'])

    def test_allocation_candidates_query(self):
        operation = self.operations[('get',
                                     '/placement/allocation_candidates')]
        parameters = {p.get('name'): p for p in operation['parameters']}
        self.assertEqual({None, 'limit', 'group_policy', 'root_required',
                          'same_subtree', 'request_groups'},
                         set(parameters))
        groups = parameters['request_groups']['schema']
        # The unsuffixed keys and those with a suffix of 1 to 64 chars.
        validator = jsonschema.Draft202012Validator(groups)
        for valid in ({'resources': 'VCPU:1'},
                      {'resources1': 'VCPU:1', 'required1': 'A',
                       'member_of_NIC': 'in:a,b', 'in_tree' + 'x' * 64: 'u'}):
            self.assertTrue(validator.is_valid(valid), valid)
        for invalid in ({'resources': 1}, {'resources' + 'x' * 65: 'a'},
                        {'resources_\u00e9': 'a'}, {'limits': '1'}):
            self.assertFalse(validator.is_valid(invalid), invalid)

    def test_microversion_header_from_the_route_s_version(self):
        params = self.document['components']['parameters']
        every = params['PlacementAPIVersion_v1_0']
        self.assertEqual('openstack-api-version', every['name'].lower())
        self.assertFalse(every['required'])
        self.assertEqual(['placement 1.0', 'placement 1.1'],
                         every['schema']['enum'][:2])
        self.assertEqual(['placement %s' % str(placement_version.MAX_VERSION),
                          'placement latest'],
                         every['schema']['enum'][-2:])
        minimums = openapi_placement.operation_minimums()
        for key, operation in self.operations.items():
            minimum = minimums[key]
            ref = operation['parameters'][0]['$ref']
            parameter = params[ref.rsplit('/', 1)[1]]
            self.assertFalse(parameter['required'], key)
            self.assertEqual('placement 1.%d' % minimum[1],
                             parameter['schema']['enum'][0], key)
            # Below the route's version: 404 (405 for one method).
            if minimum > (1, 0):
                self.assertTrue({'404', '405'} & set(operation['responses']),
                                key)

    def test_statuses(self):
        def statuses(method, path):
            return sorted(self.operations[(method, '/placement' + path)]
                          ['responses'])
        self.assertEqual(['200', '400', '406'], statuses('get', ''))
        self.assertEqual(['200', '201', '400', '401', '403', '406', '409',
                          '415', '503'],
                         statuses('post', '/resource_providers'))
        self.assertEqual(['200', '201', '204', '400', '401', '403', '404',
                          '406', '409', '415', '503'],
                         statuses('put', '/resource_classes/{name}'))
        self.assertEqual(['204', '400', '401', '403', '404', '405', '406',
                          '409', '503'],
                         statuses('delete',
                                  '/resource_providers/{uuid}/inventories'))
        for key, operation in self.operations.items():
            if key != ('get', '/placement'):
                self.assertIn('401', operation['responses'], key)
                self.assertIn('403', operation['responses'], key)
            if 'requestBody' in operation:
                self.assertIn('415', operation['responses'], key)
                self.assertIn('409', operation['responses'], key)

    def test_error_document_is_placement_s(self):
        error = self.document['components']['schemas']['PlacementError']
        self.assertEqual(['status', 'title', 'detail', 'request_id'],
                         error['required'])
        validator = jsonschema.Draft202012Validator(
            pl_responses.ERROR_DOCUMENT)
        # Before 1.23 without code, from 1.23 with one.
        entry = {'status': 404, 'title': 'Not Found', 'detail': 'No.',
                 'request_id': 'req-%s' % '8e3c5f1a-6a3e-4f5e-9c3d-'
                                          '0d7f0b3e2a11'}
        validator.validate({'errors': [entry]})
        validator.validate({'errors': [dict(
            entry, code='placement.resource_provider.not_found')]})
        self.assertFalse(validator.is_valid({'errors': [dict(
            entry, code='container.not_found')]}))

    def test_response_schemas_take_each_version(self):
        provider = {'uuid': '8e3c5f1a-6a3e-4f5e-9c3d-0d7f0b3e2a11',
                    'name': 'rp', 'generation': 0,
                    'links': [{'rel': 'self', 'href': '/placement/rp'},
                              {'rel': 'inventories', 'href': '/i'},
                              {'rel': 'usages', 'href': '/u'}]}
        for schema, body in (
                (pl_responses.RESOURCE_PROVIDER, provider),
                (pl_responses.RESOURCE_PROVIDER, dict(
                    provider, parent_provider_uuid=None,
                    root_provider_uuid=provider['uuid'])),
                (pl_responses.PROVIDER_AGGREGATES, {'aggregates': []}),
                (pl_responses.PROVIDER_AGGREGATES, {
                    'aggregates': [], 'resource_provider_generation': 1}),
                (pl_responses.USAGES, {'usages': {'VCPU': 1}}),
                (pl_responses.USAGES, {'usages': {'INSTANCE': {
                    'consumer_count': 1, 'VCPU': 1}}}),
                (pl_responses.CONSUMER_ALLOCATIONS, {'allocations': {}}),
                (pl_responses.CONSUMER_ALLOCATIONS, {
                    'allocations': {provider['uuid']: {
                        'generation': 1, 'resources': {'VCPU': 1}}},
                    'project_id': 'p', 'user_id': 'u',
                    'consumer_generation': 1, 'consumer_type': 'INSTANCE'})):
            jsonschema.Draft202012Validator(
                schema, format_checker=_FORMAT_CHECKER).validate(body)


class TestCommittedDocument(base.BaseTestCase):

    def test_committed_document_is_current(self):
        text = openapi.document_text()
        if os.environ.get(REGENERATE_ENV) == '1':
            os.makedirs(os.path.dirname(DOCUMENT_PATH), exist_ok=True)
            with open(DOCUMENT_PATH, 'w') as f:
                f.write(text)
            return
        if not os.path.isdir(os.path.join(REPO, 'doc')):
            self.skipTest('not a source tree')
        if not os.path.exists(DOCUMENT_PATH):
            self.fail('No %s. Write it with %s=1 and review it.'
                      % (DOCUMENT_PATH, REGENERATE_ENV))
        with open(DOCUMENT_PATH) as f:
            committed = f.read()
        if committed != text:
            diff = ''.join(difflib.unified_diff(
                committed.splitlines(True), text.splitlines(True),
                'doc/api/openapi.json', 'what the code generates'))
            self.fail('doc/api/openapi.json is not what the code '
                      'generates:\n%s\nIf the code is right, run this test '
                      'with %s=1 and review the diff.'
                      % (diff, REGENERATE_ENV))


class _APITestCase(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        gabbi_fixtures.use(self)
        self.app = app.setup_app()
        self.conformance = Conformance()
        nodes = objects.ComputeNodeList.get_all(context.get_admin_context())
        self.uuid_of = {node.hostname: node.uuid for node in nodes}

    def request(self, path, method='GET', token='admin', version='latest',
                **headers):
        if token is not None:
            headers['X-Auth-Token'] = token
        if version is not None:
            headers['OpenStack-API-Version'] = 'container %s' % version
        req = webob.Request.blank(path, method=method, headers=headers)
        return req.get_response(self.app)

    def assertConforms(self, path, resp, method='GET'):
        self.conformance.check_response(method, path, resp)


class TestServed(_APITestCase):

    def test_served_without_token(self):
        resp = self.request('/openapi.json', token=None, version=None)
        self.assertEqual(200, resp.status_int)
        self.assertEqual('application/json', resp.content_type)
        self.assertEqual(openapi.document_text(), resp.text)
        self.assertConforms('/openapi.json', resp)

    def test_every_documented_path_is_routed(self):
        # Path by path, the Zun routes of the document against the app:
        # each method of each path reaches a controller.
        uuid = sorted(self.uuid_of.values())[0]
        paths = openapi.document()['paths']
        for template, item in sorted(paths.items()):
            if template.startswith(openapi_placement.PREFIX):
                continue  # tested against the route table
            path = template.replace('{host_ident}', uuid)
            for method in item:
                resp = self.request(path, method=method.upper())
                self.assertNotIn(resp.status_int, (404, 405),
                                 '%s %s' % (method, path))

    def test_other_methods_are_not_allowed(self):
        for path in ('/openapi.json', '/'):
            resp = self.request(path, method='POST', token=None)
            self.assertEqual(405, resp.status_int, path)
            self.assertEqual('GET', resp.headers['Allow'], path)
            self.assertEqual('container.method_not_allowed',
                             resp.json['errors'][0]['code'])

    def test_not_acceptable(self):
        for headers in ({'OpenStack-API-Version': 'container 2.0'},
                        {'Accept': 'text/html'}):
            req = webob.Request.blank('/openapi.json', headers=headers)
            resp = req.get_response(self.app)
            self.assertEqual(406, resp.status_int, headers)
            self.assertConforms('/openapi.json', resp)


class TestConformance(_APITestCase):
    """In-process answers of every route conform to the document."""

    def _path(self, template):
        return template.replace('{host_ident}',
                                self.uuid_of['host-a.example.com'])

    def test_every_route_answers_as_documented(self):
        for template, item in self.conformance.document['paths'].items():
            if template.startswith(openapi_placement.PREFIX):
                # TestPlacementConformance: they need what they show.
                continue
            for method in item:
                if method not in _METHODS:
                    continue
                resp = self.request(self._path(template),
                                    method=method.upper())
                self.assertIn(resp.status_int, (200, 204),
                              '%s %s: %s' % (method, template, resp.text))
                self.assertConforms(self._path(template), resp,
                                    method.upper())

    def test_each_microversion_of_a_host(self):
        path = '/v1/hosts/host-a.example.com'
        old = self.request(path, version='1.28')
        new = self.request(path, version='1.29')
        self.assertConforms(path, old)
        self.assertConforms(path, new)
        # anyOf in the document; each answer is of its own version.
        for body, valid, invalid in (
                (old.json, host_schemas.HOST_v1_4, host_schemas.HOST_v1_29),
                (new.json, host_schemas.HOST_v1_29, host_schemas.HOST_v1_4)):
            jsonschema.Draft202012Validator(valid).validate(body)
            self.assertFalse(
                jsonschema.Draft202012Validator(invalid).is_valid(body))

    def test_errors_are_documented(self):
        cases = [
            ('/v1/hosts?limit=0', {}, 400),
            ('/v1/hosts?colour=blue', {}, 400),
            ('/v1/hosts?sort_key=colour', {}, 400),
            ('/v1/hosts/host-b?limit=1', {}, 400),
            ('/v1/services?all=1', {}, 400),
            ('/v1/hosts', dict(token=None), 401),
            ('/v1/services', dict(token=None), 401),
            ('/v1/hosts', dict(token='demo'), 403),
            ('/v1/hosts/host-b', dict(token='demo'), 403),
            ('/v1/services', dict(token='demo'), 403),
            ('/v1/hosts/no-such-host', {}, 404),
            ('/hosts/no-such-host', {}, 404),
            ('/v1/hosts?marker=6b0d6f1e-6a3e-4f5e-9c3d-0d7f0b3e2a11', {},
             404),
            ('/v1/hosts', dict(version='1.3'), 406),
            ('/v1/hosts', dict(version=None), 406),
            ('/', dict(version='1.41'), 406),
            ('/v1', dict(version='one.two'), 406),
            ('/v1/services', dict(version='2.0'), 406),
        ]
        for path, kwargs, status in cases:
            resp = self.request(path, **kwargs)
            self.assertEqual(status, resp.status_int, path)
            self.assertEqual(status, resp.json['errors'][0]['status'])
            self.assertConforms(path, resp)

    def test_undocumented_answers_are_caught(self):
        resp = self.request('/v1/hosts')
        self.assertConforms('/v1/hosts', resp)

        def changed(body, drop_header=None):
            headers = [(name, value) for name, value in resp.headerlist
                       if name.lower() not in ('content-length',
                                               (drop_header or '').lower())]
            return webob.Response(status=resp.status, headerlist=headers,
                                  json_body=body)

        # A field the document does not have.
        self.assertRaises(AssertionError, self.assertConforms, '/v1/hosts',
                          changed(dict(resp.json, extra=1)))
        # A header it requires, missing.
        self.assertRaises(AssertionError, self.assertConforms, '/v1/hosts',
                          changed(resp.json, drop_header='OpenStack-API-'
                                                         'Version'))
        gone = self.request('/v1/hosts', method='DELETE')
        self.assertEqual(405, gone.status_int)
        self.assertRaises(AssertionError, self.assertConforms, '/v1/hosts',
                          gone, 'DELETE')

    def test_other_methods_and_bodies(self):
        # Not operations of the document: its component responses.
        # (/v1 is left out: its 405 has no Allow header yet.)
        for path in ('/', '/openapi.json', '/v1/hosts', '/v1/hosts/host-b',
                     '/v1/services', '/hosts'):
            resp = self.request(path, method='DELETE')
            self.assertEqual(405, resp.status_int, path)
            self.conformance.check_component_response('MethodNotAllowed',
                                                      resp)
        req = webob.Request.blank('/v1/hosts', method='GET', headers={
            'X-Auth-Token': 'admin', 'Content-Type': 'text/plain'})
        # Over the fixture's max_request_body_size.
        req.body = b'x' * 1024
        resp = req.get_response(self.app)
        self.assertEqual(413, resp.status_int)
        self.conformance.check_component_response('RequestEntityTooLarge',
                                                  resp)

    def test_database_unavailable(self):
        self.useFixture(fixtures.MockPatch(
            'zun_hostcap.db.api.compute_node_get_all',
            side_effect=exception.DatabaseUnavailable(reason='refused')))
        resp = self.request('/v1/hosts')
        self.assertEqual(503, resp.status_int)
        self.assertConforms('/v1/hosts', resp)


class TestPlacementConformance(_APITestCase):
    """Every Placement route, at the newest and older versions, conforms.

    Each answer of a walk through the model (resource classes, a
    provider, its inventories, aggregates and traits, allocations,
    usages; then each deleted) is checked against the document.
    """

    RP = '8e3c5f1a-6a3e-4f5e-9c3d-0d7f0b3e2a11'
    CHILD = '5b2d7e9c-1f4a-4c8e-9a6b-3d2e1f0a9b8c'
    CONSUMER = '0c7d6e5f-4a3b-4c2d-8e1f-9a8b7c6d5e4f'
    OTHER_CONSUMER = '1d2e3f4a-5b6c-4d7e-8f9a-0b1c2d3e4f5a'
    AGGREGATE = '2e3f4a5b-6c7d-4e8f-9a0b-1c2d3e4f5a6b'

    def place(self, path, method='GET', body=None, version='latest',
              token='admin', status=None, **headers):
        """An answer of /placement``path``, checked against the document."""
        if token is not None:
            headers['X-Auth-Token'] = token
        if version is not None:
            headers['OpenStack-API-Version'] = 'placement %s' % version
        req = webob.Request.blank(openapi_placement.PREFIX + path,
                                  method=method, headers=headers)
        if body is not None:
            req.content_type = headers.get('Content-Type',
                                           'application/json')
            req.body = (body if isinstance(body, bytes)
                        else json.dumps(body).encode())
        resp = req.get_response(self.app)
        if status is not None:
            self.assertEqual(status, resp.status_int, '%s %s: %s' % (
                method, path, resp.text))
        self.conformance.check_response(method, req.path, resp)
        return resp

    def generation(self, uuid=None):
        return self.place('/resource_providers/%s' % (uuid or self.RP),
                          status=200).json['generation']

    def test_a_walk_through_every_route(self):
        rp = '/resource_providers/' + self.RP
        self.place('', token=None, status=200)
        self.place('/resource_classes', status=200)
        self.place('/resource_classes', 'POST', {'name': 'CUSTOM_GOLD'},
                   status=201)
        self.place('/resource_classes/CUSTOM_GOLD', status=200)
        self.place('/resource_classes/CUSTOM_SILVER', 'PUT', status=201)
        self.place('/resource_classes/CUSTOM_SILVER', 'PUT', status=204)
        # 1.2-1.6: PUT renames.
        self.place('/resource_classes/CUSTOM_SILVER', 'PUT',
                   {'name': 'CUSTOM_BRONZE'}, version='1.6', status=200)

        self.place('/resource_providers', 'POST',
                   {'name': 'rp', 'uuid': self.RP}, status=200)
        self.place('/resource_providers', 'POST',
                   {'name': 'child', 'uuid': self.CHILD,
                    'parent_provider_uuid': self.RP}, version='1.14',
                   status=201)
        self.place('/resource_providers', 'POST', {'name': 'old'},
                   version='1.0', status=201)
        for version in ('1.0', '1.14', 'latest'):
            self.place('/resource_providers', version=version, status=200)
            self.place(rp, version=version, status=200)
        self.place(rp, 'PUT', {'name': 'rp2'}, status=200)

        self.place(rp + '/inventories', 'PUT', {
            'resource_provider_generation': self.generation(),
            'inventories': {'VCPU': {'total': 8},
                            'MEMORY_MB': {'total': 4096}}}, status=200)
        self.place(rp + '/inventories', 'POST', {
            'resource_class': 'CUSTOM_GOLD', 'total': 4}, status=201)
        self.place(rp + '/inventories', status=200)
        self.place(rp + '/inventories/VCPU', status=200)
        self.place(rp + '/inventories/VCPU', 'PUT', {
            'resource_provider_generation': self.generation(),
            'total': 16}, status=200)

        self.place(rp + '/aggregates', version='1.1', status=200)
        self.place(rp + '/aggregates', 'PUT', [self.AGGREGATE],
                   version='1.1', status=200)
        self.place(rp + '/aggregates', 'PUT', {
            'aggregates': [self.AGGREGATE],
            'resource_provider_generation': self.generation()},
            status=200)
        self.place(rp + '/aggregates', status=200)

        self.place('/traits/CUSTOM_FAST', 'PUT', status=201)
        self.place('/traits/CUSTOM_FAST', 'PUT', status=204)
        self.place('/traits/CUSTOM_FAST', status=204)
        self.place('/traits?name=startswith:CUSTOM_', status=200)
        self.place(rp + '/traits', 'PUT', {
            'traits': ['CUSTOM_FAST'],
            'resource_provider_generation': self.generation()},
            status=200)
        self.place(rp + '/traits', status=200)

        self.place('/allocations/' + self.CONSUMER, 'PUT', {
            'allocations': {self.RP: {'resources': {'VCPU': 2}}},
            'project_id': 'p', 'user_id': 'u', 'consumer_generation': None,
            'consumer_type': 'INSTANCE'}, status=204)
        self.place('/allocations', 'POST', {self.OTHER_CONSUMER: {
            'allocations': {self.RP: {'resources': {'MEMORY_MB': 512}}},
            'project_id': 'p', 'user_id': 'u', 'consumer_generation': None,
            'consumer_type': 'MIGRATION'}}, status=204)
        for version in ('1.0', '1.12', '1.28', 'latest'):
            self.place('/allocations/' + self.CONSUMER, version=version,
                       status=200)
        self.place('/allocations/' + self.AGGREGATE, status=200)
        self.place(rp + '/allocations', status=200)
        self.place(rp + '/usages', status=200)
        for version in ('1.9', 'latest'):
            self.place('/usages?project_id=p', version=version, status=200)

        self.place('/allocations/' + self.CONSUMER, 'DELETE', status=204)
        self.place('/allocations/' + self.OTHER_CONSUMER, 'DELETE',
                   status=204)
        self.place(rp + '/traits', 'DELETE', status=204)
        self.place('/traits/CUSTOM_FAST', 'DELETE', status=204)
        self.place(rp + '/inventories/CUSTOM_GOLD', 'DELETE', status=204)
        self.place(rp + '/inventories', 'DELETE', status=204)
        self.place('/resource_providers/' + self.CHILD, 'DELETE',
                   status=204)
        self.place(rp, 'DELETE', status=204)
        self.place('/resource_classes/CUSTOM_GOLD', 'DELETE', status=204)

    def test_allocation_candidates_at_each_version(self):
        # A compute with a child, and a pool it shares through an
        # aggregate: a candidate of two providers in each form.
        self.place('/resource_providers', 'POST',
                   {'name': 'rp', 'uuid': self.RP}, status=200)
        self.place('/resource_providers', 'POST',
                   {'name': 'child', 'uuid': self.CHILD,
                    'parent_provider_uuid': self.RP}, status=200)
        self.place('/resource_providers', 'POST',
                   {'name': 'pool', 'uuid': self.OTHER_CONSUMER},
                   status=200)
        for uuid, inventories in ((self.RP, {'VCPU': {'total': 8}}),
                                  (self.CHILD, {'VCPU': {'total': 4}}),
                                  (self.OTHER_CONSUMER,
                                   {'DISK_GB': {'total': 100}})):
            self.place('/resource_providers/%s/inventories' % uuid, 'PUT',
                       {'resource_provider_generation': 0,
                        'inventories': inventories}, status=200)
            self.place('/resource_providers/%s/aggregates' % uuid, 'PUT',
                       {'resource_provider_generation': 1,
                        'aggregates': [self.AGGREGATE]}, status=200)
        self.place('/resource_providers/%s/traits' % self.OTHER_CONSUMER,
                   'PUT', {'resource_provider_generation': 2,
                           'traits': ['MISC_SHARES_VIA_AGGREGATE']},
                   status=200)
        path = '/allocation_candidates?resources=VCPU:1,DISK_GB:10'
        for version in ('1.10', '1.12', '1.17', '1.27', '1.29', '1.34',
                        'latest'):
            resp = self.place(path, version=version, status=200)
            # VCPU of the compute or of its child, DISK_GB of the pool.
            self.assertEqual(2, len(resp.json['allocation_requests']),
                             version)
        self.place('/allocation_candidates?resources_NIC=VCPU:1'
                   '&required_NIC=!HW_CPU_X86_AVX&limit=1', status=200)
        # Not there before 1.10; a query Placement refuses.
        self.place(path, version='1.9', status=404)
        self.place('/allocation_candidates?resources=VCPU:0', status=400)
        self.place('/allocation_candidates?resources1=VCPU:1',
                   version='1.24', status=400)

    def test_errors_are_documented(self):
        rp = '/resource_providers/' + self.RP
        self.place('/resource_providers', 'POST',
                   {'name': 'rp', 'uuid': self.RP}, status=200)
        cases = [
            # path, kwargs, status
            ('/resource_providers?colour=blue', {}, 400),
            ('/resource_providers', dict(version='one'), 400),
            ('/resource_providers', dict(method='POST', body={}), 400),
            ('/resource_providers', dict(token=None), 401),
            ('/resource_providers', dict(token='demo'), 403),
            ('/resource_providers/' + self.CHILD, {}, 404),
            ('/traits', dict(version='1.5'), 404),
            ('/usages?project_id=p', dict(version='1.8'), 404),
            ('/resource_classes', dict(version=None), 404),
            (rp + '/inventories', dict(method='DELETE', version='1.4'),
             405),
            ('/resource_providers', dict(version='1.40'), 406),
            ('/resource_providers', dict(Accept='text/html'), 406),
            (rp, dict(method='PUT', body={'name': 'rp'},
                      version=None), 200),
            (rp + '/inventories', dict(method='PUT', body={
                'resource_provider_generation': 99,
                'inventories': {}}), 409),
            ('/resource_providers', dict(method='POST', body=b'name=x',
                                         **{'Content-Type': 'text/plain'}),
             415),
        ]
        for path, kwargs, status in cases:
            resp = self.place(path, **kwargs)
            self.assertEqual(status, resp.status_int,
                             '%s %s: %s' % (path, kwargs, resp.text))
            if 'Accept' in kwargs:
                # A client that takes HTML only: an HTML page, as from
                # Placement.
                self.assertEqual('text/html', resp.content_type)
            elif status >= 400:
                self.assertEqual(status, resp.json['errors'][0]['status'])
        # From 1.23 each error has its code.
        resp = self.place('/resource_providers/' + self.CHILD, status=404)
        self.assertEqual('placement.resource_provider.not_found',
                         resp.json['errors'][0]['code'])
        resp = self.place('/resource_providers/' + self.CHILD,
                          version='1.22', status=404)
        self.assertNotIn('code', resp.json['errors'][0])

    def test_other_methods(self):
        for path in ('', '/resource_providers', '/traits', '/usages'):
            req = webob.Request.blank(
                openapi_placement.PREFIX + path, method='PATCH',
                headers={'X-Auth-Token': 'admin'})
            resp = req.get_response(self.app)
            self.assertEqual(405, resp.status_int, path)
            self.conformance.check_component_response(
                'PlacementMethodNotAllowed', resp)

    def test_undocumented_answers_are_caught(self):
        resp = self.place('/resource_providers', status=200)
        bad = webob.Response(status=200, headerlist=[
            (name, value) for name, value in resp.headerlist
            if name.lower() != 'content-length'],
            json_body={'resource_providers': [{'uuid': self.RP}]})
        self.assertRaises(AssertionError, self.conformance.check_response,
                          'GET', '/placement/resource_providers', bad)
