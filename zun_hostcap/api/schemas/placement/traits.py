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

"""Query of GET /traits, body of PUT /resource_providers/{uuid}/traits.

A trait is at most 255 characters; a custom one (the only kind PUT
/traits/{name} creates) is CUSTOM_ and capitals, digits and underscores.
"""

import copy

MAX_LENGTH = 255
CUSTOM_PATTERN = '^CUSTOM_[A-Z0-9_]+$'

TRAIT = {
    'type': 'string',
    'minLength': 1,
    'maxLength': MAX_LENGTH,
}

CUSTOM_TRAIT = copy.deepcopy(TRAIT)
CUSTOM_TRAIT['pattern'] = CUSTOM_PATTERN

PUT_PROVIDER_TRAITS_v1_6 = {
    'type': 'object',
    'properties': {
        'traits': {
            'type': 'array',
            'items': copy.deepcopy(TRAIT),
        },
        'resource_provider_generation': {'type': 'integer'},
    },
    'required': ['traits', 'resource_provider_generation'],
    'additionalProperties': False,
}

LIST_TRAITS_QUERY_v1_6 = {
    'type': 'object',
    'properties': {
        'name': {'type': 'string'},
        'associated': {'type': 'string'},
    },
    'additionalProperties': False,
}
