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

"""Rules of /traits and /resource_providers/{uuid}/traits."""

from oslo_policy import policy

from zun_hostcap.common.policies.placement import base

TRAITS_PREFIX = 'placement:traits:%s'
TRAITS_LIST = TRAITS_PREFIX % 'list'
TRAITS_SHOW = TRAITS_PREFIX % 'show'
TRAITS_UPDATE = TRAITS_PREFIX % 'update'
TRAITS_DELETE = TRAITS_PREFIX % 'delete'

RP_TRAIT_PREFIX = 'placement:resource_providers:traits:%s'
RP_TRAIT_LIST = RP_TRAIT_PREFIX % 'list'
RP_TRAIT_UPDATE = RP_TRAIT_PREFIX % 'update'
RP_TRAIT_DELETE = RP_TRAIT_PREFIX % 'delete'

TRAIT = '/traits/{name}'
PROVIDER_TRAITS = '/resource_providers/{uuid}/traits'

rules = [
    policy.DocumentedRuleDefault(
        name=TRAITS_LIST,
        check_str=base.ADMIN_OR_SERVICE,
        scope_types=base.PROJECT_SCOPE,
        description='List the standard and custom traits, optionally '
                    'filtered.',
        operations=[{'method': 'GET', 'path': '/traits'}]),
    policy.DocumentedRuleDefault(
        name=TRAITS_SHOW,
        check_str=base.ADMIN_OR_SERVICE,
        scope_types=base.PROJECT_SCOPE,
        description='Check that a trait exists.',
        operations=[{'method': 'GET', 'path': TRAIT}]),
    policy.DocumentedRuleDefault(
        name=TRAITS_UPDATE,
        check_str=base.ADMIN_OR_SERVICE,
        scope_types=base.PROJECT_SCOPE,
        description='Create a custom trait, or confirm that it exists.',
        operations=[{'method': 'PUT', 'path': TRAIT}]),
    policy.DocumentedRuleDefault(
        name=TRAITS_DELETE,
        check_str=base.ADMIN_OR_SERVICE,
        scope_types=base.PROJECT_SCOPE,
        description='Delete a custom trait that no resource provider '
                    'has.',
        operations=[{'method': 'DELETE', 'path': TRAIT}]),
    policy.DocumentedRuleDefault(
        name=RP_TRAIT_LIST,
        check_str=base.ADMIN_OR_SERVICE,
        scope_types=base.PROJECT_SCOPE,
        description='List the traits of a resource provider.',
        operations=[{'method': 'GET', 'path': PROVIDER_TRAITS}]),
    policy.DocumentedRuleDefault(
        name=RP_TRAIT_UPDATE,
        check_str=base.ADMIN_OR_SERVICE,
        scope_types=base.PROJECT_SCOPE,
        description='Replace the traits of a resource provider.',
        operations=[{'method': 'PUT', 'path': PROVIDER_TRAITS}]),
    policy.DocumentedRuleDefault(
        name=RP_TRAIT_DELETE,
        check_str=base.ADMIN_OR_SERVICE,
        scope_types=base.PROJECT_SCOPE,
        description='Remove every trait from a resource provider.',
        operations=[{'method': 'DELETE', 'path': PROVIDER_TRAITS}]),
]


def list_rules():
    return rules
