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

import dataclasses
import json
import os
import threading

import fixtures
from oslotest import base

import zun_hostcap.os_capability as os_capability
from zun_hostcap.os_capability import errors
from zun_hostcap.os_capability import fake
from zun_hostcap.os_capability import linux
from zun_hostcap.os_capability import model


class FakeDriverTestCase(base.BaseTestCase):

    def test_default_is_sample(self):
        driver = fake.FakeDriver()
        self.assertEqual(fake.sample_capabilities(),
                         driver.get_capabilities())

    def test_sample_is_consistent(self):
        caps = fake.sample_capabilities()
        cpu = caps.cpu
        self.assertEqual((2, 2), (cpu.sockets, cpu.numa_nodes))
        self.assertEqual(cpu.cpus, cpu.sockets * cpu.cores_per_socket
                         * cpu.threads_per_core)
        self.assertEqual(cpu.numa_cpus,
                         {n.id: n.cpus for n in caps.numa_topology})
        self.assertEqual(caps.memory.mem_total,
                         sum(n.mem_total_kb for n in caps.numa_topology))
        # Each call gives a fresh value, so a test mutating a (mutable)
        # numa_cpus dict cannot leak into another test.
        self.assertIsNot(cpu.numa_cpus,
                         fake.sample_capabilities().cpu.numa_cpus)

    def test_returns_what_it_was_given(self):
        caps = dataclasses.replace(
            fake.sample_capabilities(), pci_devices=())
        driver = fake.FakeDriver(caps)
        self.assertIs(caps, driver.get_capabilities())
        self.assertIs(caps.cpu, driver.get_cpu_info())
        self.assertIs(caps.memory, driver.get_memory_info())
        self.assertIs(caps.numa_topology, driver.get_numa_topology())
        self.assertIs(caps.disk, driver.get_disk_info())
        self.assertEqual((), driver.get_pci_devices())
        self.assertIs(caps.os, driver.get_os_info())

    def test_set_capabilities(self):
        driver = fake.FakeDriver()
        new = dataclasses.replace(
            fake.sample_capabilities(),
            os=model.OsInfo('linux', None, '6.1.0', 'other'))
        driver.set_capabilities(new)
        self.assertEqual('other', driver.get_os_info().hostname)
        self.assertRaises(TypeError, driver.set_capabilities, {})

    def test_update_sections(self):
        driver = fake.FakeDriver()
        memory = dataclasses.replace(driver.get_memory_info(), mem_free=1)
        result = driver.update(memory=memory, pci_devices=())
        self.assertEqual(1, driver.get_memory_info().mem_free)
        self.assertEqual((), driver.get_pci_devices())
        self.assertEqual(result, driver.get_capabilities())
        self.assertEqual(fake.sample_capabilities().cpu,
                         driver.get_cpu_info())

    def test_update_unknown_section(self):
        driver = fake.FakeDriver()
        self.assertRaises(TypeError, driver.update, gpu=None)
        self.assertEqual(fake.sample_capabilities(),
                         driver.get_capabilities())

    def test_fail_and_heal_a_part(self):
        driver = fake.FakeDriver()
        disk = driver.get_disk_info()
        caps = driver.fail('disk', '/var/lib/docker', 'does not exist',
                           parameter='disk_path')
        self.assertIsNone(caps.disk)
        self.assertEqual((model.SourceError('disk', '/var/lib/docker',
                                            'does not exist', 'disk_path'),),
                         driver.get_capabilities().errors)
        # The getter keeps the HostDriver contract and raises.
        exc = self.assertRaises(errors.CapabilityError, driver.get_disk_info)
        self.assertEqual(('/var/lib/docker', 'does not exist', 'disk_path'),
                         (exc.source, exc.reason, exc.parameter))
        self.assertEqual(fake.sample_capabilities().memory,
                         driver.get_memory_info())

        driver.fail('memory', '/proc/meminfo', 'cannot read: Is a directory')
        driver.update(disk=disk)
        caps = driver.get_capabilities()
        self.assertEqual(disk, caps.disk)
        self.assertEqual(['memory'], [e.part for e in caps.errors])

    def test_fail_twice_keeps_one_error_per_part(self):
        driver = fake.FakeDriver()
        driver.fail('pci_devices', '/sys/bus/pci/devices', 'first')
        caps = driver.fail('pci_devices', '/sys/bus/pci/devices', 'second')
        self.assertEqual(['second'], [e.reason for e in caps.errors])

    def test_fail_unknown_part(self):
        driver = fake.FakeDriver()
        self.assertRaises(TypeError, driver.fail, 'gpu', 'x', 'y')
        self.assertEqual((), driver.get_capabilities().errors)

    def test_concurrent_updates(self):
        driver = fake.FakeDriver()
        base_memory = driver.get_memory_info()

        def bump(start):
            for i in range(200):
                driver.update(memory=dataclasses.replace(
                    base_memory, mem_free=start + i))
                caps = driver.get_capabilities()
                self.assertIsInstance(caps, model.HostCapabilities)

        threads = [threading.Thread(target=bump, args=(n * 1000,))
                   for n in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertIn(driver.get_memory_info().mem_free % 1000, range(200))


class LoadDriverTestCase(base.BaseTestCase):

    def test_linux(self):
        driver = os_capability.load_driver('linux', cpu_source='lscpu',
                                           disk_path='/tmp')
        self.assertIsInstance(driver, linux.LinuxDriver)
        self.assertIsInstance(driver, os_capability.HostDriver)
        self.assertEqual(('lscpu', '/tmp'),
                         (driver.cpu_source, driver.disk_path))

    def test_fake(self):
        caps = fake.sample_capabilities()
        driver = os_capability.load_driver('fake', capabilities=caps)
        self.assertIsInstance(driver, os_capability.FakeDriver)
        self.assertIs(caps, driver.get_capabilities())

    def test_unknown(self):
        exc = self.assertRaises(ValueError, os_capability.load_driver,
                                'windows')
        self.assertIn("'windows'", str(exc))

    def test_public_names(self):
        for name in os_capability.__all__:
            self.assertTrue(hasattr(os_capability, name), name)


class CapabilityErrorTestCase(base.BaseTestCase):

    def test_str_and_attributes(self):
        exc = os_capability.CapabilityError('/proc/meminfo',
                                            'no MemTotal line')
        self.assertEqual('/proc/meminfo: no MemTotal line', str(exc))
        self.assertEqual(('/proc/meminfo', 'no MemTotal line'),
                         (exc.source, exc.reason))

    def test_pickles(self):
        import pickle
        exc = pickle.loads(pickle.dumps(
            os_capability.CapabilityError('lscpu', 'command not found')))
        self.assertEqual('lscpu: command not found', str(exc))
        self.assertIsNone(exc.parameter)

    def test_parameter(self):
        import pickle
        exc = pickle.loads(pickle.dumps(os_capability.CapabilityError(
            '/var/lib/docker', 'does not exist', parameter='disk_path')))
        self.assertEqual('/var/lib/docker: does not exist', str(exc))
        self.assertEqual('disk_path', exc.parameter)


class TestFakeDriverDataFile(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.path = os.path.join(
            self.useFixture(fixtures.TempDir()).path, 'host.json')

    def test_round_trip(self):
        caps = fake.sample_capabilities()
        fake.write_capabilities(self.path, caps)
        self.assertEqual(caps, fake.read_capabilities(self.path))

    def test_round_trip_of_a_partial_probe(self):
        driver = fake.FakeDriver()
        driver.fail('numa_topology', '/sys/devices/system/node/node1/meminfo',
                    'cannot read: No such file or directory')
        caps = driver.fail('disk', '/var/lib/docker', 'does not exist',
                           parameter='disk_path')
        fake.write_capabilities(self.path, caps)
        self.assertEqual(caps, fake.read_capabilities(self.path))

    def test_file_without_errors_reads_as_whole(self):
        caps = fake.sample_capabilities()
        data = fake.capabilities_to_dict(caps)
        del data['errors']
        with open(self.path, 'w') as f:
            json.dump(data, f)
        self.assertEqual(caps, fake.read_capabilities(self.path))

    def test_netdevs_written_only_where_a_device_has_them(self):
        caps = fake.sample_capabilities()
        devices = list(caps.pci_devices)
        devices[0] = dataclasses.replace(devices[0], netdevs=('ens1f0',))
        caps = dataclasses.replace(caps, pci_devices=tuple(devices))
        fake.write_capabilities(self.path, caps)
        with open(self.path) as f:
            written = json.load(f)['pci_devices']
        # The previous release's PciDevice takes no netdevs: a host
        # without them is a file it still reads.
        self.assertEqual([['ens1f0']] + [None] * (len(devices) - 1),
                         [device.get('netdevs') for device in written])
        self.assertEqual(caps, fake.read_capabilities(self.path))

    def test_driver_reads_the_file_on_every_probe(self):
        caps = fake.sample_capabilities()
        fake.write_capabilities(self.path, caps)
        driver = fake.FakeDriver(data_file=self.path)
        self.assertEqual(caps, driver.get_capabilities())
        changed = dataclasses.replace(
            caps, os=dataclasses.replace(caps.os, kernel_version='9.9'))
        fake.write_capabilities(self.path, changed)
        self.assertEqual('9.9', driver.get_os_info().kernel_version)

    def test_missing_or_malformed_file_names_the_file(self):
        driver = fake.FakeDriver(data_file=self.path)
        err = self.assertRaises(errors.CapabilityError,
                                driver.get_capabilities)
        self.assertIn(self.path, str(err))
        with open(self.path, 'w') as f:
            f.write('{"cpu": {}}')
        err = self.assertRaises(errors.CapabilityError,
                                driver.get_capabilities)
        self.assertIn(self.path, str(err))
        self.assertIn('not host capabilities data', str(err))
