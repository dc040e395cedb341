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

"""OpenStack Keystone from PyPI, as the identity service tests run behind.

``install`` makes (once) a virtualenv of its own with keystone, pinned,
and the same waitress as this environment's. ``start`` sets Keystone up in
a directory (SQLite, fernet and credential keys, ``keystone-manage
bootstrap``), serves it on a free port of 127.0.0.1, makes the users,
projects and catalog a test needs, prints them as one JSON line and
returns, leaving the server running; ``stop`` stops it by its pid::

    python tools/keystone_peer.py install [--cache-dir DIR]
    python tools/keystone_peer.py start --dir DIR --service-url URL \\
        [--token-expiration SECONDS] [--cache-dir DIR]
    python tools/keystone_peer.py stop --dir DIR

What ``start`` makes, in a domain of its own (``zun-hostcap``):

- projects ``demo`` and ``alt_demo``, and ``service`` for service users;
- users, each a key of ``users`` in the JSON line with its
  ``username``, ``password``, ``project_name``, ``user_domain_name`` and
  ``project_domain_name``: ``admin`` (admin on ``demo`` and on the
  system), ``member`` and ``reader`` (on ``demo``), ``service`` (the
  ``service`` role on ``service``, as a deployment gives its services),
  ``norole`` (no role anywhere) and ``other`` (member on ``alt_demo``);
- the catalog, in RegionOne, with public, internal and admin endpoints:
  ``container`` (zun) at URL``/v1`` and ``placement`` at
  URL``/placement``, URL being ``--service-url``.

``start`` on a directory it set up before serves it again on the same
port (the identity endpoint in the catalog names it) and prints the same
line. The functional tests use ``KeystonePeer``, a fixture that does the
same in a process the test owns. ``tox -e functional`` runs ``install``;
where it cannot install (no package index) it warns and the tests that
need Keystone skip, unless ``CI`` is set: then it fails.
"""

import http.client
import json
import os
import secrets
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402  (tools/ is no package)

KEYSTONE_DIST = 'keystone'
KEYSTONE_VERSION = '30.0.0'
DEFAULT_CACHE = benchlib.CACHE_DIR
SERVER_THREADS = 8
REGION = 'RegionOne'
DOMAIN = 'zun-hostcap'
PROJECT = 'demo'
OTHER_PROJECT = 'alt_demo'
SERVICE_PROJECT = 'service'
# The bootstrap administrator, in the Default domain: the one who makes
# everything else.
BOOTSTRAP_USER = 'admin'
BOOTSTRAP_PROJECT = 'admin'
# persona: (username, project, project roles, system roles)
PERSONAS = {
    'admin': ('zhc-admin', PROJECT, ['admin'], ['admin']),
    'member': ('zhc-member', PROJECT, ['member'], []),
    'reader': ('zhc-reader', PROJECT, ['reader'], []),
    'service': ('zun-hostcap', SERVICE_PROJECT, ['service'], []),
    'norole': ('zhc-norole', PROJECT, [], []),
    'other': ('zhc-other', OTHER_PROJECT, ['member'], []),
}
# service type: (name, path under --service-url)
SERVICES = {
    'container': ('zun', '/v1'),
    'placement': ('placement', '/placement'),
}
STATE_FILE = 'keystone.json'


def _venv(cache_dir):
    return benchlib.PeerVenv('keystone-%s' % KEYSTONE_VERSION, cache_dir)


def installed_python(cache_dir=DEFAULT_CACHE):
    """The Python of the virtualenv if it was made in full, else None."""
    return _venv(cache_dir).installed_python()


def keystone_venv(cache_dir=DEFAULT_CACHE):
    """The Python of a virtualenv with Keystone, made when missing."""
    venv = _venv(cache_dir)
    if venv.installed_python() is None:
        venv.create(['%s==%s' % (KEYSTONE_DIST, KEYSTONE_VERSION),
                     benchlib.pinned('waitress')])
    return venv.python


def write_config(state_dir, token_expiration=None, extra=None):
    """keystone.conf in ``state_dir``; its path.

    ``extra``: more options, {section: {option: value}}.
    """
    state_dir = os.path.abspath(state_dir)
    sections = {
        'DEFAULT': {'debug': 'false'},
        'database': {'connection': 'sqlite:///%s' % os.path.join(
            state_dir, 'keystone.sqlite')},
        'fernet_tokens': {'key_repository': os.path.join(state_dir,
                                                         'fernet-keys')},
        'fernet_receipts': {'key_repository': os.path.join(
            state_dir, 'fernet-keys')},
        'credential': {'key_repository': os.path.join(state_dir,
                                                      'credential-keys')},
        # The fewest bcrypt rounds: every password authentication hashes
        # once, and the tests authenticate often.
        'identity': {'password_hash_rounds': 4},
        # Not a policy file of this machine: the defaults.
        'oslo_policy': {'policy_file': os.path.join(state_dir,
                                                    'policy.yaml')},
    }
    if token_expiration is not None:
        sections['token'] = {'expiration': int(token_expiration)}
    for section, options in (extra or {}).items():
        sections.setdefault(section, {}).update(options)
    return benchlib.write_config(os.path.join(state_dir, 'keystone.conf'),
                                 sections)


def _manage(python, config, *args):
    result = subprocess.run(
        benchlib.console_script('keystone-manage', python) +
        ['--config-file', config] + list(args),
        capture_output=True, text=True)
    if result.returncode:
        raise RuntimeError('keystone-manage %s failed with %d:\n%s%s' % (
            args[0], result.returncode, result.stdout, result.stderr))


def _owner():
    import grp
    import pwd
    return (pwd.getpwuid(os.geteuid()).pw_name,
            grp.getgrgid(os.getegid()).gr_name)


def set_up(python, state_dir, port, admin_password):
    """The schema, the keys and the bootstrap administrator.

    The identity endpoints of the catalog name ``port``.
    """
    config = os.path.join(os.path.abspath(state_dir), 'keystone.conf')
    user, group = _owner()
    _manage(python, config, 'db_sync')
    _manage(python, config, 'fernet_setup', '--keystone-user', user,
            '--keystone-group', group)
    _manage(python, config, 'credential_setup', '--keystone-user', user,
            '--keystone-group', group)
    url = 'http://%s:%d/v3' % (benchlib.HOST, port)
    _manage(python, config, 'bootstrap',
            '--bootstrap-username', BOOTSTRAP_USER,
            '--bootstrap-password', admin_password,
            '--bootstrap-project-name', BOOTSTRAP_PROJECT,
            '--bootstrap-admin-url', url, '--bootstrap-public-url', url,
            '--bootstrap-internal-url', url,
            '--bootstrap-region-id', REGION)


class KeystonePeer(benchlib.Process):
    """Keystone in a process of its own, stopped by its own pid.

    As a fixture: set up in ``state_dir`` (made if missing), served,
    populated (see the module's docstring); ``auth_url`` and ``users``
    then say how to reach it. ``stop()`` and ``start()`` stop it and
    serve it again, same port and data. ``state()`` is the JSON line
    ``start`` prints.

    :param service_url: the base URL of zun-hostcap in the catalog.
    :param token_expiration: seconds a token lives (Keystone's default,
        3600, when None).
    :param extra: more keystone.conf options, {section: {option: value}}.
    """

    def __init__(self, state_dir, service_url, token_expiration=None,
                 extra=None, cache_dir=DEFAULT_CACHE, python=None):
        self.state_dir = os.path.abspath(state_dir)
        self.service_url = service_url.rstrip('/')
        self.token_expiration = token_expiration
        self.extra = extra
        self.python = python or installed_python(cache_dir)
        if self.python is None:
            raise RuntimeError('keystone is not installed (run %s install)'
                               % os.path.abspath(__file__))
        os.makedirs(self.state_dir, exist_ok=True)
        saved = self._saved_state()
        self.port = saved['port'] if saved else benchlib.free_port()
        self.auth_url = 'http://%s:%d/v3' % (benchlib.HOST, self.port)
        self.users = saved['users'] if saved else None
        self.admin_password = (saved['admin_password'] if saved
                               else secrets.token_hex(8))
        env = {'OS_KEYSTONE_CONFIG_FILES': os.path.join(self.state_dir,
                                                        'keystone.conf')}
        super().__init__(
            'keystone', [self.python, '-c', benchlib.SERVE,
                         'keystone.wsgi.api:application', str(self.port),
                         str(SERVER_THREADS), ''],
            os.path.join(self.state_dir, 'keystone.log'), env)

    def _saved_state(self):
        try:
            with open(os.path.join(self.state_dir, STATE_FILE)) as f:
                return json.load(f)
        except (OSError, ValueError):
            return None

    def _setUp(self):
        self.addCleanup(self.stop)
        self.set_up_and_start()

    def set_up_and_start(self):
        """Set up (the first time), serve, populate (the first time)."""
        if self.users is None:
            write_config(self.state_dir, self.token_expiration, self.extra)
            set_up(self.python, self.state_dir, self.port,
                   self.admin_password)
        self.start()
        if self.users is None:
            self.users = populate(self.auth_url, self.admin_password,
                                  self.service_url)
            self._save()
        return self.state()

    def start(self, timeout=90):
        """Serve; return once ``GET /v3`` answers 200."""
        super().start()
        deadline = time.monotonic() + timeout
        while not self._answers():
            if self.process.poll() is not None:
                raise RuntimeError('keystone exited with %s:\n%s' % (
                    self.process.returncode, self.log_tail()))
            if time.monotonic() > deadline:
                raise RuntimeError('keystone did not answer in %ss:\n%s' % (
                    timeout, self.log_tail()))
            time.sleep(0.1)

    def _answers(self):
        try:
            conn = http.client.HTTPConnection(benchlib.HOST, self.port,
                                              timeout=10)
            conn.request('GET', '/v3')
            status = conn.getresponse().status
            conn.close()
            return status == 200
        except OSError:
            return False

    def state(self):
        """What ``start`` prints: auth_url, pid, users."""
        return {'auth_url': self.auth_url, 'pid': self.pid,
                'region_name': REGION, 'users': self.users}

    def _save(self):
        saved = {'port': self.port, 'admin_password': self.admin_password,
                 'users': self.users}
        if self.process is not None:
            saved.update(pid=self.pid, marker=self.marker,
                         created=self._created)
        path = os.path.join(self.state_dir, STATE_FILE)
        with open(path + '.tmp', 'w') as f:
            json.dump(saved, f)
        os.replace(path + '.tmp', path)

    def session(self, persona, **scope):
        """A keystoneauth1 Session of ``persona`` (password auth).

        Scoped to the persona's project; ``system_scope='all'`` instead
        asks for a system-scoped token.
        """
        return session(self.auth_url, self.users[persona], **scope)


def session(auth_url, user, **scope):
    """A keystoneauth1 Session with password auth as ``user``.

    ``user``: a user's entry of the JSON line. Project-scoped unless
    ``scope`` says otherwise (e.g. ``system_scope='all'``).
    """
    from keystoneauth1.identity import v3
    from keystoneauth1 import session as ks_session
    if not scope:
        scope = {'project_name': user['project_name'],
                 'project_domain_name': user['project_domain_name']}
    auth = v3.Password(auth_url=auth_url, username=user['username'],
                       password=user['password'],
                       user_domain_name=user['user_domain_name'], **scope)
    return ks_session.Session(auth=auth)


class _Identity(object):
    """Identity v3 calls of a system administrator, to populate Keystone."""

    def __init__(self, auth_url, admin_password):
        self.session = session(
            auth_url, {'username': BOOTSTRAP_USER, 'password': admin_password,
                       'user_domain_name': 'Default'}, system_scope='all')
        self.auth_url = auth_url

    def call(self, method, path, body=None):
        response = self.session.request(
            self.auth_url + path, method, json=body,
            headers={'Accept': 'application/json'})
        return response.json() if response.content else None

    def find(self, collection, **query):
        path = '/%s?%s' % (collection, '&'.join(
            '%s=%s' % item for item in sorted(query.items())))
        found = self.call('GET', path)[collection.rpartition('/')[2]]
        return found[0]['id'] if found else None

    def create(self, collection, key, **body):
        return self.call('POST', '/' + collection, {key: body})[key]['id']

    def role(self, name):
        return (self.find('roles', name=name) or
                self.create('roles', 'role', name=name))


def populate(auth_url, admin_password, service_url):
    """The domain, projects, users, roles and catalog of a test.

    :returns: the ``users`` of the JSON line.
    """
    identity = _Identity(auth_url, admin_password)
    domain = identity.create('domains', 'domain', name=DOMAIN,
                             description='zun-hostcap tests')
    projects = {name: identity.create('projects', 'project', name=name,
                                      domain_id=domain)
                for name in (PROJECT, OTHER_PROJECT, SERVICE_PROJECT)}
    users = {}
    for persona, (username, project, project_roles,
                  system_roles) in PERSONAS.items():
        password = secrets.token_hex(8)
        user = identity.create('users', 'user', name=username,
                               password=password, domain_id=domain,
                               default_project_id=projects[project])
        for role in project_roles:
            identity.call('PUT', '/projects/%s/users/%s/roles/%s' % (
                projects[project], user, identity.role(role)))
        for role in system_roles:
            identity.call('PUT', '/system/users/%s/roles/%s' % (
                user, identity.role(role)))
        users[persona] = {
            'username': username, 'password': password,
            'project_name': project, 'user_domain_name': DOMAIN,
            'project_domain_name': DOMAIN,
        }
    for service_type, (name, path) in SERVICES.items():
        service = identity.create('services', 'service', type=service_type,
                                  name=name, enabled=True)
        for interface in ('public', 'internal', 'admin'):
            identity.create('endpoints', 'endpoint', service_id=service,
                            interface=interface, region_id=REGION,
                            url=service_url.rstrip('/') + path,
                            enabled=True)
    return users


def _install(args):
    try:
        python = keystone_venv(args.cache_dir)
    except (SystemExit, subprocess.CalledProcessError) as err:
        if os.environ.get('CI'):
            raise
        # A developer machine without the package index: the tests that
        # need Keystone skip, as they do when it was never installed.
        print('WARNING: keystone could not be installed; the tests that '
              'need it will skip:\n%s' % err, file=sys.stderr)
        return
    print('%s %s: %s' % (KEYSTONE_DIST, KEYSTONE_VERSION, python))


def _start(args):
    try:
        peer = KeystonePeer(args.dir, args.service_url,
                            args.token_expiration,
                            python=keystone_venv(args.cache_dir))
    except RuntimeError as err:
        raise SystemExit(str(err))
    pid = _saved_pid(peer.state_dir)
    if pid is not None:
        raise SystemExit('keystone is running in %s already (pid %d): '
                         'stop it first' % (peer.state_dir, pid))
    try:
        state = peer.set_up_and_start()
    except Exception:
        if peer.running():
            peer.stop()
        raise
    peer._save()
    # The server outlives this command: stop --dir stops it.
    print(json.dumps(state), flush=True)


def _saved_pid(state_dir):
    """The pid of the server ``start`` left running in ``state_dir``."""
    try:
        with open(os.path.join(state_dir, STATE_FILE)) as f:
            saved = json.load(f)
    except (OSError, ValueError):
        return None
    pid = saved.get('pid')
    if pid is None:
        return None
    import psutil
    try:
        if psutil.Process(pid).create_time() == saved.get('created'):
            return pid
    except psutil.NoSuchProcess:
        pass
    return None


def _stop(args):
    state_dir = os.path.abspath(args.dir)
    pid = _saved_pid(state_dir)
    if pid is None:
        print('keystone is not running in %s' % state_dir)
        return
    with open(os.path.join(state_dir, STATE_FILE)) as f:
        saved = json.load(f)
    import psutil
    proc = psutil.Process(pid)
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(benchlib.local_servers.STOP_TIMEOUT)
    except psutil.TimeoutExpired:
        proc.kill()
        proc.wait(10)
    benchlib.local_servers.kill_family(pid, saved['marker'],
                                       saved['created'])
    saved.pop('pid')
    with open(os.path.join(state_dir, STATE_FILE), 'w') as f:
        json.dump(saved, f)
    print('keystone (pid %d) stopped' % pid)


def main(argv=None):
    parser = benchlib.tool_parser(__doc__)
    commands = parser.add_subparsers(dest='command', required=True)
    commands.add_parser('install', help='make the virtualenv if missing')
    starting = commands.add_parser(
        'start', help='set up, serve and populate Keystone; print how to '
        'reach it as one JSON line')
    starting.add_argument('--dir', required=True,
                          help='for its configuration, keys, SQLite file '
                          'and log')
    starting.add_argument('--service-url', required=True,
                          help="zun-hostcap's base URL, for the catalog")
    starting.add_argument('--token-expiration', type=int,
                          help='seconds a token lives (default: 3600)')
    stopping = commands.add_parser('stop', help='stop what start started')
    stopping.add_argument('--dir', required=True)
    args = parser.parse_args(argv)
    if args.command == 'install':
        _install(args)
    elif args.command == 'start':
        _start(args)
    else:
        _stop(args)


if __name__ == '__main__':
    main()
