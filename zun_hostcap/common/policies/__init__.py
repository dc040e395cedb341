"""Policy rules in code, one module per API resource."""

import itertools

from zun_hostcap.common.policies import base
from zun_hostcap.common.policies import host
from zun_hostcap.common.policies import placement
from zun_hostcap.common.policies import service


def list_rules():
    """Every rule and its default; also the oslo.policy entry point."""
    return list(itertools.chain(base.list_rules(), host.list_rules(),
                                service.list_rules(),
                                placement.list_rules()))
