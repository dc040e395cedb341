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

"""The WSGI application: pecan behind oslo.middleware and authentication.

From the outside in::

    http_proxy_to_wsgi   honour X-Forwarded-* from a trusted proxy
    request_id           x-openstack-request-id on every response
    log context          every log line of the request names its id
    request metrics      requests counted by route, method and status
                         (with [metrics] enabled)
    /healthcheck         oslo.middleware's healthcheck app (with the
                         database plugin), no auth
    /metrics             Prometheus' text format, no auth (with [metrics]
                         enabled, unless a listener of its own serves it);
                         else a 404 that says where it is or how to turn
                         it on
    cors                 browsers on the allowed origins
    /placement           the Placement-compatible API, its own stack
                         (zun_hostcap.api.placement.app)
    error documents      every error a JSON document; the access line
    request sanity       non-UTF-8, empty or private path segments: 4xx
    sizelimit            refuse oversized bodies with 413
    authentication       keystonemiddleware or noauth2; / and /v1 public
    GET /                the version document, without pecan
    accept guard         a client that does not take JSON: 406 once
                         routed (hooks.AcceptHook)
    body guard           pecan never decodes a body
    pecan                hooks (errors, version, context) and controllers
"""

from oslo_middleware import cors
from oslo_middleware import healthcheck
from oslo_middleware import sizelimit
import pecan
import webob

from zun_hostcap.api import auth
from zun_hostcap.api.controllers import root
from zun_hostcap.api import errors
from zun_hostcap.api import hooks
from zun_hostcap.api import metrics as metrics_api
from zun_hostcap.api import middleware
from zun_hostcap.api.placement import app as placement_app
from zun_hostcap.common import metrics
import zun_hostcap.conf

CONF = zun_hostcap.conf.CONF


HEALTHCHECK_PATH = '/healthcheck'


def _healthcheck_method_not_allowed(environ, start_response):
    """The 405 document of a method /healthcheck does not take."""
    resp = errors.response(
        405, errors.detail_for_status(webob.Request(environ), 405),
        errors.code_for_status(405), environ.get('openstack.request_id'),
        headers=[('Allow', 'GET, HEAD')])
    return resp(environ, start_response)


def setup_pecan_app():
    """The pecan application, with the body guard and GET / before it."""
    return root.VersionDocumentRoute(middleware.AcceptGuard(
        middleware.BodyGuard(pecan.make_app(
            root.RootController(),
            hooks=[hooks.ErrorHook(), hooks.AcceptHook(),
                   hooks.MicroversionHook(), hooks.ContextHook()],
            # Hostnames have dots: "/v1/hosts/node1.example.com" is no
            # JSON request for "node1.example".
            guess_content_type_from_ext=False,
            force_canonical=False,
            debug=False))))


def setup_app(metrics_path=True):
    """The full WSGI application, configured from ``CONF``.

    :param metrics_path: with [metrics] enabled, serve /metrics; False
        when a listener of its own serves it (zun-hostcap-api with a
        [metrics] port).
    :raises StartupError: [metrics] enabled, and its directory unusable.
    """
    counting = metrics.setup(CONF)
    app = setup_pecan_app()
    app = auth.wrap(app)
    app = sizelimit.RequestBodySizeLimiter(app, CONF)
    app = middleware.RequestSanity(app)
    app = errors.ErrorDocumentMiddleware(app)
    # The Placement API has its own authentication, versions and errors.
    app = middleware.PathRoute(
        app, {placement_app.PREFIX: placement_app.setup_app()})
    if CONF.cors.allowed_origin:
        # Without origins it would only turn every OPTIONS into a 200.
        app = cors.CORS(app, CONF)
    app = middleware.PathRoute(
        app, {HEALTHCHECK_PATH: healthcheck.Healthcheck(None, CONF)},
        exact=True, methods=('GET', 'HEAD'),
        other_methods=_healthcheck_method_not_allowed)
    if counting and metrics_path:
        app = metrics_api.MetricsRoute(app)
    else:
        app = metrics_api.MetricsNotHereRoute(
            app, metrics_api.not_here_detail(CONF))
    app = middleware.RequestLogContext(app)
    if counting:
        app = metrics_api.RequestMetrics(app,
                                         placement_prefix=placement_app.PREFIX)
    return middleware.server_facing(app, CONF)
