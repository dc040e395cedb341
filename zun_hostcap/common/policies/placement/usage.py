"""Rules of /resource_providers/{uuid}/usages and /usages."""

from oslo_policy import policy

from zun_hostcap.common.policies.placement import base

PROVIDER_USAGES = 'placement:resource_providers:usages'
TOTAL_USAGES = 'placement:usages'

rules = [
    policy.DocumentedRuleDefault(
        name=PROVIDER_USAGES,
        check_str=base.ADMIN_OR_SERVICE,
        scope_types=base.PROJECT_SCOPE,
        description='Show how much of each resource class of a resource '
                    'provider is allocated.',
        operations=[{'method': 'GET',
                     'path': '/resource_providers/{uuid}/usages'}]),
    # The target is the project asked about (the project_id query
    # parameter): an administrator or a service may ask about any
    # project, a reader or member only about their own.
    policy.DocumentedRuleDefault(
        name=TOTAL_USAGES,
        check_str=base.ADMIN_OR_PROJECT_READER_OR_SERVICE,
        scope_types=base.PROJECT_SCOPE,
        description="Show a project's (or a project user's) total usage "
                    "of each resource class.",
        operations=[{'method': 'GET', 'path': '/usages'}]),
]


def list_rules():
    return rules
