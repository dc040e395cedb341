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

from oslotest import base

from zun_hostcap.os_capability import cpuinfo
from zun_hostcap.tests.unit.os_capability import utils

OLD_ARM64 = """Processor\t: AArch64 Processor rev 0 (aarch64)
processor\t: 0
processor\t: 1

Features\t: fp asimd evtstrm
CPU implementer\t: 0x41
CPU architecture: AArch64
CPU variant\t: 0x0
CPU part\t: 0xd07
CPU revision\t: 0

Hardware\t: Juno
"""


class ParseCpuinfoTestCase(base.BaseTestCase):

    def test_x86_first_processor(self):
        text = ('processor\t: 0\nmodel name\t: First  \nflags\t\t: b a\n\n'
                'processor\t: 1\nmodel name\t: Second\nflags\t\t: c\n')
        self.assertEqual(('First', ('a', 'b')), cpuinfo.parse_cpuinfo(text))

    def test_aarch64_maps_arm_part(self):
        name, flags = cpuinfo.parse_cpuinfo(
            utils.read_shape_file('aarch64', 'proc/cpuinfo'))
        self.assertEqual('Neoverse-N1', name)
        self.assertIn('evtstrm', flags)

    def test_old_arm64_layout(self):
        self.assertEqual(('Cortex-A57', ('asimd', 'evtstrm', 'fp')),
                         cpuinfo.parse_cpuinfo(OLD_ARM64))

    def test_other_implementer(self):
        text = 'processor\t: 0\nCPU implementer\t: 0x50\nCPU part\t: 0x000\n'
        self.assertEqual((None, ()), cpuinfo.parse_cpuinfo(text))

    def test_empty(self):
        self.assertEqual((None, ()), cpuinfo.parse_cpuinfo(''))
