"""Authentication middleware: keystone or noauth2, and the public routes."""

from keystonemiddleware import auth_token
import webob

from zun_hostcap.api import errors
import zun_hostcap.conf

CONF = zun_hostcap.conf.CONF

# Version documents answer without a token, so that clients can discover
# the API before they authenticate.
PUBLIC_PATHS = frozenset(['/', '/v1', '/v1/'])

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
                environ.get('openstack.request_id'))
            return resp(environ, start_response)
        roles = 'admin' if token == ADMIN_TOKEN else 'member'
        # Overwrite what the client sent: only this layer may say who it is.
        req.headers.update({'X-Identity-Status': 'Confirmed',
                            'X-User-Id': token,
                            'X-Project-Id': token,
                            'X-Roles': roles})
        return self.application(environ, start_response)


class PublicRoutesMiddleware(object):
    """Sends the public paths around the authentication middleware."""

    def __init__(self, authenticated, public):
        self.authenticated = authenticated
        self.public = public

    def __call__(self, environ, start_response):
        if environ.get('PATH_INFO', '/') in PUBLIC_PATHS:
            # Nobody vouched for identity headers that came with the
            # request; drop them.
            for key in [key for key in environ
                        if key.startswith(_IDENTITY_HEADER_PREFIXES)]:
                del environ[key]
            return self.public(environ, start_response)
        return self.authenticated(environ, start_response)


def wrap(application):
    """``application`` behind the configured ``[api] auth_strategy``."""
    if CONF.api.auth_strategy == 'noauth2':
        authenticated = NoAuthMiddleware(application)
    else:
        # keystonemiddleware reads [keystone_authtoken] of our CONF.
        authenticated = auth_token.AuthProtocol(application, {})
    return PublicRoutesMiddleware(authenticated, application)
