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

"""Placement notifications from a live zun-hostcap-all to a real listener.

zun-hostcap-all runs as a process with notifications on (messagingv2,
versioned); the test listens on versioned_notifications over RabbitMQ
with oslo.messaging's threading executor, as any consumer would, and
drives /placement with osc-placement (the ``openstack`` CLI) or plain
HTTP. Proven here:

- a sequence of osc-placement commands sends exactly the expected
  resource_provider.* and allocation.* notifications, in order, once each,
  from ``zun-hostcap-all:<host>``, each payload of the object, version and
  fields of its sample in doc/notification_samples/ and with the values
  the CLI showed; a trait create, a repeated identical inventory and
  writes that fail (400, 409) send nothing;
- with the message broker stopped (a RabbitMQ node of the test's own)
  every write still succeeds at once, the service keeps running and logs
  no error of its own: with ``[oslo_messaging_notifications] retry = 0``
  each notification is dropped with one ERROR record of oslo.messaging,
  and the first write after the broker is back is announced; with the
  default retry (forever) the notifications of the writes made during the
  outage (resource_provider.create, .inventory.update, .update, .delete)
  arrive once the broker is back, in order, none lost, each as its sample;
  beyond ``[notifications] max_queued_notifications`` each one is dropped
  with one WARNING line of ours, and the others still arrive.
"""

import json
import os
import re
import subprocess
import threading
import time
import urllib.error
import urllib.request
import uuid

import fixtures
from oslo_config import cfg
import oslo_messaging as messaging
from oslotest import base
from testtools import content

from zun_hostcap.tests.functional import base as functional_base

LATEST = '1.39'
BINARY = 'zun-hostcap-all'
TOPIC = 'versioned_notifications'
SAMPLES_DIR = os.path.join(os.path.dirname(__file__), '..', '..', '..',
                           'doc', 'notification_samples')
DATA = 'zun_hostcap_object.data'
OBJECT_KEYS = ('zun_hostcap_object.name', 'zun_hostcap_object.namespace',
               'zun_hostcap_object.version')
# Placement's inventory defaults, as osc-placement shows them.
INVENTORY_DEFAULTS = {'allocation_ratio': 1.0, 'min_unit': 1,
                      'max_unit': 2147483647, 'reserved': 0,
                      'step_size': 1}
# ResourceProviderPayload's fields, as Placement shows a provider.
PROVIDER_FIELDS = ('uuid', 'name', 'generation', 'parent_provider_uuid',
                   'root_provider_uuid')
# How long a notification that should not come is waited for.
QUIET_SECONDS = 2
# A write answers in milliseconds; one that waited for the broker (a
# connection attempt, a retry) would take seconds, or forever.
MAX_WRITE_SECONDS = 2.0
# Our line for a notification dropped from a full queue.
DROPPED = re.compile(r' WARNING zun_hostcap\.common\.rpc .*\] (\S+) not sent: '
                     r'\d+ notifications are already waiting for the '
                     r'message broker$')
# The oslo.messaging record of one failed send, in the service's log.
SEND_FAILED = re.compile(
    r' ERROR oslo_messaging\.notify\.messaging .*Could not send '
    r'notification to %s\. Payload=' % TOPIC)


def _uuid():
    return str(uuid.uuid4())


def load_sample(event_type):
    """The sample of ``event_type``: resource_provider-create.json..."""
    path = os.path.join(SAMPLES_DIR, event_type.replace('.', '-') + '.json')
    with open(path) as f:
        return json.load(f)


class _Collector:
    """The listener's endpoint: keeps every notification, of any priority.

    Endpoints are called by the executor's threads, the test reads.
    """

    def __init__(self):
        self.lock = threading.Lock()
        self.received = []

    def _keep(priority):
        def keep(self, ctxt, publisher_id, event_type, payload, metadata):
            with self.lock:
                self.received.append({'priority': priority.upper(),
                                      'publisher_id': publisher_id,
                                      'event_type': event_type,
                                      'payload': payload})
        return keep

    audit = _keep('audit')
    debug = _keep('debug')
    info = _keep('info')
    warn = _keep('warn')
    error = _keep('error')
    critical = _keep('critical')
    sample = _keep('sample')
    del _keep

    def notifications(self):
        with self.lock:
            return list(self.received)


def listen(test, transport_url, exchange, tmp):
    """A notification listener on ``TOPIC`` of ``exchange``; its collector.

    Its own configuration, not the test process's: it reconnects
    without backing off, as the services of the tests do.
    """
    conf_file = functional_base.write_config(
        os.path.join(tmp, 'listener.conf'),
        {'oslo_messaging_rabbit': {'rabbit_retry_backoff': 0,
                                   'rabbit_interval_max': 1}})
    conf = cfg.ConfigOpts()
    conf(args=[], default_config_files=[conf_file], default_config_dirs=[])
    transport = messaging.get_notification_transport(conf,
                                                     url=transport_url)
    test.addCleanup(transport.cleanup)
    collector = _Collector()
    server = messaging.get_notification_listener(
        transport, [messaging.Target(exchange=exchange, topic=TOPIC)],
        [collector], executor='threading')
    server.start()
    test.addCleanup(server.wait)
    test.addCleanup(server.stop)
    return collector


class AllInOne(fixtures.Fixture):
    """zun-hostcap-all with versioned notifications; SQLite, noauth2.

    ``sections`` add to or replace its options. Ready once /placement
    answers.
    """

    def __init__(self, test, sections):
        super().__init__()
        self.test = test
        self.sections = sections

    def _setUp(self):
        self.tmp = self.useFixture(fixtures.TempDir()).path
        suffix = uuid.uuid4().hex[:8]
        self.host = 'notifications-%s' % suffix
        self.exchange = 'zun-hostcap-test-%s' % suffix
        port = functional_base.free_port()
        options = {
            'DEFAULT': {'state_path': self.tmp, 'host': self.host,
                        'control_exchange': self.exchange,
                        'debug': 'true'},
            'api': {'port': port},
            # The host is reported once, at start.
            'compute': {'resource_update_interval': 3600},
            'oslo_messaging_notifications': {'driver': 'messagingv2'},
            'notifications': {'notification_format': 'versioned'},
            'oslo_messaging_rabbit': {'rabbit_retry_backoff': 0,
                                      'rabbit_interval_max': 1},
        }
        for section, values in self.sections.items():
            options.setdefault(section, {}).update(values)
        config = functional_base.write_config(
            os.path.join(self.tmp, 'zun-hostcap.conf'), options)
        self.service = self.useFixture(functional_base.ServiceProcess(
            BINARY, config, self.tmp))
        self.endpoint = 'http://127.0.0.1:%d/placement' % port
        functional_base.wait_until_serving(self.test, self.service,
                                           self.endpoint)

    def request(self, method, path, body=None):
        """(status, decoded body or None, seconds) of a /placement call."""
        headers = {'X-Auth-Token': 'admin',
                   'OpenStack-API-Version': 'placement %s' % LATEST,
                   'Accept': 'application/json'}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers['Content-Type'] = 'application/json'
        req = urllib.request.Request(self.endpoint + path, data=data,
                                     headers=headers, method=method)
        started = time.monotonic()
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                status, text = resp.status, resp.read()
        except urllib.error.HTTPError as err:
            with err:
                status, text = err.code, err.read()
        seconds = time.monotonic() - started
        return status, (json.loads(text) if text else None), seconds

    def get(self, path):
        status, body, _seconds = self.request('GET', path)
        self.test.assertEqual(200, status, body)
        return body

    def _openstack(self, args):
        env = {name: value for name, value in os.environ.items()
               if not name.startswith('OS_')}
        env['HOME'] = self.tmp
        command = functional_base.console_script('openstack') + [
            '--os-auth-type', 'admin_token', '--os-token', 'admin',
            '--os-endpoint', self.endpoint,
            '--os-placement-api-version', LATEST] + list(args)
        return subprocess.run(command, capture_output=True, text=True,
                              env=env, timeout=60)

    def openstack(self, *args, output=True):
        """``openstack ... args`` at the latest microversion; its JSON.

        ``output=False`` for the commands that print nothing.
        """
        result = self._openstack(
            list(args) + (['-f', 'json'] if output else []))
        self.test.assertEqual(0, result.returncode, '%s: %s' % (
            ' '.join(args), result.stderr))
        self.test.assertNotIn('Traceback', result.stderr)
        return json.loads(result.stdout) if output else result.stdout

    def openstack_fails(self, status, *args):
        """``openstack ... args`` fails with HTTP ``status``."""
        result = self._openstack(args)
        self.test.assertEqual(1, result.returncode, result.stdout)
        self.test.assertIn('HTTP %d' % status, result.stderr)
        self.test.assertNotIn('Traceback', result.stderr)


class NotificationTestCase(base.BaseTestCase):

    def start_service(self, sections):
        server = self.useFixture(AllInOne(self, sections))
        self.addOnException(lambda _exc_info: self.addDetail(
            '%s log' % BINARY, content.text_content(
                server.service.log_tail(120))))
        return server

    def keep_details(self, collector):
        # What the listener got, for whoever reads a failure.
        self.addOnException(lambda _exc_info: self.addDetail(
            'notifications', content.text_content(json.dumps(
                collector.notifications(), indent=1, sort_keys=True))))

    def assert_matches_sample(self, notification, host):
        """``notification`` is shaped as its sample, from ``host``."""
        event_type = notification['event_type']
        sample = load_sample(event_type)
        self.assertEqual(event_type, sample['event_type'])
        self.assertEqual('INFO', sample['priority'])
        self.assertEqual('INFO', notification['priority'], event_type)
        self.assertEqual('%s:%s' % (BINARY, host),
                         notification['publisher_id'], event_type)
        self._assert_like(sample['payload'], notification['payload'],
                          event_type)

    def _assert_like(self, sample, got, where):
        """Same objects, versions and fields, recursively; not values."""
        if isinstance(sample, dict) and DATA in sample:
            self.assertIsInstance(got, dict, where)
            for key in OBJECT_KEYS:
                self.assertEqual(sample[key], got.get(key),
                                 '%s: %s' % (where, key))
            self.assertEqual(sorted(sample[DATA]), sorted(got[DATA]),
                             '%s: fields' % where)
            for key, value in sample[DATA].items():
                self._assert_like(value, got[DATA][key],
                                  '%s.%s' % (where, key))
        elif isinstance(sample, list):
            self.assertIsInstance(got, list, where)
            # Every item as the sample's first (lists of one kind).
            if sample and isinstance(sample[0], dict) and DATA in sample[0]:
                for index, item in enumerate(got):
                    self._assert_like(sample[0], item,
                                      '%s[%d]' % (where, index))


def _data(notification):
    return notification['payload'][DATA]


def _subject(notification):
    """The provider or consumer a notification is about."""
    data = _data(notification)
    return (data.get('uuid') or data.get('resource_provider_uuid') or
            data.get('consumer_uuid'))


def _subjects(notification):
    """The provider and consumer uuids a notification is about."""
    data = _data(notification)
    found = {data.get(key) for key in ('uuid', 'resource_provider_uuid',
                                       'consumer_uuid')}
    for key in ('allocations_before', 'allocations_after'):
        found.update(data.get(key) or {})
    return found - {None}


class TestOpenStackClientSequence(NotificationTestCase):
    """osc-placement commands, one notification per change, in order."""

    def setUp(self):
        super().setUp()
        self.vhost = self.useFixture(functional_base.RabbitVhost(self))
        self.server = self.start_service(
            {'DEFAULT': {'transport_url': self.vhost.url}})
        self.collector = listen(self, self.vhost.url, self.server.exchange,
                                self.server.tmp)
        self.keep_details(self.collector)
        # Ours: the notifications about what the test creates. The
        # compute side of the all-in-one reports its host to the same
        # /placement, which is announced too.
        self.ours = set()

    def received(self):
        return [notification for notification in
                self.collector.notifications()
                if _subjects(notification) & self.ours]

    def events(self):
        return [notification['event_type'] for notification in
                self.received()]

    def wait_for_events(self, expected, timeout=15):
        """Wait for ``expected`` (all of ours so far); then assert it."""
        deadline = time.monotonic() + timeout
        while (len(self.received()) < len(expected) and
               time.monotonic() < deadline):
            time.sleep(0.1)
        self.assertEqual(expected, self.events())
        return self.received()[-1]

    def assert_nothing_more(self, expected):
        time.sleep(QUIET_SECONDS)
        self.assertEqual(expected, self.events())

    def generation(self, rp_uuid):
        return self.server.get('/resource_providers/' +
                               rp_uuid)['generation']

    def test_sequence(self):
        server = self.server
        expected = []

        def step(event_type):
            expected.append(event_type)
            notification = self.wait_for_events(list(expected))
            self.assert_matches_sample(notification, server.host)
            return _data(notification)

        # Not a provider write: nothing.
        trait = 'CUSTOM_NOTIFICATIONS_%s' % uuid.uuid4().hex[:8].upper()
        server.openstack('trait', 'create', trait, output=False)

        rp = server.openstack('resource', 'provider', 'create',
                              'rp-' + _uuid())
        self.ours.add(rp['uuid'])
        self.assertEqual(0, rp['generation'])
        self.assertEqual(rp, step('resource_provider.create'))

        inventories = server.openstack(
            'resource', 'provider', 'inventory', 'set', rp['uuid'],
            '--resource', 'VCPU=8', '--resource', 'MEMORY_MB=4096')
        shown = sorted(inventories, key=lambda row: row['resource_class'])
        self.assertEqual([dict(INVENTORY_DEFAULTS, resource_class='MEMORY_MB',
                               total=4096),
                          dict(INVENTORY_DEFAULTS, resource_class='VCPU',
                               total=8)], shown)
        generation = self.generation(rp['uuid'])
        data = step('resource_provider.inventory.update')
        self.assertEqual(rp['uuid'], data['resource_provider_uuid'])
        self.assertEqual(generation, data['resource_provider_generation'])
        self.assertEqual(shown, [item[DATA] for item in data['inventories']])

        # The same inventory again, an unknown class (400): nothing.
        server.openstack(
            'resource', 'provider', 'inventory', 'set', rp['uuid'],
            '--resource', 'VCPU=8', '--resource', 'MEMORY_MB=4096')
        server.openstack_fails(
            400, 'resource', 'provider', 'inventory', 'set', rp['uuid'],
            '--resource', 'CUSTOM_NOBODY_KNOWS_%s=1' % uuid.uuid4().hex[:6])
        self.assert_nothing_more(expected)
        generation = self.generation(rp['uuid'])

        traits = server.openstack('resource', 'provider', 'trait', 'set',
                                  rp['uuid'], '--trait', trait)
        self.assertEqual([{'name': trait}], traits)
        generation = self.generation(rp['uuid'])
        self.assertEqual(
            {'resource_provider_uuid': rp['uuid'],
             'resource_provider_generation': generation,
             'traits': [trait]}, step('resource_provider.traits.update'))

        aggregate = _uuid()
        aggregates = server.openstack(
            'resource', 'provider', 'aggregate', 'set', rp['uuid'],
            '--aggregate', aggregate, '--generation', str(generation))
        self.assertEqual([aggregate], [row['uuid'] for row in aggregates])
        stale = generation
        generation = self.generation(rp['uuid'])
        self.assertEqual(
            {'resource_provider_uuid': rp['uuid'],
             'resource_provider_generation': generation,
             'aggregates': [aggregate]},
            step('resource_provider.aggregates.update'))
        # A stale generation (409): nothing.
        server.openstack_fails(
            409, 'resource', 'provider', 'aggregate', 'set', rp['uuid'],
            '--aggregate', _uuid(), '--generation', str(stale))

        consumer, project, user = _uuid(), _uuid(), _uuid()
        self.ours.add(consumer)
        owner = ['--project-id', project, '--user-id', user,
                 '--consumer-type', 'INSTANCE']
        server.openstack(
            'resource', 'provider', 'allocation', 'set', consumer,
            '--allocation', 'rp=%s,VCPU=2,MEMORY_MB=512' % rp['uuid'],
            *owner)
        allocations = server.get('/allocations/' + consumer)
        self.assertEqual(
            {'consumer_uuid': consumer, 'project_id': project,
             'user_id': user, 'consumer_type': 'INSTANCE',
             'consumer_generation': allocations['consumer_generation'],
             'allocations_before': {},
             'allocations_after': {rp['uuid']: {'VCPU': 2,
                                                'MEMORY_MB': 512}}},
            step('allocation.create'))

        # More than there is (409), for another consumer: nothing.
        other = _uuid()
        self.ours.add(other)
        server.openstack_fails(
            409, 'resource', 'provider', 'allocation', 'set', other,
            '--allocation', 'rp=%s,VCPU=100' % rp['uuid'], *owner)
        self.assert_nothing_more(expected)

        server.openstack(
            'resource', 'provider', 'allocation', 'set', consumer,
            '--allocation', 'rp=%s,VCPU=4' % rp['uuid'], *owner)
        allocations = server.get('/allocations/' + consumer)
        self.assertEqual(
            {'consumer_uuid': consumer, 'project_id': project,
             'user_id': user, 'consumer_type': 'INSTANCE',
             'consumer_generation': allocations['consumer_generation'],
             'allocations_before': {rp['uuid']: {'VCPU': 2,
                                                 'MEMORY_MB': 512}},
             'allocations_after': {rp['uuid']: {'VCPU': 4}}},
            step('allocation.update'))

        # All of them: the empty PUT of 1.28+.
        self.assertEqual([], server.openstack(
            'resource', 'provider', 'allocation', 'unset', consumer))
        self.assertEqual(
            {'consumer_uuid': consumer, 'project_id': project,
             'user_id': user, 'consumer_type': 'INSTANCE',
             'consumer_generation': None,
             'allocations_before': {rp['uuid']: {'VCPU': 4}},
             'allocations_after': {}},
            step('allocation.delete'))

        # Its inventories, traits and aggregates go with it, silently.
        generation = self.generation(rp['uuid'])
        server.openstack('resource', 'provider', 'delete', rp['uuid'],
                         output=False)
        self.assertEqual(dict(rp, generation=generation),
                         step('resource_provider.delete'))

        self.assert_nothing_more([
            'resource_provider.create',
            'resource_provider.inventory.update',
            'resource_provider.traits.update',
            'resource_provider.aggregates.update',
            'allocation.create', 'allocation.update', 'allocation.delete',
            'resource_provider.delete'])
        self.assert_only_the_hosts_besides(server)

    def assert_only_the_hosts_besides(self, server):
        """The other notifications are about the all-in-one's own host."""
        hosts = server.get('/resource_providers?name=' + server.host)
        host_providers = {row['uuid'] for row in
                          hosts['resource_providers']}
        for notification in self.collector.notifications():
            if _subjects(notification) & self.ours:
                continue
            if notification['event_type'].startswith('compute_node.'):
                self.assertEqual(server.host,
                                 _data(notification)['host'])
            else:
                self.assertTrue(_subjects(notification) and
                                _subjects(notification) <= host_providers,
                                notification)
            self.assertEqual('%s:%s' % (BINARY, server.host),
                             notification['publisher_id'])


class TestBrokerOutage(NotificationTestCase):
    """Writes while the message broker is stopped."""

    def start(self, notifications=None, **notification_options):
        self.broker = self.useFixture(functional_base.RabbitMQServer(self))
        # RPC stays in the process (fake://, the all-in-one's default);
        # only the notifications go through the test's broker. The host
        # is not reported to /placement: only the test writes there.
        self.server = self.start_service({
            'oslo_messaging_notifications': dict(
                notification_options, transport_url=self.broker.url),
            'notifications': notifications or {},
            'placement': {'auth_type': ''}})
        self.collector = listen(self, self.broker.url, self.server.exchange,
                                self.server.tmp)
        self.keep_details(self.collector)
        # A test that fails during the outage: the broker is back before
        # the listener and the service stop, which may wait for it.
        self.addCleanup(lambda: self.broker.process.running() or
                        self.broker.start())
        # What the service sent at start is delivered before the outage.
        self.wait_for(lambda: any(
            notification['event_type'] == 'compute_node.create'
            for notification in self.collector.notifications()),
            'compute_node.create')
        self.write_seconds = []
        first = self.create_provider()
        self.wait_for(lambda: self.about([first['uuid']]),
                      'resource_provider.create of %s' % first['uuid'])
        self.addDetail('write seconds before the outage',
                       content.text_content('%.4f' % self.write_seconds[0]))

    def wait_for(self, predicate, message, timeout=30):
        return functional_base.wait_for(predicate, timeout, interval=0.1,
                                        message=message,
                                        processes=(self.server.service,))

    def about(self, uuids):
        return [(notification['event_type'], _subject(notification))
                for notification in self.collector.notifications()
                if _subject(notification) in set(uuids)]

    def write(self, method, path, body=None):
        status, answer, seconds = self.server.request(method, path, body)
        self.assertIn(status, (200, 201, 204), answer)
        self.write_seconds.append(seconds)
        return answer

    def create_provider(self):
        name = 'rp-' + _uuid()
        return self.write('POST', '/resource_providers', {'name': name})

    def outage_writes(self):
        """Writes while the broker is away; the notifications they make.

        As (event type, provider uuid), in order.
        """
        made = []
        self.write_seconds = []
        for _index in range(2):
            rp = self.create_provider()
            made.append(('resource_provider.create', rp['uuid']))
            self.write('PUT', '/resource_providers/%s/inventories' %
                       rp['uuid'],
                       {'resource_provider_generation': rp['generation'],
                        'inventories': {'VCPU': {'total': 4},
                                        'MEMORY_MB': {'total': 1024}}})
            made.append(('resource_provider.inventory.update', rp['uuid']))
            self.write('PUT', '/resource_providers/' + rp['uuid'],
                       {'name': rp['name'] + '-renamed'})
            made.append(('resource_provider.update', rp['uuid']))
        self.write('DELETE', '/resource_providers/' + rp['uuid'])
        made.append(('resource_provider.delete', rp['uuid']))
        self.addDetail('write seconds during the outage',
                       content.text_content('max %.4f: %s' % (
                           max(self.write_seconds), json.dumps(
                               [round(seconds, 4)
                                for seconds in self.write_seconds]))))
        self.assertLess(max(self.write_seconds), MAX_WRITE_SECONDS)
        return made

    def assert_no_error_of_ours(self, log, dropped=False):
        """No ERROR of ours, no traceback through our code."""
        for line in log.splitlines():
            self.assertNotRegex(line, r' (ERROR|CRITICAL) zun_hostcap')
            # oslo.messaging's tracebacks start in oslo.messaging.
            self.assertNotRegex(line, r'File ".*/zun_hostcap/')
            if not dropped:
                # No notification dropped from a full queue.
                self.assertNotRegex(line, DROPPED)

    def test_without_retry_each_failed_send_is_logged(self):
        self.start(retry=0)
        service = self.server.service
        self.broker.stop()
        since = service.log_size()
        made = self.outage_writes()

        # One ERROR record per notification, in the order of the writes.
        def failed_sends():
            return [line for line in service.log(since).splitlines()
                    if SEND_FAILED.search(line)]
        self.wait_for(lambda: len(failed_sends()) >= len(made),
                      '%d "Could not send notification" records' % len(
                          made))
        time.sleep(QUIET_SECONDS)
        logged = [(re.search(r"'event_type': '([^']+)'", line).group(1),
                   line) for line in failed_sends()]
        self.assertEqual([event for event, _rp in made],
                         [event for event, _line in logged])
        for (_event, rp_uuid), (_logged, line) in zip(made, logged):
            self.assertIn(rp_uuid, line)
        service.assert_running(self)

        self.broker.start()
        after = self.create_provider()
        self.wait_for(lambda: self.about([after['uuid']]),
                      'resource_provider.create of %s' % after['uuid'])
        time.sleep(QUIET_SECONDS)
        # That one only: the failed sends are not made again.
        self.assertEqual([], self.about([rp for _event, rp in made]))
        self.assertEqual([('resource_provider.create', after['uuid'])],
                         self.about([after['uuid']]))
        announced, = [notification for notification in
                      self.collector.notifications()
                      if _subject(notification) == after['uuid']]
        self.assert_matches_sample(announced, self.server.host)
        self.assertEqual({key: after[key] for key in PROVIDER_FIELDS},
                         _data(announced))
        self.assertEqual(len(made), len(failed_sends()))
        self.assert_no_error_of_ours(service.log(since))
        service.assert_running(self)

    def test_with_retry_sent_when_the_broker_is_back(self):
        # oslo.messaging's default: retry = -1, forever.
        self.start()
        service = self.server.service
        self.broker.stop()
        since = service.log_size()
        made = self.outage_writes()
        uuids = {rp for _event, rp in made}
        time.sleep(QUIET_SECONDS)
        self.assertEqual([], self.about(uuids))
        service.assert_running(self)

        started = time.monotonic()
        self.broker.start()
        self.wait_for(lambda: len(self.about(uuids)) >= len(made),
                      'the %d notifications of the outage' % len(made),
                      timeout=45)
        self.addDetail('seconds until delivered after the broker start',
                       content.text_content('%.1f' % (
                           time.monotonic() - started)))
        time.sleep(QUIET_SECONDS)
        self.assertEqual(made, self.about(uuids))
        for notification in self.collector.notifications():
            if _subjects(notification) & uuids:
                self.assert_matches_sample(notification, self.server.host)
        self.assertEqual([], [line for line in service.log(since).splitlines()
                              if SEND_FAILED.search(line)])
        self.assert_no_error_of_ours(service.log(since))
        service.assert_running(self)

    def test_beyond_the_queue_each_dropped_one_is_logged(self):
        # The first notification waits in the notifier process's sender
        # for the broker, three more in its queue; the three after them
        # are dropped.
        self.start(notifications={'max_queued_notifications': 3})
        service = self.server.service
        self.broker.stop()
        since = service.log_size()
        made = self.outage_writes()
        self.wait_for(lambda: len([line for line in service.log(since)
                                   .splitlines() if DROPPED.search(line)])
                      >= 3, '3 dropped notifications')
        dropped = [DROPPED.search(line).group(1)
                   for line in service.log(since).splitlines()
                   if DROPPED.search(line)]
        self.assertEqual([event for event, _rp in made[4:]], dropped)
        service.assert_running(self)

        self.broker.start()
        uuids = {rp for _event, rp in made}
        self.wait_for(lambda: len(self.about(uuids)) >= 4,
                      'the 4 notifications kept', timeout=45)
        time.sleep(QUIET_SECONDS)
        self.assertEqual(made[:4], self.about(uuids))
        self.assert_no_error_of_ours(service.log(since), dropped=True)
        service.assert_running(self)
