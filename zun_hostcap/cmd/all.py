"""zun-hostcap-all: API, conductor and compute in one process.

Made for a laptop or a demo: with nothing configured it keeps a SQLite
file under [DEFAULT] state_path, carries RPC over oslo.messaging's
in-process fake:// transport, discovers this host at once and serves the
API on [api] host:port with noauth2. The compute side still talks to the
conductor only over RPC and may not use the database itself.
"""

import sys

from oslo_log import log as logging
from oslo_service import service
import sqlalchemy

from zun_hostcap.cmd import api
from zun_hostcap.cmd import compute
from zun_hostcap.cmd import conductor
from zun_hostcap.common import service as zun_service
import zun_hostcap.conf
from zun_hostcap.db import api as db_api
from zun_hostcap.db import migration
from zun_hostcap.objects import base as objects_base

CONF = zun_hostcap.conf.CONF
LOG = logging.getLogger(__name__)

BINARY = 'zun-hostcap-all'

# One process needs no broker; a real transport_url overrides this.
DEFAULT_TRANSPORT_URL = 'fake:/'
# A laptop has no keystone; [api] auth_strategy overrides this.
DEFAULT_AUTH_STRATEGY = 'noauth2'


class _DatabaseOwner(object):
    """Lets the API's requests use the database in this process.

    Like the conductor, and unlike the compute service that shares the
    process, the API reads the database itself (as nova-api does).
    """

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        with objects_base.conductor_scope():
            return self.application(environ, start_response)


class _AllInOne(service.ServiceBase):
    """Runs several services as one, in one process."""

    def __init__(self, services):
        self.services = services

    def start(self):
        for svc in self.services:
            svc.start()

    def stop(self, graceful=False):
        for svc in reversed(self.services):
            svc.stop(graceful)

    def wait(self):
        for svc in self.services:
            svc.wait()

    def reset(self):
        for svc in self.services:
            svc.reset()


def main(argv=None):
    zun_service.take_signals()
    CONF.set_default('transport_url', DEFAULT_TRANSPORT_URL)
    CONF.set_default('auth_strategy', DEFAULT_AUTH_STRATEGY, group='api')
    zun_service.prepare_service(sys.argv if argv is None else argv)
    # The embedded SQLite database is created or upgraded on start.
    problem = None
    try:
        migration.upgrade('head')
    except Exception as err:
        LOG.debug('Upgrade failed', exc_info=True)
        problem = 'cannot create or upgrade the database %s: %s' % (
            _shown(CONF.database.connection), err)
    if problem:
        zun_service.startup_failure(BINARY, [problem])
    LOG.info('Database %s is at revision %s',
             _shown(CONF.database.connection), migration.version())
    db_api.block_access(compute.BINARY)
    api_service = api.create_service()
    api_service.application = _DatabaseOwner(api_service.application)
    all_in_one = _AllInOne([conductor.create_service(),
                            compute.create_service(), api_service])
    return zun_service.serve(all_in_one, BINARY)


def _shown(connection):
    """The database URL without its password, for messages."""
    return sqlalchemy.engine.make_url(connection).render_as_string(
        hide_password=True)
