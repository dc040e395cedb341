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

"""Authentication middleware: keystone or noauth2, and the public routes."""

from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import loading as ks_loading
from keystonemiddleware import auth_token
from oslo_log import log as logging
import webob

from zun_hostcap.api import errors
from zun_hostcap.common import config_check
import zun_hostcap.conf

CONF = zun_hostcap.conf.CONF
LOG = logging.getLogger(__name__)

AUTHTOKEN_GROUP = 'keystone_authtoken'

# What a 401 of noauth2 tells a client about how to authenticate (RFC 9110
# requires the header on every 401).
NOAUTH_CHALLENGE = 'X-Auth-Token realm="zun-hostcap noauth2"'

KEYSTONE_UNAVAILABLE = (
    'The identity service could not validate the token: it cannot be '
    'reached or is overloaded. Try again later.')
AUTH_MISCONFIGURED = (
    'Authentication is misconfigured on this server, so no request can be '
    'authenticated; its log names the option to fix.')

# Version documents and the OpenAPI description answer without a token,
# so that clients can discover the API before they authenticate.
PUBLIC_PATHS = frozenset(['/', '/v1', '/v1/', '/openapi.json'])

ADMIN_TOKEN = 'admin'

_IDENTITY_HEADER_PREFIXES = ('HTTP_X_IDENTITY', 'HTTP_X_USER',
                             'HTTP_X_PROJECT', 'HTTP_X_ROLE',
                             'HTTP_X_SERVICE', 'HTTP_X_DOMAIN')


class NoAuthMiddleware(object):
    """Development authentication without keystone.

    The token ``admin`` is an administrator, any other token a plain user
    of a project of the same name; a request without a token gets 401.
    """

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        req = webob.Request(environ)
        token = req.headers.get('X-Auth-Token')
        if not token:
            resp = errors.response(
                401, 'This request needs a token in X-Auth-Token. With '
                     'noauth2, the token "admin" is an administrator.',
                errors.NOT_AUTHENTICATED,
                environ.get('openstack.request_id'),
                headers=[('WWW-Authenticate', NOAUTH_CHALLENGE)])
            return resp(environ, start_response)
        roles = 'admin' if token == ADMIN_TOKEN else 'member'
        # Overwrite what the client sent: only this layer may say who it is.
        req.headers.update({'X-Identity-Status': 'Confirmed',
                            'X-User-Id': token,
                            'X-Project-Id': token,
                            'X-Roles': roles})
        return self.application(environ, start_response)


class PublicRoutesMiddleware(object):
    """Sends the public paths around the authentication middleware.

    :param authenticated: the application behind authentication.
    :param public: the application itself, for ``paths``.
    :param paths: the public paths (PATH_INFO), each as a whole.
    """

    def __init__(self, authenticated, public, paths=PUBLIC_PATHS):
        self.authenticated = authenticated
        self.public = public
        self.paths = paths

    def __call__(self, environ, start_response):
        if environ.get('PATH_INFO', '/') in self.paths:
            # Nobody vouched for identity headers that came with the
            # request; drop them.
            for key in [key for key in environ
                        if key.startswith(_IDENTITY_HEADER_PREFIXES)]:
                del environ[key]
            return self.public(environ, start_response)
        return self.authenticated(environ, start_response)


class KeystoneErrorsMiddleware(object):
    """keystonemiddleware's failures as our error documents.

    When keystone cannot be reached, keystonemiddleware answers 503 with a
    page of its own; when [keystone_authtoken] is incomplete it raises
    keystoneauth1's exceptions on every request. Both become a JSON 503
    that says what is wrong, logged in one line without a traceback.
    """

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        request_id = environ.get('openstack.request_id')
        try:
            resp = webob.Request(environ).get_response(self.application)
        except ks_exc.ClientException as err:
            LOG.error('Cannot authenticate requests: [%(group)s] is '
                      'incomplete or wrong: %(type)s: %(error)s',
                      {'group': AUTHTOKEN_GROUP,
                       'type': type(err).__name__, 'error': err})
            resp = errors.response(503, AUTH_MISCONFIGURED,
                                   errors.SERVICE_UNAVAILABLE, request_id)
        else:
            if resp.status_int == 503 and not errors.is_document(resp.body):
                LOG.warning('Keystone could not validate a token; '
                            'answering 503.')
                resp = errors.response(503, KEYSTONE_UNAVAILABLE,
                                       errors.SERVICE_UNAVAILABLE,
                                       request_id, headers=resp.headerlist)
        return resp(environ, start_response)


def _register_keystone_opts():
    for group, opts in auth_token.list_opts():
        CONF.register_opts(opts, group=group)
    ks_loading.register_auth_conf_options(CONF, AUTHTOKEN_GROUP)


def check_configuration():
    """Refuse to start with keystone auth that cannot work.

    keystonemiddleware only notices a missing [keystone_authtoken] at the
    first request, and then on every request; this finds it at start.

    :raises zun_hostcap.common.config_check.StartupError: what is missing.
    """
    if CONF.api.auth_strategy != 'keystone':
        return
    _register_keystone_opts()
    group = CONF[AUTHTOKEN_GROUP]
    try:
        plugin = ks_loading.load_auth_from_conf_options(CONF,
                                                        AUTHTOKEN_GROUP)
    except ks_exc.MissingRequiredOptions as err:
        raise config_check.StartupError(
            '[api] auth_strategy = keystone, but [%s] lacks %s, which '
            'auth_type = %s needs' % (
                AUTHTOKEN_GROUP,
                ', '.join(opt.dest for opt in err.options),
                group.auth_type))
    except ks_exc.NoMatchingPlugin as err:
        raise config_check.StartupError(
            '[%s] auth_type = %r is not a keystoneauth1 plugin (%s); '
            'expected e.g. password' % (AUTHTOKEN_GROUP, group.auth_type,
                                        err))
    if plugin is None:
        raise config_check.StartupError(
            '[api] auth_strategy = keystone, but [%s] has no auth_type: '
            'set auth_type = password with auth_url, username, password, '
            'project_name, user_domain_name and project_domain_name of '
            'the zun-hostcap service user, or set [api] auth_strategy = '
            'noauth2 where there is no keystone' % AUTHTOKEN_GROUP)


def wrap(application):
    """``application`` behind the configured ``[api] auth_strategy``."""
    if CONF.api.auth_strategy == 'noauth2':
        authenticated = NoAuthMiddleware(application)
    else:
        # keystonemiddleware reads [keystone_authtoken] of our CONF.
        authenticated = KeystoneErrorsMiddleware(
            auth_token.AuthProtocol(application, {}))
    return PublicRoutesMiddleware(authenticated, application)
