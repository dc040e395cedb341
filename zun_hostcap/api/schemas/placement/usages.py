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
