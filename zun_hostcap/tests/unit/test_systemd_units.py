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

"""The systemd units of etc/systemd/: each parses and runs a real command."""

import configparser
import os
import shlex
import shutil
import subprocess
import sys

import fixtures

from zun_hostcap.conf import opts
from zun_hostcap.tests import base

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
UNIT_DIR = os.path.join(REPO, 'etc', 'systemd')
GRACEFUL_SHUTDOWN_TIMEOUT = [
    opt.default for opt in opts._service_opts()
    if opt.dest == 'graceful_shutdown_timeout'][0]
SERVICES = ('zun-hostcap-all', 'zun-hostcap-api', 'zun-hostcap-compute',
            'zun-hostcap-conductor')


def _console_scripts():
    setup_cfg = configparser.ConfigParser()
    setup_cfg.read(os.path.join(REPO, 'setup.cfg'))
    return {line.split('=')[0].strip() for line in
            setup_cfg['entry_points']['console_scripts'].splitlines()
            if line.strip()}


def _read(name):
    # systemd's syntax is ini-like; its keys are case-sensitive.
    unit = configparser.ConfigParser(interpolation=None, strict=True)
    unit.optionxform = str
    with open(os.path.join(UNIT_DIR, name + '.service')) as f:
        unit.read_file(f)
    return unit


class TestUnits(base.TestCase):

    def test_there_is_one_unit_a_service_and_nothing_else(self):
        self.assertEqual(sorted(name + '.service' for name in SERVICES),
                         sorted(os.listdir(UNIT_DIR)))

    def test_each_unit_runs_its_console_script_with_a_config_file(self):
        scripts = _console_scripts()
        for name in SERVICES:
            service = _read(name)['Service']
            command = shlex.split(service['ExecStart'])
            self.assertEqual(name, os.path.basename(command[0]))
            self.assertIn(name, scripts)
            self.assertEqual(['--config-file',
                              '/etc/zun-hostcap/zun-hostcap.conf'],
                             command[1:], name)

    def test_each_unit_stops_and_restarts_as_the_service_expects(self):
        for name in SERVICES:
            unit = _read(name)
            self.assertEqual({'Unit', 'Service', 'Install'},
                             set(unit.sections()), name)
            service = unit['Service']
            # No sd_notify in the services: "simple".
            self.assertEqual('simple', service['Type'], name)
            self.assertEqual('SIGTERM', service['KillSignal'], name)
            self.assertEqual('on-failure', service['Restart'], name)
            self.assertEqual('/bin/kill -HUP $MAINPID',
                             service['ExecReload'], name)
            # Longer than the service's own graceful_shutdown_timeout.
            self.assertGreater(int(service['TimeoutStopSec']),
                               GRACEFUL_SHUTDOWN_TIMEOUT, name)
            self.assertEqual('multi-user.target',
                             unit['Install']['WantedBy'], name)

    def test_the_package_installs_them(self):
        setup_cfg = configparser.ConfigParser()
        setup_cfg.read(os.path.join(REPO, 'setup.cfg'))
        files = setup_cfg['files']['data_files']
        for name in SERVICES:
            self.assertIn('etc/systemd/%s.service' % name, files)

    def test_the_install_guide_uses_them(self):
        with open(os.path.join(REPO, 'doc', 'source', 'install',
                               'index.rst')) as f:
            guide = f.read()
        for name in SERVICES:
            self.assertIn('%s.service' % name, guide)

    def test_systemd_finds_nothing_wrong(self):
        analyze = shutil.which('systemd-analyze')
        if analyze is None:
            self.skipTest('no systemd-analyze on this machine')
        tmp = self.useFixture(fixtures.TempDir()).path
        bin_dir = os.path.dirname(sys.executable)
        for name in SERVICES:
            with open(os.path.join(UNIT_DIR, name + '.service')) as f:
                text = f.read()
            # The scripts of this environment, where the guide has
            # /opt/zun-hostcap/bin.
            path = os.path.join(tmp, name + '.service')
            with open(path, 'w') as f:
                f.write(text.replace('/opt/zun-hostcap/bin/',
                                     bin_dir + '/'))
            result = subprocess.run([analyze, 'verify', '--man=no', path],
                                    capture_output=True, text=True,
                                    timeout=60)
            self.assertEqual((0, ''), (result.returncode,
                                       result.stderr.strip()), name)
