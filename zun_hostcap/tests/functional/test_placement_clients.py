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

"""Placement's clients, unmodified, against a live zun-hostcap-all.

``openstack`` with osc-placement, as a user runs it without keystone
(the admin_token auth type and an endpoint), and openstacksdk's
placement proxy, the same way. With noauth2 the admin_token plugin's
``X-Auth-Token: admin`` is the admin user. Each command's output is
checked against what Placement documents for it, at the latest
microversion and at some older ones.
"""

import json
import os
import subprocess
import urllib.request
import uuid

import fixtures
from openstack import connection
from openstack import exceptions as sdk_exceptions
from oslotest import base

from zun_hostcap.tests.functional import base as functional_base

LATEST = '1.39'
# The inventory fields osc-placement shows, and Placement's defaults.
INVENTORY_DEFAULTS = {'allocation_ratio': 1.0, 'min_unit': 1,
                      'max_unit': 2147483647, 'reserved': 0,
                      'step_size': 1}
PROVIDER_FIELDS = ('uuid', 'name', 'generation', 'root_provider_uuid',
                   'parent_provider_uuid')


def _uuid():
    return str(uuid.uuid4())


class PlacementServer(fixtures.Fixture):
    """zun-hostcap-all with its defaults: SQLite, noauth2.

    On a port of its own; ready once /placement answers.
    """

    def __init__(self, test):
        super().__init__()
        self.test = test

    def _setUp(self):
        self.tmp = self.useFixture(fixtures.TempDir()).path
        port = functional_base.free_port()
        # One resource update, at start.
        config = functional_base.write_config(
            os.path.join(self.tmp, 'zun-hostcap.conf'),
            {'DEFAULT': {'state_path': self.tmp},
             'api': {'port': port},
             'compute': {'resource_update_interval': 3600}})
        self.service = self.useFixture(functional_base.ServiceProcess(
            'zun-hostcap-all', config, self.tmp))
        self.endpoint = 'http://127.0.0.1:%d/placement' % port
        functional_base.wait_for(self._serving, timeout=30,
                                 message='zun-hostcap-all to serve '
                                         '/placement',
                                 processes=(self.service,))

    def _serving(self):
        self.service.assert_running(self.test)
        try:
            with urllib.request.urlopen(self.endpoint, timeout=2) as resp:
                return resp.status == 200
        except OSError:
            return False


class CLIError(Exception):
    def __init__(self, result):
        super().__init__('exit status %d: %s' % (result.returncode,
                                                 result.stderr))
        self.result = result


class TestOpenStackClient(base.BaseTestCase):
    """osc-placement's commands, as documented."""

    def setUp(self):
        super().setUp()
        self.server = self.useFixture(PlacementServer(self))

    def openstack(self, *args, version=LATEST, token='admin',
                  output=True):
        """Run ``openstack ... args``; its JSON output.

        ``output=False`` for the commands that print nothing. Raises
        ``CLIError`` on a non-zero exit status.
        """
        env = {name: value for name, value in os.environ.items()
               if not name.startswith('OS_')}
        env['HOME'] = self.server.tmp
        command = functional_base.console_script('openstack') + [
            '--os-auth-type', 'admin_token', '--os-token', token,
            '--os-endpoint', self.server.endpoint]
        if version:
            command += ['--os-placement-api-version', version]
        command += list(args)
        if output:
            command += ['-f', 'json']
        result = subprocess.run(command, capture_output=True, text=True,
                                env=env, timeout=60)
        if result.returncode:
            raise CLIError(result)
        self.assertNotIn('Traceback', result.stderr)
        return json.loads(result.stdout) if output else result.stdout

    def assert_fails(self, status, *args, **kwargs):
        """The command fails with HTTP ``status``; its stderr."""
        err = self.assertRaises(CLIError, self.openstack, *args, **kwargs)
        self.assertEqual(1, err.result.returncode)
        self.assertIn('HTTP %d' % status, err.result.stderr)
        self.assertNotIn('Traceback', err.result.stderr)
        return err.result.stderr

    def provider(self, name=None, version=LATEST, **options):
        args = ['resource', 'provider', 'create', name or 'rp-' + _uuid()]
        for option, value in options.items():
            args += ['--' + option.replace('_', '-'), value]
        return self.openstack(*args, version=version)

    # Resource classes

    def test_resource_classes(self):
        name = 'CUSTOM_GOLD_%s' % uuid.uuid4().hex[:8].upper()
        self.openstack('resource', 'class', 'create', name, output=False)
        listed = self.openstack('resource', 'class', 'list')
        names = [row['name'] for row in listed]
        self.assertIn(name, names)
        # The standard classes are there from the start.
        for standard in ('VCPU', 'MEMORY_MB', 'DISK_GB'):
            self.assertIn(standard, names)
        self.assertEqual([{'name': name}], [row for row in listed
                                            if row['name'] == name])
        self.assertEqual({'name': name}, self.openstack(
            'resource', 'class', 'show', name))
        # A second create is a conflict; set (1.7) is idempotent.
        self.assert_fails(409, 'resource', 'class', 'create', name,
                          output=False)
        other = name + '_SET'
        for _ in range(2):
            self.openstack('resource', 'class', 'set', other, output=False)
        self.assertEqual({'name': other}, self.openstack(
            'resource', 'class', 'show', other))
        # Only custom classes can be made.
        self.assert_fails(400, 'resource', 'class', 'create', 'GOLD',
                          output=False)
        self.openstack('resource', 'class', 'delete', name, output=False)
        self.assert_fails(404, 'resource', 'class', 'show', name)
        self.assert_fails(404, 'resource', 'class', 'delete', name,
                          output=False)

    # Resource providers

    def test_resource_providers(self):
        parent_name = 'parent-' + _uuid()
        parent = self.provider(parent_name)
        self.assertEqual(set(PROVIDER_FIELDS), set(parent))
        self.assertEqual(parent_name, parent['name'])
        self.assertEqual(0, parent['generation'])
        self.assertEqual(parent['uuid'], parent['root_provider_uuid'])
        self.assertIsNone(parent['parent_provider_uuid'])

        child_uuid = _uuid()
        child = self.provider('child-' + child_uuid, uuid=child_uuid,
                              parent_provider=parent['uuid'])
        self.assertEqual({'uuid': child_uuid,
                          'name': 'child-' + child_uuid,
                          'generation': 0,
                          'root_provider_uuid': parent['uuid'],
                          'parent_provider_uuid': parent['uuid']}, child)
        self.assertEqual(child, self.openstack(
            'resource', 'provider', 'show', child_uuid))

        other = self.provider()
        listed = self.openstack('resource', 'provider', 'list')
        by_uuid = {row['uuid']: row for row in listed}
        for provider in (parent, child, other):
            self.assertEqual(provider, by_uuid[provider['uuid']])

        self.assertEqual([parent], self.openstack(
            'resource', 'provider', 'list', '--name', parent_name))
        self.assertEqual([child], self.openstack(
            'resource', 'provider', 'list', '--uuid', child_uuid))
        self.assertEqual(
            sorted([parent['uuid'], child_uuid]),
            sorted(row['uuid'] for row in self.openstack(
                'resource', 'provider', 'list', '--in-tree', child_uuid)))
        self.assertEqual([], self.openstack(
            'resource', 'provider', 'list', '--name', 'nobody-' + _uuid()))

        renamed = self.openstack('resource', 'provider', 'set', child_uuid,
                                 '--name', 'renamed-' + child_uuid)
        self.assertEqual('renamed-' + child_uuid, renamed['name'])
        self.assertEqual(parent['uuid'], renamed['parent_provider_uuid'])
        self.assertEqual(renamed, self.openstack(
            'resource', 'provider', 'show', child_uuid))

        # A provider without a parent may get one (1.14).
        adopted = self.openstack(
            'resource', 'provider', 'set', other['uuid'], '--name',
            other['name'], '--parent-provider', parent['uuid'])
        self.assertEqual(parent['uuid'], adopted['parent_provider_uuid'])
        self.assertEqual(parent['uuid'], adopted['root_provider_uuid'])

        # Names are unique.
        self.assert_fails(409, 'resource', 'provider', 'create',
                          parent_name)
        # A parent goes after its children.
        self.assert_fails(409, 'resource', 'provider', 'delete',
                          parent['uuid'], output=False)
        for provider in (child, other, parent):
            self.openstack('resource', 'provider', 'delete',
                           provider['uuid'], output=False)
            self.assert_fails(404, 'resource', 'provider', 'show',
                              provider['uuid'])
        self.assert_fails(404, 'resource', 'provider', 'delete',
                          parent['uuid'], output=False)

    def test_errors_name_the_problem(self):
        # osc-placement shows the last line of an error's detail, which
        # is the message in Placement's form of it (not jsonschema's
        # last line, the bare value).
        stderr = self.assert_fails(400, 'resource', 'provider', 'create',
                                   'efg', '--uuid', 'efg')
        self.assertIn("JSON does not validate: 'efg' is not a 'uuid'",
                      stderr)
        stderr = self.assert_fails(404, 'resource', 'provider', 'show',
                                   'efg')
        self.assertIn('No resource provider with uuid efg found', stderr)

    def test_resource_providers_at_older_microversions(self):
        # 1.0: no tree fields.
        old = self.provider(version='1.0')
        self.assertEqual({'uuid', 'name', 'generation'}, set(old))
        self.assertEqual(old, self.openstack(
            'resource', 'provider', 'show', old['uuid'], version='1.0'))
        listed = self.openstack('resource', 'provider', 'list',
                                version='1.0')
        self.assertIn(old, listed)
        self.assertEqual({'uuid', 'name', 'generation'},
                         set(listed[0]))
        # 1.14: trees.
        parent = self.provider(version='1.14')
        child = self.provider(version='1.14', parent_provider=parent['uuid'])
        self.assertEqual(parent['uuid'], child['root_provider_uuid'])
        self.assertEqual(
            sorted([parent['uuid'], child['uuid']]),
            sorted(row['uuid'] for row in self.openstack(
                'resource', 'provider', 'list', '--in-tree', child['uuid'],
                version='1.14')))
        # The version osc-placement negotiates when given none.
        self.assertIn(old['uuid'], [
            row['uuid'] for row in self.openstack(
                'resource', 'provider', 'list', version=None)])

    # Inventories

    def test_inventories(self):
        rp = self.provider()
        shown = self.openstack(
            'resource', 'provider', 'inventory', 'set', rp['uuid'],
            '--resource', 'VCPU=8', '--resource', 'VCPU:allocation_ratio=16',
            '--resource', 'MEMORY_MB=4096',
            '--resource', 'MEMORY_MB:reserved=512',
            '--resource', 'MEMORY_MB:step_size=256',
            '--resource', 'MEMORY_MB:max_unit=2048')
        vcpu = dict(INVENTORY_DEFAULTS, resource_class='VCPU', total=8,
                    allocation_ratio=16.0)
        memory = dict(INVENTORY_DEFAULTS, resource_class='MEMORY_MB',
                      total=4096, reserved=512, step_size=256,
                      max_unit=2048)
        self.assertEqual(_by_class([vcpu, memory]), _by_class(shown))
        listed = self.openstack('resource', 'provider', 'inventory',
                                'list', rp['uuid'])
        self.assertEqual(_by_class([dict(vcpu, used=0),
                                    dict(memory, used=0)]),
                         _by_class(listed))
        self.assertEqual(dict(vcpu, used=0), dict(
            self.openstack('resource', 'provider', 'inventory', 'show',
                           rp['uuid'], 'VCPU'), resource_class='VCPU'))

        # --amend keeps what is there.
        amended = self.openstack(
            'resource', 'provider', 'inventory', 'set', rp['uuid'],
            '--amend', '--resource', 'DISK_GB=100')
        disk = dict(INVENTORY_DEFAULTS, resource_class='DISK_GB', total=100)
        self.assertEqual(_by_class([vcpu, memory, disk]), _by_class(amended))
        # One class alone, the others as they are.
        one = self.openstack('resource', 'provider', 'inventory', 'class',
                             'set', rp['uuid'], 'DISK_GB', '--total', '200')
        self.assertEqual(200, one['total'])
        self.assertEqual(3, self.openstack(
            'resource', 'provider', 'show', rp['uuid'])['generation'])

        # Unknown class, bad values.
        self.assert_fails(400, 'resource', 'provider', 'inventory', 'set',
                          rp['uuid'], '--resource', 'CUSTOM_NOPE_X=1')
        self.assert_fails(400, 'resource', 'provider', 'inventory', 'set',
                          rp['uuid'], '--resource', 'VCPU=0')
        self.assert_fails(404, 'resource', 'provider', 'inventory', 'list',
                          _uuid())

        self.openstack('resource', 'provider', 'inventory', 'delete',
                       rp['uuid'], '--resource-class', 'DISK_GB',
                       output=False)
        self.assertEqual(['MEMORY_MB', 'VCPU'], sorted(
            row['resource_class'] for row in self.openstack(
                'resource', 'provider', 'inventory', 'list', rp['uuid'])))
        self.assert_fails(404, 'resource', 'provider', 'inventory', 'show',
                          rp['uuid'], 'DISK_GB')
        # All of them (1.5).
        self.openstack('resource', 'provider', 'inventory', 'delete',
                       rp['uuid'], output=False)
        self.assertEqual([], self.openstack(
            'resource', 'provider', 'inventory', 'list', rp['uuid']))

    # Traits

    def test_traits(self):
        rp = self.provider()
        custom = 'CUSTOM_GOLD_%s' % uuid.uuid4().hex[:8].upper()
        self.openstack('trait', 'create', custom, output=False)
        names = [row['name'] for row in self.openstack('trait', 'list')]
        self.assertIn(custom, names)
        self.assertIn('HW_CPU_X86_AVX', names)

        traits = [custom, 'HW_CPU_X86_AVX']
        shown = self.openstack('resource', 'provider', 'trait', 'set',
                               rp['uuid'], '--trait', traits[0],
                               '--trait', traits[1])
        self.assertEqual(sorted(traits), sorted(row['name']
                                                for row in shown))
        self.assertEqual(sorted(traits), sorted(
            row['name'] for row in self.openstack(
                'resource', 'provider', 'trait', 'list', rp['uuid'])))
        self.assertEqual(1, self.openstack(
            'resource', 'provider', 'show', rp['uuid'])['generation'])
        self.assertIn(custom, [row['name'] for row in self.openstack(
            'trait', 'list', '--associated')])
        self.assertEqual([rp['uuid']], [
            row['uuid'] for row in self.openstack(
                'resource', 'provider', 'list', '--required', custom)])
        self.assertNotIn(rp['uuid'], [
            row['uuid'] for row in self.openstack(
                'resource', 'provider', 'list', '--forbidden', custom)])

        # Unknown traits; a trait in use stays.
        self.assert_fails(400, 'resource', 'provider', 'trait', 'set',
                          rp['uuid'], '--trait', 'CUSTOM_NOBODY_KNOWS')
        self.assert_fails(409, 'trait', 'delete', custom, output=False)

        self.openstack('resource', 'provider', 'trait', 'delete',
                       rp['uuid'], output=False)
        self.assertEqual([], self.openstack('resource', 'provider', 'trait',
                                            'list', rp['uuid']))
        self.openstack('trait', 'delete', custom, output=False)
        self.assert_fails(404, 'trait', 'show', custom, output=False)

    # Aggregates

    def test_aggregates(self):
        rp = self.provider()
        first, second = _uuid(), _uuid()
        shown = self.openstack(
            'resource', 'provider', 'aggregate', 'set', rp['uuid'],
            '--aggregate', first, '--aggregate', second,
            '--generation', '0')
        self.assertEqual(sorted([first, second]),
                         sorted(row['uuid'] for row in shown))
        self.assertEqual(sorted([first, second]), sorted(
            row['uuid'] for row in self.openstack(
                'resource', 'provider', 'aggregate', 'list', rp['uuid'])))
        self.assertEqual([rp['uuid']], [
            row['uuid'] for row in self.openstack(
                'resource', 'provider', 'list', '--member-of', first)])
        # The generation moved on: 0 is stale now.
        self.assert_fails(409, 'resource', 'provider', 'aggregate', 'set',
                          rp['uuid'], '--aggregate', first,
                          '--generation', '0')
        # Before 1.19 the body is the list alone, with no generation.
        self.assertEqual([{'uuid': first}], self.openstack(
            'resource', 'provider', 'aggregate', 'set', rp['uuid'],
            '--aggregate', first, version='1.1'))
        self.assertEqual([{'uuid': first}], self.openstack(
            'resource', 'provider', 'aggregate', 'list', rp['uuid'],
            version='1.1'))
        generation = self.openstack('resource', 'provider', 'show',
                                    rp['uuid'])['generation']
        self.assertEqual([], self.openstack(
            'resource', 'provider', 'aggregate', 'set', rp['uuid'],
            '--generation', str(generation)))
        self.assert_fails(404, 'resource', 'provider', 'aggregate', 'list',
                          _uuid())

    # Allocations and usages

    def _compute(self):
        rp = self.provider()
        self.openstack('resource', 'provider', 'inventory', 'set',
                       rp['uuid'], '--resource', 'VCPU=8',
                       '--resource', 'MEMORY_MB=4096',
                       '--resource', 'DISK_GB=100')
        return rp

    def test_allocations_and_usages(self):
        rp = self._compute()
        consumer, project, user = _uuid(), _uuid(), _uuid()
        shown = self.openstack(
            'resource', 'provider', 'allocation', 'set', consumer,
            '--allocation', 'rp=%s,VCPU=2,MEMORY_MB=512' % rp['uuid'],
            '--project-id', project, '--user-id', user,
            '--consumer-type', 'INSTANCE')
        self.assertEqual([{'resource_provider': rp['uuid'],
                           'generation': 2,
                           'resources': {'VCPU': 2, 'MEMORY_MB': 512},
                           'project_id': project, 'user_id': user,
                           'consumer_type': 'INSTANCE'}], shown)
        self.assertEqual(shown, self.openstack(
            'resource', 'provider', 'allocation', 'show', consumer))
        with_allocations = self.openstack(
            'resource', 'provider', 'show', rp['uuid'], '--allocations')
        # With the consumer's generation from 1.28.
        self.assertEqual({consumer: {'resources': {'VCPU': 2,
                                                   'MEMORY_MB': 512},
                                     'consumer_generation': 1}},
                         with_allocations['allocations'])

        self.assertEqual({'VCPU': 2, 'MEMORY_MB': 512, 'DISK_GB': 0},
                         _usages(self.openstack(
                             'resource', 'provider', 'usage', 'show',
                             rp['uuid'])))
        # Per class up to 1.37; from 1.38 per consumer type, with a
        # count of consumers (osc shows each type as a "class").
        self.assertEqual({'VCPU': 2, 'MEMORY_MB': 512},
                         _usages(self.openstack(
                             'resource', 'usage', 'show', project,
                             version='1.37')))
        self.assertEqual({'VCPU': 2, 'MEMORY_MB': 512},
                         _usages(self.openstack(
                             'resource', 'usage', 'show', project,
                             '--user-id', user, version='1.37')))
        self.assertEqual({'INSTANCE': {'VCPU': 2, 'MEMORY_MB': 512,
                                       'consumer_count': 1}},
                         _usages(self.openstack(
                             'resource', 'usage', 'show', project)))
        self.assertEqual({}, _usages(self.openstack(
            'resource', 'usage', 'show', project, '--user-id', _uuid(),
            version='1.37')))
        self.assertEqual({'VCPU': 2, 'MEMORY_MB': 512, 'DISK_GB': 0}, {
            row['resource_class']: row['used'] for row in self.openstack(
                'resource', 'provider', 'inventory', 'list', rp['uuid'])})

        # More than there is; an unknown provider.
        self.assert_fails(
            409, 'resource', 'provider', 'allocation', 'set', _uuid(),
            '--allocation', 'rp=%s,VCPU=100' % rp['uuid'],
            '--project-id', project, '--user-id', user,
            '--consumer-type', 'INSTANCE')
        self.assert_fails(
            400, 'resource', 'provider', 'allocation', 'set', _uuid(),
            '--allocation', 'rp=%s,VCPU=1' % _uuid(),
            '--project-id', project, '--user-id', user,
            '--consumer-type', 'INSTANCE')
        # A provider with allocations stays.
        self.assert_fails(409, 'resource', 'provider', 'delete',
                          rp['uuid'], output=False)

        # unset (1.12+): one class, then the provider.
        left = self.openstack('resource', 'provider', 'allocation', 'unset',
                              consumer, '--resource-class', 'MEMORY_MB')
        self.assertEqual([{'VCPU': 2}], [row['resources'] for row in left])
        self.assertEqual([], self.openstack(
            'resource', 'provider', 'allocation', 'unset', consumer,
            '--provider', rp['uuid']))
        self.assertEqual([], self.openstack(
            'resource', 'provider', 'allocation', 'show', consumer))

        self.openstack(
            'resource', 'provider', 'allocation', 'set', consumer,
            '--allocation', 'rp=%s,DISK_GB=10' % rp['uuid'],
            '--project-id', project, '--user-id', user,
            '--consumer-type', 'MIGRATION')
        self.openstack('resource', 'provider', 'allocation', 'delete',
                       consumer, output=False)
        self.assertEqual([], self.openstack(
            'resource', 'provider', 'allocation', 'show', consumer))
        self.assert_fails(404, 'resource', 'provider', 'allocation',
                          'delete', consumer, output=False)
        self.assertEqual({}, _usages(self.openstack(
            'resource', 'usage', 'show', project)))
        self.openstack('resource', 'provider', 'delete', rp['uuid'],
                       output=False)

    def test_allocations_at_older_microversions(self):
        rp = self._compute()
        consumer = _uuid()
        # 1.0: a list of allocations, no project or user.
        shown = self.openstack(
            'resource', 'provider', 'allocation', 'set', consumer,
            '--allocation', 'rp=%s,VCPU=1' % rp['uuid'], version='1.0')
        self.assertEqual([{'resource_provider': rp['uuid'],
                           'generation': 2, 'resources': {'VCPU': 1}}],
                         shown)
        # 1.28: consumer generations; no consumer type.
        project, user = _uuid(), _uuid()
        shown = self.openstack(
            'resource', 'provider', 'allocation', 'set', consumer,
            '--allocation', 'rp=%s,VCPU=3' % rp['uuid'],
            '--project-id', project, '--user-id', user, version='1.28')
        self.assertEqual([{'resource_provider': rp['uuid'],
                           'generation': 3, 'resources': {'VCPU': 3},
                           'project_id': project, 'user_id': user}], shown)
        # Shown at 1.38, a consumer without a type is "unknown".
        self.assertEqual('unknown', self.openstack(
            'resource', 'provider', 'allocation', 'show',
            consumer)[0]['consumer_type'])
        left = self.openstack('resource', 'provider', 'allocation', 'unset',
                              consumer, version='1.28')
        self.assertEqual([], left)
        # Usages need 1.9.
        self.assertEqual({}, _usages(self.openstack(
            'resource', 'usage', 'show', project, version='1.9')))


def _by_class(rows):
    return {row['resource_class']: row for row in rows}


def _usages(rows):
    return {row['resource_class']: row['usage'] for row in rows}


class TestOpenStackSDK(base.BaseTestCase):
    """openstacksdk's placement proxy with an admin token."""

    def setUp(self):
        super().setUp()
        self.server = self.useFixture(PlacementServer(self))
        self.conn = connection.Connection(
            auth_type='admin_token',
            auth={'endpoint': self.server.endpoint, 'token': 'admin'},
            placement_endpoint_override=self.server.endpoint,
            placement_api_version=LATEST)
        self.addCleanup(self.conn.close)

    def test_resource_providers(self):
        placement = self.conn.placement
        name = 'sdk-' + _uuid()
        rp = placement.create_resource_provider(name=name)
        self.assertEqual(name, rp.name)
        self.assertEqual(0, rp.generation)
        self.assertEqual(rp.id, rp.root_provider_id)
        child = placement.create_resource_provider(
            name='child-' + name, parent_provider_id=rp.id)
        self.assertEqual(rp.id, child.parent_provider_id)
        self.assertEqual(rp.id, child.root_provider_id)

        listed = {p.id: p for p in placement.resource_providers()}
        self.assertEqual(name, listed[rp.id].name)
        self.assertEqual(rp.id, listed[child.id].parent_provider_id)
        self.assertEqual([rp.id], [p.id for p in
                                   placement.resource_providers(name=name)])

        fetched = placement.get_resource_provider(child.id)
        self.assertEqual('child-' + name, fetched.name)
        updated = placement.update_resource_provider(
            child, name='renamed-' + name)
        self.assertEqual('renamed-' + name, updated.name)
        self.assertEqual('renamed-' + name,
                         placement.get_resource_provider(child.id).name)

        aggregate = _uuid()
        placement.set_resource_provider_aggregates(rp, aggregate)
        self.assertEqual([aggregate], placement
                         .fetch_resource_provider_aggregates(rp).aggregates)

        placement.delete_resource_provider(child)
        placement.delete_resource_provider(rp)
        self.assertEqual([], [p for p in placement.resource_providers()
                              if p.id in (rp.id, child.id)])

    def test_inventories(self):
        placement = self.conn.placement
        rp = placement.create_resource_provider(name='sdk-' + _uuid())
        vcpu = placement.create_resource_provider_inventory(
            rp, 'VCPU', total=8, allocation_ratio=16.0,
            resource_provider_generation=rp.generation)
        self.assertEqual(8, vcpu.total)
        self.assertEqual(16.0, vcpu.allocation_ratio)
        self.assertEqual(2147483647, vcpu.max_unit)
        placement.create_resource_provider_inventory(
            rp, 'MEMORY_MB', total=4096, reserved=512,
            resource_provider_generation=vcpu.resource_provider_generation)

        listed = {inv.resource_class: inv for inv in
                  placement.resource_provider_inventories(rp)}
        self.assertEqual({'VCPU', 'MEMORY_MB'}, set(listed))
        self.assertEqual(512, listed['MEMORY_MB'].reserved)

        memory = placement.get_resource_provider_inventory('MEMORY_MB', rp)
        generation = memory.resource_provider_generation
        updated = placement.update_resource_provider_inventory(
            memory, rp, resource_provider_generation=generation,
            total=8192)
        self.assertEqual(8192, updated.total)
        self.assertEqual(generation + 1,
                         updated.resource_provider_generation)
        self.assertEqual(8192, placement.get_resource_provider_inventory(
            'MEMORY_MB', rp).total)

        placement.delete_resource_provider_inventory('VCPU', rp)
        self.assertEqual(['MEMORY_MB'], [
            inv.resource_class for inv in
            placement.resource_provider_inventories(rp)])
        placement.delete_resource_provider(rp)

    def test_traits_classes_and_allocations(self):
        placement = self.conn.placement
        custom = 'CUSTOM_SDK_%s' % uuid.uuid4().hex[:8].upper()
        placement.create_trait(custom)
        names = [trait.name for trait in placement.traits()]
        self.assertIn(custom, names)
        self.assertIn('HW_CPU_X86_AVX', names)
        # 204 without a body: found, nothing more to show.
        placement.get_trait(custom)
        self.assertRaises(sdk_exceptions.NotFoundException,
                          placement.get_trait, 'CUSTOM_NOBODY_KNOWS')

        rp = placement.create_resource_provider(name='sdk-' + _uuid())
        current = placement.get_resource_provider_trait(rp)
        self.assertEqual([], current.traits)
        placement.set_resource_provider_trait(
            current, traits=[custom, 'HW_CPU_X86_AVX'],
            resource_provider_generation=rp.generation)
        self.assertEqual(sorted([custom, 'HW_CPU_X86_AVX']), sorted(
            placement.get_resource_provider_trait(rp).traits))

        rc = 'CUSTOM_SDK_%s' % uuid.uuid4().hex[:8].upper()
        placement.create_resource_class(name=rc)
        self.assertIn(rc, [c.name for c in placement.resource_classes()])
        generation = placement.get_resource_provider(rp.id).generation
        placement.create_resource_provider_inventory(
            rp, rc, total=10, resource_provider_generation=generation)

        consumer, project, user = _uuid(), _uuid(), _uuid()
        placement.update_allocation(
            consumer, allocations={rp.id: {'resources': {rc: 4}}},
            project_id=project, user_id=user, consumer_generation=None,
            consumer_type='INSTANCE')
        allocation = placement.get_allocation(consumer)
        self.assertEqual({rc: 4},
                         allocation.allocations[rp.id]['resources'])
        self.assertEqual(project, allocation.project_id)
        self.assertEqual({rc: 4}, placement.fetch_resource_provider_usages(
            rp).usages)
        placement.delete_allocation(consumer)
        self.assertEqual({}, placement.get_allocation(consumer).allocations)
