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

"""Service 1.1: the service version its row records, and the oldest."""

import datetime

from oslo_utils import timeutils

from zun_hostcap.db import api as db_api
from zun_hostcap import objects
from zun_hostcap.objects import service as service_obj
from zun_hostcap.tests import base
from zun_hostcap.tests import fixtures as zun_fixtures

CONDUCTOR = 'zun-hostcap-conductor'


class TestServiceVersion(base.TestCase):

    def setUp(self):
        super().setUp()
        self.db = self.useFixture(zun_fixtures.Database())

    def _service(self, host, version, binary=CONDUCTOR, seen_ago=0,
                 forced_down=False):
        service = objects.Service(self.context, host=host, binary=binary,
                                  version=version, forced_down=forced_down)
        service.create()
        seen = timeutils.utcnow() - datetime.timedelta(seconds=seen_ago)
        db_api.service_update(self.context, service.id,
                              {'last_seen_up': seen})
        return service

    def _oldest(self, binary=CONDUCTOR):
        return objects.Service.get_minimum_version(self.context, binary)

    def test_the_oldest_of_those_up(self):
        self.assertIsNone(self._oldest())
        self._service('new', service_obj.SERVICE_VERSION)
        self.assertEqual(service_obj.SERVICE_VERSION, self._oldest())
        self._service('old', 0)
        self.assertEqual(0, self._oldest())
        # Another binary's does not count.
        self.assertIsNone(self._oldest('zun-hostcap-compute'))

    def test_down_or_forced_down_do_not_count_unless_all_are(self):
        down = self.conf.service_down_time + 1
        self._service('new', service_obj.SERVICE_VERSION)
        self._service('stopped', 0, seen_ago=down)
        self._service('forced', 0, forced_down=True)
        self.assertEqual(service_obj.SERVICE_VERSION, self._oldest())
        # None up: the oldest of them all.
        db_api.service_update(
            self.context, objects.Service.get_by_host_and_binary(
                self.context, 'new', CONDUCTOR).id,
            {'last_seen_up': timeutils.utcnow() -
             datetime.timedelta(seconds=down)})
        self.assertEqual(0, self._oldest())

    def test_a_row_of_2026_2_reads_0(self):
        # As 2026.2 inserts it: without a version row.
        with self.db.engine.begin() as conn:
            conn.exec_driver_sql(
                "INSERT INTO services (host, `binary`, report_count, "
                "disabled, forced_down) VALUES ('old', 'b', 0, 0, 0)")
        self.assertEqual(0, objects.Service.get_by_host_and_binary(
            self.context, 'old', 'b').version)
        self.assertEqual(0, self._oldest('b'))

    def test_a_version_is_changed_in_place_and_leaves_with_its_service(self):
        service = self._service('h', 0)
        service.version = service_obj.SERVICE_VERSION
        service.save()
        self.assertEqual(service_obj.SERVICE_VERSION,
                         objects.Service.get_by_host_and_binary(
                             self.context, 'h', CONDUCTOR).version)
        db_api.service_destroy(self.context, service.id)
        with self.db.engine.connect() as conn:
            self.assertEqual([], conn.exec_driver_sql(
                'SELECT * FROM service_versions').fetchall())

    def test_backported_to_1_0_without_it(self):
        service = self._service('h', service_obj.SERVICE_VERSION)
        primitive = service.obj_to_primitive(target_version='1.0')
        self.assertEqual('1.0', primitive['zun_hostcap_object.version'])
        self.assertNotIn('version', primitive['zun_hostcap_object.data'])
        old = objects.Service.obj_from_primitive(primitive)
        self.assertFalse(old.obj_attr_is_set('version'))
        # Created from it (a compute of 2026.2): 0.
        old = objects.Service(self.context, host='h2', binary='b')
        old.create()
        self.assertEqual(0, old.version)

    def test_history_names_every_object_of_2026_2_at_a_known_version(self):
        history = service_obj.SERVICE_VERSION_HISTORY
        self.assertEqual(service_obj.SERVICE_VERSION, len(history) - 1)
        self.assertIsNone(history[-1]['objects'])
        for name, version in history[0]['objects'].items():
            cls = objects.base.ZunHostcapObject.obj_class_from_name(name,
                                                                    version)
            self.assertEqual(name, cls.obj_name())
