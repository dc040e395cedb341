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

"""Options reach oslo-config-generator and have sane defaults."""

import os
import subprocess
import sys

import fixtures

from zun_hostcap.conf import opts
from zun_hostcap.tests import base

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
GENERATOR_CONF = os.path.join(REPO, 'etc', 'zun-hostcap',
                              'zun-hostcap-config-generator.conf')


class TestOpts(base.TestCase):

    def test_list_opts_names_every_group(self):
        groups = {getattr(group, 'name', group) for group, _ in
                  opts.list_opts()}
        self.assertEqual({'DEFAULT', 'api', 'compute', 'conductor',
                          'database', 'docker', 'metrics', 'notifications',
                          'pci', 'placement', 'upgrade_levels',
                          # oslo.messaging's, listed through ours.
                          'oslo_messaging_kafka',
                          'oslo_messaging_notifications',
                          'oslo_messaging_rabbit'},
                         groups)

    def test_database_defaults_to_sqlite_under_state_path(self):
        self.flags(state_path='/srv/zhc')
        self.assertEqual('sqlite:////srv/zhc/zun-hostcap.sqlite',
                         self.conf.database.connection)

    def test_compute_defaults(self):
        self.assertEqual(60, self.conf.compute.resource_update_interval)
        self.assertEqual(1.0, self.conf.compute.usage_report_granularity)
        self.assertEqual('sysfs', self.conf.compute.cpu_source)

    def test_api_defaults(self):
        self.assertEqual('127.0.0.1', self.conf.api.host)
        self.assertEqual(9518, self.conf.api.port)
        self.assertEqual('keystone', self.conf.api.auth_strategy)

    def test_auth_strategy_is_checked(self):
        self.assertRaises(ValueError, self.flags, auth_strategy='noauth',
                          group='api')

    def test_transport_options_are_registered_compatibly(self):
        # Our early registration must not clash with oslo.messaging's own
        # when it creates a transport.
        import oslo_messaging as messaging
        self.assertEqual('zun-hostcap', self.conf.control_exchange)
        messaging.get_rpc_transport(self.conf, url='fake:/').cleanup()

    def test_bad_values_are_refused(self):
        self.assertRaises(ValueError, self.flags, group='compute',
                          resource_update_interval=0)
        self.assertRaises(ValueError, self.flags, group='compute',
                          cpu_source='dmidecode')


class TestGeneratorRunsClean(base.TestCase):
    """oslo-config-generator as tox -e genconfig runs it: no warning."""

    def _generate(self, *args):
        out = os.path.join(self.useFixture(fixtures.TempDir()).path,
                           'zun-hostcap.conf.sample')
        generator = os.path.join(os.path.dirname(sys.executable),
                                 'oslo-config-generator')
        # Python's default warning filters, whatever the test runner's.
        env = {name: value for name, value in os.environ.items()
               if name != 'PYTHONWARNINGS'}
        result = subprocess.run([generator, '--output-file', out] +
                                list(args), capture_output=True, text=True,
                                env=env, timeout=120)
        self.assertEqual(0, result.returncode, result.stderr)
        return result.stderr

    def test_the_sample_of_tox_genconfig(self):
        stderr = self._generate('--config-file', GENERATOR_CONF)
        self.assertNotIn('Warning', stderr)
        self.assertNotIn('eventlet', stderr.lower())

    def test_our_namespace_alone(self):
        stderr = self._generate('--namespace', 'zun_hostcap')
        self.assertNotIn('Warning', stderr)
        self.assertNotIn('eventlet', stderr.lower())


class TestConfigSample(base.TestCase):
    """The sample oslo-config-generator writes: what takes effect only."""

    def setUp(self):
        super().setUp()
        out = os.path.join(self.useFixture(fixtures.TempDir()).path,
                           'zun-hostcap.conf.sample')
        generator = os.path.join(os.path.dirname(sys.executable),
                                 'oslo-config-generator')
        subprocess.run([generator, '--config-file', GENERATOR_CONF,
                        '--output-file', out], check=True,
                       capture_output=True)
        with open(out) as f:
            self.sample = '\n' + f.read()

    def _section(self, name):
        return self.sample.split('\n[%s]\n' % name, 1)[1].split('\n[', 1)[0]

    def test_options_the_services_read_are_there(self):
        for section, option in (
                ('DEFAULT', 'graceful_shutdown_timeout'),
                ('DEFAULT', 'log_options'),
                ('DEFAULT', 'transport_url'),
                ('api', 'port = 9518'),
                ('database', 'connection = sqlite:///$state_path/'),
                ('healthcheck', 'backends = database'),
                ('keystone_authtoken', 'www_authenticate_uri'),
                ('oslo_messaging_notifications', 'driver'),
                ('oslo_policy', 'policy_file'),
                ('oslo_reports', 'log_dir'),
                ('oslo_versionedobjects', 'fatal_exception_format_errors'),
                ('cors', 'allowed_origin'),
                ('oslo_middleware', 'max_request_body_size'),
                ('oslo_middleware', 'enable_proxy_headers_parsing')):
            self.assertIn('#' + option, self._section(section),
                          (section, option))

    def test_options_without_effect_are_not(self):
        for option in ('backdoor_port', 'backdoor_socket',
                       'run_external_periodic_tasks', 'lock_path',
                       'wsgi_log_format'):
            self.assertNotIn('#%s ' % option, self.sample)

    def test_the_database_group_says_who_reads_it(self):
        database = self._section('database')
        self.assertIn('zun-hostcap-api reads it', ' '.join(database.split(
            '\n# ')))
        self.assertIn('pip install zun-hostcap[mysql]', database)
