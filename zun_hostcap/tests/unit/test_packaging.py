"""The README's database examples work as written with the install extras."""

import configparser
import os
import re

from zun_hostcap.common import config_check
from zun_hostcap.tests import base

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))

# Backend of a URL -> the extra that installs its driver, and the driver.
EXTRAS = {'mysql': ('mysql', 'pymysql', 'PyMySQL'),
          'postgresql': ('postgresql', 'psycopg', 'psycopg')}


class TestDatabaseExtras(base.TestCase):

    def setUp(self):
        super().setUp()
        setup_cfg = configparser.ConfigParser()
        setup_cfg.read(os.path.join(REPO, 'setup.cfg'))
        self.extras = {name: value.split()[0] for name, value in
                       setup_cfg['extras'].items()}
        with open(os.path.join(REPO, 'README.rst')) as f:
            self.readme_urls = re.findall(
                r'connection = ((?:mysql|postgresql)\S*://\S+)', f.read())

    def test_the_readme_shows_both_production_databases(self):
        self.assertEqual({'mysql', 'postgresql'},
                         {url.split('+')[0] for url in self.readme_urls})

    def test_each_readme_url_uses_the_driver_its_extra_installs(self):
        for url in self.readme_urls:
            backend, driver = url.split('://')[0].split('+')
            extra, expected_driver, package = EXTRAS[backend]
            self.assertEqual(expected_driver, driver, url)
            self.assertTrue(self.extras[extra].startswith(package),
                            (extra, self.extras[extra]))
            # The driver is importable (the tests install the extras'
            # packages) and the URL passes the start-up check.
            config_check.database_url(url)
