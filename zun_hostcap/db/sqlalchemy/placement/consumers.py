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

"""Consumers, and the projects, users and types they belong to.

A consumer row exists while the consumer holds allocations: it is made
by the first write of its allocations and deleted with the last of them,
as in Placement. Projects, users and consumer types are made the first
time a consumer names them and stay.

The functions taking ``context`` without a decorator run in the
caller's transaction (the allocation writes); two writers making the
same new row make the second fail with DBDuplicateEntry, and the
caller's retry starts a new transaction that finds the row.
"""

import sqlalchemy as sa

from zun_hostcap.common import exception
from zun_hostcap.db.sqlalchemy import models
from zun_hostcap.db.sqlalchemy.placement import common

CONSUMER = models.Consumer.__table__
PROJECT = models.Project.__table__
USER = models.User.__table__
CONSUMER_TYPE = models.ConsumerType.__table__
ALLOC = models.Allocation.__table__

# Project and user of consumers written before microversion 1.8 without
# them (Placement's default incomplete_consumer_project_id/user_id).
INCOMPLETE_ID = '00000000-0000-0000-0000-000000000000'
# What a consumer without a type shows from microversion 1.38.
UNKNOWN_TYPE = 'unknown'

CONSUMER_COLUMNS = (
    CONSUMER.c.id, CONSUMER.c.uuid, CONSUMER.c.generation,
    CONSUMER.c.project_id, CONSUMER.c.user_id, CONSUMER.c.consumer_type_id,
    PROJECT.c.external_id.label('project_external_id'),
    USER.c.external_id.label('user_external_id'),
    CONSUMER_TYPE.c.name.label('consumer_type'),
    CONSUMER.c.created_at, CONSUMER.c.updated_at)

CONSUMER_FROM = CONSUMER.join(
    PROJECT, CONSUMER.c.project_id == PROJECT.c.id).join(
    USER, CONSUMER.c.user_id == USER.c.id).outerjoin(
    CONSUMER_TYPE, CONSUMER.c.consumer_type_id == CONSUMER_TYPE.c.id)


_CONSUMERS_BY_UUID = (
    sa.select(*CONSUMER_COLUMNS).select_from(CONSUMER_FROM)
    .where(CONSUMER.c.uuid.in_(sa.bindparam('uuids', expanding=True))))


def consumer_rows(context, uuids):
    """{uuid: row} of the consumers that exist among ``uuids``.

    A row has the consumer's columns, ``project_external_id``,
    ``user_external_id`` and ``consumer_type`` (its name, or None).
    """
    if not uuids:
        return {}
    return {row.uuid: row for row in context.session.execute(
        _CONSUMERS_BY_UUID, {'uuids': list(uuids)})}


@common.reader
def get_by_uuid(context, uuid):
    """The consumer's row (see ``consumer_rows``).

    :raises ConsumerNotFound: there is no such consumer.
    """
    row = consumer_rows(context, [uuid]).get(uuid)
    if row is None:
        raise exception.ConsumerNotFound(uuid=uuid)
    return row


def _ensure(context, table, column, values):
    """{value: id} of ``table``'s rows whose ``column`` is in ``values``.

    The missing ones are inserted, in one statement.
    """
    values = sorted(set(values))
    if not values:
        return {}
    session = context.session
    select = sa.select(column, table.c.id)
    found = dict(session.execute(select.where(column.in_(values))).all())
    missing = [value for value in values if value not in found]
    if missing:
        session.execute(table.insert(),
                        [{column.name: value} for value in missing])
        found.update(session.execute(
            select.where(column.in_(missing))).all())
    return found


_KINDS = ((PROJECT, PROJECT.c.external_id), (USER, USER.c.external_id),
          (CONSUMER_TYPE, CONSUMER_TYPE.c.name))


# Projects, users and types in one query; an empty list matches nothing.
_IDS = sa.union_all(*[
    sa.select(sa.literal_column('%d' % kind).label('kind'),
              column.label('value'), table.c.id)
    .where(column.in_(sa.bindparam('values%d' % kind, expanding=True)))
    for kind, (table, column) in enumerate(_KINDS)])


# Ids of projects, users and types read from committed rows, per
# database: ({project: id}, {user: id}, {type: id}). Rows of these tables
# are never changed or deleted, so an id read from a committed row stays
# right for the life of the database, and the allocation writes of known
# ones need no query. Ids a transaction inserts itself are not remembered
# (it may yet roll back).
KNOWN_IDS = common.PerEngine(lambda: ({}, {}, {}))


def ensure_ids(context, projects, users, types):
    """({project: id}, {user: id}, {type: id}), made if missing.

    Projects and users by external id, types by name; those already
    known need no query, the others one query for the three kinds when
    they all exist.
    """
    known = KNOWN_IDS.get()
    found = ({}, {}, {})
    wanted = []
    for kind, values in enumerate((projects, users, types)):
        unknown = []
        for value in sorted(set(values)):
            id_ = known[kind].get(value)
            if id_ is None:
                unknown.append(value)
            else:
                found[kind][value] = id_
        wanted.append(unknown)
    if not any(wanted):
        return found
    # The only statement of this transaction that could see its own
    # inserts comes later: these rows are committed ones.
    for kind, value, id_ in context.session.execute(_IDS, {
            'values%d' % kind: values for kind, values in enumerate(wanted)}):
        found[kind][value] = id_
        known[kind][value] = id_
    for kind, ((table, column), values) in enumerate(zip(_KINDS, wanted)):
        missing = [value for value in values if value not in found[kind]]
        if missing:
            found[kind].update(_ensure(context, table, column, missing))
    return found


def create(context, values):
    """Insert consumers: ``values`` is a list of column dicts."""
    if values:
        context.session.execute(CONSUMER.insert(), values)


def increment_generation(context, consumer_id, expected, **values):
    """Bump a consumer's generation if it is still ``expected``.

    ``values`` are other columns to set in the same statement (project,
    user, type). In the caller's transaction.

    :returns: whether the row was still at ``expected``.
    """
    values['generation'] = expected + 1
    result = context.session.execute(
        CONSUMER.update()
        .where(CONSUMER.c.id == consumer_id,
               CONSUMER.c.generation == expected)
        .values(**values))
    return result.rowcount == 1


def delete_if_no_allocations(context, uuids):
    """Delete those of the consumers ``uuids`` that have no allocations."""
    if not uuids:
        return
    context.session.execute(
        CONSUMER.delete()
        .where(CONSUMER.c.uuid.in_(list(uuids)),
               ~sa.exists().where(ALLOC.c.consumer_id == CONSUMER.c.uuid)))
