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
