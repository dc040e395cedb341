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

"""Pieces the response schemas share: links and nullable values.

JSON Schema 2020-12, the dialect of the query schemas and of OpenAPI 3.1.
"""

NULLABLE_STRING = {'type': ['string', 'null']}

NON_NEGATIVE_INTEGER = {'type': 'integer', 'minimum': 0}

# A link of a document: an absolute URL of this API, built from the
# request (and the X-Forwarded-* headers of a trusted proxy).
LINK = {
    'type': 'object',
    'properties': {
        'href': {'type': 'string', 'format': 'uri'},
        'rel': {'type': 'string', 'enum': ['self', 'bookmark']},
    },
    'required': ['href', 'rel'],
    'additionalProperties': False,
}


def _link_with_rel(rel):
    return {
        'allOf': [LINK],
        'properties': {'rel': {'const': rel}},
    }


# [self]: the versioned URL of a version document.
SELF_LINKS = {
    'type': 'array',
    'prefixItems': [_link_with_rel('self')],
    'items': False,
    'minItems': 1,
}

# [self, bookmark]: Zun's pair of a resource or a collection, the
# versioned URL and the unversioned bookmark.
SELF_AND_BOOKMARK_LINKS = {
    'type': 'array',
    'prefixItems': [_link_with_rel('self'), _link_with_rel('bookmark')],
    'items': False,
    'minItems': 2,
}

# Timestamps in ISO 8601 with their offset, as the API writes them.
NULLABLE_DATE_TIME = {'type': ['string', 'null'], 'format': 'date-time'}
