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
