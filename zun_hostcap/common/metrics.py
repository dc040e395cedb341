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

"""The service's own figures for Prometheus, summed over its processes.

Requests the API answered, conductor RPC calls, notifications waiting and
dropped. With ``[metrics] enabled`` every process that counts (each API
worker, its notifier process, a conductor on the same host) writes its
figures to files of its own in ``[metrics] directory``
(prometheus_client's multiprocess mode); ``/metrics`` reads them all, so
that whichever worker answers a scrape, the counters are those of the
whole host. Counting costs a few microseconds: a write into a mapped
file.

Off, nothing is set up and every function here returns at once.
"""

import functools
import glob
import os
import re
import threading

import prometheus_client
from prometheus_client import multiprocess
from prometheus_client import values

from zun_hostcap.common import config_check

# Upper bounds of the request latency buckets, in seconds: a Placement
# read takes a millisecond or two, a large list a few hundred.
REQUEST_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
                   1.0, 2.5, 5.0, 10.0)

# The queues a notification waits in: for the message broker (the sender
# thread of a process), and, in an API process, for its notifier process.
QUEUE_BROKER = 'broker'
QUEUE_NOTIFIER_PROCESS = 'notifier_process'

# prometheus_client names a process's files <kind>_<pid>.db.
_PROCESS_FILE = re.compile(r'_(\d+)\.db$')

_lock = threading.Lock()
_current = None


class _Families(object):
    """The metric objects of one set-up process."""

    def __init__(self, directory):
        self.directory = directory
        self.requests = prometheus_client.Counter(
            'zun_hostcap_api_requests',
            'Requests the API answered, by route template, method and '
            'status.', ['route', 'method', 'status'], registry=None)
        self.request_duration = prometheus_client.Histogram(
            'zun_hostcap_api_request_duration_seconds',
            'Time the API took to answer a request, by route template and '
            'method.', ['route', 'method'], buckets=REQUEST_BUCKETS,
            registry=None)
        self.rpc_calls = prometheus_client.Counter(
            'zun_hostcap_conductor_rpc_calls',
            'RPC calls and casts the conductor handled, by method and '
            'outcome (success or error).', ['method', 'outcome'],
            registry=None)
        self.notifications_queued = prometheus_client.Gauge(
            'zun_hostcap_notifications_queued',
            'Notifications waiting to be sent, by queue: for the message '
            'broker, or in an API process for its notifier process.',
            ['queue'], multiprocess_mode='livesum', registry=None)
        self.notifications_dropped = prometheus_client.Counter(
            'zun_hostcap_notifications_dropped',
            'Notifications dropped, by the queue that was full or whose '
            'process was gone.', ['queue'], registry=None)
        self.db_deadlocks = prometheus_client.Counter(
            'zun_hostcap_db_deadlock_retries',
            'Database transactions run again after a deadlock. On MariaDB '
            'Galera, a commit that lost certification to a write on '
            'another node comes back as one.', registry=None)
        # labels() checks its arguments each time; the children a request
        # needs are kept here once made.
        self._request_children = {}

    def count_request(self, route, method, status, seconds):
        key = (route, method, status)
        children = self._request_children.get(key)
        if children is None:
            children = self._request_children[key] = (
                self.requests.labels(route, method, status),
                self.request_duration.labels(route, method))
        children[0].inc()
        children[1].observe(seconds)


def _process_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove_files_of_gone_processes(directory, pattern='*.db'):
    for path in glob.glob(os.path.join(directory, pattern)):
        found = _PROCESS_FILE.search(path)
        if found and not _process_alive(int(found.group(1))):
            try:
                os.remove(path)
            except FileNotFoundError:
                pass


def inherited_directory():
    """The directory of the process that started this one, if it counts."""
    return os.environ.get('PROMETHEUS_MULTIPROC_DIR')


def setup(conf, directory=None):
    """Count from now on in this process, if ``[metrics] enabled``.

    Call it once the configuration is read and before any worker or
    notifier process starts: they inherit the directory through the
    environment. Idempotent.

    :param directory: count in this directory whatever ``conf`` says (a
        child process, in its parent's).
    :returns: whether metrics are on.
    :raises StartupError: the directory cannot be made or written.
    """
    global _current
    if directory is None:
        if not conf.metrics.enabled:
            return False
        directory = conf.metrics.directory
    directory = os.path.abspath(directory)
    with _lock:
        if _current is not None and _current.directory == directory:
            return True
        try:
            os.makedirs(directory, exist_ok=True)
            if not os.access(directory, os.W_OK | os.X_OK):
                raise PermissionError('not writable')
        except OSError as exc:
            raise config_check.StartupError(
                '[metrics] directory = %r cannot be used: %s; expected a '
                'directory this service can write' % (
                    directory,
                    getattr(exc, 'strerror', None) or exc))
        # Counters of processes gone (the previous run, a restarted
        # worker) would be added for ever.
        _remove_files_of_gone_processes(directory)
        os.environ['PROMETHEUS_MULTIPROC_DIR'] = directory
        # Chosen by prometheus_client when first imported, which may have
        # been before the directory was known.
        values.ValueClass = values.MultiProcessValue()
        _current = _Families(directory)
    return True


def reset():
    """Stop counting; for tests."""
    global _current
    with _lock:
        if _current is None:
            return
        values.ValueClass.close_all_files()
        values.ValueClass = values.MutexValue
        os.environ.pop('PROMETHEUS_MULTIPROC_DIR', None)
        _current = None


def enabled():
    return _current is not None


def count_request(route, method, status, seconds):
    """One request answered: its route template, method, status, time."""
    families = _current
    if families is not None:
        families.count_request(route, method, status, seconds)


def count_rpc(method, outcome):
    """One RPC call or cast the conductor handled."""
    families = _current
    if families is not None:
        families.rpc_calls.labels(method, outcome).inc()


def counted_rpc(method):
    """Count each call of an RPC ``method`` of the conductor's manager."""
    name = method.__name__

    @functools.wraps(method)
    def counted(*args, **kwargs):
        try:
            result = method(*args, **kwargs)
        except Exception:
            count_rpc(name, 'error')
            raise
        count_rpc(name, 'success')
        return result
    return counted


def count_db_deadlock():
    """One transaction run again after a deadlock (or certification)."""
    families = _current
    if families is not None:
        families.db_deadlocks.inc()


def set_notifications_queued(queue, count):
    """How many notifications wait in ``queue`` in this process now."""
    families = _current
    if families is not None:
        families.notifications_queued.labels(queue).set(count)


def count_notifications_dropped(queue, count=1):
    families = _current
    if families is not None:
        families.notifications_dropped.labels(queue).inc(count)


def exposition():
    """The text format of every process's figures in the directory.

    :returns: bytes, or b'' when metrics are off.
    """
    families = _current
    if families is None:
        return b''
    # A gauge of a process that is gone is no longer true.
    _remove_files_of_gone_processes(families.directory, 'gauge_live*.db')
    registry = prometheus_client.CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, path=families.directory)
    return prometheus_client.generate_latest(registry)
