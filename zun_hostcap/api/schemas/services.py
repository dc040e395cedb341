"""Query string of GET /v1/services."""

# Microversion 1.1: list every service; no filters.
GET_SERVICES_QUERY_v1_1 = {
    'type': 'object',
    'properties': {},
    'additionalProperties': False,
}
