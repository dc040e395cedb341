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

"""Bodies of PUT /allocations/{consumer_uuid} and POST /allocations.

One schema per microversion where the body changed:

- 1.0: a list of {"resource_provider": {"uuid"}, "resources"};
- 1.8: project_id and user_id required;
- 1.12: a dict keyed by provider uuid ({"resources", optional
  "generation"}), as GET answers it;
- 1.13: POST /allocations, a dict of those keyed by consumer uuid, where
  empty allocations remove the consumer's;
- 1.28: consumer_generation required (null for a new consumer), and PUT
  may send empty allocations;
- 1.34: an optional "mappings" of request groups to providers;
- 1.38: consumer_type required.

Amounts are integers of at least 1. Whether providers and classes exist,
and the capacity, are checked when writing.
"""

import copy

UUID_KEY_PATTERN = '^[0-9a-fA-F-]{36}$'
RESOURCE_CLASS_PATTERN = '^[A-Z0-9_]+$'
CONSUMER_TYPE_PATTERN = '^[A-Z0-9_]+$'
GROUP_SUFFIX_PATTERN = '^[a-zA-Z0-9_-]{1,64}$'

_EXTERNAL_ID = {'type': 'string', 'minLength': 1, 'maxLength': 255}

_RESOURCES = {
    'type': 'object',
    'minProperties': 1,
    'patternProperties': {
        RESOURCE_CLASS_PATTERN: {'type': 'integer', 'minimum': 1},
    },
    'additionalProperties': False,
}

# 1.0 to 1.7.
PUT_ALLOCATIONS_V1_0 = {
    'type': 'object',
    'properties': {
        'allocations': {
            'type': 'array',
            'minItems': 1,
            'items': {
                'type': 'object',
                'properties': {
                    'resource_provider': {
                        'type': 'object',
                        'properties': {
                            'uuid': {'type': 'string', 'format': 'uuid'},
                        },
                        'required': ['uuid'],
                        'additionalProperties': False,
                    },
                    'resources': _RESOURCES,
                },
                'required': ['resource_provider', 'resources'],
                'additionalProperties': False,
            },
        },
    },
    'required': ['allocations'],
    'additionalProperties': False,
}

# 1.8 to 1.11.
PUT_ALLOCATIONS_V1_8 = copy.deepcopy(PUT_ALLOCATIONS_V1_0)
PUT_ALLOCATIONS_V1_8['properties'].update(project_id=_EXTERNAL_ID,
                                          user_id=_EXTERNAL_ID)
PUT_ALLOCATIONS_V1_8['required'] += ['project_id', 'user_id']

# 1.12 to 1.27.
PUT_ALLOCATIONS_V1_12 = {
    'type': 'object',
    'properties': {
        'allocations': {
            'type': 'object',
            'minProperties': 1,
            'patternProperties': {
                UUID_KEY_PATTERN: {
                    'type': 'object',
                    'properties': {
                        # What GET shows; accepted and ignored.
                        'generation': {'type': 'integer'},
                        'resources': _RESOURCES,
                    },
                    'required': ['resources'],
                    'additionalProperties': False,
                },
            },
            'additionalProperties': False,
        },
        'project_id': _EXTERNAL_ID,
        'user_id': _EXTERNAL_ID,
    },
    'required': ['allocations', 'project_id', 'user_id'],
    'additionalProperties': False,
}

# One consumer of POST /allocations (1.13 to 1.27): may be empty.
_CONSUMER_V1_13 = copy.deepcopy(PUT_ALLOCATIONS_V1_12)
_CONSUMER_V1_13['properties']['allocations']['minProperties'] = 0

_GENERATION = {'type': ['integer', 'null']}

# 1.28 to 1.33.
PUT_ALLOCATIONS_V1_28 = copy.deepcopy(_CONSUMER_V1_13)
PUT_ALLOCATIONS_V1_28['properties']['consumer_generation'] = _GENERATION
PUT_ALLOCATIONS_V1_28['required'].append('consumer_generation')

# 1.34 to 1.37.
PUT_ALLOCATIONS_V1_34 = copy.deepcopy(PUT_ALLOCATIONS_V1_28)
PUT_ALLOCATIONS_V1_34['properties']['mappings'] = {
    'type': 'object',
    'minProperties': 1,
    'patternProperties': {
        GROUP_SUFFIX_PATTERN: {
            'type': 'array',
            'minItems': 1,
            'items': {'type': 'string', 'format': 'uuid'},
        },
    },
}

# 1.38 and later.
PUT_ALLOCATIONS_V1_38 = copy.deepcopy(PUT_ALLOCATIONS_V1_34)
PUT_ALLOCATIONS_V1_38['properties']['consumer_type'] = {
    'type': 'string', 'pattern': CONSUMER_TYPE_PATTERN,
    'minLength': 1, 'maxLength': 255}
PUT_ALLOCATIONS_V1_38['required'].append('consumer_type')


def _post(consumer):
    return {
        'type': 'object',
        'minProperties': 1,
        'patternProperties': {UUID_KEY_PATTERN: consumer},
        'additionalProperties': False,
    }


POST_ALLOCATIONS_V1_13 = _post(_CONSUMER_V1_13)
POST_ALLOCATIONS_V1_28 = _post(PUT_ALLOCATIONS_V1_28)
POST_ALLOCATIONS_V1_34 = _post(PUT_ALLOCATIONS_V1_34)
POST_ALLOCATIONS_V1_38 = _post(PUT_ALLOCATIONS_V1_38)

# (first version, schema), newest first.
PUT_SCHEMAS = (
    ((1, 38), PUT_ALLOCATIONS_V1_38),
    ((1, 34), PUT_ALLOCATIONS_V1_34),
    ((1, 28), PUT_ALLOCATIONS_V1_28),
    ((1, 12), PUT_ALLOCATIONS_V1_12),
    ((1, 8), PUT_ALLOCATIONS_V1_8),
    ((1, 0), PUT_ALLOCATIONS_V1_0),
)
POST_SCHEMAS = (
    ((1, 38), POST_ALLOCATIONS_V1_38),
    ((1, 34), POST_ALLOCATIONS_V1_34),
    ((1, 28), POST_ALLOCATIONS_V1_28),
    ((1, 13), POST_ALLOCATIONS_V1_13),
)
