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

"""The compute node providers' data migration, two runs at once.

As an operator may run ``zun-hostcap-db-manage online_data_migrations``
from two hosts: on MariaDB and PostgreSQL, two threads migrate the same
nodes in small batches; every node ends with one provider, of its uuid,
with its inventory, and each node is counted migrated once.
"""

import threading

from oslo_utils import uuidutils

from zun_hostcap.db import api as db_api
from zun_hostcap.db.sqlalchemy import api as sa_api
from zun_hostcap.db.sqlalchemy import compute_node_providers as migration
from zun_hostcap.tests import base
from zun_hostcap.tests.functional.db import test_placement_backends

NODES = 120
BATCH = 10


class _TwoAtOnceMixin(object):

    def _nodes(self):
        uuids = {}
        for number in range(NODES):
            uuid = uuidutils.generate_uuid()
            uuids[uuid] = 'host-%03d' % number
            db_api.compute_node_create(self.context, dict(
                uuid=uuid, hostname=uuids[uuid], cpus=4, cpu_used=0.0,
                mem_total=2048, mem_free=0, mem_available=0, mem_buffers=0,
                mem_cached=0, mem_used=0, total_containers=0,
                running_containers=0, paused_containers=0,
                stopped_containers=0, disk_total=20, disk_used=0,
                disk_quota_supported=False, enable_cpu_pinning=False))
        return uuids

    def test_two_runs_at_once_make_one_provider_a_node(self):
        uuids = self._nodes()
        migrated = []
        errors = []
        start = threading.Barrier(2)

        def run():
            start.wait()
            try:
                while True:
                    found, done = migration.create_compute_node_providers(
                        self.context, BATCH)
                    migrated.append(done)
                    if not found:
                        return
            except Exception as err:   # reported below, not lost
                errors.append(err)

        threads = [threading.Thread(target=run) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
        self.assertEqual([], errors)
        self.assertEqual(NODES, sum(migrated))
        with sa_api.get_engine().connect() as conn:
            providers = conn.exec_driver_sql(
                'SELECT rp.uuid, rp.name, rp.generation, count(inv.id) '
                'FROM resource_providers rp LEFT JOIN inventories inv ON '
                'inv.resource_provider_id = rp.id '
                'GROUP BY rp.uuid, rp.name, rp.generation').all()
        self.assertEqual({(uuid, name, 1, 3) for uuid, name in uuids.items()},
                         {tuple(row) for row in providers})
        self.assertEqual((0, 0), migration.create_compute_node_providers(
            self.context, 0, count_only=True))


class MariaDBTwoAtOnce(_TwoAtOnceMixin, base.TestCase):

    def setUp(self):
        super().setUp()
        test_placement_backends.use_mariadb(self)


class PostgreSQLTwoAtOnce(_TwoAtOnceMixin, base.TestCase):

    def setUp(self):
        super().setUp()
        test_placement_backends.use_postgresql(self)
