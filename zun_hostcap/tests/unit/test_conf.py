"""Options reach oslo-config-generator and have sane defaults."""

from zun_hostcap.conf import opts
from zun_hostcap.tests import base


class TestOpts(base.TestCase):

    def test_list_opts_names_every_group(self):
        groups = {getattr(group, 'name', group) for group, _ in
                  opts.list_opts()}
        self.assertEqual({'DEFAULT', 'api', 'compute', 'conductor',
                          'notifications', 'upgrade_levels'}, groups)

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
        self.assertEqual(9517, self.conf.api.port)
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
