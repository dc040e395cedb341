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

"""The report client and reporter, against this project's Placement API.

The API is the real one, served by the real server (waitress) on a
loopback port, over a SQLite database; the client reaches it through
keystoneauth1 with the [placement] options an all-in-one deployment
sets (admin_token, endpoint_override).
"""

import dataclasses
import json
import logging
import threading
import uuid

import fixtures
import oslo_messaging as messaging

from zun_hostcap.api.placement import app as placement_app
from zun_hostcap.api import server
from zun_hostcap.common import exception
from zun_hostcap.common import rpc
from zun_hostcap.compute import container
from zun_hostcap.compute.container import base as container_base
from zun_hostcap.compute import manager
from zun_hostcap.compute import placement_client
from zun_hostcap.compute import placement_report
from zun_hostcap.compute import resource_tracker
from zun_hostcap.compute import rpcapi as compute_rpcapi
from zun_hostcap.db.sqlalchemy import compute_node_providers
from zun_hostcap import objects
from zun_hostcap import os_capability
from zun_hostcap.os_capability import fake as fake_host
from zun_hostcap.tests import base
from zun_hostcap.tests import fixtures as zfixtures
from zun_hostcap.tests import gabbi_fixtures
from zun_hostcap.tests.unit.compute import test_manager
from zun_hostcap.tests.unit.objects import test_compute_node
from zun_hostcap.tests import utils as test_utils

LOOPBACK = '127.0.0.1'
INVENTORY = {
    'VCPU': {'total': 8, 'allocation_ratio': 16.0},
    'MEMORY_MB': {'total': 16384, 'reserved': 512},
}
PROJECT = str(uuid.uuid4())
USER = str(uuid.uuid4())


def _device(address, vendor_id, product_id, class_code, netdevs=()):
    return os_capability.PciDevice(
        address=address, vendor_id=vendor_id, product_id=product_id,
        class_code=class_code, numa_node=None, driver=None,
        netdevs=netdevs)


# Two ports of an Intel X710 NIC.
NIC_PORTS = (_device('0000:3b:00.0', '8086', '1572', '020000', ('ens1f0',)),
             _device('0000:3b:00.1', '8086', '1572', '020000', ('ens1f1',)))
# A host's devices: the host bridge and virtio devices it uses itself,
# the NIC, a virtual function and two GPUs.
HOST_DEVICES = (
    _device('0000:00:00.0', '8086', '29c0', '060000'),
    _device('0000:00:03.0', '1af4', '1000', '020000', ('eth0',)),
    _device('0000:00:04.0', '1af4', '1001', '010000'),
) + NIC_PORTS + (
    _device('0000:5e:02.0', '15b3', '1018', '020000', ('ens9',)),
    _device('0000:d8:00.0', '10de', '1db4', '030200'),
    _device('0000:d9:00.0', '10de', '1db4', '030200'),
)


def serve(test, application):
    """Serve ``application`` on a free loopback port.

    :returns: its base URL, and the list of the (method, path) of the
        requests it gets, in order.
    """
    seen = []

    def recording(environ, start_response):
        seen.append((environ['REQUEST_METHOD'], environ['PATH_INFO']))
        return application(environ, start_response)

    sock = server.bind(LOOPBACK, 0)
    test.addCleanup(sock.close)
    service = server.WSGIService('placement', recording, sock, 4)
    service.start()

    def stop():
        service.stop()
        waiter = threading.Thread(target=service.wait, daemon=True)
        waiter.start()
        waiter.join(30)
    test.addCleanup(stop)
    return 'http://%s:%d' % service.address, seen


def serve_placement(test):
    """This project's Placement API served, and [placement] set to it.

    noauth2 and a fresh database; returns its URL and the list of its
    requests (see ``serve``).
    """
    gabbi_fixtures.use(test, gabbi_fixtures.PlacementFixture)
    url, requests = serve(test, placement_app.setup_standalone_app())
    test_utils.use_placement(test, url)
    return url, requests


def writes(requests):
    return [(method, path) for method, path in requests
            if method not in ('GET', 'HEAD')]


class TestReportClient(base.TestCase):

    def setUp(self):
        super().setUp()
        self.url, self.requests = serve_placement(self)
        self.client = placement_client.ReportClient()
        self.rp = str(uuid.uuid4())

    def test_the_microversion_is_negotiated(self):
        self.client.ensure_provider(self.rp, 'compute-1')
        self.assertEqual(placement_client.WANTED_VERSION,
                         self.client.version)

    def test_a_provider_is_made_once(self):
        self.assertEqual(0, self.client.ensure_provider(self.rp, 'compute-1'))
        self.assertEqual([('POST', '/resource_providers')],
                         writes(self.requests))
        del self.requests[:]
        self.assertEqual(0, self.client.ensure_provider(self.rp, 'compute-1'))
        self.assertEqual([], self.requests)
        # A new client (a restarted compute) finds it.
        self.assertEqual(0, placement_client.ReportClient().ensure_provider(
            self.rp, 'compute-1'))
        self.assertEqual([], writes(self.requests))

    def test_an_unchanged_inventory_is_not_written(self):
        self.client.ensure_provider(self.rp, 'compute-1')
        self.assertTrue(self.client.set_inventory(self.rp, INVENTORY))
        del self.requests[:]
        # Neither written nor read: the client knows what it wrote.
        self.assertFalse(self.client.set_inventory(self.rp, INVENTORY))
        self.assertEqual([], self.requests)

        changed = dict(INVENTORY, DISK_GB={'total': 100})
        self.assertTrue(self.client.set_inventory(self.rp, changed))
        path = '/resource_providers/%s/inventories' % self.rp
        self.assertEqual([('PUT', path)], self.requests)

    def test_a_generation_conflict_is_read_again_and_retried(self):
        self.client.ensure_provider(self.rp, 'compute-1')
        self.client.set_inventory(self.rp, INVENTORY)
        # Another writer moves the provider on behind this client's back.
        other = placement_client.ReportClient()
        other.ensure_provider(self.rp, 'compute-1')
        other.set_inventory(self.rp, dict(INVENTORY, DISK_GB={'total': 5}))

        changed = dict(INVENTORY, DISK_GB={'total': 100})
        del self.requests[:]
        self.assertTrue(self.client.set_inventory(self.rp, changed))
        path = '/resource_providers/%s/inventories' % self.rp
        # Refused (409), read again, written.
        self.assertEqual([('PUT', path), ('GET', path), ('PUT', path)],
                         self.requests)
        self.assertEqual(
            100, placement_client.ReportClient().read_provider(
                self.rp)['inventories']['DISK_GB']['total'])

    def test_allocations_are_written_only_when_they_change(self):
        self.client.ensure_provider(self.rp, 'compute-1')
        self.client.set_inventory(self.rp, INVENTORY)
        consumer = str(uuid.uuid4())
        wanted = {self.rp: {'VCPU': 1, 'MEMORY_MB': 64}}

        self.assertTrue(self.client.put_allocations(consumer, wanted,
                                                    PROJECT, USER))
        del self.requests[:]
        self.assertFalse(self.client.put_allocations(consumer, wanted,
                                                     PROJECT, USER))
        self.assertEqual([], writes(self.requests))
        self.assertEqual({consumer: {'VCPU': 1, 'MEMORY_MB': 64}},
                         self.client.provider_allocations(self.rp))
        # A change writes again, with the consumer's generation.
        self.assertTrue(self.client.put_allocations(
            consumer, {self.rp: {'VCPU': 2}}, PROJECT, USER))
        self.assertEqual((2, {self.rp: {'VCPU': 2}}),
                         self.client.get_allocations(consumer))

        self.assertTrue(self.client.delete_allocations(consumer))
        self.assertFalse(self.client.delete_allocations(consumer))
        self.assertEqual({}, self.client.provider_allocations(self.rp))

    def test_a_refused_write_says_what_placement_said(self):
        self.client.ensure_provider(self.rp, 'compute-1')
        self.client.set_inventory(self.rp, INVENTORY)
        err = self.assertRaises(
            exception.PlacementRequestFailed,
            self.client.put_allocations, str(uuid.uuid4()),
            {self.rp: {'VCPU': 1000}}, PROJECT, USER)
        self.assertIn('PUT /allocations/', str(err))
        self.assertIn('(409)', str(err))

    def test_an_unreachable_service_is_one_clear_error(self):
        sock = server.bind(LOOPBACK, 0)
        closed = 'http://%s:%d' % sock.getsockname()[:2]
        sock.close()
        test_utils.use_placement(self, closed)
        err = self.assertRaises(
            exception.PlacementServiceUnavailable,
            placement_client.ReportClient().ensure_provider, self.rp, 'x')
        self.assertIn('The Placement service at %s cannot be reached'
                      % closed, str(err))
        self.assertNotIn('\n', str(err))


def serve_old_placement(test, newest):
    """A Placement whose newest microversion is ``newest``; its URL.

    It answers its version document only; [placement] is set to it.
    """
    def old_placement(environ, start_response):
        start_response('200 OK', [('Content-Type', 'application/json')])
        return [json.dumps({'versions': [{
            'id': 'v1.0', 'max_version': newest, 'min_version': '1.0',
            'status': 'CURRENT'}]}).encode()]
    gabbi_fixtures.use(test)
    url, _requests = serve(test, old_placement)
    test_utils.use_placement(test, url)
    return url


class TestOldPlacement(base.TestCase):
    """A Placement older than the client needs (edge: not on this machine)."""

    def test_it_is_named_with_its_version(self):
        url = serve_old_placement(self, '1.17')
        err = self.assertRaises(
            exception.PlacementServiceTooOld,
            placement_client.ReportClient().ensure_provider,
            str(uuid.uuid4()), 'x')
        self.assertEqual(
            'The Placement service at %s serves microversions up to 1.17; '
            'zun-hostcap-compute needs 1.28 or later' % url, str(err))


class TestReporter(base.TestCase):
    """A host's provider, inventory and container allocations."""

    def setUp(self):
        super().setUp()
        _url, self.requests = serve_placement(self)
        self.logs = self.useFixture(fixtures.FakeLogger(
            name='zun_hostcap', level=logging.INFO))
        self.reporter = placement_report.Reporter(
            placement_client.ReportClient())
        self.node = objects.ComputeNode(
            uuid=str(uuid.uuid4()), hostname='compute-1', cpus=8,
            mem_total=16384, disk_total=0)
        self.client = placement_client.ReportClient()

    def container(self, **values):
        values.setdefault('uuid', str(uuid.uuid4()))
        values.setdefault('name', 'c-' + values['uuid'][:8])
        values.setdefault('state', container_base.RUNNING)
        return container_base.Container(**values)

    def test_the_host_is_a_provider_with_its_inventory(self):
        self.flags(group='compute', reserved_host_memory_mb=1024,
                   cpu_allocation_ratio=2.0)
        self.reporter.report(self.node, [])
        state = self.client.read_provider(self.node.uuid)
        # No disk was read: no DISK_GB.
        self.assertEqual({'VCPU', 'MEMORY_MB'}, set(state['inventories']))
        self.assertEqual(
            {'total': 8, 'reserved': 0, 'min_unit': 1, 'max_unit': 8,
             'step_size': 1, 'allocation_ratio': 2.0},
            state['inventories']['VCPU'])
        self.assertEqual(1024, state['inventories']['MEMORY_MB']['reserved'])

    def test_containers_claims_are_allocations_and_an_idle_run_one_get(self):
        web = self.container(cpus=0.5, memory_mb=64,
                             project_id=PROJECT, user_id=USER)
        db = self.container(memory_mb=128, state=container_base.STOPPED)
        unlimited = self.container()
        self.reporter.report(self.node, [web, db, unlimited])
        self.assertEqual(
            {web.uuid: {'VCPU': 1, 'MEMORY_MB': 64},
             db.uuid: {'MEMORY_MB': 128}},
            self.client.provider_allocations(self.node.uuid))
        owners = self.client._request(
            'GET', '/allocations/%s' % db.uuid).json()
        self.assertEqual((placement_report.UNKNOWN_OWNER,) * 2,
                         (owners['project_id'], owners['user_id']))

        del self.requests[:]
        self.reporter.report(self.node, [web, db, unlimited])
        self.assertEqual(
            [('GET', '/resource_providers/%s/allocations' % self.node.uuid)],
            self.requests)

    def test_the_audit_heals_drift(self):
        web = self.container(cpus=1, memory_mb=64)
        self.reporter.report(self.node, [web])
        stranger = str(uuid.uuid4())
        self.client.put_allocations(stranger, {self.node.uuid: {'VCPU': 2}},
                                    PROJECT, USER)
        # Someone changed the container's allocation by hand, too.
        self.client.put_allocations(web.uuid, {self.node.uuid: {'VCPU': 3}},
                                    PROJECT, USER)

        written, deleted = self.reporter.audit(self.node.uuid, [web])
        self.assertEqual(([web.uuid], [stranger]), (written, deleted))
        self.assertEqual({web.uuid: {'VCPU': 1, 'MEMORY_MB': 64}},
                         self.client.provider_allocations(self.node.uuid))

        # The container goes: so does its allocation.
        self.assertEqual(([], [web.uuid]),
                         self.reporter.audit(self.node.uuid, []))
        self.assertEqual({}, self.client.provider_allocations(
            self.node.uuid))

    def test_an_inventory_changed_by_hand_is_put_right(self):
        self.reporter.report(self.node, [])
        inventories = self.client.read_provider(self.node.uuid)[
            'inventories']
        self.client.set_inventory(self.node.uuid, dict(
            inventories, VCPU=dict(inventories['VCPU'], total=2)))
        # Trusted for [compute] resource_provider_refresh_interval.
        self.reporter.report(self.node, [])
        self.assertEqual(2, self.client.read_provider(self.node.uuid)[
            'inventories']['VCPU']['total'])
        self.flags(group='compute', resource_provider_refresh_interval=0)
        self.reporter.report(self.node, [])
        self.assertEqual(8, self.client.read_provider(self.node.uuid)[
            'inventories']['VCPU']['total'])

    def test_the_provider_the_data_migration_made_is_adopted(self):
        # A node of 2026.2, given its provider by the online migration,
        # then its compute upgraded: one provider, now with its figures.
        node = test_compute_node.make_compute_node(self.context,
                                                   hostname='adopted-1')
        node.create()
        compute_node_providers.create_compute_node_providers(self.context,
                                                             1000)
        self.assertEqual(1, self.client.read_provider(node.uuid)[
            'generation'])
        self.flags(group='compute', cpu_allocation_ratio=2.0)
        del self.requests[:]

        self.flags(group='pci', device_spec=['{"product_id": "1572"}'])
        self.reporter.report(node, [], cpu_flags=('avx2',),
                             pci_devices=NIC_PORTS)
        self.assertNotIn(('POST', '/resource_providers'), self.requests)
        other = placement_client.ReportClient()
        inventories = other.read_provider(node.uuid)['inventories']
        self.assertEqual(2.0, inventories['VCPU']['allocation_ratio'])
        self.assertEqual(2, inventories['CUSTOM_PCI_8086_1572']['total'])
        self.assertEqual({'HW_CPU_X86_AVX2'}, other.get_traits(node.uuid))
        self.assertEqual([node.uuid], [
            rp['uuid'] for rp in other._get(
                '/resource_providers?name=adopted-1')['resource_providers']])

    def test_cpu_flags_are_traits_and_an_operators_traits_stay(self):
        self.node.architecture = 'x86_64'
        self.reporter.report(self.node, [], cpu_flags=('avx2', 'fpu'))
        self.assertEqual({'HW_CPU_X86_AVX2'},
                         self.client.get_traits(self.node.uuid))
        other = placement_client.ReportClient()
        other._request('PUT', '/traits/CUSTOM_GOLD')
        other.set_traits(self.node.uuid, {'HW_CPU_X86_AVX2', 'CUSTOM_GOLD'})

        # The CPU changed (a new host under the same name); the
        # reporter's client is told the provider moved on (409) and
        # reads it again.
        self.reporter.report(self.node, [], cpu_flags=('sse4_2', 'aes'))
        self.assertEqual(
            {'CUSTOM_GOLD', 'HW_CPU_X86_SSE42', 'HW_CPU_X86_AESNI'},
            placement_client.ReportClient().get_traits(self.node.uuid))
        del self.requests[:]
        self.reporter.report(self.node, [], cpu_flags=('sse4_2', 'aes'))
        self.assertEqual([], writes(self.requests))

    def _pci_classes(self):
        inventories = self.client.read_provider(self.node.uuid)[
            'inventories']
        return {rc: inv['total'] for rc, inv in inventories.items()
                if rc not in ('VCPU', 'MEMORY_MB', 'DISK_GB')}

    def test_no_device_spec_offers_no_device(self):
        self.reporter.report(self.node, [], pci_devices=HOST_DEVICES)
        self.assertEqual({}, self._pci_classes())
        self.assertEqual(set(), self.client.get_traits(self.node.uuid))

    def test_device_specs_offer_what_they_match(self):
        self.flags(group='pci', device_spec=[
            # The first spec that matches a device says how: the GPU is
            # not counted again by the catch-all address below.
            '{"vendor_id": "10de", "product_id": "1db4", "address": '
            '"0000:d8:00.0", "resource_class": "gpu_v100", '
            '"traits": "cuda_7, HW_GPU_API_VULKAN"}',
            '[{"address": "0000:3b:00.*"}, '
            '{"devname": "ens9", "resource_class": "SRIOV_NET_VF"}]',
            '{"address": {"bus": "d[0-9]", "function": "0"}}'])
        self.reporter.report(self.node, [], pci_devices=HOST_DEVICES)
        self.assertEqual({'CUSTOM_GPU_V100': 1, 'CUSTOM_PCI_8086_1572': 2,
                          'SRIOV_NET_VF': 1, 'CUSTOM_PCI_10DE_1DB4': 1},
                         self._pci_classes())
        self.assertEqual({'CUSTOM_CUDA_7', 'HW_GPU_API_VULKAN'},
                         self.client.get_traits(self.node.uuid))

    def test_the_hosts_api_still_lists_every_device(self):
        self.flags(group='pci', device_spec=['{"vendor_id": "10de"}'])
        caps = dataclasses.replace(fake_host.sample_capabilities(),
                                   pci_devices=HOST_DEVICES)
        tracker = resource_tracker.ResourceTracker(
            'compute-1', fake_host.FakeDriver(caps),
            container.fake.FakeContainerDriver(containers=[]),
            reporter=self.reporter)
        node = tracker.update_available_resource(self.context)
        # The node (what /v1/hosts shows) has every device in its pools;
        # Placement, the two GPUs the spec offers.
        stored = objects.ComputeNode.get_by_hostname(self.context,
                                                     'compute-1')
        self.assertEqual(len(HOST_DEVICES), sum(
            pool.count for pool in stored.pci_device_pools.objects))
        self.assertEqual({'CUSTOM_PCI_10DE_1DB4': 2}, {
            rc: inv['total'] for rc, inv in self.client.read_provider(
                node.uuid)['inventories'].items()
            if rc.startswith('CUSTOM_')})

    def test_a_removed_spec_removes_its_inventory_and_traits(self):
        other = placement_client.ReportClient()
        other.ensure_provider(self.node.uuid, self.node.hostname)
        other.ensure_traits(['CUSTOM_RACK_7'])
        other.set_traits(self.node.uuid, {'CUSTOM_RACK_7'})
        self.flags(group='pci', device_spec=[
            '{"product_id": "1572", "traits": "fast_nic"}'])
        self.reporter.report(self.node, [], pci_devices=HOST_DEVICES)
        self.assertEqual({'CUSTOM_PCI_8086_1572': 2}, self._pci_classes())
        self.assertEqual({'CUSTOM_RACK_7', 'CUSTOM_FAST_NIC'},
                         self.client.get_traits(self.node.uuid))

        self.flags(group='pci', device_spec=[])
        self.reporter.report(self.node, [], pci_devices=HOST_DEVICES)
        self.assertEqual({}, self._pci_classes())
        # The operator's trait stays.
        self.assertEqual({'CUSTOM_RACK_7'},
                         placement_client.ReportClient().get_traits(
                             self.node.uuid))
        self.assertIn('Removing the inventory of CUSTOM_PCI_8086_1572',
                      self.logs.output)

    def test_devices_not_read_leave_the_pci_classes_as_they_are(self):
        self.flags(group='pci', device_spec=['{"product_id": "1572"}'])
        self.reporter.report(self.node, [], pci_devices=HOST_DEVICES)
        self.flags(group='pci', device_spec=[])
        self.reporter.report(self.node, [], pci_devices=None)
        self.assertEqual({'CUSTOM_PCI_8086_1572': 2}, self._pci_classes())

    def test_a_removed_spec_stays_while_allocations_hold_it(self):
        self.flags(group='pci', device_spec=['{"vendor_id": "10de"}',
                                             '{"product_id": "1572"}'])
        self.reporter.report(self.node, [], pci_devices=HOST_DEVICES)
        holders = [str(uuid.uuid4()), str(uuid.uuid4())]
        for consumer in holders:
            self.client.put_allocations(
                consumer, {self.node.uuid: {'CUSTOM_PCI_10DE_1DB4': 1}},
                PROJECT, USER)

        # Both specs removed: the GPUs' class is held, the NICs' is not.
        # (No audit: the runtime's containers are not known.)
        self.flags(group='pci', device_spec=[])
        self.reporter.report(self.node, None, pci_devices=HOST_DEVICES)
        self.assertEqual({'CUSTOM_PCI_10DE_1DB4': 2}, self._pci_classes())
        warnings = [line for line in self.logs.output.splitlines()
                    if 'allocations hold some' in line]
        self.assertEqual(1, len(warnings))
        self.assertIn('CUSTOM_PCI_10DE_1DB4', warnings[0])
        for consumer in holders:
            self.assertIn(consumer, warnings[0])

        # Once: the next runs say nothing while the holders are the same.
        self.reporter.report(self.node, None, pci_devices=HOST_DEVICES)
        self.assertEqual(1, self.logs.output.count('allocations hold some'))

        # Released: the class goes at the next run.
        for consumer in holders:
            self.client.delete_allocations(consumer)
        self.reporter.report(self.node, None, pci_devices=HOST_DEVICES)
        self.assertEqual({}, self._pci_classes())

    def _pool(self, shares=True, aggregate=None):
        """A shared storage provider with DISK_GB; its uuid."""
        pool = str(uuid.uuid4())
        self.client.ensure_provider(pool, 'pool-' + pool[:8])
        self.client.set_inventory(pool, {'DISK_GB': {'total': 1000}})
        if shares:
            self.client.set_traits(pool, {'MISC_SHARES_VIA_AGGREGATE'})
        if aggregate:
            for rp in (pool, self.node.uuid):
                generation = self.client.read_provider(rp)['generation']
                self.client._request(
                    'PUT', '/resource_providers/%s/aggregates' % rp,
                    {'aggregates': [aggregate],
                     'resource_provider_generation': generation})
        return pool

    def test_disk_claims_land_on_the_shared_disk_provider(self):
        self.node.disk_total = 500
        self.client.ensure_provider(self.node.uuid, self.node.hostname)
        pool = self._pool(aggregate=str(uuid.uuid4()))
        self.flags(group='compute', shared_disk_provider=pool)
        web = self.container(cpus=1, disk_gb=10)
        files = self.container(disk_gb=5)
        self.reporter.report(self.node, [web, files])

        # The host has no disk of its own.
        self.assertNotIn('DISK_GB', placement_client.ReportClient(
            ).read_provider(self.node.uuid)['inventories'])
        usages = self.client._request(
            'GET', '/resource_providers/%s/usages' % pool).json()
        self.assertEqual({'DISK_GB': 15}, usages['usages'])
        self.assertEqual((1, {self.node.uuid: {'VCPU': 1},
                              pool: {'DISK_GB': 10}}),
                         self.client.get_allocations(web.uuid))
        self.assertNotIn('shared_disk_provider', self.logs.output)

        # Unchanged: the audit reads both providers, writes nothing.
        del self.requests[:]
        self.reporter.report(self.node, [web, files])
        self.assertEqual([], writes(self.requests))

        # web goes: its allocations on both go.
        self.reporter.report(self.node, [files])
        self.assertEqual({}, self.client.get_allocations(web.uuid)[1])

    def test_a_shared_disk_provider_set_up_wrong_is_one_warning(self):
        self.client.ensure_provider(self.node.uuid, self.node.hostname)
        pool = self._pool(shares=False)
        self.flags(group='compute', shared_disk_provider=pool.upper())
        self.reporter.report(self.node, [self.container(disk_gb=1)])
        self.reporter.report(self.node, [self.container(disk_gb=1)])
        self.assertEqual(1, self.logs.output.count(
            'it has no MISC_SHARES_VIA_AGGREGATE trait and it is in no '
            'aggregate with this host'))

    def test_a_driver_that_cannot_know_its_containers_makes_no_audit(self):
        self.reporter.report(self.node, [])
        stranger = str(uuid.uuid4())
        self.client.put_allocations(stranger, {self.node.uuid: {'VCPU': 2}},
                                    PROJECT, USER)
        # The fake driver, given no containers.
        self.reporter.report(
            self.node, container.fake.FakeContainerDriver().list_containers())
        self.assertEqual({stranger: {'VCPU': 2}},
                         self.client.provider_allocations(self.node.uuid))


class TestCPUTraits(base.TestCase):

    def test_flags_as_os_traits_names(self):
        self.assertEqual(
            {'HW_CPU_X86_AVX2', 'HW_CPU_X86_SSE42', 'HW_CPU_X86_AESNI',
             'HW_CPU_X86_SSE3', 'HW_CPU_X86_FMA3', 'HW_CPU_X86_AVX512VNNI'},
            placement_report.cpu_traits('x86_64', (
                'avx2', 'sse4_2', 'aes', 'pni', 'fma', 'avx512_vnni', 'fpu',
                'ht')))
        self.assertEqual(
            {'HW_CPU_AARCH64_FP', 'HW_CPU_AARCH64_ASIMD',
             'HW_CPU_AARCH64_AES'},
            placement_report.cpu_traits('aarch64',
                                        ('fp', 'asimd', 'aes', 'bogus')))
        self.assertEqual(set(), placement_report.cpu_traits(
            'riscv64', ('a', 'c')))


class TestManagerReports(base.TestCase):
    """The periodic task with a Placement that is down, then back."""

    def setUp(self):
        super().setUp()
        gabbi_fixtures.use(self, gabbi_fixtures.PlacementFixture)
        self.logs = self.useFixture(fixtures.FakeLogger(
            name='zun_hostcap', level=logging.INFO))

    def test_placement_is_off_without_auth_type(self):
        compute = test_manager.fake_manager()
        self.assertIsNone(compute.resource_tracker.reporter)
        self.assertIn('Not reporting to Placement', self.logs.output)

    def test_a_placement_down_is_one_line_and_the_next_run_catches_up(self):
        sock = server.bind(LOOPBACK, 0)
        port = sock.getsockname()[1]
        sock.close()
        test_utils.use_placement(self, 'http://%s:%d' % (LOOPBACK, port))
        compute = test_manager.fake_manager()
        compute.update_available_resource(self.context)
        node = compute.resource_tracker.compute_node
        # The host is stored all the same.
        self.assertIsNotNone(objects.ComputeNode.get_by_hostname(
            self.context, 'compute-1'))
        self.assertIn('cannot be reached', self.logs.output)
        self.assertIn('the report to Placement is retried in 60 seconds',
                      self.logs.output)
        self.assertNotIn('Traceback', self.logs.output)

        # Placement comes up on that port: the next run reports.
        sock = server.bind(LOOPBACK, port)
        self.addCleanup(sock.close)
        service = server.WSGIService(
            'placement', placement_app.setup_standalone_app(), sock, 4)
        service.start()
        self.addCleanup(service.stop)
        compute.update_available_resource(self.context)
        state = placement_client.ReportClient().read_provider(node.uuid)
        self.assertEqual(node.cpus, state['inventories']['VCPU']['total'])


class TestClaims(base.TestCase):
    """Claims over the compute RPC API (in-process transport)."""

    def setUp(self):
        super().setUp()
        _url, self.requests = serve_placement(self)
        self.useFixture(zfixtures.RPC(self.conf))
        self.containers = container.fake.FakeContainerDriver(containers=[])
        self.tracker = resource_tracker.ResourceTracker(
            'compute-1', fake_host.FakeDriver(
                fake_host.sample_capabilities()), self.containers,
            reporter=placement_report.Reporter(
                placement_client.ReportClient()))
        self.tracker.update_available_resource(self.context)
        self.provider = self.tracker.compute_node.uuid
        server = rpc.get_server(
            messaging.Target(topic=self.conf.compute.topic,
                             server='compute-1'),
            [manager.ClaimsEndpoint(self.tracker)])
        server.start()
        self.addCleanup(server.wait)
        self.addCleanup(server.stop)
        self.client = placement_client.ReportClient()

    def test_a_claim_is_an_allocation_the_audit_keeps(self):
        consumer = str(uuid.uuid4())
        compute_rpcapi.ComputeAPI().claim(
            self.context, 'compute-1', consumer, {'VCPU': 2, 'MEMORY_MB': 256},
            PROJECT, USER)
        self.assertEqual({consumer: {'VCPU': 2, 'MEMORY_MB': 256}},
                         self.client.provider_allocations(self.provider))
        # The container is still to come: the audit leaves the claim.
        self.tracker.update_available_resource(self.context)
        self.assertEqual({consumer}, set(
            self.client.provider_allocations(self.provider)))
        self.assertEqual({consumer}, self.tracker.claimed())

        # It runs, with its own limits: they are its allocation now.
        self.containers.set_containers([container_base.Container(
            consumer, 'web', container_base.RUNNING, cpus=1, memory_mb=256,
            project_id=PROJECT, user_id=USER)])
        self.tracker.update_available_resource(self.context)
        self.assertEqual({consumer: {'VCPU': 1, 'MEMORY_MB': 256}},
                         self.client.provider_allocations(self.provider))
        self.assertEqual(set(), self.tracker.claimed())

    def test_no_room_is_claim_failed_with_placements_reason(self):
        consumer = str(uuid.uuid4())
        err = self.assertRaises(
            exception.ClaimFailed, compute_rpcapi.ComputeAPI().claim,
            self.context, 'compute-1', consumer, {'VCPU': 100000},
            PROJECT, USER)
        self.assertIn('No room for %s on host compute-1' % consumer,
                      str(err))
        self.assertIn('(409)', str(err))
        self.assertEqual({}, self.client.provider_allocations(self.provider))
        self.assertEqual(set(), self.tracker.claimed())

    def test_abort_and_drop_release_the_allocation(self):
        compute = compute_rpcapi.ComputeAPI()
        kept, dropped = str(uuid.uuid4()), str(uuid.uuid4())
        for consumer in (kept, dropped):
            compute.claim(self.context, 'compute-1', consumer, {'VCPU': 1},
                          None, None)
        self.assertTrue(compute.abort_claim(self.context, 'compute-1', kept))
        self.assertTrue(compute.drop_claim(self.context, 'compute-1',
                                           dropped))
        self.assertFalse(compute.drop_claim(self.context, 'compute-1',
                                            dropped))
        self.assertEqual({}, self.client.provider_allocations(self.provider))
        self.assertEqual(set(), self.tracker.claimed())

    def test_a_release_name_caps_the_version(self):
        self.flags(group='upgrade_levels', compute='2026.2')
        compute = compute_rpcapi.ComputeAPI()
        self.assertTrue(compute.client.can_send_version('1.0'))
        compute.claim(self.context, 'compute-1', str(uuid.uuid4()),
                      {'VCPU': 1}, None, None)
