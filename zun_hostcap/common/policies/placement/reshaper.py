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
