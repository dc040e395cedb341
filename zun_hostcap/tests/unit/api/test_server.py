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

"""The API's server: waitress on a bound socket, on native threads.

Real sockets on 127.0.0.1 and real HTTP requests; nothing is faked.
"""

import errno
import http.client
import json
import os
import socket
import threading
import time

import fixtures
from waitress import buffers as waitress_buffers

from zun_hostcap.api import middleware
from zun_hostcap.api import server
from zun_hostcap.cmd import api as cmd_api
from zun_hostcap.common import concurrency
from zun_hostcap.common import policy
from zun_hostcap.tests import base

LOOPBACK = '127.0.0.1'
# Safety nets only: a broken server fails the test instead of hanging it.
# No test measures how long anything takes.
HTTP_TIMEOUT = 30
BARRIER_TIMEOUT = 30
JOIN_TIMEOUT = 60


def _get(address, path='/', headers=None):
    """(status, headers, body) of one GET on a new connection."""
    conn = http.client.HTTPConnection(*address, timeout=HTTP_TIMEOUT)
    try:
        conn.request('GET', path, headers=headers or {})
        response = conn.getresponse()
        return (response.status, {k.lower(): v for k, v in
                                  response.getheaders()}, response.read())
    finally:
        conn.close()


def _echo_app(environ, start_response):
    """What the server handed the application, as JSON."""
    body = json.dumps({
        'method': environ['REQUEST_METHOD'],
        'path': environ['PATH_INFO'],
        'query': environ['QUERY_STRING'],
        'forwarded_proto': environ.get('HTTP_X_FORWARDED_PROTO'),
        'thread': threading.current_thread().name,
        'native': concurrency.running_on_native_thread(),
    }).encode()
    start_response('200 OK', [('Content-Type', 'application/json'),
                              ('Content-Length', str(len(body)))])
    return [body]


def _ipv6_loopback_available():
    try:
        sock = socket.create_server(('::1', 0), family=socket.AF_INET6)
    except OSError:
        return False
    sock.close()
    return True


class TestBind(base.TestCase):

    def _bind(self, host, port):
        sock = server.bind(host, port)
        self.addCleanup(sock.close)
        return sock

    def test_port_zero_listens_on_a_free_port(self):
        sock = self._bind(LOOPBACK, 0)
        host, port = sock.getsockname()[:2]
        self.assertEqual(LOOPBACK, host)
        self.assertNotEqual(0, port)
        self.assertEqual(socket.AF_INET, sock.family)
        # Listening already: the kernel accepts the connection into the
        # backlog before anybody calls accept().
        socket.create_connection((host, port), timeout=HTTP_TIMEOUT).close()

    def test_ipv6_address(self):
        if not _ipv6_loopback_available():
            self.skipTest('no IPv6 loopback on this machine')
        sock = self._bind('::1', 0)
        self.assertEqual(socket.AF_INET6, sock.family)
        host, port = sock.getsockname()[:2]
        self.assertEqual('::1', host)
        socket.create_connection((host, port), timeout=HTTP_TIMEOUT).close()

    def test_address_in_use_raises_oserror(self):
        port = self._bind(LOOPBACK, 0).getsockname()[1]
        with self.assertRaises(OSError) as caught:
            self._bind(LOOPBACK, port)
        self.assertEqual(errno.EADDRINUSE, caught.exception.errno)


class TestWSGIService(base.TestCase):

    def _start(self, application, threads=4):
        sock = server.bind(LOOPBACK, 0)
        self.addCleanup(sock.close)
        svc = server.WSGIService('test-api', application, sock, threads)
        svc.start()
        # Last in, first out: stop, then wait.
        self.addCleanup(self._wait, svc)
        self.addCleanup(svc.stop)
        return svc

    def _wait(self, svc):
        """svc.wait(), failing the test rather than hanging it."""
        waiter = threading.Thread(target=svc.wait, daemon=True)
        waiter.start()
        waiter.join(JOIN_TIMEOUT)
        self.assertFalse(waiter.is_alive(), 'wait() did not return')

    def test_address_is_where_the_socket_listens(self):
        sock = server.bind(LOOPBACK, 0)
        self.addCleanup(sock.close)
        svc = server.WSGIService('test-api', _echo_app, sock, 1)
        # Known before start, for the launcher's log line.
        self.assertEqual(sock.getsockname()[:2], svc.address)
        self.assertEqual(LOOPBACK, svc.address[0])
        self.assertNotEqual(0, svc.address[1])

    def test_serves_the_application(self):
        svc = self._start(_echo_app)
        status, headers, body = _get(svc.address, '/v1/hosts?limit=2')
        self.assertEqual(200, status)
        self.assertEqual('application/json', headers['content-type'])
        seen = json.loads(body)
        self.assertEqual('GET', seen['method'])
        self.assertEqual('/v1/hosts', seen['path'])
        self.assertEqual('limit=2', seen['query'])
        # On one of waitress's worker threads, a real OS thread.
        self.assertNotEqual(threading.current_thread().name, seen['thread'])
        self.assertTrue(seen['native'])

    def test_proxy_headers_reach_the_application(self):
        # Whether to believe them is oslo.middleware's decision
        # (http_proxy_to_wsgi), not the server's.
        svc = self._start(_echo_app)
        status, headers, body = _get(svc.address, '/',
                                     {'X-Forwarded-Proto': 'https'})
        self.assertEqual('https', json.loads(body)['forwarded_proto'])

    def test_serves_one_connection_several_requests(self):
        svc = self._start(_echo_app)
        conn = http.client.HTTPConnection(*svc.address, timeout=HTTP_TIMEOUT)
        self.addCleanup(conn.close)
        for path in ('/one', '/two'):
            conn.request('GET', path)
            response = conn.getresponse()
            self.assertEqual(200, response.status)
            self.assertEqual(path, json.loads(response.read())['path'])

    def test_a_large_body_is_sent_from_the_file_wrapper(self):
        content = json.dumps({'items': [{'uuid': '%032x' % n, 'n': n}
                                        for n in range(40000)]}).encode()
        handed = []

        def large(environ, start_response):
            start_response('200 OK', [('Content-Type', 'application/json'),
                                      ('Content-Length', str(len(content)))])
            return [content]
        as_file = middleware.LargeBodyAsFile(large)

        def app(environ, start_response):
            body = as_file(environ, start_response)
            handed.append(body)
            return body
        svc = self._start(app)
        conn = http.client.HTTPConnection(*svc.address, timeout=HTTP_TIMEOUT)
        self.addCleanup(conn.close)
        # Twice on one connection: the next answer follows the file's.
        for _ in range(2):
            conn.request('GET', '/')
            response = conn.getresponse()
            self.assertEqual(200, response.status)
            self.assertEqual(str(len(content)),
                             response.getheader('Content-Length'))
            self.assertEqual(content, response.read())
        self.assertGreater(len(content), middleware.LARGE_BODY)
        self.assertIsInstance(handed[0], waitress_buffers.FileBasedBuffer)

    def test_threads_serve_requests_at_the_same_time(self):
        # Each request waits in the application until the other one is
        # there too: both only pass if two threads serve them at once.
        barrier = threading.Barrier(2, timeout=BARRIER_TIMEOUT)

        def application(environ, start_response):
            try:
                barrier.wait()
            except threading.BrokenBarrierError:
                start_response('503 Service Unavailable',
                               [('Content-Type', 'text/plain')])
                return [b'the other request never came in']
            return _echo_app(environ, start_response)

        svc = self._start(application, threads=2)
        results = {}

        def client(name):
            try:
                results[name] = _get(svc.address, '/' + name)
            except Exception as exc:
                results[name] = exc

        clients = [threading.Thread(target=client, args=(name,))
                   for name in ('a', 'b')]
        for thread in clients:
            thread.start()
        for thread in clients:
            thread.join(JOIN_TIMEOUT)
            self.assertFalse(thread.is_alive())

        served_by = set()
        for name in ('a', 'b'):
            status, _headers, body = results[name]
            self.assertEqual(200, status, body)
            seen = json.loads(body)
            self.assertEqual('/' + name, seen['path'])
            served_by.add(seen['thread'])
        self.assertEqual(2, len(served_by))

    def test_stop_then_wait_closes_the_port(self):
        svc = self._start(_echo_app)
        address = svc.address
        self.assertEqual(200, _get(address)[0])
        svc.stop()
        self._wait(svc)
        self.assertRaises(ConnectionRefusedError, socket.create_connection,
                          address, timeout=HTTP_TIMEOUT)

    def test_stop_waits_for_a_worker_finishing_its_task(self):
        # A worker pulls the loop's trigger after it has answered. Here
        # that pull waits until the service is stopping and its loop has
        # had time to see it (widening the window SIGTERM once hit):
        # closing the trigger before the pull was an EBADF, logged by
        # waitress with a traceback.
        logs = self.useFixture(fixtures.FakeLogger(name='waitress'))
        svc = self._start(_echo_app, threads=1)
        pull = svc._server.pull_trigger
        pulled = threading.Event()

        def slow_pull():
            if svc._stopping.wait(JOIN_TIMEOUT):
                time.sleep(server._LOOP_TIMEOUT * 2)
            pull()
            pulled.set()
        svc._server.pull_trigger = slow_pull
        self.assertEqual(200, _get(svc.address)[0])
        svc.stop()
        self._wait(svc)
        self.assertTrue(pulled.is_set())
        self.assertNotIn('Exception when servicing', logs.output)

    def test_stop_closes_idle_keep_alive_connections(self):
        svc = self._start(_echo_app)
        conn = http.client.HTTPConnection(*svc.address, timeout=HTTP_TIMEOUT)
        self.addCleanup(conn.close)
        conn.request('GET', '/')
        response = conn.getresponse()
        self.assertEqual(200, response.status)
        response.read()
        # The client keeps its connection open; stopping does not wait
        # for it.
        svc.stop()
        self._wait(svc)

        def another_request():
            conn.request('GET', '/')
            return conn.getresponse()
        self.assertRaises((OSError, http.client.HTTPException),
                          another_request)


class TestCreateService(base.TestCase):
    """zun-hostcap-api's service, from [api] options."""

    def test_address_in_use_exits_naming_host_and_port(self):
        busy = server.bind(LOOPBACK, 0)
        self.addCleanup(busy.close)
        port = busy.getsockname()[1]
        self.flags(group='api', host=LOOPBACK, port=port,
                   auth_strategy='noauth2')
        with self.assertRaises(SystemExit) as caught:
            cmd_api.create_service()
        message = str(caught.exception.code)
        self.assertIn('zun-hostcap-api', message)
        self.assertIn('%s:%d' % (LOOPBACK, port), message)
        self.assertIn(os.strerror(errno.EADDRINUSE), message)
        self.assertIn('[api] host', message)

    def test_serves_the_api_on_the_configured_address(self):
        # Parsed as by prepare_service, with no config file of this
        # machine; the policy enforcer needs it.
        self.conf([], default_config_files=[])
        policy.reset()
        self.addCleanup(policy.reset)
        self.flags(group='api', host=LOOPBACK, port=0, threads=2,
                   auth_strategy='noauth2')
        svc = cmd_api.create_service()
        self.addCleanup(svc.socket.close)
        self.assertEqual(LOOPBACK, svc.address[0])
        self.assertEqual(2, svc.threads)
        self.assertEqual(cmd_api.BINARY, svc.name)
        svc.start()
        self.addCleanup(svc.wait)
        self.addCleanup(svc.stop)

        status, headers, body = _get(svc.address, '/')
        self.assertEqual(200, status)
        self.assertIn('x-openstack-request-id', headers)
        document = json.loads(body)
        self.assertEqual('v1', document['default_version']['id'])
        # Links name the address the client used.
        self.assertEqual('http://%s:%d/v1/' % svc.address,
                         document['default_version']['links'][0]['href'])

        # X-Forwarded-* count only with enable_proxy_headers_parsing,
        # which is off by default: a client cannot redirect the links.
        forwarded = {'X-Forwarded-Proto': 'https',
                     'X-Forwarded-Host': 'api.example.com'}
        status, headers, body = _get(svc.address, '/', forwarded)
        self.assertEqual('http://%s:%d/v1/' % svc.address,
                         json.loads(body)['default_version']['links'][0][
                             'href'])
