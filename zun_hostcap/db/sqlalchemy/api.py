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

"""SQLAlchemy implementation of the database API.

Each public function is one transaction of oslo.db's enginefacade; the
context passed in carries it.
"""

import contextlib
import datetime
import functools
import os
import sys
import threading
import types
import weakref

from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import enginefacade
from oslo_db.sqlalchemy import types as db_types
from oslo_db.sqlalchemy import utils as db_utils
from oslo_utils import timeutils
from oslo_utils import uuidutils
import sqlalchemy as sa

from zun_hostcap.common import exception
from zun_hostcap.db import api as db_api
from zun_hostcap.db.sqlalchemy import models

# How long a SQLite connection waits for another one's write lock before
# "database is locked" (pysqlite's own default is 5 s).
SQLITE_BUSY_TIMEOUT_MS = 30000


# The engines of SQLite files this process opened (checkpoint_sqlite).
_SQLITE_FILES = weakref.WeakSet()

# Set on a thread while it runs transactions that will write.
_WRITE_LOCK_FIRST = threading.local()


@contextlib.contextmanager
def write_lock_first():
    """On SQLite, the transactions begun here take the write lock at BEGIN.

    A deferred BEGIN (SQLite's default, and oslo.db's) takes the lock at
    the first write. A transaction that read first and finds, when it
    comes to write, that another writer committed since its read, cannot
    wait: it is refused at once ("database is locked") and must be run
    again. With BEGIN IMMEDIATE it waits for the lock (busy_timeout)
    before reading anything. For transactions that will write only:
    readers keep reading beside a writer. Other engines are unaffected.
    """
    previous = getattr(_WRITE_LOCK_FIRST, 'active', False)
    _WRITE_LOCK_FIRST.active = True
    try:
        yield
    finally:
        _WRITE_LOCK_FIRST.active = previous


def writes(function):
    """Mark ``function``'s transactions as ones that will write.

    Put above the transaction decorator: on SQLite the transaction takes
    the file's write lock at BEGIN and waits for it
    (``write_lock_first``), so concurrent writers run one after the
    other instead of failing with "database is locked".
    """
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        with write_lock_first():
            return function(*args, **kwargs)
    return wrapper


def configure_sqlite(engine):
    """A SQLite file in WAL mode, for several processes writing at once.

    In the default rollback-journal mode a writer locks readers out and
    every commit syncs the disk three times. With a write-ahead log
    readers and one writer go on together, a commit appends to the log,
    and with synchronous=NORMAL the log is synced at checkpoints: a
    power cut can lose the last commits, never the file's integrity
    (SQLite's documented guarantee for WAL). [database]
    sqlite_synchronous = False (oslo.db's option) still turns syncing
    off altogether. Other engines are left as they are.
    """
    if engine.dialect.name != 'sqlite':
        return
    database = engine.url.database
    in_memory = not database or database == ':memory:' or (
        engine.url.query.get('mode') == 'memory')
    if not in_memory:
        _SQLITE_FILES.add(engine)

    # oslo.db replaces SQLAlchemy's QueuePool of a SQLite file with a
    # NullPool and has no option to keep it. With a NullPool each request
    # closes the file's last connection, which checkpoints and deletes the
    # log: so the pool SQLAlchemy would have made, from the same creator
    # and with the same events, as Pool.recreate() builds its copy.
    if not in_memory and isinstance(engine.pool, sa.pool.NullPool):
        old = engine.pool
        engine.pool = sa.pool.QueuePool(
            old._creator, recycle=old._recycle, pre_ping=old._pre_ping,
            dialect=old._dialect, _dispatch=old.dispatch)

    def _begin_immediate(conn):
        if (getattr(_WRITE_LOCK_FIRST, 'active', False) and
                'in_transaction' not in conn.info):
            conn.exec_driver_sql('BEGIN IMMEDIATE')
            conn.info['in_transaction'] = True

    # Ours must run before oslo.db's own listener, which emits a plain
    # BEGIN unless the connection is marked as in a transaction (and
    # clears the mark at commit and rollback): the listeners there are
    # taken off and put back after ours (insert=True does not reorder
    # an engine's listeners).
    earlier = list(engine.dispatch.begin)
    for listener in earlier:
        sa.event.remove(engine, 'begin', listener)
    sa.event.listen(engine, 'begin', _begin_immediate)
    for listener in earlier:
        sa.event.listen(engine, 'begin', listener)

    @sa.event.listens_for(engine, 'connect')
    def _pragmas(dbapi_connection, connection_record):
        dbapi_connection.execute(
            'PRAGMA busy_timeout = %d' % SQLITE_BUSY_TIMEOUT_MS)
        if in_memory:
            return
        mode = dbapi_connection.execute(
            'PRAGMA journal_mode = WAL').fetchone()[0]
        if mode == 'wal' and dbapi_connection.execute(
                'PRAGMA synchronous').fetchone()[0] > 1:
            dbapi_connection.execute('PRAGMA synchronous = NORMAL')


# GROUP_CONCAT cuts a value longer than group_concat_max_len, with only
# a warning: MySQL's default is 1 kB, MariaDB's 1 MiB. The statements
# that join many texts into one value (the provider list, the /metrics
# figures) keep each value well under 16 MiB.
MYSQL_GROUP_CONCAT_MAX_LEN = 16 * 1024 * 1024


def configure_mysql(engine):
    """Each MariaDB/MySQL connection may join texts of up to 16 MiB.

    Set when the connection is made, so that no statement of a request
    pays for it. Other engines are left as they are.
    """
    if engine.dialect.name != 'mysql':
        return

    @sa.event.listens_for(engine, 'connect')
    def _group_concat_limit(dbapi_connection, connection_record):
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute('SET SESSION group_concat_max_len = %d' %
                           MYSQL_GROUP_CONCAT_MAX_LEN)
        finally:
            cursor.close()
        # What the provider list looks for before it sets the limit.
        connection_record.info['zun_hostcap_group_concat'] = True


def guard_connections(engine):
    """Refuse ``engine``'s connections where the database is blocked.

    Every transaction of the enginefacade takes a connection from its
    engine's pool first: where ``db_api.block_access()`` was called, one
    outside ``conductor_scope()`` fails there with DBAccessForbidden,
    before any statement, whichever module made the query.
    """
    @sa.event.listens_for(engine, 'checkout')
    def _check_access(dbapi_connection, connection_record, proxy):
        db_api.check_access('a connection to the database')


# Engine options of ours. Without eventlet (native threads only) the
# sleep(0) oslo.db adds at each connection check-in, there to let green
# threads run, only costs time: ~60 us a transaction.
ENGINE_OPTIONS = {'thread_checkin': False}

# What each engine is given when it is made, in every enginefacade of
# ours (the tests' too).
ON_ENGINE_CREATE = (configure_sqlite, configure_mysql, guard_connections)

main_context_manager = enginefacade.transaction_context()
main_context_manager.configure(**ENGINE_OPTIONS)
for _hook in ON_ENGINE_CREATE:
    main_context_manager.append_on_engine_create(_hook)

# Columns the hosts list can be sorted by; the rest are JSON or not useful.
COMPUTE_NODE_SORT_KEYS = (
    'id', 'uuid', 'hostname', 'cpus', 'cpu_used', 'mem_total', 'mem_free',
    'mem_available', 'mem_used', 'total_containers', 'running_containers',
    'paused_containers', 'stopped_containers', 'architecture', 'os_type',
    'os', 'kernel_version', 'disk_total', 'disk_used', 'created_at',
    'updated_at')


def get_backend():
    """The backend module for oslo_db.api.DBAPI."""
    return sys.modules[__name__]


def get_engine():
    return main_context_manager.writer.get_engine()


def checkpoint_sqlite():
    """Write SQLite's write-ahead log back into the file, and close.

    For a clean stop: the file alone then holds every commit, and a
    copy of it is the data. The log is emptied (``TRUNCATE``) and the
    pool's connections closed. Nothing on other engines, or on a
    database this process never opened.

    :returns: None if there is nothing to do; else whether the log was
        written back whole (False: another process was using it).
    """
    engines = [engine for engine in list(_SQLITE_FILES)
               if os.path.exists(engine.url.database)]
    if not engines:
        return None
    whole = True
    for engine in engines:
        # A DB-API connection outside any transaction: SQLite refuses a
        # checkpoint inside one.
        connection = engine.raw_connection()
        try:
            busy, _frames, _written = connection.driver_connection.execute(
                'PRAGMA wal_checkpoint(TRUNCATE)').fetchone()
        finally:
            connection.close()
        engine.dispose()
        whole = whole and not busy
    return whole


def _paginate(query, model, limit, marker, sort_key, sort_dir,
              tie_breaker='uuid'):
    """One page of ``query``; ``sort_key`` is a checked column name."""
    sort_keys = [sort_key]
    if tie_breaker != sort_key:
        sort_keys.append(tie_breaker)
    query = db_utils.paginate_query(query, model, limit, sort_keys,
                                    marker=marker, sort_dir=sort_dir or 'asc')
    # Its statement in Core: the rows as the cursor makes them, without
    # the ORM's loading of a row per column query (a tenth of a thousand
    # hosts' read).
    return query.session.execute(query.statement).all()


# Compute nodes

@writes
@main_context_manager.writer
def compute_node_create(context, values):
    values = dict(values)
    values.setdefault('uuid', uuidutils.generate_uuid())
    node = models.ComputeNode()
    node.update(values)
    try:
        context.session.add(node)
        context.session.flush()
    except db_exc.DBDuplicateEntry as err:
        field = 'hostname' if 'hostname' in (err.columns or []) else 'uuid'
        raise exception.ComputeNodeAlreadyExists(field=field,
                                                 value=values.get(field))
    return node


def _compute_node_query(context):
    return context.session.query(models.ComputeNode)


def _compute_node_rows(context, columns=None, json_text=False):
    """The rows as rows, not ORM instances: a column per attribute.

    Of the named ``columns`` only, if given; with ``json_text``, the JSON
    columns as their stored text. For reads: loading a thousand rows
    into the ORM's identity map costs several times the query.
    """
    table = models.ComputeNode.__table__
    selected = (table.columns if columns is None
                else [table.c[name] for name in columns])
    if json_text:
        selected = [
            sa.type_coerce(column, sa.Text).label(column.name)
            if isinstance(column.type, db_types.JsonEncodedType) else column
            for column in selected]
    return context.session.query(*selected)


def _compute_node_row(context, **where):
    """The one row matching ``where`` (column=value), or None; Core."""
    table = models.ComputeNode.__table__
    return context.session.execute(sa.select(table).where(*[
        table.c[name] == value for name, value in where.items()])).first()


@main_context_manager.reader
def compute_node_get(context, node_uuid):
    node = _compute_node_row(context, uuid=node_uuid)
    if node is None:
        raise exception.ComputeNodeNotFound(compute_node=node_uuid)
    return node


@main_context_manager.reader
def compute_node_get_by_hostname(context, hostname):
    node = _compute_node_row(context, hostname=hostname)
    if node is None:
        raise exception.ComputeNodeNotFound(compute_node=hostname)
    return node


@main_context_manager.reader
def compute_node_get_all(context, limit=None, marker=None, sort_key=None,
                         sort_dir=None, columns=None, json_text=False):
    """A page of rows; of the named ``columns`` only, if given.

    With ``json_text``, the JSON columns are their stored text, for a
    caller that decodes each distinct text once.
    """
    if sort_key is not None and sort_key not in COMPUTE_NODE_SORT_KEYS:
        raise exception.InvalidSortKey(
            key=sort_key, allowed=', '.join(COMPUTE_NODE_SORT_KEYS))
    marker_node = None
    if marker is not None:
        marker_node = _compute_node_query(context).filter_by(
            uuid=marker).first()
        if marker_node is None:
            raise exception.MarkerNotFound(marker=marker)
    sort_key = sort_key or 'hostname'
    return _paginate(_compute_node_rows(context, columns, json_text),
                     models.ComputeNode, limit, marker_node, sort_key,
                     sort_dir)


@writes
@main_context_manager.writer
def compute_node_update(context, node_uuid, values):
    """Write the ``values`` that differ from the row; the row after.

    In SQLAlchemy Core, not the ORM: the conductor runs it for every
    save of every host, and the ORM's load and flush cost several times
    the statements. As the ORM did, only the columns whose value changes
    are written (none: no UPDATE), and updated_at moves when one is.
    The row comes back as an object with an attribute per column.
    """
    table = models.ComputeNode.__table__
    row = _compute_node_row(context, uuid=node_uuid)
    if row is None:
        raise exception.ComputeNodeNotFound(compute_node=node_uuid)
    current = row._asdict()
    changed = {name: value for name, value in values.items()
               if current[name] != value}
    if changed:
        changed.setdefault('updated_at', timeutils.utcnow())
        try:
            context.session.execute(
                table.update().where(table.c.id == row.id).values(changed))
        except db_exc.DBDuplicateEntry:
            raise exception.ComputeNodeAlreadyExists(
                field='hostname', value=values.get('hostname'))
        current.update(changed)
    return types.SimpleNamespace(**current)


@writes
@main_context_manager.writer
def compute_node_destroy(context, node_uuid):
    count = _compute_node_query(context).filter_by(
        uuid=node_uuid).delete(synchronize_session=False)
    if not count:
        raise exception.ComputeNodeNotFound(compute_node=node_uuid)


# Services

def _service_query(context):
    return context.session.query(models.Service)


@writes
@main_context_manager.writer
def service_create(context, values):
    service = models.Service()
    service.update(values)
    try:
        context.session.add(service)
        context.session.flush()
    except db_exc.DBDuplicateEntry:
        raise exception.ServiceAlreadyExists(host=values.get('host'),
                                             binary=values.get('binary'))
    return service


@main_context_manager.reader
def service_get_by_host_and_binary(context, host, binary):
    service = _service_query(context).filter_by(
        host=host, binary=binary).first()
    if service is None:
        raise exception.ServiceNotFound(host=host, binary=binary)
    return service


@main_context_manager.reader
def service_get_all(context, disabled=None):
    query = _service_query(context)
    if disabled is not None:
        query = query.filter_by(disabled=disabled)
    return query.order_by(models.Service.host,
                          models.Service.binary).all()


@main_context_manager.reader
def service_get_minimum_version(context, binary, down_time):
    """The oldest ``version`` of the services of ``binary`` that are up.

    Up as ``/v1/services`` shows it: seen in the last ``down_time``
    seconds and not forced down. None up: the oldest of them all; no
    service of ``binary``: None.
    """
    service = models.Service
    versions = context.session.query(sa.func.min(sa.func.coalesce(
        models.ServiceVersion.version, 0))).select_from(service).outerjoin(
            service.release).filter(service.binary == binary)
    seen = sa.func.coalesce(service.last_seen_up, service.updated_at,
                            service.created_at)
    up = versions.filter(
        seen >= timeutils.utcnow() - datetime.timedelta(seconds=down_time),
        sa.not_(service.forced_down)).scalar()
    return up if up is not None else versions.scalar()


@writes
@main_context_manager.writer
def service_update(context, service_id, values):
    service = _service_query(context).filter_by(id=service_id).first()
    if service is None:
        raise exception.ServiceIdNotFound(service_id=service_id)
    service.update(values)
    context.session.flush()
    return service


@writes
@main_context_manager.writer
def service_heartbeat(context, service_id):
    """Count one more report and stamp the time, in one UPDATE."""
    now = timeutils.utcnow()
    count = _service_query(context).filter_by(id=service_id).update(
        {'report_count': models.Service.report_count + 1,
         'last_seen_up': now, 'updated_at': now},
        synchronize_session=False)
    if not count:
        raise exception.ServiceIdNotFound(service_id=service_id)
    return _service_query(context).filter_by(id=service_id).one()


# Services per UPDATE of service_heartbeats: SQLite before 3.32 takes
# at most 999 bound parameters in a statement.
HEARTBEAT_IDS_PER_STATEMENT = 900


def _id_chunks(ids):
    """``ids`` in slices small enough for one statement."""
    for start in range(0, len(ids), HEARTBEAT_IDS_PER_STATEMENT):
        yield ids[start:start + HEARTBEAT_IDS_PER_STATEMENT]


@writes
@main_context_manager.writer
def service_heartbeats(context, beats, now=None):
    """Count the heartbeats of many services and stamp them ``now``.

    One UPDATE for all the services that sent the same number of beats
    (in practice, one): a thousand services cost one statement and one
    commit, not a thousand.
    """
    now = now or timeutils.utcnow()
    by_count = {}
    for service_id, count in beats.items():
        by_count.setdefault(count, []).append(service_id)
    updated = 0
    for count, ids in sorted(by_count.items()):
        # In id order, as every writer of several rows should lock them.
        ids.sort()
        for chunk in _id_chunks(ids):
            updated += _service_query(context).filter(
                models.Service.id.in_(chunk)).update(
                {'report_count': models.Service.report_count + count,
                 'last_seen_up': now, 'updated_at': now},
                synchronize_session=False)
    if updated == len(beats):
        return []
    # Rare (a service deleted while it runs): find which ids those were.
    ids = sorted(beats)
    known = set()
    for chunk in _id_chunks(ids):
        known.update(row.id for row in context.session.query(
            models.Service.id).filter(models.Service.id.in_(chunk)))
    return sorted(set(ids) - known)


@writes
@main_context_manager.writer
def service_destroy(context, service_id):
    # SQLite applies no ON DELETE CASCADE here (no foreign_keys pragma).
    context.session.query(models.ServiceVersion).filter_by(
        service_id=service_id).delete(synchronize_session=False)
    count = _service_query(context).filter_by(id=service_id).delete(
        synchronize_session=False)
    if not count:
        raise exception.ServiceIdNotFound(service_id=service_id)
