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

"""Heartbeats: cast by the services, written in batches by the conductor."""

import datetime
import logging

import fixtures
from oslo_utils import fixture as utils_fixture
from oslo_utils import timeutils
import webob

from zun_hostcap.api import app as api_app
from zun_hostcap.conductor import heartbeats
from zun_hostcap.conductor import manager as conductor_manager
from zun_hostcap import objects
from zun_hostcap import service
from zun_hostcap.tests import base
from zun_hostcap.tests import fixtures as zun_fixtures
from zun_hostcap.tests.functional import base as functional_base
from zun_hostcap.tests.unit import test_database_outage

T0 = datetime.datetime(2026, 11, 23, 19, 0, 0)


class FakeClock:
    """Seconds that move only when the test says so."""

    def __init__(self, now=1000.0):
        self.now = now

    def __call__(self):
        return self.now


def _services(context, count, binary='zun-hostcap-compute'):
    services = []
    for number in range(count):
        svc = objects.Service(context, host='host-%d' % number,
                              binary=binary)
        svc.create()
        services.append(svc)
    return services


def _row(context, svc):
    return objects.Service.get_by_host_and_binary(context, svc.host,
                                                  svc.binary)


class TestHeartbeatBatcher(base.TestCase):
    """The batch writes, on a real SQLite database."""

    def setUp(self):
        super().setUp()
        self.db = self.useFixture(zun_fixtures.Database())
        self.clock = FakeClock()
        self.wall_clock = FakeClock(1_800_000_000.0)
        self.batcher = heartbeats.HeartbeatBatcher(
            clock=self.clock, wall_clock=self.wall_clock)
        self.log = self.useFixture(fixtures.FakeLogger(
            name='zun_hostcap.conductor.heartbeats', level=logging.INFO,
            format='%(levelname)s %(message)s'))
        self.time = self.useFixture(utils_fixture.TimeFixture(T0))

    def test_many_services_are_written_in_one_update(self):
        services = _services(self.context, 50)
        for svc in services:
            self.batcher.add(svc.id, self.wall_clock.now)
        writes = self.db.count_writes()

        self.assertEqual(50, self.batcher.flush(self.context))

        self.assertEqual(1, len(writes), writes)
        self.assertTrue(writes[0].startswith('UPDATE services'))
        for svc in services:
            row = _row(self.context, svc)
            self.assertEqual(1, row.report_count)
            self.assertEqual(T0, row.last_seen_up.replace(tzinfo=None))

    def test_every_heartbeat_counts_even_two_in_one_batch(self):
        first, second = _services(self.context, 2)
        self.batcher.add(first.id)
        self.batcher.add(first.id)
        self.batcher.add(second.id)
        writes = self.db.count_writes()

        self.batcher.flush(self.context)

        # One statement per number of beats: here 1 and 2.
        self.assertEqual(2, len(writes), writes)
        self.assertEqual(2, _row(self.context, first).report_count)
        self.assertEqual(1, _row(self.context, second).report_count)

    def test_nothing_received_writes_nothing(self):
        writes = self.db.count_writes()
        self.assertEqual(0, self.batcher.flush(self.context))
        self.assertEqual([], writes)

    def test_a_flush_writes_only_what_arrived_since_the_last_one(self):
        svc, = _services(self.context, 1)
        self.batcher.add(svc.id)
        self.batcher.flush(self.context)
        writes = self.db.count_writes()
        self.batcher.flush(self.context)
        self.assertEqual([], writes)
        self.assertEqual(1, _row(self.context, svc).report_count)

    def test_batches_larger_than_a_statement_are_split(self):
        self.useFixture(fixtures.MonkeyPatch(
            'zun_hostcap.db.sqlalchemy.api.HEARTBEAT_IDS_PER_STATEMENT', 4))
        services = _services(self.context, 10)
        for svc in services:
            self.batcher.add(svc.id)
        writes = self.db.count_writes()
        self.batcher.flush(self.context)
        self.assertEqual(3, len(writes))
        self.assertEqual([1] * 10, [_row(self.context, svc).report_count
                                    for svc in services])

    def test_a_deleted_service_is_told_and_the_others_are_written(self):
        kept, deleted = _services(self.context, 2)
        self.batcher.add(kept.id)
        self.batcher.add(deleted.id)
        deleted.destroy()

        self.assertEqual(2, self.batcher.flush(self.context))

        self.assertEqual(1, _row(self.context, kept).report_count)
        self.assertIn('WARNING Heartbeats of services that have no row '
                      '(ids %d)' % deleted.id, self.log.output)

    def test_heartbeats_older_than_service_down_time_are_dropped(self):
        self.flags(service_down_time=60)
        old, fresh = _services(self.context, 2)
        self.batcher.add(old.id)
        self.clock.now += 61
        self.batcher.add(fresh.id)

        self.assertEqual(1, self.batcher.flush(self.context))

        self.assertEqual(0, _row(self.context, old).report_count)
        self.assertEqual(1, _row(self.context, fresh).report_count)

    def test_heartbeats_are_kept_while_the_database_is_down(self):
        svc, = _services(self.context, 1)
        self.batcher.add(svc.id)
        down = test_database_outage.UnreachableDatabase()
        down.setUp()
        self.assertEqual(0, self.batcher.flush(self.context))
        self.batcher.add(svc.id)
        self.assertEqual(0, self.batcher.flush(self.context))
        down.cleanUp()

        self.assertEqual(1, self.batcher.flush(self.context))

        self.assertEqual(2, _row(self.context, svc).report_count)
        lines = self.log.output.splitlines()
        # One warning for the outage, one line when it is over.
        self.assertEqual(2, len(lines), self.log.output)
        self.assertTrue(lines[0].startswith(
            'WARNING Writing the heartbeats of 1 services failed: The '
            'database cannot be reached'), lines[0])
        self.assertEqual('INFO Heartbeats are written again, after 2 '
                         'failed writes.', lines[1])

    def test_a_stale_heartbeat_is_dropped_once_while_the_database_is_down(
            self):
        self.flags(service_down_time=60)
        old, fresh = _services(self.context, 2)
        self.batcher.add(old.id)
        self.clock.now += 61
        self.batcher.add(fresh.id)
        down = test_database_outage.UnreachableDatabase()
        down.setUp()
        self.assertEqual(0, self.batcher.flush(self.context))
        down.cleanUp()
        self.assertEqual(1, self.batcher.flush(self.context))

        self.clock.now += heartbeats.SUMMARY_INTERVAL
        self.batcher.flush(self.context)

        self.assertEqual(0, _row(self.context, old).report_count)
        self.assertEqual(1, _row(self.context, fresh).report_count)
        self.assertIn('1 in 1 batches', self.log.output)
        self.assertIn('; 1 dropped as stale.', self.log.output)

    def test_a_summary_line_tells_the_lag_once_a_minute(self):
        services = _services(self.context, 4)
        for number, svc in enumerate(services):
            # Sent 0.1, 0.2, 0.3 and 0.4 s before the batch is written.
            self.batcher.add(svc.id, self.wall_clock.now - 0.1 * (
                number + 1))
        self.batcher.flush(self.context)
        self.assertEqual('', self.log.output)

        self.clock.now += heartbeats.SUMMARY_INTERVAL
        self.batcher.flush(self.context)

        self.assertRegex(
            self.log.output,
            r'^INFO Heartbeats written in the last 60 s: 4 in 1 batches '
            r'\(\d+\.\d ms per batch\); lag from sending to writing p50 '
            r'0\.300 s, p99 0\.400 s, max 0\.400 s; 0 dropped as stale\.\n$')

    def test_routine_figures_are_told_at_info_once_an_hour(self):
        svc, = _services(self.context, 1)
        for _minute in range(121):
            self.batcher.add(svc.id, self.wall_clock.now - 0.1)
            self.batcher.flush(self.context)
            self.clock.now += heartbeats.SUMMARY_INTERVAL
            self.batcher.flush(self.context)
        # The first summary after start, then one an hour (minutes 60 and
        # 120); the others at DEBUG, which this log does not take.
        self.assertEqual(3, self.log.output.count('INFO Heartbeats written'))
        self.assertEqual(3, len(self.log.output.splitlines()))

    def test_some_late_heartbeats_are_told_at_info(self):
        self.flags(report_interval=10)
        services = _services(self.context, 200)
        self.batcher.add(services[0].id, self.wall_clock.now - 11)
        for svc in services[1:]:
            self.batcher.add(svc.id, self.wall_clock.now - 0.1)
        self.batcher.flush(self.context)
        self.clock.now += heartbeats.SUMMARY_INTERVAL
        self.batcher.flush(self.context)
        # p99 is in time, the slowest is not.
        self.assertIn('INFO Heartbeats written', self.log.output)
        self.assertIn('max 11.000 s', self.log.output)

    def test_the_conductor_writes_what_is_pending_when_it_stops(self):
        svc, = _services(self.context, 1)
        manager = conductor_manager.ConductorManager()
        manager.heartbeats.add(svc.id)
        service.Service('zun-hostcap-conductor', manager,
                        host='conductor-1').stop()
        self.assertEqual(1, _row(self.context, svc).report_count)

    def test_late_heartbeats_are_a_warning(self):
        self.flags(report_interval=10)
        svc, = _services(self.context, 1)
        self.batcher.add(svc.id, self.wall_clock.now - 11)
        self.batcher.flush(self.context)
        self.clock.now += heartbeats.SUMMARY_INTERVAL
        self.batcher.flush(self.context)
        self.assertIn('WARNING Heartbeats written', self.log.output)
        self.assertIn('p99 11.000 s', self.log.output)


class TestHeartbeatOverRPC(base.TestCase):
    """A compute-side service and a conductor RPC server in one process."""

    def setUp(self):
        super().setUp()
        self.db = self.useFixture(zun_fixtures.Database())
        self.useFixture(zun_fixtures.RPC(self.conf))

    def _compute_service(self, host='compute-1'):
        svc = service.Service('zun-hostcap-compute', None, host=host,
                              use_conductor=True,
                              conductor_api=objects.base.ZunHostcapObject
                              .indirection_api._api)
        svc.report_state()   # registers: no row yet
        self.assertEqual(host, svc.service_ref.host)
        return svc

    def _row(self, svc):
        with objects.base.conductor_scope():
            return _row(self.context, svc.service_ref)

    def test_a_heartbeat_is_a_cast_written_by_the_next_flush(self):
        conductor = self.useFixture(zun_fixtures.Conductor(self.conf))
        svc = self._compute_service()
        calls = list(conductor.manager.calls)

        svc.report_state()
        functional_base.wait_for(
            lambda: conductor.manager.heartbeats.pending(), timeout=10,
            interval=0.01, message='the heartbeat at the conductor')
        self.assertEqual(0, self._row(svc).report_count)
        conductor.manager.flush_heartbeats(self.context)

        row = self._row(svc)
        self.assertEqual(1, row.report_count)
        self.assertIsNotNone(row.last_seen_up)
        # No object call: nothing came back, nothing waited.
        self.assertEqual(calls, conductor.manager.calls)

    def test_capped_at_1_0_the_heartbeat_is_the_old_call(self):
        # A compute whose [upgrade_levels] conductor is 1.0, as while
        # conductors of the previous release run; or an N-1 compute,
        # which knows nothing else: the new conductor serves both.
        self.flags(conductor='1.0', group='upgrade_levels')
        conductor = self.useFixture(zun_fixtures.Conductor(self.conf))
        svc = self._compute_service()

        svc.report_state()

        # Written before report_state() returned, by the object call.
        self.assertEqual(1, self._row(svc).report_count)
        self.assertEqual(('Service', 'heartbeat'),
                         conductor.manager.calls[-1])
        self.assertEqual(0, conductor.manager.heartbeats.pending())

    def test_the_release_alias_of_1_0_caps_too(self):
        self.flags(conductor='2026.2', group='upgrade_levels')
        conductor = self.useFixture(zun_fixtures.Conductor(self.conf))
        svc = self._compute_service()
        svc.report_state()
        self.assertEqual(('Service', 'heartbeat'),
                         conductor.manager.calls[-1])


class TestServiceShownDown(base.TestCase):
    """/v1/services: up while heartbeats are written, down when they stop."""

    def setUp(self):
        super().setUp()
        self.useFixture(zun_fixtures.Database())
        # The policy enforcer reads the parsed configuration; no file.
        self.conf([], default_config_files=[])
        self.flags(auth_strategy='noauth2', group='api')
        self.flags(service_down_time=60, report_interval=10)
        self.time = self.useFixture(utils_fixture.TimeFixture(T0))
        self.app = api_app.setup_app()
        self.batcher = heartbeats.HeartbeatBatcher()

    def _state(self, host):
        request = webob.Request.blank(
            '/v1/services', headers={'X-Auth-Token': 'admin',
                                     'Accept': 'application/json'})
        response = request.get_response(self.app)
        self.assertEqual(200, response.status_int, response.text)
        return {svc['host']: svc['state']
                for svc in response.json['services']}[host]

    def test_a_service_whose_heartbeats_stop_is_shown_down(self):
        svc, = _services(self.context, 1)
        self.batcher.add(svc.id)
        self.batcher.flush(self.context)
        self.assertEqual('up', self._state('host-0'))

        # Heartbeats stop: up until service_down_time has passed.
        self.time.advance_time_seconds(59)
        self.assertEqual('up', self._state('host-0'))
        self.time.advance_time_seconds(2)
        self.assertEqual('down', self._state('host-0'))

        # The next heartbeat written: up again.
        self.batcher.add(svc.id)
        self.batcher.flush(self.context)
        self.assertEqual('up', self._state('host-0'))
        self.assertEqual(timeutils.utcnow(), _row(
            self.context, svc).last_seen_up.replace(tzinfo=None))

    def test_forced_down_stays_down_while_it_beats(self):
        svc, = _services(self.context, 1)
        svc.forced_down = True
        svc.save()
        self.batcher.add(svc.id)
        self.batcher.flush(self.context)
        self.assertEqual('down', self._state('host-0'))
