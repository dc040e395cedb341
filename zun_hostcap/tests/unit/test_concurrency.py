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

"""No eventlet: nothing is monkey-patched, work runs on native threads.

oslo.service depends on eventlet and futurist imports it when present, so
``'eventlet' in sys.modules`` proves nothing; these tests check what
patching would change.
"""

import importlib
import pkgutil
import socket
import sys
import threading
import time

import fixtures
from oslo_service import backend

import zun_hostcap
from zun_hostcap.common import concurrency
from zun_hostcap.tests import base


def _import_every_module():
    for module in pkgutil.walk_packages(zun_hostcap.__path__,
                                        'zun_hostcap.'):
        # Tests, and alembic's scripts, which only run inside alembic.
        if '.tests' not in module.name and '.migrations' not in module.name:
            importlib.import_module(module.name)


class TestNoMonkeyPatching(base.TestCase):

    def test_importing_everything_patches_nothing(self):
        _import_every_module()
        self.assertEqual([], concurrency.monkey_patched_modules())
        self.assertEqual('builtin_function_or_method',
                         type(time.sleep).__name__)
        self.assertEqual('socket', socket.socket.__module__)
        patcher = sys.modules.get('eventlet.patcher')
        if patcher is not None:
            for name in ('socket', 'thread', 'time', 'select', 'os'):
                self.assertFalse(patcher.is_monkey_patched(name), name)

    def test_oslo_service_uses_the_threading_backend(self):
        _import_every_module()
        self.assertEqual(backend.BackendType.THREADING,
                         backend.get_backend_type())

    def test_thread_group_runs_os_threads(self):
        from oslo_service import threadgroup
        seen = []
        group = threadgroup.ThreadGroup()
        group.add_thread(lambda: seen.append(
            (concurrency.running_on_native_thread(),
             threading.get_native_id())))
        group.wait()
        self.assertEqual(1, len(seen))
        native, native_id = seen[0]
        self.assertTrue(native)
        self.assertNotEqual(threading.get_native_id(), native_id)

    def test_log_once_logs_each_place_once(self):
        logs = self.useFixture(fixtures.FakeLogger(
            name='zun_hostcap.common.concurrency'))
        for _ in range(3):
            concurrency.log_once('test place A')
        concurrency.log_once('test place B')
        self.assertEqual(1, logs.output.count('test place A runs'))
        self.assertEqual(1, logs.output.count('test place B runs'))

    def test_describe_says_so(self):
        line = concurrency.describe('this test')
        self.assertIn('native=True', line)
        self.assertIn('monkey-patched: none', line)
