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

"""zun-hostcap-status upgrade check against a real MariaDB database.

The console scripts run as an operator runs them, with a configuration
file; the database is a throw-away one on 127.0.0.1.
"""

import json
import os
import subprocess
import time

import fixtures
import testtools

from zun_hostcap.tests.functional import base

SUCCESS, WARNING, FAILURE = 0, 1, 2


class TestUpgradeCheckMySQL(testtools.TestCase):

    def setUp(self):
        super().setUp()
        base.require_port(self, 'MariaDB', 3306)
        self.db = self.useFixture(base.MySQLDatabase())
        self.tmp = self.useFixture(fixtures.TempDir()).path
        self.config = self._config(self.db.url)

    def _config(self, connection):
        return base.write_config(os.path.join(self.tmp, 'zun-hostcap.conf'), {
            'DEFAULT': {'state_path': self.tmp},
            'database': {'connection': connection},
            # No policy file of this machine.
            'oslo_policy': {
                'policy_file': os.path.join(self.tmp, 'policy.yaml')},
        })

    def _run(self, script, *args):
        result = subprocess.run(
            base.console_script(script) + ['--config-file', self.config] +
            list(args), capture_output=True, text=True, timeout=120)
        return result.returncode, result.stdout, result.stderr

    def _db_manage(self, *args):
        return self._run('zun-hostcap-db-manage', *args)

    def _check(self):
        """Exit status and {check: (result, details)} of the JSON output."""
        code, out, err = self._run('zun-hostcap-status', 'upgrade', 'check',
                                   '--json')
        self.assertEqual('', err)
        checks = json.loads(out)['checks']
        return code, {c['check']: (c['result'], c['details'])
                      for c in checks}

    def test_schema_at_head_is_ready(self):
        self.assertEqual(0, self._db_manage('upgrade')[0])
        code, checks = self._check()
        self.assertEqual(0, code, checks)
        self.assertEqual(
            (SUCCESS, 'The schema is at revision 0003, the newest of this '
                      'release.'), checks['Database Schema'])
        self.assertEqual({SUCCESS}, {result for result, _ in
                                     checks.values()})
        # The table an operator reads says the same.
        code, out, _err = self._run('zun-hostcap-status', 'upgrade',
                                    'check')
        self.assertEqual(0, code)
        self.assertIn('| Check: Database Schema', out)
        self.assertEqual(5, out.count('| Result: Success'))

    def test_database_without_schema_fails(self):
        code, checks = self._check()
        self.assertEqual(2, code)
        result, details = checks['Database Schema']
        self.assertEqual(FAILURE, result)
        self.assertEqual(
            'The database %s has no schema (no revision). Create it with '
            '"zun-hostcap-db-manage upgrade".'
            % self.db.url.replace(':openstack_citest@', ':***@'), details)

    def test_stamped_behind_head_fails_until_stamped_back(self):
        self.assertEqual(0, self._db_manage('upgrade')[0])
        self.assertEqual((0, 'Database has no revision (base)\n', ''),
                         self._db_manage('stamp', 'base'))
        code, checks = self._check()
        self.assertEqual(2, code)
        self.assertEqual(FAILURE, checks['Database Schema'][0])
        self.assertEqual((0, 'Database is at revision 0003\n', ''),
                         self._db_manage('stamp', 'head'))
        self.assertEqual((0, '0003\n', ''), self._db_manage('version'))
        self.assertEqual(0, self._check()[0])

    def test_unreachable_server_fails_at_once(self):
        self.config = self._config(
            'mysql+pymysql://zun:secret@127.0.0.1:1/zun_hostcap')
        start = time.monotonic()
        code, checks = self._check()
        # One attempt, not [database] max_retries times retry_interval.
        self.assertLess(time.monotonic() - start, 30)
        self.assertEqual(2, code)
        result, details = checks['Database Schema']
        self.assertEqual(FAILURE, result)
        self.assertIn('mysql+pymysql://zun:***@127.0.0.1:1/zun_hostcap',
                      details)
        self.assertIn('Connection refused', details)
        self.assertNotIn('secret', details)
