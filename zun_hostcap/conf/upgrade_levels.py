"""RPC version caps for rolling upgrades."""

from oslo_config import cfg

upgrade_group = cfg.OptGroup(
    'upgrade_levels',
    title='RPC version caps',
    help='During a rolling upgrade, cap the RPC API versions this service '
         'sends so that services of the previous release understand them. '
         'Remove the caps once every service runs the new release.')

upgrade_levels_opts = [
    cfg.StrOpt('conductor',
               help='Highest conductor RPC API version to send, such as '
                    '"1.0", or a release name known to this code. Unset '
                    'means the newest this code knows.'),
    cfg.StrOpt('compute',
               help='Highest compute RPC API version to send (claims), such '
                    'as "1.0", or a release name known to this code. Unset '
                    'means the newest this code knows.'),
]


def register_opts(conf):
    conf.register_group(upgrade_group)
    conf.register_opts(upgrade_levels_opts, group=upgrade_group)


def list_opts():
    return {upgrade_group: upgrade_levels_opts}
