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
