"""Rules of /resource_providers/{uuid}/aggregates."""

from oslo_policy import policy

from zun_hostcap.common.policies.placement import base

PREFIX = 'placement:resource_providers:aggregates:%s'
LIST = PREFIX % 'list'
UPDATE = PREFIX % 'update'

PATH = '/resource_providers/{uuid}/aggregates'

rules = [
    policy.DocumentedRuleDefault(
        name=LIST,
        check_str=base.ADMIN_OR_SERVICE,
        scope_types=base.PROJECT_SCOPE,
        description='List the aggregates a resource provider is in.',
        operations=[{'method': 'GET', 'path': PATH}]),
    policy.DocumentedRuleDefault(
        name=UPDATE,
        check_str=base.ADMIN_OR_SERVICE,
        scope_types=base.PROJECT_SCOPE,
        description='Replace the aggregates a resource provider is in.',
        operations=[{'method': 'PUT', 'path': PATH}]),
]


def list_rules():
    return rules
