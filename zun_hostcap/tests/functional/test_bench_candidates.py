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

"""A smoke run of ``tools/bench_placement.py --candidates``.

Not a timing test: the benchmark runs at its smallest (``--quick``: a
fiftieth of each forest, two timed requests a query) on SQLite and
PostgreSQL, on the mixed scenario (flat computes holding allocations,
NUMA trees, a shared pool), against OpenStack Placement from
``tools/placement_peer.py``'s virtualenv; the test checks that it
printed its figures: a row for each query of each engine, both sides
measured, both answering the same number of candidates, and no error.
A change that breaks the benchmark fails here rather than in the next
person's run. About 30 s on an idle machine.
"""

import os
import sys

import fixtures
from oslotest import base as oslo_base

from zun_hostcap.tests.functional import base
from zun_hostcap.tests.functional import test_placement_peers

TOOLS = test_placement_peers.TOOLS
BENCH = os.path.join(TOOLS, 'bench_placement.py')
POSTGRESQL_ADMIN_URL = os.environ.get(
    'ZUN_HOSTCAP_TEST_BENCH_POSTGRESQL_URL',
    'postgresql+psycopg2://openstack_citest:openstack_citest@127.0.0.1:5432/')
# The queries of the mixed scenario (candidate_scenarios.Mixed).
QUERIES = ('(g) mixed, unsuffixed', '(g) mixed, unsuffixed, limit=1000',
           '(g) mixed, granular, group_policy=none')
# Seconds the run may take on a loaded machine.
RUN_TIMEOUT = 170


class TestCandidatesBenchmarkSmoke(oslo_base.BaseTestCase):

    def setUp(self):
        super().setUp()
        base.require_port(self, 'PostgreSQL', 5432)
        python = test_placement_peers.placement_venv_python()
        base.require(self, python is not None,
                     'openstack-placement is not installed (run %s '
                     'install)' % os.path.join(TOOLS, 'placement_peer.py'))

    def test_quick_run_prints_its_figures(self):
        tmp = self.useFixture(fixtures.TempDir()).path
        log = os.path.join(tmp, 'bench.log')
        # Its own databases' names are fixed: another run at the same
        # time would share them, so the test's are its own.
        bench = self.useFixture(base.Process(
            'bench_placement', [
                sys.executable, BENCH, '--candidates', 'g', '--quick',
                '--only', 'sqlite,postgresql',
                '--postgresql-url', POSTGRESQL_ADMIN_URL,
                '--database-prefix', 'smoke%d_' % os.getpid()],
            log))
        status = bench.wait(RUN_TIMEOUT)
        with open(log) as f:
            output = f.read()
        self.assertEqual(0, status, output[-4000:])
        self.assertNotIn('error:', output)
        self.assertNotIn('Traceback', output)
        table = output[output.index('\nengine '):]
        rows = [line.split() for line in table.splitlines()[2:]
                if line.strip()]
        for engine in ('sqlite', 'postgresql'):
            for query in QUERIES:
                row = next((r for r in rows if r[0] == engine and
                            ' '.join(r[1:]).startswith(query + ' ')), None)
                self.assertIsNotNone(row, (engine, query, table))
                # ..., ours/s, p50, theirs/s, p50, ratio, target,
                # verdict, answers o/t, RSS o/t
                ours_rate, _p50, theirs_rate = row[-9:-6]
                self.assertGreater(float(ours_rate), 0, row)
                self.assertGreater(float(theirs_rate), 0, row)
                ours, theirs = row[-2].split('/')
                self.assertEqual(ours, theirs, row)
                self.assertGreater(int(ours), 0, row)
