"""Every command's --version is the version pip installed."""

import importlib.metadata
import os
import subprocess
import sys

from zun_hostcap.tests import base
from zun_hostcap import version

COMMANDS = ('zun-hostcap-all', 'zun-hostcap-api', 'zun-hostcap-conductor',
            'zun-hostcap-compute', 'zun-hostcap-db-manage',
            'zun-hostcap-status')


class TestVersion(base.TestCase):

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
        self.assertRegex(installed, r'^\d+\.\d+\.\d+(\.dev\d+)?$')
        bin_dir = os.path.dirname(sys.executable)
        for command in COMMANDS:
            result = subprocess.run(
                [os.path.join(bin_dir, command), '--version'],
                capture_output=True, text=True, timeout=60,
                stdin=subprocess.DEVNULL)
            self.assertEqual(0, result.returncode, result.stderr)
            self.assertEqual(installed + '\n', result.stdout, command)
