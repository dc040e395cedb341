"""Base test case of zun-hostcap."""

from oslo_config import fixture as config_fixture
from oslotest import base

from zun_hostcap.common import context
from zun_hostcap.common import policy
import zun_hostcap.conf
from zun_hostcap import objects

CONF = zun_hostcap.conf.CONF


class TestCase(base.BaseTestCase):
    """Isolated configuration and a context; objects registered."""

    def setUp(self):
        super().setUp()
        self.conf = self.useFixture(config_fixture.Config(CONF)).conf
        objects.register_all()
        self.context = context.get_admin_context()
        # The enforcer remembers decisions; a test's options are its own.
        policy.reset()
        self.addCleanup(policy.reset)

    def flags(self, group=None, **overrides):
        """Override configuration options for this test."""
        for name, value in overrides.items():
            self.conf.set_override(name, value, group=group)
