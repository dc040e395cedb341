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

"""Responses of the Placement-compatible API, as JSON Schema 2020-12.

Each schema is the shape of the newest microversion, loose enough for
every older one a route answers: a key that appears at some version is
in ``properties`` but not in ``required`` (its description names the
version), and where a document changed its form the schema is the
``anyOf`` of the forms. ``zun_hostcap.api.openapi_placement`` builds the
OpenAPI document of ``/placement`` from them.
"""

# An integer a provider or a consumer counts its changes with.
GENERATION = {'type': 'integer', 'minimum': 0}

UUID = {'type': 'string', 'format': 'uuid'}

# VCPU, MEMORY_MB, CUSTOM_*: what Placement allows in names.
RESOURCE_CLASS_NAME = {'type': 'string', 'pattern': r'^[A-Z0-9_]+$'}

TRAIT_NAME = {'type': 'string', 'minLength': 1, 'maxLength': 255}

# Amounts by resource class: {"VCPU": 2, "MEMORY_MB": 512}.
RESOURCES = {
    'type': 'object',
    'propertyNames': RESOURCE_CLASS_NAME,
    'additionalProperties': {'type': 'integer', 'minimum': 0},
}

# Placement's error document: one error, its code from 1.23.
ERROR = {
    'type': 'object',
    'properties': {
        'status': {'type': 'integer', 'minimum': 400, 'maximum': 599,
                   'description': 'the HTTP status of the response'},
        'title': {'type': 'string',
                  'description': 'the reason phrase of the status'},
        'detail': {'type': 'string',
                   'description': 'what went wrong, for people: the '
                                  'status\' explanation, a blank line, '
                                  'then the message on one line (what '
                                  'clients show), as Placement\'s'},
        'request_id': {
            'type': 'string',
            'pattern': r'^(req-[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12})?$',
            'description': 'x-openstack-request-id of the response',
        },
        'code': {
            'type': 'string',
            'pattern': r'^placement\.[a-z0-9_.]+$',
            'description': 'from 1.23: what went wrong, for programs '
                           '(placement.undefined_code when nothing more '
                           'precise applies)',
        },
    },
    'required': ['status', 'title', 'detail', 'request_id'],
    'additionalProperties': False,
}

ERROR_DOCUMENT = {
    'type': 'object',
    'properties': {
        'errors': {'type': 'array', 'items': ERROR, 'minItems': 1},
    },
    'required': ['errors'],
    'additionalProperties': False,
}


def _link(rels):
    return {
        'type': 'object',
        'properties': {
            'rel': {'type': 'string', 'enum': list(rels)},
            # A path under the API's prefix, no scheme and host.
            'href': {'type': 'string'},
        },
        'required': ['rel', 'href'],
        'additionalProperties': False,
    }


# GET /placement: the one version and its range of microversions.
VERSIONS = {
    'type': 'object',
    'properties': {
        'versions': {
            'type': 'array',
            'minItems': 1,
            'items': {
                'type': 'object',
                'properties': {
                    'id': {'type': 'string', 'pattern': r'^v[0-9]+\.[0-9]+$'},
                    'min_version': {'type': 'string',
                                    'pattern': r'^[0-9]+\.[0-9]+$'},
                    'max_version': {'type': 'string',
                                    'pattern': r'^[0-9]+\.[0-9]+$'},
                    'status': {'type': 'string',
                               'enum': ['CURRENT', 'SUPPORTED',
                                        'DEPRECATED']},
                    'links': {'type': 'array', 'items': _link(['self'])},
                },
                'required': ['id', 'min_version', 'max_version', 'status',
                             'links'],
                'additionalProperties': False,
            },
        },
    },
    'required': ['versions'],
    'additionalProperties': False,
}

# A resource class (from 1.2).
RESOURCE_CLASS = {
    'type': 'object',
    'properties': {
        'name': RESOURCE_CLASS_NAME,
        'links': {'type': 'array', 'items': _link(['self']), 'minItems': 1},
    },
    'required': ['name', 'links'],
    'additionalProperties': False,
}

RESOURCE_CLASSES = {
    'type': 'object',
    'properties': {
        'resource_classes': {'type': 'array', 'items': RESOURCE_CLASS},
    },
    'required': ['resource_classes'],
    'additionalProperties': False,
}

# A provider's links: self, inventories, usages; aggregates from 1.1,
# traits from 1.6, allocations from 1.11.
PROVIDER_LINK = _link(['self', 'inventories', 'usages', 'aggregates',
                       'traits', 'allocations'])

RESOURCE_PROVIDER = {
    'type': 'object',
    'properties': {
        'uuid': UUID,
        'name': {'type': 'string', 'maxLength': 200},
        'generation': GENERATION,
        'links': {'type': 'array', 'items': PROVIDER_LINK, 'minItems': 3},
        'parent_provider_uuid': {
            'type': ['string', 'null'], 'format': 'uuid',
            'description': 'from 1.14: the parent, null for a root'},
        'root_provider_uuid': {
            'type': 'string', 'format': 'uuid',
            'description': 'from 1.14: the root of the provider\'s tree'},
    },
    'required': ['uuid', 'name', 'generation', 'links'],
    'additionalProperties': False,
}

RESOURCE_PROVIDERS = {
    'type': 'object',
    'properties': {
        'resource_providers': {'type': 'array', 'items': RESOURCE_PROVIDER},
    },
    'required': ['resource_providers'],
    'additionalProperties': False,
}

# The inventory of one resource class of a provider.
INVENTORY = {
    'type': 'object',
    'properties': {
        'total': {'type': 'integer', 'minimum': 1},
        'reserved': {'type': 'integer', 'minimum': 0},
        'min_unit': {'type': 'integer', 'minimum': 1},
        'max_unit': {'type': 'integer', 'minimum': 1},
        'step_size': {'type': 'integer', 'minimum': 1},
        'allocation_ratio': {'type': 'number', 'minimum': 0},
    },
    'required': ['total', 'reserved', 'min_unit', 'max_unit', 'step_size',
                 'allocation_ratio'],
    'additionalProperties': False,
}

# GET and PUT .../inventories/{resource_class}, POST .../inventories.
PROVIDER_INVENTORY = {
    'type': 'object',
    'properties': dict(INVENTORY['properties'],
                       resource_provider_generation=GENERATION),
    'required': INVENTORY['required'] + ['resource_provider_generation'],
    'additionalProperties': False,
}

# GET and PUT .../inventories.
PROVIDER_INVENTORIES = {
    'type': 'object',
    'properties': {
        'inventories': {
            'type': 'object',
            'propertyNames': RESOURCE_CLASS_NAME,
            'additionalProperties': INVENTORY,
        },
        'resource_provider_generation': GENERATION,
    },
    'required': ['inventories', 'resource_provider_generation'],
    'additionalProperties': False,
}

# GET .../usages: what is allocated from the provider, by class.
PROVIDER_USAGES = {
    'type': 'object',
    'properties': {
        'usages': RESOURCES,
        'resource_provider_generation': GENERATION,
    },
    'required': ['usages', 'resource_provider_generation'],
    'additionalProperties': False,
}

# GET /usages (from 1.9): a project's (and user's) usage by class; from
# 1.38 by consumer type, each with its count of consumers.
USAGES = {
    'type': 'object',
    'properties': {
        'usages': {
            'anyOf': [
                RESOURCES,
                {
                    'type': 'object',
                    'description': 'from 1.38: by consumer type',
                    'additionalProperties': {
                        'type': 'object',
                        'properties': {
                            'consumer_count': {'type': 'integer',
                                               'minimum': 0},
                        },
                        'required': ['consumer_count'],
                        'additionalProperties': {'type': 'integer',
                                                 'minimum': 0},
                    },
                },
            ],
        },
    },
    'required': ['usages'],
    'additionalProperties': False,
}

# GET and PUT .../aggregates (from 1.1); the generation from 1.19.
PROVIDER_AGGREGATES = {
    'type': 'object',
    'properties': {
        'aggregates': {'type': 'array', 'items': UUID, 'uniqueItems': True},
        'resource_provider_generation': dict(
            GENERATION, description='from 1.19'),
    },
    'required': ['aggregates'],
    'additionalProperties': False,
}

# GET /traits (from 1.6).
TRAITS = {
    'type': 'object',
    'properties': {
        'traits': {'type': 'array', 'items': TRAIT_NAME,
                   'uniqueItems': True},
    },
    'required': ['traits'],
    'additionalProperties': False,
}

# GET and PUT .../traits (from 1.6).
PROVIDER_TRAITS = {
    'type': 'object',
    'properties': {
        'traits': {'type': 'array', 'items': TRAIT_NAME,
                   'uniqueItems': True},
        'resource_provider_generation': GENERATION,
    },
    'required': ['traits', 'resource_provider_generation'],
    'additionalProperties': False,
}

# GET .../allocations: the provider's allocations by consumer, each
# with the consumer's generation from 1.28.
PROVIDER_ALLOCATIONS = {
    'type': 'object',
    'properties': {
        'allocations': {
            'type': 'object',
            'propertyNames': UUID,
            'additionalProperties': {
                'type': 'object',
                'properties': {
                    'resources': RESOURCES,
                    'consumer_generation': {
                        'type': ['integer', 'null'], 'minimum': 0,
                        'description': 'from 1.28'},
                },
                'required': ['resources'],
                'additionalProperties': False,
            },
        },
        'resource_provider_generation': GENERATION,
    },
    'required': ['allocations', 'resource_provider_generation'],
    'additionalProperties': False,
}

# GET /allocations/{consumer_uuid}: the consumer's allocations by
# provider; project and user from 1.12 (when it has allocations), its
# generation from 1.28 and its type from 1.38 (when it exists).
CONSUMER_ALLOCATIONS = {
    'type': 'object',
    'properties': {
        'allocations': {
            'type': 'object',
            'propertyNames': UUID,
            'additionalProperties': {
                'type': 'object',
                'properties': {
                    'generation': GENERATION,
                    'resources': RESOURCES,
                },
                'required': ['generation', 'resources'],
                'additionalProperties': False,
            },
        },
        'project_id': {'type': 'string', 'description': 'from 1.12'},
        'user_id': {'type': 'string', 'description': 'from 1.12'},
        'consumer_generation': {
            'type': ['integer', 'null'], 'minimum': 0,
            'description': 'from 1.28'},
        'consumer_type': {'type': 'string', 'description': 'from 1.38'},
    },
    'required': ['allocations'],
    'additionalProperties': False,
}

# GET /allocation_candidates: allocation requests, each the body of a
# PUT /allocations/{consumer_uuid} at the same version (a list of
# allocations before 1.12, a dict by provider from 1.12, with the
# providers of each request group from 1.34), and a summary of every
# provider they involve (its traits from 1.17, every class it has from
# 1.27, parent and root from 1.29).
_CANDIDATE_LIST = {
    'type': 'object',
    'description': '1.10-1.11',
    'properties': {
        'allocations': {
            'type': 'array',
            'items': {
                'type': 'object',
                'properties': {
                    'resource_provider': {
                        'type': 'object',
                        'properties': {'uuid': UUID},
                        'required': ['uuid'],
                        'additionalProperties': False,
                    },
                    'resources': RESOURCES,
                },
                'required': ['resource_provider', 'resources'],
                'additionalProperties': False,
            },
        },
    },
    'required': ['allocations'],
    'additionalProperties': False,
}

_CANDIDATE_DICT = {
    'type': 'object',
    'description': 'from 1.12',
    'properties': {
        'allocations': {
            'type': 'object',
            'propertyNames': UUID,
            'additionalProperties': {
                'type': 'object',
                'properties': {'resources': RESOURCES},
                'required': ['resources'],
                'additionalProperties': False,
            },
        },
        'mappings': {
            'type': 'object',
            'description': 'from 1.34: the providers of each request '
                           'group, by suffix ("" for the unsuffixed one)',
            'propertyNames': {'pattern': '^[a-zA-Z0-9_-]{0,64}$'},
            'additionalProperties': {'type': 'array', 'items': UUID,
                                     'minItems': 1},
        },
    },
    'required': ['allocations'],
    'additionalProperties': False,
}

ALLOCATION_CANDIDATES = {
    'type': 'object',
    'properties': {
        'allocation_requests': {
            'type': 'array',
            'items': {'anyOf': [_CANDIDATE_LIST, _CANDIDATE_DICT]},
        },
        'provider_summaries': {
            'type': 'object',
            'propertyNames': UUID,
            'additionalProperties': {
                'type': 'object',
                'properties': {
                    'resources': {
                        'type': 'object',
                        'propertyNames': RESOURCE_CLASS_NAME,
                        'additionalProperties': {
                            'type': 'object',
                            'properties': {
                                'capacity': {'type': 'integer',
                                             'minimum': 0},
                                'used': {'type': 'integer', 'minimum': 0},
                            },
                            'required': ['capacity', 'used'],
                            'additionalProperties': False,
                        },
                    },
                    'traits': {'type': 'array', 'items': TRAIT_NAME,
                               'description': 'from 1.17'},
                    'parent_provider_uuid': {
                        'type': ['string', 'null'], 'format': 'uuid',
                        'description': 'from 1.29: null for a root'},
                    'root_provider_uuid': {
                        'type': 'string', 'format': 'uuid',
                        'description': 'from 1.29'},
                },
                'required': ['resources'],
                'additionalProperties': False,
            },
        },
    },
    'required': ['allocation_requests', 'provider_summaries'],
    'additionalProperties': False,
}
