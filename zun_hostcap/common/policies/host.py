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

"""Rules of /v1/hosts; the names are Zun's, so a Zun policy file fits."""

from oslo_policy import policy

from zun_hostcap.common.policies import base

HOST = 'host:%s'

rules = [
    policy.DocumentedRuleDefault(
        name=HOST % 'get_all',
        check_str=base.ADMIN,
        scope_types=base.PROJECT_SCOPE,
        description='List the container hosts and what they have.',
        operations=[{'method': 'GET', 'path': '/v1/hosts'}]),
    policy.DocumentedRuleDefault(
        name=HOST % 'get',
        check_str=base.ADMIN,
        scope_types=base.PROJECT_SCOPE,
        description='Show one container host.',
        operations=[{'method': 'GET', 'path': '/v1/hosts/{host_ident}'}]),
]


def list_rules():
    return rules
