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

"""Usages in the database: per provider, per project, per type."""

from oslo_utils import uuidutils

from zun_hostcap.common import exception
from zun_hostcap.db.sqlalchemy.placement import allocations as alloc_db
from zun_hostcap.db.sqlalchemy.placement import inventories as inv_db
from zun_hostcap.db.sqlalchemy.placement import resource_providers as rp_db
from zun_hostcap import objects
from zun_hostcap.tests import base
from zun_hostcap.tests import fixtures


class UsagesTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(fixtures.Database())
        self.rp = uuidutils.generate_uuid()
        rp_db.create(self.context, self.rp, 'rp')
        inv_db.replace_all(self.context, self.rp, 0, {
            'VCPU': {'total': 64}, 'DISK_GB': {'total': 1000}})
        for project, user, ctype, resources in (
                ('p1', 'u1', 'INSTANCE', {'VCPU': 2, 'DISK_GB': 10}),
                ('p1', 'u1', 'INSTANCE', {'VCPU': 1}),
                ('p1', 'u2', 'MIGRATION', {'VCPU': 4}),
                ('p1', 'u2', None, {'DISK_GB': 5}),
                ('p2', 'u1', 'INSTANCE', {'VCPU': 8})):
            alloc_db.replace_all(self.context, {
                uuidutils.generate_uuid(): {
                    'allocations': {self.rp: resources},
                    'project_id': project, 'user_id': user,
                    'consumer_generation': None, 'consumer_type': ctype}})

    def test_provider(self):
        generation, usages = objects.Usage.get_all_by_resource_provider_uuid(
            self.context, self.rp)
        self.assertEqual(6, generation)
        self.assertEqual({'VCPU': 15, 'DISK_GB': 15},
                         {u.resource_class: u.usage for u in usages})
        self.assertRaises(exception.ResourceProviderNotFound,
                          objects.Usage.get_all_by_resource_provider_uuid,
                          self.context, uuidutils.generate_uuid())

    def test_project_user(self):
        def usages(*args):
            return {u.resource_class: u.usage for u in
                    objects.Usage.get_all_by_project_user(self.context,
                                                          *args)}
        self.assertEqual({'VCPU': 7, 'DISK_GB': 15}, usages('p1'))
        self.assertEqual({'VCPU': 4, 'DISK_GB': 5}, usages('p1', 'u2'))
        self.assertEqual({}, usages('p3'))

    def by_type(self, consumer_type=None, user_id=None):
        result = {}
        for usage in objects.Usage.get_by_consumer_type(
                self.context, 'p1', user_id, consumer_type):
            entry = result.setdefault(usage.consumer_type, {})
            entry[usage.resource_class] = usage.usage
            entry['consumer_count'] = usage.consumer_count
        return result

    def test_by_type(self):
        self.assertEqual({
            'INSTANCE': {'VCPU': 3, 'DISK_GB': 10, 'consumer_count': 2},
            'MIGRATION': {'VCPU': 4, 'consumer_count': 1},
            'unknown': {'DISK_GB': 5, 'consumer_count': 1}},
            self.by_type())
        self.assertEqual(
            {'all': {'VCPU': 7, 'DISK_GB': 15, 'consumer_count': 4}},
            self.by_type('all'))
        self.assertEqual(
            {'unknown': {'DISK_GB': 5, 'consumer_count': 1}},
            self.by_type('unknown'))
        self.assertEqual(
            {'MIGRATION': {'VCPU': 4, 'consumer_count': 1}},
            self.by_type('MIGRATION'))
        self.assertEqual({}, self.by_type('ALL'))
        self.assertEqual(
            {'all': {'VCPU': 3, 'DISK_GB': 10, 'consumer_count': 2}},
            self.by_type('all', 'u1'))
