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

"""Placement's rules: who may do what, by default and with an operator's
Placement policy file, with [oslo_policy] enforce_new_defaults on and off.

The personas are those of Placement's own policy tests: an administrator,
a service, a project's admin, member and reader, a system-scoped admin
and reader, and a user without a role.
"""

import itertools
import json
import os

import fixtures
from oslo_policy import policy as oslo_policy
import webob

from zun_hostcap.api.placement import auth
from zun_hostcap.common import context
from zun_hostcap.common import policies
from zun_hostcap.common.policies import placement as placement_policies
from zun_hostcap.common import policy
from zun_hostcap.tests import base
from zun_hostcap.tests.unit import test_policy

PROJECT = 'project-a'
OTHER_PROJECT = 'project-b'

PERSONAS = {
    'admin': {'roles': ['admin'], 'project_id': 'admin-project'},
    'service': {'roles': ['service'], 'project_id': 'service-project'},
    'project admin': {'roles': ['admin', 'member', 'reader'],
                      'project_id': PROJECT},
    'project member': {'roles': ['member', 'reader'], 'project_id': PROJECT},
    'project reader': {'roles': ['reader'], 'project_id': PROJECT},
    'system admin': {'roles': ['admin', 'member', 'reader'],
                     'system_scope': 'all'},
    'system reader': {'roles': ['reader'], 'system_scope': 'all'},
    'no role': {'roles': [], 'project_id': PROJECT},
}
# May use all of the Placement API.
OPERATORS = ('admin', 'service', 'project admin')
# A project's total usage is its readers' (and members') to see.
PROJECT_USERS = ('project member', 'project reader')
SYSTEM_SCOPED = ('system admin', 'system reader')

TOTAL_USAGES = 'placement:usages'
# A service's alone (Placement's default); before Wallaby the admin's.
RESHAPE = 'placement:reshaper:reshape'


def _context(persona):
    return context.RequestContext(user_id='user-' + persona.split()[-1],
                                  **PERSONAS[persona])


def _placement_rule_names():
    return [rule.name for rule in placement_policies.list_rules()
            if rule.name.startswith('placement:')]


class PlacementPolicyTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        policy.reset()
        self.addCleanup(policy.reset)
        tmp = self.useFixture(fixtures.TempDir()).path
        self.policy_file = os.path.join(tmp, 'policy.yaml')
        config_file = os.path.join(tmp, 'zun-hostcap.conf')
        with open(config_file, 'w') as f:
            f.write('[oslo_policy]\npolicy_file = %s\n' % self.policy_file)
        self.conf(['--config-file', config_file], default_config_files=[])
        policy.get_enforcer()  # registers [oslo_policy]

    def _write_policy(self, rules):
        with open(self.policy_file, 'w') as f:
            json.dump(rules, f)
        policy.reset()

    def _allowed(self, persona, rule, target=None):
        ctx = _context(persona)
        try:
            policy.authorize(ctx, rule, target)
        except (oslo_policy.PolicyNotAuthorized, oslo_policy.InvalidScope):
            return False
        return True


class TestRulesInCode(PlacementPolicyTestCase):

    def test_names_are_placements(self):
        self.assertEqual(sorted([
            'admin_api', 'service_api', 'admin_or_service_api',
            'project_reader_api', 'admin_or_project_reader_or_service_api',
        ] + list(test_policy.PLACEMENT_API_RULES)),
            sorted(rule.name for rule in placement_policies.list_rules()))

    def test_no_name_clashes_with_zun_hostcaps_rules(self):
        names = [rule.name for rule in policies.list_rules()]
        self.assertEqual(len(names), len(set(names)))

    def test_check_strings_are_placements(self):
        rules = {rule.name: rule.check_str
                 for rule in placement_policies.list_rules()}
        self.assertEqual('role:admin', rules['admin_api'])
        self.assertEqual('role:service', rules['service_api'])
        self.assertEqual('role:admin or role:service',
                         rules['admin_or_service_api'])
        self.assertEqual('role:reader and project_id:%(project_id)s',
                         rules['project_reader_api'])
        self.assertEqual(
            'role:admin or rule:project_reader_api or role:service',
            rules['admin_or_project_reader_or_service_api'])
        self.assertEqual('rule:admin_or_project_reader_or_service_api',
                         rules[TOTAL_USAGES])
        self.assertEqual('rule:service_api', rules[RESHAPE])
        for name in _placement_rule_names():
            if name not in (TOTAL_USAGES, RESHAPE):
                self.assertEqual('rule:admin_or_service_api', rules[name],
                                 name)

    def test_deprecated_defaults_are_placements(self):
        # Before Wallaby everything was admin only; Placement names the
        # deprecated rule "rule:admin_api".
        for rule in placement_policies.list_rules():
            deprecated = rule.deprecated_rule
            if rule.name == 'admin_api' or rule.name.startswith(
                    'placement:'):
                self.assertIsNone(deprecated, rule.name)
                continue
            self.assertEqual('rule:admin_api', deprecated.name)
            self.assertEqual('role:admin', deprecated.check_str)
            self.assertEqual('W', deprecated.deprecated_since)
            self.assertTrue(deprecated.deprecated_reason.strip())


class TestPersonas(PlacementPolicyTestCase):
    """Placement's defaults, in both enforcement modes."""

    def _check_matrix(self, reshapers=OPERATORS):
        for rule, persona in itertools.product(_placement_rule_names(),
                                               PERSONAS):
            if rule == TOTAL_USAGES:
                continue
            allowed = reshapers if rule == RESHAPE else OPERATORS
            self.assertEqual(persona in allowed,
                             self._allowed(persona, rule),
                             '%s: %s' % (persona, rule))
        for persona, project in itertools.product(
                PERSONAS, (PROJECT, OTHER_PROJECT, None)):
            expected = persona in OPERATORS or (
                persona in PROJECT_USERS and project == PROJECT)
            # GET /usages passes the project asked about as the target.
            self.assertEqual(
                expected,
                self._allowed(persona, TOTAL_USAGES, {'project_id': project}),
                '%s: usages of %s' % (persona, project))

    def test_new_defaults(self):
        self.flags(group='oslo_policy', enforce_new_defaults=True)
        self._check_matrix(reshapers=('service',))

    def test_deprecated_defaults_allowed_too(self):
        # The old default (the admin role) is allowed alongside the new
        # one; for these personas that changes nothing but the reshaper,
        # which the admins may use too.
        self.flags(group='oslo_policy', enforce_new_defaults=False)
        self._check_matrix()

    def test_system_scope_is_refused_as_invalid_scope(self):
        # The API answers it with 403, as Placement does.
        for persona, rule in itertools.product(SYSTEM_SCOPED,
                                               _placement_rule_names()):
            self.assertRaises(oslo_policy.InvalidScope, policy.authorize,
                              _context(persona), rule)

    def test_refusal_is_policy_not_authorized(self):
        err = self.assertRaises(oslo_policy.PolicyNotAuthorized,
                                policy.authorize, _context('project member'),
                                'placement:resource_providers:list')
        self.assertIn('placement:resource_providers:list', str(err))

    def test_zun_rules_keep_their_own_defaults(self):
        # The service role is Placement's, not the container API's.
        self.assertTrue(self._allowed('service',
                                      'placement:resource_providers:list'))
        self.assertFalse(self._allowed('service', 'host:get_all'))


class TestOperatorPolicyFile(PlacementPolicyTestCase):
    """A Placement policy file, unchanged."""

    def test_file_opens_a_rule_to_readers(self):
        self._write_policy({'placement:resource_providers:list':
                            'role:reader'})
        self.assertTrue(self._allowed('project reader',
                                      'placement:resource_providers:list'))
        self.assertFalse(self._allowed('project reader',
                                       'placement:resource_providers:show'))
        self.assertTrue(self._allowed('service',
                                      'placement:resource_providers:show'))

    def test_file_redefines_a_base_rule(self):
        self._write_policy({'admin_or_service_api': 'role:cloud-admin'})
        for rule in _placement_rule_names():
            if rule in (TOTAL_USAGES, RESHAPE):
                continue
            self.assertFalse(self._allowed('admin', rule), rule)
            self.assertFalse(self._allowed('service', rule), rule)
        cloud_admin = context.RequestContext(
            user_id='u', project_id='p', roles=['cloud-admin'])
        policy.authorize(cloud_admin, 'placement:allocations:manage')
        # Total usage has its own base rule.
        self.assertTrue(self._allowed('admin', TOTAL_USAGES,
                                      {'project_id': OTHER_PROJECT}))
        # And zun-hostcap's rules their own.
        self.assertTrue(self._allowed('admin', 'host:get_all'))

    def test_file_redefines_the_project_reader(self):
        self._write_policy({'project_reader_api':
                            'role:member and project_id:%(project_id)s'})
        target = {'project_id': PROJECT}
        self.assertTrue(self._allowed('project member', TOTAL_USAGES,
                                      target))
        self.assertFalse(self._allowed('project reader', TOTAL_USAGES,
                                       target))

    def test_file_overriding_the_deprecated_name(self):
        # As in Placement, the deprecated rule's name ("rule:admin_api")
        # in a file replaces the base rules that deprecated it.
        self._write_policy({'rule:admin_api': 'role:legacy-admin'})
        legacy = context.RequestContext(user_id='u', project_id='p',
                                        roles=['legacy-admin'])
        for rule in _placement_rule_names():
            policy.authorize(legacy, rule)
            self.assertFalse(self._allowed('service', rule), rule)

    def test_zun_admin_does_not_change_placement(self):
        self._write_policy({'context_is_admin': 'role:cloud-admin'})
        self.assertTrue(self._allowed('admin',
                                      'placement:resource_providers:list'))
        self.assertFalse(self._allowed('admin', 'host:get_all'))


def _identity(environ, start_response):
    """What the context of the request would be, as JSON."""
    ctx = context.RequestContext.from_environ(environ)
    body = json.dumps({'user_id': ctx.user_id, 'project_id': ctx.project_id,
                       'roles': ctx.roles,
                       'system_scope': ctx.system_scope}).encode()
    start_response('200 OK', [('Content-Type', 'application/json')])
    return [body]


class TestNoAuth2(base.TestCase):
    """Placement's noauth2: personas from the token and headers."""

    def _identity(self, path='/resource_providers', **headers):
        req = webob.Request.blank(path, headers=headers)
        return req.get_response(auth.NoAuthMiddleware(_identity))

    def test_no_token_is_401(self):
        resp = self._identity()
        self.assertEqual(401, resp.status_int)
        self.assertIn('noauth2', resp.headers['WWW-Authenticate'])

    def test_token_is_user_and_project(self):
        self.assertEqual(
            {'user_id': 'alice', 'project_id': 'proj', 'roles': [],
             'system_scope': None},
            self._identity(**{'X-Auth-Token': 'alice:proj'}).json)
        # The project defaults to the user.
        self.assertEqual('alice', self._identity(
            **{'X-Auth-Token': 'alice'}).json['project_id'])

    def test_admin_user_is_admin(self):
        self.assertEqual(['admin'], self._identity(
            **{'X-Auth-Token': 'admin'}).json['roles'])

    def test_roles_header(self):
        self.assertEqual(['member', 'reader'], self._identity(
            **{'X-Auth-Token': 'admin',
               'X-Roles': 'member,reader'}).json['roles'])

    def test_project_header_wins(self):
        # Placement's policy tests send the persona's project so.
        self.assertEqual('proj-b', self._identity(
            **{'X-Auth-Token': 'user:proj-a',
               'X-Project-Id': 'proj-b'}).json['project_id'])

    def test_user_and_roles_come_from_the_token(self):
        identity = self._identity(**{'X-Auth-Token': 'user',
                                     'X-User-Id': 'someone-else',
                                     'X-Tenant-Id': 'another'}).json
        self.assertEqual('user', identity['user_id'])
        self.assertEqual('user', identity['project_id'])

    def test_system_scope_has_no_project(self):
        identity = self._identity(**{'X-Auth-Token': 'user',
                                     'X-Roles': 'admin',
                                     'OpenStack-System-Scope': 'all'}).json
        self.assertEqual('all', identity['system_scope'])
        self.assertIsNone(identity['project_id'])
