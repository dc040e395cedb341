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

"""GET / before pecan and the hosts list from rows: the same answers.

The fast paths must answer what pecan and the objects answered: each is
compared with the path it stands in for, through the whole application.
"""

import json

import webob

from oslotest import base

from zun_hostcap.api import app
from zun_hostcap.common import context
from zun_hostcap.tests import gabbi_fixtures
from zun_hostcap.tests.unit.objects import test_compute_node

ADMIN = {'X-Auth-Token': 'admin'}
# Not among the Accept values the GET / route takes: pecan answers.
THROUGH_PECAN = 'application/json;q=1.0'


class TestFastPaths(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        # The API's configuration and database, with the gabbits' hosts.
        gabbi_fixtures.use(self)
        self.context = context.get_admin_context()
        self.app = app.setup_app()

    def _get(self, path, **headers):
        return webob.Request.blank(path, headers=headers).get_response(
            self.app)

    def _same(self, fast, slow):
        self.assertEqual(slow.status_int, fast.status_int)
        self.assertEqual(slow.body, fast.body)
        for name in ('Content-Type', 'OpenStack-API-Version',
                     'OpenStack-API-Minimum-Version',
                     'OpenStack-API-Maximum-Version', 'Vary'):
            self.assertEqual(slow.headers.get(name),
                             fast.headers.get(name), name)
        self.assertIn('x-openstack-request-id', fast.headers)

    def test_root_is_what_pecan_answers(self):
        for version in (None, 'container 1.1', 'container 1.40',
                        'container latest'):
            headers = {'OpenStack-API-Version': version} if version else {}
            self._same(self._get('/', **headers),
                       self._get('/', Accept=THROUGH_PECAN, **headers))
        self._same(self._get('/', Accept='application/json'),
                   self._get('/', Accept=THROUGH_PECAN))

    def test_root_refusals_are_pecans(self):
        bad = self._get('/', **{'OpenStack-API-Version': 'container 9.0'})
        self.assertEqual(406, bad.status_int)
        self.assertEqual('container.version_not_acceptable',
                         bad.json['errors'][0]['code'])
        self.assertEqual(406, self._get('/', Accept='text/html').status_int)
        self.assertEqual(
            405, webob.Request.blank('/', method='POST').get_response(
                self.app).status_int)

    def test_list_is_the_objects_documents(self):
        test_compute_node.make_compute_node(
            self.context, hostname='fast-path-host', numa_topology=None,
            pci_device_pools=None).create()
        for version in ('container 1.4', 'container 1.40'):
            listed = json.loads(self._get(
                '/v1/hosts/', **dict(ADMIN, **{
                    'OpenStack-API-Version': version})).body)
            self.assertIsNone(listed['next'])
            for host in listed['hosts']:
                shown = json.loads(self._get(
                    '/v1/hosts/%s' % host['uuid'], **dict(ADMIN, **{
                        'OpenStack-API-Version': version})).body)
                self.assertEqual(shown, host)
                self.assertEqual(version == 'container 1.40',
                                 'enable_cpu_pinning' in host)
        self.assertIn('fast-path-host',
                      [host['hostname'] for host in listed['hosts']])
        page = json.loads(self._get(
            '/v1/hosts/?limit=1', **dict(ADMIN, **{
                'OpenStack-API-Version': 'container 1.40'})).body)
        self.assertEqual(1, len(page['hosts']))
        self.assertIn('marker=%s' % page['hosts'][0]['uuid'], page['next'])
