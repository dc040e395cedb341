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

import os
import pickle
import shutil
from unittest import mock

import fixtures
from oslotest import base

from zun_hostcap.os_capability import errors
from zun_hostcap.os_capability import linux
from zun_hostcap.os_capability import model
from zun_hostcap.tests.unit.os_capability import utils


class CpuSourcesAgreeTestCase(base.BaseTestCase):
    """For every shape the sysfs path and the lscpu path must agree."""

    def test_every_shape(self):
        for shape in utils.SHAPES:
            from_sysfs = utils.shape_driver(
                shape, cpu_source='sysfs').get_cpu_info()
            from_lscpu = utils.shape_driver(
                shape, cpu_source='lscpu').get_cpu_info()
            self.assertEqual(from_lscpu, from_sysfs, shape)


class CpuInfoShapesTestCase(base.BaseTestCase):

    def cpu(self, shape, **kwargs):
        return utils.shape_driver(shape, **kwargs).get_cpu_info()

    def test_two_numa_smt(self):
        flags = tuple(sorted(utils.read_shape_file(
            'two-numa-smt', 'lscpu.txt').split('Flags:')[1]
            .splitlines()[0].split()))
        self.assertEqual(
            model.CpuInfo(
                architecture='x86_64',
                model_name='Intel(R) Xeon(R) CPU E5-2623 v4 @ 2.60GHz',
                cpus=16, online_cpus=tuple(range(16)), offline_cpus=(),
                sockets=2, cores_per_socket=4, threads_per_core=2,
                numa_nodes=2,
                numa_cpus={0: (0, 1, 2, 3, 8, 9, 10, 11),
                           1: (4, 5, 6, 7, 12, 13, 14, 15)},
                flags=flags, usable_cpus=tuple(range(16))),
            self.cpu('two-numa-smt'))

    def test_offline_cpus(self):
        # possible is 0-15 (so the kernel's offline file says 4-15) but
        # only 0-7 are present: like lscpu, report 4-7 as offline.
        info = self.cpu('offline-cpus')
        self.assertEqual(8, info.cpus)
        self.assertEqual((0, 1, 2, 3), info.online_cpus)
        self.assertEqual((4, 5, 6, 7), info.offline_cpus)
        self.assertEqual((1, 4, 1), (info.sockets, info.cores_per_socket,
                                     info.threads_per_core))
        self.assertEqual((0, 1, 2, 3), info.usable_cpus)

    def test_aarch64(self):
        info = self.cpu('aarch64')
        self.assertEqual('aarch64', info.architecture)
        self.assertEqual('Neoverse-N1', info.model_name)
        self.assertEqual((1, 16, 1), (info.sockets, info.cores_per_socket,
                                      info.threads_per_core))
        self.assertEqual(('aes', 'asimd', 'asimddp', 'asimdhp'),
                         info.flags[:4])

    def test_aarch64_unknown_part_has_no_model_name(self):
        root = utils.copy_shape(self, 'aarch64')
        path = os.path.join(root, 'proc/cpuinfo')
        with open(path) as f:
            text = f.read().replace('0xd0c', '0xfff')
        utils.write(root, '/proc/cpuinfo', text)
        info = utils.shape_driver('aarch64', root=root).get_cpu_info()
        self.assertIsNone(info.model_name)

    def test_container_limited_from_cgroup(self):
        for source in linux.CPU_SOURCES:
            info = self.cpu('container-limited', cpu_source=source)
            self.assertEqual(tuple(range(8)), info.online_cpus)
            self.assertEqual((2, 3, 6, 7), info.usable_cpus)

    def test_explicit_affinity_wins(self):
        info = self.cpu('container-limited', affinity={5, 1})
        self.assertEqual((1, 5), info.usable_cpus)

    def test_canned_data_without_affinity_info(self):
        info = self.cpu('two-numa-smt')
        self.assertEqual(info.online_cpus, info.usable_cpus)

    def test_no_numa(self):
        info = self.cpu('no-numa')
        self.assertEqual(0, info.numa_nodes)
        self.assertEqual({}, info.numa_cpus)
        self.assertEqual((1, 4, 1), (info.sockets, info.cores_per_socket,
                                     info.threads_per_core))

    def test_live_root_uses_sched_getaffinity(self):
        driver = utils.shape_driver('two-numa-smt')
        driver.root = '/'
        with mock.patch.object(os, 'sched_getaffinity',
                               return_value={3, 1}) as getaffinity:
            self.assertEqual((1, 3), driver._usable_cpus((0, 1, 2, 3)))
        getaffinity.assert_called_once_with(0)

    def test_bad_cpu_source(self):
        self.assertRaises(ValueError, linux.LinuxDriver, cpu_source='dmi')


class CpuInfoErrorsTestCase(base.BaseTestCase):

    def test_garbage_online_file(self):
        root = utils.copy_shape(self, 'two-numa-smt')
        utils.write(root, '/sys/devices/system/cpu/online', 'x-y\n')
        exc = self.assertRaises(
            errors.CapabilityError,
            utils.shape_driver('two-numa-smt', root=root).get_cpu_info)
        self.assertEqual('/sys/devices/system/cpu/online', exc.source)
        self.assertIn("'x-y'", exc.reason)

    def test_missing_topology(self):
        root = utils.copy_shape(self, 'no-numa')
        os.unlink(os.path.join(
            root, 'sys/devices/system/cpu/cpu2/topology/'
            'physical_package_id'))
        exc = self.assertRaises(
            errors.CapabilityError,
            utils.shape_driver('no-numa', root=root).get_cpu_info)
        self.assertEqual(
            '/sys/devices/system/cpu/cpu2/topology/physical_package_id',
            exc.source)
        self.assertIn('cannot read', exc.reason)

    def test_non_integer_package_id(self):
        root = utils.copy_shape(self, 'no-numa')
        utils.write(root, '/sys/devices/system/cpu/cpu0/topology/'
                    'physical_package_id', 'zero\n')
        exc = self.assertRaises(
            errors.CapabilityError,
            utils.shape_driver('no-numa', root=root).get_cpu_info)
        self.assertIn("not an integer: 'zero'", str(exc))

    def test_missing_cpuinfo(self):
        root = utils.copy_shape(self, 'no-numa')
        os.unlink(os.path.join(root, 'proc/cpuinfo'))
        exc = self.assertRaises(
            errors.CapabilityError,
            utils.shape_driver('no-numa', root=root).get_cpu_info)
        self.assertEqual('/proc/cpuinfo', exc.source)

    def test_garbage_cgroup_cpuset(self):
        root = utils.copy_shape(self, 'container-limited')
        utils.write(root, '/sys/fs/cgroup/cpuset.cpus.effective', 'all\n')
        exc = self.assertRaises(
            errors.CapabilityError,
            utils.shape_driver('container-limited', root=root).get_cpu_info)
        self.assertEqual('/sys/fs/cgroup/cpuset.cpus.effective', exc.source)


class MemoryAndNumaTestCase(base.BaseTestCase):

    def test_memory(self):
        info = utils.shape_driver('aarch64').get_memory_info()
        self.assertEqual(64750476, info.mem_total)

    def test_missing_meminfo(self):
        exc = self.assertRaises(
            errors.CapabilityError,
            linux.LinuxDriver(root='/nonexistent').get_memory_info)
        self.assertEqual('/proc/meminfo', exc.source)
        self.assertIn('No such file', exc.reason)

    def test_malformed_meminfo(self):
        root = utils.copy_shape(self, 'no-numa')
        utils.write(root, '/proc/meminfo', 'MemTotal: 12x kB\n')
        exc = self.assertRaises(
            errors.CapabilityError,
            utils.shape_driver('no-numa', root=root).get_memory_info)
        self.assertEqual('/proc/meminfo', exc.source)

    def test_two_nodes(self):
        nodes = utils.shape_driver('two-numa-smt').get_numa_topology()
        self.assertEqual(
            (model.NumaNode(id=0, cpus=(0, 1, 2, 3, 8, 9, 10, 11),
                            mem_total_kb=65831744, mem_free_kb=61235112),
             model.NumaNode(id=1, cpus=(4, 5, 6, 7, 12, 13, 14, 15),
                            mem_total_kb=66057272, mem_free_kb=63210040)),
            nodes)

    def test_nodes_do_not_need_proc_meminfo(self):
        root = utils.copy_shape(self, 'two-numa-smt')
        os.unlink(os.path.join(root, 'proc/meminfo'))
        nodes = utils.shape_driver('two-numa-smt',
                                   root=root).get_numa_topology()
        self.assertEqual([0, 1], [n.id for n in nodes])

    def test_no_numa_is_one_node_with_host_totals(self):
        nodes = utils.shape_driver('no-numa').get_numa_topology()
        self.assertEqual(
            (model.NumaNode(id=0, cpus=(0, 1, 2, 3), mem_total_kb=8070184,
                            mem_free_kb=5121008),), nodes)

    def test_memory_only_node(self):
        root = utils.copy_shape(self, 'aarch64')
        utils.write(root, '/sys/devices/system/node/node1/cpulist', '\n')
        utils.write(root, '/sys/devices/system/node/node1/meminfo',
                    'Node 1 MemTotal: 1024 kB\nNode 1 MemFree: 512 kB\n')
        driver = utils.shape_driver('aarch64', root=root)
        nodes = driver.get_numa_topology()
        self.assertEqual(model.NumaNode(id=1, cpus=(), mem_total_kb=1024,
                                        mem_free_kb=512), nodes[1])
        self.assertEqual(2, driver.get_cpu_info().numa_nodes)

    def test_missing_node_meminfo(self):
        root = utils.copy_shape(self, 'two-numa-smt')
        os.unlink(os.path.join(root, 'sys/devices/system/node/node1/meminfo'))
        exc = self.assertRaises(
            errors.CapabilityError,
            utils.shape_driver('two-numa-smt', root=root).get_numa_topology)
        self.assertEqual('/sys/devices/system/node/node1/meminfo',
                         exc.source)


class PciTestCase(base.BaseTestCase):

    def test_two_numa_smt(self):
        devices = utils.shape_driver('two-numa-smt').get_pci_devices()
        self.assertEqual(
            (model.PciDevice('0000:00:1f.2', '8086', '8d02', '010601', 0,
                             'ahci'),
             model.PciDevice('0000:03:00.0', '8086', '1521', '020000', 0,
                             'igb'),
             model.PciDevice('0000:81:00.0', '15b3', '1017', '020000', 1,
                             'mlx5_core'),
             model.PciDevice('0000:82:00.0', '10de', '1eb8', '030200', 1,
                             None)),
            devices)

    def test_a_network_device_names_its_interfaces(self):
        root = utils.copy_shape(self, 'two-numa-smt')
        net = os.path.join(root, 'sys/bus/pci/devices/0000:81:00.0/net')
        for name in ('ens1f0', 'eth9'):
            os.makedirs(os.path.join(net, name))
        devices = utils.shape_driver('two-numa-smt',
                                     root=root).get_pci_devices()
        self.assertEqual({'0000:81:00.0': ('ens1f0', 'eth9')},
                         {device.address: device.netdevs
                          for device in devices if device.netdevs})

    def test_this_host_numa_minus_one_is_none(self):
        devices = utils.shape_driver('this-host').get_pci_devices()
        self.assertTrue(devices)
        for device in devices:
            self.assertEqual(4, len(device.vendor_id))
            self.assertEqual(6, len(device.class_code))

    def test_no_pci_bus(self):
        self.assertEqual((), utils.shape_driver('no-numa').get_pci_devices())

    def test_unreadable_numa_node_is_none(self):
        root = utils.copy_shape(self, 'two-numa-smt')
        dev = '/sys/bus/pci/devices/0000:81:00.0/'
        utils.write(root, dev + 'numa_node', 'garbage\n')
        os.unlink(os.path.join(root, 'sys/bus/pci/devices/0000:03:00.0/'
                               'numa_node'))
        devices = utils.shape_driver('two-numa-smt',
                                     root=root).get_pci_devices()
        self.assertEqual([0, None, None, 1],
                         [d.numa_node for d in devices])

    def test_malformed_vendor(self):
        root = utils.copy_shape(self, 'two-numa-smt')
        utils.write(root, '/sys/bus/pci/devices/0000:00:1f.2/vendor',
                    '0x80861\n')
        exc = self.assertRaises(
            errors.CapabilityError,
            utils.shape_driver('two-numa-smt', root=root).get_pci_devices)
        self.assertEqual('/sys/bus/pci/devices/0000:00:1f.2/vendor',
                         exc.source)

    def test_missing_class(self):
        root = utils.copy_shape(self, 'two-numa-smt')
        os.unlink(os.path.join(root,
                               'sys/bus/pci/devices/0000:00:1f.2/class'))
        self.assertRaises(
            errors.CapabilityError,
            utils.shape_driver('two-numa-smt', root=root).get_pci_devices)


class OsAndDiskTestCase(base.BaseTestCase):

    def test_os_info(self):
        self.assertEqual(
            model.OsInfo(os_type='linux', os='Rocky Linux 9.3 (Blue Onyx)',
                         kernel_version='5.14.0-362.8.1.el9_3.x86_64',
                         hostname='compute-numa-1'),
            utils.shape_driver('two-numa-smt').get_os_info())

    def test_missing_os_release(self):
        info = utils.shape_driver('no-numa').get_os_info()
        self.assertIsNone(info.os)
        self.assertEqual('3.10.108', info.kernel_version)

    def test_usr_lib_os_release_and_quoting(self):
        root = utils.copy_shape(self, 'no-numa')
        utils.write(root, '/usr/lib/os-release',
                    "NAME=Foo\nPRETTY_NAME='Foo \"Bar\" 1'\n")
        self.assertEqual('Foo "Bar" 1', utils.shape_driver(
            'no-numa', root=root).get_os_info().os)

    def test_broken_quoting_falls_back_to_raw(self):
        root = utils.copy_shape(self, 'no-numa')
        utils.write(root, '/etc/os-release', 'PRETTY_NAME="Foo 1\n')
        self.assertEqual('Foo 1', utils.shape_driver(
            'no-numa', root=root).get_os_info().os)

    def test_disk(self):
        st = mock.Mock(f_blocks=1000, f_bfree=400, f_bavail=300,
                       f_frsize=4096)
        with mock.patch.object(os, 'statvfs', return_value=st) as statvfs:
            info = linux.LinuxDriver(disk_path='/var/lib').get_disk_info()
        statvfs.assert_called_once_with('/var/lib')
        self.assertEqual(
            model.DiskInfo(path='/var/lib', total_bytes=4096000,
                           used_bytes=600 * 4096, free_bytes=300 * 4096),
            info)

    def test_disk_missing_path(self):
        exc = self.assertRaises(
            errors.CapabilityError,
            linux.LinuxDriver(disk_path='/nonexistent/x').get_disk_info)
        self.assertEqual(('/nonexistent/x', 'does not exist', 'disk_path'),
                         (exc.source, exc.reason, exc.parameter))

    def test_capabilities_of_a_shape(self):
        driver = utils.shape_driver('two-numa-smt', disk_path='/')
        st = mock.Mock(f_blocks=10, f_bfree=5, f_bavail=4, f_frsize=512)
        self.useFixture(fixtures.MockPatchObject(os, 'statvfs',
                                                 return_value=st))
        caps = driver.get_capabilities()
        self.assertEqual(2, len(caps.numa_topology))
        self.assertEqual(sum(n.mem_total_kb for n in caps.numa_topology),
                         caps.memory.mem_total)
        self.assertEqual(caps.cpu.online_cpus, tuple(sorted(
            cpu for n in caps.numa_topology for cpu in n.cpus)))
        # Plain data: hashable and comparable.
        self.assertEqual(caps, driver.get_capabilities())
        hash(caps)


class PartialProbeTestCase(base.BaseTestCase):
    """get_capabilities reads each part on its own."""

    def assert_only_part_failed(self, caps, expected, part):
        for name in model.PARTS:
            if name == part:
                self.assertIsNone(getattr(caps, name))
            elif name == 'disk':
                # The real file system's usage moves between two reads.
                self.assertEqual(
                    (expected.disk.path, expected.disk.total_bytes),
                    (caps.disk.path, caps.disk.total_bytes))
            else:
                self.assertEqual(getattr(expected, name),
                                 getattr(caps, name), name)

    def full_capabilities(self, shape, **kwargs):
        caps = utils.shape_driver(shape, disk_path='/', **kwargs) \
            .get_capabilities()
        self.assertEqual((), caps.errors)
        return caps

    def test_every_part_is_read_on_a_whole_host(self):
        caps = self.full_capabilities('two-numa-smt')
        for part in model.PARTS:
            self.assertIsNotNone(getattr(caps, part), part)
            self.assertIsNone(caps.error_of(part))

    def test_missing_disk_path_leaves_only_the_disk_out(self):
        # As a host without Docker with disk_path = /var/lib/docker.
        missing = os.path.join(self.useFixture(fixtures.TempDir()).path,
                               'docker')
        caps = utils.shape_driver('two-numa-smt', disk_path=missing) \
            .get_capabilities()
        self.assertEqual(
            (model.SourceError('disk', missing, 'does not exist',
                               parameter='disk_path'),), caps.errors)
        self.assertEqual(caps.errors[0], caps.error_of('disk'))
        self.assert_only_part_failed(
            caps, self.full_capabilities('two-numa-smt'), 'disk')

    def test_disk_path_below_a_file(self):
        tmp = self.useFixture(fixtures.TempDir()).path
        utils.write(tmp, '/file', 'not a directory\n')
        path = os.path.join(tmp, 'file', 'below')
        error = utils.shape_driver('no-numa', disk_path=path) \
            .get_capabilities().error_of('disk')
        self.assertEqual((path, 'disk_path'), (error.source, error.parameter))
        self.assertIn('cannot statvfs: Not a directory', error.reason)

    def test_unreadable_meminfo_leaves_only_memory_out(self):
        # NUMA nodes have their own meminfo, so only memory is lost.
        root = utils.copy_shape(self, 'two-numa-smt')
        os.unlink(os.path.join(root, 'proc/meminfo'))
        os.mkdir(os.path.join(root, 'proc/meminfo'))
        caps = utils.shape_driver('two-numa-smt', root=root, disk_path='/') \
            .get_capabilities()
        self.assertEqual(['memory'], [e.part for e in caps.errors])
        self.assertEqual('/proc/meminfo', caps.errors[0].source)
        self.assertIn('cannot read: Is a directory', caps.errors[0].reason)
        self.assertIsNone(caps.errors[0].parameter)
        self.assert_only_part_failed(
            caps, self.full_capabilities('two-numa-smt'), 'memory')

    def test_without_numa_nodes_meminfo_also_hides_the_topology(self):
        # The single node of a non-NUMA kernel takes its memory from
        # /proc/meminfo: both parts fail, each naming it.
        root = utils.copy_shape(self, 'no-numa')
        utils.write(root, '/proc/meminfo', 'MemTotal: lots\n')
        caps = utils.shape_driver('no-numa', root=root, disk_path='/') \
            .get_capabilities()
        self.assertEqual([('memory', '/proc/meminfo'),
                          ('numa_topology', '/proc/meminfo')],
                         [(e.part, e.source) for e in caps.errors])
        self.assertEqual(self.full_capabilities('no-numa').cpu, caps.cpu)
        self.assertIsNotNone(caps.disk)

    def test_pci_tree_that_cannot_be_listed(self):
        root = utils.copy_shape(self, 'two-numa-smt')
        shutil.rmtree(os.path.join(root, 'sys/bus/pci/devices'))
        utils.write(root, '/sys/bus/pci/devices', 'not a directory\n')
        caps = utils.shape_driver('two-numa-smt', root=root, disk_path='/') \
            .get_capabilities()
        self.assertEqual(
            (model.SourceError('pci_devices', '/sys/bus/pci/devices',
                               'cannot list: Not a directory'),),
            caps.errors)
        self.assert_only_part_failed(
            caps, self.full_capabilities('two-numa-smt'), 'pci_devices')

    def test_malformed_pci_device(self):
        root = utils.copy_shape(self, 'two-numa-smt')
        utils.write(root, '/sys/bus/pci/devices/0000:81:00.0/class',
                    'storage\n')
        caps = utils.shape_driver('two-numa-smt', root=root, disk_path='/') \
            .get_capabilities()
        self.assertIsNone(caps.pci_devices)
        self.assertEqual('/sys/bus/pci/devices/0000:81:00.0/class',
                         caps.error_of('pci_devices').source)
        self.assertIsNotNone(caps.numa_topology)

    def test_missing_lscpu_names_cpu_source(self):
        # The real lscpu runner, on a PATH without lscpu.
        empty_bin = self.useFixture(fixtures.TempDir()).path
        self.useFixture(fixtures.EnvironmentVariable('PATH', empty_bin))
        driver = linux.LinuxDriver(
            cpu_source='lscpu', disk_path='/',
            root=utils.shape_path('two-numa-smt'),
            uname=utils.shape_uname('two-numa-smt'))
        caps = driver.get_capabilities()
        self.assertEqual(
            (model.SourceError('cpu', 'lscpu', 'command not found',
                               parameter='cpu_source'),), caps.errors)
        self.assert_only_part_failed(
            caps, self.full_capabilities('two-numa-smt'), 'cpu')

    def test_broken_cpu_topology_leaves_only_the_cpu_out(self):
        root = utils.copy_shape(self, 'offline-cpus')
        utils.write(root, '/sys/devices/system/cpu/present', '0-\n')
        caps = utils.shape_driver('offline-cpus', root=root, disk_path='/') \
            .get_capabilities()
        self.assertEqual(['cpu'], [e.part for e in caps.errors])
        self.assertEqual('/sys/devices/system/cpu/present',
                         caps.errors[0].source)
        self.assert_only_part_failed(
            caps, self.full_capabilities('offline-cpus'), 'cpu')

    def test_nothing_there_but_uname(self):
        caps = linux.LinuxDriver(
            root='/nonexistent', disk_path='/nonexistent',
            uname=utils.shape_uname('no-numa')).get_capabilities()
        self.assertEqual(['cpu', 'memory', 'numa_topology', 'disk'],
                         [e.part for e in caps.errors])
        # No PCI bus and no os-release are answers, not failures.
        self.assertEqual((), caps.pci_devices)
        self.assertEqual('3.10.108', caps.os.kernel_version)

    def test_partial_result_is_plain_data(self):
        root = utils.copy_shape(self, 'two-numa-smt')
        utils.write(root, '/proc/meminfo', 'garbage\n')
        driver = utils.shape_driver('two-numa-smt', root=root,
                                    disk_path='/nonexistent')
        caps = driver.get_capabilities()
        # No disk: the real file system's usage would move between reads.
        self.assertEqual(caps, driver.get_capabilities())
        hash(caps)
        self.assertEqual(caps, pickle.loads(pickle.dumps(caps)))
        self.assertEqual("/proc/meminfo: line 1 has no colon: 'garbage'",
                         str(caps.error_of('memory')))

    def test_unwrapped_os_error_is_a_source_error(self):
        def uname():
            raise PermissionError(13, 'Permission denied',
                                  '/proc/sys/kernel/osrelease')

        caps = utils.shape_driver('no-numa', disk_path='/', uname=uname) \
            .get_capabilities()
        # uname gives the architecture on the sysfs path, too.
        self.assertEqual(
            [model.SourceError('cpu', '/proc/sys/kernel/osrelease',
                               'Permission denied'),
             model.SourceError('os', '/proc/sys/kernel/osrelease',
                               'Permission denied')],
            list(caps.errors))
        self.assertIsNotNone(caps.memory)

    def test_a_bug_is_not_a_missing_source(self):
        class BuggyDriver(linux.LinuxDriver):
            def get_pci_devices(self):
                return {}['no such key']

        driver = BuggyDriver(root=utils.shape_path('two-numa-smt'),
                             disk_path='/',
                             uname=utils.shape_uname('two-numa-smt'))
        self.assertRaises(KeyError, driver.get_capabilities)
