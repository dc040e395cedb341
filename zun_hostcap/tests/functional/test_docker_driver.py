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

"""The docker container driver against a real runtime (podman's API).

What the driver reads of containers made through the Docker Engine API
with limits, as ``docker run --cpus 0.5 --memory 64m`` makes them, and
the ComputeNode of a compute service that uses it following them, and
its allocations in Placement.
"""

import json
import urllib.error
import urllib.request
import uuid

from oslotest import base as oslo_base

from zun_hostcap.compute.container import base as container_base
from zun_hostcap.compute.container import docker as docker_driver
from zun_hostcap.tests.functional import base
from zun_hostcap.tests.functional import container_runtime

HALF_A_CPU = 500000000   # NanoCpus of --cpus 0.5


class TestDockerDriver(oslo_base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.runtime = self.useFixture(
            container_runtime.PodmanService(self))
        self.driver = docker_driver.DockerDriver(url=self.runtime.url,
                                                 version='auto', timeout=30)

    def _listed(self):
        return {c.uuid: c for c in self.driver.list_containers()}

    def test_a_container_claims_its_limits(self):
        consumer = str(uuid.uuid4())
        self.runtime.run(labels={docker_driver.UUID_LABEL: consumer},
                         nano_cpus=HALF_A_CPU, mem_limit='64m')
        found = self._listed()[consumer]
        self.assertEqual(container_base.RUNNING, found.state)
        self.assertEqual(0.5, found.cpus)
        self.assertEqual(64, found.memory_mb)
        self.assertEqual({'VCPU': 1, 'MEMORY_MB': 64}, found.claim)

        usage = self.driver.get_usage()
        self.assertEqual((1, 1, 0, 0, 0.5, 64),
                         (usage.total, usage.running, usage.paused,
                          usage.stopped, usage.cpu_used, usage.mem_used))
        self.assertIn('runc', usage.runtimes)

    def test_states_and_a_uuid_for_a_container_without_label(self):
        container_id = self.runtime.run(cpu_quota=150000,
                                        cpu_period=100000)
        derived = docker_driver.consumer_uuid(container_id, None)
        self.assertEqual({derived}, set(self._listed()))
        self.assertEqual({'VCPU': 2}, self._listed()[derived].claim)

        self.runtime.api.pause(container_id)
        self.assertEqual(container_base.PAUSED,
                         self._listed()[derived].state)
        self.runtime.api.unpause(container_id)
        self.runtime.api.stop(container_id, timeout=1)
        self.assertEqual(container_base.STOPPED,
                         self._listed()[derived].state)
        usage = self.driver.get_usage()
        # A stopped container still holds what it claims.
        self.assertEqual((1, 0, 0, 1, 1.5),
                         (usage.total, usage.running, usage.paused,
                          usage.stopped, usage.cpu_used))

        self.runtime.remove(container_id)
        self.assertEqual({}, self._listed())
        self.assertEqual(0, self.driver.get_usage().total)


class TestComputeNodeFollowsTheRuntime(oslo_base.BaseTestCase):
    """zun-hostcap-compute with the docker driver, over a real runtime."""

    def setUp(self):
        super().setUp()
        self.runtime = self.useFixture(
            container_runtime.PodmanService(self))
        self.deployment = self.useFixture(
            base.Deployment(self, interval=1))

    def _counts(self, expected, timeout=30):
        def counted():
            node = self.deployment.node()
            if node is None:
                return None
            got = (node['total_containers'], node['running_containers'],
                   node['paused_containers'], node['stopped_containers'],
                   node['cpu_used'], node['mem_used'])
            return got if got == expected else None
        return base.wait_for(
            counted, timeout,
            message='the ComputeNode to count %s' % (expected,),
            processes=self.deployment.processes())

    def test_container_counts_follow(self):
        self.deployment.start({'container_driver': 'docker',
                               'os_capability_driver': 'fake'},
                              docker={'api_url': self.runtime.url})
        self._counts((0, 0, 0, 0, 0.0, 0))

        first = self.runtime.run(nano_cpus=HALF_A_CPU, mem_limit='64m')
        second = self.runtime.run(mem_limit='32m')
        self._counts((2, 2, 0, 0, 0.5, 96))

        self.runtime.api.pause(second)
        self._counts((2, 1, 1, 0, 0.5, 96))

        self.runtime.remove(first)
        self.runtime.remove(second)
        self._counts((0, 0, 0, 0, 0.0, 0))
        self.assertNotIn('Traceback', self.deployment.compute.log())


class TestPlacementAudit(oslo_base.BaseTestCase):
    """The compute reports its host and containers to /placement.

    zun-hostcap-compute with the docker driver over a real runtime,
    reporting to zun-hostcap-api's /placement through keystoneauth1
    (admin_token, endpoint_override), over RabbitMQ and MariaDB.
    """

    def setUp(self):
        super().setUp()
        self.runtime = self.useFixture(
            container_runtime.PodmanService(self))
        self.deployment = self.useFixture(
            base.Deployment(self, interval=1))
        port = base.free_port()
        self.placement = 'http://127.0.0.1:%d/placement' % port
        self.deployment.start(
            {'container_driver': 'docker', 'os_capability_driver': 'fake'},
            docker={'api_url': self.runtime.url},
            placement={'auth_type': 'admin_token', 'token': 'admin',
                       'endpoint_override': self.placement})
        self.deployment.start_api(port=port)
        self.node = self.deployment.wait_for_node()

    def _placement(self, method, path, body=None):
        request = urllib.request.Request(
            self.placement + path, method=method,
            data=json.dumps(body).encode() if body is not None else None,
            headers={'X-Auth-Token': 'admin',
                     'OpenStack-API-Version': 'placement 1.36',
                     'Content-Type': 'application/json',
                     'Accept': 'application/json'})
        try:
            with urllib.request.urlopen(request, timeout=10) as resp:
                text = resp.read()
                return resp.status, json.loads(text) if text else None
        except urllib.error.HTTPError as err:
            with err:
                return err.code, json.loads(err.read() or b'null')

    def _allocations(self, expected, timeout=30):
        path = '/resource_providers/%s/allocations' % self.node['uuid']

        def held():
            try:
                status, doc = self._placement('GET', path)
            except OSError:
                return False   # the API is not listening (yet)
            if status != 200:
                return None
            got = {consumer: alloc['resources']
                   for consumer, alloc in doc['allocations'].items()}
            return got == expected
        return base.wait_for(
            held, timeout, message='the allocations %s' % (expected,),
            processes=self.deployment.processes())

    def _inventories(self):
        def inventory():
            status, doc = self._placement(
                'GET', '/resource_providers/%s/inventories' %
                self.node['uuid'])
            return doc['inventories'] if status == 200 else None
        return base.wait_for(
            inventory, 30, message='the host\'s inventory',
            processes=self.deployment.processes())

    def test_containers_are_allocations_and_the_audit_heals(self):
        inventories = self._inventories()
        self.assertEqual(self.node['cpus'], inventories['VCPU']['total'])
        self.assertEqual(self.node['mem_total'],
                         inventories['MEMORY_MB']['total'])
        status, provider = self._placement(
            'GET', '/resource_providers/%s' % self.node['uuid'])
        self.assertEqual(self.node['hostname'], provider['name'])

        consumer = str(uuid.uuid4())
        container = self.runtime.run(
            labels={docker_driver.UUID_LABEL: consumer},
            nano_cpus=HALF_A_CPU, mem_limit='64m')
        self._allocations({consumer: {'VCPU': 1, 'MEMORY_MB': 64}})

        # An allocation of a consumer that is no container of this host.
        stranger = str(uuid.uuid4())
        status, _doc = self._placement('PUT', '/allocations/%s' % stranger, {
            'allocations': {self.node['uuid']: {'resources': {'VCPU': 2}}},
            'project_id': str(uuid.uuid4()), 'user_id': str(uuid.uuid4()),
            'consumer_generation': None})
        self.assertEqual(204, status)
        self._allocations({consumer: {'VCPU': 1, 'MEMORY_MB': 64}})
        self.assertEqual({}, self._placement(
            'GET', '/allocations/%s' % stranger)[1]['allocations'])

        self.runtime.remove(container)
        self._allocations({})
        node = self.deployment.node()
        self.assertEqual((0, 0), (node['total_containers'],
                                  node['running_containers']))
        log = self.deployment.compute.log()
        self.assertIn('Deleted the allocations of %s' % stranger, log)
        self.assertNotIn('Traceback', log)

    def test_placement_killed_loses_nothing(self):
        self._inventories()
        compute = self.deployment.compute
        api = self.deployment.api
        api.kill()
        failed_from = compute.log_size()
        consumer = str(uuid.uuid4())
        self.runtime.run(labels={docker_driver.UUID_LABEL: consumer},
                         nano_cpus=HALF_A_CPU, mem_limit='64m')
        # The host is still saved: the ComputeNode counts the container.
        base.wait_for(
            lambda: self.deployment.node()['total_containers'] == 1, 30,
            message='the container counted while Placement is down',
            processes=(self.deployment.conductor, compute))
        base.wait_for(
            lambda: compute.log(since=failed_from).count(
                'the report to Placement is retried') >= 3, 30,
            message='three failed reports', processes=(compute,))

        api.start()
        self._allocations({consumer: {'VCPU': 1, 'MEMORY_MB': 64}})
        # Logged once the run that wrote it is over, a moment later.
        base.wait_for(
            lambda: 'The resource update succeeded after' in compute.log(
                since=failed_from), 30,
            message='the run that caught up', processes=(compute,))
        log = compute.log(since=failed_from)
        failures = [line for line in log.splitlines()
                    if 'the report to Placement is retried' in line]
        # One line a failed run, each naming what failed.
        self.assertTrue(all('The Placement service at %s cannot be reached'
                            % self.placement in line for line in failures),
                        failures)
        self.assertIn('The resource update succeeded after', log)
        self.assertNotIn('Traceback', log)
        # Caught up without a second provider.
        status, doc = self._placement('GET', '/resource_providers')
        self.assertEqual([self.node['uuid']],
                         [rp['uuid'] for rp in doc['resource_providers']])
