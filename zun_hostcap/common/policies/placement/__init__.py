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

"""Placement's policy rules, under Placement's names and defaults.

An operator's Placement policy file works unchanged against /placement:
the rule names, check strings, scope types and deprecated (pre-Wallaby,
admin-only) defaults are Placement's.
"""

import itertools

from zun_hostcap.common.policies.placement import aggregate
from zun_hostcap.common.policies.placement import allocation
from zun_hostcap.common.policies.placement import allocation_candidate
from zun_hostcap.common.policies.placement import base
from zun_hostcap.common.policies.placement import inventory
from zun_hostcap.common.policies.placement import reshaper
from zun_hostcap.common.policies.placement import resource_class
from zun_hostcap.common.policies.placement import resource_provider
from zun_hostcap.common.policies.placement import trait
from zun_hostcap.common.policies.placement import usage


def list_rules():
    return list(itertools.chain(
        base.list_rules(),
        resource_provider.list_rules(),
        resource_class.list_rules(),
        inventory.list_rules(),
        aggregate.list_rules(),
        usage.list_rules(),
        trait.list_rules(),
        allocation.list_rules(),
        allocation_candidate.list_rules(),
        reshaper.list_rules(),
    ))
