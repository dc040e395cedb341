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
               default='auto',
               help='What compute services send the conductors: a release '
                    'name known to this code (such as "2026.2": its '
                    'conductor RPC API version and object versions), a '
                    'conductor RPC API version such as "1.0", or "auto": '
                    'the oldest release among the conductors that are up, '
                    'read from the versions they record, at start and '
                    'again every [DEFAULT] service_down_time seconds while '
                    'an older release runs. Empty means the newest this '
                    'code knows. With "auto" a compute service of this '
                    'release works with conductors of the previous one, '
                    'whichever is upgraded first.'),
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
