"""The resource tracker, its conductor and its database, all real.

Only the host is fake: the os_capability fake driver stands in for the
machine, so a test can change what the host has.
"""

import dataclasses

import fixtures

from zun_hostcap.common import exception
from zun_hostcap.compute import container
from zun_hostcap.compute import manager
from zun_hostcap.compute import resource_tracker
from zun_hostcap import objects
from zun_hostcap import os_capability
from zun_hostcap.os_capability import fake as fake_host
from zun_hostcap.tests import base
from zun_hostcap.tests import fixtures as zun_fixtures

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


class TestComputeManager(base.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(zun_fixtures.Database())
        self.useFixture(zun_fixtures.RPC(self.conf))
        self.useFixture(zun_fixtures.Conductor(self.conf))

    def test_periodic_task_uses_configured_interval(self):
        self.flags(group='compute', resource_update_interval=7)
        mgr = manager.ComputeManager(
            host='compute-1',
            host_driver=fake_host.FakeDriver(fake_host.sample_capabilities()),
            container_driver=container.fake.FakeContainerDriver())
        self.assertEqual(7, mgr._periodic_spacing['update_available_resource'])
        # run_immediately: the first run creates the node at once.
        idle = mgr.run_periodic_tasks(self.context, raise_on_error=True)
        self.assertLessEqual(idle, 7)
        self.assertEqual('compute-1', mgr.resource_tracker.compute_node
                         .hostname)

    def test_probe_failure_is_one_log_line_and_retried(self):
        class BrokenHost(fake_host.FakeDriver):
            broken = True

            def get_capabilities(self):
                if self.broken:
                    raise os_capability.CapabilityError(
                        'lscpu', 'command not found')
                return super().get_capabilities()

        logs = self.useFixture(fixtures.FakeLogger(
            name='zun_hostcap.compute.manager'))
        host = BrokenHost(fake_host.sample_capabilities())
        mgr = manager.ComputeManager(
            host='compute-1', host_driver=host,
            container_driver=container.fake.FakeContainerDriver())
        mgr.update_available_resource(self.context)
        self.assertIn('lscpu: command not found', logs.output)
        self.assertNotIn('Traceback', logs.output)
        self.assertIsNone(mgr.resource_tracker.compute_node)

        host.broken = False
        mgr.update_available_resource(self.context)
        self.assertEqual('compute-1',
                         mgr.resource_tracker.compute_node.hostname)
