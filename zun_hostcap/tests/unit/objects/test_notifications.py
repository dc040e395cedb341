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

"""ComputeNode notifications through a real oslo.messaging listener."""

import json
import os
import re

from zun_hostcap import objects
from zun_hostcap.objects.notifications import base as notification
from zun_hostcap.objects.notifications import compute_node as cn_notif
from zun_hostcap.tests import base
from zun_hostcap.tests import fixtures as zun_fixtures
from zun_hostcap.tests.unit.objects import test_compute_node

SAMPLES_DIR = os.path.join(os.path.dirname(__file__), '..', '..', '..',
                           '..', 'doc', 'notification_samples')

# Values that differ between runs, checked by form instead of equality.
VARYING = {
    'uuid': re.compile(r'^[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}$'),
    'id': re.compile(r'^\d+$'),
}


def load_sample(name):
    with open(os.path.join(SAMPLES_DIR, name + '.json')) as f:
        return json.load(f)


class _NotificationTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.flags(host='compute-1')
        # Notifications are off unless a driver is configured.
        self.flags(group='oslo_messaging_notifications',
                   driver=['messagingv2'])
        self.useFixture(zun_fixtures.Database())
        notification.set_publisher_source('zun-hostcap-conductor')
        self.addCleanup(notification.set_publisher_source,
                        notification.publisher_source())

    def start(self, topics=('versioned_notifications',)):
        self.useFixture(zun_fixtures.RPC(self.conf))
        return self.useFixture(zun_fixtures.NotificationCollector(topics))

    def make_node(self):
        return test_compute_node.make_compute_node(self.context,
                                                   hostname='compute-1')


class TestComputeNodeNotifications(_NotificationTestCase):

    def setUp(self):
        super().setUp()
        self.notifications = self.start()

    def assertMatchesSample(self, sample_name, emitted):
        """Same structure, versions and values; VARYING ones by form."""
        sample = load_sample(sample_name)
        # As a listener gets it from a real transport: JSON.
        emitted = json.loads(json.dumps(emitted))
        data_key = 'zun_hostcap_object.data'
        for payload in (sample['payload'], emitted['payload']):
            for name, pattern in VARYING.items():
                if name in payload[data_key]:
                    self.assertRegex(str(payload[data_key][name]), pattern)
                    payload[data_key][name] = '<%s>' % name
        self.assertEqual(sample, emitted)

    def test_create_update_delete_match_their_samples(self):
        node = self.make_node()
        node.create()
        node.mem_used = 2048
        node.running_containers = 1
        node.total_containers = 1
        node.save()
        node.destroy()

        create, update, delete = self.notifications.wait_for(3)
        self.assertMatchesSample('compute_node-create', create)
        self.assertMatchesSample('compute_node-update', update)
        self.assertMatchesSample('compute_node-delete', delete)

    def test_update_only_when_a_payload_field_changed(self):
        node = self.make_node()
        node.create()
        node.save()                      # nothing changed
        node.labels = {'rack': 'r7'}     # not in the payload
        node.save()
        node.pci_device_pools = objects.PciDevicePoolList(objects=[])
        node.save()
        node.numa_topology.nodes[0].mem_available = 1
        node.save()                      # in the payload, nested
        node.disk_used = 50
        node.save()

        received = self.notifications.wait_for(3)
        self.assertEqual(['compute_node.create', 'compute_node.update',
                          'compute_node.update'],
                         [n['event_type'] for n in received])
        data = received[2]['payload']['zun_hostcap_object.data']
        self.assertEqual((50, 50), (data['disk_used'], data['disk_free']))
        numa = received[1]['payload']['zun_hostcap_object.data'][
            'numa_topology']
        self.assertEqual(1, numa[0]['zun_hostcap_object.data'][
            'mem_available'])

    def test_delete_payload_is_identity_only(self):
        node = self.make_node()
        node.create()
        node.destroy()
        delete = self.notifications.wait_for(2)[1]
        self.assertEqual({'id': node.id, 'uuid': node.uuid},
                         delete['payload']['zun_hostcap_object.data'])

    def test_unpopulated_payload_is_refused(self):
        unpopulated = cn_notif.ComputeNodeNotification(
            priority='info',
            event_type=notification.EventType(object='compute_node',
                                              action='create'),
            publisher=notification.NotificationPublisher(
                host='h', source='s'),
            payload=cn_notif.ComputeNodePayload())
        self.assertRaises(ValueError, unpopulated.emit, self.context)

    def test_event_type_with_phase(self):
        event = notification.EventType(object='compute_node',
                                       action='update', phase='start')
        self.assertEqual('compute_node.update.start',
                         event.to_event_type_field())


class TestNotificationFormats(_NotificationTestCase):

    TOPICS = ('versioned_notifications', 'notifications')

    def test_no_driver_sends_nothing(self):
        # oslo.messaging's convention: nobody reads a queue by default.
        self.flags(group='oslo_messaging_notifications', driver=[])
        self.flags(group='notifications', notification_format='both')
        self.assertEqual([], self._create_and_collect(0))

    def _create_and_collect(self, expected):
        collector = self.start(self.TOPICS)
        self.make_node().create()
        collector.wait_for(expected, timeout=1 if not expected else 5)
        return collector.received

    def test_none_sends_nothing(self):
        self.flags(group='notifications', notification_format='none')
        self.assertEqual([], self._create_and_collect(0))

    def test_unversioned_sends_the_legacy_format_only(self):
        self.flags(group='notifications',
                   notification_format='unversioned')
        received = self._create_and_collect(1)
        self.assertEqual(1, len(received))
        payload = received[0]['payload']
        self.assertEqual('compute_node.create', received[0]['event_type'])
        self.assertNotIn('zun_hostcap_object.data', payload)
        self.assertEqual('compute-1', payload['host'])
        self.assertEqual(16000, payload['mem_total'])
        self.assertEqual([0, 1, 2, 3], payload['numa_topology'][0]['cpuset'])

    def test_both_sends_both(self):
        self.flags(group='notifications', notification_format='both')
        received = self._create_and_collect(2)
        self.assertEqual(2, len(received))
        self.assertEqual(1, sum('zun_hostcap_object.data' in n['payload']
                                for n in received))

    def test_versioned_topics_are_configurable(self):
        self.flags(group='notifications',
                   versioned_notifications_topics=['billing'])
        collector = self.start(('billing',))
        self.make_node().create()
        self.assertEqual(['compute_node.create'],
                         [n['event_type'] for n in
                          collector.wait_for(1)])


class TestSamplesAreComplete(base.TestCase):

    def test_every_notification_has_samples_and_every_sample_an_owner(self):
        claimed = set()
        for name, classes in objects.base.ZunHostcapObjectRegistry \
                .obj_classes().items():
            if issubclass(classes[0], notification.NotificationBase):
                self.assertTrue(getattr(classes[0], 'samples', None),
                                '%s has no notification_sample' % name)
                claimed.update(classes[0].samples)
        self.assertEqual(set(os.listdir(SAMPLES_DIR)), claimed)

    def test_samples_name_their_payload_class_and_version(self):
        registry = objects.base.ZunHostcapObjectRegistry.obj_classes()
        for sample_file in os.listdir(SAMPLES_DIR):
            payload = load_sample(sample_file[:-len('.json')])['payload']
            cls = registry[payload['zun_hostcap_object.name']][0]
            self.assertEqual(cls.VERSION,
                             payload['zun_hostcap_object.version'],
                             sample_file)
