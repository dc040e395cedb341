"""Options of the conductor service."""

from oslo_config import cfg

conductor_group = cfg.OptGroup(
    'conductor',
    title='Conductor options',
    help='The conductor writes to the database on behalf of compute '
         'services.')

conductor_opts = [
    cfg.StrOpt('topic',
               default='zun-hostcap-conductor',
               help='RPC topic the conductor listens on. Every compute '
                    'service of a deployment must use the same value.'),
]


def register_opts(conf):
    conf.register_group(conductor_group)
    conf.register_opts(conductor_opts, group=conductor_group)


def list_opts():
    return {conductor_group: conductor_opts}
