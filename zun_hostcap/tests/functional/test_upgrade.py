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

"""A live upgrade from the previous release, as an operator makes it.

The previous release (``tools/previous-release.ini``) is built from this
repository's history. Its two conductors, its API and two compute
services (host A with the fake driver, host B this machine with the
linux one) run on a MariaDB database and a RabbitMQ virtual host of the
test's own; their hosts, services and answers are the baseline (that
release's API has no route that writes: its data is what its computes
store). Then the deployment is upgraded in the order of
``doc/source/admin/upgrades.rst``, each step checked:

1. the schema, and the upgrade check: what is pending is a Warning;
2. a compute of this release started first, against conductors of the
   previous one only (host C): it pins itself (``auto``);
3. the conductors, one by one; with the new one alone, the old computes
   save and beat;
4. the API: it answers what the old one did;
5. compute A, pinned to the previous release while one conductor of it
   runs; with that old conductor alone, it saves and beats;
6. the last old conductor; the pin of A removed, C unpins itself;
7. the online data migrations, and the upgrade check all Success; the
   old compute's host is a provider with inventory; a node the new
   release wrote, received by a compute of the previous one through
   ``object_backport_versions``, and saved;
8. the last compute, B: it adopts the provider the migration made.

A thread asks ``/v1/services`` every second the whole time: no service
that runs may ever be shown down. At the end, the rows and the
``/v1/hosts`` answers are the baseline's, but for the figures the hosts
changed themselves, and no service logged an error.
"""

import json
import time

from oslotest import base as oslo_base
from testtools import content

from zun_hostcap.objects import service as service_obj
from zun_hostcap.tests.functional import releases

REPORT_INTERVAL = 2
UPDATE_INTERVAL = 2
# Above the longest a conductor is stopped on purpose below.
SERVICE_DOWN_TIME = 30

CONDUCTOR = releases.CONDUCTOR
COMPUTE = releases.COMPUTE

# What a host changes by itself: left out when rows and answers are
# compared. The fake hosts' free memory is moved by the test to make
# their computes save.
HOST_DRIFT = ('mem_total', 'mem_free', 'mem_available', 'mem_buffers',
              'mem_cached', 'disk_used', 'updated_at')
NUMA_DRIFT = ('mem_total', 'mem_available')
SERVICE_DRIFT = ('report_count', 'last_seen_up', 'updated_at')

# A compute of the previous release (its modules: zun_hostcap.common.service
# there) handed a node of this one: its serializer meets a ComputeNode
# version it does not know and asks the conductor to backport it
# (object_backport_versions); it changes the labels, saves, reads the
# node again and puts the labels back.
OLD_COMPUTE_RECEIVES = r'''
import json, sys
from zun_hostcap.common import context, rpc, service
from zun_hostcap.conductor import rpcapi
import zun_hostcap.conf
from zun_hostcap import objects
from zun_hostcap.objects import base
service.prepare_service(['old-compute', '--config-file', sys.argv[1]],
                        uses_database=False)
rpc.init(zun_hostcap.conf.CONF)
ctxt = context.get_admin_context()
api = rpcapi.ConductorAPI()
base.install_indirection_api(api)
api.wait_until_ready(ctxt)
node = base.ZunHostcapObjectSerializer().deserialize_entity(
    ctxt, json.load(sys.stdin))
labels = node.labels
node.labels = {'saved-by': 'old-compute'}
node.save()
saved = objects.ComputeNode.get_by_hostname(ctxt, node.hostname).labels
node.labels = labels
node.save()
print('RESULT ' + json.dumps({'version': node.VERSION,
                             'saved_labels': saved,
                             'fields': sorted(node.fields)}))
'''

# This release reads the node, with its inventory, as it sends it.
NEW_NODE_PRIMITIVE = r'''
import json, sys
from zun_hostcap.common import context
from zun_hostcap import objects
from zun_hostcap import service
service.prepare_service(['new-reader', '--config-file', sys.argv[1]])
node = objects.ComputeNode.get_by_hostname(context.get_admin_context(),
                                           sys.argv[2])
node.inventory
print('RESULT ' + json.dumps(node.obj_to_primitive()))
'''


def _result(out):
    """What a snippet above printed after RESULT (its logs may precede)."""
    for line in out.splitlines():
        if line.startswith('RESULT '):
            return json.loads(line[len('RESULT '):])
    raise AssertionError('No result in:\n%s' % out)


def _steady(value, api_url=None):
    """``value`` without what hosts and heartbeats change by themselves.

    Documents of the API and rows alike; the API's own URL is made
    ``<api>`` so that two APIs on two ports compare, request ids go.
    """
    if isinstance(value, dict):
        drift = HOST_DRIFT if 'hostname' in value else ()
        if 'cpuset' in value:
            drift = NUMA_DRIFT
        if 'binary' in value:
            drift = SERVICE_DRIFT
        return {key: _steady(item, api_url) for key, item in value.items()
                if key not in drift and key != 'request_id'}
    if isinstance(value, (list, tuple)):
        return [_steady(item, api_url) for item in value]
    if isinstance(value, str):
        if value.startswith('{"nodes"'):
            return _steady(json.loads(value), api_url)
        if api_url:
            return value.replace(api_url, '<api>')
    return value


class TestUpgrade(oslo_base.BaseTestCase):
    """The previous release upgraded to this one while it runs."""

    # Longer than the other functional tests: the whole of it, and the
    # previous release's virtualenv when it is not made yet.
    TIMEOUT_SCALING_FACTOR = 5

    def setUp(self):
        super().setUp()
        self.deployment = self.useFixture(releases.MixedDeployment(
            self, ('ctl-1', 'ctl-2', 'A', 'B', 'C', 'api'),
            report_interval=REPORT_INTERVAL,
            update_interval=UPDATE_INTERVAL,
            service_down_time=SERVICE_DOWN_TIME))
        try:
            self.old, self.install_seconds = releases.previous_release()
        except SystemExit as err:   # the tool's one-line errors
            self.fail('The previous release cannot be installed: %s' % err)
        self.new = releases.this_release()
        self.hosts = self.deployment.hosts
        self.processes = self.deployment.processes
        self.manage_conf = self.deployment.config('manage', 'api')
        self.timings = []
        self.addCleanup(self._attach_timings)

    def _step(self, title):
        self.timings.append((title, time.monotonic()))

    def _attach_timings(self):
        if not self.timings:
            return
        ends = [started for _title, started in self.timings[1:]] + [
            time.monotonic()]
        lines = ['previous release installed in %.0f s (0: cached)'
                 % self.install_seconds]
        lines += ['%5.1f s  %s' % (end - started, title) for (
            title, started), end in zip(self.timings, ends)]
        self.addDetail('steps', content.text_content('\n'.join(lines)))

    def _manage(self, release, script, *args):
        return self.deployment.run(release, script, self.manage_conf, *args)

    def _status(self):
        """Exit status and {check: (result, details)} of the new check."""
        code, out, err = self._manage(self.new, 'zun-hostcap-status',
                                      'upgrade', 'check', '--json')
        self.assertIn(code, (0, 1, 2), err)
        return code, {check['check']: (check['result'], check['details'])
                      for check in json.loads(out)['checks']}

    def _placement(self):
        return {'auth_type': 'admin_token', 'token': 'admin',
                'endpoint_override': self.api_url + '/placement'}

    def _placement_get(self, path):
        return self.deployment.placement_get(self.api_url, path)

    def _providers(self):
        """{name: provider} of GET /placement/resource_providers."""
        return {rp['name']: rp for rp in self._placement_get(
            '/resource_providers')['resource_providers']}

    def _expect_up(self, *names_and_binaries):
        for name, binary in names_and_binaries:
            self.poller.expect(self.hosts[name], binary)

    def _log_has(self, label, text):
        self.deployment.log_has(label, text, timeout=SERVICE_DOWN_TIME + 15)

    def _rows(self):
        """The rows of compute_nodes and services, by hostname, service."""
        return {'compute_nodes': self.deployment.rows('compute_nodes',
                                                      ('hostname',)),
                'services': self.deployment.rows('services',
                                                 ('host', 'binary'))}

    def _recorded_version(self, name, binary):
        return self.deployment.service_version(name, binary)

    def _upgrade_conductor(self, name):
        """Conductor ``name`` stopped, and started of this release."""
        self.processes['%s-%s' % (name, self.old.name)].stop()
        self.deployment.conductor(name, self.new)
        self.deployment.wait(
            lambda: self._recorded_version(name, CONDUCTOR) ==
            service_obj.SERVICE_VERSION,
            'conductor %s to record the version of this release' % name)

    # The test

    def test_upgrade_from_the_previous_release(self):
        old, new, dep = self.old, self.new, self.deployment

        self._step('the previous release: conductors, API, computes A, B')
        code, _out, err = self._manage(old, 'zun-hostcap-db-manage',
                                       'upgrade')
        self.assertEqual(0, code, err)
        dep.conductor('ctl-1', old)
        dep.conductor('ctl-2', old)
        old_api = self.api_url = dep.api(old, 'api')
        dep.fake_compute('A', old)
        dep.compute('B', old)
        for name, binary in (('ctl-1', CONDUCTOR), ('ctl-2', CONDUCTOR),
                             ('A', COMPUTE), ('B', COMPUTE)):
            dep.wait_beats(name, binary)
        dep.wait(lambda: dep.node('A') and dep.node('B'),
                 'the nodes of A and B')
        self.poller = releases.Poller(old_api)
        self._expect_up(('ctl-1', CONDUCTOR), ('ctl-2', CONDUCTOR),
                        ('A', COMPUTE), ('B', COMPUTE))
        self.poller.start()
        self.addCleanup(self.poller.stop)
        rows_before = self._rows()
        answers_before = dep.documents(old_api)
        self.assertEqual(200, answers_before['/v1/hosts'][0])
        self.assertEqual({self.hosts['A'], self.hosts['B']}, {
            host['hostname']
            for host in answers_before['/v1/hosts'][1]['hosts']})

        self._step('1. the schema, and the upgrade check')
        code, out, err = self._manage(new, 'zun-hostcap-db-manage',
                                      'upgrade')
        self.assertEqual((0, 'Database is at revision 0003\n'),
                         (code, out), err)
        code, checks = self._status()
        self.assertEqual(1, code, checks)
        self.assertEqual(
            (1, '2 rows wait for an online data migration '
                '(create_compute_node_providers: 2). Run '
                '"zun-hostcap-db-manage online_data_migrations" until it '
                'exits 0; the next release needs them migrated.'),
            checks['Online Data Migrations'])
        self.assertEqual({0}, {result for name, (result, _details)
                               in checks.items()
                               if name != 'Online Data Migrations'}, checks)
        # The previous release runs on, on the new schema.
        dep.move_fake_host('A')
        dep.wait_beats('B', COMPUTE)

        self._step('2. a compute of this release first (C), conductors '
                   'of the previous one')
        dep.fake_compute('C', new)
        self._log_has('compute-C-%s' % new.name,
                      '[upgrade_levels] conductor = auto: a %s of %s runs on '
                      'topic %s' % (CONDUCTOR, old.name, dep.topic))
        dep.wait(lambda: dep.node('C'), 'the node of C')
        dep.wait_beats('C', COMPUTE)
        self._expect_up(('C', COMPUTE))
        dep.move_fake_host('C')

        self._step('3. the conductors: ctl-1 upgraded; the new one alone')
        self._upgrade_conductor('ctl-1')
        self.processes['ctl-2-%s' % old.name].stop()
        # Only the conductor of this release: the old computes save and
        # beat through it, and C, pinned, too.
        dep.move_fake_host('A')
        dep.move_fake_host('C')
        for name in ('A', 'B', 'C'):
            dep.wait_beats(name, COMPUTE)
        self.processes['ctl-2-%s' % old.name].start()
        dep.wait_beats('ctl-2', CONDUCTOR)

        self._step('4. the API')
        self.api_url = new_api = dep.api(new, 'api')
        old_answers = dep.documents(old_api)
        new_answers = dep.documents(new_api)
        self.assertEqual(_steady(old_answers, old_api),
                         _steady(new_answers, new_api))
        self.poller.url = new_api
        self.processes['api-%s' % old.name].stop()
        self.assertEqual({}, self._providers())

        self._step('5. compute A pinned to %s; the old conductor alone'
                   % old.name)
        self.processes['compute-A-%s' % old.name].stop()
        dep.fake_compute('A', new, label='compute-A-pinned',
                         placement=self._placement(),
                         upgrade_levels={'conductor': old.name})
        dep.wait_beats('A', COMPUTE)
        dep.move_fake_host('A')
        self.processes['ctl-1-%s' % new.name].stop()
        dep.move_fake_host('A')
        for name in ('A', 'B', 'C'):
            dep.wait_beats(name, COMPUTE)
        self.processes['ctl-1-%s' % new.name].start()
        dep.wait_beats('ctl-1', CONDUCTOR)
        self.assertEqual(dep.node('A')['uuid'],
                         self._providers()[self.hosts['A']]['uuid'])

        self._step('6. the last old conductor upgraded; the pin removed')
        self._upgrade_conductor('ctl-2')
        self.processes['compute-A-pinned'].stop()
        dep.fake_compute('A', new, placement=self._placement())
        unpinned = ('[upgrade_levels] conductor = auto: every %s on topic %s '
                    'runs this release; this service sends conductor RPC '
                    'API 1.1.' % (CONDUCTOR, dep.topic))
        self._log_has('compute-A-%s' % new.name, unpinned)
        self._log_has('compute-C-%s' % new.name, unpinned)
        dep.move_fake_host('A')
        for name in ('A', 'C'):
            dep.wait_beats(name, COMPUTE)
        self.assertEqual(service_obj.SERVICE_VERSION,
                         self._recorded_version('A', COMPUTE))

        self._step('7. the online data migrations; status all Success')
        code, out, err = self._manage(new, 'zun-hostcap-db-manage',
                                      'online_data_migrations')
        self.assertEqual(0, code, out + err)
        self.assertIn('create_compute_node_providers: 2 rows found, 2 '
                      'migrated', out)
        code, checks = self._status()
        self.assertEqual(0, code, checks)
        self.assertEqual({self.hosts[name]: dep.node(name)['uuid']
                          for name in ('A', 'B', 'C')},
                         {name: rp['uuid']
                          for name, rp in self._providers().items()})
        node_b = dep.node('B')
        provider = '/resource_providers/%s' % node_b['uuid']
        # Host B's compute is still of the previous release: its
        # provider has the inventory of its columns.
        inventories = self._placement_get(provider + '/inventories')
        self.assertEqual(1, inventories['resource_provider_generation'])
        self.assertEqual(
            {'VCPU': (node_b['cpus'], 4.0),
             'MEMORY_MB': (node_b['mem_total'], 1.0),
             'DISK_GB': (node_b['disk_total'], 1.0)},
            {rc: (inv['total'], inv['allocation_ratio'])
             for rc, inv in inventories['inventories'].items()})
        self._old_compute_receives_a_node_of_this_release('B')

        self._step('8. the last compute: B adopts its provider')
        self.processes['compute-B-%s' % old.name].stop()
        dep.compute('B', new, placement=self._placement(),
                    compute={'cpu_allocation_ratio': 2.0})
        dep.wait_beats('B', COMPUTE)
        # Its CPU's traits, if its architecture has os-traits names.
        has_traits = node_b['architecture'] in ('x86_64', 'aarch64')
        dep.wait(lambda: self._placement_get(provider + '/inventories')[
            'inventories']['VCPU']['allocation_ratio'] == 2.0 and bool(
                self._placement_get(provider + '/traits')['traits']) ==
            has_traits, 'compute B to put its figures on its provider')
        # No [pci] device_spec: none of its PCI devices is offered.
        self.assertEqual(
            set(), {rc for rc in self._placement_get(
                provider + '/inventories')['inventories']
                if rc.startswith('CUSTOM_PCI_')})
        self.assertEqual({self.hosts[name]: dep.node(name)['uuid']
                          for name in ('A', 'B', 'C')},
                         {name: rp['uuid']
                          for name, rp in self._providers().items()})
        self.assertNotIn('Created resource provider',
                         self.processes['compute-B-%s' % new.name].log())

        self._step('the end: as before the upgrade')
        code, checks = self._status()
        self.assertEqual(0, code, checks)
        self._assert_as_before(rows_before, answers_before, old_api)
        self.poller.stop()
        self.assertEqual([], self.poller.problems)
        self.assertGreater(self.poller.polls, 30)
        self.assertEqual({}, dep.errors_logged())

    def _old_compute_receives_a_node_of_this_release(self, name):
        """A compute of the previous release gets a 1.1 node and saves it."""
        dep = self.deployment
        code, out, err = dep.python(
            self.new, NEW_NODE_PRIMITIVE,
            dep.path('ctl-1-%s.conf' % self.new.name), self.hosts[name])
        self.assertEqual(0, code, err + out[-5000:])
        primitive = _result(out)
        self.assertEqual('1.1', primitive['zun_hostcap_object.version'])
        self.assertIn('inventory', primitive['zun_hostcap_object.data'])
        code, out, err = dep.python(
            self.old, OLD_COMPUTE_RECEIVES,
            dep.path('compute-%s-%s.conf' % (name, self.old.name)),
            stdin=json.dumps(primitive))
        self.assertEqual(0, code, err + out[-5000:])
        received = _result(out)
        self.assertEqual('1.0', received['version'])
        self.assertNotIn('inventory', received['fields'])
        self.assertEqual({'saved-by': 'old-compute'}, received['saved_labels'])
        self.assertEqual('{}', dep.node(name)['labels'])
        self.assertTrue(any(
            'Backporting ComputeNode to 1.0' in self.processes[label].log()
            for label in ('ctl-1-%s' % self.new.name,
                          'ctl-2-%s' % self.new.name)))

    def _assert_as_before(self, rows_before, answers_before, old_api):
        rows = self._rows()
        for table, before in rows_before.items():
            self.assertEqual(
                _steady(before),
                _steady({key: row for key, row in rows[table].items()
                         if key in before}), table)
        # Host C came with this release: the rest is as it was.
        host_c = self.hosts['C']
        uuid_c = self.deployment.node('C')['uuid']
        answers = {path: (status, doc) for path, (status, doc) in
                   self.deployment.documents(self.api_url).items()
                   if host_c not in path and uuid_c not in path}
        for path, key in (('/v1/hosts', 'hosts'),
                          ('/v1/services', 'services')):
            _status, doc = answers[path]
            doc[key] = [item for item in doc[key]
                        if host_c not in (item.get('hostname'),
                                          item.get('host'))]
        # The first page of one host may be another host now.
        answers_before = dict(answers_before)
        for documents in (answers, answers_before):
            del documents['/v1/hosts?limit=1']
        self.assertEqual(_steady(answers_before, old_api),
                         _steady(answers, self.api_url))
