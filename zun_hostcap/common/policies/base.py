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
