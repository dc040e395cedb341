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

"""Service heartbeats, received one by one and written in batches.

Since conductor RPC API 1.1 a compute service casts its heartbeat: it
does not wait for an answer, and the conductor does not write a row per
heartbeat. It counts the heartbeats it receives in memory and writes them
every ``FLUSH_INTERVAL`` seconds in one UPDATE per batch: with 10,000
services beating every 10 s, 1,000 heartbeats a second cost one statement
and one commit a second instead of a thousand of each (a commit, with its
round trip and its redo-log flush, is what a lone heartbeat pays for).
A service's ``last_seen_up`` is then at most ``FLUSH_INTERVAL`` later than
its heartbeat arrived, far below ``service_down_time``.

The lag of a heartbeat, from the time the service sent it to the commit
that wrote it, is measured here; one line a minute tells its figures.
"""

import threading
import time

from oslo_log import log as logging

from zun_hostcap.common import exception
import zun_hostcap.conf
from zun_hostcap import objects
from zun_hostcap.objects import base as objects_base

CONF = zun_hostcap.conf.CONF
LOG = logging.getLogger(__name__)

# Seconds between two batch writes.
FLUSH_INTERVAL = 1
# Seconds between two summaries of the heartbeat figures (DEBUG).
SUMMARY_INTERVAL = 60
# Seconds between two summaries at INFO when nothing is late: the first
# one after start, then one an hour.
ROUTINE_SUMMARY_INTERVAL = 3600
# Send times kept for the lag figures of one summary; beyond, the lag is
# measured on the first ones (10,000 services at one beat a second).
MAX_LAG_SAMPLES = 600000


def _percentile(ordered, fraction):
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


class _Summary:
    """What was written since the last summary line."""

    def __init__(self, started):
        self.started = started
        self.beats = 0
        self.batches = 0
        self.write_seconds = 0.0
        self.stale = 0
        self.lags = []

    def log(self, now, routine_due):
        """Log the figures; True if at INFO or above.

        Late heartbeats (p99 beyond ``report_interval``) mean the
        conductor does not keep up, and services are close to being shown
        down: a WARNING. Some late, or dropped as stale: INFO. Otherwise
        the figures are routine: DEBUG, but at INFO when ``routine_due``.
        """
        if not self.beats and not self.stale:
            return False
        values = {'seconds': now - self.started, 'beats': self.beats,
                  'batches': self.batches,
                  'write_ms': (1000.0 * self.write_seconds /
                               max(1, self.batches)),
                  'stale': self.stale}
        lags = sorted(self.lags)
        if lags:
            values.update(p50=_percentile(lags, 0.5),
                          p99=_percentile(lags, 0.99), max=lags[-1])
        else:
            values.update(p50=0.0, p99=0.0, max=0.0)
        if values['p99'] > CONF.report_interval:
            level = logging.WARNING
        elif (values['max'] > CONF.report_interval or self.stale or
                routine_due):
            level = logging.INFO
        else:
            level = logging.DEBUG
        LOG.log(level, 'Heartbeats written in the last %(seconds).0f s: '
                '%(beats)d in %(batches)d batches (%(write_ms).1f ms per '
                'batch); lag from sending to writing p50 %(p50).3f s, p99 '
                '%(p99).3f s, max %(max).3f s; %(stale)d dropped as stale.',
                values)
        return level >= logging.INFO


class HeartbeatBatcher:
    """Collects heartbeats and writes them together.

    ``add()`` is called by the RPC handler threads and only takes a lock;
    ``flush()`` runs every ``FLUSH_INTERVAL`` seconds in one thread.

    :param clock: monotonic seconds; a test passes its own.
    :param wall_clock: seconds since the epoch, as the services send.
    """

    def __init__(self, clock=time.monotonic, wall_clock=time.time):
        self._clock = clock
        self._wall_clock = wall_clock
        self._lock = threading.Lock()
        # Service id -> [heartbeats, when the last one arrived (clock)].
        self._pending = {}
        # Send times (wall clock) of the pending heartbeats.
        self._sent = []
        self._failing = 0
        self._summary = _Summary(clock())
        # When a summary was last logged at INFO; None: not yet.
        self._last_told = None

    def add(self, service_id, sent_at=None):
        """Count a heartbeat of ``service_id`` sent at ``sent_at``."""
        received = self._clock()
        with self._lock:
            entry = self._pending.get(service_id)
            if entry is None:
                self._pending[service_id] = [1, received]
            else:
                entry[0] += 1
                entry[1] = received
            if sent_at is not None and len(self._sent) < MAX_LAG_SAMPLES:
                self._sent.append(sent_at)

    def pending(self):
        """How many services have a heartbeat waiting to be written."""
        with self._lock:
            return len(self._pending)

    def flush(self, context):
        """Write the heartbeats received since the last flush.

        A heartbeat that waited longer than ``service_down_time`` (the
        database was down) says nothing about now and is dropped. When
        the write fails the heartbeats are kept for the next flush.

        :returns: how many services were stamped.
        """
        with self._lock:
            pending, self._pending = self._pending, {}
            sent, self._sent = self._sent, []
        now = self._clock()
        fresh_since = now - CONF.service_down_time
        beats = {service_id: count
                 for service_id, (count, received) in pending.items()
                 if received >= fresh_since}
        self._summary.stale += sum(count for count, _received
                                   in pending.values()) - sum(beats.values())
        if beats:
            started = self._clock()
            try:
                with objects_base.conductor_scope():
                    unknown = objects.Service.record_heartbeats(context,
                                                                beats)
            except Exception as err:
                # The stale ones are counted as dropped already.
                self._keep({service_id: pending[service_id]
                            for service_id in beats}, sent)
                self._write_failed(err, len(beats))
                return 0
            self._write_worked()
            written = self._wall_clock()
            if unknown:
                LOG.warning('Heartbeats of services that have no row (ids '
                            '%s): deleted while they run; they register '
                            'again when they restart.',
                            ', '.join(str(i) for i in unknown))
            summary = self._summary
            summary.batches += 1
            summary.write_seconds += self._clock() - started
            summary.beats += sum(beats.values())
            room = MAX_LAG_SAMPLES - len(summary.lags)
            summary.lags.extend(written - sent_at for sent_at in sent[:room])
        if now - self._summary.started >= SUMMARY_INTERVAL:
            routine_due = (self._last_told is None or
                           now - self._last_told >= ROUTINE_SUMMARY_INTERVAL)
            if self._summary.log(now, routine_due):
                self._last_told = now
            self._summary = _Summary(now)
        return len(beats)

    def _keep(self, pending, sent):
        """Put back heartbeats that could not be written."""
        with self._lock:
            for service_id, (count, received) in pending.items():
                entry = self._pending.setdefault(service_id, [0, received])
                entry[0] += count
                entry[1] = max(entry[1], received)
            room = MAX_LAG_SAMPLES - len(self._sent)
            self._sent[:0] = sent[:room]

    def _write_failed(self, err, services):
        # One warning per outage: the flush runs every second.
        level = logging.DEBUG if self._failing else logging.WARNING
        self._failing += 1
        if not isinstance(err, exception.ServiceUnavailable):
            level = logging.ERROR
        LOG.log(level, 'Writing the heartbeats of %(count)d services '
                'failed: %(error)s; they are kept and written again every '
                '%(interval)d s.',
                {'count': services, 'error': exception.one_line(err),
                 'interval': FLUSH_INTERVAL})
        LOG.debug('Heartbeat write failure', exc_info=True)

    def _write_worked(self):
        if self._failing:
            LOG.info('Heartbeats are written again, after %d failed '
                     'writes.', self._failing)
            self._failing = 0
