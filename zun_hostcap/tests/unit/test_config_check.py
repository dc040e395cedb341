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

"""Misconfigurations found at start, each told in one line."""

import os
import subprocess
import sys

import fixtures
from keystoneauth1 import loading as ks_loading
import webob

from zun_hostcap.api import auth
from zun_hostcap.api import errors
from zun_hostcap.common import config_check
from zun_hostcap.tests import base


class TestInvalidOptions(base.TestCase):

    def _parse(self, text):
        path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            'zun-hostcap.conf')
        with open(path, 'w') as f:
            f.write(text)
        self.conf(['--config-file', path], default_config_files=[])
        return path

    def test_each_bad_value_names_option_value_file_and_expectation(self):
        path = self._parse('[DEFAULT]\nreport_interval = 0\n'
                           '[compute]\nresource_update_interval = abc\n'
                           '[api]\nauth_strategy = kerberos\n')
        self.assertEqual(
            sorted(["[DEFAULT] report_interval = '0' (in %s) is not valid; "
                    "expected an integer of at least 1" % path,
                    "[compute] resource_update_interval = 'abc' (in %s) is "
                    "not valid; expected an integer of at least 1" % path,
                    "[api] auth_strategy = 'kerberos' (in %s) is not valid; "
                    "expected one of keystone, noauth2" % path]),
            sorted(config_check.invalid_options(self.conf)))

    def test_a_library_option_is_told_in_its_library_words(self):
        self._parse('[oslo_middleware]\nmax_request_body_size = big\n')
        [message] = config_check.invalid_options(self.conf)
        self.assertIn("[oslo_middleware] max_request_body_size = 'big'",
                      message)
        self.assertIn('invalid literal for int()', message)

    def test_oslo_messaging_options_are_told_as_ours(self):
        # They reach the sample through our namespace (conf/opts.py).
        self._parse('[oslo_messaging_rabbit]\nrabbit_retry_interval = '
                    'often\n')
        [message] = config_check.invalid_options(self.conf)
        self.assertIn("[oslo_messaging_rabbit] rabbit_retry_interval = "
                      "'often'", message)
        self.assertIn('expected an integer of at least 1', message)

    def test_oslo_db_options_are_told_as_ours(self):
        self._parse('[database]\nmax_retries = many\n')
        [message] = config_check.invalid_options(self.conf)
        self.assertIn("[database] max_retries = 'many'", message)
        self.assertIn('expected an integer', message)

    def test_a_valid_configuration_has_nothing_to_say(self):
        self._parse('[compute]\nresource_update_interval = 5\n')
        self.assertEqual([], config_check.invalid_options(self.conf))


class TestStatePath(base.TestCase):

    def test_a_missing_directory_is_created(self):
        path = os.path.join(self.useFixture(fixtures.TempDir()).path, 'a',
                            'b')
        config_check.check_state_path(path)
        self.assertTrue(os.path.isdir(path))

    def test_a_directory_that_cannot_be_created(self):
        tmp = self.useFixture(fixtures.TempDir()).path
        a_file = os.path.join(tmp, 'file')
        open(a_file, 'w').close()
        err = self.assertRaises(config_check.StartupError,
                                config_check.check_state_path,
                                os.path.join(a_file, 'state'))
        self.assertIn('[DEFAULT] state_path', str(err))
        self.assertIn('cannot create the directory: Not a directory',
                      str(err))

    def test_a_file_is_not_a_state_directory(self):
        a_file = os.path.join(self.useFixture(fixtures.TempDir()).path, 'f')
        open(a_file, 'w').close()
        err = self.assertRaises(config_check.StartupError,
                                config_check.check_state_path, a_file)
        self.assertIn('cannot create the directory: File exists', str(err))


class TestDatabaseURL(base.TestCase):

    def test_mysql_gets_utf8mb4(self):
        self.assertEqual(
            'mysql+pymysql://u:secret@db/zun_hostcap?charset=utf8mb4',
            config_check.database_url(
                'mysql+pymysql://u:secret@db/zun_hostcap'))

    def test_a_chosen_charset_and_other_databases_are_kept(self):
        for url in ('mysql+pymysql://u:p@db/z?charset=utf8',
                    'postgresql://u:p@db/z', 'sqlite:////var/lib/z.sqlite'):
            self.assertEqual(url, config_check.database_url(url))

    def test_a_driver_that_is_not_installed(self):
        err = self.assertRaises(config_check.StartupError,
                                config_check.database_url,
                                'mysql://u:secret@db/zun_hostcap')
        self.assertEqual(
            "[database] connection = mysql://u:***@db/zun_hostcap: its "
            "driver is not installed (No module named 'MySQLdb'); install "
            "it, or use mysql+pymysql:// whose driver pip install "
            "zun-hostcap[mysql] installs", str(err))

    def test_an_unknown_database(self):
        err = self.assertRaises(config_check.StartupError,
                                config_check.database_url, 'nosql://x/y')
        self.assertIn("SQLAlchemy knows no database 'nosql'", str(err))

    def test_not_a_url(self):
        for value in ('not a url', ''):
            err = self.assertRaises(config_check.StartupError,
                                    config_check.database_url, value)
            self.assertIn('[database] connection', str(err))


class TestKeystoneConfiguration(base.TestCase):

    def setUp(self):
        super().setUp()
        # Loading the password plugin registers its options, some of them
        # required, on the process' configuration: take them away again,
        # or every later parse of it fails.
        self.addCleanup(self._unregister_plugin_options)

    def _unregister_plugin_options(self):
        self.conf.reset()
        self.conf.unregister_opts(
            ks_loading.get_auth_plugin_conf_options('password'),
            group=auth.AUTHTOKEN_GROUP)

    def test_noauth2_needs_nothing(self):
        self.flags(group='api', auth_strategy='noauth2')
        auth.check_configuration()

    def test_keystone_without_keystone_authtoken(self):
        self.flags(group='api', auth_strategy='keystone')
        err = self.assertRaises(config_check.StartupError,
                                auth.check_configuration)
        self.assertIn('[keystone_authtoken] has no auth_type', str(err))
        self.assertIn('auth_strategy = noauth2', str(err))

    def test_a_complete_keystone_authtoken(self):
        self.flags(group='api', auth_strategy='keystone')
        self.assertRaises(config_check.StartupError,
                          auth.check_configuration)
        self.flags(group='keystone_authtoken', auth_type='password')
        err = self.assertRaises(config_check.StartupError,
                                auth.check_configuration)
        self.assertIn('lacks auth_url', str(err))
        self.flags(group='keystone_authtoken',
                   auth_url='https://keystone.example.com/identity',
                   username='zun-hostcap', password='secret',
                   project_name='service', user_domain_name='Default',
                   project_domain_name='Default')
        auth.check_configuration()

    def test_an_unknown_auth_type(self):
        self.flags(group='api', auth_strategy='keystone')
        self.assertRaises(config_check.StartupError,
                          auth.check_configuration)
        self.flags(group='keystone_authtoken', auth_type='no-such-plugin')
        err = self.assertRaises(config_check.StartupError,
                                auth.check_configuration)
        self.assertIn("auth_type = 'no-such-plugin' is not a keystoneauth1 "
                      "plugin", str(err))


class TestKeystoneErrors(base.TestCase):
    """keystonemiddleware's own failures become JSON 503 documents."""

    def _call(self, application, accept='*/*'):
        req = webob.Request.blank('/v1/hosts', headers={'Accept': accept})
        req.environ['openstack.request_id'] = 'req-1'
        return req.get_response(auth.KeystoneErrorsMiddleware(application))

    def test_keystone_unreachable_is_a_clear_503(self):
        def unreachable(environ, start_response):
            # What keystonemiddleware answers: webob's page, HTML for a
            # browser.
            return webob.exc.HTTPServiceUnavailable()(environ,
                                                      start_response)

        resp = self._call(unreachable, accept='text/html')
        self.assertEqual(503, resp.status_int)
        error = resp.json['errors'][0]
        self.assertEqual('container.service_unavailable', error['code'])
        self.assertEqual(auth.KEYSTONE_UNAVAILABLE, error['detail'])
        self.assertNotIn('<', resp.text)

    def test_an_incomplete_configuration_is_a_503_and_one_line(self):
        from keystoneauth1 import exceptions as ks_exc
        log = self.useFixture(fixtures.FakeLogger(name='zun_hostcap'))

        def misconfigured(environ, start_response):
            raise ks_exc.MissingAuthPlugin('An auth plugin is required')

        resp = self._call(misconfigured)
        self.assertEqual(503, resp.status_int)
        self.assertEqual(auth.AUTH_MISCONFIGURED,
                         resp.json['errors'][0]['detail'])
        self.assertEqual(1, len(log.output.splitlines()), log.output)
        self.assertIn('[keystone_authtoken] is incomplete or wrong: '
                      'MissingAuthPlugin', log.output)
        self.assertNotIn('Traceback', log.output)

    def test_other_answers_pass(self):
        def ok(environ, start_response):
            return webob.Response(json_body={'a': 1})(environ,
                                                      start_response)
        self.assertEqual({'a': 1}, self._call(ok).json)
        self.assertTrue(errors.is_document(errors.response(
            503, 'x').body))


class TestAllAtOnce(base.TestCase):
    """A bad database URL is told with the bad values, in one start."""

    def _start(self, text):
        tmp = self.useFixture(fixtures.TempDir()).path
        path = os.path.join(tmp, 'zun-hostcap.conf')
        with open(path, 'w') as f:
            f.write('[DEFAULT]\nstate_path = %s\n' % tmp + text)
        result = subprocess.run(
            [sys.executable, '-c',
             'import sys; from zun_hostcap.cmd.conductor import main; '
             'sys.exit(main())', '--config-file', path],
            capture_output=True, text=True, timeout=120)
        self.assertEqual(1, result.returncode, result.stderr)
        return result.stderr.splitlines()

    def test_an_unknown_database_with_a_bad_value(self):
        lines = self._start('report_interval = abc\n'
                            '[database]\nconnection = nosql://x/y\n')
        self.assertEqual(2, len(lines), lines)
        self.assertIn('report_interval', lines[0])
        self.assertIn("SQLAlchemy knows no database 'nosql'", lines[1])

    def test_a_missing_driver_with_a_bad_value(self):
        lines = self._start('report_interval = abc\n'
                            '[database]\nconnection = '
                            'mysql+mysqldb://u:p@127.0.0.1/x\n')
        self.assertEqual(2, len(lines), lines)
        self.assertIn('its driver is not installed', lines[1])
        self.assertIn('pip install zun-hostcap[mysql]', lines[1])
