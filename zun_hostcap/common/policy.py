"""The policy enforcer of the API."""

import threading

from oslo_policy import policy

from zun_hostcap.common import policies
import zun_hostcap.conf

CONF = zun_hostcap.conf.CONF

_ENFORCER = None
_ENFORCER_LOCK = threading.Lock()


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
    global _ENFORCER
    with _ENFORCER_LOCK:
        _ENFORCER = None


def authorize(context, rule, target=None):
    """Raise ``PolicyNotAuthorized`` unless ``context`` may do ``rule``."""
    target = target or {'project_id': context.project_id,
                        'user_id': context.user_id}
    get_enforcer().authorize(rule, target, context, do_raise=True)


def check_is_admin(context):
    """Whether ``context`` is an administrator by the policy."""
    return get_enforcer().authorize('context_is_admin', {}, context)
