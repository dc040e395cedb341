"""Two releases side by side, for the upgrade test.

The previous release (``tools/previous-release.ini``) is installed from
this repository's history by ``tools/previous_release.py``, in a
virtualenv kept in its cache directory (``.bench/`` of the source tree,
or ``$ZUN_HOSTCAP_BENCH_CACHE``); this release is the tox environment's.
A ``Poller`` asks ``/v1/services`` every second what the services are,
and remembers every moment a running one was shown down.
"""

import importlib.util
import json
import os
import threading
import time

from zun_hostcap.tests.functional import base

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
TOOL = os.path.join(REPO, 'tools', 'previous_release.py')

HEADERS = {'X-Auth-Token': 'admin',
           'OpenStack-API-Version': 'container 1.40'}


def _tool():
    spec = importlib.util.spec_from_file_location('previous_release', TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Release(object):
    """The console scripts of one release, beside its Python."""

    def __init__(self, name, python=None):
        self.name = name
        self.python = python

    def command(self, script):
        if self.python is None:
            return base.console_script(script)
        return [os.path.join(os.path.dirname(self.python), script)]


def this_release():
    return Release('new')


def previous_release():
    """The previous release, installed when its virtualenv is missing.

    :returns: (Release, seconds the install took, 0 if it was there).
    """
    tool = _tool()
    release = tool.Release()
    started = time.monotonic()
    installed = tool.installed_python(release)
    python = installed or tool.install(release)
    seconds = 0 if installed else time.monotonic() - started
    return Release(release.name, python), seconds


def api_get(url, path):
    """(status, JSON document) of a GET of the Zun-compatible API."""
    status, _headers, body = base.http_get(url + path, HEADERS)
    return status, json.loads(body) if body else None


class Poller(object):
    """Asks ``/v1/services`` every second; remembers the down moments.

    ``expect(host, binary)`` adds a service that must be up in every
    answer from then on. ``url`` may be changed to another API at any
    time (the upgraded one).
    """

    def __init__(self, url, interval=1):
        self.url = url
        self.interval = interval
        self.expected = set()
        self.polls = 0
        # (seconds since start, what was wrong), in order.
        self.problems = []
        self._started = time.monotonic()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name='services-poller')

    def start(self):
        self._thread.start()

    def stop(self):
        self._stop.set()
        self._thread.join(30)

    def expect(self, host, binary):
        with self._lock:
            self.expected.add((host, binary))

    def _problem(self, what):
        self.problems.append((round(time.monotonic() - self._started, 1),
                              what))

    def _run(self):
        while not self._stop.wait(self.interval):
            try:
                status, doc = api_get(self.url, '/v1/services')
            except (OSError, ValueError) as err:
                self._problem('GET /v1/services at %s: %s' % (self.url, err))
                continue
            self.polls += 1
            if status != 200:
                self._problem('GET /v1/services at %s: %d %s'
                              % (self.url, status, doc))
                continue
            states = {(svc['host'], svc['binary']): svc['state']
                      for svc in doc['services']}
            with self._lock:
                expected = sorted(self.expected)
            for key in expected:
                if states.get(key) != 'up':
                    self._problem('%s %s shown %s' % (key + (
                        states.get(key, 'missing'),)))
