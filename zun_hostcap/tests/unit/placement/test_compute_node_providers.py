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

"""The online data migration: compute nodes of 2026.2 become providers.

On SQLite; the MariaDB run with two migrations at once is in
functional/db/test_compute_node_providers.py.
"""

from zun_hostcap.db.sqlalchemy import api as sa_api
from zun_hostcap.db.sqlalchemy import compute_node_providers as migration
from zun_hostcap.db.sqlalchemy.placement import inventories as inv_db
from zun_hostcap.db.sqlalchemy.placement import resource_providers as rp_db
from zun_hostcap.db.sqlalchemy.placement import traits as trait_db
from zun_hostcap.tests import base
from zun_hostcap.tests import fixtures as zun_fixtures
from zun_hostcap.tests.unit import test_db_manage

migrate = migration.create_compute_node_providers


def nodes(context, count, prefix='host'):
    """``count`` nodes as 2026.2 wrote them: 2 CPUs, 1024 MiB, 10 GiB."""
    test_db_manage.create_nodes(context, count, prefix=prefix)
    return {row['hostname']: row['uuid'] for row in
            rows('SELECT hostname, uuid FROM compute_nodes')}


def rows(query):
    with sa_api.get_engine().connect() as conn:
        return [dict(row._mapping) for row in conn.exec_driver_sql(query)]


class MigrationTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.db = self.useFixture(zun_fixtures.Database())

    def providers(self):
        """{name: (uuid, generation)} of every provider."""
        return {row['name']: (row['uuid'], row['generation'])
                for row in rows(
                    'SELECT name, uuid, generation FROM resource_providers')}

    def inventory(self, uuid):
        _generation, rows = inv_db.get_all(self.context, uuid)
        return {row['resource_class']: {key: row[key]
                                        for key in inv_db.FIELDS}
                for row in rows}


class TestCreateComputeNodeProviders(MigrationTestCase):

    def test_each_node_gets_its_provider_with_the_configured_figures(self):
        self.flags(group='compute', cpu_allocation_ratio=16.0,
                   reserved_host_memory_mb=256, reserved_host_disk_mb=1)
        hosts = nodes(self.context, 3)
        self.assertEqual((3, 0), migrate(self.context, 0, count_only=True))
        self.assertEqual((3, 3), migrate(self.context, 50))
        self.assertEqual({name: (uuid, 1) for name, uuid in hosts.items()},
                         self.providers())
        self.assertEqual(
            {'VCPU': {'total': 2, 'reserved': 0, 'min_unit': 1,
                      'max_unit': 2, 'step_size': 1,
                      'allocation_ratio': 16.0},
             'MEMORY_MB': {'total': 1024, 'reserved': 256, 'min_unit': 1,
                           'max_unit': 1024, 'step_size': 1,
                           'allocation_ratio': 1.0},
             'DISK_GB': {'total': 10, 'reserved': 1, 'min_unit': 1,
                         'max_unit': 10, 'step_size': 1,
                         'allocation_ratio': 1.0}},
            self.inventory(hosts['host-000']))
        # Nothing more: run again at any time.
        self.assertEqual((0, 0), migrate(self.context, 0, count_only=True))
        self.assertEqual((0, 0), migrate(self.context, 50))

    def test_in_batches_of_max_count(self):
        nodes(self.context, 5)
        self.assertEqual((2, 2), migrate(self.context, 2))
        self.assertEqual((3, 0), migrate(self.context, 0, count_only=True))
        self.assertEqual((3, 3), migrate(self.context, 50))

    def test_a_host_its_compute_reported_is_left_alone(self):
        hosts = nodes(self.context, 2)
        # Host 0's compute of this release made its provider and set it.
        rp_db.create(self.context, hosts['host-000'], 'host-000')
        inv_db.replace_all(self.context, hosts['host-000'], 0,
                           {'VCPU': {'total': 64}})
        trait_db.set_for_provider(self.context, hosts['host-000'],
                                  ['HW_CPU_X86_AVX2'])
        self.assertEqual((1, 0), migrate(self.context, 0, count_only=True))
        self.assertEqual((1, 1), migrate(self.context, 50))
        self.assertEqual({'VCPU'}, set(self.inventory(hosts['host-000'])))
        self.assertEqual(2, self.providers()['host-000'][1])

    def test_a_provider_made_but_never_written_is_given_its_inventory(self):
        # A run (or a compute) that stopped between the two writes.
        hosts = nodes(self.context, 1)
        rp_db.create(self.context, hosts['host-000'], 'host-000')
        self.assertEqual((1, 0), migrate(self.context, 0, count_only=True))
        self.assertEqual((1, 1), migrate(self.context, 50))
        self.assertEqual({'VCPU', 'MEMORY_MB', 'DISK_GB'},
                         set(self.inventory(hosts['host-000'])))

    def test_one_written_meanwhile_is_not_written_again(self):
        hosts = nodes(self.context, 1)
        row = migration._next_batch(self.context, 1)[0]
        # Between this run's read and its writes, another run (or the
        # host's compute) gives the node its provider.
        rp_db.create(self.context, hosts['host-000'], 'host-000')
        inv_db.replace_all(self.context, hosts['host-000'], 0,
                           {'VCPU': {'total': 64}})
        self.assertFalse(migration._migrate(self.context, row))
        self.assertEqual({'VCPU': 64}, {
            rc: inv['total'] for rc, inv in
            self.inventory(hosts['host-000']).items()})

    def test_a_name_another_provider_has(self):
        hosts = nodes(self.context, 3)
        rp_db.create(self.context, '0b6bd3aa-5f4a-4d2e-9e5e-2f0d3b8c7a11',
                     'host-001')
        # Counted as waiting; the others are migrated first.
        self.assertEqual((3, 0), migrate(self.context, 0, count_only=True))
        self.assertEqual((2, 2), migrate(self.context, 50))
        err = self.assertRaises(migration.ProviderNameTaken, migrate,
                                self.context, 50)
        self.assertEqual(
            '1 compute nodes cannot get their resource provider: a provider '
            'of another uuid has the name of their host (host-001). Rename '
            'or delete that provider (openstack resource provider '
            'set/delete), then run this again.', str(err))
        self.assertNotIn(hosts['host-001'], [
            uuid for uuid, _generation in self.providers().values()])

    def test_a_shared_disk_provider_keeps_the_disk(self):
        self.flags(group='compute',
                   shared_disk_provider='0b6bd3aa-5f4a-4d2e-9e5e-2f0d3b8c7a11')
        hosts = nodes(self.context, 1)
        migrate(self.context, 50)
        self.assertEqual({'VCPU', 'MEMORY_MB'},
                         set(self.inventory(hosts['host-000'])))
