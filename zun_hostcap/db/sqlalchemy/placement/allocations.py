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

"""Allocations: what consumers use of providers' inventories.

A write replaces all the allocations of the consumers it names, in one
transaction of a handful of set-based statements:

1. the consumers, and every (provider, class) asked for with the
   inventory, the usage now and the part of it the consumers hold (one
   query);
2. the checks, in memory: consumer generations, providers exist,
   classes exist, inventory, min_unit/max_unit/step_size, capacity;
3. delete the consumers' allocations, insert the new ones (one statement
   each), make or update the consumers, bump their generations;
4. bump the generation of every provider written to, compare-and-swap.

A provider whose generation moved meanwhile (another allocation or
inventory writer) makes the transaction roll back; it is then tried
again, up to ``[placement] allocation_conflict_retry_count`` times, as
Placement does, before a 409.
"""

import collections

from oslo_db import api as oslo_db_api
from oslo_db import exception as db_exc
from oslo_log import log as logging
from oslo_utils import timeutils
import sqlalchemy as sa

from zun_hostcap.common import exception
import zun_hostcap.conf
from zun_hostcap.db.sqlalchemy import models
from zun_hostcap.db.sqlalchemy.placement import common
from zun_hostcap.db.sqlalchemy.placement import consumers as consumer_db
from zun_hostcap.db.sqlalchemy.placement import inventories as inv_db
from zun_hostcap.db.sqlalchemy.placement import provider_filter
from zun_hostcap.db.sqlalchemy.placement import resource_classes as rc_db

CONF = zun_hostcap.conf.CONF
LOG = logging.getLogger(__name__)

ALLOC = models.Allocation.__table__
INV = models.Inventory.__table__
RP = common.RP
CONSUMER = consumer_db.CONSUMER
PROJECT = consumer_db.PROJECT
USER = consumer_db.USER
CONSUMER_TYPE = consumer_db.CONSUMER_TYPE

# What a consumer held before a write: its consumer row's values and its
# allocations, {provider uuid: {class name: amount}}.
Held = collections.namedtuple(
    'Held', 'project_id user_id consumer_type generation allocations')

_RP_CHANGED = ('Another thread concurrently updated the resource provider '
               'data. Please retry your update')
_CHANGED = ('Another thread concurrently updated the data. Please retry '
            'your update')


def class_ids(context, names):
    """{name: id} of the classes ``names``; unknown ones are left out."""
    names = set(names)
    try:
        return rc_db.ids_for_names(context, names)
    except exception.ResourceClassNotFound:
        known = {}
        for name in names:
            try:
                known[name] = rc_db.id_for_name(context, name)
            except exception.ResourceClassNotFound:
                pass
        return known


def request_class_ids(context, requests):
    """``class_ids`` of the classes that allocation ``requests`` name."""
    return class_ids(context, {
        rc_name for request in requests.values()
        for resources in request['allocations'].values()
        for rc_name in resources})


def class_names(context, ids):
    """{id: name} of the classes ``ids``."""
    return rc_db.names_for_ids(context, ids) if ids else {}


# Reading. Class ids become names outside the transaction, where the
# resource class cache can serve them.

# Built once: building it costs more than running it (GET of a
# consumer's allocations, and what a DELETE announces).
_CONSUMER_ROWS = (
    sa.select(RP.c.uuid, RP.c.generation, ALLOC.c.resource_class_id,
              ALLOC.c.used, ALLOC.c.created_at, ALLOC.c.updated_at,
              CONSUMER.c.generation.label('consumer_generation'),
              PROJECT.c.external_id.label('project_id'),
              USER.c.external_id.label('user_id'),
              CONSUMER_TYPE.c.name.label('consumer_type'))
    .select_from(
        ALLOC.join(RP, ALLOC.c.resource_provider_id == RP.c.id)
        .join(CONSUMER, ALLOC.c.consumer_id == CONSUMER.c.uuid)
        .join(PROJECT, CONSUMER.c.project_id == PROJECT.c.id)
        .join(USER, CONSUMER.c.user_id == USER.c.id)
        .outerjoin(CONSUMER_TYPE,
                   CONSUMER.c.consumer_type_id == CONSUMER_TYPE.c.id))
    .where(ALLOC.c.consumer_id == sa.bindparam('consumer_uuid')))


@common.reader
def _consumer_rows(context, consumer_uuid):
    return context.session.execute(
        _CONSUMER_ROWS, {'consumer_uuid': consumer_uuid}).all()


def get_by_consumer(context, consumer_uuid):
    """The consumer's allocations, as dicts, with consumer and providers.

    Each has resource_provider_uuid, resource_provider_generation,
    resource_class, used, created_at, updated_at, and the consumer's
    generation, project_id, user_id (external ids) and consumer_type
    (None when it has none). An empty list when there are none.
    """
    rows = _consumer_rows(context, consumer_uuid)
    names = class_names(context, {row.resource_class_id for row in rows})
    return [{'resource_provider_uuid': row.uuid,
             'resource_provider_generation': row.generation,
             'resource_class': names[row.resource_class_id],
             'used': row.used,
             'created_at': row.created_at,
             'updated_at': row.updated_at,
             'consumer_uuid': consumer_uuid,
             'consumer_generation': row.consumer_generation,
             'project_id': row.project_id,
             'user_id': row.user_id,
             'consumer_type': row.consumer_type} for row in rows]


@common.reader
def _provider_rows(context, provider_uuid):
    provider = common.provider_row(context, provider_uuid)
    return provider.generation, context.session.execute(
        sa.select(ALLOC.c.consumer_id, ALLOC.c.resource_class_id,
                  ALLOC.c.used, ALLOC.c.created_at, ALLOC.c.updated_at,
                  CONSUMER.c.generation)
        .select_from(ALLOC.join(CONSUMER,
                                ALLOC.c.consumer_id == CONSUMER.c.uuid))
        .where(ALLOC.c.resource_provider_id == provider.id)).all()


def get_by_provider(context, provider_uuid):
    """(provider generation, [allocation dict]) of a provider.

    Each dict has consumer_uuid, consumer_generation, resource_class,
    used, created_at and updated_at.

    :raises ResourceProviderNotFound: no such provider.
    """
    generation, rows = _provider_rows(context, provider_uuid)
    names = class_names(context, {row.resource_class_id for row in rows})
    return generation, [
        {'consumer_uuid': row.consumer_id,
         'consumer_generation': row.generation,
         'resource_class': names[row.resource_class_id],
         'used': row.used,
         'created_at': row.created_at,
         'updated_at': row.updated_at} for row in rows]


# Writing.

def _capacity_columns():
    """Providers asked for, with their inventories of some classes.

    The columns, the FROM and the WHERE of a query of one row per
    (provider, inventory of one of the classes), or one row with no
    inventory for a provider that has none of them. ``used`` is the
    provider's usage of the class now, ``own`` the part of it the
    consumers being written hold.
    """
    inv_join = sa.and_(
        INV.c.resource_provider_id == RP.c.id,
        INV.c.resource_class_id.in_(sa.bindparam('rc_ids', expanding=True)))
    columns = (RP.c.id, RP.c.uuid, RP.c.generation,
               INV.c.resource_class_id, INV.c.total, INV.c.reserved,
               INV.c.min_unit, INV.c.max_unit, INV.c.step_size,
               INV.c.allocation_ratio,
               provider_filter.used().label('used'),
               provider_filter.used(ALLOC.c.consumer_id.in_(
                   sa.bindparam('consumer_uuids', expanding=True)))
               .label('own'))
    return (columns, RP.outerjoin(INV, inv_join),
            RP.c.uuid.in_(sa.bindparam('rp_uuids', expanding=True)))


# A consumer's row, as ``consumer_db.consumer_rows`` gives it.
ConsumerRow = collections.namedtuple(
    'ConsumerRow', [column.name for column in consumer_db.CONSUMER_COLUMNS])
_CONSUMER_PREFIX = 'consumer_'


def _consumers_and_capacity_query():
    """The consumers' rows and the capacity's (``_capacity_columns``).

    A write reads both before it checks anything: one statement, one
    round trip, where two would do. Each row is a consumer's (``kind``
    1: the consumer's columns, the capacity's NULL) or the capacity's
    (``kind`` 0: the other way round). The first SELECT names the types
    of the NULLs, for the values to be read as their columns'.
    """
    capacity, capacity_from, capacity_where = _capacity_columns()
    consumer = consumer_db.CONSUMER_COLUMNS
    consumers = sa.select(
        sa.literal_column('1').label('kind'),
        *[column.label(_CONSUMER_PREFIX + column.name)
          for column in consumer],
        *[sa.type_coerce(sa.null(), column.type).label(column.name)
          for column in capacity]).select_from(
        consumer_db.CONSUMER_FROM).where(
        CONSUMER.c.uuid.in_(sa.bindparam('consumer_uuids', expanding=True)))
    providers = sa.select(
        sa.literal_column('0'), *[sa.null() for _column in consumer],
        *capacity).select_from(capacity_from).where(capacity_where)
    return sa.union_all(consumers, providers)


_CONSUMERS_AND_CAPACITY = _consumers_and_capacity_query()


def _consumers_and_capacity(context, requests, rc_ids):
    """({uuid: ConsumerRow} of the consumers that exist, capacity rows).

    The capacity rows are those ``_check`` reads for ``requests``, with
    ``rc_ids`` {class name: id}.
    """
    wanted = _wanted(requests)
    rows = context.session.execute(_CONSUMERS_AND_CAPACITY, {
        'consumer_uuids': list(requests),
        'rp_uuids': list(dict.fromkeys(item[0] for item in wanted)),
        'rc_ids': sorted(rc_ids.values())}).all()
    end = 1 + len(ConsumerRow._fields)
    existing = {}
    capacity = []
    for row in rows:
        if row.kind:
            consumer = ConsumerRow(*row[1:end])
            existing[consumer.uuid] = consumer
        else:
            capacity.append(row)
    return existing, capacity


def _wanted(requests):
    """(provider uuid, class name, amount) of ``requests``, in order."""
    return [(rp_uuid, rc_name, amount)
            for request in requests.values()
            for rp_uuid, resources in request['allocations'].items()
            for rc_name, amount in resources.items()]


def _check(requests, rc_ids, rows):
    """Check what ``requests`` asks for, with ``rc_ids`` {name: id}.

    :param rows: the capacity rows of ``_consumers_and_capacity``.
    :returns: {provider uuid: (id, generation)}.
    :raises AllocationProviderNotFound: a provider does not exist.
    :raises ResourceClassNotFound: a class does not exist.
    :raises AllocationInventoryInvalid: a provider has no inventory of
        a class.
    :raises AllocationConstraintsConflict: an amount violates min_unit,
        max_unit or step_size.
    :raises AllocationCapacityExceeded: the amounts exceed a capacity.
    """
    wanted = _wanted(requests)
    if not wanted:
        return {}
    rp_uuids = list(dict.fromkeys(item[0] for item in wanted))
    rc_names = list(dict.fromkeys(item[1] for item in wanted))
    providers = {}
    inventories = {}
    for row in rows:
        providers[row.uuid] = (row.id, row.generation)
        if row.resource_class_id is not None:
            inventories[row.uuid, row.resource_class_id] = row
    for rp_uuid in rp_uuids:
        if rp_uuid not in providers:
            raise exception.AllocationProviderNotFound(uuid=rp_uuid)
    for rc_name in rc_names:
        if rc_name not in rc_ids:
            raise exception.ResourceClassNotFound(name=rc_name)
    without = [rp_uuid for rp_uuid in rp_uuids
               if not any(key[0] == rp_uuid for key in inventories)]
    if without:
        raise exception.AllocationInventoryInvalid(
            resource_class=', '.join(rc_names), uuid=', '.join(without))

    totals = collections.Counter()
    for rp_uuid, rc_name, amount in wanted:
        totals[rp_uuid, rc_name] += amount
    for rp_uuid, rc_name, amount in wanted:
        inv = inventories.get((rp_uuid, rc_ids[rc_name]))
        if inv is None:
            raise exception.AllocationInventoryInvalid(
                resource_class=rc_name, uuid=rp_uuid)
        if (amount < inv.min_unit or amount > inv.max_unit or
                amount % inv.step_size):
            # A client's mistake, answered 409: no server warning.
            LOG.debug('Allocation of %(amount)s %(rc)s on provider '
                      '%(rp)s violates min_unit %(min)s, max_unit '
                      '%(max)s or step_size %(step)s',
                      {'amount': amount, 'rc': rc_name, 'rp': rp_uuid,
                       'min': inv.min_unit, 'max': inv.max_unit,
                       'step': inv.step_size})
            raise exception.AllocationConstraintsConflict(
                resource_class=rc_name, uuid=rp_uuid)
        before = inv.used or 0
        after = before - (inv.own or 0) + totals[rp_uuid, rc_name]
        capacity = inv_db.capacity(inv.total, inv.reserved,
                                   inv.allocation_ratio)
        # Over capacity is refused, unless the write leaves the provider
        # no more over it than it was (an inventory shrunk below usage),
        # as in Placement.
        if after > capacity and (inv.used is None or after > before):
            LOG.debug('Over capacity for %(rc)s on provider %(rp)s: '
                      'would use %(after)s of %(cap)s',
                      {'rc': rc_name, 'rp': rp_uuid, 'after': after,
                       'cap': capacity})
            raise exception.AllocationCapacityExceeded(
                resource_class=rc_name, uuid=rp_uuid)
    return providers


def _ids(context, requests, existing):
    """Project, user and type ids of the consumers, made if missing.

    Only looked up where a consumer is new or changes them.
    """
    projects, users, types = set(), set(), set()
    for uuid, request in requests.items():
        if not request['allocations']:
            continue
        row = existing.get(uuid)
        if (row is None or row.project_external_id != request['project_id']
                or row.user_external_id != request['user_id']):
            projects.add(request['project_id'])
            users.add(request['user_id'])
        ctype = request.get('consumer_type')
        if ctype is not None and (row is None or row.consumer_type != ctype):
            types.add(ctype)
    return consumer_db.ensure_ids(context, projects, users, types)


_ALLOCATIONS_OF = (
    sa.select(ALLOC.c.consumer_id, RP.c.uuid, ALLOC.c.resource_class_id,
              ALLOC.c.used)
    .select_from(ALLOC.join(RP, ALLOC.c.resource_provider_id == RP.c.id))
    .where(ALLOC.c.consumer_id.in_(
        sa.bindparam('consumer_uuids', expanding=True))))


def _held_rows(context, existing):
    """Allocation rows of the ``existing`` consumers, before a write.

    :returns: {consumer uuid: (consumer row, [(provider uuid, class id,
        amount)])}.
    """
    held = {uuid: (row, []) for uuid, row in existing.items()}
    if held:
        for row in context.session.execute(
                _ALLOCATIONS_OF, {'consumer_uuids': list(held)}):
            held[row.consumer_id][1].append(
                (row.uuid, row.resource_class_id, row.used))
    return held


def as_held(context, held_rows):
    """``_held_rows`` as {consumer uuid: Held}; outside the transaction."""
    names = class_names(context, {
        class_id for _row, allocations in held_rows.values()
        for _rp, class_id, _amount in allocations})
    held = {}
    for uuid, (row, allocations) in held_rows.items():
        by_provider = {}
        for rp_uuid, class_id, amount in allocations:
            by_provider.setdefault(rp_uuid, {})[names[class_id]] = amount
        held[uuid] = Held(row.project_external_id, row.user_external_id,
                          row.consumer_type, row.generation, by_provider)
    return held


def check_consumer_generations(context, requests, existing=None):
    """Each ``consumer_generation`` of ``requests`` is the consumer's.

    None for a consumer that does not exist. In the caller's
    transaction; ``existing`` the consumers' rows if already read.

    :raises ConsumerConcurrentUpdate: one differs.
    """
    if existing is None:
        existing = consumer_db.consumer_rows(context, list(requests))
    for uuid, request in requests.items():
        row = existing.get(uuid)
        given = request.get('consumer_generation')
        if row is None and given is not None:
            raise exception.ConsumerConcurrentUpdate(
                expected='null', actual=given, uuid=uuid)
        if row is not None and row.generation != given:
            raise exception.ConsumerConcurrentUpdate(
                expected=row.generation, actual=given, uuid=uuid)


def replace_in_transaction(context, requests, check_generation, rc_ids,
                           report=None):
    """``replace_all``'s work, once, in the caller's writer transaction.

    :param rc_ids: {class name: id} of the classes of ``requests``
        (``class_ids``), read before the transaction.
    :param report: a WriteReport whose state becomes what the consumers
        that existed held before the write, as ``_held_rows`` gives it
        (``as_held`` makes it {uuid: Held} once committed).
    :raises ResourceProviderConcurrentUpdate: a provider's generation
        moved since it was read: the transaction is to be run again
        (``until_providers_settle``).
    The other errors are those of ``replace_all``.
    """
    session = context.session
    uuids = list(requests)
    existing, capacity = _consumers_and_capacity(context, requests, rc_ids)
    if report is not None:
        # Read again on every attempt: a retry starts from what is there.
        report.state = _held_rows(context, existing)
    if check_generation:
        check_consumer_generations(context, requests, existing)

    providers = _check(requests, rc_ids, capacity)

    # Consumers left without allocations: the providers they leave are
    # bumped too (as Placement does), and their rows go.
    emptied = [uuid for uuid in uuids
               if not requests[uuid]['allocations'] and uuid in existing]
    if emptied:
        for row in session.execute(
                sa.select(RP.c.uuid, RP.c.id, RP.c.generation).distinct()
                .select_from(ALLOC.join(
                    RP, ALLOC.c.resource_provider_id == RP.c.id))
                .where(ALLOC.c.consumer_id.in_(emptied))):
            providers.setdefault(row.uuid, (row.id, row.generation))

    if existing:
        session.execute(ALLOC.delete().where(
            ALLOC.c.consumer_id.in_(list(existing))))

    projects, users, types = _ids(context, requests, existing)
    new = []
    for uuid in uuids:
        request = requests[uuid]
        row = existing.get(uuid)
        ctype = request.get('consumer_type')
        if row is None:
            if request['allocations']:
                new.append({
                    'uuid': uuid, 'generation': 1,
                    'project_id': projects[request['project_id']],
                    'user_id': users[request['user_id']],
                    'consumer_type_id': types.get(ctype)})
            continue
        if not request['allocations']:
            continue
        changes = {'updated_at': timeutils.utcnow()}
        if request['project_id'] != row.project_external_id:
            changes['project_id'] = projects[request['project_id']]
        if request['user_id'] != row.user_external_id:
            changes['user_id'] = users[request['user_id']]
        if ctype is not None and ctype != row.consumer_type:
            changes['consumer_type_id'] = types[ctype]
        if not consumer_db.increment_generation(
                context, row.id, row.generation, **changes):
            raise exception.AllocationConcurrentUpdate(reason=_CHANGED)
    consumer_db.create(context, new)

    now = timeutils.utcnow()
    values = [{'resource_provider_id': providers[rp_uuid][0],
               'consumer_id': uuid,
               'resource_class_id': rc_ids[rc_name],
               'used': amount,
               'created_at': now}
              for uuid in uuids
              for rp_uuid, resources in requests[uuid]['allocations'].items()
              for rc_name, amount in resources.items()]
    if values:
        session.execute(ALLOC.insert(), values)

    for rp_uuid, (rp_id, generation) in sorted(providers.items()):
        common.increment_generation(context, rp_id, generation, rp_uuid)
    if emptied:
        consumer_db.delete_if_no_allocations(context, emptied)


_retry = oslo_db_api.wrap_db_retry(
    exception_checker=common.retry_checker(
        lambda exc: (isinstance(exc, db_exc.DBDuplicateEntry) or
                     common.is_sqlite_busy(exc))),
    **common.RETRY_OPTIONS)


def retried_writer(function):
    """``function`` in a writer transaction of its own, retried.

    It runs again on deadlocks, SQLite's busy file, and a consumer,
    project or user that a concurrent writer inserted first
    (DBDuplicateEntry).
    """
    return common.writes(_retry(common.writer(function)))


_replace = retried_writer(replace_in_transaction)


def until_providers_settle(write, *args):
    """``write(*args)``, again while a provider's generation moves.

    ``write`` is a transaction of its own (``retried_writer``) that
    raises ResourceProviderConcurrentUpdate when a provider it read
    moved before its compare-and-swap: up to ``[placement]
    allocation_conflict_retry_count`` attempts, as in Placement.

    :returns: what ``write`` returns.
    :raises AllocationConcurrentUpdate: the providers kept changing.
    """
    attempts = CONF.placement.allocation_conflict_retry_count
    for attempt in range(attempts):
        try:
            return write(*args)
        except exception.ResourceProviderConcurrentUpdate:
            LOG.debug('Provider generation conflict writing allocations; '
                      'attempt %d of %d', attempt + 1, attempts)
    LOG.warning('Allocations not written: provider generations kept '
                'changing in %d attempts ([placement] '
                'allocation_conflict_retry_count)', attempts)
    raise exception.AllocationConcurrentUpdate(reason=_RP_CHANGED)


def replace_all(context, requests, check_generation=False, report=None):
    """Replace the allocations of the consumers of ``requests``.

    :param requests: {consumer uuid: {'allocations': {provider uuid:
        {class name: amount}}, 'project_id', 'user_id',
        'consumer_generation', 'consumer_type'}}; empty allocations
        delete the consumer's. ``consumer_type`` None leaves a consumer's
        type as it is (a new one has none).
    :param check_generation: microversion 1.28 and later: each
        ``consumer_generation`` must be the consumer's, None for a new
        consumer.
    :param report: a WriteReport whose state becomes what the consumers
        that existed held before the write, {consumer uuid: Held}.
    :raises ConsumerConcurrentUpdate: a consumer generation differs.
    :raises AllocationProviderNotFound: a provider does not exist.
    :raises ResourceClassNotFound: a class does not exist.
    :raises AllocationInventoryInvalid: no inventory of a class.
    :raises AllocationConstraintsConflict: min_unit, max_unit, step_size.
    :raises AllocationCapacityExceeded: not enough capacity.
    :raises AllocationConcurrentUpdate: providers kept changing, or a
        consumer changed during the write.
    """
    # Outside the transaction, where the resource class cache serves.
    rc_ids = request_class_ids(context, requests)
    until_providers_settle(_replace, context, requests, check_generation,
                           rc_ids, report)
    if report is not None:
        report.changed = True
        report.state = as_held(context, report.state)


_DELETE_ALLOCATIONS = ALLOC.delete().where(
    ALLOC.c.consumer_id == sa.bindparam('consumer_uuid'))
_DELETE_CONSUMER = CONSUMER.delete().where(
    CONSUMER.c.uuid == sa.bindparam('consumer_uuid'))

# Where the engine can, the allocations and the consumer's row go in one
# statement, one round trip less. Either gives a count that is not zero
# if and only if the consumer had allocations; when it is zero the
# transaction rolls back (AllocationsNotFound), so a consumer row without
# allocations stays, as with the two statements. PostgreSQL runs both
# DELETEs of the WITH once, whether or not the SELECT reads them;
# MariaDB's multi-table DELETE deletes the rows the join finds in both
# tables and counts them all.
_DELETE_BOTH = {
    'postgresql': sa.text(
        'WITH gone AS (DELETE FROM {alloc} WHERE consumer_id = '
        ':consumer_uuid RETURNING 1), consumer AS (DELETE FROM {consumer} '
        'WHERE uuid = :consumer_uuid) SELECT count(*) FROM gone'.format(
            alloc=ALLOC.name, consumer=CONSUMER.name)),
    'mysql': sa.text(
        'DELETE {alloc}, {consumer} FROM {alloc} LEFT JOIN {consumer} ON '
        '{consumer}.uuid = {alloc}.consumer_id WHERE {alloc}.consumer_id = '
        ':consumer_uuid'.format(alloc=ALLOC.name, consumer=CONSUMER.name)),
}


def delete_by_consumer(context, consumer_uuid, report=None):
    """Delete a consumer's allocations, and the consumer.

    :param report: a WriteReport whose state becomes what the consumer
        held (a Held).
    :raises AllocationsNotFound: it has no allocations.
    """
    rows = _delete_by_consumer(context, consumer_uuid, report is not None)
    if report is None:
        return
    names = class_names(context, {row.resource_class_id for row in rows})
    allocations = {}
    for row in rows:
        allocations.setdefault(row.uuid, {})[
            names[row.resource_class_id]] = row.used
    first = rows[0]
    report.changed = True
    report.state = Held(first.project_id, first.user_id,
                        first.consumer_type, first.consumer_generation,
                        allocations)


@common.retry_on_deadlock
@common.writer
def _delete_by_consumer(context, consumer_uuid, held):
    """The consumer's allocation rows if ``held``; they are deleted."""
    rows = _consumer_rows(context, consumer_uuid) if held else None
    session = context.session
    params = {'consumer_uuid': consumer_uuid}
    dialect = session.get_bind().dialect.name
    both = _DELETE_BOTH.get(dialect)
    if both is None:
        deleted = session.execute(_DELETE_ALLOCATIONS, params).rowcount
    elif dialect == 'postgresql':
        deleted = session.execute(both, params).scalar()
    else:
        deleted = session.execute(both, params).rowcount
    if not deleted:
        raise exception.AllocationsNotFound(uuid=consumer_uuid)
    if both is None:
        session.execute(_DELETE_CONSUMER, params)
    return rows
