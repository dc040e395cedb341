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

"""tools/stestr_timing_hint.py: estimates that spread the slow tests."""

import importlib.util
import os

from zun_hostcap.tests import base

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
FUNCTIONAL = os.path.join('zun_hostcap', 'tests', 'functional')


def _tool():
    spec = importlib.util.spec_from_file_location(
        'stestr_timing_hint',
        os.path.join(REPO, 'tools', 'stestr_timing_hint.py'))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class TestTimingHint(base.TestCase):

    def setUp(self):
        super().setUp()
        self.tool = _tool()

    def test_the_slow_modules_are_known_by_name(self):
        prefix = 'zun_hostcap.tests.functional.'
        for module in ('test_cloud', 'test_keystone_roles',
                       'test_candidates_differential', 'test_upgrade'):
            self.assertGreater(
                self.tool.estimate(prefix + module + '.TestX.test_y'),
                self.tool.DEFAULT_ESTIMATE, module)
        for module in ('test_keystone', 'test_dashboard'):
            self.assertGreaterEqual(
                self.tool.estimate(prefix + module + '.TestX.test_y'),
                self.tool.DEFAULT_ESTIMATE, module)
        # test_keystone_roles is not test_keystone's.
        self.assertNotEqual(
            self.tool.estimate(prefix + 'test_keystone.T.test_a'),
            self.tool.estimate(prefix + 'test_keystone_roles.T.test_a'))
        self.assertLess(self.tool.estimate(
            prefix + 'api.test_gabbits.hosts_list.test_request'), 1)

    def test_the_test_methods_are_found_without_importing(self):
        cwd = os.getcwd()
        self.addCleanup(os.chdir, cwd)
        os.chdir(REPO)
        ids = self.tool.test_ids(FUNCTIONAL)
        for test_id in ids:
            self.assertRegex(test_id, r'^zun_hostcap\.tests\.functional\.'
                                      r'[\w.]+\.\w+\.test\w*$')
        # A method of a base class in the same module counts for each
        # test class that inherits it.
        self.assertIn('zun_hostcap.tests.functional.test_placement_peers.'
                      'TestAgainstOpenStackPlacement.'
                      'test_provider_inventory_allocations_and_audit', ids)
        self.assertIn('zun_hostcap.tests.functional.test_log_injection.'
                      'TestLogInjection.test_each_request_is_one_line', ids)
        # Mixins are no test classes.
        self.assertFalse([test_id for test_id in ids
                          if not test_id.split('.')[-2].startswith('Test')])
