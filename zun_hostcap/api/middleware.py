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

"""Middleware of our own between oslo.middleware's and pecan.

- ``RequestLogContext``: every log line of a request, from the first,
  names that request's id (and its user once authenticated), never the
  id of an earlier request served by the same thread.
- ``RequestSanity``: a path or query that cannot name anything of ours
  (bytes that are not UTF-8, an empty segment, a segment naming a Python
  attribute) is answered here, before routing.
- ``BodyGuard``: the request body is hidden from pecan, which would
  otherwise decode form and JSON bodies of any route before routing; a
  route that takes a body reads it with ``zun_hostcap.api.body``.
- ``AcceptGuard``: an Accept header that does not take JSON is set aside
  and noted, for the route to refuse (406) once it is known to exist.
- ``PathRoute``: a path (the healthcheck) or a prefix (/placement) sent
  to an application of its own.
- ``RequestId`` and ``ProxyHeaders``: oslo.middleware's request id and
  proxy headers, called as plain WSGI applications.
- ``LargeBodyAsFile``: a large body handed to the WSGI server as a file
  (``wsgi.file_wrapper``), which it sends without copying it first.
- ``server_facing``: the request id, the proxy headers and the large
  body, in their order, around either API.
"""

import io
from urllib import parse

from oslo_context import context as oslo_context
from oslo_log import log as logging
from oslo_middleware import http_proxy_to_wsgi
from oslo_middleware import request_id
import webob

from zun_hostcap.api import errors
from zun_hostcap.common import context

LOG = logging.getLogger(__name__)

# Where BodyGuard keeps what it took away from the request.
RAW_BODY = 'zun_hostcap.raw_body'


class RequestLogContext(object):
    """Installs a context carrying only the request id, for logging.

    oslo.log takes the context of a log line from the calling thread.
    The pecan hook installs the full one once the request reached pecan;
    until then (401, 404, 405, 413, an early 500) and after it, this one
    is what the thread carries.
    """

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        # overwrite=True makes it the thread's current context.
        context.RequestContext(
            request_id=environ.get('openstack.request_id'),
            overwrite=True)
        return self.application(environ, start_response)


def _utf8(latin1_text):
    """``latin1_text`` (a PEP 3333 str) as UTF-8 text; None if it isn't."""
    try:
        return latin1_text.encode('latin-1').decode('utf-8')
    except (UnicodeEncodeError, UnicodeDecodeError):
        return None


class RequestSanity(object):
    """Answers requests whose path or query cannot be routed safely.

    ``respond(status, detail, code, request_id)`` builds the error
    response: Zun's document by default, Placement's under /placement.
    ``private_segments``: a segment starting with an underscore is a 404,
    as pecan would look it up as an attribute. Placement's router takes
    any segment as a name (a consumer may be called ``_x``), so its stack
    passes False.
    """

    def __init__(self, application, respond=errors.response,
                 private_segments=True):
        self.application = application
        self.respond = respond
        self.private_segments = private_segments

    def __call__(self, environ, start_response):
        resp = self._refusal(environ, self.respond, self.private_segments)
        if resp is not None:
            return resp(environ, start_response)
        return self.application(environ, start_response)

    @staticmethod
    def _refusal(environ, respond, private_segments):
        request_id = environ.get('openstack.request_id')
        path = environ.get('PATH_INFO', '')
        # (U+FFFD: bytes the transport could not decode; left to fail.)
        if not path.isascii() and '\ufffd' not in path:
            try:
                path.encode('latin-1')
            except UnicodeEncodeError:
                # Text already decoded, not PEP 3333's latin-1 string, as
                # some in-process test transports hand it over: made
                # what a server would have passed.
                environ['PATH_INFO'] = path.encode('utf-8').decode(
                    'latin-1')
        path = _utf8(environ.get('PATH_INFO', ''))
        if path is None:
            return respond(
                400, 'The request path is not valid UTF-8.',
                errors.BAD_REQUEST, request_id)
        query = _utf8(environ.get('QUERY_STRING', ''))
        if query is not None:
            try:
                parse.parse_qsl(query, keep_blank_values=True,
                                errors='strict')
            except UnicodeDecodeError:
                query = None
        if query is None:
            return respond(
                400, 'The query string is not valid UTF-8, percent-encoded '
                     'or not.', errors.BAD_REQUEST, request_id)
        segments = path.split('/')[1:]
        # A trailing slash names the collection ("/v1/hosts/"); an empty
        # segment anywhere else names nothing.
        if '' in segments[:-1]:
            return respond(
                400, 'The request path %s has an empty segment.' % path,
                errors.BAD_REQUEST, request_id)
        # pecan looks segments up as attributes of its controllers; none
        # of ours, and no host name, starts with an underscore.
        if private_segments and any(segment.startswith('_')
                                    for segment in segments):
            return respond(
                404, 'The resource could not be found.', errors.NOT_FOUND,
                request_id)
        return None


# Where AcceptGuard notes the Accept header of a client that does not take
# JSON.
NOT_ACCEPTABLE = 'zun_hostcap.not_acceptable'
# Where AcceptGuard keeps the Accept header it took away, for the error
# documents (Placement answers an HTML client's error in HTML).
CLIENT_ACCEPT = 'zun_hostcap.client_accept'


class AcceptGuard(object):
    """Notes a client that does not take JSON, and hides its Accept.

    Every document of this API is JSON. Routing still runs first, so an
    unknown path stays a 404; the route found refuses the client (406):
    pecan's hook, or the Placement router. pecan, left to refuse it
    itself, would log an ERROR line for a client's mistake.
    """

    # What clients send nearly always, known to take JSON.
    TAKES_JSON = frozenset(['application/json', '*/*'])

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        accept = environ.pop('HTTP_ACCEPT', None)
        if accept is not None:
            environ[CLIENT_ACCEPT] = accept
        if accept and accept not in self.TAKES_JSON and \
                webob.acceptparse.create_accept_header(
                    accept).best_match(['application/json']) is None:
            environ[NOT_ACCEPTABLE] = accept
        return self.application(environ, start_response)


class BodyGuard(object):
    """Keeps the request body away from pecan's parameter decoding."""

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        environ[RAW_BODY] = {
            'input': environ.get('wsgi.input'),
            'length': environ.pop('CONTENT_LENGTH', None),
            'type': environ.pop('CONTENT_TYPE', None),
        }
        environ['wsgi.input'] = io.BytesIO(b'')
        environ['CONTENT_LENGTH'] = '0'
        return self.application(environ, start_response)


def raw_body(request):
    """(content type, file, length) of the body BodyGuard set aside."""
    held = request.environ[RAW_BODY]
    try:
        length = int(held['length'] or 0)
    except ValueError:
        length = 0
    return held['type'], held['input'], length


class PathRoute(object):
    """Sends requests for a path, or under a prefix, to another application.

    ``routes`` is {path or prefix: application}. With ``exact`` only the
    path itself is routed (and left as it is); otherwise the prefix
    moves from PATH_INFO to SCRIPT_NAME, as a WSGI mount does, so that
    links the mounted application builds keep it.

    With ``methods`` (a tuple, exact routes), another method on the path
    goes to ``other_methods``, an application that refuses it.
    """

    def __init__(self, application, routes, exact=False, methods=None,
                 other_methods=None):
        self.application = application
        self.routes = routes
        self.exact = exact
        self.methods = methods
        self.other_methods = other_methods

    def __call__(self, environ, start_response):
        path = environ.get('PATH_INFO', '')
        for prefix, target in self.routes.items():
            if path == prefix or (not self.exact and
                                  path.startswith(prefix + '/')):
                if (self.methods is not None and
                        environ.get('REQUEST_METHOD') not in self.methods):
                    return self.other_methods(environ, start_response)
                if not self.exact:
                    script = environ.get('SCRIPT_NAME', '')
                    # Some test transports (gabbi's with a prefix) name
                    # the prefix in SCRIPT_NAME and PATH_INFO both.
                    if not script.endswith(prefix):
                        environ['SCRIPT_NAME'] = script + prefix
                    environ['PATH_INFO'] = path[len(prefix):]
                return target(environ, start_response)
        return self.application(environ, start_response)


# oslo.middleware's base class makes a webob request and a webob response
# of every request and response, and inspects ``process_response``'s
# arguments at every request: about 35 microseconds a request each for
# these two. They do their work on the environ and the headers alone, so
# ours call their request side and leave the response as it is.

_REQUEST_ID_HEADER = request_id.HTTP_RESP_HEADER_REQUEST_ID.lower()


def _without_body(environ, body):
    """No body for a HEAD request, as webob's response gave none."""
    if environ.get('REQUEST_METHOD') != 'HEAD':
        return body
    try:
        for _chunk in body:
            pass
    finally:
        close = getattr(body, 'close', None)
        if close is not None:
            close()
    return []


class RequestId(request_id.RequestId):
    """oslo.middleware's request id, as a plain WSGI application.

    The same id in the environ (``openstack.request_id``), the same
    global request id taken from a valid inbound header, and the id on
    every response that does not name one already.
    """

    def __call__(self, environ, start_response):
        self.set_global_req_id(webob.Request(environ))
        req_id = oslo_context.generate_request_id()
        environ[request_id.ENV_REQUEST_ID] = req_id

        def start_with_id(status, headers, exc_info=None):
            if not any(name.lower() == _REQUEST_ID_HEADER
                       for name, _value in headers):
                headers.append((request_id.HTTP_RESP_HEADER_REQUEST_ID,
                                req_id))
            return start_response(status, headers, exc_info)
        return _without_body(environ,
                             self.application(environ, start_with_id))


class ProxyHeaders(http_proxy_to_wsgi.HTTPProxyToWSGI):
    """oslo.middleware's proxy headers, as a plain WSGI application.

    With ``[oslo_middleware] enable_proxy_headers_parsing`` the
    environ is set from X-Forwarded-* or Forwarded as oslo.middleware
    sets it; its ``process_request`` never answers by itself.
    """

    def __call__(self, environ, start_response):
        self.process_request(webob.Request(environ))
        return _without_body(environ,
                             self.application(environ, start_response))


# waitress copies a body given as bytes into buffers of its own before
# sending it (into a temporary file once it is over 1 MiB); a body given
# as a file it reads where it is. Served by waitress on a quiet machine,
# a 2.6 MB answer took 3.8 to 4.4 ms to arrive as bytes and 1.0 to 1.5
# ms as a file; up to about 700 kB the two were the same.
LARGE_BODY = 256 * 1024


class LargeBodyAsFile(object):
    """A large body of one piece handed over through ``wsgi.file_wrapper``.

    PEP 3333's file wrapper, where the server offers one: a server that
    has no better way to send a file iterates over it, and gets the whole
    body as one piece, as before. The bytes sent are the same. Only an
    answer already held whole in memory (a list of one bytes object) is
    wrapped; a streamed one is left as it is. It must be the outermost
    application: the server recognises its own wrapper only.
    """

    def __init__(self, application, least=LARGE_BODY):
        self.application = application
        self.least = least

    def __call__(self, environ, start_response):
        body = self.application(environ, start_response)
        file_wrapper = environ.get('wsgi.file_wrapper')
        if (file_wrapper is None or type(body) is not list
                or len(body) != 1):
            return body
        content = body[0]
        if type(content) is not bytes or len(content) < self.least:
            return body
        return file_wrapper(io.BytesIO(content), len(content))


def server_facing(application, conf):
    """The layers nearest the server, the same for both APIs.

    From the outside in: a large body as a file (outermost, where the
    server recognises its wrapper), proxy headers, the request id.
    """
    return LargeBodyAsFile(ProxyHeaders(RequestId(application), conf))
