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

"""The error document every error of the API answers with.

Built by ``zun_hostcap.api.errors.document``, in Zun's format, in every
microversion.
"""

ERROR_v1_1 = {
    'type': 'object',
    'properties': {
        'request_id': {
            'type': 'string',
            'pattern': r'^(req-[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12})?$',
            'description': 'x-openstack-request-id of the response',
        },
        'code': {
            'type': 'string',
            'pattern': r'^container\.[a-z0-9_]+$',
            'description': 'what went wrong, for programs: '
                           'container.<error>',
        },
        'status': {'type': 'integer', 'minimum': 400, 'maximum': 599,
                   'description': 'the HTTP status of the response'},
        'title': {'type': 'string',
                  'description': 'the first sentence of detail'},
        'detail': {'type': 'string',
                   'description': 'what went wrong, for people'},
        'links': {'type': 'array', 'maxItems': 0},
    },
    'additionalProperties': False,
}
ERROR_v1_1['required'] = list(ERROR_v1_1['properties'])

# Microversion 1.1: {"errors": [one error]}.
ERROR_DOCUMENT_v1_1 = {
    'type': 'object',
    'properties': {
        'errors': {'type': 'array', 'items': ERROR_v1_1, 'minItems': 1},
    },
    'required': ['errors'],
    'additionalProperties': False,
}
