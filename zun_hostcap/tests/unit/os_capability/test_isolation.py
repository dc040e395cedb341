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

"""The package must stay separable from the rest of zun_hostcap."""

import ast
import os

import fixtures
from oslotest import base

import zun_hostcap.os_capability as os_capability

PACKAGE = 'zun_hostcap.os_capability'
# Also keep out what the brief forbids: config, oslo objects, eventlet.
FORBIDDEN_PREFIXES = ('oslo_config', 'oslo_versionedobjects', 'eventlet')


def import_violations(path):
    """Return the imports in ``path`` that would tie it to the project."""
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    modules = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            # Relative imports are refused outright: they are easy to get
            # wrong when the package is split out.
            modules.append('.' * node.level + (node.module or ''))
    bad = []
    for module in modules:
        inside = module == PACKAGE or module.startswith(PACKAGE + '.')
        project = module == 'zun_hostcap' or module.startswith(
            'zun_hostcap.')
        if (module.startswith('.') or (project and not inside)
                or module.startswith(FORBIDDEN_PREFIXES)):
            bad.append(module)
    return bad


def package_files():
    top = os.path.dirname(os_capability.__file__)
    return [os.path.join(dirpath, name)
            for dirpath, _dirnames, filenames in os.walk(top)
            for name in filenames if name.endswith('.py')]


class IsolationTestCase(base.BaseTestCase):

    def test_walks_the_package(self):
        names = {os.path.basename(p) for p in package_files()}
        self.assertLessEqual({'__init__.py', 'linux.py', 'fake.py'}, names)

    def test_no_imports_from_the_rest_of_the_project(self):
        for path in package_files():
            self.assertEqual([], import_violations(path), path)

    def test_detector_catches_violations(self):
        tmp = self.useFixture(fixtures.TempDir()).path
        path = os.path.join(tmp, 'mod.py')
        with open(path, 'w') as f:
            f.write('import os\n'
                    'import zun_hostcap.conf\n'
                    'from zun_hostcap import objects\n'
                    'from zun_hostcap.os_capability import model\n'
                    'from zun_hostcap.os_capability_extra import x\n'
                    'from . import sibling\n'
                    'def f():\n'
                    '    from oslo_config import cfg\n')
        self.assertEqual(['zun_hostcap.conf', 'zun_hostcap',
                          'zun_hostcap.os_capability_extra', '.',
                          'oslo_config'],
                         import_violations(path))
