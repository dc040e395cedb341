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

"""Policy in code, the enforcer, an operator's policy file and the tools.

Real oslo.policy throughout: its enforcer, files and command line tools.
"""

import importlib.metadata
import json
import os
import subprocess
import sys
import time

import fixtures
from oslo_policy import policy as oslo_policy

from zun_hostcap.common import context
from zun_hostcap.common import policies
from zun_hostcap.common import policy
from zun_hostcap.tests import base

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
GENERATOR_CONF = os.path.join(
    REPO, 'etc', 'zun-hostcap', 'zun-hostcap-policy-generator.conf')

# The API's rules, by the names Zun gives them.
API_RULES = ('host:get_all', 'host:get', 'zun-service:get_all')

# The rules of /placement, by Placement's names (all of Placement's).
PLACEMENT_API_RULES = (
    'placement:resource_providers:list',
    'placement:resource_providers:create',
    'placement:resource_providers:show',
    'placement:resource_providers:update',
    'placement:resource_providers:delete',
    'placement:resource_classes:list',
    'placement:resource_classes:create',
    'placement:resource_classes:show',
    'placement:resource_classes:update',
    'placement:resource_classes:delete',
    'placement:resource_providers:inventories:list',
    'placement:resource_providers:inventories:create',
    'placement:resource_providers:inventories:show',
    'placement:resource_providers:inventories:update',
    'placement:resource_providers:inventories:delete',
    'placement:resource_providers:aggregates:list',
    'placement:resource_providers:aggregates:update',
    'placement:resource_providers:usages',
    'placement:usages',
    'placement:traits:list',
    'placement:traits:show',
    'placement:traits:update',
    'placement:traits:delete',
    'placement:resource_providers:traits:list',
    'placement:resource_providers:traits:update',
    'placement:resource_providers:traits:delete',
    'placement:allocations:list',
    'placement:allocations:manage',
    'placement:allocations:update',
    'placement:allocations:delete',
    'placement:resource_providers:allocations:list',
    'placement:allocation_candidates:list',
    'placement:reshaper:reshape',
)


def _context(*roles):
    return context.RequestContext(user_id='user', project_id='project',
                                  roles=list(roles))


class PolicyTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        # Rules are loaded once per enforcer; every test starts afresh.
        policy.reset()
        self.addCleanup(policy.reset)
        self.tmp = self.useFixture(fixtures.TempDir()).path
        # Where an operator's file would be, named in the service's
        # configuration file; no file of this machine is read.
        self.policy_file = os.path.join(self.tmp, 'policy.yaml')
        config_file = os.path.join(self.tmp, 'zun-hostcap.conf')
        with open(config_file, 'w') as f:
            f.write('[oslo_policy]\npolicy_file = %s\n' % self.policy_file)
        self.conf(['--config-file', config_file], default_config_files=[])


class TestRulesInCode(PolicyTestCase):

    def test_every_rule_is_registered(self):
        rules = policies.list_rules()
        enforcer = policy.get_enforcer()
        self.assertEqual(sorted(rule.name for rule in rules),
                         sorted(enforcer.registered_rules))
        for rule in rules:
            self.assertEqual(rule.check_str,
                             enforcer.registered_rules[rule.name].check_str)

    def test_every_rule_is_described(self):
        for rule in policies.list_rules():
            self.assertTrue(rule.description.strip(), rule.name)

    def test_api_rules_name_their_operations(self):
        rules = {rule.name: rule for rule in policies.list_rules()}
        self.assertEqual(sorted(API_RULES + PLACEMENT_API_RULES),
                         sorted(name for name in rules if ':' in name))
        for name in API_RULES:
            rule = rules[name]
            self.assertIsInstance(rule, oslo_policy.DocumentedRuleDefault)
            self.assertTrue(rule.operations, name)
            for operation in rule.operations:
                self.assertEqual('GET', operation['method'])
                self.assertTrue(operation['path'].startswith('/v1/'),
                                operation)
        # Placement's paths are relative to its endpoint (/placement).
        for name in PLACEMENT_API_RULES:
            rule = rules[name]
            self.assertIsInstance(rule, oslo_policy.DocumentedRuleDefault)
            self.assertTrue(rule.operations, name)
            for operation in rule.operations:
                self.assertIn(operation['method'],
                              ('GET', 'POST', 'PUT', 'DELETE'))
                self.assertRegex(operation['path'],
                                 '^/(resource_providers|resource_classes|'
                                 'traits|allocations|usages|reshaper|'
                                 'allocation_candidates)')

    def test_no_operation_has_two_rules(self):
        seen = {}
        for rule in policies.list_rules():
            for operation in getattr(rule, 'operations', []):
                key = (operation['method'], operation['path'])
                self.assertNotIn(key, seen, rule.name)
                seen[key] = rule.name

    def test_the_enforcer_is_made_once(self):
        self.assertIs(policy.get_enforcer(), policy.get_enforcer())

    def test_reset_leaves_an_enforcer_in_use_working(self):
        # SIGHUP resets while other threads authorize with the old one.
        in_use = policy.get_enforcer()
        policy.reset()
        self.assertIsNot(in_use, policy.get_enforcer())
        self.assertTrue(in_use.authorize('host:get_all', {},
                                         _context('admin')))


class TestAuthorize(PolicyTestCase):

    def test_admin_is_allowed(self):
        admin = _context('admin')
        for rule in API_RULES + PLACEMENT_API_RULES:
            if rule != 'placement:reshaper:reshape':
                policy.authorize(admin, rule)
        self.assertTrue(policy.check_is_admin(admin))

    def test_only_a_service_reshapes(self):
        # Placement's default: a compute moving its inventory.
        self.assertRaises(oslo_policy.PolicyNotAuthorized, policy.authorize,
                          _context('admin'), 'placement:reshaper:reshape')
        policy.authorize(_context('service'), 'placement:reshaper:reshape')

    def test_member_is_refused(self):
        member = _context('member', 'reader')
        for rule in API_RULES:
            self.assertRaises(oslo_policy.PolicyNotAuthorized,
                              policy.authorize, member, rule)
        # In Placement, only a project's total usage is a member's to see.
        for rule in PLACEMENT_API_RULES:
            if rule != 'placement:usages':
                self.assertRaises(oslo_policy.PolicyNotAuthorized,
                                  policy.authorize, member, rule)
        self.assertRaises(oslo_policy.PolicyNotAuthorized,
                          policy.authorize, member, 'placement:usages',
                          {'project_id': 'another-project'})
        policy.authorize(member, 'placement:usages')
        self.assertFalse(policy.check_is_admin(member))

    def test_the_admin_flag_alone_is_no_admin_role(self):
        # is_admin is what the API derives from the policy, not an input.
        ctx = context.RequestContext(user_id='u', project_id='p',
                                     is_admin=True, roles=['member'])
        self.assertRaises(oslo_policy.PolicyNotAuthorized,
                          policy.authorize, ctx, 'host:get_all')

    def test_unknown_rule_is_an_error(self):
        self.assertRaises(oslo_policy.PolicyNotRegistered,
                          policy.authorize, _context('admin'), 'host:delete')


class TestPolicyFile(PolicyTestCase):
    """An operator's policy file overrides the defaults it names."""

    def _write_policy(self, text):
        with open(self.policy_file, 'w') as f:
            f.write(text)

    def test_file_opens_hosts_to_readers(self):
        self._write_policy('"host:get_all": "role:reader"\n')
        reader = _context('reader')
        policy.authorize(reader, 'host:get_all')
        # The rules the file does not name keep their defaults.
        for rule in ('host:get', 'zun-service:get_all'):
            self.assertRaises(oslo_policy.PolicyNotAuthorized,
                              policy.authorize, reader, rule)
        self.assertRaises(oslo_policy.PolicyNotAuthorized,
                          policy.authorize, _context('member'),
                          'host:get_all')
        policy.authorize(_context('admin'), 'host:get')

    def test_file_can_redefine_the_admin(self):
        # The resource rules refer to context_is_admin; redefining it
        # changes who is an administrator everywhere.
        self._write_policy('"context_is_admin": "role:cloud-admin"\n')
        cloud_admin = _context('cloud-admin')
        for rule in API_RULES:
            policy.authorize(cloud_admin, rule)
        self.assertTrue(policy.check_is_admin(cloud_admin))
        self.assertRaises(oslo_policy.PolicyNotAuthorized,
                          policy.authorize, _context('admin'),
                          'host:get_all')

    def test_no_file_means_the_defaults(self):
        self.assertFalse(os.path.exists(self.policy_file))
        policy.authorize(_context('admin'), 'host:get_all')
        self.assertRaises(oslo_policy.PolicyNotAuthorized,
                          policy.authorize, _context('reader'),
                          'host:get_all')


class TestRememberedDecisions(PolicyTestCase):
    """Allowed decisions are reused for a moment; refusals never are."""

    def _write_policy(self, text):
        with open(self.policy_file, 'w') as f:
            f.write(text)

    def test_an_edit_applies_within_the_ttl(self):
        self.useFixture(fixtures.MonkeyPatch(
            'zun_hostcap.common.policy.DECISION_TTL', 0.2))
        admin = _context('admin')
        policy.authorize(admin, 'host:get_all')
        self._write_policy('"host:get_all": "role:nobody"\n')
        # Within the TTL the allowed decision stands ...
        policy.authorize(admin, 'host:get_all')
        time.sleep(0.25)
        # ... after it the file's rule does.
        self.assertRaises(oslo_policy.PolicyNotAuthorized,
                          policy.authorize, admin, 'host:get_all')

    def test_a_refusal_is_not_remembered(self):
        reader = _context('reader')
        self.assertRaises(oslo_policy.PolicyNotAuthorized,
                          policy.authorize, reader, 'host:get_all')
        self._write_policy('"host:get_all": "role:reader"\n')
        policy.authorize(reader, 'host:get_all')

    def test_a_decision_is_only_for_its_credentials_and_target(self):
        policy.authorize(_context('admin'), 'host:get_all')
        self.assertRaises(oslo_policy.PolicyNotAuthorized,
                          policy.authorize, _context('reader'),
                          'host:get_all')
        member = _context('member', 'reader')
        policy.authorize(member, 'placement:usages')
        self.assertRaises(oslo_policy.PolicyNotAuthorized,
                          policy.authorize, member, 'placement:usages',
                          {'project_id': 'another-project'})
        # A system-scoped token of the same user is another caller.
        system = context.RequestContext(user_id='user', roles=['member'],
                                        system_scope='all')
        self.assertRaises(oslo_policy.InvalidScope,
                          policy.authorize, system, 'placement:usages')

    def test_reset_forgets_at_once(self):
        admin = _context('admin')
        policy.authorize(admin, 'host:get_all')
        self._write_policy('"host:get_all": "role:nobody"\n')
        policy.reset()
        self.assertRaises(oslo_policy.PolicyNotAuthorized,
                          policy.authorize, admin, 'host:get_all')

    def test_the_memory_is_bounded(self):
        self.useFixture(fixtures.MonkeyPatch(
            'zun_hostcap.common.policy.MAX_DECISIONS', 3))
        for index in range(10):
            policy.authorize(_context('admin'), 'placement:usages',
                             {'project_id': 'p%d' % index})
        self.assertLessEqual(len(policy._DECISIONS.allowed), 3)


class TestOsloPolicyTools(base.TestCase):
    """What the oslopolicy-* tools and `tox -e genpolicy` find."""

    def _entry_point(self, group):
        found = [ep for ep in importlib.metadata.entry_points(group=group)
                 if ep.name == 'zun-hostcap']
        self.assertEqual(1, len(found), found)
        return found[0].load()

    def test_policies_entry_point(self):
        self.assertIs(policies.list_rules,
                      self._entry_point('oslo.policy.policies'))

    def test_enforcer_entry_point(self):
        self.assertIs(policy.get_enforcer,
                      self._entry_point('oslo.policy.enforcer'))

    def _run_tool(self, name, *args):
        tool = os.path.join(os.path.dirname(sys.executable), name)
        # From the repository, as tox runs them: the generator's config
        # file names its default output relative to it. The timeout only
        # keeps a hung tool from hanging the test run.
        result = subprocess.run([tool] + list(args), cwd=REPO,
                                capture_output=True, text=True, timeout=120)
        self.assertEqual(0, result.returncode, result.stderr)

    def test_policy_generator_merges_the_operator_file(self):
        # oslopolicy-policy-generator asks our enforcer entry point for
        # the effective policy, with the service's configuration parsed.
        tmp = self.useFixture(fixtures.TempDir()).path
        policy_file = os.path.join(tmp, 'policy.yaml')
        with open(policy_file, 'w') as f:
            f.write('"host:get_all": "role:reader"\n')
        config_file = os.path.join(tmp, 'zun-hostcap.conf')
        with open(config_file, 'w') as f:
            f.write('[oslo_policy]\npolicy_file = %s\n' % policy_file)
        output = os.path.join(tmp, 'effective.yaml')
        self._run_tool('oslopolicy-policy-generator',
                       '--namespace', 'zun-hostcap',
                       '--config-file', config_file,
                       '--output-file', output)
        # One '"rule": "check"' line per rule: YAML that is also JSON.
        with open(output) as f:
            effective = json.loads(
                '{%s}' % ','.join(line for line in f if line.strip()))
        expected = {rule.name: rule.check_str
                    for rule in policies.list_rules()}
        expected['host:get_all'] = 'role:reader'
        self.assertEqual(expected, effective)

    def test_sample_generator_documents_every_rule(self):
        output = os.path.join(self.useFixture(fixtures.TempDir()).path,
                              'policy.yaml.sample')
        self._run_tool('oslopolicy-sample-generator',
                       '--config-file', GENERATOR_CONF,
                       '--output-file', output)
        with open(output) as f:
            sample = f.read()
        # The comments, unwrapped.
        comments = ' '.join(line.lstrip('#').strip()
                            for line in sample.splitlines()
                            if line.startswith('# '))
        for rule in policies.list_rules():
            # Commented out: the sample documents the defaults.
            self.assertIn('\n#"%s": "%s"\n' % (rule.name, rule.check_str),
                          sample)
            self.assertIn(' '.join(rule.description.split()), comments)
            for operation in getattr(rule, 'operations', []):
                self.assertIn('# %(method)s  %(path)s\n' % operation, sample)
