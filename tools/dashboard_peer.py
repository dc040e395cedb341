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

"""Horizon with zun-ui from PyPI, the dashboard an operator sees us in.

``install`` makes (once) a virtualenv of its own under ``.bench/`` with
Horizon, zun-ui and the python-zunclient zun-ui calls us with, pinned,
waitress (the version of this environment) and WhiteNoise for the static
files. It enables zun-ui's panels (its ``enabled`` files copied into
Horizon's ``openstack_dashboard/local/enabled/``), then collects and
compresses the static files offline, once: they depend on the installed
packages, not on the Keystone a dashboard talks to::

    python tools/dashboard_peer.py install [--cache-dir DIR]
    python tools/dashboard_peer.py start --dir DIR --auth-url URL \
        [--domain NAME] [--port N]
    python tools/dashboard_peer.py stop --dir DIR
    python tools/dashboard_peer.py serve --dir DIR --auth-url URL \
        [--domain NAME] --port N

``start`` writes the dashboard's settings into DIR (``local_settings.py``:
the Keystone v3 URL, the domain users log in to (``--domain``, default
``Default``), no multi-domain login, a secret
key, sessions in a local-memory cache), starts waitress on a free port of
127.0.0.1 (or ``--port``), waits until the login page answers and prints
one JSON line: ``{"url": ..., "pid": ..., "log": ...}``. ``stop`` stops
it by that pid. ``serve`` does the same in the foreground, replacing
itself (exec) with the server: its pid is the server's, as the
functional tests want it.

Zun-ui finds the service in the Keystone catalog as the ``container``
service type; the browser the tests drive is Debian's ``chromium`` and
``chromium-driver`` (tools/test-setup.sh installs them).
"""

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402  (tools/ is no package)

HORIZON_VERSION = '27.0.0'
ZUN_UI_VERSION = '18.0.0'
# zun-ui 18 asks for any python-zunclient >= 3.5.0; the one of the same
# release (and of our functional tests) speaks up to API 1.40.
ZUNCLIENT_VERSION = '5.5.0'
WHITENOISE_VERSION = '6.12.0'
DEFAULT_CACHE = benchlib.CACHE_DIR
SERVER_THREADS = 8
# Seconds ``start`` waits for the login page (the first request loads
# every dashboard and panel).
START_TIMEOUT = 60
STOP_TIMEOUT = 20

SETTINGS_MODULE = 'local_settings'
WSGI_MODULE = 'dashboard_wsgi'
PID_FILE = 'dashboard.pid'
DEFAULT_DOMAIN = 'Default'
LOG_FILE = 'dashboard.log'

# The settings every dashboard shares with the one the static files are
# compressed with at install: the offline manifest's keys hash blocks of
# templates that some of these change (Keystone's URL, the domain and the
# secret key do not).
COMMON_SETTINGS = """\
from openstack_dashboard.settings import *  # noqa

DEBUG = False
ALLOWED_HOSTS = ['127.0.0.1', 'localhost']
OPENSTACK_API_VERSIONS = dict(OPENSTACK_API_VERSIONS, identity=3)
OPENSTACK_KEYSTONE_MULTIDOMAIN_SUPPORT = False
# The role Keystone's bootstrap gives every member.
OPENSTACK_KEYSTONE_DEFAULT_ROLE = 'member'
# One process (waitress's threads share it): no memcached needed.
CACHES = {'default': {
    'BACKEND': 'django.core.cache.backends.locmem.LocMemCache'}}
SESSION_ENGINE = 'django.contrib.sessions.backends.cache'
# Compressed at install (tools/dashboard_peer.py install).
COMPRESS_OFFLINE = True
# Where users land. Horizon's own home is the project overview, which
# needs a compute service (Nova) in the catalog and turns everyone away
# (403) from a cloud without one; API Access needs nothing but Keystone.
HORIZON_CONFIG['user_home'] = WEBROOT + 'project/api_access/'
LOGGING = {
    'version': 1,
    'disable_existing_loggers': False,
    'handlers': {'console': {'class': 'logging.StreamHandler'}},
    'root': {'handlers': ['console'], 'level': 'WARNING'},
}
"""

# For collectstatic and compress, at install: no Keystone.
BUILD_SETTINGS = COMMON_SETTINGS + """
SECRET_KEY = 'static files only'
"""

# What is one dashboard's own, after the common settings (in Django's
# settings module of its directory).
DASHBOARD_SETTINGS = """
SECRET_KEY = {secret_key!r}
OPENSTACK_KEYSTONE_URL = {auth_url!r}
OPENSTACK_KEYSTONE_DEFAULT_DOMAIN = {domain!r}
"""

# Django behind WhiteNoise, which serves the collected static files as a
# web server would in front of Horizon.
DASHBOARD_WSGI = '''\
import os

os.environ.setdefault('DJANGO_SETTINGS_MODULE', {settings!r})

from django.conf import settings  # noqa: E402
from django.core.wsgi import get_wsgi_application  # noqa: E402
from whitenoise import WhiteNoise  # noqa: E402

application = WhiteNoise(get_wsgi_application(), root=settings.STATIC_ROOT,
                         prefix=settings.STATIC_URL)
'''


def _venv(cache_dir):
    return benchlib.PeerVenv('dashboard-horizon-%s-zun-ui-%s' % (
        HORIZON_VERSION, ZUN_UI_VERSION), cache_dir)


def installed_python(cache_dir=DEFAULT_CACHE):
    """The Python of the virtualenv if it was made in full, else None."""
    return _venv(cache_dir).installed_python()


def _run(command, what, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True,
                            **kwargs)
    if result.returncode:
        raise SystemExit('%s failed:\n%s%s' % (
            what, result.stdout[-4000:], result.stderr[-4000:]))
    return result.stdout


def _site_packages(python):
    return _run([python, '-c', 'import sysconfig; '
                 'print(sysconfig.get_paths()["purelib"])'],
                'finding site-packages').strip()


def _enable_zun_ui(site):
    """Copy zun-ui's enabled files where Horizon looks for local ones."""
    source = os.path.join(site, 'zun_ui', 'enabled')
    target = os.path.join(site, 'openstack_dashboard', 'local', 'enabled')
    names = sorted(name for name in os.listdir(source)
                   if name.startswith('_') and name.endswith('.py') and
                   name != '__init__.py')
    for name in names:
        shutil.copy(os.path.join(source, name), os.path.join(target, name))
    return names


def _static_stamp(venv):
    """The file that says the static files fit ``COMMON_SETTINGS``."""
    digest = hashlib.sha256(BUILD_SETTINGS.encode()).hexdigest()[:16]
    return os.path.join(venv, 'static-ready-%s' % digest)


def _build_static(python, venv):
    """collectstatic and compress, with settings of no dashboard.

    Again whenever the settings every dashboard shares change: the
    offline manifest would miss their blocks.
    """
    stamp = _static_stamp(venv)
    if os.path.exists(stamp):
        return
    build_dir = os.path.join(venv, 'static-build')
    os.makedirs(build_dir, exist_ok=True)
    with open(os.path.join(build_dir, 'build_settings.py'), 'w') as f:
        f.write(BUILD_SETTINGS)
    env = dict(os.environ, PYTHONPATH=build_dir,
               DJANGO_SETTINGS_MODULE='build_settings')
    manage = [python, '-m', 'django']
    _run(manage + ['collectstatic', '--noinput', '--clear', '-v', '0'],
         'collectstatic', env=env)
    _run(manage + ['compress', '--force', '-v', '0'], 'compress', env=env)
    for name in os.listdir(venv):
        if name.startswith('static-ready-'):
            os.unlink(os.path.join(venv, name))
    with open(stamp, 'w') as f:
        f.write(BUILD_SETTINGS)


def dashboard_venv(cache_dir=DEFAULT_CACHE):
    """The Python of a virtualenv with Horizon and zun-ui, made if missing.

    Returns (python, seconds the install took, 0 if it was there).
    """
    started = time.monotonic()
    venv = _venv(cache_dir)
    if venv.installed_python() is not None:
        _build_static(venv.python, venv.path)
        return venv.python, 0.0

    def enable_and_build(python):
        _enable_zun_ui(_site_packages(python))
        _build_static(python, venv.path)

    venv.create(['horizon==%s' % HORIZON_VERSION,
                 'zun-ui==%s' % ZUN_UI_VERSION,
                 'python-zunclient==%s' % ZUNCLIENT_VERSION,
                 'whitenoise==%s' % WHITENOISE_VERSION,
                 benchlib.pinned('waitress')],
                then=enable_and_build)
    return venv.python, time.monotonic() - started


def write_settings(state_dir, auth_url, domain=DEFAULT_DOMAIN):
    """The dashboard's settings and WSGI modules, in ``state_dir``.

    Users log in to ``domain`` (a name), with no domain field on the form.
    """
    state_dir = os.path.abspath(state_dir)
    os.makedirs(state_dir, exist_ok=True)
    with open(os.path.join(state_dir, SETTINGS_MODULE + '.py'), 'w') as f:
        f.write(COMMON_SETTINGS + DASHBOARD_SETTINGS.format(
            secret_key=os.urandom(24).hex(), auth_url=auth_url,
            domain=domain))
    with open(os.path.join(state_dir, WSGI_MODULE + '.py'), 'w') as f:
        f.write(DASHBOARD_WSGI.format(settings=SETTINGS_MODULE))
    return state_dir


def serve_command(python, state_dir, port):
    """(command, environment) of waitress serving the dashboard."""
    env = dict(os.environ, PYTHONPATH=os.path.abspath(state_dir),
               DJANGO_SETTINGS_MODULE=SETTINGS_MODULE)
    command = [python, '-c', benchlib.SERVE, WSGI_MODULE + ':application',
               str(port), str(SERVER_THREADS), '']
    return command, env


def login_url(port):
    return 'http://%s:%d/auth/login/' % (benchlib.HOST, port)


def serving(port):
    """Whether the dashboard's login page answers 200."""
    try:
        with urllib.request.urlopen(login_url(port), timeout=5) as resp:
            return resp.status == 200
    except (OSError, urllib.error.HTTPError):
        return False


def serve(args):
    python, _ = dashboard_venv(args.cache_dir)
    write_settings(args.dir, args.auth_url, args.domain)
    command, env = serve_command(python, args.dir, args.port)
    print('horizon %s with zun-ui %s serving on http://%s:%d/ for %s' % (
        HORIZON_VERSION, ZUN_UI_VERSION, benchlib.HOST, args.port,
        args.auth_url), flush=True)
    os.execve(python, command, env)


def start(args):
    python, _ = dashboard_venv(args.cache_dir)
    state_dir = write_settings(args.dir, args.auth_url, args.domain)
    port = args.port or benchlib.free_port()
    command, env = serve_command(python, state_dir, port)
    log_path = os.path.join(state_dir, LOG_FILE)
    with open(log_path, 'w') as log:
        process = subprocess.Popen(command, stdout=log,
                                   stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, env=env,
                                   start_new_session=True)
    with open(os.path.join(state_dir, PID_FILE), 'w') as f:
        f.write('%d\n' % process.pid)
    deadline = time.monotonic() + START_TIMEOUT
    while not serving(port):
        if process.poll() is not None or time.monotonic() > deadline:
            _stop_pid(process.pid)
            with open(log_path, errors='replace') as f:
                raise SystemExit('the dashboard did not start:\n%s' %
                                 f.read()[-4000:])
        time.sleep(0.2)
    print(json.dumps({'url': 'http://%s:%d/' % (benchlib.HOST, port),
                      'pid': process.pid, 'log': log_path}), flush=True)


def _stop_pid(pid):
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + STOP_TIMEOUT
    while time.monotonic() < deadline:
        try:
            # Ours when started by start (reaped here), else just probed.
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                return
        except ChildProcessError:
            pass
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)


def stop(args):
    pid_file = os.path.join(os.path.abspath(args.dir), PID_FILE)
    try:
        with open(pid_file) as f:
            pid = int(f.read().strip())
    except (OSError, ValueError) as err:
        raise SystemExit('no dashboard started in %s: %s' % (args.dir, err))
    _stop_pid(pid)
    os.unlink(pid_file)
    print('stopped the dashboard (pid %d)' % pid)


def main(argv=None):
    parser = benchlib.tool_parser(__doc__)
    commands = parser.add_subparsers(dest='command', required=True)
    commands.add_parser('install', help='make the virtualenv if missing')
    for name, help_ in (('start', 'start a dashboard in the background'),
                        ('serve', 'serve a dashboard in the foreground')):
        command = commands.add_parser(name, help=help_)
        command.add_argument('--dir', required=True,
                             help='for its settings, pid and log')
        command.add_argument('--auth-url', required=True,
                             help="Keystone's URL, e.g. "
                             'http://127.0.0.1:5000/v3')
        command.add_argument('--domain', default=DEFAULT_DOMAIN,
                             help='the domain users log in to '
                             '(default %(default)s)')
        command.add_argument('--port', type=int, required=name == 'serve',
                             help='default: a free one')
    stopping = commands.add_parser('stop', help='stop what start started')
    stopping.add_argument('--dir', required=True)
    args = parser.parse_args(argv)
    if args.command == 'install':
        python, seconds = dashboard_venv(args.cache_dir)
        print('horizon %s, zun-ui %s: %s%s' % (
            HORIZON_VERSION, ZUN_UI_VERSION, python,
            ' (installed in %.0f s)' % seconds if seconds else ''))
    elif args.command == 'start':
        start(args)
    elif args.command == 'stop':
        stop(args)
    else:
        serve(args)


if __name__ == '__main__':
    main()
