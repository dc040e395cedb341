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

"""Inventories: how much of each resource class a provider has.

Every write runs in one transaction: the provider's row, the classes'
ids (cached), one SELECT of the provider's inventories with what is
allocated of each, then set-based DELETE / INSERT / UPDATE statements
and the compare-and-swap of the provider's generation. A concurrent
writer of the same provider makes one of the two fail with
ResourceProviderConcurrentUpdate, and nothing of it is kept.

Capacity is ``int((total - reserved) * allocation_ratio)``. Whether a
capacity of 0 is acceptable depends on the API version (``reserved``
equal to ``total`` from 1.26): the writes take ``allow_zero_capacity``.
"""

import functools
import math

from oslo_db import exception as db_exc
from oslo_log import log as logging
from oslo_utils import timeutils
import sqlalchemy as sa

from zun_hostcap.common import exception
from zun_hostcap.db.sqlalchemy import models
from zun_hostcap.db.sqlalchemy.placement import common
from zun_hostcap.db.sqlalchemy.placement import provider_filter
from zun_hostcap.db.sqlalchemy.placement import resource_classes

LOG = logging.getLogger(__name__)

RP = common.RP
INV = models.Inventory.__table__
ALLOC = models.Allocation.__table__

# What a client may set, and the values of those it leaves out.
FIELDS = ('total', 'reserved', 'min_unit', 'max_unit', 'step_size',
          'allocation_ratio')
DEFAULTS = {'reserved': 0, 'min_unit': 1, 'max_unit': common.MAX_INT,
            'step_size': 1, 'allocation_ratio': 1.0}

INVENTORY_COLUMNS = (INV.c.resource_class_id, INV.c.total, INV.c.reserved,
                     INV.c.min_unit, INV.c.max_unit, INV.c.step_size,
                     INV.c.allocation_ratio, INV.c.created_at,
                     INV.c.updated_at)


def capacity(total, reserved, allocation_ratio):
    """What may be allocated of an inventory, in Python.

    ``int((total - reserved) * allocation_ratio)``, from the ratio as the
    database driver read it (``provider_filter.capacity`` is the same in
    SQL, and says how the drivers read it). The writers compare the
    amounts, integers, with it: rounded down or not, the same pass.
    A ratio near the float limits can make the product infinite; that is
    no capacity an integer can hold, so it is taken as none (negative).
    """
    value = (total - reserved) * allocation_ratio
    if not math.isfinite(value):
        return -1
    return int(value)


def normalize(values):
    """An inventory's values with the defaults, as the column types.

    ``values`` has passed the API's schema: integers (possibly written
    1.0) and a finite ratio.
    """
    record = dict(DEFAULTS)
    record.update((key, values[key]) for key in FIELDS if key in values)
    for key in FIELDS[:-1]:
        record[key] = int(record[key])
    record['allocation_ratio'] = float(record['allocation_ratio'])
    return record


def check_capacity(uuid, resource_class, record, allow_zero_capacity):
    """Refuse an inventory whose reserved leaves no capacity.

    :raises InvalidInventory: with Placement's message.
    """
    if record['allocation_ratio'] < 0:
        # Placement lets a negative ratio through when reserved exceeds
        # total (their product is positive); no such capacity makes sense.
        # A ratio of 0 is a capacity of 0, allowed from 1.26 as there.
        raise exception.InvalidInventory(
            message="Invalid inventory for '%s' on resource provider '%s'. "
                    "allocation_ratio must not be negative, not %s." % (
                        resource_class, uuid, record['allocation_ratio']),
            resource_class=resource_class, uuid=uuid, reason='capacity')
    product = ((record['total'] - record['reserved']) *
               record['allocation_ratio'])
    if not math.isfinite(product):
        raise exception.InvalidInventory(
            message="Invalid inventory for '%s' on resource provider '%s'. "
                    "allocation_ratio %s makes the capacity infinite." % (
                        resource_class, uuid, record['allocation_ratio']),
            resource_class=resource_class, uuid=uuid, reason='capacity')
    cap = capacity(record['total'], record['reserved'],
                   record['allocation_ratio'])
    if cap < 0 or (cap == 0 and not allow_zero_capacity):
        raise exception.InvalidInventory(
            message="Invalid inventory for '%s' on resource provider '%s'. "
                    "The reserved value is greater than %s." % (
                        resource_class, uuid,
                        'total' if allow_zero_capacity else
                        'or equal to total'),
            resource_class=resource_class, uuid=uuid, reason='capacity')


def in_use(uuid, names):
    """InventoryInUse for the classes ``names``, as Placement words it."""
    return exception.InventoryInUse(
        message="Inventory for '%s' on resource provider '%s' in use." % (
            ', '.join(names), uuid),
        resource_classes=', '.join(names), uuid=uuid)


def _names(context, rows):
    return resource_classes.names_for_ids(
        context, {row.resource_class_id for row in rows})


def _read(context, uuid):
    """The provider (id, generation) and its inventory rows, one query.

    :raises ResourceProviderNotFound: no such provider.
    """
    rows = context.session.execute(
        sa.select(RP.c.id.label('provider_id'), RP.c.generation,
                  *INVENTORY_COLUMNS)
        .select_from(RP.outerjoin(INV, INV.c.resource_provider_id == RP.c.id))
        .where(RP.c.uuid == uuid)
        .order_by(INV.c.resource_class_id)).all()
    if not rows:
        raise exception.ResourceProviderNotFound(uuid=uuid)
    provider = rows[0]
    inventories = [row for row in rows if row.resource_class_id is not None]
    return provider.provider_id, provider.generation, inventories


def _as_dicts(context, inventories):
    names = _names(context, inventories)
    return [dict(row._mapping, resource_class=names[row.resource_class_id])
            for row in inventories]


@common.reader
def get_all(context, uuid):
    """(generation, [inventory dicts]) of a provider, in class id order.

    Each dict has ``resource_class`` (the name), FIELDS, ``created_at``
    and ``updated_at``.

    :raises ResourceProviderNotFound: no such provider.
    """
    _id, generation, inventories = _read(context, uuid)
    return generation, _as_dicts(context, inventories)


@common.reader
def get_one(context, uuid, resource_class):
    """(generation, inventory dict or None) of one class of a provider.

    An unknown class is an inventory that is not there (None).

    :raises ResourceProviderNotFound: no such provider.
    """
    _id, generation, inventories = _read(context, uuid)
    for inventory in _as_dicts(context, inventories):
        if inventory['resource_class'] == resource_class:
            return generation, inventory
    return generation, None


_EXISTING = (
    sa.select(RP.c.id, INV.c.resource_class_id,
              provider_filter.used().label('used'),
              *(INV.c[key] for key in FIELDS))
    .select_from(RP.outerjoin(INV, INV.c.resource_provider_id == RP.c.id))
    .where(RP.c.uuid == sa.bindparam('uuid')))


def _existing(context, uuid):
    """The provider's id and inventory rows, by class id.

    Each row has ``used`` (None when nothing is allocated) and FIELDS.
    In the caller's transaction, which has found the provider.
    """
    rows = context.session.execute(_EXISTING, {'uuid': uuid}).all()
    return rows[0].id, {row.resource_class_id: row for row in rows
                        if row.resource_class_id is not None}


def _record(row):
    return {key: row._mapping[key] for key in FIELDS}


def same_record(one, other):
    """Whether two inventory records hold the same values.

    The ratio is compared to a millionth: MariaDB's FLOAT column keeps
    single precision (1.1 reads back as 1.100000023841858).
    """
    return all(one[key] == other[key] for key in FIELDS[:-1]) and math.isclose(
        one['allocation_ratio'], other['allocation_ratio'], rel_tol=1e-6)


_ALL_OF_PROVIDER = sa.select(INV.c.resource_class_id,
                             *(INV.c[key] for key in FIELDS)).where(
    INV.c.resource_provider_id == sa.bindparam('provider_id'))


def records_of(context, provider_id):
    """A provider's whole inventory, {class name: record}.

    In the caller's transaction.
    """
    rows = context.session.execute(
        _ALL_OF_PROVIDER, {'provider_id': provider_id}).all()
    names = _names(context, rows)
    return {names[row.resource_class_id]: _record(row) for row in rows}


def same_records(one, other):
    """Whether two whole inventories ({class name: record}) are equal."""
    return set(one) == set(other) and all(
        same_record(one[name], other[name]) for name in one)


def _report(context, report, provider_id, changed=True):
    """Fill ``report`` (a WriteReport, or None) in after a write.

    Its state: the provider's whole inventory, {class name: record}.
    """
    if report is None:
        return
    report.changed = changed
    report.state = records_of(context, provider_id)


def _bump(context, uuid, expected_generation):
    """The provider's new generation; the generation it had if None."""
    if expected_generation is not None:
        return common.claim_generation(context, uuid, expected_generation)
    provider = common.provider_row(context, uuid)
    return common.increment_generation(context, provider.id,
                                       provider.generation, uuid)


def _exceeds(used, record):
    return used is not None and used > capacity(
        record['total'], record['reserved'], record['allocation_ratio'])


def _warn_exceeded(uuid, exceeded):
    for name in exceeded:
        LOG.warning('Resource provider %(uuid)s is now over-capacity for '
                    '%(resource)s', {'uuid': uuid, 'resource': name})


def _classes_known_first(function):
    """Sync the standard classes before the write's transaction.

    On SQLite the sync cannot happen beside an open transaction (one
    writer a file), and done inside it, it is not remembered: every
    write would read the whole class table again.
    """
    @functools.wraps(function)
    def wrapper(context, *args, **kwargs):
        resource_classes.ensure_standard(context)
        return function(context, *args, **kwargs)
    return wrapper


@_classes_known_first
@common.retry_on_deadlock
@common.writer
def replace_all(context, uuid, generation, inventories,
                allow_zero_capacity=True, report=None):
    """Make a provider's inventories exactly ``inventories``.

    ``replace_in_transaction`` in a transaction of its own; the same
    arguments, results and errors, and:

    :raises ConcurrentUpdateDetected: another writer added an inventory
        of the same class meanwhile.
    """
    try:
        return replace_in_transaction(context, uuid, generation,
                                      inventories, allow_zero_capacity,
                                      report)
    except db_exc.DBDuplicateEntry:
        raise exception.ConcurrentUpdateDetected()


def replace_in_transaction(context, uuid, generation, inventories,
                           allow_zero_capacity=True, report=None):
    """Make a provider's inventories exactly ``inventories``.

    In the caller's writer transaction (``replace_all``, the reshaper).

    :param generation: the provider's generation the caller saw; None
        to take the current one (DELETE of all inventories).
    :param inventories: {class name: {field: value}}, in the order to
        check them; fields left out take their defaults.
    :param report: a WriteReport to fill in: whether the inventories
        are other than they were; the state is the records returned.
    :returns: (new generation, {class name: normalised record}).
    :raises ResourceProviderNotFound: no such provider.
    :raises ResourceProviderConcurrentUpdate: the generation moved.
    :raises InvalidInventory: an inventory without capacity.
    :raises ResourceClassNotFound: an unknown class.
    :raises InventoryInUse: a class to remove has allocations;
        ``resource_classes`` in its kwargs is the list of their names.
    """
    # First: the provider's row is locked from here on, and a concurrent
    # writer fails now rather than after its work.
    new_generation = _bump(context, uuid, generation)
    records = {}
    for name, values in inventories.items():
        records[name] = normalize(values)
        check_capacity(uuid, name, records[name], allow_zero_capacity)
    ids = resource_classes.ids_for_names(context, records) if records else {}
    provider_id, existing = _existing(context, uuid)
    wanted = {ids[name]: name for name in records}

    to_delete = sorted(set(existing).difference(wanted))
    allocated = [class_id for class_id in to_delete
                 if existing[class_id].used is not None]
    if allocated:
        names = resource_classes.names_for_ids(context, allocated)
        raise in_use(uuid, [names[class_id] for class_id in allocated])
    if to_delete:
        context.session.execute(
            INV.delete().where(INV.c.resource_provider_id == provider_id,
                               INV.c.resource_class_id.in_(to_delete)))

    now = timeutils.utcnow()
    to_add = [dict(records[name], resource_provider_id=provider_id,
                   resource_class_id=class_id, created_at=now)
              for class_id, name in wanted.items()
              if class_id not in existing]
    if to_add:
        context.session.execute(INV.insert(), to_add)

    to_update = [dict(records[name], b_provider=provider_id,
                      b_class=class_id, updated_at=now)
                 for class_id, name in wanted.items()
                 if class_id in existing]
    if to_update:
        context.session.execute(
            INV.update().where(
                INV.c.resource_provider_id == sa.bindparam('b_provider'),
                INV.c.resource_class_id == sa.bindparam('b_class')),
            to_update)
    _warn_exceeded(uuid, [name for class_id, name in wanted.items()
                          if class_id in existing and
                          _exceeds(existing[class_id].used, records[name])])
    if report is not None:
        report.changed = bool(to_delete or to_add) or not all(
            same_record(_record(existing[values['b_class']]),
                        records[wanted[values['b_class']]])
            for values in to_update)
        report.state = records
    return new_generation, records


@_classes_known_first
@common.retry_on_deadlock
@common.writer
def add(context, uuid, resource_class, values, allow_zero_capacity=True,
        report=None):
    """Add the inventory of a class the provider has none of.

    ``report``, a WriteReport, gets the whole inventory after the write
    ({class name: record}).

    :returns: (new generation, normalised record).
    :raises ResourceProviderNotFound: no such provider.
    :raises InvalidInventory: no capacity.
    :raises ResourceProviderConcurrentUpdate: the generation moved.
    :raises ResourceClassNotFound: an unknown class.
    :raises InventoryExists: the class has inventory.
    """
    provider = common.provider_row(context, uuid)
    record = normalize(values)
    check_capacity(uuid, resource_class, record, allow_zero_capacity)
    new_generation = common.increment_generation(
        context, provider.id, provider.generation, uuid)
    class_id = resource_classes.id_for_name(context, resource_class)
    try:
        context.session.execute(INV.insert().values(
            resource_provider_id=provider.id, resource_class_id=class_id,
            created_at=timeutils.utcnow(), **record))
    except db_exc.DBDuplicateEntry:
        raise exception.InventoryExists(resource_class=resource_class,
                                        uuid=uuid)
    _report(context, report, provider.id)
    return new_generation, record


@_classes_known_first
@common.retry_on_deadlock
@common.writer
def update(context, uuid, resource_class, generation, values,
           allow_zero_capacity=True, report=None):
    """Replace the inventory of one class the provider has.

    Allocations above the new capacity are allowed (and logged), as
    Placement does: the operator knows best what a host has.
    ``report``, a WriteReport, is told whether the values changed and
    gets the whole inventory after the write ({class name: record}).

    :returns: (new generation, normalised record).
    :raises ResourceProviderNotFound: no such provider.
    :raises ResourceProviderConcurrentUpdate: the generation moved.
    :raises InvalidInventory: no capacity.
    :raises ResourceClassNotFound: an unknown class.
    :raises InventoryNotFound: no inventory of that class.
    """
    new_generation = _bump(context, uuid, generation)
    record = normalize(values)
    check_capacity(uuid, resource_class, record, allow_zero_capacity)
    class_id = resource_classes.id_for_name(context, resource_class)
    found = context.session.execute(
        sa.select(INV.c.id, INV.c.resource_provider_id,
                  provider_filter.used().label('used'),
                  *(INV.c[key] for key in FIELDS))
        .select_from(INV.join(RP, INV.c.resource_provider_id == RP.c.id))
        .where(RP.c.uuid == uuid,
               INV.c.resource_class_id == class_id)).first()
    if found is None:
        raise exception.InventoryNotFound(resource_class=resource_class,
                                          uuid=uuid)
    context.session.execute(
        INV.update().where(INV.c.id == found.id)
        .values(updated_at=timeutils.utcnow(), **record))
    if _exceeds(found.used, record):
        _warn_exceeded(uuid, [resource_class])
    _report(context, report, found.resource_provider_id,
            changed=not same_record(_record(found), record))
    return new_generation, record


@_classes_known_first
@common.retry_on_deadlock
@common.writer
def delete(context, uuid, resource_class, report=None):
    """Remove the inventory of one class.

    ``report``, a WriteReport, gets the whole inventory after the write
    ({class name: record}).

    :returns: the new generation.
    :raises ResourceProviderNotFound: no such provider.
    :raises ResourceProviderConcurrentUpdate: the generation moved.
    :raises ResourceClassNotFound: an unknown class.
    :raises InventoryInUse: the class has allocations on the provider.
    :raises InventoryNotFound: no inventory of that class.
    """
    provider = common.provider_row(context, uuid)
    new_generation = common.increment_generation(
        context, provider.id, provider.generation, uuid)
    class_id = resource_classes.id_for_name(context, resource_class)
    allocated = context.session.execute(
        sa.select(ALLOC.c.id)
        .where(ALLOC.c.resource_provider_id == provider.id,
               ALLOC.c.resource_class_id == class_id)
        .limit(1)).first()
    if allocated is not None:
        raise in_use(uuid, [resource_class])
    result = context.session.execute(
        INV.delete().where(INV.c.resource_provider_id == provider.id,
                           INV.c.resource_class_id == class_id))
    if not result.rowcount:
        raise exception.InventoryNotFound(resource_class=resource_class,
                                          uuid=uuid)
    _report(context, report, provider.id)
    return new_generation


def capacity_rows(context, provider_ids, class_ids):
    """Inventory and usage of (provider, class) pairs, in one query.

    For use inside the caller's transaction (``context.session``): the
    allocation writers check capacity with it.

    :returns: {(provider id, class id): row} where the row has
        ``total``, ``reserved``, ``min_unit``, ``max_unit``,
        ``step_size``, ``allocation_ratio`` and ``used`` (0 when nothing
        is allocated). Pairs without inventory are absent.
    """
    provider_ids = sorted(set(provider_ids))
    class_ids = sorted(set(class_ids))
    if not provider_ids or not class_ids:
        return {}
    used = provider_filter.used(or_zero=True).label('used')
    rows = context.session.execute(
        sa.select(INV.c.resource_provider_id, INV.c.resource_class_id,
                  INV.c.total, INV.c.reserved, INV.c.min_unit,
                  INV.c.max_unit, INV.c.step_size, INV.c.allocation_ratio,
                  used)
        .where(INV.c.resource_provider_id.in_(provider_ids),
               INV.c.resource_class_id.in_(class_ids))).all()
    return {(row.resource_provider_id, row.resource_class_id): row
            for row in rows}
