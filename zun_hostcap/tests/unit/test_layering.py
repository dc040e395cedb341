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

"""The layers of the package, read from the imports of its source.

Imports flow one way (doc/source/admin/architecture.rst): common/
is the ground floor, beside the two libraries that could be split out
(os_capability/, candidates/), the objects sit on the database API, the
services on the objects, the commands on top. Read with ast, nothing
imported, so a function-level import counts as much as one at the top
of a module.
"""

import ast
import os
import sys

import testtools

import zun_hostcap

PACKAGE_DIR = os.path.dirname(zun_hostcap.__file__)

# Each top-level part of zun_hostcap and its floor: a part may import
# its own modules and those of lower floors, never a part on its floor
# or above it.
FLOORS = {
    'version': 0,
    'conf': 0,
    'os_capability': 0,
    'candidates': 0,
    'common': 1,
    'db': 2,
    'objects': 3,
    'api': 4,
    'compute': 4,
    'conductor': 4,
    'service': 5,
    'cmd': 6,
    'wsgi': 6,
}


def _module_name(path):
    relative = os.path.relpath(path, os.path.dirname(PACKAGE_DIR))
    name = relative[:-len('.py')].replace(os.sep, '.')
    return name[:-len('.__init__')] if name.endswith('.__init__') else name


def _is_module(name):
    path = os.path.join(os.path.dirname(PACKAGE_DIR), *name.split('.'))
    return os.path.isdir(path) or os.path.exists(path + '.py')


def _imported(node):
    """The zun_hostcap modules an Import or ImportFrom node names."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    elif isinstance(node, ast.ImportFrom) and node.level == 0 and (
            node.module):
        # from package import module, or from module import name.
        names = [node.module + '.' + alias.name
                 if _is_module(node.module + '.' + alias.name)
                 else node.module for alias in node.names]
    else:
        return []
    return [name for name in names
            if name == 'zun_hostcap' or name.startswith('zun_hostcap.')]


def source_files(top=PACKAGE_DIR):
    """The package's source files below ``top``, tests left out."""
    for directory, subdirectories, files in os.walk(top):
        subdirectories[:] = [name for name in subdirectories
                             if name not in ('tests', '__pycache__')]
        for name in sorted(files):
            if name.endswith('.py'):
                yield os.path.join(directory, name)


def _tree(path):
    with open(path, encoding='utf-8') as source:
        return ast.parse(source.read(), path)


def all_imports(path):
    """[(line, module)] of every absolute import of one source file.

    ``from a.b import c`` names ``a.b``.
    """
    found = []
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level:
            found.append((node.lineno, node.module))
    return found


def imports(path, module_level_only=False):
    """[(line, imported module)] of one source file."""
    tree = _tree(path)
    if module_level_only:
        # The statements that run when the module is imported: its body,
        # into if/try blocks, not into functions or classes.
        nodes, pending = [], list(tree.body)
        while pending:
            node = pending.pop()
            nodes.append(node)
            if isinstance(node, (ast.If, ast.Try)):
                for field in ('body', 'orelse', 'finalbody'):
                    pending.extend(getattr(node, field, []))
                for handler in getattr(node, 'handlers', []):
                    pending.extend(handler.body)
    else:
        nodes = ast.walk(tree)
    return [(node.lineno, name) for node in nodes
            for name in _imported(node)]


def _part(module):
    parts = module.split('.')
    return parts[1] if len(parts) > 1 else None


def cycles(graph):
    """The cycles of {node: {node, ...}}, each as a list of nodes."""
    found = []
    state = {}

    def visit(node, path):
        state[node] = 'open'
        path.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 'open':
                found.append(path[path.index(target):] + [target])
            elif target not in state:
                visit(target, path)
        path.pop()
        state[node] = 'done'

    for node in sorted(graph):
        if node not in state:
            visit(node, [])
    return found


class TestLayers(testtools.TestCase):

    def test_every_part_has_a_floor(self):
        parts = {name[:-len('.py')] if name.endswith('.py') else name
                 for name in os.listdir(PACKAGE_DIR)
                 if name.endswith('.py') or os.path.exists(
                     os.path.join(PACKAGE_DIR, name, '__init__.py'))}
        parts -= {'__init__', 'tests'}
        self.assertEqual(set(), parts - set(FLOORS),
                         'give each new part of zun_hostcap its floor')

    def test_common_imports_nothing_above_it(self):
        wrong = []
        for path in source_files(os.path.join(PACKAGE_DIR, 'common')):
            for line, module in imports(path):
                if _part(module) not in (None, 'common', 'conf', 'version'):
                    wrong.append('%s:%d imports %s' % (
                        _module_name(path), line, module))
        self.assertEqual([], wrong)

    def test_libraries_import_nothing_else_of_ours(self):
        # os_capability/ and candidates/ could be split out as they are.
        wrong = []
        for library in ('os_capability', 'candidates'):
            top = os.path.join(PACKAGE_DIR, library)
            for path in source_files(top):
                for line, module in imports(path):
                    if _part(module) != library:
                        wrong.append('%s:%d imports %s' % (
                            _module_name(path), line, module))
        self.assertEqual([], wrong)

    def test_the_candidate_search_is_pure_python(self):
        # No SQL, no service: the standard library alone; the database
        # side is db/sqlalchemy/placement/candidates.py.
        wrong = []
        for path in source_files(os.path.join(PACKAGE_DIR, 'candidates')):
            for line, name in all_imports(path):
                top = name.split('.')[0]
                if (top not in sys.stdlib_module_names and
                        not name.startswith('zun_hostcap.candidates')):
                    wrong.append('%s:%d imports %s' % (
                        _module_name(path), line, name))
        self.assertEqual([], wrong)

    def test_imports_point_down_the_floors(self):
        wrong = []
        for path in source_files():
            importer = _part(_module_name(path))
            if importer is None:
                continue
            for line, module in imports(path):
                imported = _part(module)
                if imported in (None, importer):
                    continue
                if FLOORS[imported] >= FLOORS[importer]:
                    wrong.append('%s:%d imports %s' % (
                        _module_name(path), line, module))
        self.assertEqual([], wrong)

    def test_no_import_cycle_among_the_objects(self):
        graph = {}
        for path in source_files(os.path.join(PACKAGE_DIR, 'objects')):
            module = _module_name(path)
            graph[module] = {
                imported for _line, imported in imports(
                    path, module_level_only=True)
                if imported.startswith('zun_hostcap.objects.')}
        self.assertEqual([], cycles(graph))

    def test_cycles_are_found(self):
        # The check above is only as good as the search it relies on.
        self.assertEqual([['a', 'b', 'c', 'a']],
                         cycles({'a': {'b'}, 'b': {'c'}, 'c': {'a'},
                                 'd': {'a'}}))
        self.assertEqual([], cycles({'a': {'b'}, 'b': set(), 'c': {'b'}}))
