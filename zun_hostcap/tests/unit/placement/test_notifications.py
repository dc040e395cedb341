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

"""resource_provider.* and allocation.* notifications, through the API.

The requests go to the real /placement application; a real
oslo.messaging listener (in-process transport) collects what it sends.
Every route that writes is covered, and the samples under
doc/notification_samples are the notifications of
``test_sequence_matches_the_samples``: with
ZUN_HOSTCAP_TEST_REGENERATE_SAMPLES=1 it writes them instead, and
passes; review the diff before you commit it.
"""

import json
import os
import threading
import time

from oslo_config import fixture as config_fixture
from oslotest import base
import webob

from zun_hostcap.api import app
from zun_hostcap.common import rpc
import zun_hostcap.conf
from zun_hostcap.objects.notifications import base as notification
from zun_hostcap.tests import fixtures as zun_fixtures
from zun_hostcap.tests import gabbi_fixtures
from zun_hostcap.tests.unit.api import test_placement_api_samples as api

CONF = zun_hostcap.conf.CONF

SAMPLES_DIR = os.path.join(api.REPO, 'doc', 'notification_samples')
REGENERATE = os.environ.get(api.REGENERATE_ENV) == '1'

PROVIDER = '30f0b01e-5bd0-4b77-9b0c-1b1d7b3c8e6a'
PARENT = 'c6b55a38-69a8-4c1e-9f53-4d0de2a0f1c4'
CONSUMER = '7d1c3f6b-1a0e-4e5c-8a4b-6f2e9d3c1b70'
CONSUMER_2 = 'e1a9c7b5-3d2f-4b8a-9c6e-5f4d3b2a1c09'
AGGREGATE = 'f4b2a1c9-8e7d-4c6b-a5f3-2e1d0c9b8a76'
PROJECT = '6e2c1f9a8b7d4e3c9a1b2c3d4e5f6a7b'
USER = '3f9e8d7c6b5a4c3d8e9f0a1b2c3d4e5f'
HOST = 'api-1'

# Long enough for a notification that should not come to have come.
QUIET = 0.3


def _sample_name(notification):
    return notification['event_type'].replace(
        'resource_provider.', 'resource_provider-').replace('.', '-')


class TestPlacementNotifications(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        gabbi_fixtures.use(self, gabbi_fixtures.PlacementFixture)
        self.conf = self.useFixture(config_fixture.Config(CONF))
        self.conf.config(host=HOST)
        self.conf.config(group='oslo_messaging_notifications',
                         driver=['messagingv2'])
        self.conf.config(group='notifications',
                         notification_format='versioned')
        notification.set_publisher_source('zun-hostcap-api')
        self.addCleanup(notification.set_publisher_source,
                        notification.publisher_source())
        self.useFixture(zun_fixtures.RPC(CONF))
        self.collector = self.useFixture(
            zun_fixtures.NotificationCollector())
        self.app = app.setup_app()

    def call(self, method, path, body=None, status=None,
             version=api.LATEST):
        resp = api._request(self.app, method, path, body, version=version)
        if status is None:
            self.assertLess(resp.status_int, 300, resp.text)
        else:
            self.assertEqual(status, resp.status_int, resp.text)
        return resp.json if resp.body else None

    def sent(self, count):
        """The notifications sent since the last call: ``count`` of them.

        Waits for them, then a little longer to see that no more come.
        """
        self.assertTrue(rpc.wait_until_sent())
        received = self.collector.wait_for(count)
        time.sleep(QUIET)
        self.assertTrue(rpc.wait_until_sent())
        received = list(self.collector.received)
        self.collector.received[:] = []
        self.assertEqual(count, len(received),
                         [n['event_type'] for n in received])
        return received

    def data(self, count):
        return [(n['event_type'], n['payload']['zun_hostcap_object.data'])
                for n in self.sent(count)]

    def provider(self, uuid=PROVIDER, name='rp-1', **body):
        self.call('POST', '/resource_providers',
                  dict(body, uuid=uuid, name=name))
        self.sent(1)

    def inventory(self, generation, **totals):
        return self.call(
            'PUT', '/resource_providers/%s/inventories' % PROVIDER,
            {'resource_provider_generation': generation,
             'inventories': {name: {'total': total}
                             for name, total in totals.items()}})

    def allocate(self, consumer, generation, status=None, **amounts):
        return self.call('PUT', '/allocations/%s' % consumer, {
            'allocations': {PROVIDER: {'resources': amounts}},
            'project_id': PROJECT, 'user_id': USER,
            'consumer_generation': generation,
            'consumer_type': 'INSTANCE'}, status=status)

    def check_sample(self, notification):
        path = os.path.join(SAMPLES_DIR, _sample_name(notification) + '.json')
        if REGENERATE:
            with open(path, 'w') as f:
                json.dump(notification, f, indent=4, sort_keys=True)
                f.write('\n')
            return
        with open(path) as f:
            self.assertEqual(json.load(f), notification)

    def test_sequence_matches_the_samples(self):
        self.call('POST', '/resource_providers',
                  {'uuid': PARENT, 'name': 'compute-1'})
        self.call('POST', '/resource_providers',
                  {'uuid': PROVIDER, 'name': 'numa-0',
                   'parent_provider_uuid': PARENT})
        self.call('PUT', '/resource_providers/%s' % PROVIDER,
                  {'name': 'numa-0-renamed', 'parent_provider_uuid': PARENT})
        self.inventory(0, VCPU=8, MEMORY_MB=4096)
        self.call('PUT', '/resource_providers/%s/traits' % PROVIDER,
                  {'resource_provider_generation': 1,
                   'traits': ['HW_CPU_X86_AVX2', 'HW_NUMA_ROOT']})
        self.call('PUT', '/resource_providers/%s/aggregates' % PROVIDER,
                  {'resource_provider_generation': 2,
                   'aggregates': [AGGREGATE]})
        self.allocate(CONSUMER, None, VCPU=2, MEMORY_MB=512)
        self.allocate(CONSUMER, 1, VCPU=4, MEMORY_MB=512)
        self.call('DELETE', '/allocations/%s' % CONSUMER)
        self.call('DELETE', '/resource_providers/%s' % PROVIDER)
        received = self.sent(10)
        self.assertEqual(
            ['resource_provider.create', 'resource_provider.create',
             'resource_provider.update', 'resource_provider.inventory.update',
             'resource_provider.traits.update',
             'resource_provider.aggregates.update', 'allocation.create',
             'allocation.update', 'allocation.delete',
             'resource_provider.delete'],
            [n['event_type'] for n in received])
        for sent in received[1:]:
            self.check_sample(sent)
        self.assertEqual('zun-hostcap-api:' + HOST,
                         received[0]['publisher_id'])

    def test_a_write_that_changes_nothing_sends_nothing(self):
        self.provider()
        self.inventory(0, VCPU=8)
        self.inventory(1, VCPU=8)
        one = '/resource_providers/%s/inventories/VCPU' % PROVIDER
        # 1.1 as MariaDB's FLOAT column keeps it is not quite 1.1.
        ratio = {'total': 8, 'allocation_ratio': 1.1}
        self.call('PUT', one, dict(ratio, resource_provider_generation=2))
        self.call('PUT', one, dict(ratio, resource_provider_generation=3))
        self.call('PUT', '/resource_providers/%s/inventories' % PROVIDER,
                  {'resource_provider_generation': 4,
                   'inventories': {'VCPU': ratio}})
        self.assertEqual([('resource_provider.inventory.update', 1),
                          ('resource_provider.inventory.update', 3)],
                         [(event, data['resource_provider_generation'])
                          for event, data in self.data(2)])
        # The generation moves, as in Placement; nothing else does.
        self.call('PUT', '/resource_providers/%s' % PROVIDER,
                  {'name': 'rp-1'})
        self.call('PUT', '/resource_providers/%s/traits' % PROVIDER,
                  {'resource_provider_generation': 5, 'traits': []})
        self.call('PUT', '/resource_providers/%s/aggregates' % PROVIDER,
                  {'resource_provider_generation': 6, 'aggregates': []})
        self.sent(0)
        self.allocate(CONSUMER, None, VCPU=2)
        self.allocate(CONSUMER, 1, VCPU=2)
        self.assertEqual(['allocation.create'],
                         [event for event, _data in self.data(1)])

    def test_every_inventory_route_sends_the_whole_inventory(self):
        self.provider()
        path = '/resource_providers/%s/inventories' % PROVIDER
        self.call('POST', path, {'resource_class': 'VCPU', 'total': 8})
        self.call('POST', path, {'resource_class': 'DISK_GB', 'total': 100})
        self.call('PUT', path + '/VCPU',
                  {'resource_provider_generation': 2, 'total': 16,
                   'allocation_ratio': 1.5})
        self.call('DELETE', path + '/DISK_GB')
        self.call('DELETE', path)

        def classes(data):
            return {inv['zun_hostcap_object.data']['resource_class']:
                    inv['zun_hostcap_object.data']['total']
                    for inv in data['inventories']}
        sent = self.data(5)
        self.assertEqual(
            [({'VCPU': 8}, 1), ({'DISK_GB': 100, 'VCPU': 8}, 2),
             ({'DISK_GB': 100, 'VCPU': 16}, 3), ({'VCPU': 16}, 4), ({}, 5)],
            [(classes(data), data['resource_provider_generation'])
             for _event, data in sent])
        vcpu = sent[2][1]['inventories'][1]['zun_hostcap_object.data']
        self.assertEqual(1.5, vcpu['allocation_ratio'])

    def test_a_failed_write_sends_nothing(self):
        self.provider()
        self.inventory(0, VCPU=2)
        self.sent(1)
        inventories = '/resource_providers/%s/inventories' % PROVIDER
        self.call('PUT', inventories,
                  {'resource_provider_generation': 0,
                   'inventories': {'VCPU': {'total': 4}}}, status=409)
        self.call('PUT', inventories,
                  {'resource_provider_generation': 1,
                   'inventories': {'CUSTOM_NONE': {'total': 4}}},
                  status=400)
        self.call('PUT', '/resource_providers/%s/traits' % PROVIDER,
                  {'resource_provider_generation': 1,
                   'traits': ['CUSTOM_NOT_THERE']}, status=400)
        self.allocate(CONSUMER, None, VCPU=3, status=409)
        self.call('DELETE', '/allocations/%s' % CONSUMER, status=404)
        self.allocate(CONSUMER, None, VCPU=1)
        self.sent(1)
        self.call('DELETE', '/resource_providers/%s' % PROVIDER,
                  status=409)
        self.sent(0)

    def test_one_notification_per_consumer_of_a_post(self):
        self.provider()
        self.inventory(0, VCPU=8)
        self.sent(1)

        def post(**amounts):
            self.call('POST', '/allocations', {
                consumer: {'allocations': (
                    {PROVIDER: {'resources': {'VCPU': amount}}}
                    if amount else {}),
                    'project_id': PROJECT, 'user_id': USER,
                    'consumer_generation': generation,
                    'consumer_type': 'INSTANCE'}
                for consumer, (amount, generation) in amounts.items()})
        post(**{CONSUMER: (1, None), CONSUMER_2: (2, None)})
        created = dict((data['consumer_uuid'], (event, data))
                       for event, data in self.data(2))
        self.assertEqual(('allocation.create', {PROVIDER: {'VCPU': 2}}),
                         (created[CONSUMER_2][0],
                          created[CONSUMER_2][1]['allocations_after']))
        post(**{CONSUMER: (0, 1), CONSUMER_2: (3, 1)})
        changed = sorted(self.data(2))
        self.assertEqual(
            [('allocation.delete', {PROVIDER: {'VCPU': 1}}, {}, None),
             ('allocation.update', {PROVIDER: {'VCPU': 2}},
              {PROVIDER: {'VCPU': 3}}, 2)],
            [(event, data['allocations_before'], data['allocations_after'],
              data['consumer_generation']) for event, data in changed])

    def test_the_empty_put_deletes(self):
        self.provider()
        self.inventory(0, VCPU=8)
        self.allocate(CONSUMER, None, VCPU=1)
        self.sent(2)
        self.call('PUT', '/allocations/%s' % CONSUMER,
                  {'allocations': {}, 'project_id': PROJECT,
                   'user_id': USER, 'consumer_generation': 1,
                   'consumer_type': 'INSTANCE'})
        (event, data), = self.data(1)
        self.assertEqual(('allocation.delete', {PROVIDER: {'VCPU': 1}}, {}),
                         (event, data['allocations_before'],
                          data['allocations_after']))

    def reshape(self, inventories, allocations, status=204):
        """POST /reshaper as a service (the reshaper's default rule)."""
        req = webob.Request.blank('/placement/reshaper', method='POST',
                                  headers={
                                      'X-Auth-Token': 'admin',
                                      'X-Roles': 'admin,service',
                                      'Accept': 'application/json',
                                      'OpenStack-API-Version':
                                          'placement %s' % api.LATEST})
        req.body = json.dumps({'inventories': inventories,
                               'allocations': allocations}).encode()
        req.content_type = 'application/json'
        resp = req.get_response(self.app)
        self.assertEqual(status, resp.status_int, resp.text)

    def test_a_reshape_announces_what_it_changed(self):
        self.call('POST', '/resource_providers',
                  {'uuid': PARENT, 'name': 'compute-1'})
        self.call('POST', '/resource_providers',
                  {'uuid': PROVIDER, 'name': 'compute-1_NUMA0',
                   'parent_provider_uuid': PARENT})
        self.call('PUT', '/resource_providers/%s/inventories' % PARENT,
                  {'resource_provider_generation': 0,
                   'inventories': {'VCPU': {'total': 8},
                                   'DISK_GB': {'total': 100}}})

        def consumer(generation, allocations):
            return {'allocations': {rp: {'resources': amounts}
                                    for rp, amounts in allocations.items()},
                    'project_id': PROJECT, 'user_id': USER,
                    'consumer_generation': generation,
                    'consumer_type': 'INSTANCE'}
        moved = {PARENT: {'DISK_GB': 10}, PROVIDER: {'VCPU': 2}}
        self.call('POST', '/allocations', {
            CONSUMER: consumer(None, {PARENT: {'VCPU': 2, 'DISK_GB': 10}}),
            CONSUMER_2: consumer(None, {PARENT: {'DISK_GB': 5}})})
        self.sent(5)
        inventories = {
            PARENT: {'resource_provider_generation': 2,
                     'inventories': {'DISK_GB': {'total': 100}}},
            PROVIDER: {'resource_provider_generation': 0,
                       'inventories': {'VCPU': {'total': 8}}}}
        # A stale generation: refused, nothing announced.
        self.reshape(dict(inventories, **{PROVIDER: {
            'resource_provider_generation': 1, 'inventories': {}}}),
            {}, status=409)
        self.sent(0)
        # The second consumer is given what it holds: not announced.
        self.reshape(inventories, {
            CONSUMER: consumer(1, moved),
            CONSUMER_2: consumer(1, {PARENT: {'DISK_GB': 5}})})
        sent = sorted(self.data(3), key=lambda item: item[0])
        self.assertEqual(
            ['allocation.update', 'resource_provider.inventory.update',
             'resource_provider.inventory.update'],
            [event for event, _data in sent])
        allocation = sent[0][1]
        self.assertEqual(
            (CONSUMER, {PARENT: {'VCPU': 2, 'DISK_GB': 10}}, moved, 2),
            (allocation['consumer_uuid'], allocation['allocations_before'],
             allocation['allocations_after'],
             allocation['consumer_generation']))
        # Each provider's whole inventory, with its generation after it.
        self.assertEqual(
            {PARENT: (['DISK_GB'], 5), PROVIDER: (['VCPU'], 3)},
            {data['resource_provider_uuid']: (
                [inv['zun_hostcap_object.data']['resource_class']
                 for inv in data['inventories']],
                data['resource_provider_generation'])
             for _event, data in sent[1:]})

    def test_traits_and_aggregates_removed(self):
        self.provider()
        self.call('PUT', '/resource_providers/%s/traits' % PROVIDER,
                  {'resource_provider_generation': 0,
                   'traits': ['HW_CPU_X86_AVX2']})
        self.call('DELETE', '/resource_providers/%s/traits' % PROVIDER)
        self.call('PUT', '/resource_providers/%s/aggregates' % PROVIDER,
                  [AGGREGATE], version='1.1')
        self.call('PUT', '/resource_providers/%s/aggregates' % PROVIDER,
                  [], version='1.1')
        self.assertEqual(
            [('resource_provider.traits.update', ['HW_CPU_X86_AVX2'], 1),
             ('resource_provider.traits.update', [], 2),
             ('resource_provider.aggregates.update', [AGGREGATE], 2),
             ('resource_provider.aggregates.update', [], 2)],
            [(event, data.get('traits', data.get('aggregates')),
              data['resource_provider_generation'])
             for event, data in self.data(4)])

    def test_the_unversioned_format_is_plain_data(self):
        self.conf.config(group='notifications',
                         notification_format='unversioned')
        # The notifiers are made at start, from the configuration then.
        self.useFixture(zun_fixtures.RPC(CONF))
        collector = self.useFixture(
            zun_fixtures.NotificationCollector(('notifications',)))
        self.provider_and_allocation()
        collector.wait_for(3)
        self.assertTrue(rpc.wait_until_sent())
        allocation = collector.received[2]
        self.assertEqual('allocation.create', allocation['event_type'])
        self.assertEqual({}, allocation['payload']['allocations_before'])
        self.assertEqual({PROVIDER: {'VCPU': 1}},
                         allocation['payload']['allocations_after'])
        inventory = collector.received[1]['payload']['inventories'][0]
        self.assertEqual(('VCPU', 8),
                         (inventory['resource_class'], inventory['total']))
        self.sent(0)

    def provider_and_allocation(self):
        self.call('POST', '/resource_providers',
                  {'uuid': PROVIDER, 'name': 'rp-1'})
        self.inventory(0, VCPU=8)
        self.allocate(CONSUMER, None, VCPU=1)

    def test_off_sends_none_of_them(self):
        self.conf.config(group='notifications',
                         placement_notifications=False)
        self.provider_and_allocation()
        self.call('DELETE', '/allocations/%s' % CONSUMER)
        self.sent(0)


class TestSender(base.BaseTestCase):
    """The sender thread: in order, never in the caller's way."""

    def test_in_order_and_dropped_beyond_the_limit(self):
        sender = rpc._Sender(limit=3)
        release = threading.Event()
        done = []
        # The first send waits (a broker that is away); three wait behind
        # it, the fifth is dropped at once.
        sender.put(lambda: (release.wait(10), done.append(0)), 'first')
        time.sleep(0.1)
        with self.assertLogs('zun_hostcap.common.rpc', 'WARNING') as logs:
            for index in range(1, 5):
                sender.put(lambda index=index: done.append(index),
                           'n-%d' % index)
        self.assertEqual(['n-4 not sent: 3 notifications are already '
                          'waiting for the message broker'],
                         [record.getMessage() for record in logs.records])
        self.assertFalse(sender.wait_until_sent(0.1))
        release.set()
        self.assertTrue(sender.wait_until_sent(5))
        self.assertEqual([0, 1, 2, 3], done)

    def test_a_failing_send_does_not_stop_the_next(self):
        sender = rpc._Sender(limit=10)
        done = []
        with self.assertLogs('zun_hostcap.common.rpc', 'ERROR'):
            sender.put(lambda: 1 / 0, 'broken')
            sender.put(lambda: done.append(1), 'next')
            self.assertTrue(sender.wait_until_sent(5))
        self.assertEqual([1], done)
