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

"""Error documents in Zun's format, built in one place.

Every error leaves the API as::

    {"errors": [{"request_id": ..., "code": "container.<name>",
                 "status": <int>, "title": <first sentence of detail>,
                 "detail": <message>,
                 "links": []}]}

Handlers raise webob HTTP exceptions with an error code from this module
as ``comment``, or our own exceptions, which carry their status; the pecan
hook and the middleware below turn both into the document.
"""

import re
import time

from oslo_log import log as logging
from oslo_policy import policy as oslo_policy
from oslo_serialization import jsonutils
import webob
import webob.exc

from zun_hostcap.common import exception
import zun_hostcap.conf

CONF = zun_hostcap.conf.CONF
LOG = logging.getLogger(__name__)
# One line per request, apart from the errors' own log lines, so that an
# operator can route or silence it on its own.
ACCESS_LOG = logging.getLogger('zun_hostcap.api.access')

# Error codes of the documents, after Zun's "container." prefix.
BAD_REQUEST = 'container.bad_request'
INVALID_QUERY = 'container.invalid_query'
NOT_ACCEPTABLE_VERSION = 'container.version_not_acceptable'
NOT_AUTHENTICATED = 'container.not_authenticated'
FORBIDDEN = 'container.forbidden'
NOT_FOUND = 'container.not_found'
INTERNAL_ERROR = 'container.internal_error'
SERVICE_UNAVAILABLE = 'container.service_unavailable'

_CAMEL_WORD = re.compile(r'(?<=[a-z0-9])(?=[A-Z])')


def code_for_exception(exc):
    """``container.compute_node_not_found`` for ComputeNodeNotFound."""
    return 'container.' + _CAMEL_WORD.sub('_', type(exc).__name__).lower()


def code_for_status(status):
    """``container.method_not_allowed`` for 405, and so on."""
    reason = webob.exc.status_map.get(status, webob.exc.HTTPError).title
    return 'container.' + re.sub(r'\W+', '_', reason.lower()).strip('_')


def _title(status, detail):
    """The first sentence of ``detail``, else the status' reason.

    python-zunclient, and so the CLI, shows the title as the error's
    message ("Host x could not be found (HTTP 404)"), as with Zun.
    """
    first = (detail or '').split('. ', 1)[0].strip().rstrip('.')
    return first or webob.exc.status_map.get(status,
                                             webob.exc.HTTPError).title


def document(status, detail, code=None, request_id=None):
    """The error document as a dict."""
    title = _title(status, detail)
    return {'errors': [{'request_id': request_id or '',
                        'code': code or code_for_status(status),
                        'status': status,
                        'title': title,
                        'detail': detail,
                        'links': []}]}


# Headers of the response an error document replaces that describe the
# old body, not the new one.
_BODY_HEADERS = frozenset(['content-type', 'content-length'])


def response(status, detail, code=None, request_id=None, headers=None):
    """A webob response carrying the error document.

    ``headers`` (name, value) pairs, typically those of the error being
    replaced, are kept, except those describing its body.
    """
    resp = webob.Response(status=status, content_type='application/json',
                          charset='utf-8')
    for name, value in headers or ():
        if name.lower() not in _BODY_HEADERS:
            resp.headers.add(name, value)
    resp.text = jsonutils.dumps(document(status, detail, code, request_id))
    return resp


def internal_error(req, request_id):
    """Log the exception being handled; a 500 that tells nothing more."""
    LOG.exception('Unexpected error serving %(method)s %(path)s',
                  {'method': req.method, 'path': safe_path(req.environ)})
    return response(500, 'The server hit an unexpected error; its log has '
                         'the details.', INTERNAL_ERROR, request_id)


def for_exception(req, exc, request_id):
    """The error response for ``exc``, raised while serving ``req``.

    Our exceptions carry their status; a backend that is down (503) is
    logged in one line, as an outage and not a bug; anything unexpected is
    a 500 whose traceback goes to the log only.
    """
    if isinstance(exc, exception.ZunHostcapException) and \
            400 <= exc.code < 600 and exc.code != 500:
        if exc.code >= 500:
            reason = exc.kwargs.get('reason')
            LOG.warning('%(method)s %(path)s: %(status)s %(message)s%(why)s',
                        {'method': req.method, 'path': safe_path(req.environ),
                         'status': exc.code, 'message': exc.message,
                         'why': ' (%s)' % reason if reason else ''})
        return response(exc.code, exc.message, code_for_exception(exc),
                        request_id)
    if isinstance(exc, oslo_policy.PolicyNotAuthorized):
        return response(403, str(exc), FORBIDDEN, request_id)
    if isinstance(exc, oslo_policy.InvalidScope):
        # [oslo_policy] enforce_scope: a token of another scope (a
        # system-scoped one, say) for a project-scoped rule.
        return response(403, '%s; this rule takes project-scoped tokens.'
                        % str(exc).rstrip('.'), FORBIDDEN, request_id)
    return internal_error(req, request_id)


def safe_path(environ, query=True):
    """The request's path and query for a log line, whatever its bytes.

    The path the client sent: the mount point (SCRIPT_NAME, such as
    ``/placement``) and the path below it. PEP 3333 hands the path over
    as bytes decoded as latin-1; bytes that are not UTF-8 are shown
    escaped rather than failing the log line.
    """
    path = (environ.get('SCRIPT_NAME', '') +
            environ.get('PATH_INFO', '')).encode('latin-1', 'replace')
    qs = environ.get('QUERY_STRING', '').encode('latin-1', 'replace')
    text = path.decode('utf-8', 'backslashreplace')
    if query and qs:
        text += '?' + qs.decode('utf-8', 'backslashreplace')
    return text


def detail_for_status(req, status):
    """Our message for errors that pecan, webob or oslo.middleware raise.

    Theirs are generic ("could not comply with the request") or, for
    sizelimit, leave a "%s" unformatted. None for other statuses.
    """
    if status == 405:
        return 'Method %s is not allowed on %s.' % (
            req.method, safe_path(req.environ, query=False))
    if status == 406:
        return ('This API answers with application/json only, which the '
                'Accept header does not allow.')
    if status == 413:
        return ('The request body is larger than the %d bytes this API '
                'accepts.' % CONF.oslo_middleware.max_request_body_size)
    return None


def is_document(body):
    """Whether ``body`` is already one of our error documents."""
    try:
        return 'errors' in jsonutils.loads(body)
    except (ValueError, TypeError):
        return False


def _detail_of(body, status_line):
    """The message another component put in an error body."""
    text = body.decode('utf-8', 'replace').strip()
    try:
        data = jsonutils.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        # keystonemiddleware: {"error": {"message": ...}}
        inner = data.get('error', data)
        if isinstance(inner, dict):
            for key in ('message', 'detail', 'explanation'):
                if inner.get(key):
                    return str(inner[key])
    if text.startswith('<'):
        # An HTML page (webob renders one for browsers): its text only.
        text = re.sub(r'<[^>]*>', ' ', text)
        text = re.sub(r'^\s*%s' % re.escape(status_line), '', text)
    # webob's plain text rendering starts with the status line.
    if text.startswith(status_line):
        text = text[len(status_line):]
    return ' '.join(text.split()) or status_line


class ErrorDocumentMiddleware(object):
    """Makes every error a JSON document, and logs each request.

    Errors from pecan handlers are documents already; this catches those
    of the middleware in between (authentication, body size) and any
    exception that escaped, which becomes a 500 without a traceback in
    the response. The access line goes to ``zun_hostcap.api.access``.
    """

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        req = webob.Request(environ)
        started = time.monotonic()
        request_id = environ.get('openstack.request_id')
        try:
            resp = req.get_response(self.application)
        except Exception as exc:
            resp = for_exception(req, exc, request_id)
        if resp.status_int >= 400 and not is_document(resp.body):
            resp = response(resp.status_int, self._detail(req, resp),
                            request_id=request_id, headers=resp.headerlist)
        ACCESS_LOG.info('%(addr)s "%(method)s %(path)s" status: %(status)s '
                        'len: %(length)s time: %(time).4f',
                        {'addr': req.remote_addr, 'method': req.method,
                         'path': safe_path(environ),
                         'status': resp.status_int,
                         'length': resp.content_length,
                         'time': time.monotonic() - started})
        return resp(environ, start_response)

    @staticmethod
    def _detail(req, resp):
        return (detail_for_status(req, resp.status_int) or
                _detail_of(resp.body, resp.status))
