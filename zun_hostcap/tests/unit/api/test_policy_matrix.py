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

"""Every route, every kind of token, with oslo.policy's new defaults and
scope enforcement on and off: admins may, readers and members may not,
and no token is a 401 whatever the policy says.

oslo.policy 6 removed [oslo_policy] enforce_scope: scope is always
enforced there, and the matrix covers enforce_new_defaults alone.
"""

import itertools
import json
import os

import fixtures
from oslo_policy import policy as oslo_policy
from oslo_utils import uuidutils
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
# Placement's rules without scope types of their own.
REFERENCED_ONLY = ('project_reader_api',)


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
            if rule.name in REFERENCED_ONLY:
                continue
            self.assertEqual(['project'], rule.scope_types, rule.name)
        # As in Placement: only other rules name it, and oslo.policy
        # checks the scope of the rule enforced, not of those it names.
        rules = {rule.name: rule for rule in policies.list_rules()}
        for name in REFERENCED_ONLY:
            self.assertIsNone(rules[name].scope_types, name)
            self.assertNotIsInstance(rules[name],
                                     oslo_policy.DocumentedRuleDefault)


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


# Placement's personas, as its policy tests make them with noauth2.
PLACEMENT_PROJECT = 'project-a'
PLACEMENT_PERSONAS = {
    'admin': {'x-roles': 'admin', 'x-project-id': 'admin-project'},
    'service': {'x-roles': 'service', 'x-project-id': 'service-project'},
    'project admin': {'x-roles': 'admin,member,reader',
                      'x-project-id': PLACEMENT_PROJECT},
    'project member': {'x-roles': 'member,reader',
                       'x-project-id': PLACEMENT_PROJECT},
    'project reader': {'x-roles': 'reader',
                       'x-project-id': PLACEMENT_PROJECT},
    'system admin': {'x-roles': 'admin,member,reader',
                     'openstack-system-scope': 'all'},
    'system reader': {'x-roles': 'reader', 'openstack-system-scope': 'all'},
    'no role': {'x-roles': '', 'x-project-id': PLACEMENT_PROJECT},
}
PLACEMENT_OPERATORS = ('admin', 'service', 'project admin')
# Rules of a service alone (with the admins' deprecated default).
PLACEMENT_SERVICE_RULES = ('placement:reshaper:reshape',)
PLACEMENT_PROJECT_USERS = ('project member', 'project reader')


class TestPlacementPolicyMatrix(base.TestCase):
    """Every operation a Placement rule documents, through /placement.

    First the rule is set to refuse everyone: the administrator's 403
    shows the operation is authorized by that rule. Then, with the
    defaults, Placement's personas: refused with 403, or let through
    (whatever the route answers then, not 401 or 403).
    """

    def setUp(self):
        super().setUp()
        gabbi_fixtures.use(self, gabbi_fixtures.PlacementFixture)
        self.policy_file = os.path.join(
            self.useFixture(fixtures.TempDir()).path, 'policy.json')
        policy.get_enforcer()  # registers [oslo_policy]
        self.flags(group='oslo_policy', policy_file=self.policy_file)
        self.app = app.setup_app()
        self.addCleanup(policy.reset)

    def _set_policy(self, rules):
        with open(self.policy_file, 'w') as f:
            json.dump(rules, f)
        policy.reset()

    @staticmethod
    def _path(rule, operation):
        name = ('VCPU' if rule.startswith('placement:resource_classes:')
                else 'CUSTOM_POLICY_MATRIX')
        path = operation['path'].format(
            uuid=uuidutils.generate_uuid(),
            consumer_uuid=uuidutils.generate_uuid(),
            resource_class='VCPU', name=name)
        if path == '/usages':
            path += '?project_id=' + PLACEMENT_PROJECT
        return '/placement' + path

    def _status(self, method, path, persona):
        headers = {'X-Auth-Token': 'user',
                   'OpenStack-API-Version': 'placement latest',
                   'Accept': 'application/json'}
        headers.update(PLACEMENT_PERSONAS[persona])
        kwargs = {}
        if method in ('POST', 'PUT'):
            headers['Content-Type'] = 'application/json'
            kwargs['body'] = b'{}'
        req = webob.Request.blank(path, method=method, headers=headers,
                                  **kwargs)
        return req.get_response(self.app).status_int

    def _operations(self):
        for rule in policies.list_rules():
            if rule.name.startswith('placement:'):
                for operation in rule.operations:
                    yield rule.name, operation

    def test_every_operation_persona_and_enforcement_mode(self):
        pending = []
        for rule, operation in self._operations():
            method = operation['method']
            path = self._path(rule, operation)
            self._set_policy({rule: '!'})
            if self._status(method, path, 'admin') != 403:
                pending.append('%s %s (%s)' % (method, operation['path'],
                                               rule))
                continue
            for new_defaults in (True, False):
                self.flags(group='oslo_policy',
                           enforce_new_defaults=new_defaults)
                self._set_policy({})
                for persona in PLACEMENT_PERSONAS:
                    allowed = persona in PLACEMENT_OPERATORS or (
                        rule == 'placement:usages' and
                        persona in PLACEMENT_PROJECT_USERS)
                    if rule in PLACEMENT_SERVICE_RULES and new_defaults:
                        allowed = persona == 'service'
                    status = self._status(method, path, persona)
                    message = ('%s %s as %s, enforce_new_defaults=%s: %s'
                               % (method, path, persona, new_defaults,
                                  status))
                    if allowed:
                        self.assertNotIn(status, (401, 403), message)
                    else:
                        self.assertEqual(403, status, message)
                if rule == 'placement:usages':
                    # Another project's usage is not a reader's.
                    other = path.replace(PLACEMENT_PROJECT, 'project-b')
                    for persona in PLACEMENT_PROJECT_USERS:
                        self.assertEqual(403, self._status(method, other,
                                                           persona))
                    self.assertNotIn(self._status(method, other, 'admin'),
                                     (401, 403))
        if pending:
            # The routes are still being written.
            self.skipTest('Not authorized by their rule yet: %s'
                          % ', '.join(pending))
