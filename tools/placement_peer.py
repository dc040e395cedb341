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

"""OpenStack Placement from PyPI, as a peer to test and measure against.

``install`` makes (once) a virtualenv of its own with
openstack-placement, pinned, and the same waitress, PyMySQL and
psycopg2 versions as this environment's; ``serve`` runs it, on a SQLite
file by default, with noauth2, until it is stopped::

    python tools/placement_peer.py install [--cache-dir DIR]
    python tools/placement_peer.py serve --port PORT --state-dir DIR \\
        [--connection URL] [--option SECTION.NAME=VALUE ...] \\
        [--cache-dir DIR]

``serve`` writes ``placement.conf`` into the state directory, builds the
schema with ``placement-manage db sync``, then replaces itself (exec)
with waitress serving ``placement.wsgi.api:application``: its pid is the
server's, to stop it by. ``tox -e functional`` runs ``install``; the
functional tests ``serve``; ``bench_placement.py`` uses the same
virtualenv.
"""

import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402  (tools/ is no package)

PLACEMENT_DIST = 'openstack-placement'
PLACEMENT_VERSION = '16.0.0'
DEFAULT_CACHE = benchlib.CACHE_DIR
SERVER_THREADS = 8


def _venv(cache_dir):
    return benchlib.PeerVenv('placement-%s' % PLACEMENT_VERSION, cache_dir)


def installed_python(cache_dir=DEFAULT_CACHE):
    """The Python of the virtualenv if it was made in full, else None."""
    return _venv(cache_dir).installed_python()


def _drivers():
    """The server and database drivers to install, at our versions.

    The same waitress, PyMySQL and psycopg2 as ours, so that the server
    and the drivers are the same on both sides. psycopg2, not psycopg 3:
    Placement 16.0 fails on psycopg 3 (it reads a cursor's ``lastrowid``,
    which psycopg 3 has not).
    """
    return [benchlib.pinned(dist)
            for dist in ('waitress', 'PyMySQL', 'psycopg2-binary')]


def placement_venv(cache_dir=DEFAULT_CACHE):
    """The Python of a virtualenv with Placement, made when missing.

    A virtualenv made before a driver was added to ``_drivers`` gets it.
    """
    venv = _venv(cache_dir)
    if venv.installed_python() is None:
        venv.create(['%s==%s' % (PLACEMENT_DIST, PLACEMENT_VERSION)] +
                    _drivers())
    else:
        venv.add(_drivers())
    return venv.python


def write_config(state_dir, connection, extra=None):
    """Placement's configuration directory, in ``state_dir``.

    ``extra``: more options, {section: {option: value}}.
    """
    confdir = os.path.join(os.path.abspath(state_dir), 'placement')
    os.makedirs(confdir, exist_ok=True)
    sections = {
        'DEFAULT': {'debug': 'false'},
        'api': {'auth_strategy': 'noauth2'},
        'placement_database': {'connection': connection},
        # Not a policy file of this machine: the defaults.
        'oslo_policy': {'policy_file': os.path.join(confdir,
                                                    'policy.yaml')},
    }
    for section, options in (extra or {}).items():
        sections.setdefault(section, {}).update(options)
    benchlib.write_config(os.path.join(confdir, 'placement.conf'), sections)
    return confdir


def db_sync(python, confdir):
    """Build Placement's schema (placement-manage reads --config-file).

    :raises subprocess.CalledProcessError: it failed; its output in it.
    """
    subprocess.run(benchlib.console_script('placement-manage', python) +
                   ['--config-file', os.path.join(confdir, 'placement.conf'),
                    'db', 'sync'], check=True, capture_output=True, text=True)


def parse_options(options):
    """{section: {option: value}} of ``SECTION.NAME=VALUE`` strings."""
    sections = {}
    for item in options or ():
        name, sep, value = item.partition('=')
        section, dot, option = name.partition('.')
        if not (sep and dot and section and option):
            raise SystemExit('--option %r: expected SECTION.NAME=VALUE, such '
                             'as api.auth_strategy=keystone' % item)
        sections.setdefault(section, {})[option] = value
    return sections


def serve(args):
    python = placement_venv(args.cache_dir)
    connection = args.connection or 'sqlite:///%s' % os.path.join(
        os.path.abspath(args.state_dir), 'placement.sqlite')
    confdir = write_config(args.state_dir, connection,
                           parse_options(args.option))
    db_sync(python, confdir)
    # The WSGI application finds its configuration through this.
    env = dict(os.environ, OS_PLACEMENT_CONFIG_DIR=confdir)
    print('placement %s serving on http://%s:%d with %s' % (
        PLACEMENT_VERSION, benchlib.HOST, args.port, connection),
        flush=True)
    os.execve(python, [python, '-c', benchlib.SERVE,
                       'placement.wsgi.api:application', str(args.port),
                       str(SERVER_THREADS), ''], env)


def main(argv=None):
    parser = benchlib.tool_parser(__doc__)
    commands = parser.add_subparsers(dest='command', required=True)
    commands.add_parser('install', help='make the virtualenv if missing')
    serving = commands.add_parser('serve', help='serve Placement')
    serving.add_argument('--port', type=int, required=True)
    serving.add_argument('--state-dir', required=True,
                         help='for its configuration and SQLite file')
    serving.add_argument('--connection',
                         help='a database URL instead of the SQLite file')
    serving.add_argument('--option', action='append', metavar='S.N=V',
                         help='an option of placement.conf, over the '
                         'defaults (noauth2): section.name=value, such '
                         'as api.auth_strategy=keystone; repeatable')
    args = parser.parse_args(argv)
    if args.command == 'install':
        print('%s %s: %s' % (PLACEMENT_DIST, PLACEMENT_VERSION,
                             placement_venv(args.cache_dir)))
    else:
        serve(args)


if __name__ == '__main__':
    main()
