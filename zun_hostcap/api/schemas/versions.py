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

"""Responses of GET / and GET /v1: the version documents.

Both exist from the first microversion and never changed.
"""

from zun_hostcap.api.schemas import common

# One version of the API, with the range of its microversions.
VERSION_v1_1 = {
    'type': 'object',
    'properties': {
        'id': {'type': 'string', 'pattern': r'^v[0-9]+$'},
        'status': {'type': 'string',
                   'enum': ['CURRENT', 'SUPPORTED', 'DEPRECATED']},
        'min_version': {'type': 'string', 'pattern': r'^[0-9]+\.[0-9]+$'},
        'max_version': {'type': 'string', 'pattern': r'^[0-9]+\.[0-9]+$'},
        'links': common.SELF_LINKS,
    },
    'required': ['id', 'status', 'min_version', 'max_version', 'links'],
    'additionalProperties': False,
}

# Microversion 1.1: GET /, what python-zunclient reads the range from.
GET_ROOT_RESPONSE_v1_1 = {
    'type': 'object',
    'properties': {
        'name': {'type': 'string'},
        'description': {'type': 'string'},
        'versions': {'type': 'array', 'items': VERSION_v1_1,
                     'minItems': 1},
        'default_version': VERSION_v1_1,
    },
    'required': ['name', 'description', 'versions', 'default_version'],
    'additionalProperties': False,
}

# Microversion 1.1: GET /v1, the media types and the collections.
GET_V1_RESPONSE_v1_1 = {
    'type': 'object',
    'properties': {
        'id': {'type': 'string', 'const': 'v1'},
        'media_types': {
            'type': 'array',
            'items': {
                'type': 'object',
                'properties': {
                    'base': {'type': 'string'},
                    'type': {'type': 'string'},
                },
                'required': ['base', 'type'],
                'additionalProperties': False,
            },
        },
        'links': common.SELF_LINKS,
        'hosts': common.SELF_AND_BOOKMARK_LINKS,
        'services': common.SELF_AND_BOOKMARK_LINKS,
    },
    'required': ['id', 'media_types', 'links', 'hosts', 'services'],
    'additionalProperties': False,
}
