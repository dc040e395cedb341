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

from zun_hostcap.os_capability import cpulist
from zun_hostcap.os_capability import errors


class ParseCpuListTestCase(base.BaseTestCase):

    def test_kernel_format(self):
        self.assertEqual((0, 1, 2, 3, 8, 10, 11),
                         cpulist.parse_cpu_list('0-3,8,10-11\n'))

    def test_single_and_unsorted_duplicates(self):
        self.assertEqual((0,), cpulist.parse_cpu_list('0'))
        self.assertEqual((1, 2, 5),
                         cpulist.parse_cpu_list('5,1-2,2'))

    def test_empty_is_no_cpus(self):
        # The kernel's "offline" file is a bare newline when none are.
        self.assertEqual((), cpulist.parse_cpu_list('\n'))
        self.assertEqual((), cpulist.parse_cpu_list(''))
        self.assertEqual((), cpulist.parse_cpu_list(None))

    def test_garbage_names_source_and_field(self):
        exc = self.assertRaises(
            errors.CapabilityError, cpulist.parse_cpu_list, 'x-y',
            'lscpu', 'On-line CPU(s) list')
        self.assertEqual('lscpu', exc.source)
        self.assertEqual(
            "lscpu: cannot parse 'On-line CPU(s) list' value 'x-y'",
            str(exc))

    def test_malformed_lists(self):
        for text in ('1-', '-1', '3-1', '1,,2', '0-3:2/4', '+1', '1 2',
                     '0x1', '1-2-3', '٣'):
            exc = self.assertRaises(errors.CapabilityError,
                                    cpulist.parse_cpu_list, text,
                                    '/sys/devices/system/cpu/online')
            self.assertIn('/sys/devices/system/cpu/online', str(exc))
            self.assertIn("CPU list value %r" % text, str(exc))

    def test_format_round_trip(self):
        for cpus in ((), (0,), (0, 1, 2, 5), (1, 3, 5), tuple(range(64))):
            text = cpulist.format_cpu_list(cpus)
            self.assertEqual(cpus, cpulist.parse_cpu_list(text))
        self.assertEqual('0-2,5,7-8',
                         cpulist.format_cpu_list([8, 7, 5, 2, 1, 0]))
