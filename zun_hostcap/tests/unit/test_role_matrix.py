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

"""The role matrix's data against the code and the committed docs.

The functional test (tests/functional/test_keystone_roles.py) checks the
matrix with real tokens; these check, without a server, that it covers
every route, names the rules the code registers with the check strings
its access classes stand for, and that the docs show it as it is.
"""

import os
import subprocess
import sys

from zun_hostcap.api.placement import routes
from zun_hostcap.common import policies
from zun_hostcap.tests import base
from zun_hostcap.tests import role_matrix

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
TOOL = os.path.join(REPO, 'tools', 'role_matrix_doc.py')

# The check string of each access class, in the rules of this service.
CHECK_STRINGS = {
    'admin_or_service': 'rule:admin_or_service_api',
    'service': 'rule:service_api',
    'admin_or_project_reader_or_service':
        'rule:admin_or_project_reader_or_service_api',
    'zun_admin': 'rule:context_is_admin',
}


class TestRoleMatrixData(base.TestCase):

    def test_every_placement_route_and_method(self):
        served = {(method, template) for template, _controller, methods
                  in routes.ROUTES for method in methods}
        listed = [(route.method, route.path)
                  for route in role_matrix.PLACEMENT_ROUTES]
        self.assertEqual(len(listed), len(set(listed)))
        self.assertEqual(served, set(listed))

    def test_rules_are_the_code_defaults(self):
        rules = {rule.name: rule for rule in policies.list_rules()}
        for route in (role_matrix.PLACEMENT_ROUTES +
                      role_matrix.V1_ROUTES):
            if route.access == 'public':
                self.assertIsNone(route.rule)
                continue
            self.assertEqual(CHECK_STRINGS[route.access],
                             rules[route.rule].check_str, route)

    def test_every_difference_names_a_cell_and_a_reason(self):
        cells = {(route.method, route.path) for route in
                 role_matrix.PLACEMENT_ROUTES + role_matrix.V1_ROUTES}
        for (method, path, persona, configuration), label in \
                role_matrix.DIFFERENCES.items():
            self.assertIn((method, path), cells)
            self.assertIn(persona, role_matrix.PERSONA_NAMES)
            self.assertIn(configuration, role_matrix.CONFIGURATIONS)
            self.assertIn(label, role_matrix.REASONS)

    def test_decision_of_a_status(self):
        for status in (200, 201, 204, 404, 409):
            self.assertEqual(role_matrix.ALLOWED,
                             role_matrix.decision_of(status))
        for status in (401, 403):
            self.assertEqual(role_matrix.DENIED,
                             role_matrix.decision_of(status))
        for status in (400, 405, 500, 503):
            self.assertIsNone(role_matrix.decision_of(status))


class TestRoleMatrixDoc(base.TestCase):

    def test_committed_table_is_generated_from_the_data(self):
        result = subprocess.run([sys.executable, TOOL, '--check'],
                                capture_output=True, text=True)
        self.assertEqual(0, result.returncode,
                         result.stdout + result.stderr)
