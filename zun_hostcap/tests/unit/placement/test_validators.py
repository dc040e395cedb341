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

"""The JSON-schema validators of the Placement API are made once."""

from oslo_utils import uuidutils
from oslotest import base

from zun_hostcap.api import app
from zun_hostcap.api.placement import util
from zun_hostcap.tests import gabbi_fixtures
from zun_hostcap.tests.unit.api import test_placement_api_samples as samples


class TestValidatorCache(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        gabbi_fixtures.use(self, gabbi_fixtures.PlacementFixture)
        self.app = app.setup_app()
        for method, path, body in samples.DEPLOYMENT:
            resp = samples._request(self.app, method, path, body)
            self.assertLess(resp.status_int, 300, resp.text)

    def _round(self):
        """Requests of every kind that validates a body or a query."""
        consumer = uuidutils.generate_uuid()
        allocation = {
            'allocations': {samples.COMPUTE: {'resources': {'VCPU': 1}}},
            'consumer_generation': None, 'project_id': samples.PROJECT,
            'user_id': samples.USER}
        for version in ('1.0', '1.12', '1.28', '1.38', '1.39'):
            if version == '1.0':
                body = {'allocations': [{
                    'resource_provider': {'uuid': samples.COMPUTE},
                    'resources': {'VCPU': 1}}]}
            elif version == '1.12':
                body = {key: value for key, value in allocation.items()
                        if key != 'consumer_generation'}
            else:
                body = allocation
            resp = samples._request(self.app, 'PUT',
                                    '/allocations/%s' % consumer, body,
                                    version=version)
            self.assertIn(resp.status_int, (204, 400, 409), resp.text)
            samples._request(self.app, 'DELETE',
                             '/allocations/%s' % consumer)
        for path in ('/resource_providers?resources=VCPU:1',
                     '/usages?project_id=%s' % samples.PROJECT,
                     '/traits?name=startswith:HW'):
            resp = samples._request(self.app, 'GET', path)
            self.assertEqual(200, resp.status_int, resp.text)

    def test_repeated_requests_add_no_validator(self):
        self._round()
        made = len(util._VALIDATORS)
        for _ in range(5):
            self._round()
        self.assertEqual(made, len(util._VALIDATORS))
