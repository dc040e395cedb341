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

import dataclasses
import json
import os
import re
import subprocess
import sys
import time
import uuid

import fixtures
from oslotest import base as oslo_base
from testtools import content

from zun_hostcap.objects import service as service_obj
from zun_hostcap.os_capability import fake as fake_host
from zun_hostcap.tests.functional import base
from zun_hostcap.tests.functional import releases

REPORT_INTERVAL = 2
UPDATE_INTERVAL = 2
# Above the longest a conductor is stopped on purpose below.
SERVICE_DOWN_TIME = 30

CONDUCTOR = 'zun-hostcap-conductor'
COMPUTE = 'zun-hostcap-compute'
API = 'zun-hostcap-api'

# What a host changes by itself: left out when rows and answers are
# compared. The fake hosts' free memory is moved by the test to make
# their computes save.
HOST_DRIFT = ('mem_total', 'mem_free', 'mem_available', 'mem_buffers',
              'mem_cached', 'disk_used', 'updated_at')
NUMA_DRIFT = ('mem_total', 'mem_available')
SERVICE_DRIFT = ('report_count', 'last_seen_up', 'updated_at')

PLACEMENT_HEADERS = {'X-Auth-Token': 'admin',
                     'OpenStack-API-Version': 'placement 1.39'}

# A compute of the previous release handed a node of this one: its
# serializer meets a ComputeNode version it does not know and asks the
# conductor to backport it (object_backport_versions); it changes the
# labels, saves, reads the node again and puts the labels back.
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
from zun_hostcap.common import context, service
from zun_hostcap import objects
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
            drift = SERVICE_DRIFT + ('version',)
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
        base.require_port(self, 'MariaDB', 3306)
        self.db = self.useFixture(base.MySQLDatabase())
        self.vhost = self.useFixture(base.RabbitVhost(self))
        self.tmp = self.useFixture(fixtures.TempDir()).path
        try:
            self.old, self.install_seconds = releases.previous_release()
        except SystemExit as err:   # the tool's one-line errors
            self.fail('The previous release cannot be installed: %s' % err)
        self.new = releases.this_release()
        suffix = uuid.uuid4().hex[:8]
        self.topic = 'zun-hostcap-conductor-%s' % suffix
        self.exchange = 'zun-hostcap-test-%s' % suffix
        self.hosts = {name: 'upgrade-%s-%s' % (name.lower(), suffix)
                      for name in ('ctl-1', 'ctl-2', 'A', 'B', 'C', 'api')}
        # Host name -> its fake capabilities file, and how often moved.
        self.fake_files = {}
        self.fake_moves = {}
        self.processes = {}
        self.timings = []
        self.addCleanup(self._attach_timings)

    # Configuration, processes

    def _config(self, name, host, **sections):
        merged = {
            'DEFAULT': {'transport_url': self.vhost.url,
                        'control_exchange': self.exchange,
                        'state_path': self.tmp,
                        'report_interval': REPORT_INTERVAL,
                        'service_down_time': SERVICE_DOWN_TIME,
                        'debug': 'true', 'host': self.hosts[host]},
            'conductor': {'topic': self.topic},
            'compute': {'resource_update_interval': UPDATE_INTERVAL},
            'oslo_messaging_rabbit': {'rabbit_retry_backoff': 0,
                                      'rabbit_interval_max': 1},
            'database': {'connection': self.db.url},
            # No policy file of this machine.
            'oslo_policy': {'policy_file': os.path.join(self.tmp,
                                                        'policy.yaml')},
        }
        for section, options in sections.items():
            merged.setdefault(section, {}).update(options)
        return base.write_config(os.path.join(self.tmp, name + '.conf'),
                                 merged)

    def _start(self, label, release, script, config):
        process = self.useFixture(base.Process(
            label, release.command(script) + ['--config-file', config],
            os.path.join(self.tmp, label + '.log')))
        self.processes[label] = process
        return process

    def _run(self, release, script, *args, config=None):
        """(exit status, stdout, stderr) of a console script of it."""
        result = subprocess.run(
            release.command(script) + ['--config-file',
                                       config or self.manage_conf] +
            list(args), capture_output=True, text=True, timeout=120)
        return result.returncode, result.stdout, result.stderr

    def _python(self, release, code, *args, stdin=None):
        """(exit status, stdout, stderr) of Python ``code`` of it.

        Run elsewhere than in the source tree, which ``-c`` would put
        first on the path of the previous release's Python.
        """
        result = subprocess.run(
            [release.python or sys.executable, '-c', code] + list(args),
            input=stdin, capture_output=True, text=True, timeout=120,
            cwd=self.tmp)
        return result.returncode, result.stdout, result.stderr

    def _status(self):
        """Exit status and {check: (result, details)} of the new check."""
        code, out, err = self._run(self.new, 'zun-hostcap-status', 'upgrade',
                                   'check', '--json')
        self.assertIn(code, (0, 1, 2), err)
        return code, {check['check']: (check['result'], check['details'])
                      for check in json.loads(out)['checks']}

    def _conductor(self, name, release):
        config = self._config('%s-%s' % (name, release.name), name)
        return self._start('%s-%s' % (name, release.name), release,
                           CONDUCTOR, config)

    def _compute(self, name, release, label=None, **sections):
        # No database: a compute never opens it.
        sections.setdefault('database', {
            'connection': 'mysql+pymysql://nobody:nothing@127.0.0.1:1/x'})
        label = label or 'compute-%s-%s' % (name, release.name)
        return self._start(label, release, COMPUTE,
                           self._config(label, name, **sections))

    def _fake_compute(self, name, release, label=None, **sections):
        path = self.fake_files.setdefault(
            name, os.path.join(self.tmp, 'host-%s.json' % name))
        if not os.path.exists(path):
            fake_host.write_capabilities(path,
                                         fake_host.sample_capabilities())
        compute = dict(sections.pop('compute', {}),
                       os_capability_driver='fake',
                       fake_capabilities_file=path)
        return self._compute(name, release, label, compute=compute,
                             **sections)

    def _placement(self):
        return {'auth_type': 'admin_token', 'token': 'admin',
                'endpoint_override': self.api_url + '/placement'}

    def _api(self, release):
        port = base.free_port()
        label = 'api-%s' % release.name
        config = self._config(label, 'api', api={
            'host': '127.0.0.1', 'port': port, 'workers': 1,
            'auth_strategy': 'noauth2'})
        process = self._start(label, release, API, config)
        url = 'http://127.0.0.1:%d' % port
        base.wait_until_serving(self, process, url + '/', timeout=60)
        return url

    # What the deployment shows

    def _rows(self, table, key):
        return {tuple(row[name] for name in key) if len(key) > 1 else
                row[key[0]]: row
                for row in self.db.rows('SELECT * FROM %s' % table)}

    def _node(self, name):
        return self._rows('compute_nodes', ('hostname',)).get(
            self.hosts[name])

    def _service(self, name, binary):
        return self._rows('services', ('host', 'binary')).get(
            (self.hosts[name], binary))

    def _documents(self, url):
        """The API's answers: versions, hosts (list, each), services."""
        docs = {}
        for path in ('/', '/v1', '/v1/hosts', '/v1/services',
                     '/v1/hosts?limit=1', '/v1/hosts/no-such-host'):
            docs[path] = releases.api_get(url, path)
        for host in docs['/v1/hosts'][1]['hosts']:
            path = '/v1/hosts/%s' % host['uuid']
            docs[path] = releases.api_get(url, path)
            docs['/v1/hosts/%s' % host['hostname']] = releases.api_get(
                url, '/v1/hosts/%s' % host['hostname'])
        return docs

    def _placement_get(self, path):
        status, _headers, body = base.http_get(
            self.api_url + '/placement' + path, PLACEMENT_HEADERS)
        self.assertEqual(200, status, body)
        return json.loads(body)

    def _providers(self):
        """{name: provider} of GET /placement/resource_providers."""
        return {rp['name']: rp for rp in self._placement_get(
            '/resource_providers')['resource_providers']}

    # Waiting for the services

    def _wait(self, predicate, message, timeout=60):
        return base.wait_for(predicate, timeout, interval=0.5,
                             message=message,
                             processes=tuple(self.running()))

    def running(self):
        return [process for process in self.processes.values()
                if process.running()]

    def _wait_beats(self, name, binary, beats=2):
        """Until the service counts ``beats`` more heartbeats."""
        before = (self._service(name, binary) or {}).get('report_count', 0)
        self._wait(lambda: (self._service(name, binary) or {}).get(
            'report_count', 0) >= before + beats,
            '%d heartbeats of %s on %s' % (beats, binary, name))

    def _expect_up(self, *names_and_binaries):
        for name, binary in names_and_binaries:
            self.poller.expect(self.hosts[name], binary)

    def _move_fake_host(self, name):
        """Change host ``name``'s free memory; wait for its row to have it.

        Two values in turn, 5 and 10 percent of its memory below the
        sample's: each a change its compute saves.
        """
        caps = fake_host.sample_capabilities()
        memory = caps.memory
        step = self.fake_moves[name] = self.fake_moves.get(name, 0) + 1
        free = memory.mem_free - (1 + step % 2) * memory.mem_total // 20
        fake_host.write_capabilities(
            self.fake_files[name], dataclasses.replace(
                caps, memory=dataclasses.replace(memory, mem_free=free)))
        self._wait(lambda: (self._node(name) or {}).get('mem_free') ==
                   free // 1024, 'the compute of %s to save its free memory'
                   % name, timeout=30)

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
        self.addDetail('steps', content.text_content(
            '\n'.join(lines)))

    def _log_has(self, label, text, timeout=SERVICE_DOWN_TIME + 15):
        process = self.processes[label]
        self._wait(lambda: text in process.log(),
                   '%r in the log of %s' % (text, label), timeout=timeout)

    # The test

    def test_upgrade_from_the_previous_release(self):
        old, new = self.old, self.new
        self.manage_conf = self._config('manage', 'api')

        self._step('the previous release: conductors, API, computes A, B')
        code, out, err = self._run(old, 'zun-hostcap-db-manage', 'upgrade')
        self.assertEqual(0, code, err)
        self._conductor('ctl-1', old)
        self._conductor('ctl-2', old)
        old_api = self.api_url = self._api(old)
        self._fake_compute('A', old)
        self._compute('B', old)
        for name, binary in (('ctl-1', CONDUCTOR), ('ctl-2', CONDUCTOR),
                             ('A', COMPUTE), ('B', COMPUTE)):
            self._wait_beats(name, binary)
        self._wait(lambda: self._node('A') and self._node('B'),
                   'the nodes of A and B')
        self.poller = releases.Poller(old_api)
        self._expect_up(('ctl-1', CONDUCTOR), ('ctl-2', CONDUCTOR),
                        ('A', COMPUTE), ('B', COMPUTE))
        self.poller.start()
        self.addCleanup(self.poller.stop)
        rows_before = {'compute_nodes': self._rows('compute_nodes',
                                                   ('hostname',)),
                       'services': self._rows('services',
                                              ('host', 'binary'))}
        answers_before = self._documents(old_api)
        self.assertEqual(200, answers_before['/v1/hosts'][0])
        self.assertEqual({self.hosts['A'], self.hosts['B']}, {
            host['hostname']
            for host in answers_before['/v1/hosts'][1]['hosts']})

        self._step('1. the schema, and the upgrade check')
        code, out, err = self._run(new, 'zun-hostcap-db-manage', 'upgrade')
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
        self._move_fake_host('A')
        self._wait_beats('B', COMPUTE)

        self._step('2. a compute of this release first (C), conductors '
                   'of the previous one')
        self._fake_compute('C', new)
        self._log_has('compute-C-%s' % new.name,
                      '[upgrade_levels] conductor = auto: a %s of %s runs on '
                      'topic %s' % (CONDUCTOR, old.name, self.topic))
        self._wait(lambda: self._node('C'), 'the node of C')
        self._wait_beats('C', COMPUTE)
        self._expect_up(('C', COMPUTE))
        self._move_fake_host('C')

        self._step('3. the conductors: ctl-1 upgraded; the new one alone')
        self.processes['ctl-1-%s' % old.name].stop()
        self._conductor('ctl-1', new)
        self._wait(lambda: self._service('ctl-1', CONDUCTOR)['version'] ==
                   service_obj.SERVICE_VERSION,
                   'the new conductor to record its version')
        self.processes['ctl-2-%s' % old.name].stop()
        # Only the conductor of this release: the old computes save and
        # beat through it, and C, pinned, too.
        self._move_fake_host('A')
        self._move_fake_host('C')
        for name in ('A', 'B', 'C'):
            self._wait_beats(name, COMPUTE)
        self.processes['ctl-2-%s' % old.name].start()
        self._wait_beats('ctl-2', CONDUCTOR)

        self._step('4. the API')
        self.api_url = new_api = self._api(new)
        old_answers = self._documents(old_api)
        new_answers = self._documents(new_api)
        self.assertEqual(_steady(old_answers, old_api),
                         _steady(new_answers, new_api))
        self.poller.url = new_api
        self.processes['api-%s' % old.name].stop()
        self.assertEqual({}, self._providers())

        self._step('5. compute A pinned to %s; the old conductor alone'
                   % old.name)
        self.processes['compute-A-%s' % old.name].stop()
        self._fake_compute('A', new, label='compute-A-pinned',
                           placement=self._placement(),
                           upgrade_levels={'conductor': old.name})
        self._wait_beats('A', COMPUTE)
        self._move_fake_host('A')
        self.processes['ctl-1-%s' % new.name].stop()
        self._move_fake_host('A')
        for name in ('A', 'B', 'C'):
            self._wait_beats(name, COMPUTE)
        self.processes['ctl-1-%s' % new.name].start()
        self._wait_beats('ctl-1', CONDUCTOR)
        node_a = self._node('A')
        self.assertEqual(node_a['uuid'],
                         self._providers()[self.hosts['A']]['uuid'])

        self._step('6. the last old conductor upgraded; the pin removed')
        self.processes['ctl-2-%s' % old.name].stop()
        self._conductor('ctl-2', new)
        self._wait(lambda: self._service('ctl-2', CONDUCTOR)['version'] ==
                   service_obj.SERVICE_VERSION,
                   'the new conductor to record its version')
        self.processes['compute-A-pinned'].stop()
        self._fake_compute('A', new, placement=self._placement())
        unpinned = ('[upgrade_levels] conductor = auto: every %s on topic %s '
                    'runs this release; this service sends conductor RPC '
                    'API 1.1.' % (CONDUCTOR, self.topic))
        self._log_has('compute-A-%s' % new.name, unpinned)
        self._log_has('compute-C-%s' % new.name, unpinned)
        self._move_fake_host('A')
        for name in ('A', 'C'):
            self._wait_beats(name, COMPUTE)
        self.assertEqual(service_obj.SERVICE_VERSION,
                         self._service('A', COMPUTE)['version'])

        self._step('7. the online data migrations; status all Success')
        code, out, err = self._run(new, 'zun-hostcap-db-manage',
                                   'online_data_migrations')
        self.assertEqual(0, code, out + err)
        self.assertIn('create_compute_node_providers: 2 rows found, 2 '
                      'migrated', out)
        code, checks = self._status()
        self.assertEqual(0, code, checks)
        providers = self._providers()
        self.assertEqual({self.hosts[name]: self._node(name)['uuid']
                          for name in ('A', 'B', 'C')},
                         {name: rp['uuid'] for name, rp in providers.items()})
        node_b = self._node('B')
        # Host B's compute is still of the previous release: its
        # provider has the inventory of its columns.
        inventories = self._placement_get(
            '/resource_providers/%s/inventories' % node_b['uuid'])
        self.assertEqual(1, inventories['resource_provider_generation'])
        self.assertEqual(
            {'VCPU': (node_b['cpus'], 4.0), 'MEMORY_MB': (
                node_b['mem_total'], 1.0), 'DISK_GB': (node_b['disk_total'],
                                                       1.0)},
            {rc: (inv['total'], inv['allocation_ratio'])
             for rc, inv in inventories['inventories'].items()})
        self._old_compute_receives_a_node_of_this_release('B')

        self._step('8. the last compute: B adopts its provider')
        self.processes['compute-B-%s' % old.name].stop()
        self._compute('B', new, placement=self._placement(),
                      compute={'cpu_allocation_ratio': 2.0})
        self._wait_beats('B', COMPUTE)
        provider = '/resource_providers/%s' % node_b['uuid']
        # Its CPU's traits, if its architecture has os-traits names.
        has_traits = node_b['architecture'] in ('x86_64', 'aarch64')
        self._wait(lambda: self._placement_get(provider + '/inventories')[
            'inventories']['VCPU']['allocation_ratio'] == 2.0 and bool(
                self._placement_get(provider + '/traits')['traits']) ==
            has_traits, 'compute B to put its figures on its provider')
        # Its PCI devices, a class of each vendor and product.
        self.assertEqual(
            {'CUSTOM_PCI_%s_%s' % (pool['vendor_id'].upper(),
                                   pool['product_id'].upper())
             for pool in json.loads(node_b['pci_device_pools'] or '[]')},
            {rc for rc in self._placement_get(provider + '/inventories')[
                'inventories'] if rc.startswith('CUSTOM_PCI_')})
        self.assertEqual(
            {self.hosts[name]: self._node(name)['uuid']
             for name in ('A', 'B', 'C')},
            {name: rp['uuid'] for name, rp in self._providers().items()})
        self.assertNotIn('Created resource provider',
                         self.processes['compute-B-%s' % new.name].log())

        self._step('the end: as before the upgrade')
        code, checks = self._status()
        self.assertEqual(0, code, checks)
        self._assert_as_before(rows_before, answers_before, old_api)
        self.poller.stop()
        self.assertEqual([], self.poller.problems)
        self.assertGreater(self.poller.polls, 30)
        self._assert_no_errors_logged()

    def _old_compute_receives_a_node_of_this_release(self, name):
        """A compute of the previous release gets a 1.1 node and saves it."""
        conductor_conf = os.path.join(self.tmp, 'ctl-1-%s.conf'
                                      % self.new.name)
        code, out, err = self._python(self.new, NEW_NODE_PRIMITIVE,
                                      conductor_conf, self.hosts[name])
        self.assertEqual(0, code, err + out[-5000:])
        primitive = _result(out)
        self.assertEqual('1.1', primitive['zun_hostcap_object.version'])
        self.assertIn('inventory', primitive['zun_hostcap_object.data'])
        compute_conf = os.path.join(self.tmp, 'compute-%s-%s.conf'
                                    % (name, self.old.name))
        code, out, err = self._python(self.old, OLD_COMPUTE_RECEIVES,
                                      compute_conf,
                                      stdin=json.dumps(primitive))
        self.assertEqual(0, code, err + out[-5000:])
        received = _result(out)
        self.assertEqual('1.0', received['version'])
        self.assertNotIn('inventory', received['fields'])
        self.assertEqual({'saved-by': 'old-compute'}, received['saved_labels'])
        self.assertEqual('{}', self._node(name)['labels'])
        self.assertTrue(any(
            'Backporting ComputeNode to 1.0' in self.processes[label].log()
            for label in ('ctl-1-%s' % self.new.name,
                          'ctl-2-%s' % self.new.name)))

    def _assert_as_before(self, rows_before, answers_before, old_api):
        rows = {'compute_nodes': self._rows('compute_nodes', ('hostname',)),
                'services': self._rows('services', ('host', 'binary'))}
        for table, before in rows_before.items():
            self.assertEqual(
                _steady(before),
                _steady({key: row for key, row in rows[table].items()
                         if key in before}), table)
        answers = self._documents(self.api_url)
        # Host C came with this release: the rest is as it was.
        host_c = self.hosts['C']
        answers = {path: (status, doc) for path, (status, doc) in
                   answers.items() if host_c not in path and
                   self._node('C')['uuid'] not in path}
        for path in ('/v1/hosts', '/v1/services'):
            status, doc = answers[path]
            key = 'hosts' if path == '/v1/hosts' else 'services'
            doc[key] = [item for item in doc[key]
                        if host_c not in (item.get('hostname'),
                                          item.get('host'))]
        # Services: the same rows, but beating; hosts?limit=1 may page on
        # another first host.
        del answers['/v1/hosts?limit=1']
        answers_before = dict(answers_before)
        del answers_before['/v1/hosts?limit=1']
        self.assertEqual(_steady(answers_before, old_api),
                         _steady(answers, self.api_url))

    def _assert_no_errors_logged(self):
        # A record of level ERROR or CRITICAL, or an uncaught traceback;
        # not the traceback of a DEBUG record, which oslo.log prefixes
        # with "ERROR" too, without the request's brackets.
        record = re.compile(r'^\S+ \S+ \d+ (ERROR|CRITICAL) \S+ \[|'
                            r'^Traceback')
        found = {}
        for label, process in self.processes.items():
            lines = [line for line in process.log().splitlines()
                     if record.search(line)]
            if lines:
                found[label] = lines[:5]
        self.assertEqual({}, found)
