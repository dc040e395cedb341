"""Every route, every kind of token, with oslo.policy's new defaults and
scope enforcement on and off: admins may, readers and members may not,
and no token is a 401 whatever the policy says.

oslo.policy 6 removed [oslo_policy] enforce_scope: scope is always
enforced there, and the matrix covers enforce_new_defaults alone.
"""

import itertools

from oslo_policy import policy as oslo_policy
import webob

from zun_hostcap.api import app
from zun_hostcap.api import errors
from zun_hostcap.common import context
from zun_hostcap.common import policies
from zun_hostcap.common import policy
from zun_hostcap.tests import base
from zun_hostcap.tests import gabbi_fixtures

ROUTES = ('/v1/hosts', '/v1/hosts/host-b', '/v1/services')
TOKENS = {
    'admin': gabbi_fixtures.KEYSTONE_ADMIN_TOKEN,
    'member': gabbi_fixtures.KEYSTONE_MEMBER_TOKEN,
    'reader': 'keystone-reader-token',
    'none': None,
}
EXPECTED = {'admin': 200, 'member': 403, 'reader': 403, 'none': 401}


class TestPolicyMatrix(base.TestCase):

    def setUp(self):
        super().setUp()
        fixture = gabbi_fixtures.use(self, gabbi_fixtures.KeystoneAPIFixture)
        fixture.auth_fixture.add_token_data(
            token_id=TOKENS['reader'], user_id='reader-user',
            project_id='demo-project', role_list=['reader'])

    def _status(self, path, token):
        headers = {'OpenStack-API-Version': 'container latest'}
        if token:
            headers['X-Auth-Token'] = token
        resp = webob.Request.blank(path, headers=headers).get_response(
            self.app)
        return resp.status_int

    def test_every_route_token_and_enforcement_mode(self):
        policy.get_enforcer()  # registers [oslo_policy]
        scope_modes = ((True, False) if 'enforce_scope' in
                       self.conf.oslo_policy else (None,))
        for new_defaults, scope in itertools.product((True, False),
                                                     scope_modes):
            self.flags(group='oslo_policy', enforce_new_defaults=new_defaults)
            if scope is not None:
                self.flags(group='oslo_policy', enforce_scope=scope)
            policy.reset()
            self.app = app.setup_app()
            for path, (who, token) in itertools.product(ROUTES,
                                                        TOKENS.items()):
                self.assertEqual(
                    EXPECTED[who], self._status(path, token),
                    '%s with a %s token, enforce_new_defaults=%s, '
                    'enforce_scope=%s' % (path, who, new_defaults, scope))

    def test_every_rule_has_project_scope(self):
        for rule in policies.list_rules():
            self.assertEqual(['project'], rule.scope_types, rule.name)


class TestScopeEnforcement(base.TestCase):
    """A system-scoped admin token on a project-scoped rule."""

    def setUp(self):
        super().setUp()
        policy.reset()
        self.addCleanup(policy.reset)
        # Parsed, without any file of this machine: the enforcer reads it.
        self.conf([], default_config_files=[])
        policy.get_enforcer()  # registers [oslo_policy]

    def _authorize(self, ctx):
        policy.authorize(ctx, 'host:get_all')

    def test_refused_when_scope_is_enforced(self):
        if 'enforce_scope' in self.conf.oslo_policy:
            self.flags(group='oslo_policy', enforce_scope=True)
        system_admin = context.RequestContext(
            user_id='u', roles=['admin'], system_scope='all')
        err = self.assertRaises(oslo_policy.InvalidScope, self._authorize,
                                system_admin)
        # The API answers it as any refusal: 403, not 500.
        resp = errors.for_exception(webob.Request.blank('/v1/hosts'), err,
                                    'req-1')
        self.assertEqual(403, resp.status_int)
        self.assertEqual('container.forbidden',
                         resp.json['errors'][0]['code'])
        project_admin = context.RequestContext(
            user_id='u', project_id='p', roles=['admin'])
        self._authorize(project_admin)
