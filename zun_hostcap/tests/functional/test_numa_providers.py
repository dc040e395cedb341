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

"""NUMA providers over a real container runtime, against two Placements.

Podman's Docker-compatible API runs two containers with CPU and memory
limits. A compute's resource tracker (the docker driver on that API, a
host of two NUMA nodes from the fake host driver) reports them; restarted
with ``[compute] numa_providers = true`` it moves VCPU, MEMORY_MB and the
containers' allocations to its NUMA nodes in one POST /reshaper, and back
to the host's provider when restarted with the option off. The same test
runs against this project's /placement (zun-hostcap-api) and against
OpenStack Placement from PyPI (``tools/placement_peer.py``), which the
compute reaches through keystoneauth1 as it reaches any Placement.
"""

import logging
import uuid

import fixtures

from zun_hostcap.compute.container import docker as docker_driver
from zun_hostcap.compute import numa_providers
from zun_hostcap.compute import placement_client
from zun_hostcap.compute import placement_report
from zun_hostcap.compute import resource_tracker
from zun_hostcap.os_capability import fake as fake_host
from zun_hostcap.tests import base as test_base
from zun_hostcap.tests import fixtures as zun_fixtures
from zun_hostcap.tests.functional import container_runtime
from zun_hostcap.tests.functional import test_placement_peers
from zun_hostcap.tests import utils as test_utils

RESHAPED = 'Reshaped the resource providers of'


class NumaProvidersTests(object):

    def setUp(self):
        super().setUp()
        self.runtime = self.useFixture(
            container_runtime.PodmanService(self))
        test_utils.use_placement(self, self.start_placement())
        # The compute nodes' rows, written here as the conductor would.
        self.useFixture(zun_fixtures.Database())
        self.logs = self.useFixture(fixtures.FakeLogger(
            name='zun_hostcap', level=logging.INFO))
        self.hostname = 'numa-%s' % uuid.uuid4().hex[:8]
        # Two NUMA nodes of 8 CPUs and 32103 MiB each.
        self.host = fake_host.FakeDriver(fake_host.sample_capabilities())
        self.flags(group='compute', cpu_allocation_ratio=1.0,
                   reserved_host_memory_mb=0)
        self.client = placement_client.ReportClient()

    def start_compute(self, numa_providers):
        """The tracker of a compute (re)started with the option."""
        self.flags(group='compute', numa_providers=numa_providers)
        return resource_tracker.ResourceTracker(
            self.hostname, self.host,
            docker_driver.DockerDriver(url=self.runtime.url, version='auto',
                                       timeout=30),
            reporter=placement_report.Reporter(
                placement_client.ReportClient()))

    def run_container(self, nano_cpus, memory):
        consumer = str(uuid.uuid4())
        self.runtime.run(labels={docker_driver.UUID_LABEL: consumer},
                         nano_cpus=nano_cpus, mem_limit=memory)
        return consumer

    def usages(self, providers):
        """{class: used} over ``providers``."""
        total = {}
        for rp in providers:
            for rc, used in self.client.provider_usages(rp).items():
                if used:
                    total[rc] = total.get(rc, 0) + used
        return total

    def test_turned_on_and_off_with_running_containers(self):
        web = self.run_container(500000000, '64m')
        db = self.run_container(2000000000, '128m')
        root = self.start_compute(False).update_available_resource(
            self.context).uuid
        self.assertEqual({'VCPU': 3, 'MEMORY_MB': 192},
                         self.usages([root]))

        compute = self.start_compute(True)
        compute.update_available_resource(self.context)
        self.assertEqual(1, self.logs.output.count(RESHAPED))
        nodes = [numa_providers.provider_uuid(root, cell) for cell in (0, 1)]
        tree = self.client.provider_tree(root)
        self.assertEqual(
            {root: None, nodes[0]: root, nodes[1]: root},
            {rp: doc['parent_provider_uuid'] for rp, doc in tree.items()})
        self.assertEqual('%s_NUMA1' % self.hostname, tree[nodes[1]]['name'])
        self.assertNotIn('VCPU', self.client.read_provider(root)[
            'inventories'])
        self.assertEqual(
            {'VCPU': 8, 'MEMORY_MB': 32103},
            {rc: inventory['total'] for rc, inventory in
             self.client.read_provider(nodes[0])['inventories'].items()})
        # Both fit on node 0, the larger placed first.
        self.assertEqual({nodes[0]: {'VCPU': 2, 'MEMORY_MB': 128}},
                         self.client.get_allocations(db)[1])
        self.assertEqual({nodes[0]: {'VCPU': 1, 'MEMORY_MB': 64}},
                         self.client.get_allocations(web)[1])
        self.assertEqual({'VCPU': 3, 'MEMORY_MB': 192},
                         self.usages([root] + nodes))

        # Nothing more to move: no other reshape; a new container lands
        # on a node too.
        late = self.run_container(1000000000, '32m')
        compute.update_available_resource(self.context)
        self.assertEqual(1, self.logs.output.count(RESHAPED))
        self.assertEqual({nodes[0]: {'VCPU': 1, 'MEMORY_MB': 32}},
                         self.client.get_allocations(late)[1])

        self.start_compute(False).update_available_resource(self.context)
        self.assertEqual(2, self.logs.output.count(RESHAPED))
        self.assertEqual([root], list(self.client.provider_tree(root)))
        self.assertEqual({root: {'VCPU': 2, 'MEMORY_MB': 128}},
                         self.client.get_allocations(db)[1])
        self.assertEqual({'VCPU': 4, 'MEMORY_MB': 224},
                         self.usages([root]))
        self.assertNotIn('Traceback', self.logs.output)


class TestNumaProvidersAgainstOurPlacement(NumaProvidersTests,
                                           test_base.TestCase):

    start_placement = (
        test_placement_peers.TestAgainstOurPlacement.start_placement)


class TestNumaProvidersAgainstOpenStackPlacement(NumaProvidersTests,
                                                 test_base.TestCase):

    start_placement = (
        test_placement_peers.TestAgainstOpenStackPlacement.start_placement)
