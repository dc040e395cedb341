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

"""Pecan hooks: request context, microversion and error documents."""

import pecan
import webob.exc

from zun_hostcap.api import errors
from zun_hostcap.api import microversion
from zun_hostcap.api import middleware
from zun_hostcap.common import context
from zun_hostcap.common import policy


class ContextHook(pecan.hooks.PecanHook):
    """Builds the RequestContext from the headers the auth layer set."""

    def before(self, state):
        ctx = context.RequestContext.from_environ(state.request.environ)
        ctx.is_admin = policy.check_is_admin(ctx)
        state.request.context = ctx


class AcceptHook(pecan.hooks.PecanHook):
    """406 for a client that does not take JSON (``AcceptGuard``).

    After routing, so that an unknown path is still a 404; pecan, left
    to refuse the client itself, would log it as an ERROR.
    """

    def before(self, state):
        if middleware.NOT_ACCEPTABLE in state.request.environ:
            raise webob.exc.HTTPNotAcceptable()


class MicroversionHook(pecan.hooks.PecanHook):
    """Negotiates the version; every response names it and the range."""

    def before(self, state):
        state.request.version = microversion.extract_version(
            state.request.headers)

    def after(self, state):
        add_version_headers(state.request, state.response)


def add_version_headers(request, response):
    """The version range, the request's version and Vary on ``response``."""
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
        request = state.request
        request_id = request.environ.get('openstack.request_id')
        if isinstance(exc, webob.exc.HTTPException):
            if exc.comment:
                # Ours: raised with an error code and a message.
                detail, code = exc.detail or exc.explanation, exc.comment
            else:
                # pecan's routing (405, 406) or a bare abort().
                detail = (errors.detail_for_status(request, exc.code) or
                          exc.detail or exc.explanation)
                code = errors.code_for_status(exc.code)
            resp = errors.response(exc.code, detail, code, request_id,
                                   exc.headerlist)
        else:
            resp = errors.for_exception(request, exc, request_id)
        add_version_headers(request, resp)
        return resp
