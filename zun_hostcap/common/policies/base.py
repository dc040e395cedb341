"""Rules the resource rules are built from."""

from oslo_policy import policy

ADMIN = 'rule:context_is_admin'

rules = [
    policy.RuleDefault(
        name='context_is_admin',
        check_str='role:admin',
        description='Who is an administrator of the cloud: the admin '
                    'role, in any project.'),
]


def list_rules():
    return rules
