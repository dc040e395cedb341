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

"""GET /metrics through the whole application, parsed as Prometheus does.

The families, their labels and values are checked against lists written
here, independently of the code: openstack-exporter's placement families
(what dashboards and alert rules already use), and ours.
"""

import json
import os
import re
import threading
import time

import fixtures
from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import enginefacade
from oslo_utils import uuidutils
from oslo_versionedobjects import exception as ovo_exc
from oslotest import base
from prometheus_client import parser
import sqlalchemy as sa
import webob

from zun_hostcap.api import app
from zun_hostcap.api import metrics as metrics_api
from zun_hostcap.common import context
from zun_hostcap.common import metrics
from zun_hostcap.common import rpc
from zun_hostcap.conductor import manager as conductor_manager
import zun_hostcap.conf
from zun_hostcap.db.sqlalchemy import api as sqla_api
from zun_hostcap.db.sqlalchemy import models
from zun_hostcap.db.sqlalchemy.placement import common as placement_common
from zun_hostcap.db.sqlalchemy.placement import metrics as placement_db
from zun_hostcap.tests import fixtures as zun_fixtures
from zun_hostcap.tests import gabbi_fixtures

CONF = zun_hostcap.conf.CONF
REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..',
                                    '..', '..'))

# openstack-exporter's placement exporter (exporters/placement.go, and
# the database exporter that copies it): family -> labels, all gauges.
# total, reserved and allocation_ratio are an inventory's; usage is the
# sum of the allocations against it; hostname is the provider's name,
# resourcetype its class; up is 1 when the figures could be read.
OPENSTACK_EXPORTER = {
    'openstack_placement_resource_total': {'hostname', 'resourcetype'},
    'openstack_placement_resource_usage': {'hostname', 'resourcetype'},
    'openstack_placement_resource_reserved': {'hostname', 'resourcetype'},
    'openstack_placement_resource_allocation_ratio': {'hostname',
                                                      'resourcetype'},
    'openstack_placement_up': set(),
}

# Ours: family (as the parser names it) -> (type, labels).
HOST_FAMILIES = {
    'zun_hostcap_host_cpus': ('gauge', {'hostname'}),
    'zun_hostcap_host_cpus_used': ('gauge', {'hostname'}),
    'zun_hostcap_host_memory_total_bytes': ('gauge', {'hostname'}),
    'zun_hostcap_host_memory_available_bytes': ('gauge', {'hostname'}),
    'zun_hostcap_host_numa_cells': ('gauge', {'hostname'}),
    'zun_hostcap_host_numa_cell_cpus': ('gauge', {'hostname', 'cell'}),
    'zun_hostcap_host_numa_cell_memory_total_bytes': (
        'gauge', {'hostname', 'cell'}),
    'zun_hostcap_host_numa_cell_memory_available_bytes': (
        'gauge', {'hostname', 'cell'}),
    'zun_hostcap_host_containers': ('gauge', {'hostname', 'state'}),
    'zun_hostcap_service_up': ('gauge', {'host', 'binary'}),
    'zun_hostcap_service_forced_down': ('gauge', {'host', 'binary'}),
    'zun_hostcap_service_disabled': ('gauge', {'host', 'binary'}),
}
SERVICE_FAMILIES = {
    'zun_hostcap_api_requests': ('counter', {'route', 'method', 'status'}),
    'zun_hostcap_api_request_duration_seconds': ('histogram',
                                                 {'route', 'method'}),
    'zun_hostcap_conductor_rpc_calls': ('counter', {'method', 'outcome'}),
    'zun_hostcap_notifications_queued': ('gauge', {'queue'}),
    'zun_hostcap_notifications_dropped': ('counter', {'queue'}),
    'zun_hostcap_db_deadlock_retries': ('counter', set()),
}

ADMIN = {'X-Auth-Token': 'admin',
         'OpenStack-API-Version': 'placement latest'}


def parse(text):
    """{family name: family} of an exposition, with Prometheus' parser."""
    return {family.name: family
            for family in parser.text_string_to_metric_families(text)}


def value(families, family, sample_name=None, **labels):
    """The value of the one sample of ``family`` with ``labels``.

    ``sample_name`` names the sample when it is not the family's name
    (a counter's ``_total``).
    """
    sample_name = sample_name or family
    found = [sample.value for sample in families[family].samples
             if sample.name == sample_name and sample.labels == labels]
    if len(found) != 1:
        raise AssertionError('%d samples %s%s in %s' % (
            len(found), sample_name, labels, families[family].samples))
    return found[0]


class MetricsTestCase(base.BaseTestCase):
    """The whole API with [metrics] enabled; the gabbits' hosts."""

    fixture_class = gabbi_fixtures.PlacementFixture
    metrics_options = {}

    def setUp(self):
        super().setUp()
        self.api_fixture = gabbi_fixtures.use(self, self.fixture_class)
        # Another engine's, in the functional tests of the backends.
        self.database = self.api_fixture.database
        self.metrics = self.useFixture(zun_fixtures.Metrics(
            CONF, **self.metrics_options))
        self.app = app.setup_app()

    def request(self, method, path, body=None, headers=ADMIN):
        req = webob.Request.blank(path, method=method, headers=headers)
        if body is not None:
            req.body = json.dumps(body).encode()
            req.content_type = 'application/json'
        return req.get_response(self.app)

    def provider(self, name, inventories):
        """A provider with ``inventories`` ({class: fields}); its uuid."""
        uuid = uuidutils.generate_uuid()
        resp = self.request('POST', '/placement/resource_providers',
                            {'name': name, 'uuid': uuid})
        self.assertEqual(200, resp.status_int, resp.text)
        resp = self.request(
            'PUT', '/placement/resource_providers/%s/inventories' % uuid,
            {'resource_provider_generation': 0, 'inventories': inventories})
        self.assertEqual(200, resp.status_int, resp.text)
        return uuid

    def allocate(self, provider_uuid, resources):
        consumer = uuidutils.generate_uuid()
        resp = self.request(
            'PUT', '/placement/allocations/%s' % consumer,
            {'allocations': {provider_uuid: {'resources': resources}},
             'project_id': 'p', 'user_id': 'u', 'consumer_generation': None,
             'consumer_type': 'INSTANCE'})
        self.assertEqual(204, resp.status_int, resp.text)
        return consumer

    def scrape(self, app=None):
        resp = webob.Request.blank('/metrics').get_response(app or self.app)
        self.assertEqual(200, resp.status_int, resp.text)
        self.assertEqual('text/plain; version=0.0.4; charset=utf-8',
                         resp.headers['Content-Type'])
        return parse(resp.text)


class TestPlacementFamilies(MetricsTestCase):

    def test_openstack_exporters_families_labels_and_meanings(self):
        # What zun-hostcap says it exports is openstack-exporter's list.
        self.assertEqual(
            OPENSTACK_EXPORTER,
            {name: set(labels) for name, (labels, _help) in
             metrics_api.PLACEMENT_FAMILIES.items()})
        uuid = self.provider('compute-1', {
            'VCPU': {'total': 16, 'reserved': 1, 'allocation_ratio': 4.0},
            'MEMORY_MB': {'total': 4096, 'reserved': 512,
                          'allocation_ratio': 1.5}})
        self.allocate(uuid, {'VCPU': 2, 'MEMORY_MB': 1024})
        self.allocate(uuid, {'VCPU': 3})
        self.provider('compute-2', {'DISK_GB': {'total': 100}})

        families = self.scrape()
        for name, labels in OPENSTACK_EXPORTER.items():
            self.assertEqual('gauge', families[name].type, name)
            for sample in families[name].samples:
                self.assertEqual(labels, set(sample.labels), sample)
        expected = {
            ('compute-1', 'VCPU'): (16, 5, 1, 4.0),
            ('compute-1', 'MEMORY_MB'): (4096, 1024, 512, 1.5),
            # Unused: 0, as Placement's usages show it.
            ('compute-2', 'DISK_GB'): (100, 0, 0, 1.0),
        }
        for (host, rc), figures in expected.items():
            self.assertEqual(figures, tuple(
                value(families, 'openstack_placement_resource_' + what,
                      hostname=host, resourcetype=rc)
                for what in ('total', 'usage', 'reserved',
                             'allocation_ratio')))
        self.assertEqual(1, value(families, 'openstack_placement_up'))

    def test_a_few_statements_whatever_the_number_of_providers(self):
        statements = self.database.count_statements()

        def per_scrape():
            del statements[:]
            self.scrape()
            return len(statements)

        first = self.provider('rack1-1', {'VCPU': {'total': 8}})
        self.allocate(first, {'VCPU': 1})
        one_provider = per_scrape()
        for index in range(30):
            uuid = self.provider('rack2-%d' % index, {
                'VCPU': {'total': 8}, 'MEMORY_MB': {'total': 1024},
                'DISK_GB': {'total': 10}})
            self.allocate(uuid, {'VCPU': 1, 'MEMORY_MB': 64})
        families = self.scrape()
        self.assertEqual(
            1 + 30 * 3,
            len(families['openstack_placement_resource_total'].samples))
        # The inventories, the compute nodes, the services.
        self.assertEqual(3, one_provider)
        self.assertEqual(one_provider, per_scrape())

    def test_each_inventory_as_a_row_written_alone_gives_it(self):
        # The samples are those that writing each inventory's row (the
        # one statement of SQLite and PostgreSQL, run here on whatever
        # engine the test has) a line at a time gives, and no others. On
        # MariaDB the figures come as joined texts: in chunks of 4 ids
        # here, so that these few providers span several.
        self.useFixture(fixtures.MockPatchObject(
            placement_db, '_JOINED_CAPACITY',
            placement_db._joined_capacity(chunk_bits=2)))
        resp = self.request('PUT', '/placement/resource_classes/CUSTOM_GPU')
        self.assertIn(resp.status_int, (201, 204), resp.text)
        ratios = (1.0, 1.5, 16.0, 0.1, 4.0)
        for index in range(9):
            uuid = self.provider(
                ('rack "b" \\ %d\nend' if index % 4 == 0 else 'node-%d') %
                index, {
                    rc: {'total': 100 + index, 'reserved': index % 3,
                         'allocation_ratio': ratios[(index + k) % 5]}
                    for k, rc in enumerate(('VCPU', 'MEMORY_MB', 'DISK_GB',
                                            'CUSTOM_GPU')[:1 + index % 4])})
            for consumer in range(index % 3):
                self.allocate(uuid, {'VCPU': 1 + consumer})
        self.provider('no-inventory', {})

        @placement_common.reader
        def rows(context):
            return context.session.execute(placement_db._CAPACITY).all()

        def label(value):
            return (value.replace('\\', '\\\\').replace('\n', '\\n')
                    .replace('"', '\\"'))

        expected = []
        for name, rc, total, reserved, ratio, used in rows(
                context.get_admin_context()):
            labels = '{hostname="%s",resourcetype="%s"} ' % (label(name), rc)
            expected += [
                'openstack_placement_resource_total%s%d' % (labels, total),
                'openstack_placement_resource_usage%s%d' % (labels, used),
                'openstack_placement_resource_reserved%s%d' % (labels,
                                                               reserved),
                'openstack_placement_resource_allocation_ratio%s%r' % (
                    labels, float(ratio))]
        text = webob.Request.blank('/metrics').get_response(self.app).text
        self.assertEqual(
            sorted(expected),
            sorted(line for line in text.splitlines()
                   if line.startswith('openstack_placement_resource_')))
        self.assertEqual(1 + 2 + 3 + 4 + 1 + 2 + 3 + 4 + 1,
                         len(expected) // 4)

    def test_joined_texts_read_in_any_order_give_the_same_columns(self):
        # MariaDB's texts are read as they come, the names first in the
        # statement's order; figures read before their providers' names
        # are named all the same.
        @placement_common.reader
        def vcpu_id(context):
            return context.session.execute(sa.select(
                models.ResourceClass.__table__.c.id).where(
                models.ResourceClass.__table__.c.name == 'VCPU')).scalar()

        # The API writes the standard classes at its first use.
        self.provider('compute-1', {'VCPU': {'total': 1}})
        ctxt = context.get_admin_context()
        vcpu = vcpu_id(ctxt)
        rows = [('names', None, '"1","a","2","b \\"c\\""'),
                ('names', None, '"5","e"'),
                ('figures', vcpu, '1 8 0 16 2 4 1 1.5'),
                ('figures', vcpu, '5 2 0 1'),
                ('usages', vcpu, '2 3 5 1')]
        expected = placement_db.Capacity(
            ['a', 'b "c"', 'e'], ['VCPU'] * 3, ['8', '4', '2'],
            ['0', '1', '0'], ['16', '1.5', '1'], ['0', '3', '1'])
        names, figures, usages = rows[:2], rows[2:4], rows[4:]
        for order in (rows, figures + usages + names, usages + rows[:4],
                      names[:1] + figures[:1] + names[1:] + figures[1:] +
                      usages):
            self.assertEqual(expected,
                             placement_db._from_joined(ctxt, iter(order)))

    def test_label_values_are_escaped(self):
        name = 'rack "b" \\ 7 \u00e9t\u00e9'
        self.provider(name, {'VCPU': {'total': 2}})
        families = self.scrape()
        self.assertEqual(2, value(families,
                                  'openstack_placement_resource_total',
                                  hostname=name, resourcetype='VCPU'))

    def test_a_database_that_cannot_be_read_is_up_0_not_an_error(self):
        facade = enginefacade.transaction_context()
        facade.configure(connection='sqlite:////nonexistent/dir/x.db',
                         **sqla_api.ENGINE_OPTIONS)
        self.addCleanup(sqla_api.main_context_manager.patch_factory(
            facade._factory))
        families = self.scrape()
        self.assertEqual(0, value(families, 'openstack_placement_up'))
        self.assertNotIn('openstack_placement_resource_total', families)
        self.assertNotIn('zun_hostcap_host_cpus', families)

    def test_gzip_when_asked(self):
        resp = webob.Request.blank('/metrics', headers={
            'Accept-Encoding': 'gzip, deflate'}).get_response(self.app)
        self.assertEqual('gzip', resp.headers['Content-Encoding'])
        resp.decode_content()
        self.assertIn('openstack_placement_up 1', resp.text)

    def test_only_get_and_head(self):
        resp = webob.Request.blank('/metrics',
                                   method='POST').get_response(self.app)
        self.assertEqual(405, resp.status_int)
        self.assertEqual('GET, HEAD', resp.headers['Allow'])
        resp = webob.Request.blank('/metrics',
                                   method='HEAD').get_response(self.app)
        self.assertEqual(200, resp.status_int)
        self.assertEqual(b'', resp.body)


class TestHostFamilies(MetricsTestCase):
    """The hosts and services of gabbi_fixtures.populate."""

    fixture_class = gabbi_fixtures.APIFixture

    def test_hosts_and_services(self):
        families = self.scrape()
        for name, (kind, labels) in HOST_FAMILIES.items():
            self.assertEqual(kind, families[name].type, name)
            for sample in families[name].samples:
                self.assertEqual(labels, set(sample.labels), sample)
        host = 'host-a.example.com'
        mib = 1024 * 1024
        self.assertEqual(8, value(families, 'zun_hostcap_host_cpus',
                                  hostname=host))
        self.assertEqual(1.5, value(families, 'zun_hostcap_host_cpus_used',
                                    hostname=host))
        self.assertEqual(32000 * mib, value(
            families, 'zun_hostcap_host_memory_total_bytes', hostname=host))
        self.assertEqual(12000 * mib, value(
            families, 'zun_hostcap_host_memory_available_bytes',
            hostname=host))
        self.assertEqual(2, value(families, 'zun_hostcap_host_numa_cells',
                                  hostname=host))
        self.assertEqual(0, value(families, 'zun_hostcap_host_numa_cells',
                                  hostname='host-b'))
        self.assertEqual(4, value(families,
                                  'zun_hostcap_host_numa_cell_cpus',
                                  hostname=host, cell='1'))
        self.assertEqual(9000 * mib, value(
            families, 'zun_hostcap_host_numa_cell_memory_available_bytes',
            hostname=host, cell='0'))
        self.assertEqual(16000 * mib, value(
            families, 'zun_hostcap_host_numa_cell_memory_total_bytes',
            hostname=host, cell='0'))
        self.assertEqual(
            {'running': 2, 'paused': 0, 'stopped': 1, 'other': 0},
            {state: value(families, 'zun_hostcap_host_containers',
                          hostname=host, state=state)
             for state in ('running', 'paused', 'stopped', 'other')})
        # Up; silent for an hour; a recent heartbeat but forced down.
        for service_host, binary, up, forced in (
                (host, 'zun-hostcap-conductor', 1, 0),
                ('host-b', 'zun-hostcap-compute', 0, 0),
                ('host-c', 'zun-hostcap-compute', 0, 1)):
            labels = {'host': service_host, 'binary': binary}
            self.assertEqual(up, value(families, 'zun_hostcap_service_up',
                                       **labels))
            self.assertEqual(forced, value(
                families, 'zun_hostcap_service_forced_down', **labels))
            self.assertEqual(0, value(
                families, 'zun_hostcap_service_disabled', **labels))


class TestServiceFamilies(MetricsTestCase):

    def test_requests_by_route_template_method_and_status(self):
        provider = uuidutils.generate_uuid()
        for _ in range(3):
            self.request('GET', '/placement/resource_providers/%s' %
                         provider)
        self.request('GET', '/v1/hosts/host-b', headers={
            'X-Auth-Token': 'admin',
            'OpenStack-API-Version': 'container latest'})
        # Refused before the router, still counted under its template.
        self.request('GET', '/placement/resource_providers', headers={})
        self.request('GET', '/no/such/%s' % provider)
        families = self.scrape()
        for route, method, status, count in (
                ('/placement/resource_providers/{uuid}', 'GET', '404', 3),
                ('/v1/hosts/{ident}', 'GET', '200', 1),
                ('/placement/resource_providers', 'GET', '401', 1),
                ('other', 'GET', '404', 1)):
            self.assertEqual(count, value(
                families, 'zun_hostcap_api_requests',
                'zun_hostcap_api_requests_total', route=route,
                method=method, status=status))
        durations = families['zun_hostcap_api_request_duration_seconds']
        count = [s.value for s in durations.samples
                 if s.name.endswith('_count') and s.labels == {
                     'route': '/placement/resource_providers/{uuid}',
                     'method': 'GET'}]
        self.assertEqual([3], count)

    def test_deadlocks_run_again_are_counted(self):
        attempts = []

        @placement_common.retry_on_deadlock
        def write():
            attempts.append(1)
            if len(attempts) < 3:
                # What oslo.db makes of Galera's failed certification.
                raise db_exc.DBDeadlock()
            return 'written'

        self.assertEqual('written', write())
        self.assertEqual(3, len(attempts))
        self.assertEqual(2, value(
            self.scrape(), 'zun_hostcap_db_deadlock_retries',
            'zun_hostcap_db_deadlock_retries_total'))

    def test_every_family_and_label_is_listed(self):
        conductor = conductor_manager.ConductorManager()
        ctxt = context.get_admin_context()
        conductor.ping(ctxt)
        self.assertRaises(ovo_exc.UnsupportedObjectError,
                          conductor.object_class_action_versions,
                          ctxt, 'NoSuchObject', 'get', {'NoSuchObject': '1.0'},
                          (), {})
        metrics.count_notifications_dropped(metrics.QUEUE_BROKER)
        metrics.set_notifications_queued(metrics.QUEUE_BROKER, 0)
        self.request('GET', '/placement/')
        families = self.scrape()
        listed = dict(HOST_FAMILIES, **SERVICE_FAMILIES)
        listed.update((name, ('gauge', labels))
                      for name, labels in OPENSTACK_EXPORTER.items())
        # The gabbits' hosts have no Placement inventory.
        del listed['openstack_placement_resource_total']
        for name in ('usage', 'reserved', 'allocation_ratio'):
            del listed['openstack_placement_resource_' + name]
        self.assertEqual(set(listed), set(families))
        for name, family in families.items():
            kind, labels = listed[name]
            self.assertEqual(kind, family.type, name)
            for sample in family.samples:
                self.assertEqual(labels, set(sample.labels) - {'le'},
                                 sample)
        calls = {(s.labels['method'], s.labels['outcome']): s.value
                 for s in families['zun_hostcap_conductor_rpc_calls'].samples
                 if s.name == 'zun_hostcap_conductor_rpc_calls_total'}
        self.assertEqual({('ping', 'success'): 1,
                          ('object_class_action_versions', 'error'): 1},
                         calls)


class TestNotificationQueue(MetricsTestCase):

    def test_queued_and_dropped(self):
        release = threading.Event()
        sender = rpc._Sender(limit=1)
        sent = []

        def send():
            release.wait(10)
            sent.append(1)
        sender.put(send, 'first')
        # The thread took the first; the second waits; the third is one
        # too many.
        deadline = time.monotonic() + 10
        while sender._queue.qsize() and time.monotonic() < deadline:
            time.sleep(0.01)
        sender.put(send, 'second')
        sender.put(send, 'third')
        families = self.scrape()
        self.assertEqual(2, value(
            families, 'zun_hostcap_notifications_queued', queue='broker'))
        self.assertEqual(1, value(
            families, 'zun_hostcap_notifications_dropped',
            'zun_hostcap_notifications_dropped_total', queue='broker'))
        release.set()
        self.assertTrue(sender.wait_until_sent(10))
        self.assertEqual(0, value(self.scrape(),
                                  'zun_hostcap_notifications_queued',
                                  queue='broker'))


class TestSeparateListener(MetricsTestCase):

    def test_metrics_only_on_their_own_listener(self):
        # As zun-hostcap-api builds it with a [metrics] port.
        resp = webob.Request.blank('/metrics').get_response(
            app.setup_app(metrics_path=False))
        self.assertEqual(404, resp.status_int)
        self.assertIn('[metrics] port', resp.json['errors'][0]['detail'])
        self.assertIn('openstack_placement_up',
                      self.scrape(metrics_api.StandaloneMetricsApp()))
        resp = webob.Request.blank('/v1/hosts').get_response(
            metrics_api.StandaloneMetricsApp())
        self.assertEqual(404, resp.status_int)


class TestDisabled(base.BaseTestCase):

    def test_no_metrics_path_and_nothing_counted(self):
        gabbi_fixtures.use(self, gabbi_fixtures.PlacementFixture)
        application = app.setup_app()
        resp = webob.Request.blank('/metrics').get_response(application)
        # Not a 401: the answer says how to turn metrics on.
        self.assertEqual(404, resp.status_int)
        detail = resp.json['errors'][0]['detail']
        self.assertIn('[metrics] enabled', detail)
        self.assertFalse(metrics.enabled())
        self.assertEqual(b'', metrics.exposition())


class TestShippedRulesAndDashboard(base.BaseTestCase):
    """etc/prometheus and etc/grafana name only families we export."""

    _NAME = re.compile(r'\b((?:openstack_placement|zun_hostcap)_\w+)')

    def _known(self, name):
        known = set(OPENSTACK_EXPORTER) | set(HOST_FAMILIES)
        for family, (kind, _labels) in SERVICE_FAMILIES.items():
            suffixes = {'counter': ('_total',),
                        'histogram': ('_bucket', '_sum', '_count'),
                        'gauge': ('',)}[kind]
            known.update(family + suffix for suffix in suffixes)
        return name in known

    def _names(self, text):
        return set(self._NAME.findall(text))

    def test_rules(self):
        path = os.path.join(REPO, 'etc', 'prometheus',
                            'zun-hostcap-alerts.yaml')
        with open(path) as f:
            names = self._names(f.read())
        self.assertIn('openstack_placement_resource_usage', names)
        for name in names:
            self.assertTrue(self._known(name), name)

    def test_dashboard(self):
        path = os.path.join(REPO, 'etc', 'grafana',
                            'zun-hostcap-capacity.json')
        with open(path) as f:
            dashboard = json.load(f)
        exprs = [target['expr'] for panel in dashboard['panels']
                 for target in panel['targets']]
        self.assertTrue(exprs)
        for expr in exprs:
            for name in self._names(expr):
                self.assertTrue(self._known(name), name)
