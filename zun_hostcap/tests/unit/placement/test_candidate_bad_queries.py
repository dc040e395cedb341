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

"""GET /allocation_candidates: queries no client should send.

Each answers a 4xx with Placement's error document, or what the query
means; never a 5xx. OpenStack Placement 16.0 answers 500 to the amounts
over 2**63 and to ``limit=x&limit=1``; here an amount no inventory can
hold matches nothing, and every value of a repeated ``limit`` or
``group_policy`` is checked.
"""

import urllib.parse

from oslo_utils import uuidutils
from oslotest import base
import webob

from zun_hostcap.api import app
from zun_hostcap.api.controllers.placement import allocation_candidates
from zun_hostcap.tests import gabbi_fixtures

COMPUTE = uuidutils.generate_uuid()
OTHER = uuidutils.generate_uuid()
AGGREGATE = uuidutils.generate_uuid()
HUGE = '9' * 30


class TestBadQueries(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        gabbi_fixtures.use(self, gabbi_fixtures.PlacementFixture)
        self.app = app.setup_app()
        for uuid in (COMPUTE, OTHER):
            self.send('POST', '/resource_providers',
                      {'name': uuid, 'uuid': uuid})
            self.send('PUT', '/resource_providers/%s/inventories' % uuid,
                      {'resource_provider_generation': 0,
                       'inventories': {'VCPU': {'total': 8}}})
            self.send('PUT', '/resource_providers/%s/aggregates' % uuid,
                      {'resource_provider_generation': 1,
                       'aggregates': [AGGREGATE]})

    def send(self, method, path, body=None, query=None):
        headers = {'X-Auth-Token': 'admin', 'Accept': 'application/json',
                   'OpenStack-API-Version': 'placement latest'}
        req = webob.Request.blank('/placement' + path, method=method,
                                  headers=headers)
        if query is not None:
            req.environ['QUERY_STRING'] = query
        if body is not None:
            req.json_body = body
            req.content_type = 'application/json'
        resp = req.get_response(self.app)
        if body is not None:
            self.assertLess(resp.status_int, 300, resp.text)
        self.assertLess(resp.status_int, 500, resp.text)
        self.assertEqual('application/json', resp.content_type)
        return resp

    def candidates(self, query, status=200):
        resp = self.send('GET', '/allocation_candidates', query=query)
        self.assertEqual(status, resp.status_int, resp.text)
        if status == 200:
            return resp.json['allocation_requests']
        return resp.json['errors'][0]

    def test_amount_no_inventory_can_hold_matches_nothing(self):
        # max_unit is at most 2**31 - 1; SQLite stops at 2**63.
        for query in ('resources=VCPU:%s' % HUGE,
                      'resources=VCPU:2147483648',
                      'resources1=VCPU:%s&group_policy=none' % HUGE,
                      'resources=VCPU:1&resources1=VCPU:%s'
                      '&group_policy=isolate' % HUGE):
            self.assertEqual([], self.candidates(query), query)
        self.assertEqual(2, len(self.candidates('resources=VCPU:8')))
        # The same filter of GET /resource_providers.
        resp = self.send('GET', '/resource_providers',
                         query='resources=VCPU:%s' % HUGE)
        self.assertEqual((200, []), (resp.status_int,
                                     resp.json['resource_providers']))

    def test_limit_of_more_digits_than_int_reads_is_no_limit(self):
        self.assertEqual(2, len(self.candidates(
            'resources=VCPU:1&limit=' + '9' * 5000)))
        self.assertEqual(2, len(self.candidates(
            'resources=VCPU:1&limit=1' + '0' * 20)))
        self.assertEqual(1, len(self.candidates('resources=VCPU:1&limit=1')))

    def test_every_value_of_repeated_limit_and_group_policy_checked(self):
        for query in ('resources=VCPU:1&limit=x&limit=1',
                      'resources=VCPU:1&limit=1&limit=x',
                      'resources1=VCPU:1&group_policy=bad'
                      '&group_policy=none',
                      'resources1=VCPU:1&group_policy=none'
                      '&group_policy=bad'):
            self.assertIn('Invalid query string parameters',
                          self.candidates(query, 400)['detail'], query)
        # As Placement: the first of repeated values is used.
        self.assertEqual(1, len(self.candidates(
            'resources=VCPU:1&limit=1&limit=2')))

    def test_repeated_values_read_once(self):
        # 2,000 times the same trait and aggregate: read once, one
        # condition each. Read again at every repetition, they took 13 s
        # and 29 s (then a 503: SQLite refuses a statement 1,000
        # conditions deep).
        query = urllib.parse.urlencode(
            [('resources', 'VCPU:1')] +
            [('required', '!HW_CPU_X86_AVX')] * 2000 +
            [('member_of', AGGREGATE)] * 2000)
        self.assertEqual(2, len(self.candidates(query)))

    def test_too_many_conditions_in_a_group(self):
        limit = allocation_candidates.MAX_GROUP_CONDITIONS
        aggregates = [uuidutils.generate_uuid() for _ in range(limit + 1)]

        def query(suffix, values):
            return urllib.parse.urlencode(
                [('resources' + suffix, 'VCPU:1'),
                 ('group_policy', 'none')] +
                [('member_of' + suffix, value) for value in values])

        # One class and 499 aggregates, each required: as many
        # conditions as allowed (no provider is in all of them).
        self.assertEqual([], self.candidates(
            query('', aggregates[:limit - 1])))
        for suffix in ('', '1', '_NIC'):
            error = self.candidates(query(suffix, aggregates), 400)
            self.assertEqual('placement.query.bad_value', error['code'])
            self.assertIn('names 502 resource classes, required and '
                          'member_of values; at most %d' % limit,
                          error['detail'])
        names = ['CUSTOM_T%d' % index for index in range(limit + 1)]
        error = self.candidates(
            'resources=VCPU:1&root_required=' + ','.join(names), 400)
        self.assertIn('root_required names %d traits' % (limit + 1),
                      error['detail'])
