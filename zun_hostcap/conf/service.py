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

"""Options every zun-hostcap service reads from [DEFAULT]."""

import os
import socket

from oslo_config import cfg


def _default_state_path():
    # root gets the FHS location; anyone else a per-user directory, so the
    # README's run command works without privileges.
    if os.geteuid() == 0:
        return '/var/lib/zun-hostcap'
    return os.path.join(os.path.expanduser('~'), '.local', 'share',
                        'zun-hostcap')


service_opts = [
    cfg.StrOpt('host',
               default=socket.gethostname(),
               sample_default='<current_hostname>',
               help='Name of this host as other services and the API see '
                    'it. The compute service records its capabilities '
                    'under this name; it must be unique in the '
                    'deployment.'),
    cfg.StrOpt('state_path',
               default=_default_state_path(),
               sample_default='/var/lib/zun-hostcap',
               help='Directory where zun-hostcap keeps its state, such as '
                    'the default SQLite database. Created on start if '
                    'missing.'),
    cfg.IntOpt('report_interval',
               default=10,
               min=1,
               help='Seconds between two heartbeats of a service in the '
                    'services table. Lower it to notice a dead service '
                    'sooner, at the price of one database write per '
                    'interval and service.'),
    cfg.IntOpt('service_down_time',
               default=60,
               min=1,
               help='Seconds without a heartbeat after which a service is '
                    'considered down. Keep it well above '
                    'report_interval.'),
]


def register_opts(conf):
    conf.register_opts(service_opts)


def list_opts():
    return {'DEFAULT': service_opts}
