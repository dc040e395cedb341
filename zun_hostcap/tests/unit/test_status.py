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

"""zun-hostcap-status upgrade check: each check, then the command.

The checks read real SQLite files, real policy files and the real alembic
scripts; the command runs as the console script.
"""

import json
import os
import shutil
import subprocess

import fixtures
from oslo_db.sqlalchemy import enginefacade
from oslo_policy import opts as policy_opts
from oslo_upgradecheck import upgradecheck

from zun_hostcap.cmd import status
from zun_hostcap.db import migration
from zun_hostcap.db.sqlalchemy import api as sqla_api
from zun_hostcap.tests import base
from zun_hostcap.tests import fixtures as zun_fixtures
from zun_hostcap.tests.functional import base as functional_base
from zun_hostcap.tests.unit import test_db_manage

SUCCESS = upgradecheck.Code.SUCCESS
WARNING = upgradecheck.Code.WARNING
FAILURE = upgradecheck.Code.FAILURE

# A revision after ours, as the next release would add.
NEXT_REVISION = '''"""The next release's change.

Revision ID: 0004
Revises: 0003
"""

revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None


def upgrade():
    pass
'''


class CheckTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        # Parsed, without any file of this machine.
        self.conf([], default_config_files=[])
        self.tmp = self.useFixture(fixtures.TempDir()).path
        self.checks = status.Checks()

    def use_database(self, path):
        """Point the checks at the SQLite file ``path``, as it is."""
        facade = enginefacade.transaction_context()
        facade.configure(connection='sqlite:///%s' % path)
        self.addCleanup(sqla_api.main_context_manager.patch_factory(
            facade._factory))
        self.addCleanup(lambda: facade._factory._started and
                        sqla_api.get_engine().dispose())


class TestSchemaCheck(CheckTestCase):

    def test_at_head(self):
        self.useFixture(zun_fixtures.Database())
        result = self.checks._check_schema()
        self.assertEqual(SUCCESS, result.code)
        self.assertEqual('The schema is at revision 0003, the newest of this '
                         'release.', result.details)

    def test_behind_head_names_both_revisions_and_the_command(self):
        self.useFixture(zun_fixtures.Database())
        # This code gains a revision the database does not have yet.
        scripts = os.path.join(self.tmp, 'migrations')
        shutil.copytree(migration._MIGRATIONS_DIR, scripts,
                        ignore=shutil.ignore_patterns('__pycache__'))
        with open(os.path.join(scripts, 'versions', '0004_next.py'),
                  'w') as f:
            f.write(NEXT_REVISION)
        self.useFixture(fixtures.MonkeyPatch(
            'zun_hostcap.db.migration._MIGRATIONS_DIR', scripts))
        result = self.checks._check_schema()
        self.assertEqual(FAILURE, result.code)
        self.assertEqual(
            'The schema is at revision 0003; this release needs 0004. Run '
            '"zun-hostcap-db-manage upgrade" before starting the services '
            'of this release.', result.details)

    def test_revision_of_a_newer_release(self):
        db = self.useFixture(zun_fixtures.Database())
        with db.engine.begin() as conn:
            conn.exec_driver_sql(
                "UPDATE alembic_version SET version_num = '0004'")
        result = self.checks._check_schema()
        self.assertEqual(FAILURE, result.code)
        self.assertIn('at revision 0004, which this release does not have '
                      '(its newest is 0003)', result.details)

    def test_no_schema(self):
        path = os.path.join(self.tmp, 'empty.sqlite')
        self.flags(connection='sqlite:///%s' % path, group='database')
        self.use_database(path)
        result = self.checks._check_schema()
        self.assertEqual(FAILURE, result.code)
        self.assertEqual(
            'The database sqlite:///%s has no schema (no revision). Create '
            'it with "zun-hostcap-db-manage upgrade".' % path,
            result.details)

    def test_unreachable_database(self):
        path = os.path.join(self.tmp, 'no-such-dir', 'x.sqlite')
        self.flags(connection='sqlite:///%s' % path, group='database')
        self.use_database(path)
        result = self.checks._check_schema()
        self.assertEqual(FAILURE, result.code)
        self.assertEqual(
            'Cannot read the schema revision of the database sqlite:///%s: '
            '(sqlite3.OperationalError) unable to open database file. '
            'Check [database] connection and that the database server is '
            'up.' % path, result.details)


class TestOnlineMigrationsCheck(CheckTestCase):

    def setUp(self):
        super().setUp()
        self.db = self.useFixture(zun_fixtures.Database())

    def _register(self, *migrations):
        self.useFixture(test_db_manage.RegisteredMigrations(*migrations))

    def test_none_registered(self):
        self._register()
        result = self.checks._check_online_migrations()
        self.assertEqual(SUCCESS, result.code)
        self.assertEqual('This release has no online data migrations: no '
                         'rows wait for one.', result.details)

    def test_rows_waiting_are_counted_without_a_write(self):
        calls = []
        self._register(test_db_manage.fill_column('os_type', 'linux', calls),
                       test_db_manage.fill_column('architecture', 'x86_64',
                                                  calls))
        test_db_manage.create_nodes(self.context, 3,
                                    architecture='aarch64')
        test_db_manage.create_nodes(self.context, 2, prefix='done',
                                    architecture='aarch64', os_type='linux')
        writes = self.db.count_writes()
        result = self.checks._check_online_migrations()
        self.assertEqual(WARNING, result.code)
        self.assertEqual(
            '3 rows wait for an online data migration (fill_os_type: 3). '
            'Run "zun-hostcap-db-manage online_data_migrations" until it '
            'exits 0; the next release needs them migrated.',
            result.details)
        self.assertEqual([], writes)
        # Counting is not migrating: no migration ran.
        self.assertEqual([], calls)

    def test_compute_nodes_of_2026_2_without_a_provider(self):
        test_db_manage.create_nodes(self.context, 2)
        result = self.checks._check_online_migrations()
        self.assertEqual(WARNING, result.code)
        self.assertEqual(
            '2 rows wait for an online data migration '
            '(create_compute_node_providers: 2). Run "zun-hostcap-db-manage '
            'online_data_migrations" until it exits 0; the next release '
            'needs them migrated.', result.details)

    def test_all_migrated(self):
        self._register(test_db_manage.fill_column('os_type', 'linux', []))
        test_db_manage.create_nodes(self.context, 2, os_type='linux')
        result = self.checks._check_online_migrations()
        self.assertEqual(SUCCESS, result.code)
        self.assertEqual('No rows wait for an online data migration (1 '
                         'checked).', result.details)

    def test_a_migration_that_cannot_count(self):
        self._register(test_db_manage.broken_migration)
        result = self.checks._check_online_migrations()
        self.assertEqual(FAILURE, result.code)
        self.assertEqual(
            'Cannot count the rows that wait for broken_migration (the '
            'frobnicator is missing). Is the schema at the newest revision '
            'and the database up?', result.details)


class TestPolicyFileCheck(CheckTestCase):

    def setUp(self):
        super().setUp()
        policy_opts.set_defaults(self.conf)
        self.policy_file = os.path.join(self.tmp, 'policy.yaml')
        self.flags(policy_file=self.policy_file, group='oslo_policy')

    def _write(self, text, path=None):
        with open(path or self.policy_file, 'w') as f:
            f.write(text)

    def test_no_policy_file(self):
        result = self.checks._check_policy_file()
        self.assertEqual(SUCCESS, result.code)
        self.assertEqual('No policy file %s found: the rules in code apply.'
                         % self.policy_file, result.details)

    def test_known_rules_and_the_aliases_they_use(self):
        self._write('"admin_or_reader": "role:admin or role:reader"\n'
                    '"host:get_all": "rule:admin_or_reader"\n'
                    '"host:get": "rule:context_is_admin"\n')
        result = self.checks._check_policy_file()
        self.assertEqual(SUCCESS, result.code)
        self.assertEqual('Every policy file parses and names only rules '
                         'zun-hostcap has: %s.' % self.policy_file,
                         result.details)

    def test_unknown_rules_are_a_warning(self):
        self._write('"host:get": "role:admin"\n'
                    '"hosts:list": "role:admin"\n'
                    '"container:create": "role:member"\n')
        result = self.checks._check_policy_file()
        self.assertEqual(WARNING, result.code)
        self.assertEqual(
            'Rules zun-hostcap does not have, which have no effect: %s: '
            'container:create, hosts:list. Remove them or correct their '
            'names; "oslopolicy-sample-generator --namespace zun-hostcap" '
            'lists the rules.' % self.policy_file, result.details)

    def test_unknown_rules_in_a_policy_directory(self):
        self._write('"host:get": "role:admin"\n')
        policy_dir = os.path.join(self.tmp, 'policy.d')
        os.mkdir(policy_dir)
        self._write('"service:get_all": "role:admin"\n',
                    os.path.join(policy_dir, '10-services.yaml'))
        self.flags(policy_dirs=[policy_dir], group='oslo_policy')
        result = self.checks._check_policy_file()
        self.assertEqual(WARNING, result.code)
        self.assertIn('%s: service:get_all.' % os.path.join(
            policy_dir, '10-services.yaml'), result.details)

    def test_a_file_that_does_not_parse_is_a_failure(self):
        self._write('"host:get": "role:admin"\n  "host:get_all": [\n')
        result = self.checks._check_policy_file()
        self.assertEqual(FAILURE, result.code)
        self.assertEqual(
            "%s does not parse: line 2, column 3: expected <block end>, but "
            "found '<block mapping start>'. zun-hostcap-api cannot load its "
            "policy: every request it authorizes fails until the file is "
            "fixed." % self.policy_file, result.details)

    def test_a_file_without_rules_is_a_failure(self):
        self._write('- host:get\n- role:admin\n')
        result = self.checks._check_policy_file()
        self.assertEqual(FAILURE, result.code)
        self.assertIn('%s holds a list, not a mapping of rule names to '
                      'rules' % self.policy_file, result.details)


class TestRPCPinCheck(CheckTestCase):

    def _check(self, pin):
        self.flags(conductor=pin, group='upgrade_levels')
        return self.checks._check_rpc_pin()

    def test_not_set(self):
        result = self._check(None)
        self.assertEqual(SUCCESS, result.code)
        self.assertEqual('[upgrade_levels] conductor is not set: the '
                         'services send conductor RPC API 1.1, the newest of '
                         'this release.', result.details)

    def test_auto_the_default(self):
        self.assertEqual('auto', self.conf.upgrade_levels.conductor)
        result = self.checks._check_rpc_pin()
        self.assertEqual(SUCCESS, result.code)
        self.assertEqual('[upgrade_levels] conductor = auto: each compute '
                         'service sends what the oldest conductor that is '
                         'up understands, from the versions the conductors '
                         'record (conductor RPC API 1.1 once every '
                         'conductor runs this release).', result.details)

    def test_version_and_release_name_of_this_release(self):
        for pin in ('1.0', '2026.2'):
            result = self._check(pin)
            self.assertEqual(SUCCESS, result.code, pin)
            self.assertEqual('[upgrade_levels] conductor = %s caps the '
                             'conductor RPC API at 1.0. Remove it once every '
                             'service runs this release.' % pin,
                             result.details)

    def test_newer_than_this_release_sends(self):
        for pin in ('1.2', '2.0', '1.1.1'):
            result = self._check(pin)
            self.assertEqual(FAILURE, result.code, pin)
            self.assertEqual(
                '[upgrade_levels] conductor = %s is newer than conductor RPC '
                'API 1.1, the newest this release sends. Set it to the '
                'release the oldest service runs, or remove it.' % pin,
                result.details)

    def test_an_older_major_version(self):
        result = self._check('0.9')
        self.assertEqual(FAILURE, result.code)
        self.assertIn('is a major version this release does not send',
                      result.details)

    def test_unknown_release_name_or_nonsense(self):
        for pin in ('2025.1', '2027.1', 'dalmatian', '1'):
            result = self._check(pin)
            self.assertEqual(FAILURE, result.code, pin)
            self.assertEqual(
                '[upgrade_levels] conductor = %s is neither "auto", a '
                'version such as "1.1" nor a release this code knows '
                '(2026.2): services cannot send conductor calls. Correct or '
                'remove it.' % pin,
                result.details)


class TestCommand(base.TestCase):
    """The console script, as an operator runs it."""

    def setUp(self):
        super().setUp()
        self.tmp = self.useFixture(fixtures.TempDir()).path
        self.db_file = os.path.join(self.tmp, 'zun-hostcap.sqlite')
        self.policy_file = os.path.join(self.tmp, 'policy.yaml')
        self.options = {
            'DEFAULT': {'state_path': self.tmp},
            'database': {'connection': 'sqlite:///%s' % self.db_file},
            'oslo_policy': {'policy_file': self.policy_file},
        }

    def _run(self, *args):
        config = functional_base.write_config(
            os.path.join(self.tmp, 'zun-hostcap.conf'), self.options)
        result = subprocess.run(
            functional_base.console_script('zun-hostcap-status') +
            ['--config-file', config, 'upgrade', 'check'] + list(args),
            capture_output=True, text=True, timeout=60)
        return result.returncode, result.stdout, result.stderr

    def _upgrade(self):
        subprocess.run(
            functional_base.console_script('zun-hostcap-db-manage') +
            ['--config-file', functional_base.write_config(
                os.path.join(self.tmp, 'db.conf'), self.options),
             'upgrade'], check=True, capture_output=True, timeout=60)

    def _results(self, *args):
        code, out, err = self._run('--json', *args)
        return code, {check['check']: check['result']
                      for check in json.loads(out)['checks']}, err

    def test_ready_deployment_exits_0(self):
        self._upgrade()
        code, results, err = self._results()
        self.assertEqual(0, code)
        self.assertEqual({'Database Schema': SUCCESS,
                          'Online Data Migrations': SUCCESS,
                          'Policy File': SUCCESS,
                          'Policy File JSON to YAML Migration': SUCCESS,
                          'Conductor RPC Version Pin': SUCCESS}, results)
        # Logs go to stderr, never between the answer's lines.
        self.assertEqual('', err)

    def test_the_worst_result_is_the_exit_status(self):
        self._upgrade()
        with open(self.policy_file, 'w') as f:
            f.write('"hosts:list": "role:admin"\n')
        code, results, _err = self._results()
        self.assertEqual((1, WARNING), (code, results['Policy File']))
        self.options['upgrade_levels'] = {'conductor': '9.9'}
        code, results, _err = self._results()
        self.assertEqual((2, FAILURE),
                         (code, results['Conductor RPC Version Pin']))

    def test_json_policy_file_fails_the_common_check(self):
        self._upgrade()
        with open(self.policy_file, 'w') as f:
            f.write('{"host:get": "role:admin"}\n')
        code, results, _err = self._results()
        self.assertEqual(2, code)
        self.assertEqual(FAILURE,
                         results['Policy File JSON to YAML Migration'])
        self.assertEqual(SUCCESS, results['Policy File'])

    def test_table_of_a_database_without_schema(self):
        code, out, err = self._run()
        self.assertEqual(2, code)
        self.assertEqual('', err)
        lines = [line.strip('| ') for line in out.splitlines()]
        self.assertEqual(['Upgrade Check Results', 'Check: Database Schema',
                          'Result: Failure'],
                         [lines[1], lines[3], lines[4]])
        # Details are wrapped at 60 characters, the path anywhere.
        self.assertIn('has no schema (no revision). Create it with '
                      '"zun-hostcap-db-manage upgrade".',
                      ' '.join(lines[5:out.count('\n')]))
        self.assertEqual(5, out.count('| Check: '))
