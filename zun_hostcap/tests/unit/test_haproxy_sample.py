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

"""The sample HAProxy configuration, and the lab's made from it."""

from zun_hostcap.tests import base
from zun_hostcap.tests.functional import cloud


class TestHAProxySample(base.TestCase):

    def setUp(self):
        super().setUp()
        with open(cloud.HAPROXY_SAMPLE) as f:
            self.sample = f.read()

    def _sections(self, text):
        sections, current = {}, None
        for line in text.splitlines():
            if line and not line[0].isspace() and not line.startswith('#'):
                current = line.strip()
                sections[current] = []
            elif current and line.strip() and not line.strip().startswith(
                    '#'):
                sections[current].append(line.split())
        return sections

    def test_api_checked_on_healthcheck_and_one_database_writer(self):
        sections = self._sections(self.sample)
        api = sections['backend zun_hostcap_api_replicas']
        self.assertIn(['option', 'httpchk', 'GET', '/healthcheck'], api)
        servers = [words for words in
                   sections['backend zun_hostcap_galera']
                   if words[0] == 'server']
        # One writer; the others only when it is down.
        self.assertEqual(['backup', 'backup'],
                         [words[-1] for words in servers[1:]])
        self.assertNotIn('backup', servers[0])

    def test_the_labs_addresses_replace_the_samples(self):
        text = cloud.haproxy_config(
            self.sample,
            {'zun_hostcap_api': '127.0.0.1:1001',
             'zun_hostcap_db': '127.0.0.1:1002',
             'stats socket': '/tmp/lab/haproxy.sock'},
            {'api1': '127.0.0.1:2001', 'api2': '127.0.0.1:2002',
             'galera1': '127.0.0.1:3001', 'galera2': '127.0.0.1:3002',
             'galera3': '127.0.0.1:3003'})
        self.assertEqual([], [line for line in text.splitlines()
                              if '192.0.2.' in line and
                              not line.startswith('#')])
        sections = self._sections(text)
        self.assertIn(['bind', '127.0.0.1:1001'],
                      sections['frontend zun_hostcap_api'])
        self.assertIn(['bind', '127.0.0.1:1002'],
                      sections['frontend zun_hostcap_db'])
        self.assertIn(['server', 'galera2', '127.0.0.1:3002', 'check',
                       'backup'], sections['backend zun_hostcap_galera'])
        self.assertIn(['stats', 'socket', '/tmp/lab/haproxy.sock', 'mode',
                       '600', 'level', 'admin'], sections['global'])

    def test_a_server_the_lab_does_not_run_is_left_out(self):
        text = cloud.haproxy_config(self.sample, {}, {'api1': 'h:1'})
        self.assertIn('server api1 h:1 check', text)
        self.assertNotIn('server api2', text)
