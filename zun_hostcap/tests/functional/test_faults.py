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

"""Faults: the conductor, RabbitMQ, the database or the compute goes away.

Real processes: zun-hostcap-conductor, zun-hostcap-compute (the fake host
driver reads a JSON file, so the test changes what the host has during the
fault) and zun-hostcap-api (noauth2). A fault that stops a server stops
one of the test's own (``RabbitMQServer``, ``MariaDBServer``); the shared
servers are never stopped.

Each test checks what DESIGN.md ("Errors and faults") promises:

(i)   the compute catches up within two update intervals after the fault
      ends (the broker serves AMQP again, mariadbd answers, the service
      started again logs its start): a capability changed during the
      fault reaches the row;
(ii)  the host row is the same row: same id and uuid, one row for the
      hostname, no field lost; each service keeps its services row;
(iii) every API request made during the fault, GET /v1/hosts,
      /v1/hosts/<uuid>, /v1/services and /healthcheck polled in a loop
      throughout, got a normal JSON 200 or a JSON 503 error document,
      never a 500 or an error that is not JSON;
(iv)  every process recovered by itself: the same pids are alive at the
      end, except those of the process the test stopped and started;
(v)   the outage costs the compute and the conductor at most one WARNING
      or ERROR line of ours (zun_hostcap loggers) per update interval,
      and no service logs a traceback. Libraries log on their own terms
      (oslo.messaging logs each reconnection attempt to RabbitMQ in one
      line); their lines are counted in the details, not in the budget.

The services log as an operator's do, without DEBUG. Failed checks do
not stop a test: each is reported at its end, with what each service
logged during the fault. How long recovery took is in the test's details
("recovery").
"""

import dataclasses
import http.client
import json
import math
import os
import re
import signal
import threading
import time

from oslotest import base
from testtools import content
from testtools import matchers

from zun_hostcap.os_capability import fake as fake_host
from zun_hostcap.tests.functional import base as functional_base

# Seconds between two resource updates and two heartbeats.
INTERVAL = 2
# On top of two intervals: one probe, one RPC round trip and the test's
# own database poll.
CATCH_UP_SLACK = 1.0
# How long the test waits for a late catch-up, to tell how late it is.
CATCH_UP_MAX = 75
NEW_KERNEL = '9.9.9-fault'

API_HEADERS = {'X-Auth-Token': 'admin',
               'OpenStack-API-Version': 'container latest',
               'Accept': 'application/json'}
# Seconds between two rounds of the four API requests.
POLL_PAUSE = 0.2

# Characters of each service's log during the fault kept in the details.
LOG_DETAIL = 20000
# oslo.log's default formats: "<date> <time> <pid> <LEVEL> <logger> ..."
LOG_LINE = re.compile(r'^(?P<time>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+) '
                      r'(?P<pid>\d+) (?P<level>[A-Z]+) (?P<logger>\S+) '
                      r'(?P<rest>.*)$')


@dataclasses.dataclass
class Answer:
    """One API request of the poller."""

    path: str
    started: float
    ended: float
    status: int = None
    content_type: str = ''
    body: bytes = b''
    error: str = None


class APIPoller(threading.Thread):
    """Sends the four GET requests in a loop and keeps every answer."""

    def __init__(self, base_url, host_uuid):
        super().__init__(name='api-poller', daemon=True)
        self.base_url = base_url
        self.paths = ('/v1/hosts', '/v1/hosts/%s' % host_uuid,
                      '/v1/services', '/healthcheck')
        self.answers = []
        self._stopping = threading.Event()

    def run(self):
        while not self._stopping.is_set():
            for path in self.paths:
                self.answers.append(self._get(path))
            self._stopping.wait(POLL_PAUSE)

    def _get(self, path):
        started = time.monotonic()
        try:
            status, headers, body = functional_base.http_get(
                self.base_url + path, API_HEADERS, timeout=10)
        except (OSError, http.client.HTTPException) as err:
            return Answer(path, started, time.monotonic(),
                          error='%s: %s' % (type(err).__name__, err))
        return Answer(path, started, time.monotonic(), status,
                      headers.get('Content-Type', ''), body)

    def stop(self):
        self._stopping.set()
        self.join()


def answer_problem(answer, host_uuid):
    """What is wrong with ``answer``, or None if it is as wanted."""
    if answer.status is None:
        return 'no answer: %s' % answer.error
    if answer.status not in (200, 503):
        return 'status %d' % answer.status
    if not answer.content_type.startswith('application/json'):
        return 'Content-Type %r' % answer.content_type
    try:
        body = json.loads(answer.body)
    except ValueError:
        return 'a body that is not JSON'
    if answer.path == '/healthcheck':
        # oslo.middleware's own document, in both cases.
        return None if isinstance(body, dict) else 'not a JSON object'
    if answer.status == 503:
        errors = body.get('errors') if isinstance(body, dict) else None
        if not (isinstance(errors, list) and errors and
                errors[0].get('status') == 503 and errors[0].get('code')):
            return 'a 503 that is not an error document'
        return None
    expected = {'/v1/hosts': 'hosts', '/v1/services': 'services'}.get(
        answer.path, 'uuid')
    if not isinstance(body, dict) or expected not in body:
        return 'a 200 without "%s"' % expected
    if expected == 'uuid' and body['uuid'] != host_uuid:
        return 'another host'
    return None


class FaultTestCase(base.BaseTestCase):
    """Deploys the three services; checks (i) to (v) around a fault."""

    def deploy(self, database=None, transport_url=None):
        started = time.monotonic()
        # The services log as an operator's do, without DEBUG.
        self.deployment = self.useFixture(functional_base.Deployment(
            self, interval=INTERVAL, database=database,
            transport_url=transport_url, debug=False))
        self.data_file = os.path.join(self.deployment.tmp, 'host.json')
        self.caps = fake_host.sample_capabilities()
        fake_host.write_capabilities(self.data_file, self.caps)
        self.deployment.start({'os_capability_driver': 'fake',
                               'fake_capabilities_file': self.data_file})
        # The API starts while the compute does.
        self.deployment.start_api()
        self.deployment.wait_for_node()
        self.processes = self.deployment.processes()

        # Both services beat: what they hold before the fault is settled.
        def beating():
            services = self._services()
            return (set(services) == {'zun-hostcap-conductor',
                                      'zun-hostcap-compute'} and
                    all(row['report_count'] >= 1
                        for row in services.values()) and services)
        self.services_before = functional_base.wait_for(
            beating, 10 * INTERVAL, message='a heartbeat of each service',
            processes=self.processes)
        self.row_before = self.deployment.node()
        self.pids_before = {process.name: process.pids()
                            for process in self.processes}
        self.poller = APIPoller(self.deployment.api_url,
                                self.row_before['uuid'])
        self.poller.start()
        self.addCleanup(self.poller.stop)
        # The API has its database connections before the fault: a first
        # connection is another story (oslo.db retries it for long).
        functional_base.wait_for(
            lambda: [answer.status for answer in self.poller.answers[:4]]
            == [200] * 4, 30, message='a first round of API answers',
            processes=(self.deployment.api,))
        self.recovery = {'setup_seconds': round(
            time.monotonic() - started, 2)}

    def _services(self):
        rows = self.deployment.db.rows(
            'SELECT * FROM services WHERE host = :h',
            h=self.deployment.hostname)
        return {row['binary']: row for row in rows}

    def fault_begins(self):
        """Mark the start of the fault; the host changes during it."""
        self.fault_started = time.monotonic()
        self.log_offsets = {process.name: process.log_size()
                            for process in self.processes}

    def change_host(self):
        fake_host.write_capabilities(self.data_file, dataclasses.replace(
            self.caps, os=dataclasses.replace(self.caps.os,
                                              kernel_version=NEW_KERNEL)))

    def fault_ends(self):
        self.fault_ended = time.monotonic()
        self.recovery['fault_seconds'] = round(
            self.fault_ended - self.fault_started, 2)

    def wait_for_log(self, process, since, text, timeout=30):
        """The time ``text`` appeared in the log of ``process``."""
        functional_base.wait_for(
            lambda: text in process.log(since), timeout, interval=0.05,
            message='"%s" in the log of %s' % (text, process.name),
            processes=(process,))
        return time.monotonic()

    def check_recovery(self, restarted=None):
        """Checks (i) to (v) once the fault has ended.

        :param restarted: the process the test stopped and started.
        """
        try:
            self._check_catch_up()
            self._check_api_serves_again()
            self.poller.stop()
            log_ends = {process.name: process.log_size()
                        for process in self.processes}
            self._check_same_rows()
            self._check_answers()
            self._check_processes(restarted)
            self._check_logs(log_ends)
        finally:
            self.addDetail('recovery', content.text_content(
                json.dumps(self.recovery, indent=1, sort_keys=True)))

    def _node(self):
        try:
            return self.deployment.node() or {}
        except Exception:
            return {}   # the test's own query; the server is coming back

    # (i)
    def _check_catch_up(self):
        def caught_up():
            node = self._node()
            return node if node.get('kernel_version') == NEW_KERNEL else None
        try:
            self.row_after = functional_base.wait_for(
                caught_up, CATCH_UP_MAX, interval=0.1,
                message='the kernel version changed during the fault',
                processes=self.processes)
        except AssertionError as err:
            self.row_after = self._node()
            self.expectThat(str(err), matchers.Equals(''),
                            'the compute never caught up')
        self.caught_up = time.monotonic()
        seconds = self.caught_up - self.fault_ended
        self.recovery['catch_up_seconds'] = round(seconds, 2)
        self.expectThat(
            seconds, matchers.LessThan(2 * INTERVAL + CATCH_UP_SLACK),
            'the compute caught up %.1f s after the fault ended, more than '
            'two update intervals (%d s)' % (seconds, 2 * INTERVAL))

    def _check_api_serves_again(self):
        def all_ok():
            statuses = {}
            for path in self.poller.paths:
                try:
                    statuses[path] = functional_base.http_get(
                        self.deployment.api_url + path, API_HEADERS)[0]
                except (OSError, http.client.HTTPException) as err:
                    statuses[path] = str(err)
            return statuses if set(statuses.values()) == {200} else None
        started = time.monotonic()
        try:
            functional_base.wait_for(all_ok, 2 * INTERVAL + CATCH_UP_SLACK,
                                     message='200 on every API path',
                                     processes=(self.deployment.api,))
        except AssertionError as err:
            self.expectThat(str(err), matchers.Equals(''),
                            'the API does not serve again')
        self.recovery['api_ok_seconds_after_catch_up'] = round(
            time.monotonic() - started, 2)

    # (ii)
    def _check_same_rows(self):
        rows = self.deployment.db.rows(
            'SELECT * FROM compute_nodes WHERE hostname = :h',
            h=self.deployment.hostname)
        self.expectThat(len(rows), matchers.Equals(1),
                        'compute_nodes rows of the host')
        changed = {name: (value, self.row_after.get(name))
                   for name, value in self.row_before.items()
                   if name not in ('kernel_version', 'updated_at') and
                   self.row_after.get(name) != value}
        self.expectThat(changed, matchers.Equals({}),
                        'fields of the host row that changed or were lost '
                        '(before, after)')
        services = self._services()
        self.expectThat(
            {binary: row['id'] for binary, row in services.items()},
            matchers.Equals({binary: row['id'] for binary, row in
                             self.services_before.items()}),
            'the services rows of the host')

    # (iii)
    def _check_answers(self):
        answers = self.poller.answers
        problems = []
        counts = {}
        for answer in answers:
            key = '%s %s' % (answer.path.replace(self.row_before['uuid'],
                                                 '<uuid>'), answer.status)
            counts[key] = counts.get(key, 0) + 1
            problem = answer_problem(answer, self.row_before['uuid'])
            if problem:
                problems.append('GET %s at %+.1f s: %s: %s' % (
                    answer.path, answer.started - self.fault_started,
                    problem, answer.body[:300]))
        self.recovery['api_answers'] = counts
        self.expectThat(len(answers), matchers.GreaterThan(0),
                        'API answers')
        self.expectThat(
            problems[:20], matchers.Equals([]),
            '%d of %d API answers are neither a JSON 200 nor a JSON 503 '
            'error document (the first 20)' % (len(problems), len(answers)))

    def answers_during(self, path, start, end):
        return [answer for answer in self.poller.answers
                if answer.path == path and answer.started >= start and
                answer.ended <= end]

    # (iv)
    def _check_processes(self, restarted):
        for process in self.processes:
            if process is restarted:
                self.expectThat(process.running(), matchers.Is(True),
                                '%s runs again' % process.name)
                self.recovery['%s exit statuses' % process.name] = (
                    process.exit_statuses)
                continue
            self.expectThat(
                (process.running(), process.pids()),
                matchers.Equals((True, self.pids_before[process.name])),
                '%s: the same processes run (pids before: %s)' % (
                    process.name, sorted(self.pids_before[process.name])))

    # (v)
    def _check_logs(self, log_ends):
        window = self.caught_up - self.fault_started
        budget = math.ceil(window / INTERVAL) + 1
        lines = {}
        libraries = {}
        for process in self.processes:
            since = self.log_offsets[process.name]
            text = process.log(since)[:log_ends[process.name] - since]
            # What the service logged during the fault, without the API's
            # access log.
            self.addDetail('%s log during the fault' % process.name,
                           content.text_content('\n'.join(
                               line for line in text.splitlines()
                               if ' INFO zun_hostcap.api.access ' not in line
                           )[-LOG_DETAIL:]))
            records = log_records(text)
            tracebacks = [record for record in records if record.traceback]
            self.expectThat(
                len(tracebacks), matchers.Equals(0),
                '%s logged %d tracebacks during the fault; the first:\n%s'
                % (process.name, len(tracebacks),
                   '\n'.join(tracebacks[0].lines)[:3000]
                   if tracebacks else ''))
            if process is self.deployment.api:
                continue
            warnings = [record for record in records
                        if record.level in ('WARNING', 'ERROR', 'CRITICAL')
                        and record.logger.startswith('zun_hostcap')]
            count = sum(len(record.lines) for record in warnings)
            lines[process.name] = count
            libraries[process.name] = sum(
                len(record.lines) for record in records
                if record.level in ('WARNING', 'ERROR', 'CRITICAL') and
                not record.logger.startswith('zun_hostcap'))
            self.expectThat(
                count, matchers.LessThan(budget + 1),
                '%s: %d WARNING/ERROR lines in %.1f s, more than one per '
                'update interval (%d); their records, and how often:\n%s'
                % (process.name, count, window, budget,
                   summarize(warnings)))
        self.recovery['warning_error_lines'] = lines
        self.recovery['warning_error_budget'] = budget
        self.recovery['library_warning_error_lines'] = libraries


@dataclasses.dataclass
class LogRecord:
    level: str
    lines: list
    logger: str = ''

    @property
    def traceback(self):
        return any('Traceback (most recent call last)' in line
                   for line in self.lines)


def log_records(text):
    """The records of an oslo.log file, each with all its lines.

    A record's first line names its level; the lines of its traceback
    (oslo.log writes them with "ERROR" whatever the level) share its time,
    pid and logger, and the further lines of a message on several lines
    have no prefix. Lines before the first record are of level "STDERR".
    """
    records = []
    key = None
    for line in text.splitlines():
        match = LOG_LINE.match(line)
        if match is None and records:
            records[-1].lines.append(line)
        elif match is None:
            records.append(LogRecord('STDERR', [line], 'stderr'))
        elif (match.group('time'), match.group('pid'),
              match.group('logger')) == key:
            records[-1].lines.append(line)
        else:
            key = (match.group('time'), match.group('pid'),
                   match.group('logger'))
            records.append(LogRecord(match.group('level'), [line],
                                     match.group('logger')))
    return records


def summarize(records):
    """The first lines of ``records``, counted, ids and numbers left out."""
    counts = {}
    for record in records:
        match = LOG_LINE.match(record.lines[0])
        message = re.sub(r'req-[0-9a-f-]+|\b[0-9a-f-]{32,36}\b|\d+', '#',
                         match.group('rest'))[:200]
        key = '%s %s %s' % (record.level, match.group('logger'), message)
        counts[key] = counts.get(key, 0) + 1
    return '\n'.join('%4d x %s' % (count, key) for key, count in
                     sorted(counts.items(), key=lambda item: -item[1]))


class TestFaults(FaultTestCase):

    def test_conductor_stopped_for_30_seconds(self):
        self.deploy()
        conductor = self.deployment.conductor
        self.fault_begins()
        conductor.stop()
        self.change_host()
        time.sleep(30 - (time.monotonic() - self.fault_started))
        since = conductor.log_size()
        conductor.start()
        # The fault ends when the conductor serves again.
        self.wait_for_log(conductor, since, 'Starting zun-hostcap-conductor')
        self.fault_ends()
        self.check_recovery(restarted=conductor)
        self.expectThat(conductor.exit_statuses, matchers.Equals([0]),
                        'exit status of the conductor on SIGTERM')

    def test_rabbitmq_restarted(self):
        rabbit = self.useFixture(functional_base.RabbitMQServer(self))
        self.deploy(transport_url=rabbit.url)
        self.fault_begins()
        rabbit.stop()
        self.change_host()
        # Down long enough for a resource update and a heartbeat to fail.
        time.sleep(INTERVAL)
        rabbit.start()
        self.fault_ends()
        self.recovery['rabbitmq_stop_start_seconds'] = [
            round(rabbit.stop_seconds[-1], 2),
            round(rabbit.start_seconds[-1], 2)]
        self.check_recovery()

    def test_database_stopped_and_started(self):
        mariadb = self.useFixture(functional_base.MariaDBServer(self))
        self.deploy(database=mariadb)
        self.fault_begins()
        mariadb.stop()
        down = time.monotonic()
        self.change_host()
        # Resource updates and heartbeats fail for five intervals: one
        # line per interval stays clearly apart from two.
        time.sleep(5 * INTERVAL)
        up = time.monotonic()
        mariadb.start()
        self.fault_ends()
        self.recovery['mariadb_init_start_seconds'] = [
            round(mariadb.init_seconds, 2)] + [
            round(seconds, 2) for seconds in mariadb.start_seconds]
        self.check_recovery()
        # The database is what the health check is about: while it was
        # down (after one interval to notice), it said so.
        healthchecks = self.answers_during('/healthcheck',
                                           down + INTERVAL, up)
        self.expectThat(len(healthchecks), matchers.GreaterThan(0),
                        'health checks while the database was down')
        self.expectThat(
            sorted({answer.status for answer in healthchecks}),
            matchers.Equals([503]),
            '/healthcheck while the database was down')
        hosts = self.answers_during('/v1/hosts', down + INTERVAL, up)
        self.expectThat(
            sorted({answer.status for answer in hosts}),
            matchers.Equals([503]), '/v1/hosts while the database was down')

    def test_compute_killed_and_started_again(self):
        self.deploy()
        compute = self.deployment.compute
        self.fault_begins()
        compute.kill(signal.SIGKILL)
        self.change_host()
        time.sleep(INTERVAL)
        since = compute.log_size()
        compute.start()
        # The fault ends when the compute service starts.
        self.wait_for_log(compute, since, 'Starting zun-hostcap-compute')
        self.fault_ends()
        self.check_recovery(restarted=compute)
        self.expectThat(compute.exit_statuses,
                        matchers.Equals([-signal.SIGKILL]))
