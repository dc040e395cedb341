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

"""The rule of /reshaper."""

from oslo_policy import policy

from zun_hostcap.common.policies.placement import base

RESHAPE = 'placement:reshaper:reshape'

rules = [
    # Placement's default: only a service (a compute moving its
    # inventory) reshapes; before Wallaby the admin did.
    policy.DocumentedRuleDefault(
        name=RESHAPE,
        check_str=base.SERVICE,
        scope_types=base.PROJECT_SCOPE,
        description='Replace the inventories of providers and the '
                    'allocations of consumers in one transaction.',
        operations=[{'method': 'POST', 'path': '/reshaper'}]),
]


def list_rules():
    return rules
