#!/usr/bin/env python3
"""The previous release of zun-hostcap, installed from this repository.

``tools/previous-release.ini`` names the release before this one and the
commit it was cut from. ``install`` makes (once) a virtualenv of it::

    python tools/previous_release.py install [--cache-dir DIR]

and prints the path of its Python. The release is a clone of this
repository at that commit, tagged with the release's version, so that
pbr versions it and ships the files git tracks (the schema migrations
among them), as a release tarball would; an archive of the tree without
git would lose them. It is installed with the ``mysql`` extra, each of
its dependencies at the version the Python running this script has (the
tox environment of the tests): both releases then run the same
libraries, and pip takes them from its cache. ``PINS`` adds what the
old release needs beyond that (nothing yet). The upgrade test
(``zun_hostcap/tests/functional/test_upgrade.py``) calls it.
"""

import configparser
import importlib.metadata
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402  (tools/ is no package)

REPO = benchlib.REPO
POINTER = os.path.join(REPO, 'tools', 'previous-release.ini')
DEFAULT_CACHE = benchlib.CACHE_DIR
# Distributions that are this project, never taken from this Python.
_OURS = {'zun-hostcap', 'zun_hostcap'}
# What would make pbr give another version than the tag's.
_VERSION_OVERRIDES = ('PBR_VERSION', 'OSLO_PACKAGE_VERSION')
# Requirements of the previous release that this environment's versions
# do not satisfy, as "name==version" lines: what moved since it was cut.
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


def _constraints(path):
    """A pip constraints file: this Python's distributions as they are."""
    lines = set()
    for dist in importlib.metadata.distributions():
        name = dist.metadata['Name']
        if name and name.lower() not in _OURS:
            lines.add('%s==%s' % (name, dist.version))
    pinned = {line.split('==')[0].lower() for line in PINS}
    lines = {line for line in lines
             if line.split('==')[0].lower() not in pinned} | set(PINS)
    with open(path, 'w') as f:
        f.write(''.join('%s\n' % line for line in sorted(lines)))
    return path


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
    """The Python of the virtualenv if it was made in full, else None."""
    venv = _venv(release, cache_dir)
    if os.path.exists(os.path.join(venv, 'release-ready')):
        return os.path.join(venv, 'bin', 'python')
    return None


def install(release, cache_dir=DEFAULT_CACHE):
    """The Python of a virtualenv of ``release``, made when missing."""
    python = installed_python(release, cache_dir)
    if python is not None:
        return python
    venv = _venv(release, cache_dir)
    if os.path.exists(venv):
        shutil.rmtree(venv)   # an earlier, interrupted install
    os.makedirs(cache_dir, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix='zun-hostcap-release-') as tmp:
        source = checkout(release, os.path.join(tmp, 'zun-hostcap'))
        constraints = _constraints(os.path.join(tmp, 'constraints.txt'))
        _run([sys.executable, '-m', 'venv', venv])
        python = os.path.join(venv, 'bin', 'python')
        _run([python, '-m', 'pip', 'install', '--quiet',
              '--disable-pip-version-check', '-c', constraints,
              source + '[mysql]'],
             env={name: value for name, value in os.environ.items()
                  if name not in _VERSION_OVERRIDES})
    installed = _run([python, '-c', 'import importlib.metadata as m; '
                      'print(m.version("zun-hostcap"))']).strip()
    if installed != release.version:
        raise SystemExit('pbr versioned the release %s, not %s' % (
            installed, release.version))
    with open(os.path.join(venv, 'release-ready'), 'w') as f:
        f.write('%s %s\n' % (release.name, release.commit))
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
