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

"""The query string of GET /allocation_candidates, version by version.

What each version accepts (the values' own spelling, such as
``VCPU:1,MEMORY_MB:512`` or ``in:uuid1,uuid2``, is checked by the
controller, with Placement's messages):

- 1.10: ``resources``, required.
- 1.16: ``limit``, a positive integer.
- 1.17: ``required`` traits.
- 1.21: ``member_of``.
- 1.25: request groups: ``resourcesN``, ``requiredN``, ``member_ofN``
  (N a positive integer), and ``group_policy``; ``resources`` is no
  longer required by itself.
- 1.31: ``in_tree`` and ``in_treeN``.
- 1.33: group suffixes of 1 to 64 letters, digits, ``_`` and ``-``.
- 1.35: ``root_required``.
- 1.36: ``same_subtree``.
"""

import copy

# Request group suffixes: numbers before 1.33, words from it.
SUFFIX = r'[1-9][0-9]*'
SUFFIX_v1_33 = r'[a-zA-Z0-9_-]{1,64}'
GROUP_KEYS = ('resources', 'required', 'member_of', 'in_tree')

_STRING = {'type': 'string'}

GET_ALLOCATION_CANDIDATES_v1_10 = {
    'type': 'object',
    'properties': {
        'resources': _STRING,
    },
    'required': ['resources'],
    'additionalProperties': False,
}

GET_ALLOCATION_CANDIDATES_v1_16 = copy.deepcopy(
    GET_ALLOCATION_CANDIDATES_v1_10)
GET_ALLOCATION_CANDIDATES_v1_16['properties']['limit'] = {
    # Query values are strings; a leading zero or sign is refused.
    'type': ['integer', 'string'],
    'pattern': '^[1-9][0-9]*$',
    'minimum': 1,
    'minLength': 1,
}

GET_ALLOCATION_CANDIDATES_v1_17 = copy.deepcopy(
    GET_ALLOCATION_CANDIDATES_v1_16)
GET_ALLOCATION_CANDIDATES_v1_17['properties']['required'] = _STRING

GET_ALLOCATION_CANDIDATES_v1_21 = copy.deepcopy(
    GET_ALLOCATION_CANDIDATES_v1_17)
GET_ALLOCATION_CANDIDATES_v1_21['properties']['member_of'] = _STRING


def _grouped(base, keys, suffix):
    """``base`` with ``key`` and ``key<suffix>`` for each of ``keys``."""
    schema = copy.deepcopy(base)
    schema.pop('required', None)
    for key in GROUP_KEYS:
        schema['properties'].pop(key, None)
    schema['patternProperties'] = {
        '^%s(%s)?$' % (key, suffix): _STRING for key in keys}
    schema['properties']['group_policy'] = {
        'type': 'string', 'enum': ['none', 'isolate']}
    return schema


GET_ALLOCATION_CANDIDATES_v1_25 = _grouped(
    GET_ALLOCATION_CANDIDATES_v1_21, GROUP_KEYS[:3], SUFFIX)
GET_ALLOCATION_CANDIDATES_v1_31 = _grouped(
    GET_ALLOCATION_CANDIDATES_v1_25, GROUP_KEYS, SUFFIX)
GET_ALLOCATION_CANDIDATES_v1_33 = _grouped(
    GET_ALLOCATION_CANDIDATES_v1_31, GROUP_KEYS, SUFFIX_v1_33)

GET_ALLOCATION_CANDIDATES_v1_35 = copy.deepcopy(
    GET_ALLOCATION_CANDIDATES_v1_33)
GET_ALLOCATION_CANDIDATES_v1_35['properties']['root_required'] = _STRING

GET_ALLOCATION_CANDIDATES_v1_36 = copy.deepcopy(
    GET_ALLOCATION_CANDIDATES_v1_35)
GET_ALLOCATION_CANDIDATES_v1_36['properties']['same_subtree'] = _STRING

_BY_VERSION = (
    ((1, 36), GET_ALLOCATION_CANDIDATES_v1_36),
    ((1, 35), GET_ALLOCATION_CANDIDATES_v1_35),
    ((1, 33), GET_ALLOCATION_CANDIDATES_v1_33),
    ((1, 31), GET_ALLOCATION_CANDIDATES_v1_31),
    ((1, 25), GET_ALLOCATION_CANDIDATES_v1_25),
    ((1, 21), GET_ALLOCATION_CANDIDATES_v1_21),
    ((1, 17), GET_ALLOCATION_CANDIDATES_v1_17),
    ((1, 16), GET_ALLOCATION_CANDIDATES_v1_16),
)


def get_allocation_candidates(version):
    """The query schema of GET /allocation_candidates at ``version``."""
    for minimum, schema in _BY_VERSION:
        if version >= minimum:
            return schema
    return GET_ALLOCATION_CANDIDATES_v1_10


def suffix_pattern(version):
    """The pattern of a group suffix at ``version``."""
    return SUFFIX_v1_33 if version >= (1, 33) else SUFFIX
