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

"""Rules of /allocations and /resource_providers/{uuid}/allocations."""

from oslo_policy import policy

from zun_hostcap.common.policies.placement import base

ALLOC_PREFIX = 'placement:allocations:%s'
ALLOC_LIST = ALLOC_PREFIX % 'list'
ALLOC_MANAGE = ALLOC_PREFIX % 'manage'
ALLOC_UPDATE = ALLOC_PREFIX % 'update'
ALLOC_DELETE = ALLOC_PREFIX % 'delete'

RP_ALLOC_LIST = 'placement:resource_providers:allocations:list'

CONSUMER = '/allocations/{consumer_uuid}'

rules = [
    policy.DocumentedRuleDefault(
        name=ALLOC_MANAGE,
        check_str=base.ADMIN_OR_SERVICE,
        scope_types=base.PROJECT_SCOPE,
        description='Set the allocations of several consumers at once.',
        operations=[{'method': 'POST', 'path': '/allocations'}]),
    policy.DocumentedRuleDefault(
        name=ALLOC_LIST,
        check_str=base.ADMIN_OR_SERVICE,
        scope_types=base.PROJECT_SCOPE,
        description="Show a consumer's allocations.",
        operations=[{'method': 'GET', 'path': CONSUMER}]),
    policy.DocumentedRuleDefault(
        name=ALLOC_UPDATE,
        check_str=base.ADMIN_OR_SERVICE,
        scope_types=base.PROJECT_SCOPE,
        description="Replace a consumer's allocations.",
        operations=[{'method': 'PUT', 'path': CONSUMER}]),
    policy.DocumentedRuleDefault(
        name=ALLOC_DELETE,
        check_str=base.ADMIN_OR_SERVICE,
        scope_types=base.PROJECT_SCOPE,
        description="Remove all of a consumer's allocations.",
        operations=[{'method': 'DELETE', 'path': CONSUMER}]),
    policy.DocumentedRuleDefault(
        name=RP_ALLOC_LIST,
        check_str=base.ADMIN_OR_SERVICE,
        scope_types=base.PROJECT_SCOPE,
        description='List the allocations made against a resource '
                    'provider, by consumer.',
        operations=[{'method': 'GET',
                     'path': '/resource_providers/{uuid}/allocations'}]),
]


def list_rules():
    return rules
