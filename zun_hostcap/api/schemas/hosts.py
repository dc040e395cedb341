"""Query string of GET /v1/hosts.

Values arrive as strings; each property says in ``description`` what a
valid value is, which is also what a client is told when it sends another.
"""

# Microversion 1.4: the hosts routes appear.
GET_HOSTS_QUERY_v1_4 = {
    'type': 'object',
    'properties': {
        'limit': {
            'type': 'string',
            'pattern': r'^[0-9]*[1-9][0-9]*$',
            'description': 'a positive integer',
        },
        'marker': {
            'type': 'string',
            'format': 'uuid',
            'description': 'the uuid of a host',
        },
        'sort_key': {
            'type': 'string',
            'pattern': r'^[a-z_]+$',
            'description': 'the name of a host field',
        },
        'sort_dir': {
            'type': 'string',
            'enum': ['asc', 'desc'],
            'description': '"asc" or "desc"',
        },
    },
    'additionalProperties': False,
}

# Microversion 1.4: showing a host takes no query.
GET_HOST_QUERY_v1_4 = {
    'type': 'object',
    'properties': {},
    'additionalProperties': False,
}
