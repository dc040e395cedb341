"""Bodies of PUT /resource_providers/{uuid}/aggregates.

Before microversion 1.19 the body is the list of aggregate uuids; from
it, an object with the list and the provider's generation.
"""

import copy

_AGGREGATES = {
    'type': 'array',
    'items': {'type': 'string', 'format': 'uuid'},
    'uniqueItems': True,
}

PUT_AGGREGATES_v1_1 = copy.deepcopy(_AGGREGATES)

PUT_AGGREGATES_v1_19 = {
    'type': 'object',
    'properties': {
        'aggregates': copy.deepcopy(_AGGREGATES),
        'resource_provider_generation': {'type': 'integer'},
    },
    'required': ['aggregates', 'resource_provider_generation'],
    'additionalProperties': False,
}
