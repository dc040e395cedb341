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

"""The OpenAPI 3.1 document of the REST API, built from its JSON schemas.

Nothing in it is written twice:

* the query parameters of a route are the properties of the very schema
  ``validate_query`` checks that route's query string with
  (``zun_hostcap.api.schemas``), one parameter per property;
* the bodies are the response schemas next to them, which the tests check
  the API's answers and the API reference's samples against;
* the microversion header lists the range of ``microversion``.

A schema object that appears in several places (a host, a link, the
error document) is one component, and the document refers to it with
``$ref`` wherever the schemas share that dict.

The routes of the Placement-compatible API under ``/placement`` are
built the same way by ``zun_hostcap.api.openapi_placement``.

GET /openapi.json serves :func:`document_text`; ``doc/api/openapi.json``
is the same text, kept current by a unit test
(``ZUN_HOSTCAP_TEST_REGENERATE_SAMPLES=1`` rewrites it).
"""

import copy
import functools
import json

from zun_hostcap.api import microversion
from zun_hostcap.api import openapi_placement
from zun_hostcap.api.schemas import common
from zun_hostcap.api.schemas import errors
from zun_hostcap.api.schemas import healthcheck
from zun_hostcap.api.schemas import hosts
from zun_hostcap.api.schemas import openapi as openapi_schemas
from zun_hostcap.api.schemas import services
from zun_hostcap.api.schemas import versions

OPENAPI_VERSION = '3.1.0'
# Plain JSON Schema 2020-12, which jsonschema validates queries with: the
# schemas use none of the OpenAPI vocabulary of the default dialect.
JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema'

SECURITY_SCHEME = 'keystone'
REQUEST_ID_HEADER = 'x-openstack-request-id'
JSON = 'application/json'

# Schema components, in the order the document lists them. Wherever one
# of these dicts appears inside another schema, the document has a $ref.
SCHEMA_COMPONENTS = (
    ('Link', common.LINK),
    ('SelfLinks', common.SELF_LINKS),
    ('SelfAndBookmarkLinks', common.SELF_AND_BOOKMARK_LINKS),
    ('Version_v1_1', versions.VERSION_v1_1),
    ('Versions_v1_1', versions.GET_ROOT_RESPONSE_v1_1),
    ('V1_v1_1', versions.GET_V1_RESPONSE_v1_1),
    ('NUMATopology', hosts.NUMA_TOPOLOGY),
    ('PciDevicePools', hosts.PCI_DEVICE_POOLS),
    ('Host_v1_4', hosts.HOST_v1_4),
    ('Host_v1_29', hosts.HOST_v1_29),
    ('HostList_v1_4', hosts.GET_HOSTS_RESPONSE_v1_4),
    ('HostList_v1_29', hosts.GET_HOSTS_RESPONSE_v1_29),
    ('Service_v1_1', services.SERVICE_v1_1),
    ('ServiceList_v1_1', services.GET_SERVICES_RESPONSE_v1_1),
    ('Error_v1_1', errors.ERROR_v1_1),
    ('ErrorDocument_v1_1', errors.ERROR_DOCUMENT_v1_1),
    ('Healthcheck', healthcheck.HEALTHCHECK_RESPONSE),
    ('OpenAPIDocument', openapi_schemas.GET_OPENAPI_RESPONSE),
)

# Error responses: component name, status, when.
ERROR_RESPONSES = (
    ('BadRequest', 400,
     'The query string is not what the route takes: an unknown parameter, '
     'one given twice or a value of the wrong form '
     '(container.invalid_query), or a sort key that is not a field '
     '(container.invalid_sort_key); or the path or the query string is '
     'not UTF-8, or the path has an empty segment '
     '(container.bad_request).'),
    ('Unauthorized', 401,
     'No token, or one keystone does not know. With keystone, '
     'WWW-Authenticate names where to get one.'),
    ('Forbidden', 403,
     'The policy does not allow this to the token\'s user; the detail '
     'names the rule. By default every route is for administrators.'),
    ('NotFound', 404,
     'No host has this uuid or hostname (container.compute_node_not_found), '
     'no host has the uuid of marker (container.marker_not_found), or the '
     'path names nothing (container.not_found).'),
    ('NotAcceptable', 406,
     'The microversion is malformed, outside the range the API serves, or '
     'older than the route (container.version_not_acceptable); or Accept '
     'rules out application/json (container.not_acceptable).'),
    ('ServiceUnavailable', 503,
     'A backend the request needs is down: the database, or keystone for '
     'the token. Try again later.'),
)

# Errors of any path rather than of an operation: the document lists them
# once, as component responses, for clients to know their shape.
OTHER_ERROR_RESPONSES = (
    ('MethodNotAllowed', 405,
     'A method the path does not list; Allow names those it does.'),
    ('RequestEntityTooLarge', 413,
     'A request body over [oslo_middleware] max_request_body_size bytes; '
     'no route takes a body.'),
)

# Which errors each kind of route answers.
# A query string or path that is not UTF-8 gets 400 on any route.
_PUBLIC_ERRORS = (400, 406)
_AUTHENTICATED_ERRORS = (400, 401, 403, 406, 503)
_LOOKUP_ERRORS = (400, 401, 403, 404, 406, 503)

_DESCRIPTION = """\
The host capabilities of the container hosts of an OpenStack cloud, in the \
shape of the Zun API, so that python-zunclient and `openstack appcontainer \
host` work unmodified.

**Microversions.** A request names its version in `OpenStack-API-Version: \
container X.Y` (or `container latest`); without the header it is for \
%(min)s. The API serves %(min)s to %(max)s and answers others with 406. \
The hosts routes exist from %(hosts)s; hosts show `enable_cpu_pinning` \
from %(pinning)s. Every response of the API routes names the version it \
was answered at and the range.

**Authentication.** The token goes in `X-Auth-Token`: keystone's, or with \
`[api] auth_strategy = noauth2` the token `admin` for an administrator. \
The version documents, this document and the health check are public.

**Errors.** Every error of the API routes is a JSON error document \
(`ErrorDocument_v1_1`) whose `status` is the response's. A method a path \
does not list gets 405 (the `MethodNotAllowed` response), a body over \
`[oslo_middleware] max_request_body_size` 413 \
(`RequestEntityTooLarge`). Paths with a trailing slash are the same \
routes.
"""


def _version_values(minimum):
    """``container X.Y`` for every version from ``minimum``, and latest."""
    return (['%s %d.%d' % (microversion.SERVICE_TYPE, minimum.major, minor)
             for minor in range(minimum.minor,
                                microversion.MAX_VERSION.minor + 1)] +
            ['%s latest' % microversion.SERVICE_TYPE])


def _ref(kind, name):
    return {'$ref': '#/components/%s/%s' % (kind, name)}


class _Refs(object):
    """Copies schemas, putting $refs where a schema component appears."""

    def __init__(self, components):
        self.names = {id(schema): name for name, schema in components}

    def copy(self, schema, inside=None):
        """A JSON copy of ``schema``; ``inside`` is the component itself."""
        if isinstance(schema, dict):
            name = self.names.get(id(schema))
            if name is not None and schema is not inside:
                return _ref('schemas', name)
            return {key: self.copy(value) for key, value in schema.items()}
        if isinstance(schema, (list, tuple)):
            return [self.copy(value) for value in schema]
        return copy.deepcopy(schema)


def _query_parameters(query_schema):
    """One query parameter per property of a ``validate_query`` schema."""
    required = set(query_schema.get('required', ()))
    return [{'name': name,
             'in': 'query',
             'required': name in required,
             'description': prop.get('description', ''),
             'schema': copy.deepcopy(prop)}
            for name, prop in query_schema['properties'].items()]


def _header_definitions():
    minimum, maximum = [value for _name, value in
                        microversion.range_headers()]
    return {
        REQUEST_ID_HEADER: (
            'The id of the request, in the logs of every service it '
            'reached.',
            {'type': 'string',
             'pattern': r'^req-[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}$'}),
        microversion.HEADER: (
            'The microversion the request was answered at.',
            {'type': 'string',
             'pattern': r'^%s [0-9]+\.[0-9]+$' % microversion.SERVICE_TYPE}),
        microversion.MIN_HEADER: (
            'The oldest microversion the API serves.',
            {'type': 'string', 'const': minimum}),
        microversion.MAX_HEADER: (
            'The newest microversion the API serves.',
            {'type': 'string', 'const': maximum}),
        'WWW-Authenticate': (
            'Where to get a token.',
            {'type': 'string'}),
        'Allow': (
            'The methods the path answers.',
            {'type': 'string', 'pattern': r'^[A-Z]+(, *[A-Z]+)*$'}),
    }


def _headers(required, optional=()):
    """Response headers: those ``required`` are always there.

    The required ones refer to the components, which say so.
    """
    definitions = _header_definitions()
    headers = {name: _ref('headers', name) for name in required}
    for name in optional:
        description, schema = definitions[name]
        headers[name] = {'description': description,
                         'required': False,
                         'schema': schema}
    return headers


def _component_headers():
    return {name: {'description': description,
                   'required': True,
                   'schema': schema}
            for name, (description, schema) in _header_definitions().items()
            if name in (REQUEST_ID_HEADER,) + _VERSION_HEADERS}


_VERSION_HEADERS = (microversion.HEADER, microversion.MIN_HEADER,
                    microversion.MAX_HEADER)


def _error_response(status, description):
    """A component response: the error document with this status."""
    # The authentication layer and keystonemiddleware answer before the
    # version is negotiated: only the request id is always there.
    optional = _VERSION_HEADERS
    if status == 401:
        optional += ('WWW-Authenticate',)
    headers = _headers([REQUEST_ID_HEADER], optional)
    if status == 405:
        allow, schema = _header_definitions()['Allow']
        headers['Allow'] = {'description': allow, 'required': True,
                            'schema': schema}
    return {
        'description': description,
        'headers': headers,
        'content': {JSON: {'schema': {
            'allOf': [_ref('schemas', 'ErrorDocument_v1_1')],
            'properties': {'errors': {'items': {
                'properties': {'status': {'const': status}}}}},
        }}},
    }


def _ok(description, schemas, links=None):
    """A 200 response of the API routes with one of ``schemas``."""
    if len(schemas) == 1:
        schema = _ref('schemas', schemas[0])
    else:
        # By microversion; an empty list is valid in several versions.
        schema = {'anyOf': [_ref('schemas', name) for name in schemas]}
    response = {
        'description': description,
        'headers': _headers((REQUEST_ID_HEADER,) + _VERSION_HEADERS),
        'content': {JSON: {'schema': schema}},
    }
    if links:
        response['links'] = links
    return response


def _operation(operation_id, summary, tags, ok, errors_, parameters=(),
               public=False, description=None):
    operation = {'operationId': operation_id,
                 'summary': summary,
                 'tags': list(tags)}
    if description:
        operation['description'] = description
    operation['parameters'] = list(parameters)
    responses = {'200': ok}
    for status in errors_:
        name = next(name for name, code, _text in ERROR_RESPONSES
                    if code == status)
        responses[str(status)] = _ref('responses', name)
    operation['responses'] = responses
    if public:
        operation['security'] = []
    return operation


def _paths():
    version = _ref('parameters', 'OpenStackAPIVersion')
    version_hosts = _ref('parameters', 'OpenStackAPIVersion_v1_4')
    host_ident = _ref('parameters', 'host_ident')
    hosts_query = _query_parameters(hosts.GET_HOSTS_QUERY_v1_4)
    host_query = _query_parameters(hosts.GET_HOST_QUERY_v1_4)
    services_query = _query_parameters(services.GET_SERVICES_QUERY_v1_1)

    def list_hosts(operation_id, show_id, summary):
        links = {'ShowFirstHost': {
            'operationId': show_id,
            'parameters': {
                'host_ident': '$response.body#/hosts/0/uuid',
                'header.%s' % microversion.HEADER:
                    '$request.header.%s' % microversion.HEADER,
            },
            'description': 'The first host of the page.',
        }}
        return {'get': _operation(
            operation_id, summary, ['hosts'],
            _ok('A page of hosts; next links the next page when this one '
                'is full.', ['HostList_v1_4', 'HostList_v1_29'], links),
            _LOOKUP_ERRORS, [version_hosts] + hosts_query)}

    def show_host(operation_id, summary):
        return {'get': _operation(
            operation_id, summary, ['hosts'],
            _ok('The host itself, no wrapper key.',
                ['Host_v1_4', 'Host_v1_29']),
            _LOOKUP_ERRORS, [version_hosts, host_ident] + host_query,
            description='A uuid-like host_ident is looked up by uuid, any '
                        'other by hostname.')}

    def list_services(operation_id, summary):
        return {'get': _operation(
            operation_id, summary, ['services'],
            _ok('The services, up or down from their heartbeat.',
                ['ServiceList_v1_1']),
            _AUTHENTICATED_ERRORS, [version] + services_query)}

    health_headers = _headers([REQUEST_ID_HEADER])
    health_content = {
        'text/plain': {'schema': {'type': 'string'}},
        JSON: {'schema': _ref('schemas', 'Healthcheck')},
        'text/html': {'schema': {'type': 'string'}},
    }
    return {
        '/': {'get': _operation(
            'listVersions', 'The API versions and their microversions',
            ['versions'],
            _ok('The versions; python-zunclient reads the microversion '
                'range here.', ['Versions_v1_1']),
            _PUBLIC_ERRORS, [version], public=True)},
        '/v1': {'get': _operation(
            'showVersion1', 'Version 1: media types and collections',
            ['versions'],
            _ok('Version 1 with links to its collections.', ['V1_v1_1']),
            _PUBLIC_ERRORS, [version], public=True)},
        '/v1/hosts': list_hosts('listHosts', 'showHost', 'List hosts'),
        '/v1/hosts/{host_ident}': show_host('showHost', 'Show a host'),
        '/v1/services': list_services('listServices', 'List services'),
        # Zun answers the same without /v1: the bookmark links.
        '/hosts': list_hosts('listHostsBookmark', 'showHostBookmark',
                             'List hosts (bookmark)'),
        '/hosts/{host_ident}': show_host('showHostBookmark',
                                         'Show a host (bookmark)'),
        '/services': list_services('listServicesBookmark',
                                   'List services (bookmark)'),
        '/healthcheck': {
            'get': {
                'operationId': 'healthcheck',
                'summary': 'Whether the API can serve (oslo.middleware)',
                'tags': ['health'],
                'security': [],
                'responses': {
                    '200': {'description': 'Healthy.',
                            'headers': health_headers,
                            'content': health_content},
                    '503': {'description': 'A health check failed.',
                            'headers': health_headers,
                            'content': health_content},
                },
            },
            'head': {
                'operationId': 'healthcheckHead',
                'summary': 'Whether the API can serve, without a body',
                'tags': ['health'],
                'security': [],
                'responses': {
                    '204': {'description': 'Healthy.',
                            'headers': health_headers},
                    '503': {'description': 'A health check failed.',
                            'headers': health_headers},
                },
            },
        },
        '/openapi.json': {'get': _operation(
            'showOpenAPI', 'This document', ['versions'],
            _ok('The OpenAPI 3.1 document of the API.', ['OpenAPIDocument']),
            _PUBLIC_ERRORS, [version], public=True)},
    }


def _version_parameter(minimum, required, description):
    return {'name': microversion.HEADER,
            'in': 'header',
            'required': required,
            'description': description,
            'schema': {'type': 'string',
                       'enum': _version_values(minimum)}}


def schema_components():
    """(name, schema) of every schema component, in document order."""
    return (list(SCHEMA_COMPONENTS) +
            list(openapi_placement.SCHEMA_COMPONENTS) +
            openapi_placement.request_schema_components())


def _components():
    components = schema_components()
    refs = _Refs(components)
    responses = {name: _error_response(status, description)
                 for name, status, description in
                 ERROR_RESPONSES + OTHER_ERROR_RESPONSES}
    responses.update(openapi_placement.response_components())
    headers = _component_headers()
    headers.update(openapi_placement.header_components())
    parameters = {
        'OpenStackAPIVersion': _version_parameter(
            microversion.MIN_VERSION, False,
            'The microversion; without it, %s. A header naming only '
            'other services is no version for this one.'
            % str(microversion.MIN_VERSION)),
        'OpenStackAPIVersion_v1_4': _version_parameter(
            microversion.HOSTS, True,
            'The microversion, %s or later: without it a request is '
            'for %s, which has no hosts (406).'
            % (microversion.HOSTS, microversion.MIN_VERSION)),
        'host_ident': {
            'name': 'host_ident',
            'in': 'path',
            'required': True,
            'description': hosts.HOST_IDENT_v1_4['description'],
            'schema': copy.deepcopy(hosts.HOST_IDENT_v1_4),
        },
    }
    parameters.update(openapi_placement.parameter_components())
    return {
        'schemas': {name: refs.copy(schema, inside=schema)
                    for name, schema in components},
        'responses': responses,
        'headers': headers,
        'parameters': parameters,
        'securitySchemes': {
            SECURITY_SCHEME: {
                'type': 'apiKey',
                'in': 'header',
                'name': 'X-Auth-Token',
                'description': 'A keystone token; with [api] auth_strategy '
                               '= noauth2, "admin" is an administrator and '
                               'any other token a member.',
            },
        },
    }


def _all_paths():
    paths = _paths()
    refs = _Refs(schema_components())
    paths.update(refs.copy(openapi_placement.paths()))
    return paths


def document():
    """The OpenAPI document as a dict, a new one at each call."""
    return {
        'openapi': OPENAPI_VERSION,
        'jsonSchemaDialect': JSON_SCHEMA_DIALECT,
        'info': {
            'title': 'zun-hostcap',
            'summary': 'Container hosts and their capabilities, in the '
                       'shape of the Zun API.',
            'description': _DESCRIPTION % {
                'min': microversion.MIN_VERSION,
                'max': microversion.MAX_VERSION,
                'hosts': microversion.HOSTS,
                'pinning': microversion.HOST_CPU_PINNING} +
            openapi_placement.description(),
            'license': {'name': 'Apache 2.0', 'identifier': 'Apache-2.0'},
            # The document changes with the microversions it describes.
            'version': str(microversion.MAX_VERSION),
        },
        'tags': [
            {'name': 'versions',
             'description': 'Version documents and this document.'},
            {'name': 'hosts', 'description': 'The container hosts.'},
            {'name': 'services',
             'description': 'The zun-hostcap services.'},
            {'name': 'health',
             'description': 'oslo.middleware\'s health check.'},
        ] + [dict(tag) for tag in openapi_placement.TAGS],
        'security': [{SECURITY_SCHEME: []}],
        'paths': _all_paths(),
        'components': _components(),
    }


@functools.lru_cache(maxsize=1)
def document_text():
    """The document as the API serves it and doc/api/openapi.json holds."""
    return json.dumps(document(), indent=2) + '\n'
