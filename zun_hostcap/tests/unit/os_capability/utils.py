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

"""Helpers for the os_capability tests: fixture shapes and fake uname."""

import atexit
import os
import shutil
import tempfile

import fixtures

from zun_hostcap.os_capability import linux

DATA_DIR = os.path.join(os.path.dirname(__file__), 'data')

# Shapes that carry both lscpu output and a sysfs/procfs tree.
SHAPES = ('this-host', 'two-numa-smt', 'offline-cpus', 'aarch64',
          'container-limited', 'no-numa')


class FakeUname:
    """An os.uname() look-alike read from a shape's ``uname`` file."""

    def __init__(self, sysname, release, nodename, machine):
        self.sysname = sysname
        self.release = release
        self.nodename = nodename
        self.machine = machine

    def __call__(self):
        return self


_MATERIALIZED = {}
# Made at import, outside any test: oslotest points TMPDIR at a directory
# of each test's own and removes it afterwards.
_SHAPES_BASE = tempfile.mkdtemp(prefix='zun-hostcap-shapes-')
atexit.register(shutil.rmtree, _SHAPES_BASE, ignore_errors=True)


def _materialize(shape):
    """Copy ``shape`` and turn each ``<name>.symlink`` into that symlink.

    sysfs is full of symlinks (a PCI device's ``driver``), but a wheel
    cannot carry them, so the data keeps each link's target in a file.
    """
    root = os.path.join(_SHAPES_BASE, shape)
    shutil.copytree(os.path.join(DATA_DIR, shape), root)
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            if name.endswith('.symlink'):
                path = os.path.join(dirpath, name)
                with open(path) as f:
                    target = f.read().strip()
                os.remove(path)
                os.symlink(target, path[:-len('.symlink')])
    return root


def shape_path(shape):
    """The tree of ``shape``, symlinks included; do not modify it."""
    if shape not in _MATERIALIZED:
        _MATERIALIZED[shape] = _materialize(shape)
    return _MATERIALIZED[shape]


def read_shape_file(shape, name):
    with open(os.path.join(shape_path(shape), name)) as f:
        return f.read()


def shape_uname(shape):
    values = dict(line.split('=', 1)
                  for line in read_shape_file(shape, 'uname').splitlines())
    return FakeUname(**values)


def shape_driver(shape, root=None, **kwargs):
    """A LinuxDriver reading ``shape``'s tree and captured lscpu output."""
    lscpu_text = read_shape_file(shape, 'lscpu.txt')
    kwargs.setdefault('run_lscpu', lambda: lscpu_text)
    kwargs.setdefault('uname', shape_uname(shape))
    return linux.LinuxDriver(root=root or shape_path(shape), **kwargs)


def copy_shape(test, shape):
    """Copy ``shape`` to a temporary directory the test may modify."""
    tmp = test.useFixture(fixtures.TempDir()).path
    root = os.path.join(tmp, shape)
    shutil.copytree(shape_path(shape), root, symlinks=True)
    return root


def write(root, path, text):
    """Write ``text`` to logical ``path`` under ``root``."""
    full = os.path.join(root, path.lstrip('/'))
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, 'w') as f:
        f.write(text)
