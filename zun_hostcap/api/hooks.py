"""Pecan hooks: request context, microversion and error documents."""

from oslo_log import log as logging
from oslo_policy import policy as oslo_policy
import pecan
import webob.exc

from zun_hostcap.api import errors
from zun_hostcap.api import microversion
from zun_hostcap.common import context
from zun_hostcap.common import exception
from zun_hostcap.common import policy

LOG = logging.getLogger(__name__)


class ContextHook(pecan.hooks.PecanHook):
    """Builds the RequestContext from the headers the auth layer set."""

    def before(self, state):
        ctx = context.RequestContext.from_environ(state.request.environ)
        ctx.is_admin = policy.check_is_admin(ctx)
        state.request.context = ctx


class MicroversionHook(pecan.hooks.PecanHook):
    """Negotiates the version; every response names it and the range."""

    def before(self, state):
        state.request.version = microversion.extract_version(
            state.request.headers)

    def after(self, state):
        _add_version_headers(state.request, state.response)


def _add_version_headers(request, response):
    for name, value in microversion.range_headers():
        response.headers[name] = value
    version = getattr(request, 'version', None)
    if version is not None:
        response.headers[microversion.HEADER] = '%s %s' % (
            microversion.SERVICE_TYPE, version)
    vary = list(response.vary or ())
    if microversion.HEADER not in vary:
        response.vary = vary + [microversion.HEADER]


class ErrorHook(pecan.hooks.PecanHook):
    """Turns what a handler raised into an error document.

    Registered first, so that it also sees the errors of the other hooks.
    """

    def on_error(self, state, exc):
        request_id = state.request.environ.get('openstack.request_id')
        headers = []
        if isinstance(exc, webob.exc.HTTPException):
            status = exc.code
            if exc.comment:
                # Ours: raised with an error code and a message.
                detail, code = exc.detail or exc.explanation, exc.comment
            else:
                # pecan's routing (405, 406) or a bare abort().
                detail = (errors.detail_for_status(state.request, status) or
                          exc.detail or exc.explanation)
                code = errors.code_for_status(status)
            headers = [(name, value) for name, value in exc.headerlist
                       if name.lower() not in ('content-type',
                                               'content-length')]
        elif isinstance(exc, exception.ZunHostcapException) and \
                400 <= exc.code < 500:
            status, detail = exc.code, exc.message
            code = errors.code_for_exception(exc)
        elif isinstance(exc, oslo_policy.PolicyNotAuthorized):
            status, code = 403, errors.FORBIDDEN
            detail = str(exc)
        else:
            LOG.exception('Unexpected error serving %(method)s %(path)s',
                          {'method': state.request.method,
                           'path': state.request.path_qs})
            status, code = 500, errors.INTERNAL_ERROR
            detail = ('The server hit an unexpected error; its log has '
                      'the details.')
        resp = errors.response(status, detail, code, request_id, headers)
        _add_version_headers(state.request, resp)
        return resp
