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

"""A client cannot write lines of its own into the service's log.

zun-hostcap-api runs as a process (SQLite, noauth2, the metrics
listener of its own); each request carries control characters in its
path, query or headers, and a marker. Its log then holds exactly one line
naming each marker, with the characters escaped, and no forged line.
"""

import os
import re
import socket
import subprocess
import uuid

import fixtures
from oslotest import base

from zun_hostcap.tests.functional import base as functional_base

# What a forged line would start with.
FORGED = re.compile(rb'^\d{4}-\d\d-\d\d [\d:.]+ \d+ ERROR zun_hostcap\.fake',
                    re.MULTILINE)
FORGERY = '2026-11-27 16:51:00.000 1 ERROR zun_hostcap.fake [-] INJECTED'

# Percent-encoded, as a client puts them in a path or a query.
ENCODED = {
    'lf': '%0a' + FORGERY.replace(' ', '%20'),
    'crlf': '%0d%0a' + FORGERY.replace(' ', '%20'),
    'cr': '%0d' + FORGERY.replace(' ', '%20'),
    'nul': '%00',
    'ansi': '%1b[31mred%1b[0m',
    'del': '%7f',
    'c1-nel': '%c2%85' + FORGERY.replace(' ', '%20'),
    'c1-csi': '%c2%9b2J',
    'line-separator': '%e2%80%a8' + FORGERY.replace(' ', '%20'),
}
# Raw, as a header can carry them (a line feed would end the header).
RAW_IN_HEADER = {
    'ansi': b'\x1b[2J\x1b[31m',
    'c1': b'\x85\x9b',
    'nul': b'\x00',
    'cr': b'\r',
}
# Characters that must never reach the log file as they are.
CONTROL_BYTES = re.compile(rb'[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|'
                           rb'\xe2\x80[\xa8\xa9]')


def _send(port, request):
    """The status of the answer to the raw bytes of ``request``."""
    with socket.create_connection(('127.0.0.1', port), timeout=10) as sock:
        sock.sendall(request)
        answer = b''
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            answer += chunk
    return int(answer.split(b' ', 2)[1])


def _get(port, target, headers=()):
    lines = [b'GET ' + target + b' HTTP/1.1', b'Host: 127.0.0.1',
             b'Connection: close']
    lines.extend(headers)
    if not any(header.startswith(b'X-Auth-Token:') for header in headers):
        lines.append(b'X-Auth-Token: admin')
    return _send(port, b'\r\n'.join(lines) + b'\r\n\r\n')


class TestLogInjection(base.BaseTestCase):

    def test_each_request_is_one_line(self):
        # One process serves the three checks: it takes seconds to start.
        self._start()
        self.check_paths_and_queries_of_both_apis()
        self.since = self.api.log_size()
        self.check_headers_reaching_the_log_prefix()
        self.since = self.api.log_size()
        self.check_the_metrics_listener()

    def _start(self):
        tmp = self.useFixture(fixtures.TempDir()).path
        self.port = functional_base.free_port()
        self.metrics_port = functional_base.free_port()
        config = functional_base.write_config(
            os.path.join(tmp, 'zun-hostcap.conf'),
            {'DEFAULT': {'state_path': tmp},
             'api': {'port': self.port, 'workers': 1,
                     'auth_strategy': 'noauth2'},
             'metrics': {'enabled': 'true', 'port': self.metrics_port}})
        result = subprocess.run(
            functional_base.console_script('zun-hostcap-db-manage') +
            ['--config-file', config, 'upgrade'], capture_output=True,
            text=True)
        self.assertEqual(0, result.returncode, result.stderr)
        self.api = self.useFixture(functional_base.ServiceProcess(
            'zun-hostcap-api', config, tmp))
        functional_base.wait_until_serving(
            self, self.api, 'http://127.0.0.1:%d/' % self.port)
        functional_base.wait_until_serving(
            self, self.api, 'http://127.0.0.1:%d/metrics' % self.metrics_port)
        self.since = self.api.log_size()

    def _log(self):
        with open(self.api.log_file, 'rb') as f:
            f.seek(self.since)
            return f.read()

    def _assert_one_line_each(self, markers):
        """Waits for the access lines; one line names each marker."""
        def logged():
            log = self._log()
            return all(marker.encode() in log for marker in markers)
        functional_base.wait_for(logged, 10, message='the access lines',
                                 processes=(self.api,))
        log = self._log()
        self.assertIsNone(CONTROL_BYTES.search(log), log)
        self.assertIsNone(FORGED.search(log), log)
        lines = log.splitlines()
        for marker in markers:
            naming = [line for line in lines if marker.encode() in line]
            self.assertEqual(1, len(naming), (marker, naming))
        # Python's splitlines() breaks at more than a line feed (\x85,
        # \u2028 decoded): none of them either.
        self.assertEqual(len(log.split(b'\n')) - 1,
                         len(log.decode('utf-8').splitlines()))
        return log

    def check_paths_and_queries_of_both_apis(self):
        markers = []
        for prefix in ('/v1/hosts/', '/placement/resource_providers/'):
            for kind, text in ENCODED.items():
                marker = 'mark-%s' % uuid.uuid4().hex[:12]
                markers.append(marker)
                _get(self.port, (prefix + marker + text).encode())
                marker = 'mark-%s' % uuid.uuid4().hex[:12]
                markers.append(marker)
                _get(self.port, (prefix + '?name=' + marker + text).encode())
        log = self._assert_one_line_each(markers)
        self.assertIn(b'mark-', log)
        self.assertIn(b'\\n2026-11-27', log)
        self.assertIn(b'\\x1b[31mred', log)

    def check_headers_reaching_the_log_prefix(self):
        markers = []
        for kind, raw in RAW_IN_HEADER.items():
            # noauth2 makes the token the user id, which the prefix shows.
            marker = 'mark-%s' % uuid.uuid4().hex[:12]
            markers.append(marker)
            _get(self.port, b'/v1/hosts/' + marker.encode(),
                 [b'X-Auth-Token: tok' + raw + b'en'])
            # A global request id that is not one is dropped.
            marker = 'mark-%s' % uuid.uuid4().hex[:12]
            markers.append(marker)
            _get(self.port, b'/placement/resource_providers/' +
                 marker.encode(),
                 [b'X-Openstack-Request-Id: req-' + raw + b'x'])
        marker = 'mark-%s' % uuid.uuid4().hex[:12]
        markers.append(marker)
        global_id = 'req-%s' % uuid.uuid4()
        _get(self.port, b'/v1/hosts/' + marker.encode(),
             [b'X-Openstack-Request-Id: ' + global_id.encode()])
        log = self._assert_one_line_each(markers)
        # waitress refuses a header with a C0 control (400); the line of
        # the refusal names no header. C1 controls are let through.
        self.assertIn(b'tok\\x85\\x9ben', log)
        self.assertNotIn(b'req-\\x', log)
        (line,) = [line for line in log.splitlines()
                   if marker.encode() in line]
        self.assertIn(global_id.encode(), line)

    def check_the_metrics_listener(self):
        # What waitress refuses there has its line, as on the API.
        markers = []
        for raw in (b'\x1b[31m', b'\x00', b'\x85'):
            marker = 'mark-%s' % uuid.uuid4().hex[:12]
            markers.append(marker)
            status = _send(self.metrics_port,
                           b'GET /metrics/' + marker.encode() + raw +
                           b'\xff HTTP/1.1\r\nHost: x\r\n'
                           b'Content-Length: x\r\n\r\n')
            self.assertEqual(400, status)
        # The paths it does not serve, percent-encoded: no line at all.
        for text in ENCODED.values():
            _get(self.metrics_port, ('/x' + text).encode())
        self._assert_one_line_each(markers)
