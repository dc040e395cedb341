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

"""The API's gabbi tests against a live zun-hostcap-api over TCP.

The same YAML files as the unit tests run in-process; here every request
goes through the real server, its worker processes and threads.
"""

import os

from gabbi import driver

from zun_hostcap.tests.functional.api import live_fixtures

HERE = os.path.dirname(__file__)
SHARED_GABBITS = os.path.join(HERE, '..', '..', 'gabbits')
PLACEMENT_GABBITS = os.path.join(SHARED_GABBITS, 'placement')


def load_tests(loader, tests, pattern):
    suite = driver.build_tests(SHARED_GABBITS, loader,
                               host=live_fixtures.HOST,
                               port=live_fixtures.PORT,
                               fixture_module=live_fixtures,
                               test_loader_name=__name__)
    suite.addTests(driver.build_tests(PLACEMENT_GABBITS, loader,
                                      host=live_fixtures.HOST,
                                      port=live_fixtures.PORT,
                                      prefix='/placement',
                                      fixture_module=live_fixtures,
                                      test_loader_name=__name__))
    return suite
