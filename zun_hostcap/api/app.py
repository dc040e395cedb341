"""The WSGI application: pecan behind oslo.middleware and authentication.

From the outside in::

    http_proxy_to_wsgi   honour X-Forwarded-* from a trusted proxy
    request_id           x-openstack-request-id on every response
    /healthcheck         oslo.middleware's healthcheck app, no auth
    cors                 browsers on the allowed origins
    error documents      every error a JSON document; one log line each
    sizelimit            refuse oversized bodies with 413
    authentication       keystonemiddleware or noauth2; / and /v1 public
    pecan                hooks (errors, version, context) and controllers
"""

from oslo_middleware import cors
from oslo_middleware import healthcheck
from oslo_middleware import http_proxy_to_wsgi
from oslo_middleware import request_id
from oslo_middleware import sizelimit
import pecan

from zun_hostcap.api import auth
from zun_hostcap.api.controllers import root
from zun_hostcap.api import errors
from zun_hostcap.api import hooks
import zun_hostcap.conf

CONF = zun_hostcap.conf.CONF


HEALTHCHECK_PATH = '/healthcheck'


class _HealthcheckRoute(object):
    """Sends /healthcheck to the healthcheck app, the rest to the API."""

    def __init__(self, application, healthcheck_app):
        self.application = application
        self.healthcheck_app = healthcheck_app

    def __call__(self, environ, start_response):
        if environ.get('PATH_INFO') == HEALTHCHECK_PATH:
            return self.healthcheck_app(environ, start_response)
        return self.application(environ, start_response)


def setup_pecan_app():
    """The bare pecan application, without middleware."""
    return pecan.make_app(
        root.RootController(),
        hooks=[hooks.ErrorHook(), hooks.MicroversionHook(),
               hooks.ContextHook()],
        # Hostnames have dots: "/v1/hosts/node1.example.com" is no JSON
        # request for "node1.example".
        guess_content_type_from_ext=False,
        force_canonical=False,
        debug=False)


def setup_app():
    """The full WSGI application, configured from ``CONF``."""
    app = setup_pecan_app()
    app = auth.wrap(app)
    app = sizelimit.RequestBodySizeLimiter(app, CONF)
    app = errors.ErrorDocumentMiddleware(app)
    app = cors.CORS(app, CONF)
    app = _HealthcheckRoute(app, healthcheck.Healthcheck(None, CONF))
    app = request_id.RequestId(app)
    return http_proxy_to_wsgi.HTTPProxyToWSGI(app, CONF)
