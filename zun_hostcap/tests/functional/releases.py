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

"""Two releases side by side, for the upgrade test.

The previous release (``tools/previous-release.ini``) is installed from
this repository's history by ``tools/previous_release.py``, in a
virtualenv kept in its cache directory (``.bench/`` of the source tree,
or ``$ZUN_HOSTCAP_BENCH_CACHE``); this release is the tox environment's.
A ``MixedDeployment`` runs services of either on one database and one
RabbitMQ virtual host, and a ``Poller`` asks ``/v1/services`` every
second what the services are, and remembers every moment a running one
was shown down.
"""

import dataclasses
import importlib.util
import json
import os
import re
import subprocess
import sys
import threading
import time
import uuid

import fixtures

from zun_hostcap.os_capability import fake as fake_host
from zun_hostcap.tests.functional import base

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
TOOL = os.path.join(REPO, 'tools', 'previous_release.py')

HEADERS = {'X-Auth-Token': 'admin',
           'OpenStack-API-Version': 'container 1.40'}
PLACEMENT_HEADERS = {'X-Auth-Token': 'admin',
                     'OpenStack-API-Version': 'placement 1.39'}

CONDUCTOR = 'zun-hostcap-conductor'
COMPUTE = 'zun-hostcap-compute'
API = 'zun-hostcap-api'

# A record of level ERROR or CRITICAL, or an uncaught traceback; not the
# traceback of a DEBUG record, which oslo.log prefixes with "ERROR" too,
# without the request's brackets.
_ERROR_RECORD = re.compile(r'^\S+ \S+ \d+ (ERROR|CRITICAL) \S+ \[|^Traceback')


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


class MixedDeployment(fixtures.Fixture):
    """Services of two releases on one MariaDB database and RabbitMQ vhost.

    Both of the test's own. Hosts have short names (``ctl-1``, ``A``...)
    and each a host name of its own; every service is a process stopped
    by its own pid, labelled as its configuration and log files in the
    fixture's directory are named. Waits show the end of the logs of the
    processes that run.
    """

    def __init__(self, test, names, report_interval, update_interval,
                 service_down_time):
        super().__init__()
        self.test = test
        self.names = names
        self.report_interval = report_interval
        self.update_interval = update_interval
        self.service_down_time = service_down_time

    def _setUp(self):
        base.require_port(self.test, 'MariaDB', 3306)
        self.db = self.useFixture(base.MySQLDatabase())
        self.vhost = self.useFixture(base.RabbitVhost(self.test))
        self.tmp = self.useFixture(fixtures.TempDir()).path
        suffix = uuid.uuid4().hex[:8]
        self.topic = 'zun-hostcap-conductor-%s' % suffix
        self.exchange = 'zun-hostcap-test-%s' % suffix
        self.hosts = {name: 'upgrade-%s-%s' % (name.lower(), suffix)
                      for name in self.names}
        self.processes = {}
        # Host name -> its fake capabilities file, and how often moved.
        self.fake_files = {}
        self.fake_moves = {}

    # Configuration, processes

    def config(self, name, host, **sections):
        """The configuration file ``name`` of a service of ``host``."""
        merged = {
            'DEFAULT': {'transport_url': self.vhost.url,
                        'control_exchange': self.exchange,
                        'state_path': self.tmp,
                        'report_interval': self.report_interval,
                        'service_down_time': self.service_down_time,
                        'debug': 'true', 'host': self.hosts[host]},
            'conductor': {'topic': self.topic},
            'compute': {'resource_update_interval': self.update_interval},
            'oslo_messaging_rabbit': {'rabbit_retry_backoff': 0,
                                      'rabbit_interval_max': 1},
            'database': {'connection': self.db.url},
            # No policy file of this machine.
            'oslo_policy': {'policy_file': os.path.join(self.tmp,
                                                        'policy.yaml')},
        }
        for section, options in sections.items():
            merged.setdefault(section, {}).update(options)
        return base.write_config(os.path.join(self.tmp, name + '.conf'),
                                 merged)

    def path(self, name):
        return os.path.join(self.tmp, name)

    def start(self, label, release, script, config):
        process = self.useFixture(base.Process(
            label, release.command(script) + ['--config-file', config],
            os.path.join(self.tmp, label + '.log')))
        self.processes[label] = process
        return process

    def run(self, release, script, config, *args):
        """(exit status, stdout, stderr) of a console script of it."""
        result = subprocess.run(
            release.command(script) + ['--config-file', config] +
            list(args), capture_output=True, text=True, timeout=120)
        return result.returncode, result.stdout, result.stderr

    def python(self, release, code, *args, stdin=None):
        """(exit status, stdout, stderr) of Python ``code`` of it.

        Run elsewhere than in the source tree, which ``-c`` would put
        first on the path of the previous release's Python.
        """
        result = subprocess.run(
            [release.python or sys.executable, '-c', code] + list(args),
            input=stdin, capture_output=True, text=True, timeout=120,
            cwd=self.tmp)
        return result.returncode, result.stdout, result.stderr

    def conductor(self, name, release):
        label = '%s-%s' % (name, release.name)
        return self.start(label, release, CONDUCTOR,
                          self.config(label, name))

    def compute(self, name, release, label=None, **sections):
        # No database: a compute never opens it.
        sections.setdefault('database', {
            'connection': 'mysql+pymysql://nobody:nothing@127.0.0.1:1/x'})
        label = label or 'compute-%s-%s' % (name, release.name)
        return self.start(label, release, COMPUTE,
                          self.config(label, name, **sections))

    def fake_compute(self, name, release, label=None, **sections):
        """A compute of a host of the fake driver, which the test moves."""
        path = self.fake_files.setdefault(
            name, os.path.join(self.tmp, 'host-%s.json' % name))
        if not os.path.exists(path):
            fake_host.write_capabilities(path,
                                         fake_host.sample_capabilities())
        compute = dict(sections.pop('compute', {}),
                       os_capability_driver='fake',
                       fake_capabilities_file=path)
        return self.compute(name, release, label, compute=compute,
                            **sections)

    def api(self, release, host):
        """zun-hostcap-api of ``release``; its URL once it serves."""
        port = base.free_port()
        label = 'api-%s' % release.name
        config = self.config(label, host, api={
            'host': '127.0.0.1', 'port': port, 'workers': 1,
            'auth_strategy': 'noauth2'})
        process = self.start(label, release, API, config)
        url = 'http://127.0.0.1:%d' % port
        base.wait_until_serving(self.test, process, url + '/', timeout=60)
        return url

    # What the deployment shows

    def rows(self, table, key):
        """{key's values: row} of ``table``."""
        return {tuple(row[name] for name in key) if len(key) > 1 else
                row[key[0]]: row
                for row in self.db.rows('SELECT * FROM %s' % table)}

    def node(self, name):
        return self.rows('compute_nodes', ('hostname',)).get(
            self.hosts[name])

    def service(self, name, binary):
        return self.rows('services', ('host', 'binary')).get(
            (self.hosts[name], binary))

    def service_version(self, name, binary):
        """The service version it recorded; None when it recorded none."""
        rows = self.db.rows(
            'SELECT v.version FROM services s JOIN service_versions v '
            'ON v.service_id = s.id WHERE s.host = :host '
            'AND s.`binary` = :binary', host=self.hosts[name], binary=binary)
        return rows[0]['version'] if rows else None

    @staticmethod
    def documents(url):
        """The API's answers: versions, hosts (list, each), services."""
        docs = {}
        for path in ('/', '/v1', '/v1/hosts', '/v1/services',
                     '/v1/hosts?limit=1', '/v1/hosts/no-such-host'):
            docs[path] = api_get(url, path)
        for host in docs['/v1/hosts'][1]['hosts']:
            for ident in (host['uuid'], host['hostname']):
                path = '/v1/hosts/%s' % ident
                docs[path] = api_get(url, path)
        return docs

    @staticmethod
    def placement_get(url, path):
        """The JSON document of a GET of ``url``'s /placement that is 200."""
        status, _headers, body = base.http_get(url + '/placement' + path,
                                               PLACEMENT_HEADERS)
        if status != 200:
            raise AssertionError('GET /placement%s: %d %s'
                                 % (path, status, body))
        return json.loads(body)

    def errors_logged(self):
        """{label: its first error lines} of the services that logged any."""
        found = {}
        for label, process in self.processes.items():
            lines = [line for line in process.log().splitlines()
                     if _ERROR_RECORD.search(line)]
            if lines:
                found[label] = lines[:5]
        return found

    # Waiting for the services

    def wait(self, predicate, message, timeout=60):
        return base.wait_for(predicate, timeout, interval=0.5,
                             message=message, processes=tuple(
                                 process for process in
                                 self.processes.values()
                                 if process.running()))

    def wait_beats(self, name, binary, beats=2):
        """Until the service counts ``beats`` more heartbeats."""
        before = (self.service(name, binary) or {}).get('report_count', 0)
        self.wait(lambda: (self.service(name, binary) or {}).get(
            'report_count', 0) >= before + beats,
            '%d heartbeats of %s on %s' % (beats, binary, name))

    def move_fake_host(self, name):
        """Change host ``name``'s free memory; wait for its row to have it.

        Two values in turn, 5 and 10 percent of its memory below the
        sample's: each a change its compute saves.
        """
        caps = fake_host.sample_capabilities()
        memory = caps.memory
        step = self.fake_moves[name] = self.fake_moves.get(name, 0) + 1
        free = memory.mem_free - (1 + step % 2) * memory.mem_total // 20
        fake_host.write_capabilities(
            self.fake_files[name], dataclasses.replace(
                caps, memory=dataclasses.replace(memory, mem_free=free)))
        self.wait(lambda: (self.node(name) or {}).get('mem_free') ==
                  free // 1024, 'the compute of %s to save its free memory'
                  % name, timeout=30)

    def log_has(self, label, text, timeout):
        process = self.processes[label]
        self.wait(lambda: text in process.log(),
                  '%r in the log of %s' % (text, label), timeout=timeout)
