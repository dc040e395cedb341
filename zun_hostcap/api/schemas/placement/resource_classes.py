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

"""Bodies of /resource_classes.

A custom class is named CUSTOM_ and capitals, digits and underscores, at
most 255 characters (Placement's limits). From microversion 1.7 PUT takes
no body: the name in the path is checked with ``NAME``.
"""

import copy

PATTERN = '^CUSTOM_[A-Z0-9_]+$'
MAX_LENGTH = 255

NAME = {
    'type': 'string',
    'pattern': PATTERN,
    'maxLength': MAX_LENGTH,
}

POST_RESOURCE_CLASS_v1_2 = {
    'type': 'object',
    'properties': {
        'name': copy.deepcopy(NAME),
    },
    'required': ['name'],
    'additionalProperties': False,
}

# PUT /resource_classes/{name} before 1.7: a rename.
PUT_RESOURCE_CLASS_v1_2 = copy.deepcopy(POST_RESOURCE_CLASS_v1_2)
