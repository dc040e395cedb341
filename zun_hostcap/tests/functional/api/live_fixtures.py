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

"""Gabbi fixtures for a live zun-hostcap-api process.

The YAML files under ``tests/gabbits`` name ``APIFixture``. Here it loads
the same data as the in-process fixture into a SQLite file, then starts
``zun-hostcap-api`` with two workers on that database and the same
configuration, and the tests talk to it over TCP.
"""

import os
import shutil
import tempfile
import urllib.error
import urllib.request

from zun_hostcap.tests.functional import base as functional_base
from zun_hostcap.tests import gabbi_fixtures

HOST = '127.0.0.1'
API_WORKERS = 2


# Chosen when the tests are loaded: gabbi needs it to build them. Each
# stestr worker process loads the tests, and picks its own port.
PORT = functional_base.free_port(HOST)


class _APIProcess(functional_base.ServiceProcess):

    def serving(self, url):
        """Whether ``url`` answers 200; raises if the process exited."""
        if self.process.poll() is not None:
            raise RuntimeError('%s exited with %s:\n%s' % (
                self.name, self.process.returncode, self.log_tail()))
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:
                return resp.status == 200
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            # TimeoutError: accepted, but no answer within 2 s yet (a
            # loaded machine); asked again until wait_for gives up.
            return False


class APIFixture(gabbi_fixtures.APIFixture):
    """The in-process fixture's data, served by a zun-hostcap-api process."""

    def start_fixture(self):
        super().start_fixture()
        self.tmp = tempfile.mkdtemp(prefix='zun-hostcap-api-')
        sections = self.config()
        sections['DEFAULT'] = {'state_path': self.tmp, 'debug': 'true'}
        sections['api'].update(host=HOST, port=PORT, workers=API_WORKERS)
        sections['database'] = {'connection': self.database.connection}
        config = functional_base.write_config(
            os.path.join(self.tmp, 'zun-hostcap-api.conf'), sections)
        self.api = _APIProcess('zun-hostcap-api', config, self.tmp)
        self.api.setUp()
        url = 'http://%s:%s/' % (HOST, PORT)
        try:
            functional_base.wait_for(
                lambda: self.api.serving(url), timeout=30,
                message='zun-hostcap-api to answer %s' % url,
                processes=(self.api,))
        except Exception:
            self.api.cleanUp()
            raise

    def stop_fixture(self):
        self.api.cleanUp()
        shutil.rmtree(self.tmp, ignore_errors=True)
        super().stop_fixture()


class PlacementFixture(APIFixture):
    """The Placement YAML files' fixture, against the live process."""

    config_overrides = gabbi_fixtures.PlacementFixture.config_overrides

    def start_fixture(self):
        gabbi_fixtures.placement_environ()
        super().start_fixture()
