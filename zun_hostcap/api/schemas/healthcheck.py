"""The JSON answer of oslo.middleware's /healthcheck.

oslo.middleware writes it, not this API; the schema says only what a
client may rely on and lets the detailed form add its own fields.
"""

HEALTHCHECK_RESPONSE = {
    'type': 'object',
    'properties': {
        'detailed': {'type': 'boolean'},
        'reasons': {'type': 'array'},
    },
    'required': ['detailed', 'reasons'],
}
