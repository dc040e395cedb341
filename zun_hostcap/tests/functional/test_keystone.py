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

"""zun-hostcap behind a real Keystone, found through its catalog.

Keystone 30 from PyPI (``tools/keystone_peer.py``, SQLite) issues the
tokens; zun-hostcap-all runs with ``[api] auth_strategy = keystone``,
keystonemiddleware validating them against it, and its compute side
reports this host to ``/placement`` as the service user, through the
catalog. The clients get no endpoint: only the auth URL, a user and a
project, as a user of a Keystone-backed cloud gives them.

Each class has one Keystone and one zun-hostcap-all, set up once for its
tests (about a minute on a loaded machine): the tests of a class run on
one worker (``group_regex`` in .stestr.conf).
"""

import json
import os
import subprocess
import time
import unittest

import fixtures
from openstack import connection
from oslotest import base
from testtools import content as testtools_content

from zun_hostcap.tests.functional import base as functional_base
from zun_hostcap.tests.functional import test_placement_clients
from zun_hostcap.tests.functional import test_zunclient

keystone_peer = functional_base.tool_module('keystone_peer')

ADMIN_HEADERS = {'Accept': 'application/json',
                 'OpenStack-API-Version': 'container 1.40'}


class KeystoneCloud(fixtures.Fixture):
    """Keystone, and zun-hostcap-all behind it, listed in its catalog.

    The service user (the ``service`` role on the service project)
    validates tokens for the API (``[keystone_authtoken]``) and reports
    the host to ``/placement`` (``[placement]``, password auth, no
    endpoint: the catalog's). ``token_cache_time``: keystonemiddleware's
    (its default is 300 s).
    """

    def __init__(self, token_cache_time=None):
        super().__init__()
        self.token_cache_time = token_cache_time

    def _setUp(self):
        self.tmp = self.useFixture(fixtures.TempDir()).path
        port = functional_base.free_port()
        self.url = 'http://127.0.0.1:%d' % port
        self.keystone = self.useFixture(keystone_peer.KeystonePeer(
            os.path.join(self.tmp, 'keystone'), self.url))
        self.users = self.keystone.users
        service = self.users['service']
        credentials = {
            'auth_type': 'password',
            'auth_url': self.keystone.auth_url,
            'username': service['username'],
            'password': service['password'],
            'project_name': service['project_name'],
            'user_domain_name': service['user_domain_name'],
            'project_domain_name': service['project_domain_name'],
        }
        authtoken = dict(credentials,
                         www_authenticate_uri=self.keystone.auth_url)
        if self.token_cache_time is not None:
            authtoken['token_cache_time'] = self.token_cache_time
        # One resource update, at start: the row stays as the clients
        # read it.
        config = functional_base.write_config(
            os.path.join(self.tmp, 'zun-hostcap.conf'), {
                'DEFAULT': {'state_path': self.tmp},
                'api': {'port': port, 'auth_strategy': 'keystone'},
                'compute': {'resource_update_interval': 3600},
                'keystone_authtoken': authtoken,
                'placement': dict(credentials,
                                  region_name=keystone_peer.REGION),
            })
        self.service = self.useFixture(functional_base.ServiceProcess(
            'zun-hostcap-all', config, self.tmp))
        functional_base.wait_until_serving(self, self.service,
                                           self.url + '/', timeout=60)
        self.node = functional_base.wait_for(
            self._node_row, timeout=30, message='this host in the database',
            processes=(self.service,))

    def _node_row(self):
        self.service.assert_running(self)
        rows = functional_base.sqlite_rows(
            os.path.join(self.tmp, 'zun-hostcap.sqlite'),
            'SELECT * FROM compute_nodes')
        return rows[0] if rows else None

    def fail(self, message):
        # For ServiceProcess.assert_running, outside a test.
        raise AssertionError(message)

    def token(self, persona='admin'):
        """A new token of ``persona``, project-scoped."""
        return self.keystone.session(persona).get_token()

    def openstack(self, persona, *args):
        """``openstack args`` as ``persona``, with a password, no endpoint.

        :returns: the CompletedProcess.
        """
        user = self.users[persona]
        env = {name: value for name, value in os.environ.items()
               if not name.startswith('OS_')}
        env['HOME'] = self.tmp
        return subprocess.run(
            functional_base.console_script('openstack') +
            ['--os-auth-url', self.keystone.auth_url,
             '--os-identity-api-version', '3',
             '--os-username', user['username'],
             '--os-password', user['password'],
             '--os-project-name', user['project_name'],
             '--os-user-domain-name', user['user_domain_name'],
             '--os-project-domain-name', user['project_domain_name']] +
            list(args), capture_output=True, text=True, env=env, timeout=120)


def _set_up_cloud(**kwargs):
    """The class's KeystoneCloud; skip (fail in CI) without Keystone."""
    if keystone_peer.installed_python() is None:
        message = ('keystone is not installed (run %s install)' %
                   os.path.join(functional_base.TOOLS, 'keystone_peer.py'))
        if functional_base.CI:
            raise AssertionError(message)
        raise unittest.SkipTest(message)
    cloud = KeystoneCloud(**kwargs)
    cloud.setUp()
    return cloud


class TestThroughTheCatalog(base.BaseTestCase):
    """Clients with a password and no endpoint; a compute as a service."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.cloud = _set_up_cloud()

    @classmethod
    def tearDownClass(cls):
        cls.cloud.cleanUp()
        super().tearDownClass()

    def setUp(self):
        super().setUp()
        self.cloud.service.assert_running(self)
        self.node = self.cloud.node

    def _run(self, persona, *args):
        result = self.cloud.openstack(persona, *args + ('-f', 'json'))
        self.assertEqual(0, result.returncode, result.stderr)
        self.assertNotIn('Traceback', result.stderr)
        return json.loads(result.stdout)

    def test_appcontainer_host_list_and_show(self):
        listed = self._run('admin', 'appcontainer', 'host', 'list')
        self.assertEqual([{column: self.node[column]
                           for column in test_zunclient.LIST_COLUMNS}],
                         listed)
        shown = self._run('admin', 'appcontainer', 'host', 'show',
                          self.node['hostname'])
        for name in test_zunclient.SCALAR_FIELDS:
            self.assertEqual(self.node[name], shown[name], name)

    def test_resource_provider_list(self):
        listed = self._run('admin', 'resource', 'provider', 'list')
        self.assertEqual([(self.node['uuid'], self.node['hostname'])],
                         [(rp['uuid'], rp['name']) for rp in listed])

    def test_allocation_candidate_list(self):
        listed = self._run('admin', 'allocation', 'candidate', 'list',
                           '--resource', 'VCPU=1',
                           '--resource', 'MEMORY_MB=1')
        self.assertEqual({self.node['uuid']},
                         {row['resource provider'] for row in listed})

    def test_openstacksdk_placement_proxy(self):
        user = self.cloud.users['admin']
        conn = connection.Connection(
            auth_url=self.cloud.keystone.auth_url,
            region_name=keystone_peer.REGION, **user)
        self.addCleanup(conn.close)
        providers = list(conn.placement.resource_providers())
        self.assertEqual([(self.node['uuid'], self.node['hostname'])],
                         [(rp.id, rp.name) for rp in providers])
        # Found through the catalog, not given.
        self.assertEqual(self.cloud.url + '/placement',
                         conn.placement.get_endpoint().rstrip('/'))

    def test_compute_reports_as_the_service_user(self):
        # Written by the service user, read as the admin.
        session = self.cloud.keystone.session('admin')

        def placement_get(path):
            response = session.get(
                path, endpoint_filter={'service_type': 'placement'},
                headers={'OpenStack-API-Version': 'placement 1.39'},
                raise_exc=False)
            return response.json() if response.status_code == 200 else None

        provider = functional_base.wait_for(
            lambda: self._reported(placement_get, self.node['uuid']),
            timeout=30, message="this host's provider in /placement",
            processes=(self.cloud.service,))
        self.assertEqual(self.node['hostname'], provider['name'])
        self.assertEqual(self.node['cpus'],
                         provider['inventories']['VCPU']['total'])
        self.assertEqual(self.node['mem_total'],
                         provider['inventories']['MEMORY_MB']['total'])
        log = self.cloud.service.log()
        self.assertNotIn('Not reporting to Placement', log)
        self.assertNotIn('Traceback', log)

        # The same host reported by zun-hostcap-all with noauth2: the same
        # provider, but for its uuid (each database makes its own).
        noauth = self.useFixture(
            test_placement_clients.PlacementServer(self))

        def noauth_get(path):
            status, _headers, body = functional_base.http_get(
                noauth.endpoint + path, headers={
                    'X-Auth-Token': 'admin',
                    'OpenStack-API-Version': 'placement 1.39'})
            return json.loads(body) if status == 200 else None

        node = functional_base.wait_for(
            lambda: (noauth_get('/resource_providers') or
                     {}).get('resource_providers'),
            timeout=30, message='the noauth2 provider',
            processes=(noauth.service,))[0]
        # A report writes the inventory, then the traits: both hosts are
        # read again until they agree, or the time is up and the
        # difference shows.
        deadline = time.monotonic() + 30
        while True:
            expected = self._reported(noauth_get, node['uuid'])
            provider = self._reported(placement_get, self.node['uuid'])
            if ((expected is not None and expected == provider) or
                    time.monotonic() > deadline):
                break
            time.sleep(0.5)
        self.assertEqual(expected, provider)

    @staticmethod
    def _reported(get, uuid):
        """Provider ``uuid``'s name, inventories and traits; or None.

        None until it has an inventory.
        """
        inventories = (get('/resource_providers/%s/inventories' % uuid) or
                       {}).get('inventories')
        if not inventories:
            return None
        return {
            'name': get('/resource_providers/%s' % uuid)['name'],
            'inventories': inventories,
            'traits': sorted(get('/resource_providers/%s/traits' %
                                 uuid)['traits']),
        }


class TestTokenLife(base.BaseTestCase):
    """Expiry, revocation and a Keystone that goes away and comes back.

    keystonemiddleware keeps a token it validated for
    ``token_cache_time`` (300 s by default), set short here.
    """

    CACHE_TIME = 10

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.cloud = _set_up_cloud(token_cache_time=cls.CACHE_TIME)

    @classmethod
    def tearDownClass(cls):
        cls.cloud.cleanUp()
        super().tearDownClass()

    def setUp(self):
        super().setUp()
        self.keystone = self.cloud.keystone
        # Whatever a test did to Keystone, the next finds it serving.
        self.addCleanup(self._keystone_serving)
        self.cloud.service.assert_running(self)

    def _keystone_serving(self):
        if not self.keystone.running():
            self.keystone.start()

    def _get(self, token):
        """(status, JSON body) of GET /v1/hosts with ``token``."""
        headers = dict(ADMIN_HEADERS, **{'X-Auth-Token': token})
        status, _headers, body = functional_base.http_get(
            self.cloud.url + '/v1/hosts', headers=headers, timeout=60)
        return status, json.loads(body) if body else None

    def _wait_for_status(self, token, status, timeout):
        """Seconds until ``token`` gets ``status``; fails after timeout."""
        started = time.monotonic()
        functional_base.wait_for(
            lambda: self._get(token)[0] == status, timeout, interval=0.5,
            message='HTTP %d' % status, processes=(self.cloud.service,))
        return time.monotonic() - started

    def test_expired_token(self):
        # Keystone's tokens live an hour: served again for a moment with
        # tokens of two seconds, it gives one that soon expires.
        self.keystone.stop()
        keystone_peer.write_config(self.keystone.state_dir,
                                   token_expiration=2)
        self.keystone.start()
        token = self.cloud.token()
        self.keystone.stop()
        keystone_peer.write_config(self.keystone.state_dir)
        self.keystone.start()
        self._wait_for_status(token, 401, 30)
        status, body = self._get(token)
        self.assertEqual(401, body['errors'][0]['status'], body)
        self.assertEqual(200, self._get(self.cloud.token())[0])

    def test_revoked_token(self):
        token = self.cloud.token('member')
        # Validated once and kept by keystonemiddleware.
        self.assertEqual(403, self._get(token)[0])
        validated = time.monotonic()
        revoked = self.cloud.openstack('member', 'token', 'revoke', token)
        self.assertEqual(0, revoked.returncode, revoked.stderr)
        self._wait_for_status(token, 401, self.CACHE_TIME + 30)
        # Refused once the cache time is over, at the latest (a poll and
        # a validation later).
        seconds = time.monotonic() - validated
        self.addDetail('seconds-from-validation-to-401',
                       testtools_content.text_content('%.1f' % seconds))
        self.assertLess(seconds, self.CACHE_TIME + 5)

    def test_keystone_stopped_and_back(self):
        cached = self.cloud.token()
        new = self.cloud.token()
        self.assertEqual(200, self._get(cached)[0])
        validated = time.monotonic()
        log_start = self.cloud.service.log_size()
        self.keystone.stop()

        # The token keystonemiddleware validated works while it keeps it.
        status, body = self._get(cached)
        self.assertLess(time.monotonic() - validated, self.CACHE_TIME)
        self.assertEqual(200, status, body)
        # A token it never saw cannot be validated: 503, in our JSON.
        status, body = self._get(new)
        self.assertEqual(503, status, body)
        self.assertEqual(503, body['errors'][0]['status'])
        # Once the cache time is over, the cached one cannot either.
        self._wait_for_status(cached, 503, self.CACHE_TIME + 30)
        log = self.cloud.service.log(log_start)
        self.assertNotIn('Traceback', log)
        self.assertNotIn(' ERROR ', log)

        # Keystone back, and the same API process serves again.
        self.keystone.start()
        self.assertEqual(200, self._get(self.cloud.token())[0])
        self.assertEqual(200, self._get(new)[0])
        self.cloud.service.assert_running(self)
