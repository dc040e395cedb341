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

"""Bodies of /resource_providers/{uuid}/inventories[/{resource_class}].

The bounds are Placement's: every integer fits a signed 32-bit column,
``total`` is at least 1, the unit sizes at least 1, and
``allocation_ratio`` at most the largest single-precision float. That
reserved leaves some capacity is checked later (it depends on the
microversion), as are the resource class names against those known.
"""

import copy

# The largest value of the columns (signed 32-bit integers).
MAX_INT = 2147483647
# The largest single-precision float: allocation_ratio is a FLOAT column.
MAX_FLOAT = 3.40282e+38

# Standard and custom resource class names.
RESOURCE_CLASS_PATTERN = '^[A-Z0-9_]+$'


def _integer(minimum):
    return {'type': 'integer', 'minimum': minimum, 'maximum': MAX_INT}


# PUT /resource_providers/{uuid}/inventories/{resource_class}.
PUT_INVENTORY = {
    'type': 'object',
    'properties': {
        'resource_provider_generation': {'type': 'integer'},
        'total': _integer(1),
        'reserved': _integer(0),
        'min_unit': _integer(1),
        'max_unit': _integer(1),
        'step_size': _integer(1),
        'allocation_ratio': {'type': 'number', 'maximum': MAX_FLOAT},
    },
    'required': ['total', 'resource_provider_generation'],
    'additionalProperties': False,
}

# POST /resource_providers/{uuid}/inventories: one class, no generation
# needed (one given is accepted and ignored, as by Placement).
POST_INVENTORY = copy.deepcopy(PUT_INVENTORY)
POST_INVENTORY['properties']['resource_class'] = {
    'type': 'string', 'pattern': RESOURCE_CLASS_PATTERN}
POST_INVENTORY['required'] = ['total', 'resource_class']

# One record of PUT /resource_providers/{uuid}/inventories.
INVENTORY_RECORD = copy.deepcopy(PUT_INVENTORY)
INVENTORY_RECORD['required'] = ['total']

# PUT /resource_providers/{uuid}/inventories: every class the provider
# is to have. Keys that are not class names at all are validated the
# same way and then refused as unknown classes.
PUT_INVENTORIES = {
    'type': 'object',
    'properties': {
        'resource_provider_generation': {'type': 'integer'},
        'inventories': {
            'type': 'object',
            'patternProperties': {
                RESOURCE_CLASS_PATTERN: INVENTORY_RECORD,
            },
            'additionalProperties': INVENTORY_RECORD,
        },
    },
    'required': ['resource_provider_generation', 'inventories'],
    'additionalProperties': False,
}
