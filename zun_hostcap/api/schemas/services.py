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

"""Query string and response of GET /v1/services."""

from zun_hostcap.api.schemas import common

# Microversion 1.1: list every service; no filters.
GET_SERVICES_QUERY_v1_1 = {
    'type': 'object',
    'properties': {},
    'additionalProperties': False,
}

# Microversion 1.1: one zun-hostcap service on one host.
SERVICE_v1_1 = {
    'type': 'object',
    'properties': {
        'id': {'type': 'integer'},
        'host': {'type': 'string'},
        'binary': {'type': 'string'},
        'state': {
            'type': 'string',
            'enum': ['up', 'down'],
            'description': 'up when the last heartbeat is recent and the '
                           'service is not forced down',
        },
        'disabled': {'type': 'boolean'},
        'disabled_reason': common.NULLABLE_STRING,
        'forced_down': {'type': 'boolean'},
        'report_count': common.NON_NEGATIVE_INTEGER,
        'last_seen_up': common.NULLABLE_DATE_TIME,
        'created_at': common.NULLABLE_DATE_TIME,
        'updated_at': common.NULLABLE_DATE_TIME,
    },
    'additionalProperties': False,
}
SERVICE_v1_1['required'] = list(SERVICE_v1_1['properties'])

# Microversion 1.1: the services with their state.
GET_SERVICES_RESPONSE_v1_1 = {
    'type': 'object',
    'properties': {
        'services': {'type': 'array', 'items': SERVICE_v1_1},
    },
    'required': ['services'],
    'additionalProperties': False,
}
