"""What every module of the resource provider model needs."""

import threading
import weakref

from oslo_db import api as oslo_db_api
from oslo_utils import timeutils
import sqlalchemy as sa

from zun_hostcap.common import exception
from zun_hostcap.db.sqlalchemy import api as sa_api
from zun_hostcap.db.sqlalchemy import models

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


# Deadlocks (MariaDB, PostgreSQL), SQLite's busy file and lost
# connections: the whole transaction again, a few times. Put outside the
# transaction decorator.
RETRY_OPTIONS = dict(max_retries=10, retry_on_deadlock=True,
                     retry_interval=0.02, inc_retry_interval=True,
                     max_retry_interval=0.5)


# Marks a function's transactions as ones that will write: on SQLite they
# take the file's write lock at BEGIN and wait for it, rather than be
# refused after their first read. The host slice's writers use the same.
writes = sa_api.writes


def retry_on_deadlock(function):
    """A writer, run again on deadlocks and SQLite's busy file.

    See ``RETRY_OPTIONS``; its transactions are marked as ``writes``.
    """
    return writes(oslo_db_api.wrap_db_retry(
        exception_checker=is_sqlite_busy, **RETRY_OPTIONS)(function))


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

# The largest generation plus one: the column is a signed 32-bit INT.
GENERATION_LIMIT = 2 ** 31 - 1


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
