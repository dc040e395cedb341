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

"""Authentication of the Placement-compatible API.

With ``[api] auth_strategy = noauth2`` it behaves as Placement's noauth2,
so that clients and tests written for Placement work unchanged:

- every route but the version document needs ``X-Auth-Token``;
- the token is ``user[:project]``; the project defaults to the user;
- the user ``admin`` has the role ``admin``, others no role, unless the
  request names its roles in ``X-Roles`` (as keystone would, flattened);
- an ``X-Project-Id`` the request sends is its project, whatever the
  token says (Placement's policy tests name their personas' projects
  so);
- with ``OpenStack-System-Scope`` the request is system scoped and the
  token gives it no project.

Other identity headers of the request are left as they come, as
Placement's noauth2 leaves them: noauth2 trusts the client anyway.

With ``keystone``, keystonemiddleware validates the token, as for the
rest of the API.
"""

from keystonemiddleware import auth_token

from zun_hostcap.api import auth as api_auth
from zun_hostcap.api.placement import errors
from zun_hostcap.common import placement_codes as codes
import zun_hostcap.conf

CONF = zun_hostcap.conf.CONF

# The version document answers without a token.
PUBLIC_PATHS = frozenset(['', '/'])

ADMIN_USER = 'admin'


class NoAuthMiddleware(object):
    """Placement's noauth2: identity from the token, for tests and demos."""

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        # The identity headers are read and set in the WSGI environ
        # directly (HTTP_X_...), as keystonemiddleware sets them.
        token = environ.get('HTTP_X_AUTH_TOKEN')
        if token is None:
            resp = errors.response(
                401, 'This request needs a token in X-Auth-Token. With '
                     'noauth2 the token is "user[:project]"; the user '
                     '"admin" is an administrator.', codes.UNDEFINED,
                environ.get('openstack.request_id'),
                headers=[('WWW-Authenticate', api_auth.NOAUTH_CHALLENGE)])
            return resp(environ, start_response)
        user_id, _sep, project_id = token.partition(':')
        project_id = project_id or user_id
        if 'HTTP_X_ROLES' in environ:
            roles = [role.strip() for role in
                     environ['HTTP_X_ROLES'].split(',') if role.strip()]
        elif user_id == ADMIN_USER:
            roles = ['admin']
        else:
            roles = []
        environ['HTTP_X_IDENTITY_STATUS'] = 'Confirmed'
        environ['HTTP_X_USER_ID'] = user_id
        if not environ.get('HTTP_OPENSTACK_SYSTEM_SCOPE'):
            # The context prefers X-Project-Id, when the client sent one.
            environ['HTTP_X_TENANT_ID'] = project_id
        environ['HTTP_X_ROLES'] = ','.join(roles)
        return self.application(environ, start_response)


def wrap(application):
    """``application`` behind the configured ``[api] auth_strategy``."""
    if CONF.api.auth_strategy == 'noauth2':
        authenticated = NoAuthMiddleware(application)
    else:
        authenticated = api_auth.KeystoneErrorsMiddleware(
            auth_token.AuthProtocol(application, {}))
    return api_auth.PublicRoutesMiddleware(authenticated, application,
                                           PUBLIC_PATHS)
