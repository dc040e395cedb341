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

"""What the package installs: its requirements and its extras.

Every distribution the code imports is a requirement; the README's
database examples work as written with the install extras.
"""

import configparser
from importlib import metadata
import os
import re
import sys

from zun_hostcap.common import config_check
from zun_hostcap.tests import base
from zun_hostcap.tests.unit import test_layering

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))

# Backend of a URL -> the extra that installs its driver, and the driver.
EXTRAS = {'mysql': ('mysql', 'pymysql', 'PyMySQL'),
          'postgresql': ('postgresql', 'psycopg', 'psycopg')}


def _normalized(name):
    return re.sub(r'[-_.]+', '-', name).lower()


def _requirements():
    """The normalised names of the distributions requirements.txt lists."""
    names = set()
    with open(os.path.join(REPO, 'requirements.txt')) as f:
        for line in f:
            line = line.split('#')[0].strip()
            if line:
                names.add(_normalized(re.split(r'[<>=!~\[;\s]', line)[0]))
    return names


def _imported_top_names():
    """{top-level module: [file]} of what the package (not tests) imports."""
    found = {}
    for path in test_layering.source_files():
        for _line, module in test_layering.all_imports(path):
            found.setdefault(module.split('.')[0], []).append(
                os.path.relpath(path, REPO))
    return found


class TestRequirements(base.TestCase):

    def test_every_imported_distribution_is_a_requirement(self):
        required = _requirements()
        providers = metadata.packages_distributions()
        missing = {}
        for top, files in sorted(_imported_top_names().items()):
            if top in sys.stdlib_module_names or top == 'zun_hostcap':
                continue
            distributions = {_normalized(name)
                             for name in providers.get(top, [top])}
            if not distributions & required:
                missing[top] = sorted(set(files))
        self.assertEqual({}, missing,
                         'add the distribution of each to requirements.txt')


class TestDatabaseExtras(base.TestCase):

    def setUp(self):
        super().setUp()
        setup_cfg = configparser.ConfigParser()
        setup_cfg.read(os.path.join(REPO, 'setup.cfg'))
        self.extras = {name: value.split()[0] for name, value in
                       setup_cfg['extras'].items()}
        with open(os.path.join(REPO, 'README.rst')) as f:
            self.readme_urls = re.findall(
                r'connection = ((?:mysql|postgresql)\S*://\S+)', f.read())

    def test_the_readme_shows_both_production_databases(self):
        self.assertEqual({'mysql', 'postgresql'},
                         {url.split('+')[0] for url in self.readme_urls})

    def test_each_readme_url_uses_the_driver_its_extra_installs(self):
        for url in self.readme_urls:
            backend, driver = url.split('://')[0].split('+')
            extra, expected_driver, package = EXTRAS[backend]
            self.assertEqual(expected_driver, driver, url)
            self.assertTrue(self.extras[extra].startswith(package),
                            (extra, self.extras[extra]))
            # The driver is importable (the tests install the extras'
            # packages) and the URL passes the start-up check.
            config_check.database_url(url)
