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

"""The policy enforcer of the API.

oslo.policy looks for the policy file and evaluates the rule's checks at
every call, about a quarter of a millisecond, often more than the rest of
a small request. A check that allowed is therefore remembered for
``DECISION_TTL`` seconds, keyed by everything the decision depends on
(rule, target, the credentials' policy values); refusals are not
remembered. Edits of the policy file apply within that second, and at
once on SIGHUP (``reset``).
"""

import threading
import time

from oslo_policy import policy

from zun_hostcap.common import policies
import zun_hostcap.conf

CONF = zun_hostcap.conf.CONF

_ENFORCER = None
_ENFORCER_LOCK = threading.Lock()

# Seconds an allowed decision is reused; also how soon an edited policy
# file is seen.
DECISION_TTL = 1.0
# Distinct decisions remembered at most; past it the memory starts again.
MAX_DECISIONS = 10000


class _Decisions(object):
    """The allowed decisions of one enforcer, forgotten all at once."""

    def __init__(self):
        self.allowed = set()
        self.expires = 0.0

    def seen(self, key):
        if time.monotonic() >= self.expires:
            # A fresh set rather than clear(): other threads may be
            # reading the old one.
            self.allowed = set()
            self.expires = time.monotonic() + DECISION_TTL
            return False
        return key in self.allowed

    def remember(self, key):
        allowed = self.allowed
        if len(allowed) >= MAX_DECISIONS:
            self.allowed = allowed = set()
        allowed.add(key)


_DECISIONS = _Decisions()


def _frozen(value):
    if isinstance(value, (list, tuple)):
        return tuple(value)
    if isinstance(value, dict):
        return tuple(sorted((k, _frozen(v)) for k, v in value.items()))
    return value


def _decision_key(rule, target, context):
    """What the decision depends on, hashable; None if it cannot be."""
    try:
        key = (rule, _frozen(target), _frozen(dict(
            context.to_policy_values())))
        hash(key)
    except TypeError:
        return None
    return key


def get_enforcer():
    """The process' enforcer, with our rules registered.

    Also the ``oslo.policy.enforcer`` entry point, which the oslopolicy
    tools call with the configuration already parsed.
    """
    global _ENFORCER
    with _ENFORCER_LOCK:
        if _ENFORCER is None:
            enforcer = policy.Enforcer(CONF)
            # Placement's deprecated defaults would each warn at load.
            enforcer.suppress_default_change_warnings = True
            enforcer.register_defaults(policies.list_rules())
            _ENFORCER = enforcer
        return _ENFORCER


def reset():
    """Forget the enforcer: the next request makes one from the files.

    SIGHUP calls it while other threads may still be authorizing with the
    old enforcer, so that one is left as it is (clearing its rules under
    them would refuse their requests), not cleared.
    """
    global _ENFORCER, _DECISIONS
    with _ENFORCER_LOCK:
        _ENFORCER = None
        _DECISIONS = _Decisions()


def authorize(context, rule, target=None):
    """Raise ``PolicyNotAuthorized`` unless ``context`` may do ``rule``."""
    target = target or {'project_id': context.project_id,
                        'user_id': context.user_id}
    decisions = _DECISIONS
    key = _decision_key(rule, target, context)
    if key is not None and decisions.seen(key):
        return
    get_enforcer().authorize(rule, target, context, do_raise=True)
    if key is not None:
        decisions.remember(key)


def check_is_admin(context):
    """Whether ``context`` is an administrator by the policy.

    Asked at every API request: an allowed decision is remembered as
    ``authorize`` remembers it.
    """
    try:
        authorize(context, 'context_is_admin')
    except policy.PolicyNotAuthorized:
        return False
    return True
