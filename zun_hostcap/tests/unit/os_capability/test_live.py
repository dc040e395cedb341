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

"""Checks against the real host running the tests."""

import os
import platform
import re
import shutil

from oslotest import base

from zun_hostcap.os_capability import linux


def _proc_meminfo_total():
    with open('/proc/meminfo') as f:
        return int(re.search(r'^MemTotal:\s+(\d+) kB$', f.read(),
                             re.MULTILINE).group(1))


class LiveHostTestCase(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        if platform.system() != 'Linux':
            self.skipTest('needs Linux')

    def test_lscpu_and_sysfs_agree(self):
        if not shutil.which('lscpu'):
            self.skipTest('lscpu is not installed')
        from_lscpu = linux.LinuxDriver(cpu_source='lscpu').get_cpu_info()
        from_sysfs = linux.LinuxDriver(cpu_source='sysfs').get_cpu_info()
        self.assertEqual(from_lscpu, from_sysfs)
        self.assertEqual(tuple(sorted(os.sched_getaffinity(0))),
                         from_sysfs.usable_cpus)

    def test_capabilities_are_sane(self):
        caps = linux.LinuxDriver().get_capabilities()
        self.assertEqual(_proc_meminfo_total(), caps.memory.mem_total)
        # os.cpu_count() counts online CPUs; cpus counts present ones.
        self.assertEqual(os.cpu_count(), len(caps.cpu.online_cpus))
        if not caps.cpu.offline_cpus:
            self.assertEqual(os.cpu_count(), caps.cpu.cpus)
        self.assertEqual(platform.machine(), caps.cpu.architecture)
        self.assertEqual(
            caps.cpu.cpus,
            len(caps.cpu.online_cpus) + len(caps.cpu.offline_cpus))
        self.assertLessEqual(set(caps.cpu.usable_cpus),
                             set(caps.cpu.online_cpus))
        self.assertGreaterEqual(caps.cpu.sockets * caps.cpu.cores_per_socket
                                * caps.cpu.threads_per_core,
                                len(caps.cpu.online_cpus))
        self.assertLessEqual(caps.memory.mem_free, caps.memory.mem_total)
        self.assertTrue(caps.numa_topology)
        self.assertEqual(set(caps.cpu.online_cpus),
                         {c for n in caps.numa_topology for c in n.cpus})
        self.assertGreater(caps.disk.total_bytes, 0)
        self.assertLessEqual(caps.disk.free_bytes + caps.disk.used_bytes,
                             caps.disk.total_bytes)
        self.assertEqual('linux', caps.os.os_type)
        self.assertEqual(platform.release(), caps.os.kernel_version)
        self.assertEqual(platform.node(), caps.os.hostname)
