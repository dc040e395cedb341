#!/usr/bin/env python3
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

"""The previous release of zun-hostcap, installed from this repository.

``tools/previous-release.ini`` names the release before this one and the
commit it was cut from. ``install`` makes (once) a virtualenv of it::

    python tools/previous_release.py install [--cache-dir DIR]

and prints the path of its Python. The release is a clone of this
repository at that commit, tagged with the release's version, so that
pbr versions it and ships the files git tracks (the schema migrations
among them), as a release tarball would; an archive of the tree without
git would lose them. The virtualenv gets the libraries of the Python
running this script (the tox environment of the tests), as hard links,
and the release is installed into it without dependencies: both
releases run the very same libraries, and nothing is downloaded.
``PINS`` installs over them what the old release needs that moved since
(nothing yet). The upgrade test
(``zun_hostcap/tests/functional/test_upgrade.py``) calls it.
"""

import configparser
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402  (tools/ is no package)

REPO = benchlib.REPO
POINTER = os.path.join(REPO, 'tools', 'previous-release.ini')
DEFAULT_CACHE = benchlib.CACHE_DIR
# Distributions that are this project, never taken from this Python.
_OURS = {'zun-hostcap', 'zun_hostcap'}
# Its files in this Python's site-packages (an editable install's).
_OUR_FILES = re.compile(r'^(__editable__.*zun_hostcap|zun_hostcap[-.])')
# What would make pbr give another version than the tag's.
_VERSION_OVERRIDES = ('PBR_VERSION', 'OSLO_PACKAGE_VERSION')
# Requirements of the previous release that this environment's versions
# do not satisfy, as "name==version": what moved since it was cut.
PINS = ()


class Release(object):
    """The previous release as tools/previous-release.ini records it."""

    def __init__(self, path=POINTER):
        parser = configparser.ConfigParser()
        if not parser.read(path):
            raise SystemExit('%s cannot be read' % path)
        section = parser['previous_release']
        self.name = section['name']
        self.commit = section['commit']

    @property
    def version(self):
        """The version pbr gives it: the tag made on the commit."""
        return '%s.0' % self.name


def _venv(release, cache_dir):
    return os.path.join(os.path.abspath(cache_dir), 'zun-hostcap-%s-%s-py%d.%d'
                        % ((release.name, release.commit[:10]) +
                           sys.version_info[:2]))


def _run(command, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True,
                            **kwargs)
    if result.returncode:
        raise SystemExit('%s failed with %d:\n%s%s' % (
            ' '.join(command), result.returncode, result.stdout,
            result.stderr))
    return result.stdout


def libraries():
    """This Python's distributions and versions, and PINS, as text."""
    lines = set()
    for dist in importlib.metadata.distributions():
        name = dist.metadata['Name']
        if name and name.lower() not in _OURS:
            lines.add('%s==%s' % (name, dist.version))
    return ''.join('%s\n' % line for line in sorted(lines) + list(PINS))


def _link_tree(source, destination):
    """``source`` at ``destination``, files as hard links (else copies)."""
    def link(src, dst):
        try:
            os.link(src, dst)
        except OSError:   # another filesystem
            shutil.copy2(src, dst)
    if os.path.isdir(source) and not os.path.islink(source):
        shutil.copytree(source, destination, symlinks=True,
                        copy_function=link)
    else:
        link(source, destination)


def _share_libraries(venv):
    """Give ``venv`` the site-packages of this Python, but this project."""
    ours = sysconfig.get_paths()['purelib']
    theirs = os.path.join(venv, 'lib', 'python%d.%d' % sys.version_info[:2],
                          'site-packages')
    for name in os.listdir(ours):
        if not _OUR_FILES.match(name) and not os.path.exists(
                os.path.join(theirs, name)):
            _link_tree(os.path.join(ours, name), os.path.join(theirs, name))


def checkout(release, destination):
    """A clone of this repository at the release's commit, tagged.

    :raises SystemExit: the commit is not in this clone's history (a
        shallow clone, say).
    """
    found = subprocess.run(['git', '-C', REPO, 'cat-file', '-e',
                            release.commit + '^{commit}'],
                           capture_output=True)
    if found.returncode:
        raise SystemExit(
            'Commit %s of release %s is not in the history of %s: a '
            'shallow clone? "git fetch --unshallow" fetches it.'
            % (release.commit, release.name, REPO))
    _run(['git', 'clone', '--quiet', '--no-checkout', REPO, destination])
    _run(['git', '-C', destination, 'checkout', '--quiet', release.commit])
    # pbr takes the version from the tag; and not from a tag of this
    # repository that happens to be reachable.
    _run(['git', '-C', destination, 'tag', release.version])
    return destination


def installed_python(release, cache_dir=DEFAULT_CACHE):
    """The Python of the virtualenv, else None.

    None too if it was not made in full, or with other versions of the
    libraries than this Python's (the tox environment was remade).
    """
    ready = os.path.join(_venv(release, cache_dir), 'release-ready')
    try:
        with open(ready) as f:
            made_with = f.read()
    except OSError:
        return None
    if made_with != libraries():
        return None
    return os.path.join(os.path.dirname(ready), 'bin', 'python')


def install(release, cache_dir=DEFAULT_CACHE):
    """The Python of a virtualenv of ``release``, made when missing."""
    python = installed_python(release, cache_dir)
    if python is not None:
        return python
    venv = _venv(release, cache_dir)
    if os.path.exists(venv):
        shutil.rmtree(venv)   # interrupted, or of other libraries
    os.makedirs(cache_dir, exist_ok=True)
    wanted = libraries()
    _run([sys.executable, '-m', 'venv', '--without-pip', venv])
    _share_libraries(venv)
    python = os.path.join(venv, 'bin', 'python')
    pip = [python, '-m', 'pip', 'install', '--quiet', '--no-deps',
           '--disable-pip-version-check']
    if PINS:
        _run(pip + list(PINS))
    with tempfile.TemporaryDirectory(prefix='zun-hostcap-release-') as tmp:
        source = checkout(release, os.path.join(tmp, 'zun-hostcap'))
        # pbr builds it with the libraries it has: nothing to download.
        _run(pip + ['--no-build-isolation', source],
             env={name: value for name, value in os.environ.items()
                  if name not in _VERSION_OVERRIDES})
    installed = _run([python, '-c', 'import importlib.metadata as m; '
                      'print(m.version("zun-hostcap"))']).strip()
    if installed != release.version:
        raise SystemExit('pbr versioned the release %s, not %s' % (
            installed, release.version))
    # What it was made with: installed_python() compares.
    with open(os.path.join(venv, 'release-ready'), 'w') as f:
        f.write(wanted)
    return python


def main(argv=None):
    parser = benchlib.tool_parser(__doc__)
    commands = parser.add_subparsers(dest='command', required=True)
    commands.add_parser('install', help='make the virtualenv if missing; '
                                        'print its Python')
    args = parser.parse_args(argv)
    print(install(Release(), args.cache_dir))


if __name__ == '__main__':
    main()
