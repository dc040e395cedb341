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

"""The provider summaries of allocation candidates, written in SQL.

The provider summaries are written by the database, as the provider
list is (resource_providers.listing_document): each provider's JSON
text, with its inventories, usage and traits aggregated in it, so that
thousands of summaries build no row, tuple or dict a value in Python,
nor a string a value in PyMySQL. Uuids, class and trait names are
written between quotes as they are: each is checked on its way in
(uuids; CUSTOM_ and os-traits / os-resource-classes names of capital
letters, digits and underscores), none holds a character JSON escapes.
"""

import functools
import re

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql
from sqlalchemy.sql import util as sql_util

from zun_hostcap.db.sqlalchemy import models
from zun_hostcap.db.sqlalchemy.placement import common
from zun_hostcap.db.sqlalchemy.placement import provider_filter
from zun_hostcap.db.sqlalchemy.placement import resource_classes as rc_db
from zun_hostcap.db.sqlalchemy.placement import resource_providers as rp_db

RP = common.RP
INV = models.Inventory.__table__
RPT = models.ResourceProviderTrait.__table__
RC = models.ResourceClass.__table__
TRAIT = models.Trait.__table__


def _joined(dialect, text, order_by):
    """``text`` of the rows aggregated, ', ' between, in ``order_by``.

    SQLite (3.40) takes no ORDER BY in group_concat; it aggregates in the
    order of the index the correlated lookup uses, the same.
    """
    if dialect == 'sqlite':
        return sa.func.group_concat(text, ', ')
    return sa.func.aggregate_strings(text, ', ').aggregate_order_by(order_by)


def _text(value):
    return sa.cast(value, sa.String)


_ROOT = RP.alias('summary_root')
_PARENT = RP.alias('summary_parent')
# PostgreSQL: a flat summary's traits, joined to the providers found
# (flat_grouping).
_FLAT_HELD = RPT.alias('summary_held')
_FLAT_TRAIT = TRAIT.alias('summary_trait')
# The name of the inventory row INV's class, looked up row by row (not
# joined: see _summary_document).
_LOOKED_UP_CLASS_NAME = (sa.select(RC.c.name)
                         .where(RC.c.id == INV.c.resource_class_id)
                         .scalar_subquery())
_PLAIN_NAME = re.compile(r'[A-Z0-9_]+\Z').match


@functools.lru_cache(maxsize=None)
def _class_name(dialect):
    """The name of the inventory row INV's class, as the summaries write it.

    A standard class's id is its index in os-resource-classes
    (resource_classes.STANDARDS), in every database: on MariaDB and
    PostgreSQL its name is picked from the list by that index, written
    into the statement (``ELT``; an array's subscript), and only a
    custom class (or a standard one newer than the list) is looked up.
    A lookup of each row took MariaDB 5.7 ms of the nested shape's 57
    (7,000 summaries, 9,000 inventory rows) and 1.1 of the mixed set's
    12.2; PostgreSQL's join with the classes 1.8 of 37.5 and 1.2 of
    10.6. SQLite looks every name up.
    """
    if (dialect not in ('mysql', 'postgresql') or
            not all(_PLAIN_NAME(name) for name in rc_db.STANDARDS)):
        return _LOOKED_UP_CLASS_NAME
    standard = INV.c.resource_class_id < len(rc_db.STANDARDS)
    # Constants of os-resource-classes, of capitals, digits and
    # underscores: written as they are, not bound at every execution.
    names = [sa.literal_column("'%s'" % name, sa.String)
             for name in rc_db.STANDARDS]
    if dialect == 'mysql':
        picked = sa.func.elt(INV.c.resource_class_id + 1, *names,
                             type_=sa.String)
    else:
        # Arrays count from 1.
        picked = postgresql.array(names)[INV.c.resource_class_id + 1]
    return sa.case((standard, picked), else_=_LOOKED_UP_CLASS_NAME)


@functools.lru_cache(maxsize=64)
def _row_resources(dialect, class_ids):
    """A provider's resources, aggregated over its inventory rows.

    In a statement grouped by provider with its rows joined
    (provider_filter.with_room_by_rows). Rows of classes not in
    ``class_ids`` (a frozenset, or None for all) are NULL, which the
    aggregate skips.
    """
    text = _resource_text(dialect, provider_filter.ROW_USED)
    if class_ids is not None:
        text = sa.case((INV.c.resource_class_id.in_(sorted(class_ids)),
                        text))
    return _joined(dialect, text, INV.c.resource_class_id)


@functools.lru_cache(maxsize=64)
def _summary_document(dialect, class_ids, with_traits, nested, flat=False,
                      joined=False):
    """The SQL expression of a provider's summary, ``"uuid": {...}``.

    Built once for each form (``class_ids`` a frozenset, or None for
    every class): building it costs more than running it compiled.
    ``flat``: the provider is known to be a root without children (see
    flat_document); otherwise its root and parent are joined as
    summary_root and summary_parent. ``joined``: the statement joins
    the provider's inventory rows, grouped by provider
    (provider_filter.with_room_by_rows); the resources are aggregated
    over them (_row_resources).

    The class's name is no join (see _class_name): in the correlated
    subquery MariaDB began the join with the classes' table and probed
    the provider's inventories once per class (21 a provider), which
    took 28 ms of 1,010 summaries instead of 13.
    """
    uuid = RP.c.uuid
    if joined:
        uuid = provider_filter.GROUP_UUID
        resources = _row_resources(dialect, class_ids)
    else:
        text = _resource_text(dialect)
        resources = (sa.select(_joined(dialect, text,
                                       INV.c.resource_class_id))
                     .where(INV.c.resource_provider_id == RP.c.id))
        if class_ids is not None:
            resources = resources.where(
                INV.c.resource_class_id.in_(sorted(class_ids)))
        resources = resources.scalar_subquery()
    document = (sa.literal('"') + uuid + '": {"resources": {' +
                sa.func.coalesce(resources, '') + '}')
    if with_traits and flat and dialect == 'postgresql':
        # Aggregated over flat_grouping's join.
        traits = _joined(dialect, '"' + _FLAT_TRAIT.c.name + '"',
                         _FLAT_HELD.c.trait_id)
    elif with_traits and flat:
        # The trait's name a lookup of each row, as the class's
        # (PostgreSQL: see flat_grouping).
        trait_name = (sa.select(TRAIT.c.name)
                      .where(TRAIT.c.id == RPT.c.trait_id)
                      .scalar_subquery())
        traits = (sa.select(_joined(dialect, '"' + trait_name + '"',
                                    RPT.c.trait_id))
                  .where(RPT.c.resource_provider_id == RP.c.id)
                  .scalar_subquery())
    elif with_traits:
        traits = (sa.select(_joined(dialect, '"' + TRAIT.c.name + '"',
                                    RPT.c.trait_id))
                  .select_from(RPT.join(TRAIT,
                                        TRAIT.c.id == RPT.c.trait_id))
                  .where(RPT.c.resource_provider_id == RP.c.id)
                  .scalar_subquery())
    if with_traits:
        document = (document + ', "traits": [' +
                    sa.func.coalesce(traits, '') + ']')
    if nested and flat:
        document = (document + ', "parent_provider_uuid": null, '
                    '"root_provider_uuid": "' + uuid + '"')
    elif nested:
        document = (document + ', "parent_provider_uuid": ' +
                    sa.func.coalesce('"' + _PARENT.c.uuid + '"', 'null') +
                    ', "root_provider_uuid": "' + _ROOT.c.uuid + '"')
    return document + '}'


def flat_document(connection, class_ids, with_traits, nested,
                  joined=False):
    """A provider's summary as a column of the statement that finds it.

    For a provider with neither parent nor children, such as every
    provider of a flat cloud: its own uuid is its root's. Read with the
    providers of a lone flat group, the summaries cost no statement of
    their own (a round trip, PostgreSQL's planning, and a join of the
    providers found again: 1 to 1.5 ms of about 10 for 161 providers).
    ``joined``: the statement is grouped by inventory rows
    (provider_filter.with_room_by_rows); the summary is an aggregate of
    its rows. None on PostgreSQL with traits: flat_grouping writes them.
    """
    dialect = connection.dialect.name
    if _grouped(connection, with_traits):
        return None
    return _summary_document(
        dialect, None if class_ids is None else frozenset(class_ids),
        with_traits, nested, flat=True, joined=joined)


def flat_grouping(connection, query, form, joined=False):
    """``query``, with its providers' summaries where flat_document gave none.

    ``form``: flat_document's (class_ids, with_traits, nested), and
    ``joined`` its own. On PostgreSQL with traits, flat_document gives
    no column: the providers ``query`` finds (id, uuid, and their
    resources' text where it is grouped by inventory rows) are fenced
    in a subquery (OFFSET 0: its
    joins and semi-joins planned as before, whatever follows), and this
    statement joins their traits and the traits' names to them, grouped
    by provider, and writes each summary, the same text. The join
    is planned once for all the providers found: a lookup of each name
    by the traits' primary key (a nested loop's inner index scan, costed
    as cached), whether there are 377 traits or 20,377. So the names
    cost what the providers found hold, not every trait of the database:
    read from one JSON object of every trait by id (round 3), they cost
    0.1 ms a statement for the 377 standard traits but 20 to 40 ms with
    20,000 custom ones; looked up in a subquery of each row, they were a
    scan of the traits' pages for each name once the table is ANALYZEd;
    joined in a subquery of each provider, a hash of every trait for
    each provider. Unfenced, the planner put the traits' join among the
    capacity's semi-joins, estimated at one row each, and tested a
    class's capacity once a trait (1,000 providers: 15 % slower).
    """
    class_ids, with_traits, nested = form
    if not _grouped(connection, with_traits):
        return query
    class_ids = None if class_ids is None else frozenset(class_ids)
    if joined:
        # Aggregated inside the fence, over the rows grouped there.
        query = query.add_columns(
            _row_resources('postgresql', class_ids).label('resources'))
    found = query.offset(0).subquery('summary_found')
    document = sql_util.ClauseAdapter(found).traverse(_summary_document(
        'postgresql', class_ids, with_traits, nested, flat=True,
        joined=joined))
    held = _FLAT_HELD.join(_FLAT_TRAIT,
                           _FLAT_TRAIT.c.id == _FLAT_HELD.c.trait_id)
    # Grouped by what the document reads of each provider found.
    grouped = [found.c.id, found.c.uuid]
    if joined:
        grouped.append(found.c.resources)
    return (sa.select(found.c.id, found.c.uuid, document)
            .select_from(found.outerjoin(
                held, _FLAT_HELD.c.resource_provider_id == found.c.id))
            .group_by(*grouped))


def _grouped(connection, with_traits):
    """Whether the flat summaries are flat_grouping's."""
    return with_traits and connection.dialect.name == 'postgresql'


def _resource_text(dialect, used=None):
    """One inventory's ``"CLASS": {"capacity": ..., "used": ...}``.

    Its class is named by _class_name. ``used``: what is allocated of
    it, if the statement has it already.
    """
    if used is None:
        used = provider_filter.used(or_zero=True)
    return (sa.literal('"') + _class_name(dialect) + '": {"capacity": ' +
            _text(provider_filter.capacity(dialect)) + ', "used": ' +
            _text(used) + '}')


@functools.lru_cache(maxsize=128)
def _grouped_statement(class_ids, with_traits, nested, by_root, as_range):
    """The summaries of the providers asked for, grouped by provider.

    PostgreSQL. The same text as ``_summary_document``'s, but each
    provider's resources and traits come from a join grouped by
    provider, restricted to the providers asked for, not from a
    correlated subquery a provider: 1.6 to 2.5 times as fast there
    (161 to 1,000 flat providers, one run). On MariaDB the same
    statement, its derived tables materialized, was slower than the
    subqueries (0.7 to 0.9 times as fast): it keeps them. ``ids`` (an
    array) are root ids with ``by_root``, else provider ids: one array
    however many, not lists of IN_CHUNK, each of whose statements would
    scan the inventories and traits of the whole database again (5
    statements for 25,000 providers took twice as long a provider as
    one statement for 5,000).

    With ``as_range`` the ids are most of a range (``common.id_range``),
    sent as its ends (``first``, ``last``) and an array of its
    ``holes``. The ids are tested three times, and PostgreSQL estimates
    the rows of each element of an array each time: the mixed set's
    801 roots took 3.3 to 5.5 ms of planning, the range 1.0 to 1.6,
    for a statement that runs in 11 to 19 ms.
    """
    dialect = 'postgresql'
    if as_range:
        first, last = sa.bindparam('first'), sa.bindparam('last')
        holes = sa.bindparam('holes', type_=postgresql.ARRAY(sa.Integer))

        def wanted(column):
            # Its holes as a hashed subquery: of an array, each element's
            # rows would be estimated again.
            return sa.and_(column.between(first, last),
                           column.not_in(sa.select(sa.func.unnest(holes))))
    else:
        ids = sa.bindparam('ids', type_=postgresql.ARRAY(sa.Integer))

        def wanted(column):
            return column == sa.any_(ids)

    def of_wanted(table, rp_col):
        """``table``'s rows of the providers asked for, and the join.

        By provider id, the rows are named by their own column, without
        a lookup of the providers (0.5 to 1 ms of 3.5 for 161 flat
        providers).
        """
        if not by_root:
            return table, wanted(rp_col)
        member = RP.alias('summary_member')
        return (table.join(member, member.c.id == rp_col),
                wanted(member.c.root_provider_id))

    inventories, inventories_wanted = of_wanted(INV,
                                                INV.c.resource_provider_id)
    resources = (
        sa.select(INV.c.resource_provider_id.label('rp_id'),
                  _joined(dialect, _resource_text(dialect),
                          INV.c.resource_class_id).label('text'))
        .select_from(inventories)
        .where(inventories_wanted)
        .group_by(INV.c.resource_provider_id))
    if class_ids is not None:
        resources = resources.where(
            INV.c.resource_class_id.in_(sorted(class_ids)))
    resources = resources.subquery('summary_resources')
    froms = (RP.join(_ROOT, _ROOT.c.id == RP.c.root_provider_id)
             .outerjoin(_PARENT, _PARENT.c.id == RP.c.parent_provider_id)
             .outerjoin(resources, resources.c.rp_id == RP.c.id))
    document = (sa.literal('"') + RP.c.uuid + '": {"resources": {' +
                sa.func.coalesce(resources.c.text, '') + '}')
    if with_traits:
        holders, holders_wanted = of_wanted(RPT, RPT.c.resource_provider_id)
        traits = (
            sa.select(RPT.c.resource_provider_id.label('rp_id'),
                      _joined(dialect, '"' + TRAIT.c.name + '"',
                              RPT.c.trait_id).label('text'))
            .select_from(holders.join(TRAIT, TRAIT.c.id == RPT.c.trait_id))
            .where(holders_wanted)
            .group_by(RPT.c.resource_provider_id)
            .subquery('summary_traits'))
        froms = froms.outerjoin(traits, traits.c.rp_id == RP.c.id)
        document = (document + ', "traits": [' +
                    sa.func.coalesce(traits.c.text, '') + ']')
    if nested:
        document = (document + ', "parent_provider_uuid": ' +
                    sa.func.coalesce('"' + _PARENT.c.uuid + '"', 'null') +
                    ', "root_provider_uuid": "' + _ROOT.c.uuid + '"')
    document = document + '}'
    rp_col = RP.c.root_provider_id if by_root else RP.c.id
    return (sa.select(document).select_from(froms)
            .where(wanted(rp_col)).order_by(RP.c.id))


def text(context, roots, only, class_ids, with_traits, nested, flat=False):
    """The inside of the provider summaries' JSON object.

    In the caller's read transaction.

    :param roots: the root ids of the trees whose every provider has a
        summary;
    :param only: else the ids of the providers that have one (below
        1.29), or None;
    :param class_ids: the classes a summary shows (below 1.27), or None
        for all of a provider's;
    :param with_traits: a summary shows the provider's traits (1.17);
    :param nested: it shows the parent's and root's uuids (1.29).
    :param flat: every provider of ``only`` is known to be a root without
        children: on MariaDB and SQLite, no root or parent is joined
        (see flat_document).
    """
    connection = context.session.connection()
    dialect = connection.dialect.name
    if dialect == 'postgresql':
        ids = sorted(only if only is not None else roots)
        found = common.id_range(ids)
        query = _grouped_statement(
            None if class_ids is None else frozenset(class_ids),
            with_traits, nested, only is None, found is not None)
        params = ({'ids': ids} if found is None else
                  dict(zip(('first', 'last', 'holes'), found)))
        return ', '.join(context.session.execute(
            query, params).scalars().all())
    document = _summary_document(
        dialect, None if class_ids is None else frozenset(class_ids),
        with_traits, nested, flat=flat)
    froms = RP
    if not flat:
        froms = (RP.join(_ROOT, _ROOT.c.id == RP.c.root_provider_id)
                 .outerjoin(_PARENT,
                            _PARENT.c.id == RP.c.parent_provider_id))
    if dialect == 'mysql':
        rp_db.raise_group_concat_limit(connection)
        # A row for up to LISTING_CHUNK providers: PyMySQL decodes each
        # value of each row in Python.
        chunk = sa.func.floor(RP.c.id / rp_db.LISTING_CHUNK)
        query = (sa.select(sa.func.aggregate_strings(document, ', ')
                           .aggregate_order_by(RP.c.id))
                 .group_by(chunk).order_by(chunk))
    else:
        query = sa.select(document).order_by(RP.c.id)
    query = query.select_from(froms)
    ids, column = ((only, RP.c.id) if only is not None else
                   (roots, RP.c.root_provider_id))
    texts = []
    for part in common.chunks(ids):
        texts.extend(context.session.execute(
            query.where(common.in_ids(column, part))).scalars().all())
    return ', '.join(texts)
