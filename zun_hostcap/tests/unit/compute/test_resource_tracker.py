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

"""The resource tracker, its conductor and its database, all real.

Only the host is fake: the os_capability fake driver stands in for the
machine, so a test can change what the host has, or the linux driver reads
a fixture host tree (tests/unit/os_capability/data) a test can break.
"""

import dataclasses
import logging
import os
import sys

import fixtures
import oslo_messaging as messaging
from oslo_messaging._drivers import base as driver_base
from oslo_messaging._drivers import common as rpc_common
import sqlalchemy as sa

from zun_hostcap.common import exception
from zun_hostcap.common import rpc
from zun_hostcap.compute import container
from zun_hostcap.compute import manager
from zun_hostcap.compute import resource_tracker
from zun_hostcap import objects
from zun_hostcap import os_capability
from zun_hostcap.os_capability import fake as fake_host
from zun_hostcap.tests import base
from zun_hostcap.tests import fixtures as zun_fixtures
from zun_hostcap.tests.unit.os_capability import utils as host_utils

KIB_PER_MIB = 1024


class TestResourceTracker(base.TestCase):

    def setUp(self):
        super().setUp()
        self.db = self.useFixture(zun_fixtures.Database())
        self.useFixture(zun_fixtures.RPC(self.conf))
        self.conductor = self.useFixture(zun_fixtures.Conductor(self.conf))
        self.caps = fake_host.sample_capabilities()
        self.host = fake_host.FakeDriver(self.caps)
        self.containers = container.fake.FakeContainerDriver()
        self.tracker = resource_tracker.ResourceTracker(
            'compute-1', self.host, self.containers, granularity_percent=1)

    def _stored(self):
        # Read as the conductor would, straight from the database.
        from zun_hostcap.db import api as db_api
        with db_api.conductor_scope():
            return objects.ComputeNode.get_by_hostname(self.context,
                                                       'compute-1')

    def _change_memory(self, **changes):
        self.host.update(memory=dataclasses.replace(self.caps.memory,
                                                    **changes))

    def test_first_run_creates_the_node_from_the_host(self):
        self.tracker.update_available_resource(self.context)
        node = self._stored()
        memory = self.caps.memory
        self.assertEqual(len(self.caps.cpu.online_cpus), node.cpus)
        self.assertEqual(memory.mem_total // KIB_PER_MIB, node.mem_total)
        self.assertEqual(memory.mem_free // KIB_PER_MIB, node.mem_free)
        self.assertEqual(memory.buffers // KIB_PER_MIB, node.mem_buffers)
        self.assertEqual(memory.cached // KIB_PER_MIB, node.mem_cached)
        self.assertEqual(self.caps.cpu.architecture, node.architecture)
        self.assertEqual(self.caps.os.kernel_version, node.kernel_version)
        self.assertEqual([n.id for n in self.caps.numa_topology],
                         [n.id for n in node.numa_topology.nodes])
        self.assertEqual(set(self.caps.numa_topology[0].cpus),
                         node.numa_topology.nodes[0].cpuset)
        self.assertEqual(len(self.caps.pci_devices),
                         sum(p.count for p in node.pci_device_pools))
        self.assertEqual({}, node.labels)
        self.assertEqual(['runc'], node.runtimes)

    def test_unchanged_host_costs_no_rpc_and_no_write(self):
        self.tracker.update_available_resource(self.context)
        calls = list(self.conductor.manager.calls)
        writes = self.db.count_writes()

        for _ in range(3):
            self.tracker.update_available_resource(self.context)

        self.assertEqual(calls, self.conductor.manager.calls)
        self.assertEqual([], writes)

    def test_changed_capability_saves_only_that_field(self):
        self.tracker.update_available_resource(self.context)
        writes = self.db.count_writes()
        self.host.update(os=dataclasses.replace(self.caps.os,
                                                kernel_version='6.99'))

        self.tracker.update_available_resource(self.context)

        self.assertEqual(('ComputeNode', 'save'),
                         self.conductor.manager.calls[-1])
        self.assertEqual(1, len(writes))
        self.assertIn('kernel_version=', writes[0])
        self.assertNotIn('mem_free', writes[0])
        self.assertEqual('6.99', self._stored().kernel_version)

    def test_drift_within_granularity_is_not_saved(self):
        self.tracker.update_available_resource(self.context)
        calls = len(self.conductor.manager.calls)
        total = self.caps.memory.mem_total
        # Half a percent of MemTotal: noise.
        self._change_memory(mem_free=self.caps.memory.mem_free -
                            total // 200)
        self.tracker.update_available_resource(self.context)
        self.assertEqual(calls, len(self.conductor.manager.calls))

        # Two percent: a real change.
        self._change_memory(mem_free=self.caps.memory.mem_free -
                            total // 50)
        self.tracker.update_available_resource(self.context)
        self.assertEqual(calls + 1, len(self.conductor.manager.calls))
        self.assertEqual(
            (self.caps.memory.mem_free - total // 50) // KIB_PER_MIB,
            self._stored().mem_free)

    def test_zero_granularity_saves_every_change(self):
        self.tracker.granularity_percent = 0
        self.tracker.update_available_resource(self.context)
        self._change_memory(cached=self.caps.memory.cached + 4 * 1024)
        self.tracker.update_available_resource(self.context)
        self.assertEqual(self.caps.memory.cached // KIB_PER_MIB + 4,
                         self._stored().mem_cached)

    def test_numa_free_memory_drift_is_held(self):
        self.tracker.update_available_resource(self.context)
        calls = len(self.conductor.manager.calls)
        cell = self.caps.numa_topology[0]
        drifted = dataclasses.replace(cell,
                                      mem_free_kb=cell.mem_free_kb - 1024)
        self.host.update(numa_topology=(drifted,) +
                         tuple(self.caps.numa_topology[1:]))
        self.tracker.update_available_resource(self.context)
        self.assertEqual(calls, len(self.conductor.manager.calls))

    def test_container_usage_is_reported(self):
        self.tracker.update_available_resource(self.context)
        self.containers.set_usage(container.ContainerUsage(
            total=3, running=2, stopped=1, cpu_used=1.5, mem_used=2048,
            runtimes=('runc', 'crun')))
        self.tracker.update_available_resource(self.context)
        node = self._stored()
        self.assertEqual((3, 2, 0, 1), (node.total_containers,
                                        node.running_containers,
                                        node.paused_containers,
                                        node.stopped_containers))
        self.assertEqual(1.5, node.cpu_used)
        self.assertEqual(2048, node.mem_used)
        self.assertEqual(['runc', 'crun'], node.runtimes)

    def test_restarted_tracker_finds_its_node(self):
        self.tracker.update_available_resource(self.context)
        uuid = self._stored().uuid
        restarted = resource_tracker.ResourceTracker(
            'compute-1', self.host, self.containers)
        restarted.update_available_resource(self.context)
        self.assertEqual(uuid, restarted.compute_node.uuid)
        self.assertEqual(('ComputeNode', 'get_by_hostname'),
                         self.conductor.manager.calls[-1])

    def test_labels_set_elsewhere_are_kept(self):
        self.tracker.update_available_resource(self.context)
        from zun_hostcap.db import api as db_api
        with db_api.conductor_scope():
            node = self._stored()
            node.labels = {'rack': 'r1'}
            node.save()
        restarted = resource_tracker.ResourceTracker(
            'compute-1', self.host, self.containers)
        restarted.update_available_resource(self.context)
        self.assertEqual({'rack': 'r1'}, self._stored().labels)

    def test_unread_os_is_created_unknown_then_filled(self):
        self.host.fail('os', '/proc/sys/kernel/osrelease',
                       'Permission denied')
        self.tracker.update_available_resource(self.context)
        node = self._stored()
        self.assertEqual((None, None, None),
                         (node.os_type, node.os, node.kernel_version))
        self.assertEqual(self.caps.cpu.architecture, node.architecture)

        self.host.update(os=self.caps.os)
        self.tracker.update_available_resource(self.context)
        self.assertEqual(self.caps.os.kernel_version,
                         self._stored().kernel_version)

    def test_probe_failure_is_a_clear_error(self):
        class BrokenHost(fake_host.FakeDriver):
            def get_capabilities(self):
                raise os_capability.CapabilityError('/proc/meminfo',
                                                    'no MemTotal line')

        tracker = resource_tracker.ResourceTracker(
            'compute-1', BrokenHost(self.caps), self.containers)
        err = self.assertRaises(exception.HostProbeFailed,
                                tracker.update_available_resource,
                                self.context)
        self.assertIn('/proc/meminfo', str(err))


def log_lines(logs, *levels, since=0):
    """The lines of a FakeLogger (format '%(levelname)s ...') at levels.

    ``since``: an earlier ``len(logs.output)``, to see only later lines
    (FakeLogger.reset_output leaves NULs before the next line).
    """
    return [line for line in logs.output[since:].splitlines()
            if line.split(' ', 1)[0] in levels]


ABOVE_DEBUG = ('INFO', 'WARNING', 'ERROR', 'CRITICAL')


def remote(error):
    """``error`` as an RPC caller gets it back over a real broker.

    The in-process transport hands the conductor's exception over as it
    is; the AMQP drivers serialize it and rebuild it like this.
    """
    try:
        raise error
    except Exception:
        data = rpc_common.serialize_remote_exception(sys.exc_info())
    return rpc_common.deserialize_remote_exception(data, rpc.ALLOWED_EXMODS)


class TestPartialHost(base.TestCase):
    """Sources that cannot be read, on a fixture host tree."""

    def setUp(self):
        super().setUp()
        self.db = self.useFixture(zun_fixtures.Database())
        self.useFixture(zun_fixtures.RPC(self.conf))
        self.useFixture(zun_fixtures.Conductor(self.conf))
        self.root = host_utils.copy_shape(self, 'two-numa-smt')
        # As [compute] disk_path = /var/lib/docker on a host without Docker.
        self.disk_path = os.path.join(
            self.useFixture(fixtures.TempDir()).path, 'docker')
        self.tracker = self._tracker()
        self.logs = self.useFixture(fixtures.FakeLogger(
            name='zun_hostcap.compute.resource_tracker', level=logging.DEBUG,
            format='%(levelname)s %(message)s'))

    def _tracker(self, **driver_args):
        driver_args.setdefault('disk_path', self.disk_path)
        host = host_utils.shape_driver('two-numa-smt', root=self.root,
                                       **driver_args)
        return resource_tracker.ResourceTracker(
            'compute-1', host, container.fake.FakeContainerDriver())

    def _stored(self):
        from zun_hostcap.db import api as db_api
        with db_api.conductor_scope():
            return objects.ComputeNode.get_by_hostname(self.context,
                                                       'compute-1')

    def _path(self, logical):
        return os.path.join(self.root, logical.lstrip('/'))

    def _break(self, logical):
        """Put a directory where the file or directory ``logical`` was."""
        os.rename(self._path(logical), self._path(logical) + '.away')
        os.mkdir(self._path(logical))

    def _repair(self, logical):
        os.rmdir(self._path(logical))
        os.rename(self._path(logical) + '.away', self._path(logical))

    def _disk_gib(self):
        st = os.statvfs(self.disk_path)
        return st.f_blocks * st.f_frsize // 1024 ** 3

    def test_missing_disk_path_creates_the_node_without_disk(self):
        self.tracker.update_available_resource(self.context)

        node = self._stored()
        self.assertEqual((16, 131889016 // KIB_PER_MIB),
                         (node.cpus, node.mem_total))
        self.assertEqual((0, 0), (node.disk_total, node.disk_used))
        self.assertEqual(2, len(node.numa_topology.nodes))
        self.assertEqual(4, sum(p.count for p in node.pci_device_pools))
        self.assertEqual('Rocky Linux 9.3 (Blue Onyx)', node.os)
        self.assertEqual(
            ['WARNING [compute] disk_path %s: does not exist; disk is not '
             'reported until it can be read; set [compute] disk_path to the '
             'filesystem containers are stored on' % self.disk_path],
            log_lines(self.logs, 'WARNING', 'ERROR'))
        [created] = log_lines(self.logs, 'INFO')
        self.assertIn('Created compute node', created)
        self.assertIn('0 GiB disk, Rocky Linux 9.3 (Blue Onyx); stored empty '
                      'until it can be read: disk', created)
        self.assertNotIn('Traceback', self.logs.output)

    def test_warns_once_and_says_once_when_it_reads_again(self):
        self.tracker.update_available_resource(self.context)
        self.assertEqual(1, len(log_lines(self.logs, 'WARNING')))

        mark = len(self.logs.output)
        for _ in range(3):
            self.tracker.update_available_resource(self.context)
        self.assertEqual([], log_lines(self.logs, *ABOVE_DEBUG, since=mark))
        self.assertEqual(3, len([
            line for line in log_lines(self.logs, 'DEBUG', since=mark)
            if 'disk is still not reported' in line]))

        mark = len(self.logs.output)
        os.mkdir(self.disk_path)
        self.tracker.update_available_resource(self.context)
        self.assertEqual(
            ['INFO [compute] disk_path %s can be read again; disk is '
             'reported again' % self.disk_path],
            log_lines(self.logs, *ABOVE_DEBUG, since=mark))
        self.assertEqual(self._disk_gib(), self._stored().disk_total)

        mark = len(self.logs.output)
        for _ in range(2):
            self.tracker.update_available_resource(self.context)
        self.assertEqual([], log_lines(self.logs, *ABOVE_DEBUG, since=mark))

        recovered = self._stored().disk_total
        # A new failure after a recovery is worth a new warning, and the
        # figures read before stay.
        os.rmdir(self.disk_path)
        self.tracker.update_available_resource(self.context)
        self.assertEqual(1, len(log_lines(self.logs, 'WARNING', since=mark)))
        self.assertEqual(recovered, self._stored().disk_total)
        self.assertNotIn('Traceback', self.logs.output)

    def test_existing_row_keeps_what_cannot_be_read(self):
        os.mkdir(self.disk_path)
        self.tracker.update_available_resource(self.context)
        before = self._stored()
        writes = self.db.count_writes()

        os.rmdir(self.disk_path)
        self._break('/proc/meminfo')
        self._break('/sys/devices/system/node/node1/meminfo')
        host_utils.write(self.root, '/etc/os-release',
                         'PRETTY_NAME="Rocky Linux 9.4 (Blue Onyx)"\n')
        self.tracker.update_available_resource(self.context)

        after = self._stored()
        self.assertEqual('Rocky Linux 9.4 (Blue Onyx)', after.os)
        for name in ('disk_total', 'disk_used', 'mem_total', 'mem_free',
                     'mem_available', 'mem_buffers', 'mem_cached', 'cpus'):
            self.assertEqual(getattr(before, name), getattr(after, name),
                             name)
        self.assertEqual(before.numa_topology.to_dict(),
                         after.numa_topology.to_dict())
        self.assertEqual(1, len(writes))
        self.assertIn('os=', writes[0])
        for name in ('disk_', 'mem_', 'numa_topology'):
            self.assertNotIn(name, writes[0])
        self.assertEqual(
            ['memory', 'NUMA topology', 'disk'],
            [line.split('; ')[1].split(' is not reported')[0]
             for line in log_lines(self.logs, 'WARNING')])

        self._repair('/proc/meminfo')
        self._repair('/sys/devices/system/node/node1/meminfo')
        self.tracker.update_available_resource(self.context)
        self.assertEqual(2, len([line for line in log_lines(
            self.logs, 'INFO') if 'can be read again' in line]))
        self.assertEqual(before.mem_total, self._stored().mem_total)

    def test_node_cannot_be_created_without_memory(self):
        from zun_hostcap.db import api as db_api
        self._break('/proc/meminfo')
        for _ in range(2):
            err = self.assertRaises(exception.HostProbeFailed,
                                    self.tracker.update_available_resource,
                                    self.context)
            self.assertEqual(
                'Discovering this host failed: /proc/meminfo: cannot read: '
                'Is a directory; the compute node of compute-1 cannot be '
                'created without its memory', str(err))
        # The manager logs the error; the tracker adds nothing to it.
        self.assertEqual([], log_lines(self.logs, *ABOVE_DEBUG))
        with db_api.conductor_scope():
            self.assertRaises(exception.ComputeNodeNotFound,
                              objects.ComputeNode.get_by_hostname,
                              self.context, 'compute-1')

        self._repair('/proc/meminfo')
        self.tracker.update_available_resource(self.context)
        self.assertEqual(131889016 // KIB_PER_MIB, self._stored().mem_total)
        # Only the disk warning: memory was never reported as lost.
        self.assertEqual(1, len(log_lines(self.logs, 'WARNING')))
        self.assertNotIn('can be read again', self.logs.output)

    def test_restarted_tracker_keeps_the_stored_cpus(self):
        self.tracker.update_available_resource(self.context)
        stored_cpus = self._stored().cpus
        # Restarted with cpu_source = lscpu on a host without lscpu.
        self.useFixture(fixtures.EnvironmentVariable(
            'PATH', self.useFixture(fixtures.TempDir()).path))
        host_utils.write(self.root, '/etc/os-release',
                         'PRETTY_NAME="Rocky Linux 9.4 (Blue Onyx)"\n')
        mark = len(self.logs.output)

        restarted = self._tracker(cpu_source='lscpu', run_lscpu=None)
        restarted.update_available_resource(self.context)

        node = self._stored()
        self.assertEqual((stored_cpus, 'x86_64'),
                         (node.cpus, node.architecture))
        self.assertEqual('Rocky Linux 9.4 (Blue Onyx)', node.os)
        # A new process warns anew, for each part it cannot read.
        self.assertEqual(
            ['WARNING [compute] cpu_source lscpu: command not found; CPU '
             'topology is not reported until it can be read; install lscpu '
             '(util-linux) or set [compute] cpu_source to sysfs',
             'WARNING [compute] disk_path %s: does not exist; disk is not '
             'reported until it can be read; set [compute] disk_path to the '
             'filesystem containers are stored on' % self.disk_path],
            log_lines(self.logs, 'WARNING', since=mark))

    def test_unlistable_pci_tree_is_null_until_it_can_be_read(self):
        os.mkdir(self.disk_path)
        devices = self._path('/sys/bus/pci/devices')
        os.rename(devices, devices + '.away')
        host_utils.write(self.root, '/sys/bus/pci/devices', 'a file\n')

        self.tracker.update_available_resource(self.context)
        self.assertEqual([], self._stored().pci_device_pools.to_list())
        self.assertIn('stored empty until it can be read: PCI devices',
                      log_lines(self.logs, 'INFO')[0])
        self.assertEqual(
            ['WARNING /sys/bus/pci/devices: cannot list: Not a directory; '
             'PCI devices is not reported until it can be read'],
            log_lines(self.logs, 'WARNING'))

        os.unlink(devices)
        os.rename(devices + '.away', devices)
        self.tracker.update_available_resource(self.context)
        self.assertEqual(4, sum(p.count
                                for p in self._stored().pci_device_pools))

    def test_every_part_has_an_empty_value_or_is_essential(self):
        caps = fake_host.sample_capabilities()
        for part in os_capability.PARTS:
            fields = resource_tracker.PART_FIELDS[part](getattr(caps, part))
            if part in resource_tracker.ESSENTIAL_PARTS:
                self.assertNotIn(part, resource_tracker.EMPTY_AT_CREATION)
            else:
                self.assertEqual(
                    sorted(fields),
                    sorted(resource_tracker.EMPTY_AT_CREATION[part]()), part)
            self.assertIn(part, resource_tracker.PART_NAMES)


class TestComputeManager(base.TestCase):

    def setUp(self):
        super().setUp()
        self.db = self.useFixture(zun_fixtures.Database())
        self.useFixture(zun_fixtures.RPC(self.conf))
        self.conductor = self.useFixture(zun_fixtures.Conductor(self.conf))
        self.logs = self.useFixture(fixtures.FakeLogger(
            name='zun_hostcap.compute.manager', level=logging.DEBUG,
            format='%(levelname)s %(message)s'))

    def _manager(self, host_driver=None):
        return manager.ComputeManager(
            host='compute-1',
            host_driver=host_driver or fake_host.FakeDriver(
                fake_host.sample_capabilities()),
            container_driver=container.fake.FakeContainerDriver())

    def _run(self, mgr, times=1):
        """Run the periodic task; return its log lines above DEBUG."""
        mark = len(self.logs.output)
        for _ in range(times):
            # Raising here would end the service's periodic loop.
            mgr.update_available_resource(self.context)
        return log_lines(self.logs, *ABOVE_DEBUG, since=mark)

    def _database_down(self):
        """Make the database file unreachable; return what brings it up."""
        path = self.db.connection[len('sqlite:///'):]
        directory = os.path.dirname(path)
        self.db.engine.dispose()
        os.rename(directory, directory + '.down')

        def database_up():
            if not os.path.exists(directory):
                os.rename(directory + '.down', directory)
        self.addCleanup(database_up)
        return database_up

    def _broker_raises(self, error):
        """The transport driver fails every send, as with RabbitMQ down."""
        return self.useFixture(fixtures.MockPatchObject(
            rpc.TRANSPORT._driver, 'send', side_effect=error))

    def test_periodic_task_uses_configured_interval(self):
        self.flags(group='compute', resource_update_interval=7)
        mgr = self._manager()
        self.assertEqual(7, mgr._periodic_spacing['update_available_resource'])
        # run_immediately: the first run creates the node at once.
        idle = mgr.run_periodic_tasks(self.context, raise_on_error=True)
        self.assertLessEqual(idle, 7)
        self.assertEqual('compute-1', mgr.resource_tracker.compute_node
                         .hostname)

    def test_probe_failure_is_one_error_per_interval(self):
        class BrokenHost(fake_host.FakeDriver):
            broken = True

            def get_capabilities(self):
                if self.broken:
                    raise os_capability.CapabilityError(
                        'lscpu', 'command not found')
                return super().get_capabilities()

        host = BrokenHost(fake_host.sample_capabilities())
        mgr = self._manager(host)
        lines = self._run(mgr, 3)
        self.assertEqual(
            ['ERROR Discovering this host failed: lscpu: command not found; '
             'the stored capabilities are left as they are.'] * 3, lines)
        self.assertNotIn('Traceback', self.logs.output)
        self.assertIsNone(mgr.resource_tracker.compute_node)

        host.broken = False
        self.assertEqual(
            ['INFO The resource update succeeded after 3 failed attempts.'],
            self._run(mgr))
        self.assertEqual('compute-1',
                         mgr.resource_tracker.compute_node.hostname)
        self.assertEqual([], self._run(mgr))

    def test_node_without_memory_is_one_error_per_interval(self):
        host = fake_host.FakeDriver()
        host.fail('memory', '/proc/meminfo', 'cannot read: Is a directory')
        host.fail('disk', '/var/lib/docker', 'does not exist',
                  parameter='disk_path')
        lines = self._run(self._manager(host), 2)
        self.assertEqual(
            ['ERROR Discovering this host failed: /proc/meminfo: cannot '
             'read: Is a directory; the compute node of compute-1 cannot be '
             'created without its memory; the stored capabilities are left '
             'as they are.'] * 2, lines)

    def test_remote_database_unavailable_is_one_warning(self):
        # Over RabbitMQ the conductor's DatabaseUnavailable comes back as a
        # subclass whose str() holds the remote traceback.
        error = remote(exception.DatabaseUnavailable(
            reason='(sqlite3.OperationalError) unable to open database '
                   'file'))
        self.assertIsInstance(error, exception.DatabaseUnavailable)
        self.assertEqual('DatabaseUnavailable_Remote', type(error).__name__)
        self.assertIn('Traceback', str(error))
        self._broker_raises(error)
        self.assertEqual(
            ['WARNING zun-hostcap-conductor cannot reach the database '
             '((sqlite3.OperationalError) unable to open database file); the '
             'resource update is retried in 60 seconds.'] * 2,
            self._run(self._manager(), 2))
        self.assertNotIn('Traceback', self.logs.output)

    def test_database_down_is_one_warning_per_interval(self):
        mgr = self._manager()
        database_up = self._database_down()
        lines = self._run(mgr, 3)
        self.assertEqual(3, len(lines))
        for line in lines:
            self.assertTrue(line.startswith(
                'WARNING zun-hostcap-conductor cannot reach the database ('),
                line)
            self.assertTrue(line.endswith(
                '); the resource update is retried in 60 seconds.'), line)
        self.assertNotIn('Traceback', self.logs.output)
        self.assertIsNone(mgr.resource_tracker.compute_node)

        database_up()
        self.assertEqual(
            ['INFO The resource update succeeded after 3 failed attempts.'],
            self._run(mgr))
        self.assertEqual('compute-1',
                         mgr.resource_tracker.compute_node.hostname)

    def test_database_down_while_saving(self):
        host = fake_host.FakeDriver()
        mgr = self._manager(host)
        self._run(mgr)
        host.update(os=dataclasses.replace(host.get_os_info(),
                                           kernel_version='6.99'))
        database_up = self._database_down()
        self.assertEqual(['WARNING'], [line.split()[0]
                                       for line in self._run(mgr)])
        database_up()
        self._run(mgr)
        from zun_hostcap.db import api as db_api
        with db_api.conductor_scope():
            self.assertEqual('6.99', objects.ComputeNode.get_by_hostname(
                self.context, 'compute-1').kernel_version)

    def test_no_conductor_is_one_warning_per_interval(self):
        self.flags(rpc_response_timeout=1)
        self.conductor.server.stop()
        self.conductor.server.wait()
        self.assertEqual(
            ['WARNING No zun-hostcap-conductor answered; the resource '
             'update is retried in 60 seconds.'] * 2,
            self._run(self._manager(), 2))

    def test_message_delivery_failure_is_one_warning_per_interval(self):
        # What impl_rabbit raises once its connection retries run out.
        self._broker_raises(messaging.MessageDeliveryFailure(
            'Unable to connect to AMQP server on 127.0.0.1:5672 after 3 '
            'tries: [Errno 111] ECONNREFUSED'))
        self.assertEqual(
            ['WARNING The message bus did not take the resource update to '
             'zun-hostcap-conductor (MessageDeliveryFailure: Unable to '
             'connect to AMQP server on 127.0.0.1:5672 after 3 tries: '
             '[Errno 111] ECONNREFUSED); it is retried in 60 seconds.'] * 3,
            self._run(self._manager(), 3))

    def test_transport_error_is_one_warning_per_interval(self):
        # A driver's TransportDriverError reaches the caller wrapped in
        # ClientSendError.
        self._broker_raises(driver_base.TransportDriverError(
            'connection refused'))
        lines = self._run(self._manager(), 2)
        self.assertEqual(2, len(lines))
        for line in lines:
            self.assertTrue(line.startswith(
                'WARNING The message bus did not take the resource update '
                'to zun-hostcap-conductor (ClientSendError: Failed to send '
                'to target'), line)
            self.assertIn('connection refused', line)

    def test_unexpected_error_is_one_line_traceback_at_debug(self):
        class BuggyHost(fake_host.FakeDriver):
            buggy = True

            def get_capabilities(self):
                if self.buggy:
                    return {}['cpu']
                return super().get_capabilities()

        host = BuggyHost()
        mgr = self._manager(host)
        mark = len(self.logs.output)
        self.assertEqual(
            ["ERROR The resource update failed with an unexpected KeyError: "
             "'cpu'; it is retried in 60 seconds."] * 2,
            self._run(mgr, 2))
        # The traceback follows the DEBUG line, never the ERROR one.
        output = self.logs.output[mark:]
        self.assertEqual(2, output.count(
            'DEBUG Traceback of the failed resource update\n'
            'Traceback (most recent call last):'))
        self.assertEqual(2, output.count('Traceback (most recent call'))

        host.buggy = False
        self._run(mgr)
        self.assertEqual('compute-1',
                         mgr.resource_tracker.compute_node.hostname)

    def test_row_the_conductor_cannot_load_is_one_error(self):
        self._run(self._manager())
        from zun_hostcap.db import api as db_api
        # The test breaks the row, not the compute: past its DB guard.
        with db_api.conductor_scope(), self.db.engine.begin() as conn:
            conn.execute(sa.text(
                "UPDATE compute_nodes SET numa_topology = "
                "'{\"nodes\": [{\"id\": 0}]}'"))
        restarted = self._manager()
        self.assertEqual(
            ["ERROR The resource update failed with an unexpected KeyError: "
             "'cpuset'; it is retried in 60 seconds."] * 2,
            self._run(restarted, 2))
        self.assertIsNone(restarted.resource_tracker.compute_node)

    def test_unexpected_remote_errors_are_one_line(self):
        # Over RabbitMQ a builtin exception of the conductor is rebuilt
        # with the remote traceback in its argument; any other becomes a
        # RemoteError with it in its message.
        for error, line in [
                (KeyError('cpuset'), "KeyError: 'cpuset'"),
                (sa.exc.ArgumentError('bad column'),
                 'RemoteError: Remote error: ArgumentError bad column')]:
            with fixtures.MockPatchObject(
                    rpc.TRANSPORT._driver, 'send',
                    side_effect=remote(error)):
                self.assertEqual(
                    ['ERROR The resource update failed with an unexpected '
                     '%s; it is retried in 60 seconds.' % line],
                    self._run(self._manager()))
        # Both tracebacks, ours and the remote one, only at DEBUG.
        self.assertEqual(2, self.logs.output.count(
            'DEBUG Traceback of the failed resource update'))
