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

"""The role matrix with real Keystone tokens, against the real Placement.

One Keystone (``tools/keystone_peer.py``) issues a token to each persona
of ``tests/role_matrix.py``. zun-hostcap-api and openstack-placement 16.0
(``tools/placement_peer.py``) run behind it with the same
``[keystone_authtoken]`` and ``[oslo_policy]``, each on SQLite, and get
the same requests with the same tokens: every route and method of
``/placement`` at microversion 1.39, as every persona. Each persona has
data of its own, made first on both servers with the same uuids, so that
a request the policy allows means the same thing on both and is valid
(a 2xx). This service's status must be Placement's; the decisions must be
the matrix's; ``/v1`` must follow Zun's defaults. A difference is a
failure unless ``role_matrix.DIFFERENCES`` lists it with its reason.

Both configurations of ``[oslo_policy]`` are run, each with a server
pair of its own; the tokens are made once per test.
"""

from concurrent import futures
import os
import subprocess
import sys
import time
import uuid

import fixtures
from keystoneauth1.identity import v3
from keystoneauth1 import session as ks_session
import requests
import testtools.content

from zun_hostcap.tests import base as test_base
from zun_hostcap.tests.functional import base
from zun_hostcap.tests import role_matrix

TOOLS = base.TOOLS
PLACEMENT_VERSION = 'placement 1.39'
CONTAINER_VERSION = 'container 1.40'
# Seconds for one configuration: Keystone, two servers, about 530
# requests, on a loaded 2-core machine (about 100 s at a load of 20).
TIME_OUT = 300
# The keystone_peer user each persona's token is made for.
PERSONA_USERS = {
    'system_admin': 'admin',
    'project_admin': 'admin',
    'member': 'member',
    'reader': 'reader',
    'service': 'service',
    'norole': 'norole',
    'other_project': 'other',
}


class World(object):
    """The data one persona's requests act on, the same on both servers.

    Names and uuids are the persona's own, so that what one persona's
    requests change leaves the others' as they were.
    """

    def __init__(self, persona, project_id):
        self.tag = persona.upper()
        self.project_id = project_id
        self.user_id = str(uuid.uuid4())
        for name in ('rp', 'rp_spare', 'rp_empty_inv', 'rp_delete',
                     'rp_reshape', 'rp_new', 'aggregate', 'aggregate_new',
                     'consumer_keep', 'consumer_delete', 'consumer_post',
                     'consumer_put'):
            setattr(self, name, str(uuid.uuid4()))

    def custom(self, what):
        return 'CUSTOM_RM_%s_%s' % (self.tag, what)

    def allocation(self, provider):
        return {'allocations': {provider: {'resources': {'VCPU': 1}}},
                'project_id': self.project_id, 'user_id': self.user_id,
                'consumer_generation': None, 'consumer_type': 'INSTANCE'}


class PlacementClient(object):
    """Requests to one /placement, with one persistent HTTP session."""

    def __init__(self, url, http):
        self.url = url.rstrip('/')
        self.http = http

    def request(self, method, path, token, body=None, params=None):
        headers = {'OpenStack-API-Version': PLACEMENT_VERSION,
                   'Accept': 'application/json', 'X-Auth-Token': token}
        return self.http.request(method, self.url + path, json=body,
                                 params=params, headers=headers, timeout=30)

    def setup(self, token, method, path, body=None):
        """A request that builds the data; it must succeed."""
        resp = self.request(method, path, token, body)
        if not 200 <= resp.status_code < 300:
            raise AssertionError('%s %s%s: %s %s' % (
                method, self.url, path, resp.status_code, resp.text))
        return resp

    def generation(self, token, provider):
        return self.setup(token, 'GET', '/resource_providers/%s'
                          % provider).json()['generation']


def build_world(client, token, world):
    """Make ``world`` on ``client``'s server, as the project admin."""
    def setup(method, path, body=None):
        return client.setup(token, method, path, body)

    for name in ('SHOW', 'DELETE'):
        setup('PUT', '/resource_classes/%s' % world.custom(name))
    for name in ('TRAIT', 'DELTRAIT'):
        setup('PUT', '/traits/%s' % world.custom(name))
    inventories = {
        world.rp: {'VCPU': {'total': 8}, 'MEMORY_MB': {'total': 1024}},
        world.rp_spare: {'DISK_GB': {'total': 100}},
        world.rp_empty_inv: {'DISK_GB': {'total': 100}},
        world.rp_reshape: {'DISK_GB': {'total': 10}},
        world.rp_delete: None,
    }
    for provider, inventory in inventories.items():
        setup('POST', '/resource_providers',
              {'uuid': provider, 'name': 'rm-%s' % provider})
        if inventory:
            setup('PUT', '/resource_providers/%s/inventories' % provider,
                  {'resource_provider_generation': 0,
                   'inventories': inventory})
    for provider in (world.rp, world.rp_spare):
        setup('PUT', '/resource_providers/%s/traits' % provider,
              {'traits': [world.custom('TRAIT')],
               'resource_provider_generation': client.generation(
                   token, provider)})
    setup('PUT', '/resource_providers/%s/aggregates' % world.rp,
          {'aggregates': [world.aggregate],
           'resource_provider_generation': client.generation(
               token, world.rp)})
    for consumer in (world.consumer_keep, world.consumer_delete):
        setup('PUT', '/allocations/%s' % consumer,
              world.allocation(world.rp))


class Generation(object):
    """A provider's generation in a body, read just before it is sent."""

    def __init__(self, provider):
        self.provider = provider


def _resolve(body, generation):
    if isinstance(body, Generation):
        return generation(body.provider)
    if isinstance(body, dict):
        return {key: _resolve(value, generation)
                for key, value in body.items()}
    return body


def placement_request(route, world, generation):
    """(path, body, query) of the matrix's request for ``route``.

    ``generation(provider)`` reads a provider's generation now, for the
    bodies that carry it. Each request, if allowed, succeeds whatever
    the requests before it did.
    """
    rp = '/resource_providers/%s' % world.rp
    allocation = world.allocation(world.rp)
    requests_of = {
        ('GET', '/'): ('/', None, None),
        ('GET', '/resource_classes'): ('/resource_classes', None, None),
        ('POST', '/resource_classes'): (
            '/resource_classes', {'name': world.custom('NEW')}, None),
        ('GET', '/resource_classes/{name}'): (
            '/resource_classes/%s' % world.custom('SHOW'), None, None),
        ('PUT', '/resource_classes/{name}'): (
            '/resource_classes/%s' % world.custom('PUT'), None, None),
        ('DELETE', '/resource_classes/{name}'): (
            '/resource_classes/%s' % world.custom('DELETE'), None, None),
        ('GET', '/resource_providers'): ('/resource_providers', None, None),
        ('POST', '/resource_providers'): (
            '/resource_providers',
            {'uuid': world.rp_new, 'name': 'rm-%s' % world.rp_new}, None),
        ('GET', '/resource_providers/{uuid}'): (rp, None, None),
        ('PUT', '/resource_providers/{uuid}'): (
            rp, {'name': 'rm-%s-renamed' % world.rp}, None),
        ('DELETE', '/resource_providers/{uuid}'): (
            '/resource_providers/%s' % world.rp_delete, None, None),
        ('GET', '/resource_providers/{uuid}/inventories'): (
            rp + '/inventories', None, None),
        ('POST', '/resource_providers/{uuid}/inventories'): (
            rp + '/inventories',
            {'resource_class': 'DISK_GB', 'total': 50,
             'resource_provider_generation': Generation(world.rp)}, None),
        ('PUT', '/resource_providers/{uuid}/inventories'): (
            rp + '/inventories',
            {'resource_provider_generation': Generation(world.rp),
             'inventories': {'VCPU': {'total': 8},
                             'MEMORY_MB': {'total': 1024},
                             'DISK_GB': {'total': 60}}}, None),
        ('DELETE', '/resource_providers/{uuid}/inventories'): (
            '/resource_providers/%s/inventories' % world.rp_empty_inv,
            None, None),
        ('GET', '/resource_providers/{uuid}/inventories/{resource_class}'): (
            rp + '/inventories/VCPU', None, None),
        ('PUT', '/resource_providers/{uuid}/inventories/{resource_class}'): (
            rp + '/inventories/MEMORY_MB',
            {'resource_provider_generation': Generation(world.rp),
             'total': 2048}, None),
        ('DELETE',
         '/resource_providers/{uuid}/inventories/{resource_class}'): (
            '/resource_providers/%s/inventories/DISK_GB' % world.rp_spare,
            None, None),
        ('GET', '/resource_providers/{uuid}/aggregates'): (
            rp + '/aggregates', None, None),
        ('PUT', '/resource_providers/{uuid}/aggregates'): (
            rp + '/aggregates',
            {'aggregates': [world.aggregate, world.aggregate_new],
             'resource_provider_generation': Generation(world.rp)}, None),
        ('GET', '/resource_providers/{uuid}/traits'): (
            rp + '/traits', None, None),
        ('PUT', '/resource_providers/{uuid}/traits'): (
            rp + '/traits',
            {'traits': [world.custom('TRAIT')],
             'resource_provider_generation': Generation(world.rp)}, None),
        ('DELETE', '/resource_providers/{uuid}/traits'): (
            '/resource_providers/%s/traits' % world.rp_spare, None, None),
        ('GET', '/resource_providers/{uuid}/allocations'): (
            rp + '/allocations', None, None),
        ('GET', '/resource_providers/{uuid}/usages'): (
            rp + '/usages', None, None),
        ('GET', '/traits'): ('/traits', None, None),
        ('GET', '/traits/{name}'): (
            '/traits/%s' % world.custom('TRAIT'), None, None),
        ('PUT', '/traits/{name}'): (
            '/traits/%s' % world.custom('NEWTRAIT'), None, None),
        ('DELETE', '/traits/{name}'): (
            '/traits/%s' % world.custom('DELTRAIT'), None, None),
        ('POST', '/allocations'): (
            '/allocations', {world.consumer_post: allocation}, None),
        ('GET', '/allocations/{consumer_uuid}'): (
            '/allocations/%s' % world.consumer_keep, None, None),
        ('PUT', '/allocations/{consumer_uuid}'): (
            '/allocations/%s' % world.consumer_put, allocation, None),
        ('DELETE', '/allocations/{consumer_uuid}'): (
            '/allocations/%s' % world.consumer_delete, None, None),
        ('GET', '/usages'): (
            '/usages', None, {'project_id': world.project_id}),
        ('GET', '/allocation_candidates'): (
            '/allocation_candidates', None, {'resources': 'VCPU:1'}),
        ('POST', '/reshaper'): (
            '/reshaper',
            {'inventories': {world.rp_reshape: {
                'resource_provider_generation': Generation(world.rp_reshape),
                'inventories': {'DISK_GB': {'total': 20}}}},
             'allocations': {}}, None),
    }
    path, body, query = requests_of[(route.method, route.path)]
    return path, _resolve(body, generation), query


def _status_table(ours, theirs, v1, seconds):
    """The statuses of every cell, as a test detail to read."""
    lines = ['%d requests in %.1f s' % (2 * len(ours) + len(v1), seconds),
             'route / persona: ours (Placement)']
    for route in role_matrix.PLACEMENT_ROUTES:
        cells = ['%s %s(%s)' % (persona, ours[(route, persona)][0],
                                theirs[(route, persona)][0])
                 for persona in role_matrix.PERSONA_NAMES]
        lines.append('%s %s: %s' % (route.method, route.path,
                                    ' '.join(cells)))
    for route in role_matrix.V1_ROUTES:
        cells = ['%s %s' % (persona, v1[(route, persona)][0])
                 for persona in role_matrix.PERSONA_NAMES]
        lines.append('%s %s: %s' % (route.method, route.path,
                                    ' '.join(cells)))
    return '\n'.join(lines) + '\n'


class TestRoleMatrix(test_base.TestCase):
    """Each configuration of [oslo_policy], every route, every persona."""

    def setUp(self):
        super().setUp()
        time_out = int(os.environ.get('OS_TEST_TIMEOUT') or 0)
        if time_out:
            self.useFixture(fixtures.Timeout(max(time_out, TIME_OUT),
                                             gentle=True))
        placement_peer = base.tool_module('placement_peer')
        self.placement_python = placement_peer.installed_python()
        base.require(self, self.placement_python is not None,
                     'openstack-placement is not installed (run '
                     'tools/placement_peer.py install)')
        keystone_peer = base.tool_module('keystone_peer')
        base.require(self, keystone_peer.installed_python() is not None,
                     'keystone is not installed (run '
                     'tools/keystone_peer.py install)')
        self.tmp = self.useFixture(fixtures.TempDir()).path
        self.api_port = base.free_port()
        self.keystone = self.useFixture(keystone_peer.KeystonePeer(
            os.path.join(self.tmp, 'keystone'),
            'http://127.0.0.1:%d' % self.api_port))
        self.http = requests.Session()
        self.addCleanup(self.http.close)
        self.tokens = self._tokens()

    def _tokens(self):
        """A token of each persona, and the project the matrix asks about."""
        users = self.keystone.users
        tokens = {}
        for persona, user in PERSONA_USERS.items():
            entry = users[user]
            scope = {}
            if persona == 'system_admin':
                scope = {'system_scope': 'all'}
            elif persona == 'norole':
                # No role on any project: Keystone gives it no scoped token.
                scope = {'unscoped': True}
            else:
                scope = {'project_name': entry['project_name'],
                         'project_domain_name': entry['project_domain_name']}
            unscoped = scope.pop('unscoped', False)
            auth = v3.Password(auth_url=self.keystone.auth_url,
                               username=entry['username'],
                               password=entry['password'],
                               user_domain_name=entry['user_domain_name'],
                               unscoped=unscoped, **scope)
            session = ks_session.Session(auth=auth)
            tokens[persona] = session.get_token()
            if persona == 'member':
                self.project_id = session.get_project_id()
        return tokens

    def _authtoken(self):
        service = self.keystone.users['service']
        return {
            'www_authenticate_uri': self.keystone.auth_url,
            'auth_url': self.keystone.auth_url,
            'auth_type': 'password',
            'username': service['username'],
            'password': service['password'],
            'user_domain_name': service['user_domain_name'],
            'project_name': service['project_name'],
            'project_domain_name': service['project_domain_name'],
        }

    def _start_servers(self, configuration):
        """(our base URL, Placement's URL), behind Keystone."""
        flag = str(role_matrix.CONFIGURATIONS[configuration])
        policy_options = {'enforce_new_defaults': flag,
                          'enforce_scope': flag}
        tmp = os.path.join(self.tmp, configuration)
        os.makedirs(tmp)
        ours = os.path.join(tmp, 'ours')
        os.makedirs(ours)
        port = base.free_port()
        config = base.write_config(os.path.join(ours, 'api.conf'), {
            'DEFAULT': {'state_path': ours},
            'api': {'host': '127.0.0.1', 'port': port, 'workers': 1,
                    'auth_strategy': 'keystone'},
            'keystone_authtoken': self._authtoken(),
            'oslo_policy': dict(policy_options, policy_file=os.path.join(
                ours, 'policy.yaml')),
        })
        subprocess.run(base.console_script('zun-hostcap-db-manage') +
                       ['--config-file', config, 'upgrade'],
                       check=True, capture_output=True)
        api = self.useFixture(base.ServiceProcess('zun-hostcap-api', config,
                                                  ours))
        our_url = 'http://127.0.0.1:%d' % port

        theirs = os.path.join(tmp, 'placement')
        os.makedirs(theirs)
        placement_port = base.free_port()
        options = ['api.auth_strategy=keystone']
        options += ['keystone_authtoken.%s=%s' % item
                    for item in self._authtoken().items()]
        options += ['oslo_policy.%s=%s' % item
                    for item in policy_options.items()]
        command = [sys.executable, os.path.join(TOOLS, 'placement_peer.py'),
                   'serve', '--port', str(placement_port), '--state-dir',
                   theirs]
        for option in options:
            command += ['--option', option]
        peer = self.useFixture(base.Process(
            'placement', command, os.path.join(theirs, 'placement.log')))
        placement_url = 'http://127.0.0.1:%d' % placement_port
        base.wait_until_serving(self, api, our_url + '/')
        base.wait_until_serving(self, peer, placement_url + '/', timeout=60)
        return our_url, placement_url

    def _placement_statuses(self, client, configuration):
        """{(route, persona): status} of every /placement request."""
        admin = self.tokens['project_admin']
        statuses = {}
        for persona in role_matrix.PERSONA_NAMES:
            world = World('%s_%s' % (configuration, persona),
                          self.project_id)
            build_world(client, admin, world)
            for route in role_matrix.PLACEMENT_ROUTES:
                path, body, query = placement_request(
                    route, world,
                    lambda provider: client.generation(admin, provider))
                resp = client.request(route.method, path,
                                      self.tokens[persona], body, query)
                statuses[(route, persona)] = (resp.status_code, resp.text)
        return statuses

    def _v1_statuses(self, url):
        statuses = {}
        paths = {'/v1/hosts/{host_ident}': '/v1/hosts/%s' % uuid.uuid4()}
        for route in role_matrix.V1_ROUTES:
            for persona in role_matrix.PERSONA_NAMES:
                resp = self.http.get(
                    url + paths.get(route.path, route.path),
                    headers={'OpenStack-API-Version': CONTAINER_VERSION,
                             'X-Auth-Token': self.tokens[persona]},
                    timeout=30)
                statuses[(route, persona)] = (resp.status_code, resp.text)
        return statuses

    def _check(self, configuration):
        our_url, placement_url = self._start_servers(configuration)
        started = time.monotonic()
        # One thread and one HTTP session per server: both at once.
        with futures.ThreadPoolExecutor(2) as pool:
            sessions = [requests.Session(), requests.Session()]
            for http in sessions:
                self.addCleanup(http.close)
            ours, theirs = pool.map(
                self._placement_statuses,
                [PlacementClient(our_url + '/placement', sessions[0]),
                 PlacementClient(placement_url, sessions[1])],
                [configuration] * 2)
        v1 = self._v1_statuses(our_url)
        self.addDetail('role-matrix', testtools.content.text_content(
            _status_table(ours, theirs, v1, time.monotonic() - started)))
        failures = []
        for route in role_matrix.PLACEMENT_ROUTES:
            for persona in role_matrix.PERSONA_NAMES:
                cell = '%s %s as %s' % (route.method, route.path, persona)
                status, text = ours[(route, persona)]
                their_status, their_text = theirs[(route, persona)]
                reference = role_matrix.reference(route, persona,
                                                  configuration)
                if role_matrix.decision_of(their_status) != reference:
                    failures.append('%s: Placement %s, the matrix says %s '
                                    '(%s)' % (cell, their_status, reference,
                                              their_text[:200]))
                elif reference == role_matrix.ALLOWED and \
                        not 200 <= their_status < 300:
                    # The data of the request is wrong: an allowed
                    # request is meant to succeed.
                    failures.append('%s: Placement %s, not a success (%s)'
                                    % (cell, their_status, their_text[:200]))
                listed = (route.method, route.path, persona,
                          configuration) in role_matrix.DIFFERENCES
                if listed:
                    want = role_matrix.expected(route, persona,
                                                configuration)
                    if role_matrix.decision_of(status) != want:
                        failures.append('%s: %s, listed as %s' % (
                            cell, status, want))
                elif status != their_status:
                    failures.append('%s: ours %s (%s), Placement %s (%s)' % (
                        cell, status, text[:200], their_status,
                        their_text[:200]))
        for (route, persona), (status, text) in v1.items():
            want = role_matrix.expected(route, persona, configuration)
            if role_matrix.decision_of(status) != want:
                failures.append('%s %s as %s: %s (%s), expected %s' % (
                    route.method, route.path, persona, status, text[:200],
                    want))
        if failures:
            self.fail('%d cells of the role matrix (%s) differ:\n%s' % (
                len(failures), configuration, '\n'.join(failures)))

    def test_new_defaults(self):
        self._check(role_matrix.NEW)

    def test_legacy_defaults(self):
        self._check(role_matrix.LEGACY)
