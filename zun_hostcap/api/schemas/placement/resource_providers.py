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

"""Bodies and query strings of /resource_providers[/{uuid}].

As in Placement: POST takes a name and optionally a uuid, PUT a name;
from microversion 1.14 both may name a parent (or null). The list takes
more filters as versions go by; how each filter's value is spelled
(member_of, resources, required) the controller checks itself.
"""

import copy

_NAME = {'type': 'string', 'maxLength': 200}
_UUID = {'type': 'string', 'format': 'uuid'}

POST_RESOURCE_PROVIDER = {
    'type': 'object',
    'properties': {
        'name': _NAME,
        'uuid': _UUID,
    },
    'required': ['name'],
    'additionalProperties': False,
}

PUT_RESOURCE_PROVIDER = copy.deepcopy(POST_RESOURCE_PROVIDER)
del PUT_RESOURCE_PROVIDER['properties']['uuid']

# 1.14: nested providers.
POST_RESOURCE_PROVIDER_v1_14 = copy.deepcopy(POST_RESOURCE_PROVIDER)
POST_RESOURCE_PROVIDER_v1_14['properties']['parent_provider_uuid'] = {
    'anyOf': [_UUID, {'type': 'null'}],
}

PUT_RESOURCE_PROVIDER_v1_14 = copy.deepcopy(POST_RESOURCE_PROVIDER_v1_14)
del PUT_RESOURCE_PROVIDER_v1_14['properties']['uuid']

# GET /resource_providers: the filters of each version.
GET_RESOURCE_PROVIDERS_v1_0 = {
    'type': 'object',
    'properties': {
        'name': {'type': 'string'},
        'uuid': _UUID,
    },
    'additionalProperties': False,
}

GET_RESOURCE_PROVIDERS_v1_3 = copy.deepcopy(GET_RESOURCE_PROVIDERS_v1_0)
GET_RESOURCE_PROVIDERS_v1_3['properties']['member_of'] = {'type': 'string'}

GET_RESOURCE_PROVIDERS_v1_4 = copy.deepcopy(GET_RESOURCE_PROVIDERS_v1_3)
GET_RESOURCE_PROVIDERS_v1_4['properties']['resources'] = {'type': 'string'}

GET_RESOURCE_PROVIDERS_v1_14 = copy.deepcopy(GET_RESOURCE_PROVIDERS_v1_4)
GET_RESOURCE_PROVIDERS_v1_14['properties']['in_tree'] = _UUID

GET_RESOURCE_PROVIDERS_v1_18 = copy.deepcopy(GET_RESOURCE_PROVIDERS_v1_14)
GET_RESOURCE_PROVIDERS_v1_18['properties']['required'] = {'type': 'string'}


def get_resource_providers(version):
    """The query schema of GET /resource_providers at ``version``."""
    if version >= (1, 18):
        return GET_RESOURCE_PROVIDERS_v1_18
    if version >= (1, 14):
        return GET_RESOURCE_PROVIDERS_v1_14
    if version >= (1, 4):
        return GET_RESOURCE_PROVIDERS_v1_4
    if version >= (1, 3):
        return GET_RESOURCE_PROVIDERS_v1_3
    return GET_RESOURCE_PROVIDERS_v1_0
