"""Entry points for oslo-config-generator."""

from oslo_config import cfg
from oslo_db import options as db_options

from zun_hostcap.conf import api
from zun_hostcap.conf import compute
from zun_hostcap.conf import conductor
from zun_hostcap.conf import database
from zun_hostcap.conf import notifications
from zun_hostcap.conf import service
from zun_hostcap.conf import upgrade_levels

_MODULES = (service, api, compute, conductor, database, notifications,
            upgrade_levels)


def list_opts():
    """Return [(group, [opts])] for every option zun-hostcap defines."""
    merged = {}
    for module in _MODULES:
        for group, opts in module.list_opts().items():
            merged.setdefault(group, []).extend(opts)
    return [(group, opts) for group, opts in merged.items()]


def set_lib_defaults():
    """Our defaults for options that libraries own, for the generator."""
    cfg.set_defaults(db_options.database_opts,
                     connection=database.DEFAULT_CONNECTION)
    api.set_middleware_defaults()
