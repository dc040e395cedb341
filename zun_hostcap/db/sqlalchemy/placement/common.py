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

"""What every module of the resource provider model needs."""

import threading
import time
import weakref

from oslo_db import api as oslo_db_api
from oslo_db import exception as db_exc
from oslo_log import log as logging
from oslo_utils import timeutils
import sqlalchemy as sa

from zun_hostcap.common import exception
from zun_hostcap.common import metrics
from zun_hostcap.db.sqlalchemy import api as sa_api
from zun_hostcap.db.sqlalchemy import models

LOG = logging.getLogger(__name__)

# The transaction context every function of the model runs in.
context_manager = sa_api.main_context_manager
reader = context_manager.reader
writer = context_manager.writer


def is_sqlite_busy(exc):
    """SQLite's "database is locked": another writer has the file.

    A transaction that read before it writes cannot wait for the lock
    (SQLite refuses at once rather than deadlock); run again, it can.
    """
    return 'database is locked' in str(exc)


# Deadlocks this process ran again (see count_deadlock).
_deadlocks = [0]
_deadlocks_lock = threading.Lock()


def count_deadlock(exc):
    """Whether ``exc`` is a deadlock, to run again; counted and logged.

    On MariaDB Galera a COMMIT that loses certification against a write
    certified first on another node comes back as a deadlock: the count
    is how often writers of this process met one (or a local deadlock).
    The last attempt's, if retries run out, is counted as well.
    """
    if not isinstance(exc, db_exc.DBDeadlock):
        return False
    with _deadlocks_lock:
        _deadlocks[0] += 1
        total = _deadlocks[0]
    metrics.count_db_deadlock()
    LOG.info('Deadlock or Galera certification conflict, running the '
             'transaction again (%(total)d in this process so far): '
             '%(error)s', {'total': total, 'error': exception.one_line(exc)})
    return True


def retry_checker(also):
    """An ``exception_checker`` of oslo.db's retry: deadlocks, ``also``.

    Deadlocks are counted (``count_deadlock``): oslo.db's own
    ``retry_on_deadlock`` would retry them without a word.
    """
    def checker(exc):
        return count_deadlock(exc) or also(exc)
    return checker


# Deadlocks (MariaDB, PostgreSQL; Galera's certification conflicts) and
# SQLite's busy file: the whole transaction again, a few times. Put
# outside the transaction decorator, with an exception checker of
# retry_checker, which retries and counts the deadlocks.
RETRY_OPTIONS = dict(max_retries=10,
                     retry_interval=0.02, inc_retry_interval=True,
                     max_retry_interval=0.5)


# Marks a function's transactions as ones that will write: on SQLite they
# take the file's write lock at BEGIN and wait for it, rather than be
# refused after their first read. The host slice's writers use the same.
writes = sa_api.writes


def retry_on_deadlock(function, also=None):
    """A writer, run again on deadlocks and SQLite's busy file.

    See ``RETRY_OPTIONS``; its transactions are marked as ``writes``.
    ``also``: a test of the other exceptions it is run again on.
    """
    def retried(exc):
        return is_sqlite_busy(exc) or (also is not None and also(exc))
    return writes(oslo_db_api.wrap_db_retry(
        exception_checker=retry_checker(retried),
        **RETRY_OPTIONS)(function))


class PerEngine(object):
    """A memory of what one database holds, one per database engine.

    ``make()`` gives the empty memory of a database the first time it is
    asked for; ``get()`` the memory of the database in use. A test's
    throw-away database leaves with its engine.
    """

    def __init__(self, make):
        self._make = make
        self._lock = threading.Lock()
        self._by_engine = weakref.WeakKeyDictionary()

    def get(self):
        engine = context_manager.writer.get_engine()
        memory = self._by_engine.get(engine)
        if memory is None:
            with self._lock:
                memory = self._by_engine.setdefault(engine, self._make())
        return memory


class _Names:
    """What one database holds: names -> ids and back."""

    def __init__(self):
        self.lock = threading.RLock()
        self.synced = False
        self.ids = {}
        self.names = {}

    def add(self, rows):
        with self.lock:
            for id_, name in rows:
                self.ids[name] = id_
                self.names[id_] = name


class NameCache:
    """Names <-> ids of a table of names, per database, synced once.

    ``standard_rows()`` gives the rows to insert for the standard names
    (dicts); ``is_custom(name, id)`` tells the rows that may change.
    """

    def __init__(self, table, standard_rows, is_custom, what):
        self.table = table
        self.standard_rows = standard_rows
        self.is_custom = is_custom
        self.what = what
        self._names = PerEngine(_Names)

    def ensure(self, context):
        """Sync the standard names; the cache, or None if not usable.

        None when the sync ran in the caller's SQLite transaction: that
        one may still roll back, so nothing of it is remembered.
        """
        entry = self._names.get()
        if entry.synced:
            return entry
        with entry.lock:
            if entry.synced:
                return entry
            session = _shared_sqlite_session(context)
            if session is not None:
                # SQLite locks the whole file: a second connection could
                # not write before the caller's transaction ends.
                self._insert_missing(session)
                return None
            rows = self._sync(context)
            self._remember(entry, rows)
            entry.synced = True
        return entry

    def _sync(self, context):
        for attempt in range(10):
            try:
                return _sync_independent(context, self)
            except db_exc.DBDuplicateEntry:
                # Another process synchronised the same names at the
                # same time: read what it wrote.
                LOG.debug('Concurrent sync of %s, attempt %d',
                          self.what, attempt + 1)
            except sa.exc.OperationalError as exc:
                # SQLite: two transactions that both read and then want
                # to write; one of them is refused at once. Again.
                if 'database is locked' not in str(exc):
                    raise
                time.sleep(0.02 * (attempt + 1))
        return _sync_independent(context, self)

    def _insert_missing(self, session):
        present = {row[0] for row in session.execute(
            sa.select(self.table.c.name))}
        rows = [row for row in self.standard_rows()
                if row['name'] not in present]
        if not rows:
            return
        # No timestamps: a standard name has always been there (and
        # answers Last-Modified: now, as in Placement).
        for row in rows:
            row['created_at'] = None
        connection = session.connection()
        if connection.dialect.name == 'mysql' and 'id' in rows[0]:
            # Id 0 (VCPU) must be stored as 0, not as the next
            # auto-increment value.
            mode = connection.execute(
                sa.text('SELECT @@SESSION.sql_mode')).scalar()
            connection.execute(sa.text(
                "SET SESSION sql_mode = "
                "CONCAT_WS(',', @@SESSION.sql_mode, "
                "'NO_AUTO_VALUE_ON_ZERO')"))
            try:
                session.execute(self.table.insert(), rows)
            finally:
                connection.execute(sa.text('SET SESSION sql_mode = :mode'),
                                   {'mode': mode})
        else:
            session.execute(self.table.insert(), rows)
        LOG.debug('Synchronised %d standard %s', len(rows), self.what)

    def _remember(self, entry, rows):
        """Cache the standard names of ``rows``.

        Not the custom ones: another process may change them at any time.
        """
        if entry is not None:
            entry.add([(id_, name) for id_, name in rows
                       if not self.is_custom(name, id_)])

    def forget(self):
        """Drop the custom names (after one was deleted or renamed)."""
        entry = self._names.get()
        with entry.lock:
            ids = {name: id_ for name, id_ in entry.ids.items()
                   if not self.is_custom(name, id_)}
            entry.ids = ids
            entry.names = {id_: name for name, id_ in ids.items()}

    def ids_for_names(self, context, names):
        entry = self.ensure(context)
        names = set(names)
        found = {}
        if entry is not None:
            ids = entry.ids
            found = {name: ids[name] for name in names if name in ids}
        missing = names.difference(found)
        if missing:
            rows = _select(context, self.table,
                           self.table.c.name.in_(sorted(missing)))
            self._remember(entry, rows)
            found.update((name, id_) for id_, name in rows)
        return found

    def names_for_ids(self, context, ids):
        entry = self.ensure(context)
        ids = set(ids)
        found = {}
        if entry is not None:
            names = entry.names
            found = {id_: names[id_] for id_ in ids if id_ in names}
        missing = ids.difference(found)
        if missing:
            rows = _select(context, self.table,
                           self.table.c.id.in_(sorted(missing)))
            self._remember(entry, rows)
            found.update(rows)
        return found


def _shared_sqlite_session(context):
    """The caller's SQLite session, if called in a transaction on one."""
    try:
        transaction = context.transaction_ctx
    except db_exc.NoEngineContextEstablished:
        return None
    session = transaction.session
    if session is None or session.get_bind().dialect.name != 'sqlite':
        return None
    return session


@retry_on_deadlock
@writer.independent
def _sync_independent(context, cache):
    cache._insert_missing(context.session)
    return [tuple(row) for row in context.session.execute(
        sa.select(cache.table.c.id, cache.table.c.name))]


@reader
def _select(context, table, where):
    return [tuple(row) for row in context.session.execute(
        sa.select(table.c.id, table.c.name).where(where))]


RP = models.ResourceProvider.__table__

PROVIDER_COLUMNS = (RP.c.id, RP.c.uuid, RP.c.name, RP.c.generation,
                    RP.c.root_provider_id, RP.c.parent_provider_id,
                    RP.c.created_at, RP.c.updated_at)


# The statements of the busiest paths are built once, with bound
# parameters (``expanding`` ones for lists): building a statement costs
# more than running a compiled one from SQLAlchemy's cache.
_PROVIDER_BY_UUID = sa.select(*PROVIDER_COLUMNS).where(
    RP.c.uuid == sa.bindparam('uuid'))


def _bump_generation(column, name):
    """The compare-and-swap of a generation, the row found by ``column``."""
    return (RP.update()
            .where(column == sa.bindparam(name),
                   RP.c.generation == sa.bindparam('expected'))
            .values(generation=sa.bindparam('new_generation'),
                    updated_at=sa.bindparam('now')))


_BUMP_GENERATION = _bump_generation(RP.c.id, 'provider_id')
_BUMP_GENERATION_BY_UUID = _bump_generation(RP.c.uuid, 'provider_uuid')

# The largest value of an INT column (signed 32 bits).
MAX_INT = 2 ** 31 - 1

# The largest generation plus one: the column is an INT.
GENERATION_LIMIT = MAX_INT

# Ids sent in one IN (...) at most; longer lists go in several
# statements (SQLite takes 32,766 bound values a statement).
IN_CHUNK = 5000


def chunks(ids):
    """``ids`` sorted, in lists of IN_CHUNK at most."""
    ids = sorted(ids)
    for start in range(0, len(ids), IN_CHUNK):
        yield ids[start:start + IN_CHUNK]


def id_range(ids):
    """(first, last, holes) where ``ids`` are most of a range, else None.

    ``ids`` sorted and distinct; ``holes``: the ids of the range from the
    first to the last that are not in ``ids``. A cloud's providers are
    created one after the other, so the providers of its many candidates
    (or their roots) are mostly such a range: sent as its ends and its
    few holes, not as every id.
    """
    if len(ids) > 2:
        low, high = ids[0], ids[-1]
        if high - low + 1 < 2 * len(ids):
            wanted = set(ids)
            return low, high, [rp for rp in range(low + 1, high)
                               if rp not in wanted]
    return None


def in_ids(column, ids):
    """``column IN ids``, for ``ids`` sorted and distinct, as sent.

    Where the ids are most of a range (``id_range``), the range less
    its holes: ``BETWEEN`` and a short ``NOT IN``. Each id bound is some
    1.5 microseconds of Python for SQLAlchemy and PyMySQL: on MariaDB
    the summaries of 1,010 providers with ids 1 to 1,010 took 12.6 to
    13.5 ms with their IN list, 10.7 to 11.0 so (round 7 of the
    benchmark guide).
    """
    found = id_range(ids)
    if found is None:
        return column.in_(ids)
    low, high, holes = found
    return sa.and_(column.between(low, high), column.not_in(holes))


def provider_row(context, uuid):
    """The provider's row (PROVIDER_COLUMNS), in the caller's transaction.

    :raises ResourceProviderNotFound: no provider has ``uuid``.
    """
    row = context.session.execute(_PROVIDER_BY_UUID, {'uuid': uuid}).first()
    if row is None:
        raise exception.ResourceProviderNotFound(uuid=uuid)
    return row


def increment_generation(context, provider_id, expected, uuid=None):
    """Bump a provider's generation if it is still ``expected``.

    Compare-and-swap in one UPDATE, in the caller's transaction: a
    concurrent writer that bumped it first makes this one fail, and the
    whole transaction is rolled back.

    :returns: the new generation.
    :raises ResourceProviderConcurrentUpdate: the generation moved.
    """
    result = context.session.execute(_BUMP_GENERATION, {
        'provider_id': provider_id, 'expected': expected,
        'new_generation': expected + 1, 'now': timeutils.utcnow()})
    if result.rowcount != 1:
        raise exception.ResourceProviderConcurrentUpdate(
            uuid=uuid or provider_id)
    return expected + 1


def claim_generation(context, uuid, expected):
    """Bump the generation of provider ``uuid`` if it is still ``expected``.

    ``increment_generation`` for a writer that was given the generation
    it expects: one statement where reading the row first would take
    two. The row is then locked until the caller's transaction ends.

    :returns: the new generation.
    :raises ResourceProviderNotFound: no provider has ``uuid``.
    :raises ResourceProviderConcurrentUpdate: its generation is not
        ``expected``.
    """
    # A generation is an INT column: one outside it matches no row, and
    # does not fit in the statement (SQLite refuses, MariaDB warns).
    result = None
    if 0 <= expected < GENERATION_LIMIT:
        result = context.session.execute(_BUMP_GENERATION_BY_UUID, {
            'provider_uuid': uuid, 'expected': expected,
            'new_generation': expected + 1, 'now': timeutils.utcnow()})
    if result is None or result.rowcount != 1:
        provider_row(context, uuid)
        raise exception.ResourceProviderConcurrentUpdate(uuid=uuid)
    return expected + 1


class WriteReport(object):
    """What a write changed, for the notification that announces it.

    A writer given one fills it in, in its transaction (again at each
    attempt); its caller reads it once the write is committed.
    ``changed`` is False for a write that left everything as it was;
    ``state`` is what the writer documents: the state after the write,
    or, for allocations, what the consumers held before it.
    """

    def __init__(self):
        self.changed = False
        self.state = None
