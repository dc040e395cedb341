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

from unittest import mock

import fixtures
from oslo_concurrency import processutils
from oslotest import base

from zun_hostcap.os_capability import errors
from zun_hostcap.os_capability import linux
from zun_hostcap.os_capability import lscpu
from zun_hostcap.tests.unit.os_capability import utils

MINIMAL = """Architecture: x86_64
CPU(s): 4
On-line CPU(s) list: 0-3
Thread(s) per core: 2
Core(s) per socket: 2
Socket(s): 1
"""


class ParseLscpuTestCase(base.BaseTestCase):

    def parse_shape(self, shape):
        return lscpu.parse_lscpu(utils.read_shape_file(shape, 'lscpu.txt'))

    def test_two_numa_smt(self):
        info = self.parse_shape('two-numa-smt')
        self.assertEqual('x86_64', info.architecture)
        self.assertEqual('Intel(R) Xeon(R) CPU E5-2623 v4 @ 2.60GHz',
                         info.model_name)
        self.assertEqual(16, info.cpus)
        self.assertEqual(tuple(range(16)), info.online_cpus)
        self.assertEqual((), info.offline_cpus)
        self.assertEqual((2, 4, 2), (info.sockets, info.cores_per_socket,
                                     info.threads_per_core))
        self.assertEqual(2, info.numa_nodes)
        self.assertEqual({0: (0, 1, 2, 3, 8, 9, 10, 11),
                          1: (4, 5, 6, 7, 12, 13, 14, 15)}, info.numa_cpus)
        self.assertIn('vmx', info.flags)
        self.assertEqual(tuple(sorted(info.flags)), info.flags)
        self.assertEqual(info.online_cpus, info.usable_cpus)

    def test_offline_cpus(self):
        info = self.parse_shape('offline-cpus')
        self.assertEqual(8, info.cpus)
        self.assertEqual((0, 1, 2, 3), info.online_cpus)
        self.assertEqual((4, 5, 6, 7), info.offline_cpus)
        self.assertEqual(1, info.threads_per_core)

    def test_aarch64_clusters_and_indented_output(self):
        info = self.parse_shape('aarch64')
        self.assertEqual('aarch64', info.architecture)
        self.assertEqual('Neoverse-N1', info.model_name)
        # "Socket(s): -": derived as 16 online / (16 cores * 1 thread).
        self.assertEqual((1, 16, 1), (info.sockets, info.cores_per_socket,
                                      info.threads_per_core))
        self.assertEqual({0: tuple(range(16))}, info.numa_cpus)
        self.assertIn('asimd', info.flags)

    def test_no_numa_lines(self):
        info = self.parse_shape('no-numa')
        self.assertEqual(0, info.numa_nodes)
        self.assertEqual({}, info.numa_cpus)

    def test_minimal_output(self):
        info = lscpu.parse_lscpu(MINIMAL)
        self.assertIsNone(info.model_name)
        self.assertEqual((), info.flags)
        self.assertEqual(0, info.numa_nodes)

    def test_sockets_missing_is_derived(self):
        text = MINIMAL.replace('Socket(s): 1\n', '').replace(
            'Core(s) per socket', 'Core(s) per cluster')
        self.assertEqual(1, lscpu.parse_lscpu(text).sockets)

    def test_first_occurrence_wins(self):
        # Hosts with two CPU types repeat the per-type keys.
        text = MINIMAL + 'Model name: A\nModel name: B\n'
        self.assertEqual('A', lscpu.parse_lscpu(text).model_name)

    def test_garbage_cpu_list(self):
        text = MINIMAL.replace('0-3', 'x-y')
        exc = self.assertRaises(errors.CapabilityError,
                                lscpu.parse_lscpu, text)
        self.assertEqual(
            "lscpu: cannot parse 'On-line CPU(s) list' value 'x-y'",
            str(exc))

    def test_garbage_numa_list(self):
        text = MINIMAL + 'NUMA node0 CPU(s): 0-a\n'
        exc = self.assertRaises(errors.CapabilityError,
                                lscpu.parse_lscpu, text)
        self.assertIn("'NUMA node0 CPU(s)'", str(exc))

    def test_non_numeric_count(self):
        text = MINIMAL.replace('CPU(s): 4', 'CPU(s): four')
        exc = self.assertRaises(errors.CapabilityError,
                                lscpu.parse_lscpu, text)
        self.assertEqual("lscpu: cannot parse 'CPU(s)' value 'four'",
                         str(exc))

    def test_missing_keys(self):
        for key in ('Architecture', 'CPU(s)', 'On-line CPU(s) list',
                    'Thread(s) per core', 'Core(s) per socket'):
            lines = [line for line in MINIMAL.splitlines()
                     if not line.startswith(key + ':')]
            exc = self.assertRaises(errors.CapabilityError,
                                    lscpu.parse_lscpu, '\n'.join(lines))
            self.assertEqual('lscpu', exc.source)
            self.assertIn(key, exc.reason)

    def test_localized_or_empty_output(self):
        self.assertRaises(errors.CapabilityError, lscpu.parse_lscpu, '')
        self.assertRaises(errors.CapabilityError, lscpu.parse_lscpu,
                          'Architektur: x86_64\nCPU(s): 4\n')


class RunLscpuTestCase(base.BaseTestCase):

    @mock.patch.object(processutils, 'execute')
    def test_runs_with_c_locale(self, execute):
        execute.return_value = (MINIMAL, '')
        self.assertEqual(MINIMAL, linux.default_run_lscpu())
        args, kwargs = execute.call_args
        self.assertEqual(('lscpu',), args)
        self.assertEqual('C', kwargs['env_variables']['LC_ALL'])
        # The rest of the environment (PATH) is kept.
        self.assertIn('PATH', kwargs['env_variables'])

    @mock.patch.object(processutils, 'execute')
    def test_sysroot(self, execute):
        execute.return_value = (MINIMAL, '')
        linux.default_run_lscpu('/srv/tree')
        self.assertEqual(('lscpu', '--sysroot', '/srv/tree'),
                         execute.call_args[0])

    @mock.patch.object(processutils, 'execute')
    def test_not_found(self, execute):
        execute.side_effect = FileNotFoundError(2, 'No such file')
        exc = self.assertRaises(errors.CapabilityError,
                                linux.default_run_lscpu)
        self.assertEqual('lscpu: command not found', str(exc))

    @mock.patch.object(processutils, 'execute')
    def test_other_os_error(self, execute):
        execute.side_effect = PermissionError(13, 'Permission denied')
        exc = self.assertRaises(errors.CapabilityError,
                                linux.default_run_lscpu)
        self.assertEqual('lscpu: cannot run: Permission denied', str(exc))

    @mock.patch.object(processutils, 'execute')
    def test_fails(self, execute):
        execute.side_effect = processutils.ProcessExecutionError(
            exit_code=1, stderr='lscpu: failed to determine number of CPUs')
        exc = self.assertRaises(errors.CapabilityError,
                                linux.default_run_lscpu)
        self.assertEqual('lscpu', exc.source)
        self.assertIn('exit code 1', exc.reason)
        self.assertIn('failed to determine', exc.reason)

    def test_missing_binary_for_real(self):
        # No mock: a PATH without lscpu exercises processutils itself.
        self.useFixture(fixtures.EnvironmentVariable('PATH', '/nonexistent'))
        exc = self.assertRaises(errors.CapabilityError,
                                linux.default_run_lscpu)
        self.assertEqual('lscpu: command not found', str(exc))

    def test_driver_wraps_runner_errors(self):
        def run():
            raise errors.CapabilityError('lscpu', 'command not found')
        driver = linux.LinuxDriver(cpu_source='lscpu', run_lscpu=run)
        self.assertRaises(errors.CapabilityError, driver.get_cpu_info)
