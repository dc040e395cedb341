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

"""Versioned notifications from real services to a real listener.

zun-hostcap-conductor and zun-hostcap-compute run as processes over
RabbitMQ with MariaDB; the test listens on versioned_notifications with
oslo.messaging's threading executor, as any consumer would.
"""

import dataclasses
import os
import threading
import time

import oslo_messaging as messaging

from zun_hostcap.common import context as zun_context
from zun_hostcap.common import rpc
from zun_hostcap.conductor import rpcapi as conductor_rpcapi
from zun_hostcap import objects
from zun_hostcap.objects import base as objects_base
from zun_hostcap import os_capability
from zun_hostcap.os_capability import fake as fake_host
from zun_hostcap.tests import base as test_base
from zun_hostcap.tests.functional import base as functional_base

INTERVAL = 1


class _Listener:
    """The endpoint: collects the notifications about one host."""

    def __init__(self, host):
        self.host = host
        self.received = []
        self.lock = threading.Lock()

    def info(self, ctxt, publisher_id, event_type, payload, metadata):
        # Only our services publish on this virtual host; a safeguard.
        if publisher_id.endswith(':' + self.host):
            with self.lock:
                self.received.append((event_type, payload))

    def events(self):
        with self.lock:
            return [event for event, _payload in self.received]


class TestComputeNodeNotifications(test_base.TestCase):

    def setUp(self):
        super().setUp()
        self.deployment = self.useFixture(functional_base.Deployment(
            self, interval=INTERVAL, notification_format='versioned'))
        # This test process is a client of the same deployment, on its
        # RabbitMQ virtual host.
        self.flags(transport_url=self.deployment.transport_url,
                   control_exchange=self.deployment.exchange)
        self.flags(group='conductor',
                   topic=self.deployment.conductor_topic)
        rpc.cleanup()
        rpc.init(self.conf)
        self.addCleanup(rpc.cleanup)
        self.listener = _Listener(self.deployment.hostname)
        server = messaging.get_notification_listener(
            rpc.NOTIFICATION_TRANSPORT,
            [messaging.Target(topic='versioned_notifications')],
            [self.listener], executor='threading')
        server.start()
        self.addCleanup(server.wait)
        self.addCleanup(server.stop)

    def _wait_for_events(self, events, timeout):
        functional_base.wait_for(
            lambda: self.listener.events() == events, timeout,
            interval=0.1, message='notifications %s' % events,
            processes=(self.deployment.conductor, self.deployment.compute))
        return [payload['zun_hostcap_object.data']
                for _event, payload in self.listener.received]

    def test_create_update_nothing_and_delete(self):
        # This host's real capabilities, served through the fake driver so
        # that the test can change one of them.
        data_file = os.path.join(self.deployment.tmp, 'host.json')
        caps = os_capability.load_driver(
            'linux', disk_path=self.deployment.tmp).get_capabilities()
        fake_host.write_capabilities(data_file, caps)
        self.deployment.start({'os_capability_driver': 'fake',
                               'fake_capabilities_file': data_file})

        created, = self._wait_for_events(['compute_node.create'],
                                         timeout=30)
        self.assertEqual(self.deployment.hostname, created['host'])
        self.assertEqual(len(caps.cpu.online_cpus), created['cpus'])
        self.assertEqual(caps.memory.mem_total // 1024,
                         created['mem_total'])
        self.assertEqual(caps.os.kernel_version, created['kernel_version'])
        self.assertEqual(caps.cpu.architecture, created['architecture'])
        self.assertEqual(len(caps.numa_topology),
                         len(created['numa_topology']))

        # Nothing changes: nothing is sent.
        time.sleep(INTERVAL * 4)
        self.assertEqual(['compute_node.create'], self.listener.events())

        fake_host.write_capabilities(data_file, dataclasses.replace(
            caps, os=dataclasses.replace(caps.os, kernel_version='9.9.9')))
        _created, updated = self._wait_for_events(
            ['compute_node.create', 'compute_node.update'],
            timeout=INTERVAL * 3)
        self.assertEqual('9.9.9', updated['kernel_version'])

        # The node is removed through the conductor, as any client would;
        # the compute stops first so that it does not create it again.
        self.deployment.compute.stop()
        objects_base.install_indirection_api(conductor_rpcapi.ConductorAPI())
        self.addCleanup(objects_base.install_indirection_api, None)
        node = objects.ComputeNode.get_by_hostname(
            zun_context.get_admin_context(), self.deployment.hostname)
        node.destroy()
        *_rest, deleted = self._wait_for_events(
            ['compute_node.create', 'compute_node.update',
             'compute_node.delete'], timeout=10)
        self.assertEqual({'id': node.id, 'uuid': node.uuid}, deleted)
