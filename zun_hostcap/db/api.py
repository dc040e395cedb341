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

"""The database API of the host objects, and the guard of the database.

The host objects (ComputeNode, Service) call the functions here; the
backend is chosen by ``[database] backend`` through oslo.db's DBAPI. A
database that cannot be reached surfaces as ``DatabaseUnavailable`` (503
in the API, an expected answer of the conductor), whatever the driver.
The objects of the resource provider model call their query modules
(``db/sqlalchemy/placement/``) directly, in the same enginefacade.

Processes that must not reach the database (the compute service) call
``block_access()`` at start; from then on every call here raises
``DBAccessForbidden``, and so does every connection any engine of the
enginefacade would hand out (``check_access()``, which
``db/sqlalchemy/api.py`` puts on every engine it makes): a Placement
object's query fails the same way. The exception is a thread that runs
conductor work (``conductor_scope()``), which only exists where a
conductor shares the process, as in zun-hostcap-all.
"""

import contextlib
import functools
import threading

from oslo_db import api as oslo_db_api
from oslo_db import exception as db_exc
from sqlalchemy import exc as sa_exc

from zun_hostcap.common import exception
import zun_hostcap.conf

_BACKEND_MAPPING = {'sqlalchemy': 'zun_hostcap.db.sqlalchemy.api'}


def is_unreachable(exc):
    """Whether ``exc`` says the database is down, not that a query is bad.

    oslo.db translates most drivers' connection errors into
    DBConnectionError; PostgreSQL's refused connections stay SQLAlchemy's
    OperationalError, which oslo.db leaves untranslated only when no
    connection could be made. A missing SQLite file or database, and a
    pool with no free connection, are as unavailable for a caller.
    """
    if isinstance(exc, (db_exc.DBConnectionError,
                        db_exc.DBNonExistentDatabase, sa_exc.TimeoutError,
                        sa_exc.OperationalError)):
        return True
    return (isinstance(exc, sa_exc.DBAPIError) and
            exc.connection_invalidated)


class _TranslatingDBAPI:
    """The backend, with an unreachable database as DatabaseUnavailable."""

    def __init__(self, backend):
        self._backend = backend

    def __getattr__(self, name):
        function = getattr(self._backend, name)
        if not callable(function):
            return function

        @functools.wraps(function)
        def call(*args, **kwargs):
            try:
                return function(*args, **kwargs)
            except Exception as err:
                if not is_unreachable(err):
                    raise
                raise exception.DatabaseUnavailable(
                    reason=exception.one_line(err)) from err
        # Wrapped once per function, not at every call.
        setattr(self, name, call)
        return call


IMPL = _TranslatingDBAPI(oslo_db_api.DBAPI.from_config(
    zun_hostcap.conf.CONF, backend_mapping=_BACKEND_MAPPING, lazy=True))


_scope = threading.local()


@contextlib.contextmanager
def conductor_scope():
    """Mark the calling thread as doing the conductor's work."""
    outer = getattr(_scope, 'conductor', False)
    _scope.conductor = True
    try:
        yield
    finally:
        _scope.conductor = outer


def in_conductor_scope():
    return getattr(_scope, 'conductor', False)


# The service whose database access is blocked; None: not blocked.
_blocked_for = None


def check_access(call):
    """Raise DBAccessForbidden if this thread must not reach the database.

    :param call: what was attempted, for the message.
    """
    service = _blocked_for
    if service is not None and not in_conductor_scope():
        raise exception.DBAccessForbidden(service=service, call=call)


class _GuardedDBAPI:
    """Stands in for the backend where the database is off limits."""

    def __init__(self, backend, service_name):
        self._backend = backend
        self._service_name = service_name

    def __getattr__(self, name):
        if in_conductor_scope():
            return getattr(self._backend, name)
        raise exception.DBAccessForbidden(service=self._service_name,
                                          call=name)


def block_access(service_name):
    """Make every database call of this process fail loudly.

    Calls made inside ``conductor_scope()`` still go through. Both the
    functions here and every connection of the enginefacade are blocked.
    """
    global IMPL, _blocked_for
    if not isinstance(IMPL, _GuardedDBAPI):
        IMPL = _GuardedDBAPI(IMPL, service_name)
        _blocked_for = service_name


def checkpoint_at_stop():
    """At a clean stop: a SQLite file that alone holds all the data.

    Called by the process that owns the database (zun-hostcap-all)
    once its services stopped; see ``checkpoint_sqlite``. Whether the
    log could be written back whole, None when not on SQLite.
    """
    # The owner's own file: both guards let this one through.
    with conductor_scope():
        return IMPL.checkpoint_sqlite()


def unblock_access():
    """Undo ``block_access()``; for tests."""
    global IMPL, _blocked_for
    if isinstance(IMPL, _GuardedDBAPI):
        IMPL = IMPL._backend
    _blocked_for = None


def compute_node_create(context, values):
    return IMPL.compute_node_create(context, values)


def compute_node_get(context, node_uuid):
    return IMPL.compute_node_get(context, node_uuid)


def compute_node_get_by_hostname(context, hostname):
    return IMPL.compute_node_get_by_hostname(context, hostname)


def compute_node_get_all(context, limit=None, marker=None, sort_key=None,
                         sort_dir=None, columns=None, json_text=False):
    """A page of compute node rows; of the named ``columns`` only, if given.

    A row has an attribute per column (and ``_asdict()``). With
    ``json_text``, the JSON columns (labels, runtimes, NUMA topology, PCI
    pools) hold their stored text, not its decoded value.
    """
    return IMPL.compute_node_get_all(context, limit=limit, marker=marker,
                                     sort_key=sort_key, sort_dir=sort_dir,
                                     columns=columns, json_text=json_text)


def compute_node_update(context, node_uuid, values):
    return IMPL.compute_node_update(context, node_uuid, values)


def compute_node_destroy(context, node_uuid):
    return IMPL.compute_node_destroy(context, node_uuid)


def service_create(context, values):
    return IMPL.service_create(context, values)


def service_get_by_host_and_binary(context, host, binary):
    return IMPL.service_get_by_host_and_binary(context, host, binary)


def service_get_all(context, disabled=None):
    return IMPL.service_get_all(context, disabled=disabled)


def service_get_minimum_version(context, binary, down_time):
    """The oldest version of the services of ``binary`` that are up.

    Of all of them when none is up; None when there is none.
    """
    return IMPL.service_get_minimum_version(context, binary, down_time)


def service_update(context, service_id, values):
    return IMPL.service_update(context, service_id, values)


def service_heartbeat(context, service_id):
    return IMPL.service_heartbeat(context, service_id)


def service_destroy(context, service_id):
    return IMPL.service_destroy(context, service_id)


def service_heartbeats(context, beats, now=None):
    """Record many heartbeats at once: {service id: beats received}.

    Returns the ids of ``beats`` that match no service.
    """
    return IMPL.service_heartbeats(context, beats, now=now)
