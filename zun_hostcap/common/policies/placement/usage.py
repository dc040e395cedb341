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

"""Rules of /resource_providers/{uuid}/usages and /usages."""

from oslo_policy import policy

from zun_hostcap.common.policies.placement import base

PROVIDER_USAGES = 'placement:resource_providers:usages'
TOTAL_USAGES = 'placement:usages'

rules = [
    policy.DocumentedRuleDefault(
        name=PROVIDER_USAGES,
        check_str=base.ADMIN_OR_SERVICE,
        scope_types=base.PROJECT_SCOPE,
        description='Show how much of each resource class of a resource '
                    'provider is allocated.',
        operations=[{'method': 'GET',
                     'path': '/resource_providers/{uuid}/usages'}]),
    # The target is the project asked about (the project_id query
    # parameter): an administrator or a service may ask about any
    # project, a reader or member only about their own.
    policy.DocumentedRuleDefault(
        name=TOTAL_USAGES,
        check_str=base.ADMIN_OR_PROJECT_READER_OR_SERVICE,
        scope_types=base.PROJECT_SCOPE,
        description="Show a project's (or a project user's) total usage "
                    "of each resource class.",
        operations=[{'method': 'GET', 'path': '/usages'}]),
]


def list_rules():
    return rules
