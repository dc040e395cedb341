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

"""[pci] device_spec: which devices a spec matches, and bad specs."""

import os

import fixtures

from zun_hostcap.common import config_check
from zun_hostcap.compute import placement_report
from zun_hostcap.conf import pci_spec
from zun_hostcap import objects
from zun_hostcap.os_capability import model
from zun_hostcap.tests import base


def _device(address, vendor_id='8086', product_id='1572', netdevs=()):
    return model.PciDevice(address=address, vendor_id=vendor_id,
                           product_id=product_id, class_code='020000',
                           numa_node=0, driver=None, netdevs=netdevs)


NIC0 = _device('0000:3b:00.0', netdevs=('ens1f0',))
NIC1 = _device('0000:3b:00.1', netdevs=('ens1f1',))
GPU = _device('0000:d8:00.0', '10de', '1db4')
BRIDGE = _device('0000:00:00.0', '8086', '29c0')
OTHER_DOMAIN = _device('0001:3b:00.0')


def _matching(text, devices=(NIC0, NIC1, GPU, BRIDGE, OTHER_DOMAIN)):
    [spec] = pci_spec.parse(text)
    return [device.address for device in devices if spec.matches(device)]


class TestMatching(base.TestCase):

    def test_vendor_and_product(self):
        self.assertEqual(['0000:3b:00.0', '0000:3b:00.1', '0001:3b:00.0'],
                         _matching('{"vendor_id": "8086", '
                                   '"product_id": "1572"}'))
        # Hex, whatever the case and the leading zeros.
        self.assertEqual(['0000:d8:00.0'],
                         _matching('{"vendor_id": "10DE"}'))
        self.assertEqual(5, len(_matching('{"product_id": "*"}')))

    def test_address_glob(self):
        self.assertEqual(['0000:3b:00.1'],
                         _matching('{"address": "0000:3b:00.1"}'))
        # Parts left out, or "*", are any.
        self.assertEqual(['0000:3b:00.0', '0000:3b:00.1', '0001:3b:00.0'],
                         _matching('{"address": "*:3b:00.*"}'))
        self.assertEqual(['0000:3b:00.0', '0001:3b:00.0'],
                         _matching('{"address": "3b:00.0"}'))
        self.assertEqual(['0000:3b:00.0', '0000:3b:00.1', '0000:d8:00.0',
                          '0000:00:00.0', '0001:3b:00.0'],
                         _matching('{"address": ":00."}'))

    def test_address_regex_matches_each_whole_part(self):
        self.assertEqual(['0000:3b:00.1'], _matching(
            '{"address": {"domain": "0+", "bus": "3[a-c]", '
            '"function": "[1-7]"}}'))
        # "3" is not the whole of "3b".
        self.assertEqual([], _matching('{"address": {"bus": "3"}}'))

    def test_devname(self):
        self.assertEqual(['0000:3b:00.1'],
                         _matching('{"devname": "ens1f1"}'))
        self.assertEqual([], _matching('{"devname": "eth0"}'))

    def test_a_spec_without_match_keys_matches_everything(self):
        self.assertEqual(5, len(_matching('{"physical_network": "net1"}')))

    def test_the_first_spec_that_matches_says_how(self):
        specs = pci_spec.flatten([
            pci_spec.parse('{"address": "0000:3b:00.0", '
                           '"resource_class": "fast_port", '
                           '"traits": "port_a"}'),
            pci_spec.parse('[{"product_id": "1572", '
                           '"resource_class": "SRIOV_NET_VF"}, '
                           '{"vendor_id": "10de"}]')])
        self.assertEqual(
            ({'CUSTOM_FAST_PORT': 1, 'SRIOV_NET_VF': 2,
              'CUSTOM_PCI_10DE_1DB4': 1}, {'CUSTOM_PORT_A'}),
            pci_spec.offered([NIC0, NIC1, GPU, BRIDGE, OTHER_DOMAIN],
                             specs))

    def test_names_are_normalized_as_nova_does(self):
        [spec] = pci_spec.parse(
            '{"resource_class": "my-gpu.v2", '
            '"traits": " fast , HW_GPU_API_VULKAN,CUSTOM_X,"}')
        self.assertEqual('CUSTOM_MY_GPU_V2', spec.resource_class)
        self.assertEqual({'CUSTOM_FAST', 'HW_GPU_API_VULKAN', 'CUSTOM_X'},
                         spec.traits)
        [spec] = pci_spec.parse('{"resource_class": "pci_device"}')
        self.assertEqual('PCI_DEVICE', spec.resource_class)


class TestInventory(base.TestCase):

    def setUp(self):
        super().setUp()
        self.node = objects.ComputeNode(
            uuid='9c3c2a26-3b0e-4a55-8b7a-3f3a3b1c8d10', hostname='c-1',
            cpus=4, mem_total=1024, disk_total=10)

    def _inventory(self):
        counts, _traits = pci_spec.offered(
            [NIC0, NIC1, GPU, BRIDGE], placement_report.device_specs())
        return placement_report.inventory_of(self.node, counts)

    def test_without_a_spec_only_the_hosts_own_classes(self):
        self.assertEqual({'VCPU', 'MEMORY_MB', 'DISK_GB'},
                         set(self._inventory()))

    def test_with_specs_the_devices_they_offer(self):
        self.flags(group='pci', device_spec=['{"vendor_id": "10de"}',
                                             '{"devname": "ens1f0"}'])
        inventory = self._inventory()
        self.assertEqual({'VCPU', 'MEMORY_MB', 'DISK_GB',
                          'CUSTOM_PCI_10DE_1DB4', 'CUSTOM_PCI_8086_1572'},
                         set(inventory))
        self.assertEqual(
            {'total': 1, 'reserved': 0, 'min_unit': 1, 'max_unit': 1,
             'step_size': 1, 'allocation_ratio': 1.0},
            inventory['CUSTOM_PCI_8086_1572'])


class TestBadSpecs(base.TestCase):

    def assertRefused(self, text, message):
        err = self.assertRaises(pci_spec.SpecError, pci_spec.parse, text)
        self.assertIn(message, str(err))

    def test_each_is_refused_with_its_reason(self):
        for text, message in (
                ('{"vendor_id": 8086}', 'vendor_id 8086 is not a string'),
                ('{"vendor_id": "80861"}', 'is not four hex digits'),
                ('{"product_id": "xyz"}', 'is not four hex digits'),
                ('{"vendorid": "8086"}', 'unknown key "vendorid"'),
                ('{"address": "0000:3b:00.0", "devname": "eth0"}',
                 'address and devname cannot both be given'),
                ('{"address": "1:2:3:4"}', 'is not [[domain:]bus:]slot'),
                ('{"address": "0000:3b:20.0"}', 'slot "20" is not hex up '
                                                'to 1f'),
                ('{"address": "0000:3b:00.8"}', 'function "8"'),
                ('{"address": {"bus": "("}}', 'is not a regular expr'),
                ('{"address": {"device": "1"}}', 'address has device'),
                ('{"address": 5}', 'is not a string or an object'),
                ('{"resource_class": "VCPU"}', 'is the host\'s own'),
                ('{"traits": ["A"]}', 'is not a comma-separated string'),
                ('"8086"', 'is not a JSON object'),
                ('[]', 'an empty list'),
                ('{vendor_id: 8086}', 'not JSON')):
            self.assertRefused(text, message)

    def test_a_bad_spec_in_the_file_is_one_line_at_start(self):
        path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            'zun-hostcap.conf')
        with open(path, 'w') as f:
            f.write('[pci]\ndevice_spec = {"vendor_id": "10de"}\n'
                    'device_spec = {"vendorid": "8086"}\n')
        self.conf(['--config-file', path], default_config_files=[])
        [message] = config_check.invalid_options(self.conf)
        self.assertTrue(message.startswith('[pci] device_spec = '), message)
        self.assertIn('(in %s) is not valid: unknown key "vendorid"' % path,
                      message)
        self.assertNotIn('\n', message)

    def test_a_spec_removed_with_sighup_is_gone(self):
        path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            'zun-hostcap.conf')
        with open(path, 'w') as f:
            f.write('[pci]\ndevice_spec = {"vendor_id": "10de"}\n')
        self.conf(['--config-file', path], default_config_files=[])
        self.assertEqual(1, len(placement_report.device_specs()))
        with open(path, 'w') as f:
            f.write('[pci]\n')
        # What a service does on SIGHUP.
        self.conf.mutate_config_files()
        self.assertEqual([], placement_report.device_specs())
