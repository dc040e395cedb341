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

"""The compute manager's options, applied at start and on SIGHUP."""

from zun_hostcap.compute import container
from zun_hostcap.compute import manager
from zun_hostcap.os_capability import fake as fake_host
from zun_hostcap.tests import base


def fake_manager():
    """A ComputeManager of 'compute-1' on the fake host and containers."""
    return manager.ComputeManager(
        host='compute-1',
        host_driver=fake_host.FakeDriver(fake_host.sample_capabilities()),
        container_driver=container.load_driver('fake'))


class TestUpdateInterval(base.TestCase):

    def test_the_configured_interval_is_used(self):
        self.flags(group='compute', resource_update_interval=7)
        self.assertEqual(
            7, fake_manager()._periodic_spacing['update_available_resource'])

    def test_reset_applies_a_new_interval(self):
        self.flags(group='compute', resource_update_interval=60)
        compute = fake_manager()
        self.flags(group='compute', resource_update_interval=5)
        compute.reset()
        self.assertEqual(
            5, compute._periodic_spacing['update_available_resource'])
