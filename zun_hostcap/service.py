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

"""Start-up, signals and the service wrapper shared by every binary.

``prepare_service()`` parses the configuration and checks it, so that a
misconfiguration ends the process at start with one line per mistake.
``serve()`` runs a service until SIGTERM or SIGINT (then exit status 0
after a clean stop); SIGHUP reloads the mutable options without stopping
anything; SIGUSR2 prints a Guru Meditation report (oslo.reports).

A ``Service`` registers itself in the services table, sends a heartbeat
every ``report_interval``, serves its manager over RPC when it has a topic
and runs the manager's periodic tasks, all on native threads. A service
that goes through the conductor casts its heartbeat (conductor RPC API
1.1), which the conductor writes in batches; one that owns the database
writes its own.
"""

import contextlib
import logging as logging_module
import multiprocessing
import os
import signal
import threading
import time

from oslo_config import cfg
from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_reports import guru_meditation_report as gmr
from oslo_reports import opts as gmr_opts
from oslo_service import backend
from oslo_service import opts as service_opts
from oslo_service import service

from zun_hostcap.common import concurrency
from zun_hostcap.common import config_check
from zun_hostcap.common import context as zun_context
from zun_hostcap.common import exception
from zun_hostcap.common import log_safety
from zun_hostcap.common import rpc
from zun_hostcap.conductor import rpcapi as conductor_rpcapi
import zun_hostcap.conf
from zun_hostcap.db.sqlalchemy import api as sqla_api
from zun_hostcap import objects
from zun_hostcap.objects import base as objects_base
from zun_hostcap.objects.notifications import base as notification_base
from zun_hostcap.objects import service as service_obj
from zun_hostcap import version

CONF = zun_hostcap.conf.CONF
LOG = logging.getLogger(__name__)

# Upper bound of the idle time between two periodic task checks.
PERIODIC_INTERVAL_MAX = 60

# Signals serve() takes synchronously from the main thread. Every other
# thread blocks them, so none of them can be stopped half-way by one.
_SERVICE_SIGNALS = frozenset([signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
# How often the main thread wakes to let Python signal handlers (SIGUSR2)
# run while it waits for one of the signals above.
_SIGNAL_POLL = 1.0
# How long a stopped service waits for threads still busy before it exits.
_STRAY_THREAD_GRACE = 2.0


def _binary(argv):
    return os.path.basename(argv[0]) if argv else 'zun-hostcap'


def startup_failure(binary, messages):
    """End the process with status 1, telling ``messages`` once each.

    They go to stderr (SystemExit prints them there), and to the log too
    when it is written elsewhere. Called outside any except block: oslo.log
    would append the exception being handled to the line.
    """
    try:
        logged_elsewhere = (CONF.log_file or CONF.log_dir or
                            CONF.use_syslog or CONF.use_journal)
    except cfg.NoSuchOptError:
        # Logging is not set up (a test calling a command's parts).
        logged_elsewhere = False
    if logged_elsewhere:
        for message in messages:
            LOG.error('%s', message)
    raise SystemExit('\n'.join('%s: %s' % (binary, message)
                               for message in messages))


# What --help says after the options, for every command.
HELP_EPILOG = ('The options are read from /etc/zun-hostcap/zun-hostcap.conf '
               'unless --config-file names other files; '
               'etc/zun-hostcap/zun-hostcap.conf.sample lists every option '
               'with its default.')


def help_description(text):
    """``text`` with %(api)s and %(database)s: the defaults they name.

    Read before the command line is parsed: the defaults, as the command
    set them.
    """
    return text % {'api': 'http://%s:%s' % (CONF.api.host, CONF.api.port),
                   'database': CONF.database.connection}


def prepare_service(argv, default_config_files=None, uses_database=True,
                    description=None):
    """Parse and check the command line and config files, set up logging.

    :param uses_database: the process opens the database, so the
        [database] connection URL and its driver are checked too.
    :param description: what the command does, for --help; %(api)s and
        %(database)s are replaced with the defaults (``help_description``).
    :raises SystemExit: with one line per misconfiguration (status 1).
    """
    binary = _binary(argv)
    if backend.get_backend_type() != backend.BackendType.THREADING:
        raise SystemExit(
            'oslo.service runs its %s backend in this process; zun-hostcap '
            'services run on native threads only. Something imported '
            'oslo.messaging or oslo.service before zun_hostcap.'
            % backend.get_backend_type().value)
    try:
        logging.register_options(CONF)
    except cfg.ArgsAlreadyParsedError:
        # Parsed before in this process (the WSGI application retrying a
        # configuration that failed): the options are registered already.
        pass
    gmr_opts.set_defaults(CONF)
    service_opts.register_service_opts(CONF)
    try:
        CONF(argv[1:], project='zun-hostcap',
             version=version.version_string(),
             default_config_files=default_config_files,
             description=(help_description(description) if description
                          else None),
             epilog=HELP_EPILOG)
    except cfg.Error as err:
        raise SystemExit('%s: %s' % (binary, err))
    try:
        logging.setup(CONF, 'zun-hostcap')
    except (OSError, ValueError, cfg.Error) as err:
        raise SystemExit('%s: cannot set up logging: %s' % (binary, err))
    log_safety.install()
    # Every mistake at once, the state path and the database URL with the
    # option values: a fix should not reveal the next one at the next start.
    problems = config_check.invalid_options(CONF)
    try:
        config_check.check_state_path(CONF.state_path)
    except config_check.StartupError as err:
        problems.append(str(err))
    if uses_database:
        try:
            connection = config_check.database_url(CONF.database.connection)
        except config_check.StartupError as err:
            problems.append(str(err))
        else:
            if connection != CONF.database.connection and not problems:
                sqla_api.main_context_manager.configure(
                    connection=connection)
    if problems:
        startup_failure(binary, problems)
    objects.register_all()
    notification_base.set_publisher_source(binary)
    if CONF.log_options:
        CONF.log_opt_values(LOG, logging.DEBUG)


def take_signals():
    """Keep SIGTERM, SIGINT and SIGHUP away from every thread but main.

    Call it first thing in a service's main(), before any thread starts:
    threads inherit the mask, and a thread that does not block SIGTERM
    could take it and end the process before a clean stop.
    """
    signal.pthread_sigmask(signal.SIG_BLOCK, _SERVICE_SIGNALS)


def _signal_name(signo):
    return signal.Signals(signo).name


def _exit_if_stop_hangs():
    """After [DEFAULT] graceful_shutdown_timeout seconds, just exit."""
    timeout = CONF.graceful_shutdown_timeout
    if not timeout:
        return

    def give_up():
        LOG.error('The clean stop took longer than graceful_shutdown_'
                  'timeout (%d s); exiting now.', timeout)
        os._exit(1)
    timer = threading.Timer(timeout, give_up)
    timer.daemon = True
    timer.start()


def serve(server, binary, workers=1):
    """Run ``server`` until SIGTERM or SIGINT; return the exit status.

    One worker runs in this process: the main thread takes the signals
    (see ``take_signals()``) and drives oslo.service's Launcher, whose
    restart() mutates the configuration and resets the services on
    SIGHUP without stopping them, so a listening socket is never closed.
    Several workers (the API) are processes of oslo.service's launcher;
    see ``_serve_workers()``.
    """
    # The module answers the report's vendor, product and version.
    gmr.TextGuruMeditation.setup_autorun(version, service_name=binary,
                                         conf=CONF)
    if workers > 1:
        return _serve_workers(server, workers)
    launcher = service.Launcher(CONF, restart_method='mutate')
    launcher.launch_service(server)
    while True:
        info = signal.sigtimedwait(_SERVICE_SIGNALS, _SIGNAL_POLL)
        if info is None:
            continue
        if info.si_signo == signal.SIGHUP:
            LOG.info('Caught SIGHUP: reloading the mutable options of %s',
                     binary)
            launcher.restart()
            continue
        LOG.info('Caught %s: stopping %s', _signal_name(info.si_signo),
                 binary)
        _exit_if_stop_hangs()
        launcher.stop()
        launcher.wait()
        LOG.info('%s stopped', binary)
        _exit(0)


def _exit(status):
    """End the process now that its services stopped.

    A thread caught in an RPC call when the stop came (a periodic task
    waiting for a conductor that stopped first) would keep the interpreter
    alive until the call times out; it has nothing left to do. As
    cotyledon ends its workers, the process ends without waiting for it,
    once the log is flushed.
    """
    deadline = time.monotonic() + _STRAY_THREAD_GRACE
    for thread in threading.enumerate():
        if thread is threading.current_thread() or thread.daemon:
            continue
        thread.join(max(0, deadline - time.monotonic()))
        if thread.is_alive():
            LOG.debug('Not waiting for thread %s', thread.name)
    logging_module.shutdown()
    os._exit(status)


class _WorkerSignals(service.ServiceBase):
    """A worker process' side of ``_serve_workers()``: SIGHUP reloads."""

    def __init__(self, server):
        self.server = server

    def start(self):
        # In the worker: SIGHUP and SIGINT are blocked (inherited from the
        # master); this thread takes SIGHUP, SIGINT stays with the master.
        threading.Thread(target=self._reload_on_sighup, daemon=True,
                         name='sighup').start()
        self.server.start()

    def _reload_on_sighup(self):
        while True:
            signal.sigwait([signal.SIGHUP])
            LOG.info('Worker %d caught SIGHUP: reloading the mutable '
                     'options', os.getpid())
            CONF.mutate_config_files()
            self.server.reset()

    def stop(self, graceful=False):
        self.server.stop(graceful)

    def wait(self):
        self.server.wait()

    def reset(self):
        self.server.reset()


def _serve_workers(server, workers):
    """Run ``server`` in ``workers`` processes of oslo.service (cotyledon).

    cotyledon stops its workers cleanly on SIGTERM, but ends them at once
    with status 1 on SIGINT, and restarts every worker on SIGHUP. Both
    are taken from it here: SIGINT and SIGHUP are blocked in the master
    before the workers fork (they inherit it); a thread of the master
    turns SIGINT into SIGTERM and hands SIGHUP to each worker, whose own
    thread reloads its options in place.
    """
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
    launcher = service.launch(CONF, _WorkerSignals(server),
                              workers=workers, restart_method='mutate')

    def relay():
        while True:
            signo = signal.sigwait([signal.SIGINT, signal.SIGHUP])
            if signo == signal.SIGINT:
                LOG.info('Caught SIGINT: stopping the workers')
                os.kill(os.getpid(), signal.SIGTERM)
                return
            LOG.info('Caught SIGHUP: reloading the mutable options of '
                     'every worker')
            CONF.mutate_config_files()
            for child in multiprocessing.active_children():
                os.kill(child.pid, signal.SIGHUP)

    threading.Thread(target=relay, daemon=True, name='signals').start()
    status = launcher.wait()
    return 0 if status is None else status


class ServiceGroup(service.ServiceBase):
    """Several services run as one: started in order, stopped in reverse."""

    def __init__(self, services):
        self.services = services

    def start(self):
        for svc in self.services:
            # Each one's lines name no request of the one before.
            zun_context.clear_thread_context()
            svc.start()

    def stop(self, graceful=False):
        for svc in reversed(self.services):
            zun_context.clear_thread_context()
            svc.stop(graceful)

    def wait(self):
        for svc in self.services:
            zun_context.clear_thread_context()
            svc.wait()

    def reset(self):
        for svc in self.services:
            svc.reset()


class Service(service.Service):
    """One zun-hostcap service around a manager."""

    def __init__(self, binary, manager, topic=None, host=None,
                 use_conductor=False, conductor_api=None):
        """:param use_conductor: send object calls to the conductor.

        :param conductor_api: the conductor client to use instead of a
            new one, when services share a process (the fleet simulator).
        """
        super().__init__()
        self.binary = binary
        self.manager = manager
        self.topic = topic
        self.host = host or CONF.host
        self.use_conductor = use_conductor
        self.conductor_api = conductor_api
        self.service_ref = None
        self._rpc_server = None
        self._stopping = threading.Event()
        # Heartbeats that failed in a row (the current outage).
        self._heartbeat_failing = 0

    def start(self):
        zun_context.clear_thread_context()
        LOG.info('Starting %(binary)s on %(host)s; %(check)s',
                 {'binary': self.binary, 'host': self.host,
                  'check': concurrency.describe('service start-up')})
        # Connections are made here, not in __init__: the launcher may fork
        # between the two and a connection must not cross a fork.
        rpc.init(CONF)
        context = zun_context.get_admin_context()
        if self.use_conductor:
            if self.conductor_api is None:
                self.conductor_api = conductor_rpcapi.ConductorAPI()
            objects_base.install_indirection_api(self.conductor_api)
            if not self.conductor_api.wait_until_ready(context,
                                                       self._stopping):
                return
        self._try_register(context)
        if self.topic:
            target = messaging.Target(topic=self.topic, server=self.host)
            # A manager may serve only some of its methods over RPC.
            endpoints = getattr(self.manager, 'rpc_endpoints', None)
            self._rpc_server = rpc.get_server(target,
                                              endpoints or [self.manager])
            self._rpc_server.start()
        self.tg.add_timer(CONF.report_interval, self.report_state,
                          initial_delay=CONF.report_interval)
        if hasattr(self.manager, 'run_periodic_tasks'):
            self.tg.add_dynamic_timer(
                self._run_periodic_tasks,
                periodic_interval_max=PERIODIC_INTERVAL_MAX)

    def reset(self):
        """SIGHUP: apply the mutable options the manager reads."""
        if hasattr(self.manager, 'reset'):
            self.manager.reset()

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
        version = service_obj.SERVICE_VERSION
        try:
            ref = objects.Service.get_by_host_and_binary(
                context, self.host, self.binary)
        except exception.ServiceNotFound:
            ref = objects.Service(context, host=self.host,
                                  binary=self.binary, topic=self.topic,
                                  version=version)
            try:
                ref.create()
            except exception.ServiceAlreadyExists:
                # Another worker of the same binary won the race.
                ref = objects.Service.get_by_host_and_binary(
                    context, self.host, self.binary)
        # Not set: the service sends Service 1.0, pinned to a release
        # that records no version (a row it could not write anyway).
        if ref.obj_attr_is_set('version') and ref.version != version:
            ref.version = version
            ref.save()
        return ref

    def _describe_backend_error(self, err):
        """One line on what failed: a remote error's text has a traceback."""
        message = exception.one_line(err)
        if isinstance(err, exception.ServiceUnavailable):
            reason = getattr(err, 'kwargs', {}).get('reason')
            if reason:
                message = '%s (%s)' % (message, reason)
            return '%s The service shows as down until it is back.' % message
        if isinstance(err, messaging.MessagingTimeout):
            return ('no conductor answered; the service shows as down until '
                    'one does.')
        if isinstance(err, messaging.MessagingException):
            return 'the message bus failed (%s).' % message
        return 'failed: %s: %s' % (type(err).__name__, message)

    def _log_backend_error(self, what, err, level=logging.WARNING):
        """One line for a backend outage; a traceback only at DEBUG."""
        expected = isinstance(err, (exception.ServiceUnavailable,
                                    messaging.MessagingException))
        LOG.log(level if expected else max(level, logging.ERROR),
                '%(what)s %(binary)s on %(host)s: %(problem)s',
                {'what': what, 'binary': self.binary, 'host': self.host,
                 'problem': self._describe_backend_error(err)})
        LOG.debug('%s failed', what, exc_info=True)

    def _try_register(self, context):
        """Register the service row; while the database is down, later.

        The service runs without its row meanwhile; the next heartbeat
        tries again, so it catches up by itself when the database is back.
        """
        try:
            with self._own_object_calls():
                self.service_ref = self._register(context)
        except Exception as err:
            self._heartbeat_failed('Registering', err)
        else:
            self._heartbeat_worked()

    def _heartbeat_failed(self, what, err):
        # Once per outage, as the heartbeat runs every report_interval
        # whatever happens: the first failure is a warning, the next ones
        # are DEBUG, and the recovery is told (_heartbeat_worked).
        level = logging.DEBUG if self._heartbeat_failing else logging.WARNING
        self._heartbeat_failing += 1
        self._log_backend_error(what, err, level)

    def _heartbeat_worked(self):
        if self._heartbeat_failing:
            LOG.info('%(binary)s on %(host)s reports its state again, after '
                     '%(count)d failed heartbeats.',
                     {'binary': self.binary, 'host': self.host,
                      'count': self._heartbeat_failing})
            self._heartbeat_failing = 0

    def report_state(self):
        """Send one heartbeat; register first if the service has no row.

        Through the conductor it is a cast, written in the conductor's
        next batch; a service that owns the database writes its row.
        Never raises: a missed heartbeat must not stop the next one.
        """
        context = zun_context.get_admin_context()
        if self.service_ref is None:
            self._try_register(context)
            return
        try:
            if self.use_conductor:
                self.conductor_api.service_report_state(context,
                                                        self.service_ref)
            else:
                with self._own_object_calls():
                    self.service_ref.heartbeat()
        except Exception as err:
            self._heartbeat_failed('Heartbeat of', err)
        else:
            self._heartbeat_worked()

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
        if hasattr(self.manager, 'cleanup_host'):
            # After the RPC server: nothing arrives for the manager now.
            try:
                self.manager.cleanup_host()
            except Exception:
                LOG.exception('Cleaning up %s failed', self.binary)
        super().stop(graceful)
        zun_context.clear_thread_context()
        LOG.info('Stopped %(binary)s on %(host)s',
                 {'binary': self.binary, 'host': self.host})
