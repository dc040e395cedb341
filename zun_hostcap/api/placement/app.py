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

"""The WSGI application of the Placement-compatible API.

From the outside in (the part the whole API shares, request ids, CORS,
proxy headers and the healthcheck, is added by ``zun_hostcap.api.app``
or, alone, by ``setup_standalone_app``)::

    error documents      Placement's error document; one access line
    request sanity       non-UTF-8, empty or private path segments: 4xx
    sizelimit            refuse bodies over [placement]
                         max_request_body_size with 413
    authentication       keystonemiddleware or Placement's noauth2
    microversion         OpenStack-API-Version: placement X.Y (400/406)
    accept guard         notes a client that does not take JSON (406 on
                         the routes that refuse it)
    body guard           the body is read by the handler that takes one
    router               the route table (``routes.ROUTES``): context,
                         405/404, one controller method a request, one
                         controller module per resource
                         (api/controllers/placement/)

No pecan here: a route table is how Placement itself is written, and
pecan's object dispatch cost more than half of a small request.
"""

from oslo_middleware import cors
from oslo_middleware import healthcheck
from oslo_middleware import sizelimit
import webob

from zun_hostcap.api import metrics as metrics_api
from zun_hostcap.api import middleware
from zun_hostcap.api.placement import auth
from zun_hostcap.api.placement import errors
from zun_hostcap.api.placement import routes
from zun_hostcap.common import metrics
from zun_hostcap.common import placement_codes as codes
import zun_hostcap.conf

CONF = zun_hostcap.conf.CONF

# Where the combined API serves this one.
PREFIX = '/placement'


class RequestChecks(object):
    """Placement's checks of the body's headers, before any route.

    A Content-Length that is not a number, or a body without a
    Content-Type, is a 400.
    """

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        length = environ.get('CONTENT_LENGTH')
        detail = None
        if length:
            try:
                if int(length) > 0 and not environ.get('CONTENT_TYPE'):
                    detail = ('content-type header required when '
                              'content-length > 0')
            except ValueError:
                detail = 'content-length header must be an integer'
        if detail is not None:
            resp = errors.response(400, detail, codes.UNDEFINED,
                                   environ.get('openstack.request_id'),
                                   version=environ.get(
                                       errors.VERSION_ENVIRON))
            return resp(environ, start_response)
        return self.application(environ, start_response)


class BodySizeLimiter(sizelimit.RequestBodySizeLimiter):
    """oslo.middleware's limiter, at [placement] max_request_body_size.

    Placement's bodies (POST /allocations of many consumers, the
    reshaper's of a large tree) outgrow the limit the rest of the API
    keeps; a body over this one is still a 413.
    """

    def __call__(self, environ, start_response):
        length = environ.get('CONTENT_LENGTH')
        if length and not length.strip().isdigit():
            # Left for Placement's 400 (RequestChecks), which the limiter
            # would hide by dropping the header; no handler reads a body
            # of no length.
            return self.application(environ, start_response)
        # oslo.middleware's check, without the webob response its base
        # class makes of every answer (its 413 is still its own).
        req = webob.Request(environ)
        limit = self._conf_get('max_request_body_size')
        if req.content_length is not None and req.content_length > limit:
            return super().__call__(environ, start_response)
        if req.content_length is None:
            req.body_file = sizelimit.LimitingReader(req.body_file, limit)
        return self.application(environ, start_response)

    def _conf_get(self, key, group='oslo_middleware'):
        if key == 'max_request_body_size':
            return CONF.placement.max_request_body_size
        return super()._conf_get(key, group)


def _sanity_response(status, detail, code=None, request_id=None):
    return errors.response(status, detail, codes.UNDEFINED, request_id)


def setup_app():
    """The Placement API, to be mounted at ``PREFIX`` or served alone."""
    app = middleware.BodyGuard(routes.Router())
    app = middleware.AcceptGuard(app)
    app = RequestChecks(app)
    app = errors.MicroversionMiddleware(app)
    app = auth.wrap(app)
    app = BodySizeLimiter(app, CONF)
    app = middleware.RequestSanity(app, respond=_sanity_response,
                                   private_segments=False)
    return errors.ErrorDocumentMiddleware(app)


def setup_standalone_app():
    """The Placement API alone, at ``/``, as Placement runs behind uwsgi.

    With [metrics] enabled, /metrics too.

    :raises StartupError: [metrics] enabled, and its directory unusable.
    """
    counting = metrics.setup(CONF)
    app = setup_app()
    if CONF.cors.allowed_origin:
        # Without origins it would only turn every OPTIONS into a 200.
        app = cors.CORS(app, CONF)
    app = middleware.PathRoute(
        app, {'/healthcheck': healthcheck.Healthcheck(None, CONF)},
        exact=True)
    if counting:
        app = metrics_api.MetricsRoute(app)
    app = middleware.RequestLogContext(app)
    if counting:
        app = metrics_api.RequestMetrics(app)
    return middleware.server_facing(app, CONF)
