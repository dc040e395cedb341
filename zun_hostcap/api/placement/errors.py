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

"""Error documents of the Placement-compatible API.

Every error leaves ``/placement`` as Placement's document::

    {"errors": [{"status": 404, "title": "Not Found",
                 "detail": <explanation>\n\n <message>,
                 "request_id": "req-...",
                 "code": "placement.resource_provider.not_found"}]}

The detail is Placement's: the sentence explaining the status (webob's
``explanation``), a blank line, then the message on one line (its own
newlines become spaces). Clients show the last line of it: the message.
A client that takes HTML and not JSON gets the error as webob's HTML page,
one that takes neither as plain text, as from Placement
(``ErrorDocumentMiddleware``).

``code`` appears from microversion 1.23, as in Placement; errors that
have no code of their own carry ``placement.undefined_code``. Handlers
raise our exceptions (``zun_hostcap.common.exception.Placement*``), which
carry status and code, or ``error()`` for the rest.
"""

import functools
import string
import time

from oslo_log import log as logging
from oslo_policy import policy as oslo_policy
from oslo_serialization import jsonutils
import webob
import webob.exc

from zun_hostcap.api import errors as api_errors
from zun_hostcap.api import middleware
from zun_hostcap.api.placement import microversion
from zun_hostcap.common import exception
from zun_hostcap.common import placement_codes as codes
import zun_hostcap.conf
from zun_hostcap.db import api as db_api

CONF = zun_hostcap.conf.CONF
LOG = logging.getLogger(__name__)

# Where the negotiated version is kept in the WSGI environ.
VERSION_ENVIRON = 'placement.microversion'


def error(status, detail, code=codes.UNDEFINED, headers=None):
    """A webob exception that becomes our error document.

    ``raise errors.error(400, 'Invalid uuid')``.
    """
    cls = webob.exc.status_map[status]
    exc = cls(detail, comment=code, headers=headers)
    return exc


class Fault(object):
    """How a handler answers one exception of the model.

    :param status: the HTTP status.
    :param detail: a ``str.format`` template of ``message`` (the
        exception's message), the exception's keyword arguments and,
        where they do not say, the controller's attributes
        (``provider_uuid``, ``resource_class``: the URL's names); None
        for the exception's message.
    :param code: the error code (as ``error``'s, undefined unless
        given).
    """

    def __init__(self, status, detail=None, code=codes.UNDEFINED):
        self.status = status
        self.detail = detail
        self.code = code

    def error(self, exc=None, names=()):
        """The webob exception of ``exc``, raised in a handler of ``names``.

        Without ``exc``: a refusal of the handler's own.
        """
        if self.detail is None:
            detail = exc.message
        else:
            values = dict(names)
            if exc is not None:
                values.update(exc.kwargs, message=exc.message)
            detail = self.detail.format(**values)
        return error(self.status, detail, self.code)


# The faults several handlers answer in the same words.
PROVIDER_NOT_FOUND = Fault(
    404, 'No resource provider with uuid {provider_uuid} found')
# A generation the client sent that is not the provider's (PUT of its
# traits, or of its aggregates from 1.19).
GENERATION_CONFLICT = Fault(
    409, "Resource provider's generation already changed. Please update "
         "the generation and try again.", codes.CONCURRENT_UPDATE)
UPDATE_CONFLICT = Fault(409, 'Update conflict: {message}',
                        codes.CONCURRENT_UPDATE)
# An unknown class in a query's resources (lists and candidates).
INVALID_RESOURCE_CLASS = Fault(
    400, 'Invalid resource class in resources parameter: {message}')


def answers(faults):
    """A controller method whose exceptions ``faults`` names become errors.

    ``faults`` is {exception class, or a tuple of them: Fault}, tried in
    order as except clauses are; the exceptions it does not name keep
    their own status, message and code (``for_exception``).
    ``vars(controller)`` are the names a detail may use.
    """
    caught = tuple(cls for key in faults
                   for cls in (key if isinstance(key, tuple) else (key,)))

    def decorate(method):
        @functools.wraps(method)
        def handler(controller, req, *args, **kwargs):
            try:
                return method(controller, req, *args, **kwargs)
            except caught as exc:
                for key, fault in faults.items():
                    if isinstance(exc, key):
                        raise fault.error(exc, vars(controller))
                raise
        return handler
    return decorate


def _title(status):
    return webob.exc.status_map.get(status, webob.exc.HTTPError).title


class _NotAcceptable(webob.exc.HTTPNotAcceptable):
    """webob's 406, its parenthesis closed.

    webob's sentence, and so Placement's, leaves it open: "(content of
    type text/html. Only application/json ...".
    """

    body_template_obj = string.Template(
        'The resource could not be generated that was acceptable to your '
        'browser\n(content of type ${HTTP_ACCEPT}). <br /><br />\n'
        '${detail}')


def _webob_error(status, message, headers=None):
    if status == 406:
        return _NotAcceptable(detail=message or None, headers=headers)
    cls = webob.exc.status_map.get(status)
    if cls is None or not issubclass(cls, webob.exc.HTTPError):
        cls = (webob.exc.HTTPClientError if status < 500 else
               webob.exc.HTTPServerError)
    return cls(detail=message or None, headers=headers)


def _template_environ(environ):
    """What webob's templates of an error may name from the request.

    The 405's names the method, the 406's the Accept header (the one the
    client sent, which ``middleware.AcceptGuard`` set aside), the 415's
    the media type of the body (which ``middleware.BodyGuard`` set aside),
    as in Placement, where webob finds them in the request.
    """
    environ = environ or {}
    held = environ.get(middleware.RAW_BODY) or {}
    return {'REQUEST_METHOD': environ.get('REQUEST_METHOD', ''),
            'HTTP_ACCEPT': client_accept(environ) or '',
            'CONTENT_TYPE': (held.get('type') or
                             environ.get('CONTENT_TYPE') or '')}


def client_accept(environ):
    return environ.get(middleware.CLIENT_ACCEPT,
                       environ.get('HTTP_ACCEPT'))


def full_detail(status, message, environ=None):
    """Placement's detail: explanation, blank line, one-line message.

    The explanation is the status' sentence (webob's). As Placement
    makes it: webob renders the explanation and the message around an
    HTML line break, and its ``strip_tags`` turns that into the blank
    line and the message's own newlines into spaces.
    """
    body = _webob_error(status, message).plain_body(
        _template_environ(environ))
    # webob's plain text is the status line, a blank line, then that.
    return body.split('\n\n', 1)[1]


def _message_of(detail):
    """The message ``full_detail`` put after the explanation."""
    # The explanation is one line; webob's template ends the message
    # with two spaces (its line breaks, turned into spaces).
    rest = detail.partition('\n\n')[2] or detail
    if rest.startswith(' '):
        rest = rest[1:]
    return rest[:-2] if rest.endswith('  ') else rest


def document(status, detail, code=None, request_id=None, version=None,
             environ=None):
    """The error document; ``code`` shown only from 1.23.

    ``detail`` is the message alone; the document carries it in
    Placement's form (``full_detail``).
    """
    entry = {'status': status, 'title': _title(status),
             'detail': full_detail(status, detail, environ),
             'request_id': request_id or ''}
    if version is not None and version >= microversion.ERROR_CODES:
        entry['code'] = code or codes.UNDEFINED
    return {'errors': [entry]}


def response(status, detail, code=None, request_id=None, headers=None,
             version=None, environ=None):
    """A webob response carrying the error document.

    ``environ``, the request's, names what webob's explanations of a
    405 and a 406 mention.
    """
    resp = webob.Response(status=status, content_type='application/json',
                          charset='utf-8')
    for name, value in headers or ():
        if name.lower() not in ('content-type', 'content-length'):
            resp.headers.add(name, value)
    resp.text = jsonutils.dumps(
        document(status, detail, code, request_id, version, environ))
    return resp


def _media_type(environ):
    """The media type of an error for this client, as Placement chooses.

    JSON for a client that names no type or any (Placement sets such a
    request's Accept to JSON); otherwise webob's choice between HTML and
    JSON, and plain text for a client that takes neither.
    """
    accept = client_accept(environ)
    if not accept or accept == '*/*':
        return 'application/json'
    offers = webob.acceptparse.create_accept_header(
        accept).acceptable_offers(['text/html', 'application/json'])
    return offers[0][0] if offers else 'text/plain'


def _rendered_for_client(environ, status, headers, body):
    """(headers, body) of an error document, in the client's media type.

    An HTML or plain text client is answered as Placement answers it:
    webob's page of the error, with the same message.
    """
    media_type = _media_type(environ)
    if media_type == 'application/json':
        return headers, body
    try:
        message = _message_of(
            jsonutils.loads(body)['errors'][0]['detail'])
    except (ValueError, KeyError, IndexError, TypeError):
        return headers, body
    kept = [(name, value) for name, value in headers
            if name.lower() not in ('content-type', 'content-length')]
    exc = _webob_error(int(status[:3]), message)
    environ = _template_environ(environ)
    text = (exc.html_body(environ) if media_type == 'text/html' else
            exc.plain_body(environ))
    # (A message may quote a client's lone surrogate.)
    body = text.encode('utf-8', 'backslashreplace')
    kept += [('Content-Type', '%s; charset=UTF-8' % media_type),
             ('Content-Length', str(len(body)))]
    return kept, body


def _detail_for_status(req, status):
    """Our message for the errors of the middleware (webob's, oslo's)."""
    if status == 413:
        return ('The request body is larger than the %d bytes this API '
                'accepts ([placement] max_request_body_size).'
                % CONF.placement.max_request_body_size)
    return api_errors.detail_for_status(req, status)


def for_exception(req, exc):
    """The error response for what a handler raised while serving ``req``.

    Our exceptions carry status and code; an unreachable database is a
    503 logged in one line; the rest is a 500 whose traceback goes to the
    log only.
    """
    environ = req.environ
    request_id = environ.get('openstack.request_id')
    version = environ.get(VERSION_ENVIRON)
    if isinstance(exc, webob.exc.HTTPException):
        code = exc.comment if (exc.comment or '').startswith(
            'placement.') else codes.UNDEFINED
        detail = (exc.detail if exc.comment else
                  _detail_for_status(req, exc.code) or
                  exc.detail or exc.explanation)
        return response(exc.code, detail, code, request_id, exc.headerlist,
                        version, environ)
    if db_api.is_unreachable(exc):
        exc = exception.DatabaseUnavailable(reason=exception.one_line(exc))
    if isinstance(exc, exception.ZunHostcapException) and \
            400 <= exc.code < 600 and exc.code != 500:
        if exc.code >= 500:
            LOG.warning('%(method)s %(path)s: %(status)s %(message)s',
                        {'method': req.method,
                         'path': api_errors.safe_path(environ),
                         'status': exc.code,
                         'message': exc.kwargs.get('reason', exc.message)})
        return response(exc.code, exc.message,
                        getattr(exc, 'error_code', codes.UNDEFINED),
                        request_id, version=version, environ=environ)
    if isinstance(exc, (oslo_policy.PolicyNotAuthorized,
                        oslo_policy.InvalidScope)):
        return response(403, str(exc), codes.UNDEFINED, request_id,
                        version=version)
    LOG.exception('Unexpected error serving %(method)s %(path)s',
                  {'method': req.method,
                   'path': api_errors.safe_path(environ)})
    return response(500, 'The server hit an unexpected error; its log has '
                         'the details.', codes.UNDEFINED, request_id,
                    version=version)


class ErrorDocumentMiddleware(object):
    """Every error a Placement error document; one access line a request.

    Errors of handlers are documents already; this catches those of the
    middleware in between (authentication, body size, version) and any
    exception that escaped.
    """

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        started = time.monotonic()
        # The answer is held here and passed on once checked, without
        # webob objects on the way: the applications inside answer small
        # bodies, and most answers need no change.
        answer = []
        chunks = []

        def hold(status, headers, exc_info=None):
            answer[:] = [status, headers]
            return chunks.append
        try:
            body_iter = self.application(environ, hold)
            try:
                chunks.extend(body_iter)
            finally:
                close = getattr(body_iter, 'close', None)
                if close is not None:
                    close()
            status, headers = answer
            body = b''.join(chunks)
        except Exception as exc:
            resp = for_exception(webob.Request(environ), exc)
            status, headers, body = resp.status, resp.headerlist, resp.body
        status_int = int(status[:3])
        if status_int >= 400 and not api_errors.is_document(body):
            req = webob.Request(environ)
            detail = (_detail_for_status(req, status_int) or
                      api_errors._detail_of(body, status))
            resp = response(status_int, detail, codes.UNDEFINED,
                            environ.get('openstack.request_id'), headers,
                            environ.get(VERSION_ENVIRON), environ)
            status, headers, body = resp.status, resp.headerlist, resp.body
        if status_int >= 400:
            headers, body = _rendered_for_client(environ, status, headers,
                                                 body)
        length = next((value for name, value in headers
                       if name.lower() == 'content-length'), len(body))
        api_errors.ACCESS_LOG.info(
            '%(addr)s "%(method)s %(path)s" status: %(status)s len: '
            '%(length)s microversion: %(version)s time: %(time).4f',
            {'addr': environ.get('REMOTE_ADDR'),
             'method': environ.get('REQUEST_METHOD'),
             'path': api_errors.safe_path(environ),
             'status': status_int, 'length': length,
             'version': environ.get(VERSION_ENVIRON, '-'),
             'time': time.monotonic() - started})
        start_response(status, headers)
        return [body]


class MicroversionMiddleware(object):
    """Negotiates the version; names it on every response after it."""

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        try:
            version = microversion.version_from_environ(environ)
        except microversion.InvalidVersion as exc:
            resp = response(exc.status, exc.detail, codes.UNDEFINED,
                            environ.get('openstack.request_id'),
                            environ=environ)
            return resp(environ, start_response)
        environ[VERSION_ENVIRON] = version
        value = microversion.header_value(version)

        def start_with_version(status, headers, exc_info=None):
            headers.append((microversion.HEADER, value))
            headers.append(('Vary', microversion.HEADER))
            return start_response(status, headers, exc_info)
        return self.application(environ, start_with_version)
