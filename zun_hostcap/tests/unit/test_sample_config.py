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

"""The shipped sample configuration is what the generator writes today."""

import os

import fixtures
from oslo_config import generator

from zun_hostcap.tests import base

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
GENERATOR_CONF = os.path.join(REPO, 'etc', 'zun-hostcap',
                              'zun-hostcap-config-generator.conf')
SAMPLE = os.path.join(REPO, 'etc', 'zun-hostcap', 'zun-hostcap.conf.sample')


class TestSampleConfig(base.TestCase):

    def test_the_sample_is_up_to_date(self):
        written = os.path.join(self.useFixture(fixtures.TempDir()).path,
                               'sample.conf')
        generator.main(['--config-file', GENERATOR_CONF,
                        '--output-file', written])
        with open(written) as f:
            expected = f.read()
        with open(SAMPLE) as f:
            shipped = f.read()
        self.assertEqual(
            expected, shipped,
            'etc/zun-hostcap/zun-hostcap.conf.sample is not what the '
            'options say now; rewrite it with tox -e genconfig and commit '
            'it.')
