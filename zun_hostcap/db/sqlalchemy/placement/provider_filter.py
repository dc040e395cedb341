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

"""The provider-filter SQL: what a provider has, as clauses to build on.

One home for the conditions and figures that choose resource providers,
used by the provider list (``resource_providers``), the allocation
candidates (``candidates``, ``provider_summaries``), the allocation and
inventory writers, usages and /metrics:

- ``used``: what is allocated of an inventory row;
- ``capacity``: the capacity of an inventory row;
- ``has_capacity``, ``with_traits``, ``in_aggregates``,
  ``in_all_aggregates``, ``in_every``: conditions on a provider's id
  column;
- ``fits``: the same capacity conditions on an inventory row;
- ``with_room_by_rows``: the capacity of a statement's providers
  tested on their inventory rows joined and grouped (flat clouds on
  MariaDB and PostgreSQL: ``by_rows``).

Every expression is correlated with the inventory table ``INV`` (or the
provider column it is given): the statement around it names the rows.
"""

import functools

import sqlalchemy as sa

from zun_hostcap.db.sqlalchemy import models
from zun_hostcap.db.sqlalchemy.placement import common

RP = common.RP
INV = models.Inventory.__table__
ALLOC = models.Allocation.__table__
RPT = models.ResourceProviderTrait.__table__
RPA = models.ResourceProviderAggregate.__table__
AGG = models.PlacementAggregate.__table__


def used(*where, class_id=None, or_zero=False):
    """What is allocated of the inventory row INV: its allocations' sum.

    NULL when nothing is allocated, 0 with ``or_zero``.

    :param where: further conditions on the allocations (ALLOC), to sum
        a part of them.
    :param class_id: the class as a value, not INV's column: for an
        expression nested two levels below the statement that names the
        provider (see ``has_capacity``).
    """
    total = sa.func.sum(ALLOC.c.used)
    if or_zero:
        total = sa.func.coalesce(total, 0)
    return (sa.select(total)
            .where(ALLOC.c.resource_provider_id == INV.c.resource_provider_id,
                   ALLOC.c.resource_class_id == (
                       INV.c.resource_class_id if class_id is None
                       else class_id),
                   *where)
            .scalar_subquery())


def capacity(dialect=None):
    """The capacity of the inventory row INV, as Placement has it.

    ``int((total - reserved) * allocation_ratio)``, which
    ``inventories.capacity`` computes in Python. The ratio is a FLOAT
    column, and Placement reads it two ways, both kept here:

    - ``dialect`` given (the provider summaries): the integer that
      Placement computes in Python from the ratio its driver read.
      MariaDB keeps the ratio in single precision and sends it as its
      shortest decimal text (0.7, not 0.699999988079071): the text is
      what is multiplied, or a quarter of the capacities would differ
      by one. Rounded down as int() does (capacities are >= 0).
    - ``dialect`` None (the filters): the product of the ratio as the
      database stores it, not rounded, which Placement's own SQL
      compares an integer amount with. On MariaDB a total of 10 at a
      ratio of 0.7 then takes 6, as in Placement, where the summary
      shows a capacity of 7. On SQLite and PostgreSQL (double
      precision) the two agree.
    """
    ratio = INV.c.allocation_ratio
    if dialect == 'mysql':
        ratio = sa.cast(sa.cast(ratio, sa.String), sa.Double)
    product = (INV.c.total - INV.c.reserved) * ratio
    if dialect is None:
        return product
    if dialect == 'sqlite':
        # CAST to INTEGER truncates, as int() does.
        return sa.cast(product, sa.Integer)
    return sa.cast(sa.func.floor(product), sa.BigInteger)


def in_aggregates(rp_col, agg_uuids):
    """The provider is in one of the aggregates ``agg_uuids`` at least."""
    return sa.exists().where(
        RPA.c.resource_provider_id == rp_col,
        RPA.c.aggregate_id == AGG.c.id,
        AGG.c.uuid.in_(sorted(agg_uuids)))


def in_all_aggregates(rp_col, member_of):
    """The provider is in at least one aggregate of each set."""
    return sa.and_(*[in_aggregates(rp_col, agg_uuids)
                     for agg_uuids in member_of])


def in_every(rp_col, provider_sets):
    """The provider is in each of ``provider_sets``.

    ``provider_sets`` are statements of provider ids
    (``providers_with_traits``, ``providers_in_aggregates``), tested as
    one IN of their intersection. For PostgreSQL, in place of an EXISTS
    each: it plans each EXISTS as a semi-join, and choosing the order of
    the traits', aggregates' and classes' semi-joins cost more than
    running the statement (2.3 ms of 4.3 for the flat query of the
    benchmark; with statistics it chose a plan that ran 5.5 ms instead
    of 1.7). The intersection is one of them: 0.7 ms to plan.
    """
    provider_sets = list(provider_sets)
    if len(provider_sets) == 1:
        return rp_col.in_(provider_sets[0])
    return rp_col.in_(sa.intersect(*provider_sets))


def providers_in_aggregates(agg_uuids):
    """The ids of the providers in one of the aggregates at least."""
    return sa.select(RPA.c.resource_provider_id).where(
        RPA.c.aggregate_id == AGG.c.id,
        AGG.c.uuid.in_(sorted(agg_uuids)))


def providers_with_traits(trait_ids):
    """The ids of the providers with one of the traits at least."""
    return sa.select(RPT.c.resource_provider_id).where(
        RPT.c.trait_id.in_(sorted(trait_ids)))


def with_traits(rp_col, trait_ids):
    """The provider has one of the traits ``trait_ids`` at least."""
    return sa.exists().where(
        RPT.c.resource_provider_id == rp_col,
        RPT.c.trait_id.in_(sorted(trait_ids)))


def fits(rc_id, amount, usage=None):
    """The inventory row INV of ``rc_id`` can take ``amount`` more.

    Capacity, min_unit, max_unit and step_size, as conditions for a
    statement whose FROM holds INV (the usage is correlated with it),
    such as ``has_capacity``'s EXISTS.

    :param usage: what is allocated of the row, as an expression the
        statement already has (0 when nothing is); by default its
        ``used``.
    """
    if amount > common.MAX_INT:
        # Over any max_unit: no provider, and no integer the database
        # would take (SQLite's stop at 2**63).
        return (sa.false(),)
    if usage is None:
        usage = used(class_id=rc_id, or_zero=True)
    return (usage + amount <= capacity(),
            INV.c.min_unit <= amount,
            INV.c.max_unit >= amount,
            amount % INV.c.step_size == 0)


# Building the clause costs ~0.3 ms, a tenth of filtering a small list;
# the same few (class, amount) pairs come back request after request.
@functools.lru_cache(maxsize=256)
def has_capacity(rp_col, rc_id, amount, each=False, opaque=False):
    """The provider's inventory of ``rc_id`` can take ``amount`` more.

    Capacity, min_unit, max_unit and step_size.

    ``each``: tested for each provider the rest of the statement leaves,
    by its own inventory row, not joined with the inventories of the
    class. For PostgreSQL where an IN of few providers comes first (see
    in_every): the EXISTS, given an OFFSET 0, is not made a semi-join (a
    subquery with an OFFSET is not, PostgreSQL's simplify_EXISTS_query),
    so the planner neither orders the classes' semi-joins (planning 0.3
    ms instead of 0.8 to 1.5) nor, on analyzed tables, hashes every
    inventory of a class with the usage of each: the capacity and
    ``amount % step_size = 0`` are estimated to keep one inventory row
    of 1,000 (a default selectivity of 0.005 for the latter), so it
    hashed the 1,000 instead of probing the 161 providers' rows.

    ``opaque``: the tests of the row as one ``CASE WHEN ... THEN true
    ELSE false END``, for PostgreSQL where the EXISTS is a semi-join
    (no ``each``). Of the tests themselves an analyzed PostgreSQL
    expects a few rows (the capacity's comparison a third, ``amount %
    step_size = 0`` the default 0.005: 17 inventory rows of a class
    where 10,000 fit) and joins the providers with the classes' rows in
    nested loops, an index probe a provider and class (the 10,000 empty
    computes' statement, replayed at load 8 to 11: 233 and 331 ms
    median). Of a CASE it takes one half, as of the unsuffixed class
    rows (``candidates._Builder._class_rows``): the rows are hashed
    (173 and 205 ms). A row whose tests are NULL is left out either way
    (the CASE is false).
    """
    # The usage is correlated with the inventory row of the EXISTS around
    # it: named through ``rp_col``, the provider's table would be
    # correlated two levels up, which SQLAlchemy does not do; it would
    # join it instead, and sum every provider's usage of the class.
    tests = fits(rc_id, amount)
    if opaque:
        tests = (sa.case((sa.and_(*tests), sa.true()), else_=sa.false()),)
    conditions = (INV.c.resource_provider_id == rp_col,
                  INV.c.resource_class_id == rc_id,
                  *tests)
    if each:
        return (sa.select(INV.c.resource_provider_id).where(*conditions)
                .offset(0).exists())
    return sa.exists().where(*conditions)


# What is allocated of each inventory row, grouped by row: joined to the
# rows of the providers (with_room_by_rows), MariaDB reads it by a lookup
# of each row (a LATERAL DERIVED table) or, with few allocations, whole
# once; PostgreSQL aggregates it whole once (a hash of the allocations,
# merged with the rows).
_ROW_USAGE = (sa.select(ALLOC.c.resource_provider_id,
                        ALLOC.c.resource_class_id,
                        sa.func.sum(ALLOC.c.used).label('used'))
              .group_by(ALLOC.c.resource_provider_id,
                        ALLOC.c.resource_class_id)
              .subquery('row_usage'))
# In with_room_by_rows's statement: the usage of the row INV, 0 for none.
ROW_USED = sa.func.coalesce(_ROW_USAGE.c.used, 0)
# In with_room_by_rows's statement: the uuid of the group's provider. An
# aggregate, for a server whose sql_mode has ONLY_FULL_GROUP_BY; grouped
# by the uuid too, MariaDB sorted the groups instead of reading the
# providers in their primary key's order.
GROUP_UUID = sa.func.min(RP.c.uuid)


def by_rows(dialect):
    """Whether a flat statement tests capacity with ``with_room_by_rows``.

    On MariaDB and PostgreSQL, where it reads the usage of a provider's
    rows once for the capacity and the summaries. For the 10,000
    computes of the benchmark, on MariaDB, the providers that can take
    three classes were found in 190 ms instead of 295 to 315 by an
    EXISTS a class (each probing the class's row and summing its usage),
    and with their summaries in 292 ms instead of 538 (the summaries'
    own subqueries reading the usage again) or 616 (the summaries in
    statements of their own); with five allocations of each class on
    each compute, 552 ms instead of 795 or 914. On PostgreSQL, with
    their summaries, 254 ms instead of 337 to 353, and with the
    allocations 325 instead of 540 to 568 (by hand, the median of 5 to 7
    runs, through the driver).
    """
    return dialect in ('mysql', 'postgresql')


def with_room_by_rows(query, resources):
    """``query``'s providers (RP) that can take ``resources``, grouped.

    Each provider is joined with its inventory rows (INV, which the
    statement's other columns may read, each with ROW_USED) and grouped
    by its id: it is kept where each class's row ``fits`` (HAVING: the
    rows that fit counted, one a class). The usage of a row is read once
    for the test and for whatever else the statement writes of it. Its
    columns must be the group's: RP's id, GROUP_UUID, aggregates.

    :param resources: (class id, amount) pairs, one a class, at least one.
    """
    fitting = sa.func.sum(sa.case(
        *[(sa.and_(INV.c.resource_class_id == rc_id,
                   *fits(rc_id, amount, ROW_USED)), 1)
          for rc_id, amount in resources],
        else_=0))
    rows = RP.join(INV, INV.c.resource_provider_id == RP.c.id).outerjoin(
        _ROW_USAGE, sa.and_(
            _ROW_USAGE.c.resource_provider_id == INV.c.resource_provider_id,
            _ROW_USAGE.c.resource_class_id == INV.c.resource_class_id))
    return (query.select_from(rows)
            .group_by(RP.c.id)
            .having(fitting == len(resources)))
