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

"""Bodies of POST /reshaper (from 1.30).

``inventories``: for each provider (by uuid, at least one), its
generation and its whole inventory after the reshape, as PUT
/resource_providers/{uuid}/inventories takes them. ``allocations``: the
consumers' allocations, as POST /allocations takes them at the same
version, except that there may be none:

- 1.30: consumer_generation required (null for a new consumer);
- 1.34: an optional "mappings" of request groups to providers;
- 1.38: consumer_type required.
"""

import copy

from zun_hostcap.api.schemas.placement import allocations
from zun_hostcap.api.schemas.placement import inventories


def _reshaper(post_allocations):
    allocations_schema = copy.deepcopy(post_allocations)
    # The inventory moved may have no allocations (yet).
    allocations_schema['minProperties'] = 0
    return {
        'type': 'object',
        'properties': {
            'inventories': {
                'type': 'object',
                'minProperties': 1,
                'patternProperties': {
                    allocations.UUID_KEY_PATTERN: inventories.PUT_INVENTORIES,
                },
                'additionalProperties': False,
            },
            'allocations': allocations_schema,
        },
        'required': ['inventories', 'allocations'],
        'additionalProperties': False,
    }


POST_RESHAPER_V1_30 = _reshaper(allocations.POST_ALLOCATIONS_V1_28)
POST_RESHAPER_V1_34 = _reshaper(allocations.POST_ALLOCATIONS_V1_34)
POST_RESHAPER_V1_38 = _reshaper(allocations.POST_ALLOCATIONS_V1_38)

# (first version, schema), newest first.
POST_SCHEMAS = (
    ((1, 38), POST_RESHAPER_V1_38),
    ((1, 34), POST_RESHAPER_V1_34),
    ((1, 30), POST_RESHAPER_V1_30),
)
