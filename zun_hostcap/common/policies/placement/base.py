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

"""The generic rules Placement's resource rules are built from.

The names are Placement's (``admin_api``, ``service_api`` ...), so that an
operator's Placement policy file overriding them applies here too. None of
them clashes with zun-hostcap's own base rules (``context_is_admin``).
"""

from oslo_log import versionutils
from oslo_policy import policy

PROJECT_SCOPE = ['project']

# Check strings the resource rules use.
ADMIN = 'rule:admin_api'
SERVICE = 'rule:service_api'
ADMIN_OR_SERVICE = 'rule:admin_or_service_api'
ADMIN_OR_PROJECT_READER_OR_SERVICE = (
    'rule:admin_or_project_reader_or_service_api')

# Before the Wallaby release every Placement API was admin only. With
# [oslo_policy] enforce_new_defaults off, oslo.policy keeps accepting
# that old default alongside each new one.
_DEPRECATION = (
    'Placement now has default roles (admin, service, project reader) '
    'and project scope; the admin-only default is deprecated and will be '
    'ignored once new defaults are enforced')

ADMIN_ONLY_BEFORE_WALLABY = policy.DeprecatedRule(
    name=ADMIN,
    check_str='role:admin',
    deprecated_reason=_DEPRECATION,
    deprecated_since=versionutils.deprecated.WALLABY)

rules = [
    policy.RuleDefault(
        name='admin_api',
        check_str='role:admin',
        scope_types=PROJECT_SCOPE,
        description='An administrator of Placement: the admin role.'),
    policy.RuleDefault(
        name='service_api',
        check_str='role:service',
        scope_types=PROJECT_SCOPE,
        description='Another OpenStack service calling Placement: the '
                    'service role.',
        deprecated_rule=ADMIN_ONLY_BEFORE_WALLABY),
    policy.RuleDefault(
        name='admin_or_service_api',
        check_str='role:admin or role:service',
        scope_types=PROJECT_SCOPE,
        description='An administrator or a service: who may use most of '
                    'the Placement API.',
        deprecated_rule=ADMIN_ONLY_BEFORE_WALLABY),
    # Placement gives this one no scope types: it is only referred to by
    # other rules, and only the scope of the rule enforced is checked.
    policy.RuleDefault(
        name='project_reader_api',
        check_str='role:reader and project_id:%(project_id)s',
        description='A reader of the project the request is about.',
        deprecated_rule=ADMIN_ONLY_BEFORE_WALLABY),
    policy.RuleDefault(
        name='admin_or_project_reader_or_service_api',
        check_str='role:admin or rule:project_reader_api or role:service',
        scope_types=PROJECT_SCOPE,
        description='An administrator, a service, or a reader of the '
                    'project the request is about.',
        deprecated_rule=ADMIN_ONLY_BEFORE_WALLABY),
]


def list_rules():
    return rules
