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

"""[upgrade_levels] conductor: what a compute sends to older conductors.

A real conductor RPC server on the in-process transport; a conductor of
2026.2 is played by an endpoint that knows only that release's RPC API
and object versions, and refuses newer objects as that release does.
The upgrade test (functional/test_upgrade.py) runs the real one.
"""

import datetime

import fixtures
import oslo_messaging as messaging
from oslo_utils import timeutils
from oslo_utils import versionutils
from oslo_versionedobjects import exception as ovo_exc

from zun_hostcap.common import exception
from zun_hostcap.conductor import rpcapi
from zun_hostcap.db import api as db_api
from zun_hostcap import objects
from zun_hostcap.objects import service as service_obj
from zun_hostcap.tests import base
from zun_hostcap.tests import fixtures as zun_fixtures
from zun_hostcap.tests.unit.objects import test_compute_node

RELEASE_2026_2 = service_obj.SERVICE_VERSION_HISTORY[0]['objects']


def _newer(version, than):
    return (versionutils.convert_version_to_tuple(version) >
            versionutils.convert_version_to_tuple(than))


class ConductorOf2026_2(zun_fixtures.CountingConductorManager):
    """An endpoint that understands what a conductor of 2026.2 does.

    RPC API 1.0 only; an object of a version 2026.2 does not have is
    refused with IncompatibleObjectVersion, as that release's registry
    refuses it; and what it was sent is kept to be looked at.
    """

    target = messaging.Target(version='1.0')

    def __init__(self):
        super().__init__()
        # (object, method, its version) of each call served, and
        # (object, version) of those refused.
        self.received = []
        self.refused = []

    def _check(self, name, version):
        if name not in RELEASE_2026_2 or _newer(version,
                                                RELEASE_2026_2[name]):
            self.refused.append((name, version))
            raise ovo_exc.IncompatibleObjectVersion(
                objname=name, objver=version,
                supported=RELEASE_2026_2.get(name, 'none'))

    @messaging.expected_exceptions(exception.ZunHostcapException,
                                   ovo_exc.IncompatibleObjectVersion)
    def object_class_action_versions(self, context, objname, objmethod,
                                     object_versions, args, kwargs):
        for name, version in object_versions.items():
            if name in RELEASE_2026_2 or name == objname:
                self._check(name, version)
        self.received.append((objname, objmethod, object_versions[objname]))
        return super().object_class_action_versions(
            context, objname, objmethod, object_versions, args, kwargs)

    @messaging.expected_exceptions(exception.ZunHostcapException)
    def object_action(self, context, objinst, objmethod, args, kwargs):
        self._check(objinst.obj_name(), objinst.VERSION)
        self.received.append((objinst.obj_name(), objmethod,
                              objinst.VERSION))
        return super().object_action(context, objinst, objmethod, args,
                                     kwargs)


class FakeClock(object):
    """``time`` of the conductor client, with a monotonic clock to move."""

    def __init__(self):
        self.now = 1000.0

    def monotonic(self):
        return self.now

    @staticmethod
    def time():
        return timeutils.utcnow_ts(microsecond=True)


class PinTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.db = self.useFixture(zun_fixtures.Database())
        self.useFixture(zun_fixtures.RPC(self.conf))
        self.logs = self.useFixture(fixtures.FakeLogger(
            name='zun_hostcap.conductor.rpcapi'))
        self.clock = FakeClock()
        self.useFixture(fixtures.MonkeyPatch(
            'zun_hostcap.conductor.rpcapi.time', self.clock))

    def _conductor(self, manager=None):
        conductor = self.useFixture(zun_fixtures.Conductor(
            self.conf, manager=manager))
        # The fixture's client is this release's; the tests make theirs.
        self.flags(conductor='auto', group='upgrade_levels')
        return conductor

    def _record_conductor(self, host, version, seen_ago=0):
        """A conductor's row, as it records itself, seen ``seen_ago`` s."""
        seen = timeutils.utcnow() - datetime.timedelta(seconds=seen_ago)
        with db_api.conductor_scope():
            service = objects.Service(
                self.context, host=host, binary=rpcapi.CONDUCTOR_BINARY,
                topic='t', version=version)
            service.create()
            db_api.service_update(self.context, service.id,
                                  {'last_seen_up': seen})

    def _client(self):
        api = rpcapi.ConductorAPI()
        objects.base.install_indirection_api(api)
        return api


class TestAuto(PinTestCase):

    def test_the_default_sends_2026_2_until_it_read_the_versions(self):
        self._conductor()
        api = self._client()
        self.assertTrue(api.auto)
        self.assertEqual('1.0', api.client.version_cap)
        self.assertEqual(RELEASE_2026_2, api.object_versions)

    def test_conductors_of_this_release(self):
        self._conductor()
        self._record_conductor('c1', service_obj.SERVICE_VERSION)
        api = self._client()
        self.assertTrue(api.wait_until_ready(self.context))
        self.assertEqual(service_obj.SERVICE_VERSION, api.service_version)
        self.assertIsNone(api.client.version_cap)
        self.assertIsNone(api.object_versions)
        self.assertIn('[upgrade_levels] conductor = auto: every '
                      'zun-hostcap-conductor on topic '
                      'zun-hostcap-conductor-test runs this release; this '
                      'service sends conductor RPC API 1.1.',
                      self.logs.output)

    def test_only_conductors_of_2026_2(self):
        old = ConductorOf2026_2()
        self._conductor(manager=old)
        self._record_conductor('c1', 0)
        api = self._client()
        self.assertTrue(api.wait_until_ready(self.context))
        self.assertEqual(0, api.service_version)
        self.assertEqual('1.0', api.client.version_cap)
        self.assertIn('[upgrade_levels] conductor = auto: a '
                      'zun-hostcap-conductor of 2026.2 runs on topic '
                      'zun-hostcap-conductor-test; until every one runs this '
                      'release, this service sends conductor RPC API 1.0 '
                      'and the objects of 2026.2, and reads the conductors\' '
                      'versions again every 60 s.', self.logs.output)

        # What the compute service does, in that release's terms: the
        # heartbeat is the object call, not the cast that release drops.
        node = test_compute_node.make_compute_node(self.context)
        node.create()
        node.mem_used = 1
        node.save()
        loaded = objects.ComputeNode.get_by_hostname(self.context, 'host-1')
        service = objects.Service(self.context, host='h', binary='b')
        service.create()
        api.service_report_state(self.context, service)
        self.assertEqual(1, service.report_count)
        self.assertEqual('1.0', loaded.VERSION)
        # Asked for Service 1.1, it refused, as 2026.2 does; then it got
        # everything at the versions it knows.
        self.assertEqual([('Service', '1.1')], old.refused)
        self.assertEqual([('ComputeNode', 'create', '1.0'),
                          ('ComputeNode', 'save', '1.0'),
                          ('ComputeNode', 'get_by_hostname', '1.0'),
                          ('Service', 'create', '1.0'),
                          ('Service', 'heartbeat', '1.0')], old.received)

    def test_a_conductor_of_2026_2_among_new_ones(self):
        self._conductor()
        self._record_conductor('new', service_obj.SERVICE_VERSION)
        self._record_conductor('old', 0)
        api = self._client()
        api.wait_until_ready(self.context)
        self.assertEqual(0, api.service_version)

        # The old one is upgraded; read again only when due.
        with db_api.conductor_scope():
            db_api.service_update(
                self.context, objects.Service.get_by_host_and_binary(
                    self.context, 'old', rpcapi.CONDUCTOR_BINARY).id,
                {'version': service_obj.SERVICE_VERSION})
        service = objects.Service(self.context, host='h', binary='b')
        service.create()
        api.service_report_state(self.context, service)
        self.assertEqual(0, api.service_version)
        self.clock.now += self.conf.service_down_time
        api.service_report_state(self.context, service)
        self.assertEqual(service_obj.SERVICE_VERSION, api.service_version)
        self.assertIsNone(api.client.version_cap)
        self.assertIn('runs this release; this service sends conductor RPC '
                      'API 1.1.', self.logs.output)

    def test_a_conductor_of_2026_2_that_stopped_counts_until_down(self):
        self._conductor()
        self._record_conductor('new', service_obj.SERVICE_VERSION)
        self._record_conductor('gone', 0,
                               seen_ago=self.conf.service_down_time + 1)
        api = self._client()
        api.wait_until_ready(self.context)
        self.assertEqual(service_obj.SERVICE_VERSION, api.service_version)

    def test_versions_that_cannot_be_read_are_read_again(self):
        conductor = self._conductor()
        original = conductor.manager.object_class_action_versions

        def database_down(context, objname, objmethod, *args, **kwargs):
            if objmethod == 'get_minimum_version':
                raise exception.DatabaseUnavailable(reason='gone')
            return original(context, objname, objmethod, *args, **kwargs)

        conductor.manager.object_class_action_versions = database_down
        self._record_conductor('c1', service_obj.SERVICE_VERSION)
        api = self._client()
        api.wait_until_ready(self.context)
        self.assertEqual(0, api.service_version)
        self.assertIn('[upgrade_levels] conductor = auto: the service '
                      'versions of the conductors cannot be read',
                      self.logs.output)
        self.assertIn('this service sends what 2026.2 understands until '
                      'they can.', self.logs.output)

        conductor.manager.object_class_action_versions = original
        service = objects.Service(self.context, host='h', binary='b')
        service.create()
        self.clock.now += self.conf.service_down_time
        api.service_report_state(self.context, service)
        self.assertEqual(service_obj.SERVICE_VERSION, api.service_version)


class TestExplicitPins(PinTestCase):

    def test_pinned_to_2026_2_a_conductor_of_it_understands_all(self):
        old = ConductorOf2026_2()
        self._conductor(manager=old)
        self.flags(conductor='2026.2', group='upgrade_levels')
        api = self._client()
        api.wait_until_ready(self.context)
        self.assertEqual('1.0', api.client.version_cap)
        node = test_compute_node.make_compute_node(self.context)
        node.create()
        node.mem_used = 7
        node.save()
        # No version read: the pin is the operator's.
        self.assertEqual([('ComputeNode', 'create', '1.0'),
                          ('ComputeNode', 'save', '1.0')], old.received)
        self.assertEqual([], old.refused)

    def test_a_version_pins_the_objects_of_its_release(self):
        self._conductor()
        self.flags(conductor='1.0', group='upgrade_levels')
        api = self._client()
        self.assertEqual(RELEASE_2026_2, api.object_versions)
        self.flags(conductor='1.1', group='upgrade_levels')
        api = self._client()
        self.assertEqual('1.1', api.client.version_cap)
        self.assertIsNone(api.object_versions)

    def test_empty_is_the_newest(self):
        self._conductor()
        self.flags(conductor='', group='upgrade_levels')
        api = self._client()
        self.assertIsNone(api.client.version_cap)
        self.assertFalse(api.auto)
