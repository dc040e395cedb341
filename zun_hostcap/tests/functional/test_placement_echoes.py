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

"""What Placement echoes of a request, ours beside OpenStack Placement's.

The same requests go to zun-hostcap-api's /placement and to OpenStack
Placement from PyPI (tools/placement_peer.py), both on SQLite with
noauth2; the bodies that echo what the client sent must be the same:
the uuids of aggregates, providers and consumers in the form sent, an
inventory's numbers as written, the texts of the errors clients match.
"""

import json
import urllib.error
import urllib.request
import uuid

from oslotest import base

from zun_hostcap.tests.functional import test_placement_peers

HEADERS = {'X-Auth-Token': 'admin', 'Content-Type': 'application/json',
           'Accept': 'application/json'}


def _call(url, method, path, body=None, version='1.39'):
    """(status, JSON body or None) of a request."""
    headers = dict(HEADERS, **{'OpenStack-API-Version':
                               'placement %s' % version})
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url + path, data=data, method=method,
                                     headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as resp:
            status, text = resp.status, resp.read()
    except urllib.error.HTTPError as err:
        with err:
            status, text = err.code, err.read()
    return status, json.loads(text) if text else None


class TestEchoes(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.urls = {
            'placement': test_placement_peers.start_openstack_placement(
                self),
            'ours': test_placement_peers.start_our_placement(self)}

    def both(self, method, path, body=None, version='1.39'):
        """The answers of both, which the test compares."""
        return {name: _call(url, method, path, body, version)
                for name, url in self.urls.items()}

    def assertSame(self, answers, strip=()):
        """Both answered the same, but for the keys ``strip``."""
        def cleaned(answer):
            status, body = answer
            if isinstance(body, dict):
                body = {key: value for key, value in body.items()
                        if key not in strip}
                for error in body.get('errors', ()):
                    error.pop('request_id', None)
            return status, body
        # As text: 1 and 1.0 are equal numbers, not the same echo.
        self.assertEqual(
            json.dumps(cleaned(answers['placement']), sort_keys=True),
            json.dumps(cleaned(answers['ours']), sort_keys=True))

    def test_uuids_inventories_and_errors_echo_as_sent(self):
        rp = str(uuid.uuid4())
        for url in self.urls.values():
            self.assertEqual(200, _call(url, 'POST', '/resource_providers',
                                        {'name': 'echo', 'uuid': rp})[0])
        # An aggregate of 32 hex digits (openstacksdk's), one dashed.
        aggregates = [uuid.uuid4().hex, str(uuid.uuid4())]
        answers = self.both('PUT', '/resource_providers/%s/aggregates' % rp,
                            {'aggregates': aggregates,
                             'resource_provider_generation': 0})
        self.assertEqual(set(aggregates),
                         set(answers['ours'][1]['aggregates']))
        self.assertSame(answers, strip=('aggregates',))
        answers = self.both('GET', '/resource_providers/%s/aggregates' % rp)
        self.assertEqual(set(aggregates),
                         set(answers['ours'][1]['aggregates']))

        inventory = {'total': 8, 'allocation_ratio': 1}
        answers = self.both(
            'PUT', '/resource_providers/%s/inventories' % rp,
            {'resource_provider_generation': 1,
             'inventories': {'VCPU': inventory}}, version='1.26')
        self.assertSame(answers)
        self.assertIsInstance(
            answers['ours'][1]['inventories']['VCPU']['allocation_ratio'],
            int)
        answers = self.both(
            'PUT', '/resource_providers/%s/inventories/VCPU' % rp,
            {'resource_provider_generation': 2, 'total': 8,
             'allocation_ratio': 2})
        self.assertSame(answers)
        # POST /allocations takes consumers of 36 characters only.
        allocation = {'allocations': {rp: {'resources': {'VCPU': 1}}},
                      'project_id': 'p', 'user_id': 'u',
                      'consumer_generation': None,
                      'consumer_type': 'INSTANCE'}
        answers = self.both('POST', '/allocations',
                            {uuid.uuid4().hex: allocation})
        self.assertEqual([400, 400], [answers['placement'][0],
                                      answers['ours'][0]])
        consumer = str(uuid.uuid4())
        answers = self.both('POST', '/allocations', {
            consumer: {'allocations': {rp: {'resources': {'VCPU': 1}}},
                       'project_id': 'p', 'user_id': 'u',
                       'consumer_generation': None,
                       'consumer_type': 'INSTANCE'}})
        self.assertSame(answers)
        answers = self.both('GET', '/resource_providers/%s/allocations' % rp)
        self.assertEqual([consumer],
                         list(answers['ours'][1]['allocations']))
        self.assertSame(answers)

        # A provider that is not there, at 1.15.
        answers = self.both('GET', '/resource_providers/%s' % uuid.uuid4(),
                            version='1.15')
        self.assertSame(answers)

    def test_names_starting_with_an_underscore_are_names(self):
        # Placement's routes take any segment as a name; only pecan's
        # object dispatch (not /placement's) keeps such names private.
        for method, path, body in (
                ('GET', '/allocations/__dict__', None),
                ('GET', '/allocations/_x', None),
                ('PUT', '/allocations/_x', {'allocations': {}}),
                ('GET', '/resource_providers/__dict__', None),
                ('GET', '/resource_classes/_X', None),
                ('PUT', '/resource_classes/__dict__', None),
                ('GET', '/traits/_x', None),
                ('PUT', '/traits/_x', None)):
            answers = self.both(method, path, body)
            self.assertEqual(answers['placement'][0], answers['ours'][0],
                             '%s %s: %s' % (method, path, answers))
            if method == 'GET' and path.startswith('/allocations/'):
                self.assertSame(answers)
