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

"""Horizon with zun-ui, in headless Chromium, shows this service's hosts.

Everything is real: Keystone 30 (``tools/keystone_peer.py``) with the
``container`` service in its catalog, zun-hostcap-all behind
keystonemiddleware with this machine as its host, Horizon 27 with zun-ui
18 (``tools/dashboard_peer.py``) served by waitress, and Debian's
Chromium driven by selenium. One Keystone, service and dashboard serve
the whole class; each test has a browser of its own, with a fresh
profile.

The screenshots are kept in ``.bench/artifacts/dashboard/`` of the
repository, or in $ZUN_HOSTCAP_TEST_ARTIFACTS; each test names its own
in its details, and the directory is written on standard error.
"""

import os
import shutil
import sys
import time
import uuid

import fixtures
from keystoneauth1 import exceptions as ks_exc
from oslotest import base as oslo_base
from testtools import content as testtools_content

from zun_hostcap.tests.functional import base
from zun_hostcap.tests.functional import local_servers

try:
    from selenium.common import exceptions as selenium_exceptions
    from selenium import webdriver
    from selenium.webdriver.chrome import service as chrome_service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import ui as selenium_ui
except ImportError:   # skipped (failed in CI) below
    webdriver = None

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
TOOLS = base.TOOLS
ARTIFACTS = os.environ.get(
    'ZUN_HOSTCAP_TEST_ARTIFACTS',
    os.path.join(REPO, '.bench', 'artifacts', 'dashboard'))

CHROMIUM = '/usr/bin/chromium'
CHROMEDRIVER = '/usr/bin/chromedriver'
# Headless, and nothing that reaches beyond 127.0.0.1 on its own.
CHROMIUM_FLAGS = ('--headless', '--no-sandbox', '--disable-gpu',
                  '--disable-quic', '--no-first-run',
                  '--disable-background-networking',
                  '--disable-component-update', '--disable-sync',
                  '--disable-dev-shm-usage', '--window-size=1400,1000')
# Seconds a page has to show what the test waits for: zun-ui's panels
# load their data after the page, through Horizon, zunclient and us.
PAGE_TIMEOUT = 60
# The version zun-ui's python-zunclient (5.5) settles on with us.
API_VERSION = 'container 1.40'


def _js_number(value):
    """``value`` as JavaScript's String(Number) shows it."""
    value = float(value)
    return str(int(value)) if value.is_integer() else repr(value)


def mb_text(value):
    """Horizon's ``mb`` filter: MiB, shown in GB from 1024 up."""
    if value >= 1024:
        return '%s GB' % _js_number('%.2f' % (value / 1024))
    return '%s MB' % value


def gb_text(value):
    """Horizon's ``gb`` filter: GiB, shown in TB from 1024 up."""
    if value >= 1024:
        return '%s TB' % _js_number('%.2f' % (value / 1024))
    return '%s GB' % value


def _missing():
    """Why the class cannot run here, or None."""
    if webdriver is None:
        return 'selenium is not installed (test-requirements.txt)'
    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.access(path, os.X_OK):
            return ('%s is missing: Debian\'s chromium and chromium-driver '
                    '(tools/test-setup.sh installs them)' % path)
    for tool in ('keystone_peer', 'dashboard_peer'):
        if base.tool_module(tool).installed_python() is None:
            return ('%s is not installed (run tools/%s.py install)' %
                    (tool.split('_')[0], tool))
    return None


class Cloud(fixtures.Fixture):
    """Keystone, zun-hostcap-all behind it, and the dashboard on both."""

    def _setUp(self):
        keystone_peer = base.tool_module('keystone_peer')
        self.seconds = {}
        started = time.monotonic()
        self.tmp = self.useFixture(fixtures.TempDir()).path
        api_port = base.free_port()
        self.service_url = 'http://127.0.0.1:%d' % api_port
        self.keystone = self.useFixture(keystone_peer.KeystonePeer(
            os.path.join(self.tmp, 'keystone'), self.service_url))
        self.users = self.keystone.users
        service_user = self.users['service']
        config = base.write_config(
            os.path.join(self.tmp, 'zun-hostcap.conf'),
            {'DEFAULT': {'state_path': self.tmp},
             'api': {'port': api_port, 'auth_strategy': 'keystone'},
             'keystone_authtoken': {
                 'www_authenticate_uri': self.keystone.auth_url,
                 'auth_url': self.keystone.auth_url,
                 'auth_type': 'password',
                 'username': service_user['username'],
                 'password': service_user['password'],
                 'project_name': service_user['project_name'],
                 'user_domain_name': service_user['user_domain_name'],
                 'project_domain_name': service_user['project_domain_name'],
             },
             # One resource update, at start: the host stays as the
             # dashboard and the test read it.
             'compute': {'resource_update_interval': 3600}})
        self.seconds['keystone'] = time.monotonic() - started
        self.service = self.useFixture(base.ServiceProcess(
            'zun-hostcap-all', config, self.tmp))
        self.admin = self.keystone.session('admin')
        self.hosts = base.wait_for(
            self._hosts, timeout=60, message='this host in GET /v1/hosts',
            processes=(self.service,))
        self.seconds['zun-hostcap-all'] = (time.monotonic() - started -
                                           self.seconds['keystone'])

        started = time.monotonic()
        dashboard_port = base.free_port()
        self.dashboard_url = 'http://127.0.0.1:%d/' % dashboard_port
        # The script writes the settings, then execs waitress: this pid.
        self.dashboard = self.useFixture(base.Process(
            'dashboard',
            [sys.executable, os.path.join(TOOLS, 'dashboard_peer.py'),
             'serve', '--dir', os.path.join(self.tmp, 'dashboard'),
             '--auth-url', self.keystone.auth_url,
             '--domain', self.users['admin']['user_domain_name'],
             '--port', str(dashboard_port)],
            os.path.join(self.tmp, 'dashboard.log')))
        base.wait_for(lambda: self._dashboard_serving(dashboard_port),
                      timeout=120, message='the dashboard\'s login page',
                      processes=(self.dashboard,))
        self.seconds['dashboard'] = time.monotonic() - started

    def _dashboard_serving(self, port):
        if not self.dashboard.running():
            raise AssertionError('the dashboard exited with %s:\n%s' % (
                self.dashboard.process.returncode,
                self.dashboard.log_tail()))
        return base.tool_module('dashboard_peer').serving(port)

    def _hosts(self):
        if not self.service.running():
            raise AssertionError('zun-hostcap-all exited:\n%s' %
                                 self.service.log_tail())
        try:
            response = self.admin.get(
                self.service_url + '/v1/hosts/', raise_exc=False,
                headers={'OpenStack-API-Version': API_VERSION})
        except ks_exc.ConnectFailure:
            return None   # not listening yet
        if response.status_code != 200:
            return None
        return response.json()['hosts']


class Browser(fixtures.Fixture):
    """Headless Chromium with a profile of its own, driven by selenium.

    chromedriver and the browsers it starts carry the tests' process
    marker: whatever outlives ``quit()`` is killed by it.
    """

    def _setUp(self):
        work = self.useFixture(fixtures.TempDir()).path
        profile = os.path.join(work, 'profile')
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for flag in CHROMIUM_FLAGS + ('--user-data-dir=' + profile,):
            options.add_argument(flag)
        self.marker = 'chromium-%s' % uuid.uuid4().hex
        service = chrome_service.Service(
            CHROMEDRIVER, log_output=os.path.join(work, 'chromedriver.log'),
            env=dict(os.environ, **{local_servers.PROCESS_MARKER:
                                    self.marker}))
        self.driver = webdriver.Chrome(options=options, service=service)
        self.addCleanup(self._quit, service.process.pid)
        self.driver.set_page_load_timeout(PAGE_TIMEOUT)

    def _quit(self, pid):
        try:
            self.driver.quit()
        finally:
            local_servers.kill_family(pid, self.marker)

    def wait(self, condition, message, timeout=PAGE_TIMEOUT):
        try:
            return selenium_ui.WebDriverWait(
                self.driver, timeout).until(condition, message)
        except selenium_exceptions.TimeoutException as err:
            raise AssertionError('%s; the page %s says:\n%s' % (
                err.msg, self.driver.current_url, self.text()))

    def text(self):
        return self.driver.find_element(By.TAG_NAME, 'body').text


class TestDashboard(oslo_base.BaseTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.cloud = None
        cls.missing = _missing()
        if cls.missing is None:
            cloud = Cloud()
            cloud.setUp()   # cleans up what it started if it fails
            cls.cloud = cloud

    @classmethod
    def tearDownClass(cls):
        if cls.cloud is not None:
            cls.cloud.cleanUp()
        super().tearDownClass()

    def setUp(self):
        super().setUp()
        base.require(self, self.missing is None, self.missing)
        self.browser = self.useFixture(Browser())
        self.driver = self.browser.driver
        self.shots = self.useFixture(fixtures.TempDir()).path
        self.addCleanup(self._keep_screenshots)
        self.addCleanup(self._add_logs)

    def _keep_screenshots(self):
        names = sorted(os.listdir(self.shots))
        if not names:
            return
        os.makedirs(ARTIFACTS, exist_ok=True)
        for name in names:
            shutil.copy(os.path.join(self.shots, name), ARTIFACTS)
        self.addDetail('screenshots', testtools_content.text_content(
            '\n'.join(os.path.join(ARTIFACTS, name) for name in names)))
        sys.__stderr__.write('dashboard screenshots: %s\n' % ARTIFACTS)

    def _add_logs(self):
        self.addDetail('set-up-seconds', testtools_content.text_content(
            ', '.join('%s %.1f' % item
                      for item in self.cloud.seconds.items())))
        for process in (self.cloud.dashboard, self.cloud.service):
            self.addDetail('%s-log' % process.name,
                           testtools_content.text_content(
                               process.log_tail(80)))

    def screenshot(self, name):
        self.driver.save_screenshot(os.path.join(
            self.shots, 'dashboard-%s.png' % name))

    def open(self, path):
        self.driver.get(self.cloud.dashboard_url + path.lstrip('/'))

    def log_in(self, persona):
        user = self.cloud.users[persona]
        self.open('auth/login/')
        self.browser.wait(lambda d: d.find_elements(By.ID, 'id_username'),
                          'the login form')
        self.driver.find_element(By.ID, 'id_username').send_keys(
            user['username'])
        self.driver.find_element(By.ID, 'id_password').send_keys(
            user['password'])
        self.driver.find_element(By.ID, 'loginBtn').click()
        self.browser.wait(
            lambda d: '/auth/login' not in d.current_url and
            d.find_elements(By.CSS_SELECTOR, '#navbar-collapse'),
            'the dashboard after logging in as %s' % persona)
        self.assert_no_error_page()

    def assert_no_error_page(self):
        title = self.driver.title
        self.assertNotIn('error', title.lower(), self.browser.text())
        self.assertNotIn('Unauthorized', title)
        for alert in self.driver.find_elements(By.CSS_SELECTOR,
                                               '.alert-danger'):
            self.assertEqual('', alert.text.strip(),
                             'an error on %s' % self.driver.current_url)

    def _host_row(self, hostname):
        for row in self.driver.find_elements(By.CSS_SELECTOR,
                                             'table tbody tr'):
            if row.find_elements(By.LINK_TEXT, hostname):
                return row
        return None

    def test_admin_sees_this_host_and_its_details(self):
        host = self.cloud.hosts[0]
        self.assertEqual(1, len(self.cloud.hosts))
        self.log_in('admin')
        self.open('admin/container/hosts/')
        row = self.browser.wait(lambda d: self._host_row(host['hostname']),
                                'this host in the Container Hosts panel')
        # The panel's columns (its ID column is shown on wide screens
        # only), as /v1/hosts reports them.
        cells = [cell.text.strip() for cell in
                 row.find_elements(By.CSS_SELECTOR, 'td')]
        for shown in (host['hostname'], mb_text(host['mem_total']),
                      str(host['cpus']), gb_text(host['disk_total'])):
            self.assertIn(shown, cells)
        link = row.find_element(By.LINK_TEXT, host['hostname'])
        self.assertTrue(link.get_attribute('href').endswith(
            '/OS::Zun::Host/' + host['uuid']), link.get_attribute('href'))
        self.assertIn('Hosts', self.driver.title)
        self.assert_no_error_page()
        self.screenshot('admin-container-hosts')

        link.click()
        self.browser.wait(
            lambda d: host['uuid'] in d.current_url and
            'Used %s of %s' % (_js_number(host['cpu_used']),
                               host['cpus']) in self.browser.text(),
            "the host's detail view")
        text = self.browser.text()
        for usage in ('Used %s of %s' % (mb_text(host['mem_used']),
                                         mb_text(host['mem_total'])),
                      'Used %s of %s' % (gb_text(host['disk_used']),
                                         gb_text(host['disk_total']))):
            self.assertIn(usage, text)
        for value in (host['hostname'], host['uuid'],
                      host['architecture'], host['os'], host['os_type'],
                      host['kernel_version']):
            self.assertIn(value, text)
        self.assert_no_error_page()
        self.screenshot('admin-container-host-detail')

    def test_member_does_not_see_the_admin_panel(self):
        self.log_in('member')
        # No Admin dashboard, so no Container Hosts panel, in the menu.
        links = [link.get_attribute('href') or '' for link in
                 self.driver.find_elements(By.CSS_SELECTOR, 'a')]
        self.assertEqual([], [link for link in links if '/admin/' in link])
        self.assertNotIn(self.cloud.hosts[0]['hostname'],
                         self.browser.text())
        self.screenshot('member-landing')
        # Asked for by its address, Horizon draws the panel's page, but
        # this service refuses the member's token the hosts (403), and the
        # panel shows none.
        refused = 'GET /v1/hosts/" status: 403'
        before = self.cloud.service.log().count(refused)
        self.open('admin/container/hosts/')
        self.browser.wait(
            lambda d: self.cloud.service.log().count(refused) > before and
            'Displaying 0 items' in self.browser.text(),
            "the member's request for the hosts refused")
        self.assertNotIn('Server error', self.driver.title)
        text = self.browser.text()
        self.assertNotIn(self.cloud.hosts[0]['uuid'], text)
        self.assertNotIn(self.cloud.hosts[0]['hostname'], text)
        self.screenshot('member-admin-panel-refused')
