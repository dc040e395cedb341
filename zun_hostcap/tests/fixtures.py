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

"""Fixtures shared by unit and functional tests."""

import os
import time

import fixtures
from oslo_db.sqlalchemy import enginefacade
import oslo_messaging as messaging
import sqlalchemy as sa

from zun_hostcap.common import metrics
from zun_hostcap.common import rpc
from zun_hostcap.conductor import manager as conductor_manager
from zun_hostcap.conductor import rpcapi as conductor_rpcapi
from zun_hostcap.db import api as db_api
from zun_hostcap.db import migration
from zun_hostcap.db.sqlalchemy import api as sqla_api
from zun_hostcap.objects import base as objects_base


class Database(fixtures.Fixture):
    """A fresh SQLite file built by the migrations, used by the DB API.

    A file rather than ``sqlite://`` so that threads (an RPC server, a
    periodic task) see the same database as the test.
    """

    def __init__(self, connection=None):
        super().__init__()
        self.connection = connection

    def _setUp(self):
        if self.connection is None:
            tmp = self.useFixture(fixtures.TempDir()).path
            self.connection = 'sqlite:///%s' % os.path.join(tmp, 'test.db')
        facade = enginefacade.transaction_context()
        facade.configure(connection=self.connection,
                         **sqla_api.ENGINE_OPTIONS)
        for hook in sqla_api.ON_ENGINE_CREATE:
            facade.append_on_engine_create(hook)
        self.addCleanup(sqla_api.main_context_manager.patch_factory(
            facade._factory))
        self.engine = sqla_api.get_engine()
        migration.upgrade('head', engine=self.engine)
        self.addCleanup(self.engine.dispose)

    def count_writes(self):
        """Count INSERT/UPDATE/DELETE statements from now on.

        Returns a list that grows with each written statement's SQL.
        """
        return self.count_statements(('INSERT', 'UPDATE', 'DELETE'))

    def count_statements(self, verbs=('SELECT', 'INSERT', 'UPDATE',
                                      'DELETE')):
        """Count the statements starting with one of ``verbs`` from now on.

        Returns a list that grows with each such statement's SQL.
        """
        writes = []

        def before_execute(conn, cursor, statement, *args):
            if statement.lstrip().split(None, 1)[0].upper() in verbs:
                writes.append(statement)

        sa.event.listen(self.engine, 'before_cursor_execute',
                        before_execute)
        self.addCleanup(sa.event.remove, self.engine,
                        'before_cursor_execute', before_execute)
        return writes


class RPC(fixtures.Fixture):
    """The process transport, on oslo.messaging's in-process driver."""

    def __init__(self, conf, url='fake:/'):
        super().__init__()
        self.conf = conf
        self.url = url

    def _setUp(self):
        self.conf.set_override('transport_url', self.url)
        rpc.cleanup()
        rpc.init(self.conf)
        self.addCleanup(rpc.cleanup)


class CountingConductorManager(conductor_manager.ConductorManager):
    """The real conductor endpoint, counting the calls it serves."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def object_class_action_versions(self, context, objname, objmethod,
                                     *args, **kwargs):
        self.calls.append((objname, objmethod))
        return super().object_class_action_versions(
            context, objname, objmethod, *args, **kwargs)

    def object_action(self, context, objinst, objmethod, *args, **kwargs):
        self.calls.append((objinst.obj_name(), objmethod))
        return super().object_action(context, objinst, objmethod, *args,
                                     **kwargs)


class Conductor(fixtures.Fixture):
    """A conductor RPC server in this process, and the compute's side.

    Object calls of the test go over RPC to it (``indirection_api``) and
    direct database calls outside the conductor raise, as in
    zun-hostcap-compute.
    """

    def __init__(self, conf, topic='zun-hostcap-conductor-test',
                 manager=None):
        """:param manager: the endpoint, a CountingConductorManager."""
        super().__init__()
        self.conf = conf
        self.topic = topic
        self.manager = manager

    def _setUp(self):
        self.conf.set_override('topic', self.topic, group='conductor')
        self.manager = self.manager or CountingConductorManager()
        target = messaging.Target(topic=self.topic, server='test-host')
        self.server = rpc.get_server(target, [self.manager])
        self.server.start()
        self.addCleanup(self.server.wait)
        self.addCleanup(self.server.stop)
        if self.conf.upgrade_levels.conductor == conductor_rpcapi.AUTO:
            # The conductor is of this release: no versions to read. A
            # pin the test set stays.
            self.conf.set_override('conductor', '', group='upgrade_levels')
        objects_base.install_indirection_api(conductor_rpcapi.ConductorAPI())
        self.addCleanup(objects_base.install_indirection_api, None)
        db_api.block_access('test compute')
        self.addCleanup(db_api.unblock_access)


class NotificationCollector(fixtures.Fixture):
    """A real oslo.messaging notification listener, collecting messages.

    Listens on ``topics`` of the process's notification transport (start
    the RPC fixture first) with the threading executor.
    """

    def __init__(self, topics=('versioned_notifications',)):
        super().__init__()
        self.topics = topics
        self.received = []

    def _setUp(self):
        collector = self

        class Endpoint:
            def _record(self, priority, ctxt, publisher_id, event_type,
                        payload, metadata):
                collector.received.append({
                    'priority': priority, 'event_type': event_type,
                    'publisher_id': publisher_id, 'payload': payload})

            def info(self, *args):
                self._record('INFO', *args)

            def warn(self, *args):
                self._record('WARN', *args)

            def error(self, *args):
                self._record('ERROR', *args)

        targets = [messaging.Target(topic=topic) for topic in self.topics]
        self.listener = messaging.get_notification_listener(
            rpc.NOTIFICATION_TRANSPORT, targets, [Endpoint()],
            executor='threading')
        self.listener.start()
        self.addCleanup(self.listener.wait)
        self.addCleanup(self.listener.stop)

    def wait_for(self, count, timeout=5):
        """Wait until ``count`` notifications arrived; return them all."""
        deadline = time.monotonic() + timeout
        while len(self.received) < count and time.monotonic() < deadline:
            time.sleep(0.02)
        return list(self.received)

    def event_types(self):
        return [n['event_type'] for n in self.received]


class Metrics(fixtures.Fixture):
    """[metrics] enabled, counting into a directory of the test's own.

    :param conf: the configuration the test overrides (its fixture's).
    """

    def __init__(self, conf, **options):
        super().__init__()
        self.conf = conf
        self.options = options

    def _setUp(self):
        self.directory = self.useFixture(fixtures.TempDir()).path
        options = dict(enabled=True, directory=self.directory,
                       **self.options)
        for name, value in options.items():
            self.conf.set_override(name, value, group='metrics')
            self.addCleanup(self.conf.clear_override, name, group='metrics')
        self.addCleanup(metrics.reset)
        metrics.setup(self.conf)
