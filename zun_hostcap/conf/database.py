"""Our default for oslo.db's [database] connection."""

from oslo_config import cfg
from oslo_db import options as db_options

# oslo.config interpolates $state_path when the value is read, so the
# default database follows [DEFAULT] state_path.
DEFAULT_CONNECTION = 'sqlite:///$state_path/zun-hostcap.sqlite'


def register_opts(conf):
    # The option's own default, not a conf.set_default() override, so that
    # ConfigOpts.reset() keeps it.
    cfg.set_defaults(db_options.database_opts,
                     connection=DEFAULT_CONNECTION)
    conf.register_opts(db_options.database_opts, group='database')


def list_opts():
    # oslo.db publishes its options under the oslo.db namespace of the
    # config generator; set_lib_defaults() puts our default there.
    return {}
