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

"""schemathesis against a live zun-hostcap-all, from /openapi.json.

The API's own OpenAPI document drives schemathesis (its CLI, in this
Python): valid requests and invalid ones (``--mode all``) for every
operation, then sequences that follow the document's links (list hosts,
then show the first; create a Placement provider, resource class, trait
or allocation, then what uses it). The run is bounded in examples per
operation and in time; it must find no 5xx and no answer that differs
from the document in status, content type, headers or body.

The figures of the run (requests, answers by status class, test cases by
generation mode, checks, 5xx with the server's traceback) are attached
to the test as details and printed. Knobs, for a longer run by hand::

    ZUN_HOSTCAP_TEST_FUZZ_SECONDS   time budget of the run (default 90)
    ZUN_HOSTCAP_TEST_FUZZ_EXAMPLES  examples per operation and cycle (25)
    ZUN_HOSTCAP_TEST_FUZZ_SEED      replay a run's seed (default random)
    ZUN_HOSTCAP_TEST_FUZZ_REPORTS   a directory to keep the reports and
                                    the output of schemathesis in
"""

import collections
import json
import os
import random
import re
import shutil
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request

import fixtures
from oslotest import base
from testtools import content as testtools_content

from zun_hostcap.api import openapi
from zun_hostcap.api import openapi_placement
from zun_hostcap.tests.functional import base as functional_base

# noauth2's administrator.
ADMIN_TOKEN = 'admin'
FUZZ_SECONDS = int(os.environ.get('ZUN_HOSTCAP_TEST_FUZZ_SECONDS', 90))
FUZZ_EXAMPLES = int(os.environ.get('ZUN_HOSTCAP_TEST_FUZZ_EXAMPLES', 25))
# One worker: hypothesis describes its filters by parsing their source with
# ast.parse, and on Python 3.11 two threads doing that at once can fail
# with "SystemError: AST constructor recursion depth mismatch", a runtime
# error of the fuzzer, not of the API (seen in CI with seed 717886661).
WORKERS = 1

# What every answer is checked for: no server error, and the document's
# status codes, content types, headers (required ones there) and body
# schemas; a required header left out gets a 4xx; an operation that
# needs a token refuses a request without one.
CHECKS = (
    'not_a_server_error',
    'status_code_conformance',
    'content_type_conformance',
    'response_headers_conformance',
    'response_schema_conformance',
    'missing_required_header',
    'ignored_auth',
)

_ERROR_LOG_RE = re.compile(r'^\S+ \S+ \d+ ERROR ')

# The Placement operations a fuzzer gets a 2xx from without building
# state first. The others need what it seldom builds (the provider's
# current generation, inventories of known classes, allocations within
# them): they answer mostly 4xx here, and their success answers are
# checked against the document in-process, route by route, by
# zun_hostcap.tests.unit.api.test_openapi.TestPlacementConformance.
PLACEMENT_STATELESS = frozenset([
    ('get', '/placement'),
    ('get', '/placement/resource_classes'),
    ('post', '/placement/resource_classes'),
    ('get', '/placement/resource_providers'),
    ('post', '/placement/resource_providers'),
    ('get', '/placement/allocations/{consumer_uuid}'),
    ('get', '/placement/traits'),
    ('get', '/placement/usages'),
])


def _status_class(status):
    return '%dxx' % (status // 100) if status else 'no answer'


class Run(object):
    """What one schemathesis run did, read from its reports."""

    def __init__(self, json_report, ndjson_report, document):
        with open(json_report) as f:
            self.report = json.load(f)
        self.templates = [
            (template, re.compile('^%s$' % re.sub(
                r'\\\{[^}]+\\\}', '[^/]+', re.escape(template))))
            for template in document['paths']]
        self.requests = 0
        self.statuses = collections.Counter()
        self.modes = collections.Counter()
        self.checks = collections.Counter()
        # (METHOD, template) -> Counter of status classes
        self.by_operation = collections.defaultdict(collections.Counter)
        self.server_errors = []
        with open(ndjson_report) as f:
            for line in f:
                event = json.loads(line)
                finished = event.get('ScenarioFinished')
                if finished:
                    self._scenario(finished.get('recorder') or {})

    def _template(self, uri):
        path = urllib.parse.urlsplit(uri).path
        for template, regex in self.templates:
            if template == path:
                return template
        return next((template for template, regex in self.templates
                     if regex.match(path)), path)

    def _scenario(self, recorder):
        for case in (recorder.get('cases') or {}).values():
            meta = case.get('value', {}).get('meta') or {}
            self.modes[(meta.get('generation') or {}).get('mode')] += 1
        for results in (recorder.get('checks') or {}).values():
            for result in results:
                self.checks[(result['name'], result['status'])] += 1
        for interaction in (recorder.get('interactions') or {}).values():
            request = interaction['request']
            response = interaction.get('response') or {}
            status = response.get('status_code', 0)
            self.requests += 1
            self.statuses[_status_class(status)] += 1
            operation = (request['method'],
                         self._template(request['uri']))
            self.by_operation[operation][_status_class(status)] += 1
            if status >= 500:
                self.server_errors.append(
                    '%s %s -> %s' % (request['method'], request['uri'],
                                     status))

    def figures(self):
        report = self.report
        lines = [
            'schemathesis %s, seed %s, %.1f s, stopped: %s' % (
                report['schemathesis_version'], report['seed'],
                report['running_time'] or 0, report['stop_reason']),
            'operations: %(tested)s tested of %(selected)s selected '
            '(%(total)s in the document)' % report['operations'],
            'test cases: %(generated)s generated, %(with_failures)s with '
            'failures, %(errored)s errored' % report['test_cases'],
            'by generation mode: %s' % ', '.join(
                '%s %d' % (mode, count)
                for mode, count in sorted(self.modes.items(), key=str)),
            'requests sent: %d' % self.requests,
            'responses by status class: %s' % ', '.join(
                '%s %d' % item for item in sorted(self.statuses.items())),
            '5xx responses: %d' % len(self.server_errors),
            'checks run: %s' % ', '.join(
                '%s %s %d' % (name, status, count) for (name, status), count
                in sorted(self.checks.items())),
            'failures: %s' % (', '.join(
                '%(code)s %(title)s x%(count)s on %(operations)s' % failure
                for failure in report['failures']) or 'none'),
            'per operation:',
        ]
        for (method, template), classes in sorted(self.by_operation.items()):
            lines.append('  %-7s %-26s %s' % (method, template, ', '.join(
                '%s %d' % item for item in sorted(classes.items()))))
        return '\n'.join(lines) + '\n'


def _server_errors(log):
    """The ERROR records of the server log, a traceback being one.

    oslo.log writes each line of a traceback as an ERROR line of its own.
    """
    records, previous = [], False
    for line in log.splitlines():
        error = bool(_ERROR_LOG_RE.match(line))
        if error and not previous:
            records.append([])
        if error:
            records[-1].append(line)
        previous = error
    return ['\n'.join(record) for record in records]


class TestSchemathesis(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.tmp = self.useFixture(fixtures.TempDir()).path
        self.port = functional_base.free_port()
        self.url = 'http://127.0.0.1:%d' % self.port
        # The embedded defaults (SQLite, fake:// transport, noauth2) with
        # a state directory and a port of its own.
        # POST /placement/reshaper is a service's by default, and the
        # admin token has no service role: an operator's policy file lets
        # the admin reshape too, so that the fuzzer reaches its body.
        policy_file = os.path.join(self.tmp, 'policy.yaml')
        with open(policy_file, 'w') as f:
            f.write('"placement:reshaper:reshape": '
                    '"rule:admin_or_service_api"\n')
        config = functional_base.write_config(
            os.path.join(self.tmp, 'zun-hostcap.conf'),
            {'DEFAULT': {'state_path': self.tmp},
             'api': {'port': self.port},
             'oslo_policy': {'policy_file': policy_file}})
        self.service = self.useFixture(functional_base.ServiceProcess(
            'zun-hostcap-all', config, self.tmp))
        self.addOnException(self._attach_server_log)
        # A real host in the database, for the document's links to show.
        functional_base.wait_for(
            self._hosts, timeout=30, message='this host from GET /v1/hosts',
            processes=(self.service,))

    def _attach_server_log(self, exc_info):
        self.addDetail('server-log', testtools_content.text_content(
            self.service.log_tail(200)))

    def _hosts(self):
        self.service.assert_running(self)
        request = urllib.request.Request(
            self.url + '/v1/hosts',
            headers={'X-Auth-Token': ADMIN_TOKEN,
                     'OpenStack-API-Version': 'container latest'})
        try:
            with urllib.request.urlopen(request, timeout=2) as resp:
                return json.load(resp)['hosts']
        except (urllib.error.URLError, ConnectionError):
            return None

    def _schemathesis(self, seed):
        json_report = os.path.join(self.tmp, 'schemathesis.json')
        ndjson_report = os.path.join(self.tmp, 'schemathesis.ndjson')
        command = [
            sys.executable, '-m', 'schemathesis.cli', 'run',
            self.url + '/openapi.json',
            '--header', 'X-Auth-Token: %s' % ADMIN_TOKEN,
            '--mode', 'all',
            '--checks', ','.join(CHECKS),
            '--max-examples', str(FUZZ_EXAMPLES),
            '--max-time', str(FUZZ_SECONDS),
            '--workers', str(WORKERS),
            '--seed', str(seed),
            '--request-timeout', '10',
            '--continue-on-failure',
            # Nothing written where the test runs.
            '--generation-database', 'none',
            '--report', 'json,ndjson',
            '--report-json-path', json_report,
            '--report-ndjson-path', ndjson_report,
            # The reports show what was sent: the token is "admin".
            '--output-sanitize', 'false',
            '--no-color',
        ]
        self.addDetail('schemathesis-command', testtools_content.text_content(
            ' '.join(command)))
        # In the temporary directory: no schemathesis.toml of the tree.
        proc = subprocess.run(command, cwd=self.tmp, capture_output=True,
                              text=True, timeout=FUZZ_SECONDS + 120)
        self.addDetail('schemathesis-output', testtools_content.text_content(
            proc.stdout + proc.stderr))
        keep = os.environ.get('ZUN_HOSTCAP_TEST_FUZZ_REPORTS')
        if keep:
            os.makedirs(keep, exist_ok=True)
            for report in (json_report, ndjson_report):
                if os.path.exists(report):
                    shutil.copy(report, keep)
            with open(os.path.join(keep, 'schemathesis.out'), 'w') as f:
                f.write(proc.stdout + proc.stderr)
        return proc, json_report, ndjson_report

    def test_no_5xx_and_every_answer_as_documented(self):
        seed = int(os.environ.get('ZUN_HOSTCAP_TEST_FUZZ_SEED') or
                   random.randrange(2 ** 32))
        proc, json_report, ndjson_report = self._schemathesis(seed)
        self.assertTrue(os.path.exists(json_report),
                        'schemathesis wrote no report (exit %s):\n%s'
                        % (proc.returncode, proc.stdout[-3000:] +
                           proc.stderr[-3000:]))
        document = openapi.document()
        run = Run(json_report, ndjson_report, document)
        figures = run.figures()
        self.addDetail('schemathesis-figures',
                       testtools_content.text_content(figures))
        print(figures)
        tracebacks = _server_errors(self.service.log())
        if tracebacks:
            self.addDetail('server-errors', testtools_content.text_content(
                '\n\n'.join(tracebacks)))

        report = run.report
        self.assertTrue(report['complete'], figures)
        self.assertEqual([], report['errors'], figures)
        self.assertEqual([], run.server_errors, figures)
        self.assertEqual([], report['failures'], figures)
        self.assertEqual(0, proc.returncode, figures)
        self.assertEqual([], tracebacks)

        # The run did what it is for: both kinds of data, every operation.
        self.assertGreater(run.modes['positive'], 0, figures)
        self.assertGreater(run.modes['negative'], 0, figures)
        self.assertGreater(run.requests, 100, figures)
        operations = report['operations']
        self.assertEqual(operations['selected'], operations['tested'],
                         figures)
        self.assertEqual(0, operations['errored'], figures)
        # Every operation answered 2xx at least once, so its success
        # documents were checked; a host shown with this machine's NUMA
        # topology and PCI devices among them (reached through the
        # document's link from the list). schemathesis does not test the
        # route it read the document from.
        for path, item in document['paths'].items():
            for method in item:
                if path == '/openapi.json':
                    continue
                if (path.startswith(openapi_placement.PREFIX) and
                        (method, path) not in PLACEMENT_STATELESS):
                    continue
                classes = run.by_operation[(method.upper(), path)]
                self.assertGreater(classes['2xx'], 0,
                                   '%s %s\n%s' % (method, path, figures))
