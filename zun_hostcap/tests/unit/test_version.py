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

"""Every command's --version is the version pip installed."""

import configparser
import importlib.metadata
import os
import subprocess
import sys

from oslo_reports import guru_meditation_report as gmr

from zun_hostcap.tests import base
from zun_hostcap import version

COMMANDS = ('zun-hostcap-all', 'zun-hostcap-api', 'zun-hostcap-conductor',
            'zun-hostcap-compute', 'zun-hostcap-db-manage',
            'zun-hostcap-status')


REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))


def _release():
    """``version`` of setup.cfg: the release this code leads to."""
    setup_cfg = configparser.ConfigParser()
    setup_cfg.read(os.path.join(REPO, 'setup.cfg'))
    return setup_cfg['metadata']['version']


class TestVersion(base.TestCase):

    def test_the_version_is_the_release_s(self):
        # 2027.1.0, or 2027.1.0.devN between releases (pbr).
        installed = importlib.metadata.version('zun-hostcap')
        self.assertRegex(installed, r'^%s(\.dev\d+)?$'
                         % _release().replace('.', r'\.'))

    def test_the_guru_meditation_report_names_the_package(self):
        report = gmr.TextGuruMeditation(version).run()
        self.assertIn('product = zun-hostcap\nvendor = OpenStack\n'
                      'version = %s\n' % version.version_string(), report)

    def test_the_installed_version_development_suffix_included(self):
        installed = importlib.metadata.version('zun-hostcap')
        self.assertEqual(installed, version.version_string())

    def test_each_command_prints_it(self):
        # What a command sees installed: from a process without the
        # source tree in its path, where pbr's egg-info of the checkout
        # may say another version (it moves with each commit).
        installed = subprocess.run(
            [sys.executable, '-I', '-c', 'import importlib.metadata; '
             'print(importlib.metadata.version("zun-hostcap"))'],
            capture_output=True, text=True, timeout=60, check=True,
            cwd='/').stdout.strip()
        self.assertTrue(installed.startswith(_release()), installed)
        bin_dir = os.path.dirname(sys.executable)
        for command in COMMANDS:
            result = subprocess.run(
                [os.path.join(bin_dir, command), '--version'],
                capture_output=True, text=True, timeout=60,
                stdin=subprocess.DEVNULL)
            self.assertEqual(0, result.returncode, result.stderr)
            self.assertEqual(installed + '\n', result.stdout, command)

    def test_each_command_s_help_says_what_it_does_and_its_defaults(self):
        bin_dir = os.path.dirname(sys.executable)
        for command, words in (
                ('zun-hostcap-all', ['in one process', '127.0.0.1:9518',
                                     'zun-hostcap.sqlite']),
                ('zun-hostcap-api', ['/placement', '127.0.0.1:9518',
                                     'zun-hostcap.sqlite']),
                ('zun-hostcap-conductor', ['Writes', 'zun-hostcap.sqlite']),
                ('zun-hostcap-compute', ['Discovers', 'never opens']),
                ('zun-hostcap-db-manage', ['schema', 'zun-hostcap.sqlite']),
                ('zun-hostcap-status', ['upgrade check',
                                        'zun-hostcap.sqlite'])):
            result = subprocess.run(
                [os.path.join(bin_dir, command), '--help'],
                capture_output=True, text=True, timeout=60,
                stdin=subprocess.DEVNULL)
            self.assertEqual(0, result.returncode, result.stderr)
            # argparse wraps lines, at spaces and hyphens.
            text = ' '.join(result.stdout.replace('-\n', '-').split())
            for word in words + ['zun-hostcap.conf.sample']:
                self.assertIn(word, text, command)
