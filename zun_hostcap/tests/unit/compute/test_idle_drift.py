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

"""Idle means idle: a VM host whose memory balloon jitters writes nothing.

The resource tracker, its conductor and its database are real; the host
is the os_capability fake driver with a memory balloon
(``BalloonDriver``), which moves MemTotal, MemFree and MemAvailable of
the host and of each NUMA node.
"""

from zun_hostcap.compute import container
from zun_hostcap.compute import resource_tracker
from zun_hostcap.db import api as db_api
from zun_hostcap import objects
from zun_hostcap.os_capability import fake as fake_host
from zun_hostcap.tests import base
from zun_hostcap.tests import fixtures as zun_fixtures

GRANULARITY_PERCENT = 1.0
CYCLES = 200
KIB_PER_MIB = 1024


class TestBalloonDrift(base.TestCase):

    def setUp(self):
        super().setUp()
        self.db = self.useFixture(zun_fixtures.Database())
        self.useFixture(zun_fixtures.RPC(self.conf))
        self.conductor = self.useFixture(zun_fixtures.Conductor(self.conf))
        self.host = fake_host.BalloonDriver(seed=15)
        self.tracker = resource_tracker.ResourceTracker(
            'vm-1', self.host, container.fake.FakeContainerDriver(),
            granularity_percent=GRANULARITY_PERCENT)
        # The node as the balloon first leaves it.
        self.tracker.update_available_resource(self.context)

    def _stored(self):
        with db_api.conductor_scope():
            return objects.ComputeNode.get_by_hostname(self.context, 'vm-1')

    def _saves(self):
        return [call for call in self.conductor.manager.calls
                if call == ('ComputeNode', 'save')]

    def _run(self, cycles=1):
        for _ in range(cycles):
            self.tracker.update_available_resource(self.context)

    def test_jitter_below_the_granularity_saves_nothing(self):
        # Every memory figure of the host and of each NUMA node moves by
        # up to 0.9 % of its total, either way, at each probe.
        self.host.jitter = 0.9 * GRANULARITY_PERCENT / 100
        calls = list(self.conductor.manager.calls)
        writes = self.db.count_writes()
        seen_totals = set()
        for _ in range(CYCLES):
            seen_totals.add(self.host.get_capabilities().memory.mem_total)
            self._run()
        # The figures did move (the driver is not stuck)...
        self.assertGreater(len(seen_totals), CYCLES // 2)
        # ... and nothing was sent or written.
        self.assertEqual(calls, self.conductor.manager.calls)
        self.assertEqual([], writes)

    def test_balloon_moving_past_the_granularity_is_saved(self):
        before = self._stored()
        writes = self.db.count_writes()
        self.host.inflated = 3 * GRANULARITY_PERCENT / 100

        self._run()

        self.assertEqual(1, len(self._saves()))
        self.assertEqual(1, len(writes))
        caps = self.host.get_capabilities()
        after = self._stored()
        self.assertEqual(caps.memory.mem_total // KIB_PER_MIB,
                         after.mem_total)
        self.assertLess(after.mem_total, before.mem_total)
        self.assertEqual(
            [cell.mem_total_kb // KIB_PER_MIB
             for cell in caps.numa_topology],
            [cell.mem_total for cell in after.numa_topology.nodes])
        self.assertEqual(
            [cell.mem_free_kb // KIB_PER_MIB
             for cell in caps.numa_topology],
            [cell.mem_available for cell in after.numa_topology.nodes])

        # Jittering where it now is: idle again.
        self.host.jitter = 0.9 * GRANULARITY_PERCENT / 100
        self._run(20)
        self.assertEqual(1, len(self._saves()))

    def test_creeping_balloon_never_lags_more_than_the_granularity(self):
        # 0.3 % more each cycle: each step alone is noise, their sum not.
        saves = []
        for step in range(1, 21):
            self.host.inflated = step * 0.3 / 100
            self._run()
            saves.append(len(self._saves()))
            reported = self.host.get_capabilities()
            stored = self._stored()
            limit = reported.memory.mem_total * GRANULARITY_PERCENT / 100
            self.assertLessEqual(
                abs(reported.memory.mem_total - stored.mem_total *
                    KIB_PER_MIB), limit + KIB_PER_MIB, step)
            for cell, stored_cell in zip(reported.numa_topology,
                                         stored.numa_topology.nodes):
                self.assertLessEqual(
                    abs(cell.mem_total_kb -
                        stored_cell.mem_total * KIB_PER_MIB),
                    cell.mem_total_kb * GRANULARITY_PERCENT / 100 +
                    KIB_PER_MIB, step)
        # One save each time the sum passes 1 %: every 4th step (1.2 %).
        self.assertEqual([step // 4 for step in range(1, 21)], saves)

    def test_zero_granularity_saves_every_move(self):
        self.tracker.granularity_percent = 0
        self.host.inflated = 0.001
        self._run()
        self.host.inflated = 0.002
        self._run()
        self.assertEqual(2, len(self._saves()))
        self.assertEqual(
            self.host.get_capabilities().numa_topology[0].mem_total_kb //
            KIB_PER_MIB,
            self._stored().numa_topology.nodes[0].mem_total)


class TestNumaMemoryTotal(base.TestCase):
    """Only a NUMA node's total moves (the host's stays)."""

    def setUp(self):
        super().setUp()
        self.useFixture(zun_fixtures.Database())
        self.useFixture(zun_fixtures.RPC(self.conf))
        self.conductor = self.useFixture(zun_fixtures.Conductor(self.conf))
        self.caps = fake_host.sample_capabilities()
        self.host = fake_host.FakeDriver(self.caps)
        self.tracker = resource_tracker.ResourceTracker(
            'vm-1', self.host, container.fake.FakeContainerDriver(),
            granularity_percent=GRANULARITY_PERCENT)
        self.tracker.update_available_resource(self.context)

    def _node_total(self, mem_total_kb):
        cell = self.caps.numa_topology[1]
        self.host.update(numa_topology=(
            self.caps.numa_topology[0],
            fake_host.model.NumaNode(id=cell.id, cpus=cell.cpus,
                                     mem_total_kb=mem_total_kb,
                                     mem_free_kb=cell.mem_free_kb)))
        self.tracker.update_available_resource(self.context)

    def test_small_moves_are_held_a_large_one_is_saved(self):
        calls = len(self.conductor.manager.calls)
        total = self.caps.numa_topology[1].mem_total_kb
        for delta in (-total // 200, total // 300, -total // 150):
            self._node_total(total + delta)
        self.assertEqual(calls, len(self.conductor.manager.calls))

        self._node_total(total - total // 20)
        self.assertEqual(calls + 1, len(self.conductor.manager.calls))
        self.assertEqual(('ComputeNode', 'save'),
                         self.conductor.manager.calls[-1])
        with db_api.conductor_scope():
            stored = objects.ComputeNode.get_by_hostname(self.context,
                                                         'vm-1')
        self.assertEqual((total - total // 20) // KIB_PER_MIB,
                         stored.numa_topology.nodes[1].mem_total)
