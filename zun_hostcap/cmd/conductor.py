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

"""zun-hostcap-conductor: writes to the database for compute services."""

import sys

from zun_hostcap.common import config_check
from zun_hostcap.common import metrics
from zun_hostcap.conductor import manager
import zun_hostcap.conf
from zun_hostcap import service as zun_service

CONF = zun_hostcap.conf.CONF

BINARY = 'zun-hostcap-conductor'


def create_service():
    """The conductor's service.

    With [metrics] enabled it counts its RPC calls, for the /metrics of
    an API on the same host.

    :raises SystemExit: a metrics directory that cannot be written.
    """
    problem = None
    try:
        metrics.setup(CONF)
    except config_check.StartupError as err:
        problem = str(err)
    if problem:
        zun_service.startup_failure(BINARY, [problem])
    return zun_service.Service(BINARY, manager.ConductorManager(),
                               topic=CONF.conductor.topic)


# What --help says the command does; the defaults are filled in.
DESCRIPTION = (
    'Writes what the compute services report, over oslo.messaging RPC '
    '([DEFAULT] transport_url), into the database %(database)s '
    '([database] connection).')


def main(argv=None):
    zun_service.take_signals()
    zun_service.prepare_service(sys.argv if argv is None else argv,
                                description=DESCRIPTION)
    return zun_service.serve(create_service(), BINARY,
                             workers=CONF.conductor.workers)
