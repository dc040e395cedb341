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

"""Lines that belong to no request name none."""

from oslo_context import context as oslo_context
from oslo_service import service as oslo_service

from zun_hostcap.cmd import all as all_cmd
from zun_hostcap.common import context
from zun_hostcap import service
from zun_hostcap.tests import base


class _Recording(oslo_service.ServiceBase):
    """Notes the thread's context at each step."""

    def __init__(self, seen):
        self.seen = seen

    def start(self):
        self.seen.append(('start', oslo_context.get_current()))
        # Work of a request, in the launcher's thread.
        context.RequestContext(overwrite=True)

    def stop(self, graceful=False):
        self.seen.append(('stop', oslo_context.get_current()))
        context.RequestContext(overwrite=True)

    def wait(self):
        self.seen.append(('wait', oslo_context.get_current()))

    def reset(self):
        pass


class _Manager(object):
    def ping(self, ctxt):
        self.called_with = ctxt.request_id
        return 'pong'


class TestThreadContext(base.TestCase):

    def setUp(self):
        super().setUp()
        self.addCleanup(context.clear_thread_context)

    def test_each_service_starts_and_stops_with_no_request(self):
        seen = []
        group = service.ServiceGroup([_Recording(seen), _Recording(seen)])
        context.RequestContext(overwrite=True)
        group.start()
        group.stop()
        group.wait()
        self.assertEqual(6, len(seen))
        for step, current in seen:
            self.assertIsNone(current, step)

    def test_an_in_process_conductor_call_keeps_the_caller_s(self):
        manager = _Manager()
        api = all_cmd.InProcessConductorAPI(manager)
        caller = context.get_admin_context()
        context.clear_thread_context()
        self.assertEqual('pong', api._call(caller, 'ping'))
        # The conductor worked under the caller's request id...
        self.assertEqual(caller.request_id, manager.called_with)
        # ... and the caller's thread holds no context after.
        self.assertIsNone(oslo_context.get_current())
        own = context.RequestContext(overwrite=True)
        api._call(caller, 'ping')
        self.assertIs(own, oslo_context.get_current())
