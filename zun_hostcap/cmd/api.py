"""zun-hostcap-api: the REST API on a multi-threaded WSGI server."""

import ipaddress
import sys

from oslo_log import log as logging
from oslo_utils import netutils

from zun_hostcap.api import app
from zun_hostcap.api import auth
from zun_hostcap.api import server
from zun_hostcap.common import config_check
from zun_hostcap.common import service as zun_service
import zun_hostcap.conf

CONF = zun_hostcap.conf.CONF
LOG = logging.getLogger(__name__)

BINARY = 'zun-hostcap-api'


def create_service():
    """The API server, its socket already listening on [api] host:port.

    :raises SystemExit: authentication that cannot work, or an address
        that cannot be listened on; one line each.
    """
    warn_if_exposed_without_auth()
    problem = None
    try:
        auth.check_configuration()
        sock = server.bind(CONF.api.host, CONF.api.port)
    except config_check.StartupError as err:
        problem = str(err)
    except OSError as exc:
        # [::1]:9518, not ::1:9518
        problem = 'cannot listen on %s:%s: %s (set [api] host and port)' % (
            netutils.escape_ipv6(CONF.api.host), CONF.api.port,
            exc.strerror)
    if problem:
        zun_service.startup_failure(BINARY, [problem])
    return server.WSGIService(BINARY, app.setup_app(), sock,
                              CONF.api.threads)


def _is_loopback(host):
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == 'localhost'


def warn_if_exposed_without_auth():
    """noauth2 believes anyone who says "admin"; say so if others can."""
    if (CONF.api.auth_strategy == 'noauth2' and
            not _is_loopback(CONF.api.host)):
        LOG.warning('[api] auth_strategy is noauth2 and the API listens on '
                    '%s: anyone who reaches it is an administrator with '
                    'the token "admin". Use auth_strategy = keystone or '
                    'listen on 127.0.0.1.', CONF.api.host)


def main(argv=None):
    zun_service.take_signals()
    zun_service.prepare_service(sys.argv if argv is None else argv)
    api = create_service()
    LOG.info('%(binary)s listening on %(host)s:%(port)s, %(workers)d '
             'worker(s), auth_strategy %(auth)s',
             {'binary': BINARY, 'host': api.address[0],
              'port': api.address[1], 'workers': CONF.api.workers,
              'auth': CONF.api.auth_strategy})
    return zun_service.serve(api, BINARY, workers=CONF.api.workers)
