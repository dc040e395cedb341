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

"""Placement gabbi files on MariaDB and PostgreSQL, in-process.

The unit tests run the files of ``tests/gabbits/placement`` on SQLite.
Those whose transactions depend on the engine (the reshaper's locks,
generation checks and rollback) and those of malformed input (what each
engine refuses, compares or collates differently) run here again, each
on a throw-away database of each server, with the same application and
fixtures.
"""

import os
import socket
import unittest
import uuid

from gabbi import handlers as gabbi_handlers
from gabbi import suitemaker
from gabbi import utils as gabbi_utils

from zun_hostcap.common import config_check
from zun_hostcap.tests.functional import base as functional_base
from zun_hostcap.tests.functional import test_operations
from zun_hostcap.tests import gabbi_fixtures

HERE = os.path.dirname(__file__)
PLACEMENT_GABBITS = os.path.join(HERE, '..', '..', 'gabbits', 'placement')
FILES = ('reshaper.yaml', 'bad-input.yaml')


def _require(name, port):
    """Skip the file's tests (fail them in CI) unless the server answers."""
    try:
        socket.create_connection(('127.0.0.1', port), timeout=2).close()
    except OSError as err:
        message = '%s is not reachable on 127.0.0.1:%s: %s' % (name, port,
                                                               err)
        if functional_base.CI:
            raise RuntimeError(message)
        raise unittest.SkipTest(message)


class _ServerPlacementFixture(gabbi_fixtures.PlacementFixture):
    """The in-process fixture, on a throw-away database of a server."""

    server, port = None, None

    def start_fixture(self):
        _require(self.server, self.port)
        self.server_database = self.make_database()
        self.server_database.setUp()
        try:
            super().start_fixture()
        except Exception:
            self.server_database.cleanUp()
            raise

    def connection(self):
        # As the services take [database] connection (utf8mb4 on MySQL).
        return config_check.database_url(self.server_database.url)

    def stop_fixture(self):
        try:
            super().stop_fixture()
        finally:
            self.server_database.cleanUp()


class MariaDB(object):
    """The fixtures the files name, on MariaDB."""

    class PlacementFixture(_ServerPlacementFixture):
        server, port = 'MariaDB', 3306

        @staticmethod
        def make_database():
            return functional_base.MySQLDatabase()


class PostgreSQL(object):
    """The fixtures the files name, on PostgreSQL."""

    class PlacementFixture(_ServerPlacementFixture):
        server, port = 'PostgreSQL', 5432

        @staticmethod
        def make_database():
            return test_operations.PostgreSQLDatabase()


def load_tests(loader, tests, pattern):
    handlers = [handler() for handler in gabbi_handlers.RESPONSE_HANDLERS]
    for backend in (MariaDB, PostgreSQL):
        for name in FILES:
            path = os.path.join(PLACEMENT_GABBITS, name)
            suite_dict = gabbi_utils.load_yaml(yaml_file=path)
            tests.addTest(suitemaker.test_suite_from_dict(
                loader, '%s_%s' % (backend.__name__,
                                   os.path.splitext(name)[0]),
                # As gabbi's build_tests names an intercepted host.
                suite_dict, PLACEMENT_GABBITS, str(uuid.uuid4()), 8001,
                backend,
                gabbi_fixtures.setup_app, prefix='/placement',
                handlers=handlers, test_loader_name=__name__))
    return tests
