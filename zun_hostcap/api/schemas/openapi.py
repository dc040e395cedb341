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

"""Response of GET /openapi.json, the OpenAPI 3.1 document of the API.

What the OpenAPI 3.1 specification itself requires of a document is
checked by the tests; a client may rely on these fields.
"""

GET_OPENAPI_RESPONSE = {
    'type': 'object',
    'properties': {
        'openapi': {'type': 'string', 'pattern': r'^3\.1\.[0-9]+$'},
        'info': {'type': 'object', 'required': ['title', 'version']},
        'paths': {'type': 'object'},
    },
    'required': ['openapi', 'info', 'paths'],
}
