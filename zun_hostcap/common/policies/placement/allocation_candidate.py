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

"""Rules of /allocation_candidates."""

from oslo_policy import policy

from zun_hostcap.common.policies.placement import base

LIST = 'placement:allocation_candidates:list'

rules = [
    policy.DocumentedRuleDefault(
        name=LIST,
        check_str=base.ADMIN_OR_SERVICE,
        scope_types=base.PROJECT_SCOPE,
        description='List the allocation candidates of a request: where '
                    'its resources could be allocated.',
        operations=[{'method': 'GET', 'path': '/allocation_candidates'}]),
]


def list_rules():
    return rules
