"""zun-hostcap-conductor: writes to the database for compute services."""

import sys

from oslo_service import service

from zun_hostcap.common import service as zun_service
from zun_hostcap.conductor import manager
import zun_hostcap.conf

CONF = zun_hostcap.conf.CONF

BINARY = 'zun-hostcap-conductor'


def create_service():
    return zun_service.Service(BINARY, manager.ConductorManager(),
                               topic=CONF.conductor.topic)


def main(argv=None):
    zun_service.prepare_service(sys.argv if argv is None else argv)
    launcher = service.launch(CONF, create_service(),
                              restart_method='mutate')
    return launcher.wait()
