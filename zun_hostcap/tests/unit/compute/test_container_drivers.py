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

"""Container drivers: what a container claims, and a runtime not there."""

import logging
import os
import uuid

import fixtures

from zun_hostcap.common import exception
from zun_hostcap.compute import container
from zun_hostcap.compute.container import base
from zun_hostcap.compute.container import docker as docker_driver
from zun_hostcap.compute import manager
from zun_hostcap.os_capability import fake as fake_host
from zun_hostcap.tests import base as test_base

CONTAINER_ID = 'c0ffee' * 10 + 'abcd'


def inspected(host_config=None, labels=None, status='running', name='/web'):
    """A document as GET /containers/{id} answers, with what is read."""
    return {'Id': CONTAINER_ID, 'Name': name,
            'State': {'Status': status},
            'Config': {'Labels': labels},
            'HostConfig': dict(host_config or {})}


class TestClaims(test_base.TestCase):

    def setUp(self):
        super().setUp()
        self.logs = self.useFixture(fixtures.FakeLogger(
            name='zun_hostcap', level=logging.DEBUG))

    def test_cpus_from_nano_cpus_then_quota(self):
        self.assertEqual(0.5, docker_driver.cpus_of({'NanoCpus': 500000000}))
        self.assertEqual(1.5, docker_driver.cpus_of(
            {'CpuQuota': 150000, 'CpuPeriod': 100000}))
        # The default period (100 ms) when the container sets none.
        self.assertEqual(0.25, docker_driver.cpus_of({'CpuQuota': 25000}))
        self.assertEqual(0.0, docker_driver.cpus_of(
            {'NanoCpus': 0, 'CpuQuota': -1, 'CpuPeriod': 0}))
        self.assertEqual(0.0, docker_driver.cpus_of({}))

    def test_memory_in_mib_rounded_up(self):
        self.assertEqual(64, docker_driver.memory_mb_of({'Memory': 67108864}))
        self.assertEqual(65, docker_driver.memory_mb_of(
            {'Memory': 67108864 + 1}))
        self.assertEqual(0, docker_driver.memory_mb_of({'Memory': 0}))
        self.assertEqual(0, docker_driver.memory_mb_of({}))

    def test_disk_quota_in_gib_rounded_up(self):
        for size, gib in (('10G', 10), ('10GB', 10), ('1.5GiB', 2),
                          ('512m', 1), ('2048', 1), ('1t', 1024)):
            self.assertEqual(gib, docker_driver.disk_gb_of(
                {'StorageOpt': {'size': size}}), size)
        self.assertEqual(0, docker_driver.disk_gb_of({'StorageOpt': {}}))
        self.assertEqual(0, docker_driver.disk_gb_of(
            {'StorageOpt': {'size': 'lots'}}))

    def test_claim_leaves_out_what_is_unlimited(self):
        self.assertEqual(
            {'VCPU': 1, 'MEMORY_MB': 64},
            base.Container('u', 'n', base.RUNNING, cpus=0.5,
                           memory_mb=64).claim)
        self.assertEqual(
            {'VCPU': 3, 'DISK_GB': 10},
            base.Container('u', 'n', base.STOPPED, cpus=2.01,
                           disk_gb=10).claim)
        self.assertEqual({}, base.Container('u', 'n', base.PAUSED).claim)

    def test_consumer_uuid_from_the_label_else_from_the_id(self):
        labelled = str(uuid.uuid4())
        self.assertEqual(labelled, docker_driver.consumer_uuid(
            CONTAINER_ID, {docker_driver.UUID_LABEL: labelled.upper()}))
        derived = docker_driver.consumer_uuid(CONTAINER_ID, None)
        self.assertEqual(derived, docker_driver.consumer_uuid(
            CONTAINER_ID, {'other': 'label'}))
        self.assertEqual(derived, docker_driver.consumer_uuid(
            CONTAINER_ID, {docker_driver.UUID_LABEL: 'not-a-uuid'}))
        self.assertIn('is not a uuid', self.logs.output)
        self.assertEqual(4, uuid.UUID(labelled).version)
        self.assertEqual(5, uuid.UUID(derived).version)
        self.assertNotEqual(derived, docker_driver.consumer_uuid(
            CONTAINER_ID[::-1], None))

    def test_container_of_an_inspected_document(self):
        found = docker_driver.container_of(inspected(
            {'NanoCpus': 500000000, 'Memory': 67108864}))
        self.assertEqual(base.Container(
            docker_driver.consumer_uuid(CONTAINER_ID, None), 'web',
            base.RUNNING, cpus=0.5, memory_mb=64), found)
        self.assertEqual({'VCPU': 1, 'MEMORY_MB': 64}, found.claim)
        for status, state in (('created', base.STOPPED),
                              ('exited', base.STOPPED),
                              ('dead', base.STOPPED),
                              ('paused', base.PAUSED),
                              ('restarting', base.RUNNING)):
            self.assertEqual(state, docker_driver.container_of(
                inspected(status=status)).state)
        self.assertEqual(CONTAINER_ID[:12], docker_driver.container_of(
            inspected(name='')).name)
        owned = docker_driver.container_of(inspected(labels={
            docker_driver.PROJECT_LABEL: 'p1',
            docker_driver.USER_LABEL: 'u1'}))
        self.assertEqual(('p1', 'u1'), (owned.project_id, owned.user_id))
        self.assertEqual((None, None), (found.project_id, found.user_id))

    def test_usage_counts_states_and_sums_limits(self):
        containers = [
            base.Container('a', 'a', base.RUNNING, cpus=0.5, memory_mb=64),
            base.Container('b', 'b', base.RUNNING, cpus=2, memory_mb=128),
            base.Container('c', 'c', base.PAUSED, cpus=0.25),
            base.Container('d', 'd', base.STOPPED, memory_mb=32),
        ]
        self.assertEqual(
            base.ContainerUsage(total=4, running=2, paused=1, stopped=1,
                                cpu_used=2.75, mem_used=224,
                                runtimes=('runc',)),
            base.usage_of(containers, runtimes=('runc',)))


class TestRuntimeNotThere(test_base.TestCase):

    def setUp(self):
        super().setUp()
        self.logs = self.useFixture(fixtures.FakeLogger(
            name='zun_hostcap', level=logging.DEBUG))
        self.socket = os.path.join(
            self.useFixture(fixtures.TempDir()).path, 'docker.sock')
        self.flags(group='docker', api_url='unix://' + self.socket,
                   timeout=2)

    def test_the_driver_is_chosen_by_name(self):
        self.assertIsInstance(container.load_driver('docker'),
                              docker_driver.DockerDriver)
        self.assertIsInstance(container.load_driver('fake'),
                              container.fake.FakeContainerDriver)
        self.assertRaises(ValueError, container.load_driver, 'lxc')

    def test_an_unreachable_runtime_is_one_clear_error(self):
        driver = container.load_driver('docker')
        for call in (driver.list_containers, driver.get_usage):
            err = self.assertRaises(exception.ContainerRuntimeUnavailable,
                                    call)
            self.assertIn('unix://%s cannot be reached' % self.socket,
                          str(err))
            self.assertNotIn('\n', str(err))

    def test_the_resource_update_says_so_and_saves_nothing(self):
        compute = manager.ComputeManager(
            host='compute-1',
            host_driver=fake_host.FakeDriver(
                fake_host.sample_capabilities()),
            container_driver=container.load_driver('docker'))
        compute.update_available_resource(None)
        self.assertIsNone(compute.resource_tracker.compute_node)
        self.assertIn('The container runtime at unix://%s cannot be '
                      'reached' % self.socket, self.logs.output)
        self.assertIn('the resource update is retried in 60 seconds',
                      self.logs.output)
        self.assertNotIn('Traceback', self.logs.output)
