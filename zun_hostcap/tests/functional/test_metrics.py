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

"""/metrics scraped by a real Prometheus; the shipped rules by promtool.

Debian's prometheus package (prometheus and promtool) is installed by
tools/test-setup.sh; without it these tests skip, and fail when CI is
set.
"""

import glob
import json
import os
import shutil
import subprocess
import urllib.parse
import urllib.request

import fixtures
from oslo_utils import uuidutils
from oslotest import base
from prometheus_client import mmap_dict
from prometheus_client import parser

from zun_hostcap.tests.functional import base as functional_base

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..',
                                    '..'))
RULES = os.path.join(REPO, 'etc', 'prometheus', 'zun-hostcap-alerts.yaml')
RULE_TESTS = os.path.join(REPO, 'etc', 'prometheus',
                          'zun-hostcap-alerts-tests.yaml')
DASHBOARD = os.path.join(REPO, 'etc', 'grafana', 'zun-hostcap-capacity.json')

ADMIN = {'X-Auth-Token': 'admin', 'Content-Type': 'application/json',
         'OpenStack-API-Version': 'placement latest'}

# What Grafana puts in place of the dashboard's variables: every class,
# and a rate window that holds several scrapes of one second.
VARIABLES = {'$resourcetype': '.*', '$__rate_interval': '30s'}


def _require(test, command):
    path = shutil.which(command)
    functional_base.require(
        test, path, '%s is not installed (tools/test-setup.sh installs '
                    'Debian\'s prometheus package)' % command)
    return path


def _request(method, url, body=None, headers=None):
    request = urllib.request.Request(
        url, method=method, headers=headers or {},
        data=json.dumps(body).encode() if body is not None else None)
    try:
        with urllib.request.urlopen(request, timeout=10) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as err:
        with err:
            return err.code, err.read()


class TestPromtool(base.BaseTestCase):

    def test_rules_are_valid_and_their_unit_tests_pass(self):
        promtool = _require(self, 'promtool')
        for args in (['check', 'rules', RULES],
                     ['test', 'rules', RULE_TESTS]):
            result = subprocess.run([promtool] + args, capture_output=True,
                                    text=True, timeout=120)
            self.assertEqual(0, result.returncode,
                             '%s\n%s' % (result.stdout, result.stderr))


class TestPrometheus(base.BaseTestCase):
    """zun-hostcap-all scraped every second by a Prometheus of the test's."""

    def setUp(self):
        super().setUp()
        prometheus = _require(self, 'prometheus')
        self.tmp = self.useFixture(fixtures.TempDir()).path
        port = functional_base.free_port()
        self.url = 'http://127.0.0.1:%d' % port
        config = functional_base.write_config(
            os.path.join(self.tmp, 'zun-hostcap.conf'),
            {'DEFAULT': {'state_path': self.tmp},
             'api': {'port': port},
             'metrics': {'enabled': 'true'}})
        self.service = self.useFixture(functional_base.ServiceProcess(
            'zun-hostcap-all', config, self.tmp))
        functional_base.wait_until_serving(self, self.service,
                                           self.url + '/')

        prometheus_port = functional_base.free_port()
        self.prometheus_url = 'http://127.0.0.1:%d' % prometheus_port
        prometheus_config = os.path.join(self.tmp, 'prometheus.yml')
        with open(prometheus_config, 'w') as f:
            json.dump({  # JSON is YAML
                'global': {'scrape_interval': '1s',
                           'evaluation_interval': '1s'},
                'rule_files': [RULES],
                'scrape_configs': [{
                    'job_name': 'zun-hostcap',
                    'static_configs': [
                        {'targets': ['127.0.0.1:%d' % port]}]}]}, f)
        self.prometheus = self.useFixture(functional_base.Process(
            'prometheus',
            [prometheus, '--config.file=%s' % prometheus_config,
             '--storage.tsdb.path=%s' % os.path.join(self.tmp, 'tsdb'),
             '--web.listen-address=127.0.0.1:%d' % prometheus_port],
            os.path.join(self.tmp, 'prometheus.log')))
        functional_base.wait_until_serving(
            self, self.prometheus, self.prometheus_url + '/-/ready')

    def query(self, expr):
        """The result of an instant query (a list of series)."""
        status, body = _request('GET', '%s/api/v1/query?%s' % (
            self.prometheus_url, urllib.parse.urlencode({'query': expr})))
        self.assertEqual(200, status, body)
        return json.loads(body)['data']['result']

    def wait_for_series(self, expr, check=bool, timeout=30):
        """The series of ``expr`` once ``check(series)`` holds."""
        def checked():
            series = self.query(expr)
            return check(series) and series
        return functional_base.wait_for(
            checked, timeout, message='Prometheus to answer %s' % expr,
            processes=(self.service, self.prometheus))

    def test_an_allocation_reaches_prometheus_and_every_panel_answers(self):
        # This host's provider, with its VCPU inventory, once scraped.
        providers = self.wait_for_series(
            'openstack_placement_resource_total{resourcetype="VCPU"}')
        hostname = providers[0]['metric']['hostname']
        self.assertEqual('0', self.query(
            'openstack_placement_resource_usage{resourcetype="VCPU",'
            'hostname="%s"}' % hostname)[0]['value'][1])
        status, body = _request(
            'GET', '%s/placement/resource_providers?name=%s' % (
                self.url, urllib.parse.quote(hostname)), headers=ADMIN)
        self.assertEqual(200, status, body)
        provider = json.loads(body)['resource_providers'][0]['uuid']
        status, body = _request(
            'PUT', '%s/placement/allocations/%s' % (
                self.url, uuidutils.generate_uuid()),
            {'allocations': {provider: {'resources': {'VCPU': 1}}},
             'project_id': 'p', 'user_id': 'u', 'consumer_generation': None,
             'consumer_type': 'INSTANCE'}, ADMIN)
        self.assertEqual(204, status, body)

        self.wait_for_series(
            'openstack_placement_resource_usage{resourcetype="VCPU"}',
            lambda series: [item['value'][1] for item in series] == ['1'])

        # Every panel of the dashboard shows something. Rates need two
        # scrapes of requests: a few more come meanwhile.
        with open(DASHBOARD) as f:
            dashboard = json.load(f)
        for panel in dashboard['panels']:
            for target in panel['targets']:
                expr = target['expr']
                for name, substitute in VARIABLES.items():
                    expr = expr.replace(name, substitute)

                def answered(series, expr=expr):
                    _request('GET', self.url + '/v1')
                    return series
                self.wait_for_series(expr, answered)

        # The shipped rules are loaded and evaluate without error.
        status, body = _request('GET', self.prometheus_url +
                                '/api/v1/rules')
        self.assertEqual(200, status, body)
        rules = [rule for group in json.loads(body)['data']['groups']
                 for rule in group['rules']]
        self.assertEqual(5, len(rules))
        for rule in rules:
            self.assertEqual('ok', rule['health'], rule)


class TestWorkers(base.BaseTestCase):
    """zun-hostcap-api with two workers: one count, whoever answers."""

    def test_counters_are_the_sums_of_the_workers(self):
        tmp = self.useFixture(fixtures.TempDir()).path
        port = functional_base.free_port()
        metrics_port = functional_base.free_port()
        config = functional_base.write_config(
            os.path.join(tmp, 'zun-hostcap.conf'),
            {'DEFAULT': {'state_path': tmp},
             'api': {'port': port, 'workers': 2,
                     'auth_strategy': 'noauth2'},
             'metrics': {'enabled': 'true', 'port': metrics_port}})
        result = subprocess.run(
            functional_base.console_script('zun-hostcap-db-manage') +
            ['--config-file', config, 'upgrade'], capture_output=True,
            text=True)
        self.assertEqual(0, result.returncode, result.stderr)
        api = self.useFixture(functional_base.ServiceProcess(
            'zun-hostcap-api', config, tmp))
        url = 'http://127.0.0.1:%d' % port
        functional_base.wait_until_serving(self, api, url + '/')
        metrics_url = 'http://127.0.0.1:%d/metrics' % metrics_port
        functional_base.wait_until_serving(self, api, metrics_url)
        # Only on the listener of its own: the API's address says so.
        status, body = _request('GET', url + '/metrics')
        self.assertEqual(404, status)
        self.assertIn(b'[metrics] port', body)

        def requests_of_root():
            status, body = _request('GET', metrics_url)
            self.assertEqual(200, status)
            for family in parser.text_string_to_metric_families(
                    body.decode()):
                for sample in family.samples:
                    if (sample.name == 'zun_hostcap_api_requests_total' and
                            sample.labels == {'route': '/', 'method': 'GET',
                                              'status': '200'}):
                        return sample.value
            return 0

        def workers_counting():
            """Pids whose file counts requests to /."""
            pids = set()
            for path in glob.glob(os.path.join(tmp, 'metrics',
                                               'counter_*.db')):
                for key, value, _ts, _pos in (
                        mmap_dict.MmapedDict.read_all_values_from_file(
                            path)):
                    if '"route": "/"' in key and value:
                        pids.add(path)
            return pids

        before = requests_of_root()
        sent = 0
        # Each request on a connection of its own, which either worker
        # may accept.
        while sent < 400 and (sent < 20 or len(workers_counting()) < 2):
            for _ in range(20):
                self.assertEqual(200, _request('GET', url + '/')[0])
            sent += 20
        self.assertEqual(2, len(workers_counting()))
        for _ in range(3):
            # Whichever worker answers the scrape.
            self.assertEqual(before + sent, requests_of_root())
