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

"""The compute's report to Placement, against ours and against Placement.

The same test, through the compute's report client and reporter, runs
against this project's /placement (zun-hostcap-api, SQLite) and against
OpenStack Placement from PyPI (``tools/placement_peer.py``, SQLite), as
operators will point the compute at either.
"""

import os
import subprocess
import sys
import uuid

import fixtures

from zun_hostcap.compute.container import base as container_base
from zun_hostcap.compute import placement_client
from zun_hostcap.compute import placement_report
from zun_hostcap import objects
from zun_hostcap import os_capability
from zun_hostcap.tests import base as test_base
from zun_hostcap.tests.functional import base
from zun_hostcap.tests import utils as test_utils

TOOLS = base.TOOLS
PROJECT = str(uuid.uuid4())
USER = str(uuid.uuid4())


class ReportTests(object):
    """What the compute tells a Placement service, read back from it."""

    def setUp(self):
        super().setUp()
        test_utils.use_placement(self, self.start_placement())
        self.client = placement_client.ReportClient()
        self.reporter = placement_report.Reporter(self.client)
        self.node = objects.ComputeNode(
            uuid=str(uuid.uuid4()), hostname='peer-%s' % uuid.uuid4().hex[:8],
            cpus=8, mem_total=16384, disk_total=100)

    def container(self, **values):
        values.setdefault('uuid', str(uuid.uuid4()))
        values.setdefault('state', container_base.RUNNING)
        return container_base.Container(name='c', **values)

    def test_provider_inventory_allocations_and_audit(self):
        self.flags(group='compute', cpu_allocation_ratio=2.0,
                   reserved_host_memory_mb=1024, reserved_host_disk_mb=1500)
        web = self.container(cpus=0.5, memory_mb=64, project_id=PROJECT,
                             user_id=USER)
        db = self.container(cpus=2, memory_mb=1024, disk_gb=10)
        self.reporter.report(self.node, [web, db])

        # Read back by another client, as a restarted compute would.
        other = placement_client.ReportClient()
        inventories = other.read_provider(self.node.uuid)['inventories']
        self.assertEqual(
            {'VCPU': (8, 0, 8, 2.0), 'MEMORY_MB': (16384, 1024, 16384, 1.0),
             'DISK_GB': (100, 2, 100, 1.0)},
            {rc: (inv['total'], inv['reserved'], inv['max_unit'],
                  inv['allocation_ratio'])
             for rc, inv in inventories.items()})
        self.assertEqual(
            {web.uuid: {'VCPU': 1, 'MEMORY_MB': 64},
             db.uuid: {'VCPU': 2, 'MEMORY_MB': 1024, 'DISK_GB': 10}},
            other.provider_allocations(self.node.uuid))
        usages = other._request(
            'GET', '/resource_providers/%s/usages' % self.node.uuid).json()
        self.assertEqual({'VCPU': 3, 'MEMORY_MB': 1088, 'DISK_GB': 10},
                         usages['usages'])

        # Drift: a stranger's allocation; the provider moved on behind
        # the reporter's back. Its next write (the disk grew) is refused
        # for its old generation, reads the provider again, and wins.
        stranger = str(uuid.uuid4())
        other.put_allocations(stranger, {self.node.uuid: {'VCPU': 1}},
                              PROJECT, USER)
        other.set_inventory(self.node.uuid, dict(
            inventories, VCPU=dict(inventories['VCPU'], total=4)))
        self.node.disk_total = 200
        self.reporter.report(self.node, [web, db])
        inventories = other.read_provider(self.node.uuid)['inventories']
        self.assertEqual((8, 200), (inventories['VCPU']['total'],
                                    inventories['DISK_GB']['total']))
        self.assertEqual({web.uuid, db.uuid},
                         set(other.provider_allocations(self.node.uuid)))

        # The CPU's traits, beside an operator's; the PCI devices
        # [pci] device_spec offers as classes, with the spec's traits.
        other._request('PUT', '/traits/CUSTOM_RACK_7')
        other.set_traits(self.node.uuid, {'CUSTOM_RACK_7'})
        self.node.architecture = 'x86_64'
        self.flags(group='pci', device_spec=[
            '{"vendor_id": "8086", "product_id": "1572", '
            '"traits": "fast_nic"}'])
        ports = tuple(os_capability.PciDevice(
            address='0000:3b:00.%d' % function, vendor_id='8086',
            product_id='1572', class_code='020000', numa_node=0,
            driver='i40e') for function in (0, 1))
        bridge = os_capability.PciDevice(
            address='0000:00:00.0', vendor_id='8086', product_id='29c0',
            class_code='060000', numa_node=None, driver=None)
        self.reporter.report(self.node, [web, db],
                             cpu_flags=('avx2', 'sse4_2', 'fpu'),
                             pci_devices=(bridge,) + ports)
        reader = placement_client.ReportClient()
        self.assertEqual(
            {'CUSTOM_RACK_7', 'HW_CPU_X86_AVX2', 'HW_CPU_X86_SSE42',
             'CUSTOM_FAST_NIC'},
            reader.get_traits(self.node.uuid))
        self.assertEqual({'CUSTOM_PCI_8086_1572': 2}, {
            rc: inv['total'] for rc, inv in reader.read_provider(
                self.node.uuid)['inventories'].items()
            if rc.startswith('CUSTOM_')})

        # The containers go.
        self.reporter.report(self.node, [])
        self.assertEqual({}, other.provider_allocations(self.node.uuid))


class SharedDiskTests(object):
    """A shared-disk host, against ours and against Placement."""

    def test_disk_claims_land_on_the_sharing_provider(self):
        admin = placement_client.ReportClient()
        pool, aggregate = str(uuid.uuid4()), str(uuid.uuid4())
        admin.ensure_provider(pool, 'pool-%s' % pool[:8])
        admin.set_inventory(pool, {'DISK_GB': {'total': 1000}})
        admin.set_traits(pool, {'MISC_SHARES_VIA_AGGREGATE'})
        admin.ensure_provider(self.node.uuid, self.node.hostname)
        for rp in (pool, self.node.uuid):
            generation = admin.read_provider(rp)['generation']
            self.assertEqual(200, admin._request(
                'PUT', '/resource_providers/%s/aggregates' % rp,
                {'aggregates': [aggregate],
                 'resource_provider_generation': generation}).status_code)
        self.flags(group='compute', shared_disk_provider=pool)

        web = self.container(cpus=1, memory_mb=64, disk_gb=10)
        db = self.container(memory_mb=128, disk_gb=20)
        self.reporter.report(self.node, [web, db])
        usages = admin._request(
            'GET', '/resource_providers/%s/usages' % pool).json()
        self.assertEqual({'DISK_GB': 30}, usages['usages'])
        self.assertNotIn('DISK_GB', admin.read_provider(
            self.node.uuid)['inventories'])
        self.assertEqual({self.node.uuid: {'VCPU': 1, 'MEMORY_MB': 64},
                          pool: {'DISK_GB': 10}},
                         admin.get_allocations(web.uuid)[1])


class TestAgainstOurPlacement(ReportTests, SharedDiskTests,
                              test_base.TestCase):

    def start_placement(self):
        return start_our_placement(self)


class TestAgainstOpenStackPlacement(ReportTests, SharedDiskTests,
                                    test_base.TestCase):

    def start_placement(self):
        return start_openstack_placement(self)


def start_our_placement(test):
    """zun-hostcap-api (SQLite, noauth2) for ``test``; its /placement URL."""
    tmp = test.useFixture(fixtures.TempDir()).path
    port = base.free_port()
    config = base.write_config(os.path.join(tmp, 'api.conf'), {
        'DEFAULT': {'state_path': tmp},
        'api': {'host': '127.0.0.1', 'port': port, 'workers': 1,
                'auth_strategy': 'noauth2'}})
    subprocess.run(base.console_script('zun-hostcap-db-manage') +
                   ['--config-file', config, 'upgrade'],
                   check=True, capture_output=True)
    api = test.useFixture(base.ServiceProcess('zun-hostcap-api', config,
                                              tmp))
    url = 'http://127.0.0.1:%d/placement' % port
    base.wait_until_serving(test, api, url)
    return url


def start_openstack_placement(test):
    """OpenStack Placement (SQLite, noauth2) for ``test``; its URL."""
    script = os.path.join(TOOLS, 'placement_peer.py')
    python = placement_venv_python()
    base.require(test, python is not None,
                 'openstack-placement is not installed (run %s install)'
                 % script)
    tmp = test.useFixture(fixtures.TempDir()).path
    port = base.free_port()
    # The script makes the schema, then execs the server: this pid.
    peer = test.useFixture(base.Process(
        'placement', [sys.executable, script, 'serve', '--port',
                      str(port), '--state-dir', tmp],
        os.path.join(tmp, 'placement.log')))
    url = 'http://127.0.0.1:%d' % port
    base.wait_until_serving(test, peer, url)
    return url


def placement_venv_python():
    """The Python of tools/placement_peer.py's virtualenv, if made."""
    return base.tool_module('placement_peer').installed_python()
