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

"""zun-hostcap-all: API, conductor and compute in one process.

Made for a laptop or a demo: with nothing configured it keeps a SQLite
file under [DEFAULT] state_path, carries RPC over oslo.messaging's
in-process fake:// transport, discovers this host at once, serves the
API on [api] host:port with noauth2 and reports the host to the API's own
/placement (``placement_defaults``). The compute side may not use the
database itself: its object calls go to the conductor, over RPC when a
transport_url names a message bus, and in-process on the fake:// default
(``InProcessConductorAPI``).
"""

import sys
import time

from keystoneauth1 import loading as ks_loading
from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_serialization import jsonutils
from oslo_service import service
from oslo_utils import netutils
from oslo_versionedobjects import base as ovo_base
import sqlalchemy

from zun_hostcap.cmd import api
from zun_hostcap.cmd import compute
from zun_hostcap.cmd import conductor
from zun_hostcap.common import context as zun_context
from zun_hostcap.common import rpc
import zun_hostcap.conf
from zun_hostcap.db import api as db_api
from zun_hostcap.db import migration
from zun_hostcap.objects import base as objects_base
from zun_hostcap import service as zun_service

CONF = zun_hostcap.conf.CONF
LOG = logging.getLogger(__name__)

BINARY = 'zun-hostcap-all'

# One process needs no broker; a real transport_url overrides this.
DEFAULT_TRANSPORT_URL = 'fake:/'
# A laptop has no keystone; [api] auth_strategy overrides this.
DEFAULT_AUTH_STRATEGY = 'noauth2'
# How the compute side reaches the API's /placement by default: the
# token noauth2 takes for an admin.
DEFAULT_PLACEMENT_AUTH = 'admin_token'
DEFAULT_PLACEMENT_TOKEN = 'admin'


class _DatabaseOwner(object):
    """Lets the API's requests use the database in this process.

    Like the conductor, and unlike the compute service that shares the
    process, the API reads the database itself (as nova-api does).
    """

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        with objects_base.conductor_scope():
            return self.application(environ, start_response)


class InProcessConductorAPI(ovo_base.VersionedObjectIndirectionAPI):
    """Object calls to the conductor of this process, without a transport.

    oslo.messaging's fake:// driver polls for messages every 50 ms, so an
    object call over it takes ~54 ms. This API hands the ConductorManager
    what its RPC server would: the context and the arguments serialized
    by the RPC serializer and carried through JSON as a broker carries
    them, then deserialized on the conductor's side; the answer comes back
    the same way. An object call so still runs the conductor's object
    indirection (``conductor_scope``, the backport to the caller's
    versions), in the caller's thread. It is the compute service's
    conductor client: its heartbeat, a cast over RPC, is handed over the
    same way.
    """

    def __init__(self, manager):
        super().__init__()
        self.manager = manager
        self._serializer = rpc.RequestContextSerializer(
            objects_base.ZunHostcapObjectSerializer())

    def _call(self, context, method, **kwargs):
        # The conductor's context is the thread's while it works, as in an
        # RPC server's thread; the caller's (or none) comes back after.
        with zun_context.thread_context_kept():
            return self._conductor_call(context, method, **kwargs)

    def _conductor_call(self, context, method, **kwargs):
        serializer = self._serializer
        # The caller's side, as an RPC client sends a message.
        message = jsonutils.dumps({
            'context': serializer.serialize_context(context),
            'args': {name: serializer.serialize_entity(context, value)
                     for name, value in kwargs.items()}})
        # The conductor's side, as its RPC dispatcher runs it.
        message = jsonutils.loads(message)
        conductor_context = serializer.deserialize_context(
            message['context'])
        args = {name: serializer.deserialize_entity(conductor_context, value)
                for name, value in message['args'].items()}
        try:
            result = getattr(self.manager, method)(conductor_context,
                                                   **args)
        except messaging.ExpectedException as expected:
            # Raised to the caller as itself, as over fake:// (a broker
            # rebuilds it from the allowed modules).
            raise expected.exc_info[1] from None
        except Exception:
            LOG.exception('Exception during the conductor call %s', method)
            raise
        reply = jsonutils.dumps(
            serializer.serialize_entity(conductor_context, result))
        return serializer.deserialize_entity(context, jsonutils.loads(reply))

    def object_class_action_versions(self, context, objname, objmethod,
                                     object_versions, args, kwargs):
        """Run a remotable classmethod of ``objname`` in the conductor."""
        return self._call(context, 'object_class_action_versions',
                          objname=objname, objmethod=objmethod,
                          object_versions=object_versions, args=args,
                          kwargs=kwargs)

    def object_action(self, context, objinst, objmethod, args, kwargs):
        """Run a remotable method of ``objinst`` in the conductor."""
        return self._call(context, 'object_action', objinst=objinst,
                          objmethod=objmethod, args=args, kwargs=kwargs)

    def object_backport_versions(self, context, objinst, object_versions):
        """Have the conductor backport ``objinst`` to versions we know."""
        return self._call(context, 'object_backport_versions',
                          objinst=objinst, object_versions=object_versions)

    def service_report_state(self, context, service):
        """Tell the conductor that ``service`` (a Service object) is alive."""
        self._call(context, 'service_report_state', service_id=service.id,
                   sent_at=time.time())

    def wait_until_ready(self, context, stop_event=None):
        """The conductor is in this process: it is there once started."""
        return True


class CheckpointAtStop(service.ServiceBase):
    """Last of the all-in-one to finish stopping: the SQLite file alone.

    Its ``wait()`` runs after the others' (a ServiceGroup waits in
    order): no request or RPC call writes any more, and the SQLite
    write-ahead log is written back into the file, so that a copy of
    the file is the data.
    """

    def start(self):
        pass

    def stop(self, graceful=False):
        pass

    def wait(self):
        try:
            whole = db_api.checkpoint_at_stop()
        except Exception as err:
            LOG.warning('Could not write the database log back into %s: '
                        '%s', _shown(CONF.database.connection), err)
            return
        if whole is False:
            LOG.warning('Another process is using %s: its log (-wal) '
                        'still holds some of the data; copy it with the '
                        'file, or back it up with sqlite3 .backup',
                        _shown(CONF.database.connection))
        elif whole:
            LOG.info('Wrote the database log back into %s',
                     _shown(CONF.database.connection))

    def reset(self):
        pass


def carries_rpc_in_process(conf):
    """Whether [DEFAULT] transport_url is oslo.messaging's fake://."""
    url = messaging.TransportURL.parse(conf, conf.transport_url)
    return url.transport == 'fake'


def placement_defaults(conf):
    """Make the compute side report to this process's own /placement.

    Before the configuration is read: noauth2's admin token (the API's
    default here). A [placement] section of the configuration file
    (another auth_type, or its own token or endpoint) wins.
    """
    conf.register_opts(ks_loading.get_auth_plugin_conf_options(
        DEFAULT_PLACEMENT_AUTH), group='placement')
    conf.set_default('auth_type', DEFAULT_PLACEMENT_AUTH, group='placement')
    conf.set_default('token', DEFAULT_PLACEMENT_TOKEN, group='placement')


def placement_endpoint(conf):
    """After it is read: /placement of this process's own API address.

    Only for an API with noauth2: behind keystone, noauth2's token is no
    token, and the reporting is off unless [placement] says how to
    authenticate.
    """
    if (conf.placement.auth_type != DEFAULT_PLACEMENT_AUTH or
            conf.placement.endpoint_override):
        return
    if conf.api.auth_strategy != 'noauth2':
        if conf.placement.token == DEFAULT_PLACEMENT_TOKEN:
            conf.set_default('auth_type', None, group='placement')
        return
    host = conf.api.host
    # A wildcard address is reached on the loopback.
    host = {'0.0.0.0': '127.0.0.1', '::': '::1', '': '127.0.0.1'}.get(
        host, host)
    conf.set_default('endpoint_override', 'http://%s:%d/placement' % (
        netutils.escape_ipv6(host), conf.api.port), group='placement')


# What --help says the command does; the defaults are filled in.
DESCRIPTION = (
    'The API, the conductor and the compute service of this host in one '
    'process, for a laptop or a demo: the API on %(api)s ([api] host '
    'and port), in-process messaging, and the database %(database)s '
    '([database] connection), created or upgraded at start.')


def main(argv=None):
    zun_service.take_signals()
    CONF.set_default('transport_url', DEFAULT_TRANSPORT_URL)
    CONF.set_default('auth_strategy', DEFAULT_AUTH_STRATEGY, group='api')
    placement_defaults(CONF)
    zun_service.prepare_service(sys.argv if argv is None else argv,
                                description=DESCRIPTION)
    placement_endpoint(CONF)
    # The embedded SQLite database is created or upgraded on start.
    problem = None
    try:
        migration.upgrade('head')
    except Exception as err:
        LOG.debug('Upgrade failed', exc_info=True)
        problem = 'cannot create or upgrade the database %s: %s' % (
            _shown(CONF.database.connection), err)
    if problem:
        zun_service.startup_failure(BINARY, [problem])
    LOG.info('Database %s is at revision %s',
             _shown(CONF.database.connection), migration.version())
    db_api.block_access(compute.BINARY)
    api_service = api.create_service(wrap=_DatabaseOwner)
    conductor_service = conductor.create_service()
    conductor_api = None
    if carries_rpc_in_process(CONF):
        conductor_api = InProcessConductorAPI(conductor_service.manager)
    all_in_one = zun_service.ServiceGroup([
        conductor_service,
        compute.create_service(conductor_api=conductor_api),
        api_service,
        CheckpointAtStop()])
    return zun_service.serve(all_in_one, BINARY)


def _shown(connection):
    """The database URL without its password, for messages."""
    return sqlalchemy.engine.make_url(connection).render_as_string(
        hide_password=True)
