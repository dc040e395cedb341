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

"""Rules the resource rules are built from."""

from oslo_policy import policy

ADMIN = 'rule:context_is_admin'

# Everything here is an operation on the cloud's hosts, asked with a
# project-scoped token (the admin project's), as in Nova and Zun today.
PROJECT_SCOPE = ['project']

rules = [
    policy.RuleDefault(
        name='context_is_admin',
        check_str='role:admin',
        scope_types=PROJECT_SCOPE,
        description='Who is an administrator of the cloud: the admin '
                    'role, in any project.'),
]


def list_rules():
    return rules
