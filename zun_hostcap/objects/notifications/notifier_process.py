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

"""A process of its own that sends an API process's notifications.

oslo.messaging spends a few hundred microseconds of CPU on every message
it publishes. In the API process that time would be taken from the
requests, which share its interpreter lock: a request that writes would
be tens of percent slower with notifications on, even with the sending
on a thread of its own. So an API process starts one child
(multiprocessing, spawn), the notifier process, that does it all:

- the request, once its write is committed, pickles what the
  notification is made of (plain data, and the function of a module that
  builds it) and writes it to a socket pair, without waiting: a few tens
  of microseconds. Should the socket be full (the child is busy), the
  rest waits in a backlog of the API process that a thread of it writes
  out, in order, as the child reads;
- the child reads the datagrams in order into a queue of at most
  ``[notifications] max_queued_notifications``, builds the notifications
  and emits them through oslo.messaging's Notifier from its sender thread
  (``rpc.run_on_sender_thread``), on another core. While the broker is
  away they wait there as ``[oslo_messaging_notifications] retry`` says;
  beyond the limit each one is dropped with a warning line.

The child reads the same configuration files as the service and logs as
it does. It ends when the API closes the socket (``stop``); if the API
dies without closing it, the child ends within a second or two.

When the notifications travel in the process itself (``fake://``, the
all-in-one's default and the unit tests'), no child is made: the sender
thread of the process sends them.
"""

import collections
import functools
import multiprocessing
import os
import pickle
import select
import signal
import socket
import struct
import sys
import threading
import time

from oslo_log import log as logging
import oslo_messaging as messaging

from zun_hostcap.common import config_check
from zun_hostcap.common import log_safety
from zun_hostcap.common import metrics
from zun_hostcap.common import rpc

LOG = logging.getLogger(__name__)

# Seconds between two looks of the child at its parent.
_PARENT_CHECK_INTERVAL = 1
# Each message on the socket: its length, then its pickle.
_LENGTH = struct.Struct('!I')

_lock = threading.Lock()
_current = None
# Whether a notification transport URL is one in the process (fake://):
# parsing it costs tens of microseconds, and a request asks each time.
_in_process_by_url = {}


def config_args(conf):
    """The command line that reads the files ``conf`` was read from."""
    args = []
    for path in conf.config_file or ():
        args += ['--config-file', path]
    for path in conf.config_dir or ():
        args += ['--config-dir', path]
    return args


def python_executable():
    """The interpreter to start the child with.

    Under a WSGI server that embeds Python (uwsgi, mod_wsgi)
    ``sys.executable`` may be the server itself; the interpreter of the
    environment is then the python beside it.
    """
    if os.path.basename(sys.executable or '').startswith('python'):
        return sys.executable
    beside = os.path.join(sys.prefix, 'bin', 'python3')
    return beside if os.path.exists(beside) else sys.executable


def _in_process(conf):
    """Whether notifications travel in this process (fake://).

    Then nobody outside it could hear them (a test's listener, an
    all-in-one's): they are sent from this process.
    """
    url = (conf.oslo_messaging_notifications.transport_url or
           conf.transport_url)
    found = _in_process_by_url.get(url)
    if found is None:
        found = _in_process_by_url[url] = (
            messaging.TransportURL.parse(conf, url).transport == 'fake')
    return found


class NotifierProcess(object):
    """The child process, and this process's end of its socket."""

    def __init__(self, conf, publisher_source):
        context = multiprocessing.get_context('spawn')
        executable = python_executable()
        if executable != sys.executable:
            context.set_executable(executable)
        mine, its = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self.process = context.Process(
            target=_main, name='zun-hostcap-notifier', daemon=True,
            args=(its, config_args(conf), os.getpid(), publisher_source))
        self.process.start()
        its.close()
        # A request never waits for the child: see send().
        mine.setblocking(False)
        self._socket = mine
        self._lock = threading.Lock()
        self._backlog = collections.deque()
        self._backlog_limit = conf.notifications.max_queued_notifications
        self._writable = threading.Condition(self._lock)
        self._writer = None
        self.pid = os.getpid()

    def send(self, data):
        """Hand one notification's data to the child, without waiting.

        :returns: False if it was dropped: the backlog is full.
        :raises OSError: the child is gone.
        """
        message = _LENGTH.pack(len(data)) + data
        with self._lock:
            if self._backlog:
                # Behind others: in order, by the writer thread.
                if len(self._backlog) >= self._backlog_limit:
                    return False
                self._backlog.append(message)
                self._count_backlog()
                return True
            try:
                sent = self._socket.send(message)
            except BlockingIOError:
                sent = 0
            if sent < len(message):
                self._backlog.append(message[sent:])
                self._count_backlog()
                self._start_writer()
                self._writable.notify()
        return True

    def _count_backlog(self):
        # Under self._lock.
        metrics.set_notifications_queued(metrics.QUEUE_NOTIFIER_PROCESS,
                                         len(self._backlog))

    def _start_writer(self):
        if self._writer is None:
            self._writer = threading.Thread(
                target=self._write_backlog, daemon=True,
                name='notifier-process-backlog')
            self._writer.start()

    def _write_backlog(self):
        """Write out the backlog, as the child reads; a thread's loop."""
        while True:
            with self._lock:
                while not self._backlog:
                    self._writable.wait()
                head = self._backlog[0]
            # Until the child has read some, without holding the lock.
            select.select([], [self._socket], [], _PARENT_CHECK_INTERVAL)
            with self._lock:
                try:
                    sent = self._socket.send(head)
                except BlockingIOError:
                    continue
                except OSError:
                    # Gone (see send()): what waited is lost.
                    metrics.count_notifications_dropped(
                        metrics.QUEUE_NOTIFIER_PROCESS, len(self._backlog))
                    self._backlog.clear()
                    self._count_backlog()
                    return
                if sent == len(head):
                    self._backlog.popleft()
                    self._count_backlog()
                else:
                    self._backlog[0] = head[sent:]

    def close(self, timeout):
        """Let the child send what it has, for ``timeout`` seconds.

        :returns: whether it ended within them.
        """
        deadline = time.monotonic() + timeout
        while self._backlog and time.monotonic() < deadline:
            time.sleep(0.05)
        with self._lock:
            self._socket.close()
        self.process.join(max(0, deadline - time.monotonic()))
        return not self.process.is_alive()


def _the_process(conf, publisher_source):
    global _current
    process = _current
    if process is None or process.pid != os.getpid():
        with _lock:
            if _current is None or _current.pid != os.getpid():
                _current = NotifierProcess(conf, publisher_source)
            process = _current
    return process


def hand_over(conf, context, build, args, what, publisher_source):
    """Queue the notification ``build(*args)`` makes; return at once.

    :param what: the event type, for the log line of one not sent.
    """
    if _in_process(conf):
        rpc.run_on_sender_thread(
            functools.partial(_emit, conf, context, build, args), what,
            conf.notifications.max_queued_notifications)
        return
    data = pickle.dumps((context.to_dict(), build, args, what),
                        pickle.HIGHEST_PROTOCOL)
    process = _the_process(conf, publisher_source)
    try:
        if not process.send(data):
            metrics.count_notifications_dropped(
                metrics.QUEUE_NOTIFIER_PROCESS)
            LOG.warning('%(what)s not sent: %(limit)d notifications are '
                        'already waiting for the notifier process %(pid)s',
                        {'what': what, 'pid': process.process.pid,
                         'limit': conf.notifications
                         .max_queued_notifications})
    except OSError as exc:
        # It died (killed by an operator, out of memory): the next one
        # goes to a new one.
        metrics.count_notifications_dropped(metrics.QUEUE_NOTIFIER_PROCESS)
        _forget(process)
        LOG.warning('%(what)s not sent: the notifier process %(pid)s is '
                    'gone (%(error)s); a new one is started for the next',
                    {'what': what, 'pid': process.process.pid,
                     'error': exc})


def _forget(process):
    global _current
    with _lock:
        if _current is process:
            _current = None


def stop(timeout):
    """Send what is queued, then stop the notifier process, in ``timeout``.

    :returns: whether everything went (False: some are lost).
    """
    deadline = time.monotonic() + timeout
    sent = rpc.wait_until_sent(timeout)
    process = _current
    if process is not None and process.pid == os.getpid():
        _forget(process)
        sent = process.close(max(0, deadline - time.monotonic())) and sent
    return sent


def _emit(conf, context, build, args):
    rpc.init_notifications(conf)
    build(*args).emit(context)


def _watch_parent(parent_pid):
    """End the child once the API process that started it is gone.

    With the broker away a send may wait for ever; the end of the socket
    cannot reach it there.
    """
    while os.getppid() == parent_pid:
        time.sleep(_PARENT_CHECK_INTERVAL)
    os._exit(0)


def _main(sock, args, parent_pid, publisher_source):
    # Ctrl-C in a terminal reaches the whole process group, SIGHUP may
    # too; the API ends the child by closing the socket.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    from oslo_service import backend
    backend.init_backend(backend.BackendType.THREADING)

    from zun_hostcap.common import context as zun_context
    import zun_hostcap.conf
    from zun_hostcap import objects
    from zun_hostcap.objects.notifications import base as notification

    conf = zun_hostcap.conf.CONF
    logging.register_options(conf)
    conf(args, project='zun-hostcap', default_config_files=[])
    logging.setup(conf, 'zun-hostcap')
    log_safety.install()
    # Its queue and drops, for the API's /metrics, in the API's directory.
    if metrics.inherited_directory():
        try:
            metrics.setup(conf, directory=metrics.inherited_directory())
        except config_check.StartupError as err:
            LOG.warning('The notifier process does not count: %s', err)
    objects.register_all()
    notification.set_publisher_source(publisher_source)
    threading.Thread(target=_watch_parent, args=(parent_pid,),
                     daemon=True).start()
    limit = conf.notifications.max_queued_notifications
    stream = sock.makefile('rb')
    while True:
        length = stream.read(_LENGTH.size)
        if len(length) < _LENGTH.size:
            break  # the API closed its end
        data = stream.read(_LENGTH.unpack(length)[0])
        context, build, build_args, what = pickle.loads(data)
        rpc.run_on_sender_thread(functools.partial(
            _emit, conf, zun_context.RequestContext.from_dict(context),
            build, build_args), what, limit)
    rpc.wait_until_sent(timeout=None)
    rpc.cleanup()
