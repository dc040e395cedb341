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

"""The fake driver's memory balloon."""

from oslotest import base

from zun_hostcap.os_capability import fake


class TestBallooned(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.caps = fake.sample_capabilities()

    def test_takes_a_fraction_of_each_memory_total(self):
        ballooned = fake.ballooned(self.caps, 0.01)
        memory, before = ballooned.memory, self.caps.memory
        gone = before.mem_total // 100
        self.assertEqual(
            (before.mem_total - gone, before.mem_free - gone,
             before.mem_available - gone),
            (memory.mem_total, memory.mem_free, memory.mem_available))
        # What a balloon does not touch stays.
        self.assertEqual((before.buffers, before.cached),
                         (memory.buffers, memory.cached))
        for cell, was in zip(ballooned.numa_topology,
                             self.caps.numa_topology):
            self.assertEqual(was.mem_total_kb - was.mem_total_kb // 100,
                             cell.mem_total_kb)
            self.assertEqual(was.mem_free_kb - was.mem_total_kb // 100,
                             cell.mem_free_kb)
            self.assertEqual(was.cpus, cell.cpus)
        self.assertEqual(self.caps.cpu, ballooned.cpu)
        self.assertEqual(self.caps.disk, ballooned.disk)

    def test_a_deflated_balloon_gives_memory_back(self):
        ballooned = fake.ballooned(self.caps, -0.02)
        self.assertGreater(ballooned.memory.mem_total,
                           self.caps.memory.mem_total)

    def test_unread_parts_stay_unread(self):
        driver = fake.FakeDriver(self.caps)
        driver.fail('memory', '/proc/meminfo', 'Permission denied')
        driver.fail('numa_topology', '/sys/devices/system/node', 'gone')
        ballooned = fake.ballooned(driver.get_capabilities(), 0.01)
        self.assertIsNone(ballooned.memory)
        self.assertIsNone(ballooned.numa_topology)
        self.assertEqual(2, len(ballooned.errors))


class TestBalloonDriver(base.BaseTestCase):

    def test_jitter_stays_within_bounds_and_repeats_with_its_seed(self):
        totals = []
        for _ in range(2):
            driver = fake.BalloonDriver(inflated=0.05, jitter=0.01, seed=3)
            totals.append([driver.get_capabilities().memory.mem_total
                           for _ in range(50)])
        self.assertEqual(totals[0], totals[1])
        full = fake.sample_capabilities().memory.mem_total
        for total in totals[0]:
            self.assertLessEqual(total, full * 0.96 + 1)
            self.assertGreaterEqual(total, full * 0.94 - 1)
        self.assertGreater(len(set(totals[0])), 25)

    def test_without_balloon_it_is_the_fake_driver(self):
        self.assertEqual(fake.sample_capabilities(),
                         fake.BalloonDriver().get_capabilities())
