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

"""Rules of /resource_providers/{uuid}/inventories."""

from oslo_policy import policy

from zun_hostcap.common.policies.placement import base

PREFIX = 'placement:resource_providers:inventories:%s'
LIST = PREFIX % 'list'
CREATE = PREFIX % 'create'
SHOW = PREFIX % 'show'
UPDATE = PREFIX % 'update'
DELETE = PREFIX % 'delete'

COLLECTION = '/resource_providers/{uuid}/inventories'
ITEM = COLLECTION + '/{resource_class}'

rules = [
    policy.DocumentedRuleDefault(
        name=LIST,
        check_str=base.ADMIN_OR_SERVICE,
        scope_types=base.PROJECT_SCOPE,
        description="List a resource provider's inventories.",
        operations=[{'method': 'GET', 'path': COLLECTION}]),
    policy.DocumentedRuleDefault(
        name=CREATE,
        check_str=base.ADMIN_OR_SERVICE,
        scope_types=base.PROJECT_SCOPE,
        description='Add the inventory of one resource class to a '
                    'resource provider.',
        operations=[{'method': 'POST', 'path': COLLECTION}]),
    policy.DocumentedRuleDefault(
        name=SHOW,
        check_str=base.ADMIN_OR_SERVICE,
        scope_types=base.PROJECT_SCOPE,
        description="Show a resource provider's inventory of one "
                    "resource class.",
        operations=[{'method': 'GET', 'path': ITEM}]),
    policy.DocumentedRuleDefault(
        name=UPDATE,
        check_str=base.ADMIN_OR_SERVICE,
        scope_types=base.PROJECT_SCOPE,
        description="Replace all of a resource provider's inventories, "
                    "or its inventory of one resource class.",
        operations=[{'method': 'PUT', 'path': COLLECTION},
                    {'method': 'PUT', 'path': ITEM}]),
    policy.DocumentedRuleDefault(
        name=DELETE,
        check_str=base.ADMIN_OR_SERVICE,
        scope_types=base.PROJECT_SCOPE,
        description="Remove all of a resource provider's inventories, "
                    "or its inventory of one resource class.",
        operations=[{'method': 'DELETE', 'path': COLLECTION},
                    {'method': 'DELETE', 'path': ITEM}]),
]


def list_rules():
    return rules
