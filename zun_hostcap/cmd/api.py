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

"""zun-hostcap-api: the REST API on a multi-threaded WSGI server."""

import ipaddress
import sys

from oslo_log import log as logging
from oslo_utils import netutils

from zun_hostcap.api import app
from zun_hostcap.api import auth
from zun_hostcap.api import metrics as metrics_api
from zun_hostcap.api import server
from zun_hostcap.common import config_check
from zun_hostcap.common import metrics
import zun_hostcap.conf
from zun_hostcap import service as zun_service

CONF = zun_hostcap.conf.CONF
LOG = logging.getLogger(__name__)

BINARY = 'zun-hostcap-api'

# Threads of the separate metrics listener: a scraper or two.
METRICS_THREADS = 2


def _listen(group, host, port):
    """A socket listening on ``host``:``port``, options of ``group``.

    :raises StartupError: the address cannot be listened on.
    """
    try:
        return server.bind(host, port)
    except OSError as exc:
        # [::1]:9518, not ::1:9518
        raise config_check.StartupError(
            'cannot listen on %s:%s: %s (set [%s] host and port)' % (
                netutils.escape_ipv6(host), port, exc.strerror, group))


def create_service(wrap=None):
    """The API server, its socket already listening on [api] host:port.

    With [metrics] enabled and a [metrics] port, a second server on
    [metrics] host:port serves /metrics; both are returned as one
    service.

    :param wrap: a middleware put around each server's application.
    :raises SystemExit: authentication that cannot work, a metrics
        directory that cannot be written, or an address that cannot be
        listened on; one line each.
    """
    warn_if_exposed_without_auth()
    wrap = wrap or (lambda application: application)
    problem = metrics_sock = None
    try:
        auth.check_configuration()
        separate_metrics = (metrics.setup(CONF) and
                            CONF.metrics.port is not None)
        sock = _listen('api', CONF.api.host, CONF.api.port)
        if separate_metrics:
            metrics_sock = _listen('metrics', CONF.metrics.host,
                                   CONF.metrics.port)
    except config_check.StartupError as err:
        problem = str(err)
    if problem:
        zun_service.startup_failure(BINARY, [problem])
    api = server.WSGIService(
        BINARY, wrap(app.setup_app(metrics_path=metrics_sock is None)),
        sock, CONF.api.threads)
    if metrics_sock is None:
        return api
    return zun_service.ServiceGroup([api, server.WSGIService(
        BINARY + ' metrics', wrap(metrics_api.StandaloneMetricsApp()),
        metrics_sock, METRICS_THREADS)])


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


# What --help says the command does; the defaults are filled in.
DESCRIPTION = (
    'The Zun-compatible hosts API (/v1) and the Placement-compatible '
    'API (/placement), served on %(api)s ([api] host and port), on the '
    'database %(database)s ([database] connection).')


def main(argv=None):
    zun_service.take_signals()
    zun_service.prepare_service(sys.argv if argv is None else argv,
                                description=DESCRIPTION)
    api = create_service()
    first = (api.services[0] if isinstance(api, zun_service.ServiceGroup)
             else api)
    LOG.info('%(binary)s listening on %(host)s:%(port)s, %(workers)d '
             'worker(s), auth_strategy %(auth)s',
             {'binary': BINARY, 'host': first.address[0],
              'port': first.address[1], 'workers': CONF.api.workers,
              'auth': CONF.api.auth_strategy})
    return zun_service.serve(api, BINARY, workers=CONF.api.workers)
