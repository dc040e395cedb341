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

"""Configuration options of zun-hostcap, one module per group."""

from oslo_config import cfg
import oslo_messaging as messaging
from oslo_messaging import opts as messaging_opts

from zun_hostcap.conf import api
from zun_hostcap.conf import compute
from zun_hostcap.conf import conductor
from zun_hostcap.conf import database
from zun_hostcap.conf import docker
from zun_hostcap.conf import metrics
from zun_hostcap.conf import notifications
from zun_hostcap.conf import pci
from zun_hostcap.conf import placement
from zun_hostcap.conf import service
from zun_hostcap.conf import upgrade_levels

CONF = cfg.CONF

api.register_opts(CONF)
compute.register_opts(CONF)
conductor.register_opts(CONF)
database.register_opts(CONF)
docker.register_opts(CONF)
metrics.register_opts(CONF)
notifications.register_opts(CONF)
pci.register_opts(CONF)
placement.register_opts(CONF)
service.register_opts(CONF)
upgrade_levels.register_opts(CONF)

# oslo.messaging registers its options (transport_url, the notification
# driver...) only when the first transport is made; services check them at
# start and tests set them before that. list_opts() hands out copies,
# which must equal oslo.messaging's own options when it registers those
# later, so its defaults are set first.
messaging.set_transport_defaults(control_exchange='zun-hostcap')
for _group, _opts in messaging_opts.list_opts():  # None is [DEFAULT]
    CONF.register_opts(_opts, group=_group)
