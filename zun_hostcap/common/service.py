"""Start-up and the service wrapper shared by every binary.

A ``Service`` registers itself in the services table, sends a heartbeat
every ``report_interval``, serves its manager over RPC when it has a topic
and runs the manager's periodic tasks, all on native threads.
"""

import contextlib
import os
import threading

from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_service import backend
from oslo_service import service

from zun_hostcap.common import concurrency
from zun_hostcap.common import context as zun_context
from zun_hostcap.common import exception
from zun_hostcap.common import rpc
from zun_hostcap.conductor import rpcapi as conductor_rpcapi
import zun_hostcap.conf
from zun_hostcap import objects
from zun_hostcap.objects import base as objects_base
from zun_hostcap.objects.notifications import base as notification_base

CONF = zun_hostcap.conf.CONF
LOG = logging.getLogger(__name__)

# Upper bound of the idle time between two periodic task checks.
PERIODIC_INTERVAL_MAX = 60


def prepare_service(argv, default_config_files=None):
    """Parse the command line and config files, set up logging."""
    if backend.get_backend_type() != backend.BackendType.THREADING:
        raise SystemExit(
            'oslo.service runs its %s backend in this process; zun-hostcap '
            'services run on native threads only. Something imported '
            'oslo.messaging or oslo.service before zun_hostcap.'
            % backend.get_backend_type().value)
    logging.register_options(CONF)
    CONF(argv[1:], project='zun-hostcap',
         default_config_files=default_config_files)
    logging.setup(CONF, 'zun-hostcap')
    os.makedirs(CONF.state_path, exist_ok=True)
    objects.register_all()
    notification_base.set_publisher_source(os.path.basename(argv[0]))


class Service(service.Service):
    """One zun-hostcap service around a manager."""

    def __init__(self, binary, manager, topic=None, host=None,
                 use_conductor=False):
        """:param use_conductor: send object calls to the conductor."""
        super().__init__()
        self.binary = binary
        self.manager = manager
        self.topic = topic
        self.host = host or CONF.host
        self.use_conductor = use_conductor
        self.service_ref = None
        self._rpc_server = None
        self._stopping = threading.Event()

    def start(self):
        LOG.info('Starting %(binary)s on %(host)s; %(check)s',
                 {'binary': self.binary, 'host': self.host,
                  'check': concurrency.describe('service start-up')})
        # Connections are made here, not in __init__: the launcher may fork
        # between the two and a connection must not cross a fork.
        rpc.init(CONF)
        context = zun_context.get_admin_context()
        if self.use_conductor:
            conductor = conductor_rpcapi.ConductorAPI()
            objects_base.install_indirection_api(conductor)
            if not conductor.wait_until_ready(context, self._stopping):
                return
        with self._own_object_calls():
            self.service_ref = self._register(context)
        if self.topic:
            target = messaging.Target(topic=self.topic, server=self.host)
            self._rpc_server = rpc.get_server(target, [self.manager])
            self._rpc_server.start()
        self.tg.add_timer(CONF.report_interval, self._report_state,
                          initial_delay=CONF.report_interval)
        if hasattr(self.manager, 'run_periodic_tasks'):
            self.tg.add_dynamic_timer(
                self._run_periodic_tasks,
                periodic_interval_max=PERIODIC_INTERVAL_MAX)

    def _own_object_calls(self):
        """Where this service's own records (row, heartbeat) are written.

        A service that owns the database (the conductor) writes them
        itself, also when it shares a process with a compute service whose
        database access is blocked (zun-hostcap-all).
        """
        if self.use_conductor:
            return contextlib.nullcontext()
        return objects_base.conductor_scope()

    def _register(self, context):
        try:
            ref = objects.Service.get_by_host_and_binary(
                context, self.host, self.binary)
        except exception.ServiceNotFound:
            ref = objects.Service(context, host=self.host,
                                  binary=self.binary, topic=self.topic)
            try:
                ref.create()
            except exception.ServiceAlreadyExists:
                # Another worker of the same binary won the race.
                ref = objects.Service.get_by_host_and_binary(
                    context, self.host, self.binary)
        return ref

    def _report_state(self):
        try:
            with self._own_object_calls():
                self.service_ref.heartbeat()
        except messaging.MessagingTimeout:
            LOG.warning('Heartbeat of %(binary)s on %(host)s: no conductor '
                        'answered; the service shows as down until one '
                        'does.', {'binary': self.binary, 'host': self.host})
        except Exception:
            # A missed heartbeat must not stop the next one; the service
            # shows as down until the database or conductor is back.
            LOG.exception('Heartbeat of %(binary)s on %(host)s failed',
                          {'binary': self.binary, 'host': self.host})

    def _run_periodic_tasks(self):
        context = zun_context.get_admin_context()
        return self.manager.run_periodic_tasks(context)

    def stop(self, graceful=False):
        self._stopping.set()
        if self._rpc_server is not None:
            try:
                self._rpc_server.stop()
                self._rpc_server.wait()
            except Exception:
                LOG.exception('Stopping the RPC server failed')
        super().stop(graceful)
        LOG.info('Stopped %(binary)s on %(host)s',
                 {'binary': self.binary, 'host': self.host})
