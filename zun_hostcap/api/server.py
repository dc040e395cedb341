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

"""Serving the API with waitress, on native threads.

waitress is the Pylons project's WSGI server, from the people who keep
WebOb and pecan: pure Python, maintained, multi-threaded, no eventlet and
no C extension. The listening socket is bound before any worker forks, so
every worker of zun-hostcap-api accepts on the same socket.
"""

import socket
import threading
import time

from oslo_context import context as oslo_context
from oslo_log import log as logging
from oslo_serialization import jsonutils
from oslo_service import service
from waitress import channel as waitress_channel
from waitress import server as waitress_server
from waitress import task as waitress_task
from waitress import wasyncore

from zun_hostcap.api import errors
from zun_hostcap.common import concurrency
from zun_hostcap.common import context
from zun_hostcap.common import memory
from zun_hostcap.common import policy
from zun_hostcap.objects.notifications import notifier_process

LOG = logging.getLogger(__name__)

# How long the server loop waits for I/O before it looks at the stop flag.
_LOOP_TIMEOUT = 0.5
# How long a stopping server goes on answering the requests it received.
_DRAIN_TIMEOUT = 10
# Seconds a stopping API gives its queued notifications to be sent.
_NOTIFICATIONS_TIMEOUT = 5


def bind(host, port):
    """A listening TCP socket on ``host``:``port`` (IPv4 or IPv6).

    waitress sets the backlog when it starts serving on it.
    """
    family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    return socket.create_server((host, port), family=family)


class JSONErrorTask(waitress_task.ErrorTask):
    """waitress's own answers to what it cannot parse, as our documents.

    A request line with raw bytes that are not ASCII, a transfer encoding
    waitress does not implement (501), a header too large: waitress
    answers before the application runs. The answer is our JSON error
    document with a request id, and the access log has its line.
    """

    def execute(self):
        error = self.request.error
        request_id = oslo_context.generate_request_id()
        # The log line below names this request, not an earlier one.
        context.RequestContext(request_id=request_id, overwrite=True)
        detail = 'The server cannot process the request: %s.' % (
            (error.body or error.reason).rstrip('.'))
        body = jsonutils.dump_as_bytes(
            errors.document(error.code, detail, request_id=request_id))
        self.status = '%d %s' % (error.code, error.reason)
        self.response_headers.extend([
            ('Content-Type', 'application/json'),
            ('x-openstack-request-id', request_id)])
        self.set_close_on_finish()
        self.content_length = len(body)
        self.write(body)
        errors.ACCESS_LOG.info(
            '%(addr)s "%(line)s" status: %(status)s len: %(length)s',
            {'addr': self.channel.addr[0] if self.channel.addr else '-',
             'line': getattr(self.request, 'first_line', b'').decode(
                 'ascii', 'backslashreplace'),
             'status': error.code, 'length': len(body)})


class HTTPChannel(waitress_channel.HTTPChannel):
    error_task_class = JSONErrorTask


class WSGIService(service.ServiceBase):
    """One server of ``application`` on a bound socket, on a thread."""

    def __init__(self, name, application, sock, threads):
        self.name = name
        self.application = application
        self.socket = sock
        self.threads = threads
        self._map = {}
        self._stopping = threading.Event()
        self._thread = None
        self._server = None

    @property
    def address(self):
        """(host, port) the socket listens on."""
        return self.socket.getsockname()[:2]

    def start(self):
        # Made here, in the process that serves: a launcher may fork
        # between __init__ and start.
        self._stopping.clear()
        self._map = {}
        self._server = waitress_server.create_server(
            self.application, map=self._map, sockets=[self.socket],
            threads=self.threads, ident=self.name,
            # X-Forwarded-* reach oslo.middleware's http_proxy_to_wsgi,
            # which honours them only with [oslo_middleware]
            # enable_proxy_headers_parsing; waitress would drop them.
            clear_untrusted_proxy_headers=False)
        self._server.channel_class = HTTPChannel
        memory.freeze_startup_objects()
        self._thread = threading.Thread(target=self._serve, name=self.name,
                                        daemon=True)
        self._thread.start()
        context.clear_thread_context()
        LOG.info('%(name)s serving on http://%(host)s:%(port)s with '
                 '%(threads)d threads; %(check)s',
                 {'name': self.name, 'host': self.address[0],
                  'port': self.address[1], 'threads': self.threads,
                  'check': concurrency.describe('API server start-up')})

    def _serve(self):
        try:
            while not self._stopping.is_set():
                wasyncore.loop(timeout=_LOOP_TIMEOUT, map=self._map,
                               count=1)
            self._finish_requests()
        finally:
            # Closed on this thread, never under the loop's feet.
            wasyncore.close_all(self._map)
            self._server.task_dispatcher.shutdown()

    def _finish_requests(self):
        """Stop accepting; answer the requests already received.

        The loop keeps running so that the answers are written out, for
        at most ``_DRAIN_TIMEOUT`` seconds.
        """
        # Not readable any more: nothing new is accepted.
        self._server.accepting = False
        # A worker that has answered still pulls the loop's trigger at
        # the end of its task: closed under it, that is an EBADF and a
        # traceback in the log. Idle workers count 0.
        dispatcher = self._server.task_dispatcher
        deadline = time.monotonic() + _DRAIN_TIMEOUT
        while time.monotonic() < deadline and (
                dispatcher.active_count or dispatcher.queue or any(
                    getattr(channel, 'requests', None) or
                    getattr(channel, 'total_outbufs_len', 0)
                    for channel in list(self._map.values()))):
            wasyncore.loop(timeout=0.05, map=self._map, count=1)

    def stop(self, graceful=False):
        self._stopping.set()

    def wait(self):
        context.clear_thread_context()
        if self._thread is not None:
            self._thread.join()
        # The notifications of the last writes go out, if the broker
        # takes them now.
        if not notifier_process.stop(_NOTIFICATIONS_TIMEOUT):
            LOG.warning('%(name)s stopped with notifications not sent: '
                        'the message broker did not take them in '
                        '%(timeout)d seconds',
                        {'name': self.name,
                         'timeout': _NOTIFICATIONS_TIMEOUT})
        LOG.info('%s stopped', self.name)

    def reset(self):
        """SIGHUP: the next request sees the reloaded policy file."""
        policy.reset()
