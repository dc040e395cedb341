"""Bodies of /resource_classes.

A custom class is named CUSTOM_ and capitals, digits and underscores, at
most 255 characters (Placement's limits). From microversion 1.7 PUT takes
no body: the name in the path is checked with ``NAME``.
"""

import copy

PATTERN = '^CUSTOM_[A-Z0-9_]+$'
MAX_LENGTH = 255

NAME = {
    'type': 'string',
    'pattern': PATTERN,
    'maxLength': MAX_LENGTH,
}

POST_RESOURCE_CLASS_v1_2 = {
    'type': 'object',
    'properties': {
        'name': copy.deepcopy(NAME),
    },
    'required': ['name'],
    'additionalProperties': False,
}

# PUT /resource_classes/{name} before 1.7: a rename.
PUT_RESOURCE_CLASS_v1_2 = copy.deepcopy(POST_RESOURCE_CLASS_v1_2)
