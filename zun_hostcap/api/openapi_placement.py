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

"""The Placement part of the OpenAPI document: the paths under /placement.

``zun_hostcap.api.openapi`` adds what this module builds to the document
of the whole API. As for the Zun routes, nothing is written twice:

* a request body is the schema the controller validates it with, that of
  the newest microversion (``zun_hostcap.api.schemas.placement.<module>``,
  the constant of the highest ``_v1_N`` suffix, none meaning 1.0);
* the query parameters of a route are the properties of its query
  schema, one parameter per property;
* the response bodies are ``zun_hostcap.api.schemas.placement.responses``:
  each is the newest microversion's shape, loose enough for the older
  ones (a key added later is optional, a changed form an ``anyOf``).

The microversion header, ``OpenStack-API-Version: placement X.Y``, is
optional, as for Placement: without it a request is for 1.0. Each
operation lists the versions from the one that added it; a request below
that gets 404 (405 for DELETE .../inventories before 1.5).
"""

import copy
import importlib
import re

from zun_hostcap.api.placement import microversion
from zun_hostcap.api.schemas.placement import responses

PREFIX = '/placement'
JSON = 'application/json'
REQUEST_ID_HEADER = 'x-openstack-request-id'
SCHEMA_MODULE = 'zun_hostcap.api.schemas.placement.%s'

# Component names are prefixed: the Zun routes have schemas, responses
# and headers of the same kind.
VERSION_HEADER_COMPONENT = 'PlacementAPIVersion'
VARY_HEADER_COMPONENT = 'PlacementVary'

# Response schemas, in the order the document lists them.
SCHEMA_COMPONENTS = (
    ('PlacementError', responses.ERROR),
    ('PlacementErrorDocument', responses.ERROR_DOCUMENT),
    ('PlacementVersions', responses.VERSIONS),
    ('ResourceClass', responses.RESOURCE_CLASS),
    ('ResourceClasses', responses.RESOURCE_CLASSES),
    ('ResourceProvider', responses.RESOURCE_PROVIDER),
    ('ResourceProviders', responses.RESOURCE_PROVIDERS),
    ('Inventory', responses.INVENTORY),
    ('ProviderInventory', responses.PROVIDER_INVENTORY),
    ('ProviderInventories', responses.PROVIDER_INVENTORIES),
    ('ProviderUsages', responses.PROVIDER_USAGES),
    ('Usages', responses.USAGES),
    ('ProviderAggregates', responses.PROVIDER_AGGREGATES),
    ('Traits', responses.TRAITS),
    ('ProviderTraits', responses.PROVIDER_TRAITS),
    ('ProviderAllocations', responses.PROVIDER_ALLOCATIONS),
    ('ConsumerAllocations', responses.CONSUMER_ALLOCATIONS),
    ('AllocationCandidates', responses.ALLOCATION_CANDIDATES),
)

# Request schemas: component name, module, constant (without the
# version suffix; the newest version is taken).
REQUEST_SCHEMAS = (
    ('CreateResourceClassRequest', 'resource_classes',
     'POST_RESOURCE_CLASS'),
    ('UpdateResourceClassRequest', 'resource_classes',
     'PUT_RESOURCE_CLASS'),
    ('CreateResourceProviderRequest', 'resource_providers',
     'POST_RESOURCE_PROVIDER'),
    ('UpdateResourceProviderRequest', 'resource_providers',
     'PUT_RESOURCE_PROVIDER'),
    ('CreateInventoryRequest', 'inventories', 'POST_INVENTORY'),
    ('SetInventoriesRequest', 'inventories', 'PUT_INVENTORIES'),
    ('UpdateInventoryRequest', 'inventories', 'PUT_INVENTORY'),
    ('SetAggregatesRequest', 'aggregates', 'PUT_AGGREGATES'),
    ('SetProviderTraitsRequest', 'traits', 'PUT_PROVIDER_TRAITS'),
    ('SetAllocationsRequest', 'allocations', 'PUT_ALLOCATIONS'),
    ('ManageAllocationsRequest', 'allocations', 'POST_ALLOCATIONS'),
    ('ReshapeRequest', 'reshaper', 'POST_RESHAPER'),
)

# Query schemas: operation id, module, constant.
QUERY_SCHEMAS = (
    ('listResourceProviders', 'resource_providers',
     'GET_RESOURCE_PROVIDERS'),
    ('listTraits', 'traits', 'LIST_TRAITS_QUERY'),
    ('showUsages', 'usages', 'GET_USAGES'),
    ('listAllocationCandidates', 'allocation_candidates',
     'GET_ALLOCATION_CANDIDATES'),
)

# Error responses: component name, status, when.
ERROR_RESPONSES = (
    ('PlacementBadRequest', 400,
     'The body, the query string or the microversion header is not what '
     'the route takes (placement.query.* for the query string), or the '
     'request asks for something Placement refuses (a standard resource '
     'class or trait to change, an unknown resource class, capacity '
     'exceeded).'),
    ('PlacementUnauthorized', 401,
     'No token. With noauth2 the token is "user[:project]".'),
    ('PlacementForbidden', 403,
     'The policy does not allow this to the token\'s user.'),
    ('PlacementNotFound', 404,
     'No such provider, resource class, trait, inventory or consumer '
     '(placement.resource_provider.not_found for a provider), or the '
     'route is newer than the request\'s microversion.'),
    ('PlacementNotAcceptable', 406,
     'The microversion is outside 1.0-%s, or Accept rules out '
     'application/json.' % str(microversion.MAX_VERSION)),
    ('PlacementConflict', 409,
     'The generation is not the current one '
     '(placement.concurrent_update), a name is taken '
     '(placement.duplicate_name), what is to be removed is in use '
     '(placement.inventory.inuse, placement.resource_provider.inuse, '
     'placement.resource_provider.cannot_delete_parent), or allocations '
     'do not fit.'),
    ('PlacementUnsupportedMediaType', 415,
     'A body that is not application/json.'),
    ('PlacementServiceUnavailable', 503,
     'The database is down. Try again later.'),
)

# A method newer than the request's version: no Allow, as in Placement.
METHOD_TOO_NEW = ('PlacementMethodNotAllowedAtVersion', 405,
                  'The method is newer than the request\'s microversion.')

OTHER_ERROR_RESPONSES = (
    ('PlacementMethodNotAllowed', 405,
     'A method the path does not list; Allow names those it does.'),
    ('PlacementRequestEntityTooLarge', 413,
     'A body over [placement] max_request_body_size bytes.'),
)

_AUTH = (400, 401, 403, 406, 503)

DESCRIPTION = """\

**Placement.** Under `/placement` the API speaks OpenStack Placement: \
resource classes, resource providers with their inventories, usages, \
aggregates, traits and allocations, for osc-placement, openstacksdk and \
Nova's report client. A request names its version in \
`OpenStack-API-Version: placement X.Y` (or `placement latest`); without \
the header it is for 1.0. The API serves 1.0 to %(max)s, answers a \
version outside that with 406 and a malformed one with 400; a route \
newer than the request's version answers 404. Each body schema is the \
newest version's shape; keys added by later versions are optional. \
Errors are Placement's document (`PlacementErrorDocument`), whose \
`code` appears from 1.23 and whose `detail` is, as Placement's, the \
status' explanation, a blank line, then the message on one line; a \
client that does not take JSON gets the error as an HTML page (or \
plain text), as from Placement. `X-Auth-Token` is required on every \
route but `/placement`.
"""


def description():
    """The Placement paragraph of the document's description."""
    return DESCRIPTION % {'max': str(microversion.MAX_VERSION)}


TAGS = (
    {'name': 'placement',
     'description': 'Placement: the version document.'},
    {'name': 'resource classes',
     'description': 'Placement: standard and custom resource classes.'},
    {'name': 'resource providers',
     'description': 'Placement: providers and their trees.'},
    {'name': 'inventories',
     'description': 'Placement: what a provider has, by class.'},
    {'name': 'usages',
     'description': 'Placement: what is allocated.'},
    {'name': 'aggregates',
     'description': 'Placement: the aggregates a provider is in.'},
    {'name': 'traits',
     'description': 'Placement: traits, and those of a provider.'},
    {'name': 'allocations',
     'description': 'Placement: what consumers use of providers.'},
    {'name': 'reshaper',
     'description': 'Placement: inventories and allocations moved '
                    'together.'},
    {'name': 'allocation candidates',
     'description': 'Placement: where a request could be placed.'},
)


def _ref(kind, name):
    return {'$ref': '#/components/%s/%s' % (kind, name)}


def newest(module_name, base):
    """The constant ``base`` of the newest microversion, or None.

    ``base`` alone is 1.0; ``base_v1_N`` (or ``_V1_N``) is 1.N.
    """
    try:
        module = importlib.import_module(SCHEMA_MODULE % module_name)
    except ImportError:
        return None
    pattern = re.compile(r'^%s(?:_[vV]1_([0-9]+))?$' % re.escape(base))
    found = []
    for name in dir(module):
        match = pattern.match(name)
        value = getattr(module, name)
        if match and isinstance(value, dict):
            found.append((int(match.group(1) or 0), value))
    if not found:
        return None
    return max(found, key=lambda item: item[0])[1]


def missing_schemas():
    """(module, constant) of each request or query schema not found."""
    return [(module, base) for _name, module, base in
            REQUEST_SCHEMAS + tuple((None, m, b) for _o, m, b in
                                    QUERY_SCHEMAS)
            if newest(module, base) is None]


def request_schema_components():
    """(name, schema) of the request schemas there are."""
    return [(name, schema) for name, schema in
            ((name, newest(module, base))
             for name, module, base in REQUEST_SCHEMAS)
            if schema is not None]


def version_values(minimum):
    """``placement 1.N`` for every version from ``minimum``, and latest."""
    return (['%s 1.%d' % (microversion.SERVICE_TYPE, minor)
             for minor in range(minimum[1], microversion.MAX_VERSION.minor
                                + 1)] +
            ['%s latest' % microversion.SERVICE_TYPE])


def _version_parameter_name(minimum):
    return 'PlacementAPIVersion_v1_%d' % minimum[1]


def _version_parameter(minimum):
    description = ('The microversion, 1.%d or later (the route is newer: '
                   'a request without the header, for 1.0, or for an '
                   'older version gets 404).' % minimum[1]
                   if minimum[1] else
                   'The microversion; without it, 1.0.')
    return {'name': microversion.HEADER,
            'in': 'header',
            'required': False,
            'description': description,
            'schema': {'type': 'string', 'enum': version_values(minimum)}}


def header_components():
    return {
        VERSION_HEADER_COMPONENT: {
            'description': 'The microversion the request was answered at.',
            'required': True,
            'schema': _version_header_schema(),
        },
        VARY_HEADER_COMPONENT: {
            'description': 'The answer depends on the microversion.',
            'required': True,
            'schema': {'type': 'string',
                       'pattern': microversion.HEADER},
        },
    }


def _version_header_schema():
    return {'type': 'string',
            'pattern': r'^%s [0-9]+\.[0-9]+$' % microversion.SERVICE_TYPE}


_OPTIONAL_HEADERS = {
    'Last-Modified': ('From 1.15 on GET (and on some writes): when what '
                      'the document shows last changed.',
                      {'type': 'string'}),
    'Cache-Control': ('From 1.15, with Last-Modified: no-cache.',
                      {'type': 'string'}),
    'WWW-Authenticate': ('Where to get a token.', {'type': 'string'}),
}


def _optional_header(name):
    description, schema = _OPTIONAL_HEADERS[name]
    return {'description': description, 'required': False,
            'schema': copy.deepcopy(schema)}


def _success_headers(location=False, cached=False):
    headers = {
        REQUEST_ID_HEADER: _ref('headers', REQUEST_ID_HEADER),
        microversion.HEADER: _ref('headers', VERSION_HEADER_COMPONENT),
        'Vary': _ref('headers', VARY_HEADER_COMPONENT),
    }
    if location:
        headers['Location'] = {
            'description': 'The path of what was created.',
            'required': True,
            'schema': {'type': 'string', 'minLength': 1},
        }
    if cached:
        headers['Last-Modified'] = _optional_header('Last-Modified')
        headers['Cache-Control'] = _optional_header('Cache-Control')
    return headers


def error_response(status, description, allow=True):
    """A component response: Placement's error document, this status."""
    # Authentication, the body size limit and a bad version header
    # answer before the version is negotiated: only the request id is
    # always there.
    headers = {
        REQUEST_ID_HEADER: _ref('headers', REQUEST_ID_HEADER),
        microversion.HEADER: dict(
            description='The microversion, once negotiated.',
            required=False, schema=_version_header_schema()),
    }
    if status == 401:
        headers['WWW-Authenticate'] = _optional_header('WWW-Authenticate')
    if status == 405 and allow:
        headers['Allow'] = {
            'description': 'The methods the path answers.',
            'required': True,
            'schema': {'type': 'string',
                       'pattern': r'^[A-Z]+(, *[A-Z]+)*$'},
        }
    # A client that takes no JSON gets webob's page of the error, as
    # from Placement: HTML if it takes HTML, else plain text.
    page = {'schema': {'type': 'string'}}
    return {
        'description': description,
        'headers': headers,
        'content': {JSON: {'schema': {
            'allOf': [_ref('schemas', 'PlacementErrorDocument')],
            'properties': {'errors': {'items': {
                'properties': {'status': {'const': status}}}}},
        }}, 'text/html': page, 'text/plain': page},
    }


def response_components():
    responses = {name: error_response(status, description)
                 for name, status, description in
                 ERROR_RESPONSES + OTHER_ERROR_RESPONSES}
    name, status, description = METHOD_TOO_NEW
    responses[name] = error_response(status, description, allow=False)
    return responses


def _ok(description, schema=None, location=False, cached=False,
        links=None):
    response = {'description': description,
                'headers': _success_headers(location, cached)}
    if schema is not None:
        response['content'] = {JSON: {'schema': _ref('schemas', schema)}}
    if links:
        response['links'] = links
    return response


def _path_parameter(name, description, schema):
    return {'name': name, 'in': 'path', 'required': True,
            'description': description, 'schema': schema}


# Names of resource classes and traits: the same strings as
# ^[A-Z0-9_]+$, spelled so that a generator of examples makes custom ones
# (CUSTOM_...) about as often as others.
_NAME_PATTERN = r'^(CUSTOM_)?[A-Z0-9_]+$'


def parameter_components():
    parameters = {
        _version_parameter_name(minimum): _version_parameter(minimum)
        for minimum in _MINIMUMS}
    parameters.update({
        'provider_uuid': _path_parameter(
            'uuid', 'The uuid of a resource provider.',
            {'type': 'string', 'format': 'uuid'}),
        'resource_class': _path_parameter(
            'resource_class', 'The name of a resource class.',
            {'type': 'string', 'pattern': _NAME_PATTERN}),
        'resource_class_name': _path_parameter(
            'name', 'The name of a resource class; CUSTOM_ for those '
                    'that can be created, changed or deleted.',
            {'type': 'string', 'pattern': _NAME_PATTERN,
             'maxLength': 255}),
        'trait_name': _path_parameter(
            'name', 'The name of a trait; CUSTOM_ for those that can be '
                    'created or deleted.',
            {'type': 'string', 'pattern': _NAME_PATTERN,
             'maxLength': 255}),
        'consumer_uuid': _path_parameter(
            'consumer_uuid', 'The uuid of a consumer.',
            {'type': 'string', 'format': 'uuid'}),
    })
    return parameters


# The query keys a schema names by pattern (the request groups of GET
# /allocation_candidates: resources, resources1, resources_NIC...) are
# the properties of one object parameter, each its own key=value.
PATTERN_PARAMETER = 'request_groups'


def _query_parameters(operation_id, examples=None):
    schema = next((newest(module, base)
                   for op, module, base in QUERY_SCHEMAS
                   if op == operation_id), None)
    if schema is None:
        return []
    required = set(schema.get('required', ()))
    parameters = [{'name': name,
                   'in': 'query',
                   'required': name in required,
                   'description': prop.get('description', ''),
                   'schema': copy.deepcopy(prop)}
                  for name, prop in schema.get('properties', {}).items()]
    if schema.get('patternProperties'):
        parameter = {
            'name': PATTERN_PARAMETER,
            'in': 'query',
            'required': False,
            'style': 'form',
            'explode': True,
            'description': REQUEST_GROUPS_DESCRIPTION,
            'schema': {'type': 'object',
                       'patternProperties': copy.deepcopy(
                           schema['patternProperties']),
                       'additionalProperties': False}}
        if examples:
            parameter['examples'] = copy.deepcopy(examples)
        parameters.append(parameter)
    return parameters


REQUEST_GROUPS_DESCRIPTION = (
    'The request groups, each key a query parameter of its own: '
    '`resources` (`VCPU:1,MEMORY_MB:512`; required before 1.25), '
    '`required` (traits; 1.17; `!TRAIT` from 1.22, `in:A,B` and repeated '
    'from 1.39), `member_of` (aggregate uuids; 1.21; `in:`, repeated from '
    '1.24, `!` from 1.32), `in_tree` (a provider uuid; 1.31), unsuffixed '
    'or, from 1.25, with a suffix naming a group one provider serves '
    '(`resources1`; 1 to 64 letters, digits, `_` and `-` from 1.33: '
    '`resources_NIC`).')

# A query of the examples phase: this host's compute node can serve it.
CANDIDATE_EXAMPLES = {
    'compute': {'summary': 'A container of 1 VCPU and 64 MB',
                'value': {'resources': 'VCPU:1,MEMORY_MB:64'}},
}


def _body(component, required=True):
    names = {name for name, _schema in request_schema_components()}
    if component not in names:
        return None
    return {'required': required,
            'content': {JSON: {'schema': _ref('schemas', component)}}}


# Versions that added routes: each has its header parameter.
_MINIMUMS = ((1, 0), microversion.AGGREGATES,
             microversion.RESOURCE_CLASSES,
             microversion.DELETE_ALL_INVENTORIES, microversion.TRAITS,
             microversion.USAGES, microversion.POST_ALLOCATIONS,
             microversion.RESHAPER, microversion.ALLOCATION_CANDIDATES)


def _link(operation_id, description, **parameters):
    parameters = dict(parameters)
    parameters['header.%s' % microversion.HEADER] = (
        '$request.header.%s' % microversion.HEADER)
    return {'operationId': operation_id, 'parameters': parameters,
            'description': description}


def _provider_links(uuid):
    """Links from a provider's uuid to what is under it."""
    return {
        'ShowProvider': _link('showResourceProvider', 'The provider.',
                              uuid=uuid),
        'UpdateProvider': _link('updateResourceProvider',
                                'Rename or re-parent it.', uuid=uuid),
        'ListInventories': _link('listInventories', 'Its inventories.',
                                 uuid=uuid),
        'SetInventories': _link('setInventories', 'Set its inventories.',
                                uuid=uuid),
        'CreateInventory': _link('createInventory',
                                 'Add an inventory.', uuid=uuid),
        'DeleteInventories': _link('deleteInventories',
                                   'Remove its inventories.', uuid=uuid),
        'ShowProviderUsages': _link('showProviderUsages', 'Its usages.',
                                    uuid=uuid),
        'ShowAggregates': _link('showAggregates', 'Its aggregates.',
                                uuid=uuid),
        'SetAggregates': _link('setAggregates', 'Set its aggregates.',
                               uuid=uuid),
        'ListProviderTraits': _link('listProviderTraits', 'Its traits.',
                                    uuid=uuid),
        'SetProviderTraits': _link('setProviderTraits',
                                   'Set its traits.', uuid=uuid),
        'DeleteProviderTraits': _link('deleteProviderTraits',
                                      'Remove its traits.', uuid=uuid),
        'ListProviderAllocations': _link('listProviderAllocations',
                                         'Its allocations.', uuid=uuid),
        'DeleteProvider': _link('deleteResourceProvider', 'Delete it.',
                                uuid=uuid),
    }


class _Operation(object):

    def __init__(self, operation_id, summary, tag, minimum, ok, errors,
                 parameters=(), body=None, description=None,
                 public=False, other_responses=(), body_required=True,
                 examples=None):
        self.operation_id = operation_id
        self.summary = summary
        self.tag = tag
        self.minimum = minimum
        self.ok = ok
        self.errors = errors
        self.parameters = parameters
        self.body = body
        self.description = description
        self.public = public
        self.other_responses = other_responses
        self.body_required = body_required
        self.examples = examples

    def build(self):
        operation = {'operationId': self.operation_id,
                     'summary': self.summary,
                     'tags': [self.tag]}
        if self.description:
            operation['description'] = self.description
        operation['parameters'] = (
            [_ref('parameters', _version_parameter_name(self.minimum))] +
            [_ref('parameters', name) for name in self.parameters] +
            _query_parameters(self.operation_id, self.examples))
        body = (_body(self.body, self.body_required) if self.body
                else None)
        if body is not None:
            operation['requestBody'] = body
        operation['responses'] = dict(
            (str(status), response) for status, response in self.ok)
        names = {status: name for name, status, _text in
                 ERROR_RESPONSES + (METHOD_TOO_NEW,)}
        for status in sorted(set(self.errors) | set(self.other_responses)):
            operation['responses'][str(status)] = _ref('responses',
                                                       names[status])
        if self.public:
            operation['security'] = []
        return operation


def _operations():
    v1_0 = (1, 0)
    rc_v = microversion.RESOURCE_CLASSES
    traits_v = microversion.TRAITS
    found = _AUTH + (404,)
    written = found + (409, 415)
    provider = ('provider_uuid',)
    inventory = ('provider_uuid', 'resource_class')
    provider_links = _provider_links('$response.body#/uuid')
    return {
        PREFIX: {
            'get': _Operation(
                'placementVersions', 'The version and its microversions',
                'placement', v1_0,
                [(200, _ok('The one version, with the range of '
                           'microversions; osc-placement and Nova read '
                           'it here.', 'PlacementVersions', cached=True))],
                (400, 406), public=True),
        },
        PREFIX + '/resource_classes': {
            'get': _Operation(
                'listResourceClasses', 'List resource classes',
                'resource classes', rc_v,
                [(200, _ok('Standard and custom classes.',
                           'ResourceClasses', cached=True))], found),
            'post': _Operation(
                'createResourceClass', 'Create a custom resource class',
                'resource classes', rc_v,
                [(201, _ok('Created; Location names it.', location=True,
                           links={
                               'ShowResourceClass': _link(
                                   'showResourceClass', 'The class.',
                                   name='$request.body#/name'),
                               'DeleteResourceClass': _link(
                                   'deleteResourceClass', 'Delete it.',
                                   name='$request.body#/name')}))],
                written, body='CreateResourceClassRequest'),
        },
        PREFIX + '/resource_classes/{name}': {
            'get': _Operation(
                'showResourceClass', 'Show a resource class',
                'resource classes', rc_v,
                [(200, _ok('The class.', 'ResourceClass', cached=True))],
                found, ('resource_class_name',)),
            'put': _Operation(
                'updateResourceClass',
                'Create a custom resource class (from 1.7), or rename one '
                '(1.2-1.6)', 'resource classes', rc_v,
                [(200, _ok('1.2-1.6: renamed.', 'ResourceClass',
                           cached=True)),
                 (201, _ok('From 1.7: created; Location names it.',
                           location=True)),
                 (204, _ok('From 1.7: it exists already.'))],
                written, ('resource_class_name',),
                body='UpdateResourceClassRequest', body_required=False,
                description='From 1.7 the request has no body; 1.2-1.6 '
                            'take {"name": <new name>}.'),
            'delete': _Operation(
                'deleteResourceClass', 'Delete a custom resource class',
                'resource classes', rc_v,
                [(204, _ok('Deleted.'))], found + (409,),
                ('resource_class_name',)),
        },
        PREFIX + '/resource_providers': {
            'get': _Operation(
                'listResourceProviders', 'List resource providers',
                'resource providers', v1_0,
                [(200, _ok('The providers the filters select.',
                           'ResourceProviders', cached=True))], _AUTH),
            'post': _Operation(
                'createResourceProvider', 'Create a resource provider',
                'resource providers', v1_0,
                [(200, _ok('From 1.20: the provider; Location names it.',
                           'ResourceProvider', location=True, cached=True,
                           links=provider_links)),
                 (201, _ok('Before 1.20: created; Location names it.',
                           location=True))],
                _AUTH + (409, 415), body='CreateResourceProviderRequest'),
        },
        PREFIX + '/resource_providers/{uuid}': {
            'get': _Operation(
                'showResourceProvider', 'Show a resource provider',
                'resource providers', v1_0,
                [(200, _ok('The provider.', 'ResourceProvider',
                           cached=True))], found, provider),
            'put': _Operation(
                'updateResourceProvider', 'Update a resource provider',
                'resource providers', v1_0,
                [(200, _ok('The provider as it is now.',
                           'ResourceProvider', cached=True))],
                written, provider, body='UpdateResourceProviderRequest'),
            'delete': _Operation(
                'deleteResourceProvider', 'Delete a resource provider',
                'resource providers', v1_0,
                [(204, _ok('Deleted, with its inventories, aggregates '
                           'and traits.'))], found + (409,), provider),
        },
        PREFIX + '/resource_providers/{uuid}/inventories': {
            'get': _Operation(
                'listInventories', 'A provider\'s inventories',
                'inventories', v1_0,
                [(200, _ok('Its inventories by class, and its '
                           'generation.', 'ProviderInventories',
                           cached=True))], found, provider),
            'post': _Operation(
                'createInventory', 'Add an inventory of a class',
                'inventories', v1_0,
                [(201, _ok('The inventory; Location names it.',
                           'ProviderInventory', location=True,
                           cached=True, links={
                               'ShowInventory': _link(
                                   'showInventory', 'The inventory.',
                                   uuid='$request.path.uuid',
                                   resource_class='$request.body#/'
                                                  'resource_class'),
                               'UpdateInventory': _link(
                                   'updateInventory', 'Change it.',
                                   uuid='$request.path.uuid',
                                   resource_class='$request.body#/'
                                                  'resource_class'),
                               'DeleteInventory': _link(
                                   'deleteInventory', 'Remove it.',
                                   uuid='$request.path.uuid',
                                   resource_class='$request.body#/'
                                                  'resource_class')}))],
                written, provider, body='CreateInventoryRequest'),
            'put': _Operation(
                'setInventories', 'Replace a provider\'s inventories',
                'inventories', v1_0,
                [(200, _ok('Its inventories now, and its generation.',
                           'ProviderInventories', cached=True))],
                written, provider, body='SetInventoriesRequest'),
            'delete': _Operation(
                'deleteInventories', 'Remove a provider\'s inventories',
                'inventories', microversion.DELETE_ALL_INVENTORIES,
                [(204, _ok('Removed.'))], found + (409,), provider,
                other_responses=(405,),
                description='Before 1.5 the method is not allowed (405).'),
        },
        PREFIX + '/resource_providers/{uuid}/inventories/'
                 '{resource_class}': {
            'get': _Operation(
                'showInventory', 'A provider\'s inventory of a class',
                'inventories', v1_0,
                [(200, _ok('The inventory and the provider\'s '
                           'generation.', 'ProviderInventory',
                           cached=True))], found, inventory),
            'put': _Operation(
                'updateInventory', 'Update an inventory',
                'inventories', v1_0,
                [(200, _ok('The inventory now and the provider\'s '
                           'generation.', 'ProviderInventory',
                           cached=True))],
                written, inventory, body='UpdateInventoryRequest'),
            'delete': _Operation(
                'deleteInventory', 'Remove an inventory',
                'inventories', v1_0,
                [(204, _ok('Removed.'))], found + (409,), inventory),
        },
        PREFIX + '/resource_providers/{uuid}/usages': {
            'get': _Operation(
                'showProviderUsages', 'What is allocated of a provider',
                'usages', v1_0,
                [(200, _ok('Its usages by class, and its generation.',
                           'ProviderUsages', cached=True))],
                found, provider),
        },
        PREFIX + '/resource_providers/{uuid}/aggregates': {
            'get': _Operation(
                'showAggregates', 'The aggregates of a provider',
                'aggregates', microversion.AGGREGATES,
                [(200, _ok('Its aggregates; its generation from 1.19.',
                           'ProviderAggregates', cached=True))],
                found, provider),
            'put': _Operation(
                'setAggregates', 'Set the aggregates of a provider',
                'aggregates', microversion.AGGREGATES,
                [(200, _ok('Its aggregates now; its generation from '
                           '1.19.', 'ProviderAggregates', cached=True))],
                written, provider, body='SetAggregatesRequest',
                description='Before 1.19 the body is the list of '
                            'aggregate uuids.'),
        },
        PREFIX + '/resource_providers/{uuid}/traits': {
            'get': _Operation(
                'listProviderTraits', 'The traits of a provider',
                'traits', traits_v,
                [(200, _ok('Its traits and its generation.',
                           'ProviderTraits', cached=True))],
                found, provider),
            'put': _Operation(
                'setProviderTraits', 'Set the traits of a provider',
                'traits', traits_v,
                [(200, _ok('Its traits now and its generation.',
                           'ProviderTraits', cached=True))],
                written, provider, body='SetProviderTraitsRequest'),
            'delete': _Operation(
                'deleteProviderTraits', 'Remove the traits of a provider',
                'traits', traits_v,
                [(204, _ok('Removed.'))], found + (409,), provider),
        },
        PREFIX + '/resource_providers/{uuid}/allocations': {
            'get': _Operation(
                'listProviderAllocations', 'The allocations of a provider',
                'allocations', v1_0,
                [(200, _ok('Its allocations by consumer, and its '
                           'generation.', 'ProviderAllocations',
                           cached=True))], found, provider),
        },
        PREFIX + '/allocations': {
            'post': _Operation(
                'manageAllocations',
                'Set the allocations of several consumers at once',
                'allocations', microversion.POST_ALLOCATIONS,
                [(204, _ok('Set.'))], written,
                body='ManageAllocationsRequest'),
        },
        PREFIX + '/allocations/{consumer_uuid}': {
            'get': _Operation(
                'showAllocations', 'The allocations of a consumer',
                'allocations', v1_0,
                [(200, _ok('Its allocations by provider (empty for an '
                           'unknown consumer).', 'ConsumerAllocations',
                           cached=True))], _AUTH, ('consumer_uuid',)),
            'put': _Operation(
                'setAllocations', 'Set the allocations of a consumer',
                'allocations', v1_0,
                [(204, _ok('Set.', links={
                    'ShowAllocations': _link(
                        'showAllocations', 'Its allocations.',
                        consumer_uuid='$request.path.consumer_uuid'),
                    'DeleteAllocations': _link(
                        'deleteAllocations', 'Remove them.',
                        consumer_uuid='$request.path.consumer_uuid')}))],
                written, ('consumer_uuid',),
                body='SetAllocationsRequest',
                description='The body of the newest microversion; 1.0-1.11 '
                            'take a list of allocations, 1.12-1.27 a dict '
                            'by provider without consumer_generation, '
                            '1.28-1.37 without consumer_type.'),
            'delete': _Operation(
                'deleteAllocations', 'Remove the allocations of a consumer',
                'allocations', v1_0,
                [(204, _ok('Removed.'))], found, ('consumer_uuid',)),
        },
        PREFIX + '/reshaper': {
            'post': _Operation(
                'reshape',
                'Replace inventories and allocations in one transaction',
                'reshaper', microversion.RESHAPER,
                [(204, _ok('Done; nothing is changed when any part is '
                           'refused.'))],
                written, body='ReshapeRequest',
                description='The body of the newest microversion; '
                            '1.30-1.33 take allocations without mappings, '
                            '1.30-1.37 without consumer_type. Only a '
                            'service may reshape by default.'),
        },
        PREFIX + '/traits': {
            'get': _Operation(
                'listTraits', 'List traits', 'traits', traits_v,
                [(200, _ok('The traits the filters select.', 'Traits',
                           cached=True))], found),
        },
        PREFIX + '/traits/{name}': {
            'get': _Operation(
                'showTrait', 'Whether a trait exists', 'traits', traits_v,
                [(204, _ok('It exists.'))], found, ('trait_name',)),
            'put': _Operation(
                'createTrait', 'Create a custom trait', 'traits', traits_v,
                [(201, _ok('Created; Location names it.', location=True,
                           links={
                               'ShowTrait': _link(
                                   'showTrait', 'The trait.',
                                   name='$request.path.name'),
                               'DeleteTrait': _link(
                                   'deleteTrait', 'Delete it.',
                                   name='$request.path.name')})),
                 (204, _ok('It exists already.'))],
                found, ('trait_name',)),
            'delete': _Operation(
                'deleteTrait', 'Delete a custom trait', 'traits', traits_v,
                [(204, _ok('Deleted.'))], found + (409,), ('trait_name',)),
        },
        PREFIX + '/allocation_candidates': {
            'get': _Operation(
                'listAllocationCandidates',
                'List allocation candidates', 'allocation candidates',
                microversion.ALLOCATION_CANDIDATES,
                [(200, _ok('The allocation requests that can serve the '
                           'request groups, and a summary of each '
                           'provider they involve.',
                           'AllocationCandidates', cached=True))],
                found, examples=CANDIDATE_EXAMPLES,
                description='The query schema of the newest microversion; '
                            'limit from 1.16, group_policy from 1.25 '
                            '(required with two suffixed groups), '
                            'root_required from 1.35, same_subtree from '
                            '1.36. Each allocation request is the body of '
                            'a PUT /allocations/{consumer_uuid} at the '
                            'same version: a list of allocations before '
                            '1.12, a dict by provider from 1.12, with '
                            'mappings from 1.34.'),
        },
        PREFIX + '/usages': {
            'get': _Operation(
                'showUsages', 'What a project (and user) uses', 'usages',
                microversion.USAGES,
                [(200, _ok('Its usages by class; from 1.38 by consumer '
                           'type.', 'Usages', cached=True))], found),
        },
    }


def paths():
    """The /placement paths of the document."""
    return {path: {method: operation.build()
                   for method, operation in item.items()}
            for path, item in _operations().items()}


def operation_minimums():
    """{(method, path): (1, N)}: the version each operation appeared."""
    return {(method, path): operation.minimum
            for path, item in _operations().items()
            for method, operation in item.items()}
