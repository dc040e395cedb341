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

"""Query string of GET /usages (from microversion 1.9)."""

import copy

_EXTERNAL_ID = {'type': 'string', 'minLength': 1, 'maxLength': 255}

# 1.9 to 1.37: project_id required, user_id optional.
GET_USAGES_V1_9 = {
    'type': 'object',
    'properties': {
        'project_id': _EXTERNAL_ID,
        'user_id': _EXTERNAL_ID,
    },
    'required': ['project_id'],
    'additionalProperties': False,
}

# 1.38: consumer_type, a type name, "all" or "unknown". The pattern is
# Placement's, which lets through anything starting with "all" too (it
# then names a type no consumer has).
GET_USAGES_V1_38 = copy.deepcopy(GET_USAGES_V1_9)
GET_USAGES_V1_38['properties']['consumer_type'] = {
    'type': 'string', 'pattern': '^[A-Z0-9_]+$|^all|^unknown$',
    'minLength': 1, 'maxLength': 255}
