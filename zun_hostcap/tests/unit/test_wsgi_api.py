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

"""zun_hostcap.wsgi.api:application, as uwsgi or mod_wsgi load it.

The application parses the process' configuration and sets up logging,
which are global; the fixtures here put back what it changes.
"""

import gc
import logging
import os
import sys

import fixtures
from oslo_db.sqlalchemy import enginefacade
import webob

from zun_hostcap.common import policy
from zun_hostcap.db.sqlalchemy import api as sqla_api
from zun_hostcap.objects.notifications import base as notification_base
from zun_hostcap.tests import base
from zun_hostcap.tests import fixtures as zun_fixtures
from zun_hostcap.tests import gabbi_fixtures
from zun_hostcap.wsgi import api as wsgi_api

HOSTNAME = 'wsgi-host.example.com'
# Hosts arrived in 1.4.
HOSTS_VERSION = 'container 1.40'


class ProcessLogging(fixtures.Fixture):
    """Puts back what oslo.log's setup() changes for the whole process.

    The root logger's handlers and level, the levels of the library
    loggers in default_log_levels, and sys.excepthook.
    """

    def _setUp(self):
        root = logging.getLogger()
        handlers = list(root.handlers)
        root_level = root.level
        levels = {name: logger.level for name, logger in
                  logging.Logger.manager.loggerDict.items()
                  if isinstance(logger, logging.Logger)}
        excepthook = sys.excepthook

        def restore():
            for handler in list(root.handlers):
                if handler not in handlers:
                    root.removeHandler(handler)
                    handler.close()
            for handler in handlers:
                if handler not in root.handlers:
                    root.addHandler(handler)
            root.setLevel(root_level)
            for name, logger in list(
                    logging.Logger.manager.loggerDict.items()):
                if isinstance(logger, logging.Logger):
                    logger.setLevel(levels.get(name, logging.NOTSET))
            sys.excepthook = excepthook
        self.addCleanup(restore)


class TestWSGIApplication(base.TestCase):

    def setUp(self):
        super().setUp()
        self.tmp = self.useFixture(fixtures.TempDir()).path
        self.connection = 'sqlite:///%s' % os.path.join(self.tmp, 'x.sqlite')
        # The configured database, with its schema and one host, as
        # zun-hostcap-db-manage and a compute service would leave it.
        with zun_fixtures.Database(connection=self.connection):
            gabbi_fixtures._node(self.context, HOSTNAME)
        # An unstarted facade: the application's first database call
        # reads [database] connection from the configuration it parsed.
        facade = enginefacade.transaction_context()
        self.addCleanup(sqla_api.main_context_manager.patch_factory(
            facade._factory))
        self.addCleanup(lambda: facade._factory._started and
                        sqla_api.get_engine().dispose())

        # What loading the application changes in the process.
        self.useFixture(ProcessLogging())
        self.addCleanup(notification_base.set_publisher_source,
                        notification_base.publisher_source())
        policy.reset()
        self.addCleanup(policy.reset)
        self.assertIsNone(wsgi_api.application.built)
        self.addCleanup(setattr, wsgi_api.application, 'built', None)

    def _write_config(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, 'w') as f:
            f.write(text)
        return path

    def _use_config_files(self, *paths):
        self.useFixture(fixtures.EnvironmentVariable(
            wsgi_api.CONFIG_FILE_ENV, ','.join(paths)))

    def _config(self, auth_strategy='noauth2'):
        return ('[DEFAULT]\n'
                'state_path = %(tmp)s\n'
                'log_file = %(log)s\n'
                '[api]\n'
                'auth_strategy = %(auth)s\n'
                '[database]\n'
                'connection = %(connection)s\n'
                '[notifications]\n'
                'notification_format = none\n' % {
                    'tmp': self.tmp,
                    'log': os.path.join(self.tmp, 'api.log'),
                    'auth': auth_strategy,
                    'connection': self.connection})

    def _get(self, path, **headers):
        request = webob.Request.blank(path, headers=headers)
        return request.get_response(wsgi_api.application)

    def test_serves_from_the_configured_files(self):
        path = self._write_config('zun-hostcap.conf', self._config())
        self._use_config_files(path)

        response = self._get('/')
        self.assertEqual(200, response.status_int)
        self.assertEqual('v1', response.json['default_version']['id'])
        self.assertEqual([path], self.conf.config_file)

        # noauth2 and the database come from the file: the default is
        # keystone, and only the configured database has this host.
        response = self._get('/v1/hosts', **{
            'X-Auth-Token': 'admin', 'OpenStack-API-Version': HOSTS_VERSION})
        self.assertEqual(200, response.status_int, response.text)
        self.assertEqual([HOSTNAME], [host['hostname'] for host in
                                      response.json['hosts']])

        # Logging goes where the file says.
        with open(os.path.join(self.tmp, 'api.log')) as f:
            self.assertIn('GET /v1/hosts', f.read())

    def test_built_on_the_first_request_then_kept(self):
        self._use_config_files(
            self._write_config('zun-hostcap.conf', self._config()))
        # Importing the module and being handed the callable build
        # nothing, as in a server's master process before it forks.
        self.assertIsNone(wsgi_api.application.built)

        self.assertEqual(200, self._get('/').status_int)
        built = wsgi_api.application.built
        self.assertIsNotNone(built)
        self.assertEqual(200, self._get('/v1').status_int)
        self.assertIs(built, wsgi_api.application.built)

    def test_start_up_objects_are_kept_from_the_collector(self):
        # What the process holds once the application is built is not
        # walked again by each garbage collection (common/memory.py).
        self.addCleanup(gc.unfreeze)
        gc.unfreeze()
        self._use_config_files(
            self._write_config('zun-hostcap.conf', self._config()))
        self.assertEqual(0, gc.get_freeze_count())
        self.assertEqual(200, self._get('/').status_int)
        self.assertGreater(gc.get_freeze_count(), 10000)

    def test_later_files_override_earlier_ones(self):
        first = self._write_config('zun-hostcap.conf',
                                   self._config(auth_strategy='keystone'))
        second = self._write_config('api.conf',
                                    '[api]\nauth_strategy = noauth2\n')
        # Empty items, as a trailing comma leaves, are ignored.
        self._use_config_files(first, '', second, '')

        response = self._get('/v1/hosts', **{
            'X-Auth-Token': 'admin', 'OpenStack-API-Version': HOSTS_VERSION})
        self.assertEqual(200, response.status_int, response.text)
        self.assertEqual([first, second], self.conf.config_file)
        self.assertEqual('noauth2', self.conf.api.auth_strategy)

    def test_unauthenticated_request_is_refused(self):
        self._use_config_files(
            self._write_config('zun-hostcap.conf', self._config()))
        response = self._get('/v1/hosts',
                             **{'OpenStack-API-Version': HOSTS_VERSION})
        self.assertEqual(401, response.status_int)

    def test_a_misconfiguration_answers_503_and_logs_one_line(self):
        # keystone without [keystone_authtoken]: found when the application
        # is built, on the first request; every request is a 503 document
        # and the log names what to fix, without a traceback.
        self._use_config_files(self._write_config(
            'zun-hostcap.conf', self._config(auth_strategy='keystone')))
        log = self.useFixture(fixtures.FakeLogger(
            name='zun_hostcap.wsgi.api', level=logging.INFO))

        for _attempt in range(2):
            response = self._get('/v1/hosts', **{
                'X-Auth-Token': 'admin',
                'OpenStack-API-Version': HOSTS_VERSION})
            self.assertEqual(503, response.status_int)
            error = response.json['errors'][0]
            self.assertEqual('container.service_unavailable', error['code'])
            self.assertEqual('The service is misconfigured and cannot serve '
                             'requests; its log names the option to fix',
                             error['title'])
        self.assertIsNone(wsgi_api.application.built)
        lines = log.output.splitlines()
        self.assertEqual(2, len(lines), log.output)
        self.assertIn('[keystone_authtoken] has no auth_type', lines[0])
        self.assertNotIn('Traceback', log.output)
