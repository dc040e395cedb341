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

"""The API's gabbi tests, in-process through wsgi-intercept."""

import os

from gabbi import driver

from zun_hostcap.tests import gabbi_fixtures

HERE = os.path.dirname(__file__)
# Shared with the functional tests, which run them against a live server.
SHARED_GABBITS = os.path.join(HERE, '..', '..', 'gabbits')
# The Placement API's, whose paths are under /placement.
PLACEMENT_GABBITS = os.path.join(SHARED_GABBITS, 'placement')
# Need keystonemiddleware's fixture, so in-process only.
UNIT_GABBITS = os.path.join(HERE, 'gabbits')


def load_tests(loader, tests, pattern):
    suite = driver.build_tests(SHARED_GABBITS, loader, host=None,
                               intercept=gabbi_fixtures.setup_app,
                               fixture_module=gabbi_fixtures,
                               test_loader_name=__name__)
    suite.addTests(driver.build_tests(UNIT_GABBITS, loader, host=None,
                                      intercept=gabbi_fixtures.setup_app,
                                      fixture_module=gabbi_fixtures,
                                      test_loader_name=__name__))
    suite.addTests(driver.build_tests(PLACEMENT_GABBITS, loader, host=None,
                                      prefix='/placement',
                                      intercept=gabbi_fixtures.setup_app,
                                      fixture_module=gabbi_fixtures,
                                      test_loader_name=__name__))
    return suite
