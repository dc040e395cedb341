"""Resource classes: the standard ones and CUSTOM_* ones.

The standard classes are rows too, written into the table the first time
this process uses a database (``ensure_standard``), with their index in
os-resource-classes as id, as Placement numbers them; custom classes take
ids from 10000 on.

Standard names and ids are cached in the process, per database: they
never change. Custom ones are looked up in the database every time,
because another API process may create, rename or delete them.
"""

import threading
import time

import os_resource_classes as orc
from oslo_db import exception as db_exc
from oslo_log import log as logging
from oslo_utils import timeutils
import sqlalchemy as sa

from zun_hostcap.common import exception
from zun_hostcap.db.sqlalchemy import models
from zun_hostcap.db.sqlalchemy.placement import common

LOG = logging.getLogger(__name__)

RC = models.ResourceClass.__table__
INV = models.Inventory.__table__
ALLOC = models.Allocation.__table__

CUSTOM_PREFIX = orc.CUSTOM_NAMESPACE
MIN_CUSTOM_ID = 10000
STANDARDS = tuple(orc.STANDARDS)
_STANDARD_SET = frozenset(STANDARDS)

COLUMNS = (RC.c.id, RC.c.name, RC.c.created_at, RC.c.updated_at)


def is_standard(name):
    return name in _STANDARD_SET


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
        self._names = common.PerEngine(_Names)

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


@common.retry_on_deadlock
@common.writer.independent
def _sync_independent(context, cache):
    cache._insert_missing(context.session)
    return [tuple(row) for row in context.session.execute(
        sa.select(cache.table.c.id, cache.table.c.name))]


@common.reader
def _select(context, table, where):
    return [tuple(row) for row in context.session.execute(
        sa.select(table.c.id, table.c.name).where(where))]


def _standard_rows():
    return [{'id': index, 'name': name}
            for index, name in enumerate(STANDARDS)]


def _is_custom(name, id_):
    return id_ >= MIN_CUSTOM_ID


CACHE = NameCache(RC, _standard_rows, _is_custom, 'resource classes')


def ensure_standard(context):
    """Write the standard classes missing from the database, once."""
    CACHE.ensure(context)


def ids_for_names(context, names):
    """{name: id} of resource classes.

    :raises ResourceClassNotFound: one of ``names`` does not exist.
    """
    found = CACHE.ids_for_names(context, names)
    if len(found) != len(set(names)):
        missing = sorted(set(names).difference(found))
        raise exception.ResourceClassNotFound(name=missing[0])
    return found


def id_for_name(context, name):
    """The id of resource class ``name``.

    :raises ResourceClassNotFound: it does not exist.
    """
    return ids_for_names(context, (name,))[name]


def names_for_ids(context, ids):
    """{id: name} of resource classes.

    :raises ResourceClassNotFound: one of ``ids`` does not exist.
    """
    found = CACHE.names_for_ids(context, ids)
    if len(found) != len(set(ids)):
        missing = sorted(set(ids).difference(found))
        raise exception.ResourceClassNotFound(name=missing[0])
    return found


# The routes of /resource_classes.

def _row(row):
    return dict(row._mapping)


@common.reader
def _get_all(context):
    return [_row(row) for row in context.session.execute(
        sa.select(*COLUMNS).order_by(RC.c.id))]


def get_all(context):
    """Every resource class, standard ones first, as dicts."""
    ensure_standard(context)
    return _get_all(context)


@common.reader
def _get_by_name(context, name):
    row = context.session.execute(
        sa.select(*COLUMNS).where(RC.c.name == name)).first()
    if row is None:
        raise exception.ResourceClassNotFound(name=name)
    return _row(row)


def get_by_name(context, name):
    """The class ``name`` as a dict (id, name, created_at, updated_at).

    :raises ResourceClassNotFound: there is none.
    """
    ensure_standard(context)
    return _get_by_name(context, name)


@common.retry_on_deadlock
@common.writer
def _insert(context, name):
    next_id = context.session.execute(
        sa.select(sa.func.max(RC.c.id))).scalar()
    next_id = max(MIN_CUSTOM_ID, (next_id or 0) + 1)
    values = {'id': next_id, 'name': name,
              'created_at': timeutils.utcnow()}
    context.session.execute(RC.insert().values(**values))
    values['updated_at'] = None
    return values


def create(context, name):
    """Create the custom class ``name``; its dict.

    :raises ResourceClassExists: it exists already.
    """
    ensure_standard(context)
    if is_standard(name):
        raise exception.ResourceClassExists(name=name)
    for attempt in range(20):
        try:
            return _insert(context, name)
        except db_exc.DBDuplicateEntry:
            # The name is taken, or another writer took the same next
            # id: the name tells.
            try:
                _get_by_name(context, name)
            except exception.ResourceClassNotFound:
                continue
            raise exception.ResourceClassExists(name=name)
    raise exception.ResourceClassExists(name=name)


@common.retry_on_deadlock
@common.writer
def _rename(context, name, new_name):
    row = context.session.execute(
        sa.select(RC.c.id).where(RC.c.name == name)).first()
    if row is None:
        raise exception.ResourceClassNotFound(name=name)
    if row.id < MIN_CUSTOM_ID:
        raise exception.ResourceClassCannotUpdateStandard(name=name)
    if new_name != name:
        try:
            context.session.execute(
                RC.update().where(RC.c.id == row.id)
                .values(name=new_name, updated_at=timeutils.utcnow()))
        except db_exc.DBDuplicateEntry:
            raise exception.ResourceClassExists(name=new_name)
    return _row(context.session.execute(
        sa.select(*COLUMNS).where(RC.c.id == row.id)).one())


def update(context, name, new_name):
    """Rename the custom class ``name``; its new dict.

    :raises ResourceClassNotFound: there is no class ``name``.
    :raises ResourceClassCannotUpdateStandard: ``name`` is standard.
    :raises ResourceClassExists: ``new_name`` is taken.
    """
    ensure_standard(context)
    try:
        return _rename(context, name, new_name)
    finally:
        CACHE.forget()


@common.retry_on_deadlock
@common.writer
def _delete(context, name):
    row = context.session.execute(
        sa.select(RC.c.id).where(RC.c.name == name)).first()
    if row is None:
        raise exception.ResourceClassNotFound(name=name)
    if row.id < MIN_CUSTOM_ID:
        raise exception.ResourceClassCannotDeleteStandard(name=name)
    in_use = sa.or_(
        sa.exists().where(INV.c.resource_class_id == row.id),
        sa.exists().where(ALLOC.c.resource_class_id == row.id))
    if context.session.execute(sa.select(in_use)).scalar():
        raise exception.ResourceClassInUse(name=name)
    context.session.execute(RC.delete().where(RC.c.id == row.id))


def delete(context, name):
    """Delete the custom class ``name``.

    :raises ResourceClassNotFound: there is none.
    :raises ResourceClassCannotDeleteStandard: it is standard.
    :raises ResourceClassInUse: an inventory or allocation uses it.
    """
    ensure_standard(context)
    try:
        _delete(context, name)
    finally:
        CACHE.forget()
