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

"""zun-hostcap-compute: discovers this host and reports it.

It never opens the database: its objects go to the conductor over RPC and
any direct database call raises.
"""

import sys

from zun_hostcap.compute import manager
import zun_hostcap.conf
from zun_hostcap.db import api as db_api
from zun_hostcap import service as zun_service

CONF = zun_hostcap.conf.CONF

BINARY = 'zun-hostcap-compute'


def create_service(conductor_api=None):
    """The compute service.

    :param conductor_api: its conductor client; by default one over RPC.
    """
    return zun_service.Service(BINARY, manager.ComputeManager(),
                               topic=CONF.compute.topic,
                               use_conductor=True,
                               conductor_api=conductor_api)


# What --help says the command does; the defaults are filled in.
DESCRIPTION = (
    "Discovers this host's CPUs, NUMA topology, memory, disks, PCI "
    'devices and containers, and reports them through the conductor '
    '([DEFAULT] transport_url) and to a Placement API; it never opens '
    'the database.')


def main(argv=None):
    zun_service.take_signals()
    zun_service.prepare_service(sys.argv if argv is None else argv,
                                uses_database=False,
                                description=DESCRIPTION)
    db_api.block_access(BINARY)
    return zun_service.serve(create_service(), BINARY)
