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

"""openstacksdk's own placement functional tests, against a live service.

The SDK ships its functional suite (``openstack.tests.functional``) in
its package; its placement tests run here, unmodified, against
zun-hostcap-all's /placement, as the SDK's gate runs them against a
devstack. Their clouds are written to a clouds.yaml of their own: the
admin_token auth type with ``X-Auth-Token: admin`` (noauth2's admin), the
endpoint of /placement, and no compute or image service, which the
suite's set-up would otherwise look for. A test of theirs that fails, or
is skipped, fails this one.
"""

import os
import re
import subprocess
import sys

from oslotest import base

from zun_hostcap.tests.functional import test_placement_clients

SUITE = 'openstack.tests.functional.placement.v1'
# The cloud names the suite reads (its OPENSTACKSDK_*_CLOUD defaults).
CLOUDS = ('devstack', 'devstack-alt', 'devstack-admin',
          'devstack-system-admin')
# Their set-up asks the token for its user (current_user_id), which only
# a keystone token has.
NEEDS_KEYSTONE = (
    SUITE + '.test_allocation.TestAllocation',
    SUITE + '.test_resource_provider_allocation.'
            'TestResourceProviderAllocation',
    SUITE + '.test_usage.TestUsage',
)
# Discovers the suite in the installed package, leaves out the classes
# named in argv[1], runs the rest.
_RUNNER = """
import os, sys, unittest
import openstack
site = os.path.dirname(os.path.dirname(openstack.__file__))
start = os.path.join(site, *'%s'.split('.'))
left_out = sys.argv[1].split()
def tests(suite):
    for test in suite:
        if isinstance(test, unittest.TestSuite):
            yield from tests(test)
        else:
            yield test
chosen = unittest.TestSuite(
    test for test in tests(unittest.defaultTestLoader.discover(
        start, top_level_dir=site))
    if test.id().rsplit('.', 1)[0] not in left_out)
result = unittest.TextTestRunner(verbosity=2).run(chosen)
sys.exit(not result.wasSuccessful())
""" % SUITE
_RAN = re.compile(r'^Ran (\d+) tests? in', re.MULTILINE)


def _clouds_yaml(endpoint):
    cloud = ('    auth_type: admin_token\n'
             '    auth:\n'
             '      endpoint: %(endpoint)s\n'
             '      token: admin\n'
             '    placement_endpoint_override: %(endpoint)s\n'
             '    has_compute: false\n'
             '    has_image: false\n' % {'endpoint': endpoint})
    return 'clouds:\n' + ''.join('  %s:\n%s' % (name, cloud)
                                 for name in CLOUDS)


class TestOpenStackSDKSuite(base.BaseTestCase):

    def test_the_sdk_s_placement_functional_tests_pass(self):
        server = self.useFixture(test_placement_clients.PlacementServer(self))
        clouds = os.path.join(server.tmp, 'clouds.yaml')
        with open(clouds, 'w') as f:
            f.write(_clouds_yaml(server.endpoint))
        env = {name: value for name, value in os.environ.items()
               if not name.startswith(('OS_', 'OPENSTACKSDK_'))}
        env.update({'OS_CLIENT_CONFIG_FILE': clouds, 'HOME': server.tmp,
                    'OS_CLOUD': 'devstack-admin'})
        result = subprocess.run(
            [sys.executable, '-c', _RUNNER, ' '.join(NEEDS_KEYSTONE)],
            capture_output=True, text=True, env=env, timeout=300)
        output = result.stdout + result.stderr
        self.assertEqual(0, result.returncode, output)
        ran = _RAN.search(output)
        self.assertIsNotNone(ran, output)
        # Those of providers, inventories, traits, classes, candidates.
        self.assertGreaterEqual(int(ran.group(1)), 5, output)
        self.assertNotIn('skipped', output.rsplit('Ran ', 1)[1], output)
        server.service.assert_running(self)
