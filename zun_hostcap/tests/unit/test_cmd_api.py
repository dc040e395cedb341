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

"""zun-hostcap-api warns when noauth2 is reachable from other hosts."""

import logging

import fixtures

from zun_hostcap.cmd import api as cmd_api
from zun_hostcap.tests import base


class TestNoAuthWarning(base.TestCase):

    def _warnings(self, host, auth_strategy):
        self.flags(host=host, auth_strategy=auth_strategy, group='api')
        logger = self.useFixture(fixtures.FakeLogger(
            name='zun_hostcap.cmd.api', level=logging.WARNING))
        cmd_api.warn_if_exposed_without_auth()
        return logger.output

    def test_noauth2_on_every_address_warns(self):
        self.assertIn('anyone who reaches it is an administrator',
                      self._warnings('0.0.0.0', 'noauth2'))

    def test_noauth2_on_loopback_is_quiet(self):
        for host in ('127.0.0.1', '::1', 'localhost'):
            self.assertEqual('', self._warnings(host, 'noauth2'), host)

    def test_keystone_is_quiet(self):
        self.assertEqual('', self._warnings('0.0.0.0', 'keystone'))
