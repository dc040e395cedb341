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

from zun_hostcap.os_capability import errors
from zun_hostcap.os_capability import meminfo
from zun_hostcap.os_capability import model
from zun_hostcap.tests.unit.os_capability import utils


class ParseMeminfoTestCase(base.BaseTestCase):

    def test_two_numa_smt(self):
        info = meminfo.parse_meminfo(
            utils.read_shape_file('two-numa-smt', 'proc/meminfo'))
        self.assertEqual(
            model.MemoryInfo(mem_total=131889016, mem_free=124445152,
                             mem_available=126932420, buffers=312440,
                             cached=2406592, hugepages_total=2048,
                             hugepages_free=2000, hugepage_size_kb=2048),
            info)

    def test_this_host(self):
        info = meminfo.parse_meminfo(
            utils.read_shape_file('this-host', 'proc/meminfo'))
        self.assertGreater(info.mem_total, 0)
        self.assertIsNotNone(info.mem_available)

    def test_old_kernel_without_mem_available_is_partial(self):
        # Linux < 3.14 has no MemAvailable line: None, not an error.
        info = meminfo.parse_meminfo(
            utils.read_shape_file('no-numa', 'proc/meminfo'))
        self.assertIsNone(info.mem_available)
        self.assertEqual(8070184, info.mem_total)

    def test_no_hugepage_lines(self):
        info = meminfo.parse_meminfo(
            'MemTotal: 100 kB\nMemFree: 50 kB\nBuffers: 1 kB\n'
            'Cached: 2 kB\n')
        self.assertEqual((0, 0, None), (info.hugepages_total,
                                        info.hugepages_free,
                                        info.hugepage_size_kb))

    def test_missing_mem_total(self):
        exc = self.assertRaises(
            errors.CapabilityError, meminfo.parse_meminfo,
            'MemFree: 50 kB\nBuffers: 1 kB\nCached: 2 kB\n')
        self.assertEqual('/proc/meminfo: no MemTotal line', str(exc))

    def test_non_numeric_value(self):
        exc = self.assertRaises(
            errors.CapabilityError, meminfo.parse_meminfo,
            'MemTotal: lots kB\nMemFree: 50 kB\n')
        self.assertEqual('/proc/meminfo', exc.source)
        self.assertIn("MemTotal value 'lots kB'", str(exc))

    def test_unknown_unit_and_missing_colon(self):
        for text in ('MemTotal: 100 MB\n', 'MemTotal 100 kB\n',
                     'MemTotal: 100 kB extra\n', 'MemTotal:\n',
                     'MemTotal: -5 kB\n'):
            exc = self.assertRaises(errors.CapabilityError,
                                    meminfo.parse_meminfo, text)
            self.assertEqual('/proc/meminfo', exc.source, text)

    def test_empty(self):
        self.assertRaises(errors.CapabilityError, meminfo.parse_meminfo, '')


class ParseNodeMeminfoTestCase(base.BaseTestCase):
    path = '/sys/devices/system/node/node1/meminfo'

    def test_node(self):
        text = utils.read_shape_file(
            'two-numa-smt', 'sys/devices/system/node/node1/meminfo')
        self.assertEqual((66057272, 63210040),
                         meminfo.parse_node_meminfo(text, 1, self.path))

    def test_wrong_node(self):
        text = 'Node 0 MemTotal: 10 kB\nNode 0 MemFree: 5 kB\n'
        exc = self.assertRaises(errors.CapabilityError,
                                meminfo.parse_node_meminfo, text, 1,
                                self.path)
        self.assertEqual(self.path, exc.source)

    def test_missing_free(self):
        exc = self.assertRaises(errors.CapabilityError,
                                meminfo.parse_node_meminfo,
                                'Node 1 MemTotal: 10 kB\n', 1, self.path)
        self.assertIn('no Node 1 MemFree line', str(exc))
