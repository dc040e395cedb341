"""Rules of /v1/services; the names are Zun's."""

from oslo_policy import policy

from zun_hostcap.common.policies import base

SERVICE = 'zun-service:%s'

rules = [
    policy.DocumentedRuleDefault(
        name=SERVICE % 'get_all',
        check_str=base.ADMIN,
        scope_types=base.PROJECT_SCOPE,
        description='List the zun-hostcap services and whether they are '
                    'up.',
        operations=[{'method': 'GET', 'path': '/v1/services'}]),
]


def list_rules():
    return rules
