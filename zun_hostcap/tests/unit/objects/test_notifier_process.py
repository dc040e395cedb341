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

"""The API's end of the notifier process: never waits, keeps the order.

The child is left out (the functional tests of the Placement
notifications run it): the test reads the socket pair in its place.
"""

import collections
import os
import pickle
import socket
import sys
import threading

import fixtures
from oslotest import base

from zun_hostcap.objects.notifications import notifier_process


def _unconnected(limit):
    """A NotifierProcess on a socket pair whose other end is the test's."""
    process = notifier_process.NotifierProcess.__new__(
        notifier_process.NotifierProcess)
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    mine.setblocking(False)
    # Small buffers: a few messages fill the socket.
    mine.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    theirs.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    process._socket = mine
    process._lock = threading.Lock()
    process._backlog = collections.deque()
    process._backlog_limit = limit
    process._writable = threading.Condition(process._lock)
    process._writer = None
    return process, theirs


def _read(sock, count):
    stream = sock.makefile('rb')
    length = notifier_process._LENGTH
    return [pickle.loads(stream.read(length.unpack(
        stream.read(length.size))[0])) for _ in range(count)]


class TestSend(base.BaseTestCase):

    def test_a_full_socket_fills_the_backlog_then_drops(self):
        process, theirs = _unconnected(limit=5)
        self.addCleanup(theirs.close)
        payload = b'x' * 1000
        accepted = [process.send(pickle.dumps((index, payload)))
                    for index in range(200)]
        # The socket took some, the backlog five more; the rest went.
        kept = accepted.index(False)
        self.assertEqual([True] * kept + [False] * (200 - kept), accepted)
        self.assertEqual(5, len(process._backlog))
        # Read as the child does: all kept ones, whole, in order.
        received = _read(theirs, kept)
        self.assertEqual(list(range(kept)),
                         [index for index, _payload in received])
        self.assertTrue(all(data == payload for _index, data in received))

    def test_once_read_the_backlog_goes_first(self):
        process, theirs = _unconnected(limit=1000)
        self.addCleanup(theirs.close)
        for index in range(100):
            self.assertTrue(process.send(pickle.dumps((index, b'y' * 500))))
        self.assertTrue(process._backlog)
        self.assertEqual(list(range(100)),
                         [index for index, _data in _read(theirs, 100)])


class TestPythonExecutable(base.BaseTestCase):

    def test_the_interpreter_itself(self):
        self.assertEqual(sys.executable,
                         notifier_process.python_executable())

    def test_the_python_beside_an_embedding_server(self):
        self.useFixture(fixtures.MonkeyPatch('sys.executable',
                                             '/usr/bin/uwsgi'))
        self.assertEqual(os.path.join(sys.prefix, 'bin', 'python3'),
                         notifier_process.python_executable())
