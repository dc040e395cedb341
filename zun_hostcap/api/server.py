"""Serving the API with waitress, on native threads.

waitress is the Pylons project's WSGI server, from the people who keep
WebOb and pecan: pure Python, maintained, multi-threaded, no eventlet and
no C extension. The listening socket is bound before any worker forks, so
every worker of zun-hostcap-api accepts on the same socket.
"""

import socket
import threading

from oslo_log import log as logging
from oslo_service import service
from waitress import server as waitress_server
from waitress import wasyncore

from zun_hostcap.common import concurrency

LOG = logging.getLogger(__name__)

# How long the server loop waits for I/O before it looks at the stop flag.
_LOOP_TIMEOUT = 0.5


def bind(host, port):
    """A listening TCP socket on ``host``:``port`` (IPv4 or IPv6).

    waitress sets the backlog when it starts serving on it.
    """
    family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    return socket.create_server((host, port), family=family)


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
        self._thread = threading.Thread(target=self._serve, name=self.name,
                                        daemon=True)
        self._thread.start()
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
        finally:
            # Closed on this thread, never under the loop's feet.
            wasyncore.close_all(self._map)
            self._server.task_dispatcher.shutdown()

    def stop(self, graceful=False):
        self._stopping.set()

    def wait(self):
        if self._thread is not None:
            self._thread.join()
        LOG.info('%s stopped', self.name)

    def reset(self):
        pass
