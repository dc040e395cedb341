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

"""OpenStack Placement's own gabbi files, run against our /placement.

``tools/placement_gabbits.py`` runs the YAML files that Placement 16.0.0
ships with its tests (from the peer's virtualenv, the one
``tools/placement_peer.py install`` makes) in-process against our API,
with fixtures that build Placement's data through it. Here it runs the
files of the allocation candidates, granular request groups,
same_subtree, mappings and the reshaper, and those of HTTP (Accept,
content types, errors as HTML, microversions): every test must pass.
"""

import json
import os
import subprocess
import sys

import fixtures

from zun_hostcap.tests import base
from zun_hostcap.tests.functional import base as functional_base
from zun_hostcap.tests.functional import test_placement_peers

TOOL = os.path.join(test_placement_peers.TOOLS, 'placement_gabbits.py')
CANDIDATE_FILES = ('allocation-candidates*', 'granular*', 'same-subtree*',
                   'allocations-mappings*', 'reshaper*')


def placement_gabbits_dir(python):
    """The gabbits directory of the Placement installed for ``python``."""
    result = subprocess.run(
        [python, '-c', 'import os, placement; print(os.path.dirname('
         'placement.__file__))'], capture_output=True, text=True,
        check=True)
    return os.path.join(result.stdout.strip(), 'tests', 'functional',
                        'gabbits')


class TestPlacementGabbits(base.TestCase):

    def run_files(self, *patterns):
        python = test_placement_peers.placement_venv_python()
        functional_base.require(
            self, python is not None,
            'OpenStack Placement is not installed (tools/placement_peer.py '
            'install)')
        counts = os.path.join(self.useFixture(fixtures.TempDir()).path,
                              'counts.json')
        result = subprocess.run(
            [sys.executable, TOOL, '--gabbits', placement_gabbits_dir(python),
             '--json', counts, '--verbose'] + list(patterns),
            capture_output=True, text=True, timeout=600)
        with open(counts) as f:
            totals = json.load(f)['TOTAL']
        self.assertEqual(0, result.returncode, result.stdout[-6000:] +
                         result.stderr[-2000:])
        return totals

    def test_http_files(self):
        # Accept and content types, errors for clients that take HTML,
        # microversion negotiation.
        totals = self.run_files('basic-http*', 'microversion*',
                                'bug-1674694*')
        self.assertEqual(0, totals['failed'])
        self.assertEqual(0, totals['skipped'])
        self.assertGreaterEqual(totals['passed'], 35)

    def test_allocation_candidate_and_reshaper_files(self):
        totals = self.run_files(*CANDIDATE_FILES)
        self.assertEqual(0, totals['failed'])
        self.assertEqual(0, totals['skipped'])
        self.assertGreaterEqual(totals['passed'], 265)
