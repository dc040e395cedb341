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

"""[pci]: the PCI devices of this host offered to Placement."""

from oslo_config import cfg

from zun_hostcap.conf import pci_spec

pci_group = cfg.OptGroup(
    'pci',
    title='PCI devices',
    help='Which PCI devices of this host the compute service reports to '
         'Placement as inventory. The hosts API lists every device '
         'whatever this says.')

pci_opts = [
    cfg.MultiOpt(
        'device_spec',
        item_type=pci_spec.DeviceSpecType(),
        default=[],
        mutable=True,
        help='The PCI devices of this host offered as Placement inventory, '
             'as Nova\'s option of the same name: each value a JSON object '
             '(or a list of them), and a device offered when one matches '
             'it, the first that matches saying how. Match keys: '
             '"vendor_id" and "product_id" (four hex digits, or an '
             'asterisk for any), "address" (a string such as '
             '"0000:af:00.1", whose domain, bus, slot or function may be '
             'left out or be an asterisk for any; or an object of regular '
             'expressions by "domain", "bus", "slot" and "function") and '
             '"devname" (a network interface of the device; not with '
             'address); a spec without any matches every device. '
             '"resource_class" names the class the devices are counted '
             'in (by default CUSTOM_PCI_VENDOR_PRODUCT of the device\'s '
             'ids; a name that is not a standard class is made a custom '
             'one) and "traits", a comma-separated string, the traits put '
             'on this host\'s provider with them (made custom likewise). '
             'Nova\'s other keys (physical_network, trusted, ...) are '
             'accepted and ignored. Not set (the default): no device is '
             'offered, not even those the host itself uses. Example: '
             'device_spec = {"vendor_id": "10de", "product_id": "1db4", '
             '"resource_class": "GPU_V100", "traits": "CUDA_7"}. Reloaded '
             'on SIGHUP. A spec removed takes its inventory and traits '
             'away at the next update, but not the inventory while '
             'allocations hold some of it: then one warning names the '
             'consumers.'),
]


def register_opts(conf):
    conf.register_group(pci_group)
    conf.register_opts(pci_opts, group=pci_group)


def list_opts():
    return {pci_group: pci_opts}
