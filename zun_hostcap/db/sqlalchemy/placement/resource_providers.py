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

"""Resource providers: create, read, update, delete and the filtered list.

A provider is returned as a dict of the ``ResourceProvider`` object's
fields: id, uuid, name, generation, parent_provider_uuid,
root_provider_uuid, created_at, updated_at.

Trees: ``root_provider_id`` is the provider's own id for a root, the
root's id for every other member; re-parenting moves a whole subtree,
so the subtree's rows get the new root in the same transaction.
"""

import datetime
import functools
import json

from oslo_db import exception as db_exc
from oslo_utils import timeutils
import sqlalchemy as sa

from zun_hostcap.common import exception
from zun_hostcap.db.sqlalchemy import models
from zun_hostcap.db.sqlalchemy.placement import common
from zun_hostcap.db.sqlalchemy.placement import provider_filter
from zun_hostcap.db.sqlalchemy.placement import resource_classes
from zun_hostcap.db.sqlalchemy.placement import traits as trait_db

RP = common.RP
INV = models.Inventory.__table__
ALLOC = models.Allocation.__table__
RPT = models.ResourceProviderTrait.__table__
RPA = models.ResourceProviderAggregate.__table__

# Sentinel: PUT without parent_provider_uuid leaves the parent alone.
UNSET = object()

_ROOT = RP.alias('root_rp')
_PARENT = RP.alias('parent_rp')

# The provider with its parent's and root's uuids: one row per provider.
_SELECT = sa.select(
    RP.c.id, RP.c.uuid, RP.c.name, RP.c.generation,
    _PARENT.c.uuid.label('parent_provider_uuid'),
    # A provider whose root is not set (never, once created) is its own.
    sa.func.coalesce(_ROOT.c.uuid, RP.c.uuid).label('root_provider_uuid'),
    RP.c.created_at, RP.c.updated_at,
).select_from(
    RP.outerjoin(_ROOT, RP.c.root_provider_id == _ROOT.c.id)
      .outerjoin(_PARENT, RP.c.parent_provider_id == _PARENT.c.id))

# Its joins, for the queries that select other columns from them (worked
# out once: SQLAlchemy walks the statement for them).
_SELECT_FROMS = tuple(_SELECT.get_final_froms())

# The order of _SELECT's columns: the fields of ResourceProvider.
KEYS = ('id', 'uuid', 'name', 'generation', 'parent_provider_uuid',
        'root_provider_uuid', 'created_at', 'updated_at')


def _values(row):
    return dict(zip(KEYS, row))


def _duplicate_field(exc):
    """'uuid' or 'name': which unique key a DBDuplicateEntry hit."""
    for column in exc.columns or ():
        if 'uuid' in column:
            return 'uuid'
        if 'name' in column:
            return 'name'
    return 'name'


def _get(context, uuid):
    row = context.session.execute(
        _SELECT.where(RP.c.uuid == uuid)).first()
    if row is None:
        raise exception.ResourceProviderNotFound(uuid=uuid)
    return _values(row)


@common.reader
def check_exists(context, uuid):
    """:raises ResourceProviderNotFound: no provider has ``uuid``."""
    common.provider_row(context, uuid)


@common.reader
def get_by_uuid(context, uuid):
    """The provider with ``uuid``.

    :raises ResourceProviderNotFound: there is none.
    """
    return _get(context, uuid)


# The statements of a provider's creation, built once.
_PARENT_OF_NEW = sa.select(
    RP.c.id, RP.c.root_provider_id,
    sa.func.coalesce(_ROOT.c.uuid, RP.c.uuid).label('root_uuid'),
).select_from(
    RP.outerjoin(_ROOT, RP.c.root_provider_id == _ROOT.c.id)
).where(RP.c.uuid == sa.bindparam('uuid'))
_INSERT_PROVIDER = RP.insert()
# Part of the creation, not an update: updated_at stays unset.
_OWN_ROOT = (RP.update().where(RP.c.id == sa.bindparam('b_id'))
             .values(root_provider_id=sa.bindparam('b_id'), updated_at=None))


@common.retry_on_deadlock
@common.writer
def create(context, uuid, name, parent_uuid=None):
    """A new provider, root of its own tree or child of ``parent_uuid``.

    :returns: the provider's values (as ``get_by_uuid``), known without
        reading the row back.
    :raises ResourceProviderExists: the uuid or the name is taken.
    :raises ResourceProviderActionError: the parent does not exist or
        is the provider itself.
    """
    session = context.session
    parent_id = root_id = None
    root_uuid = uuid
    if parent_uuid is not None:
        if parent_uuid == uuid:
            raise exception.ResourceProviderActionError(
                action='create',
                reason='parent provider UUID cannot be same as UUID. '
                       'Please set parent provider UUID to None if there '
                       'is no parent.')
        parent = session.execute(_PARENT_OF_NEW,
                                 {'uuid': parent_uuid}).first()
        if parent is None:
            raise exception.ResourceProviderActionError(
                action='create',
                reason='parent provider UUID does not exist.')
        parent_id, root_id = parent.id, parent.root_provider_id
        root_uuid = parent.root_uuid
    now = timeutils.utcnow()
    try:
        rp_id = session.execute(_INSERT_PROVIDER, {
            'uuid': uuid, 'name': name, 'generation': 0,
            'parent_provider_id': parent_id, 'root_provider_id': root_id,
            'created_at': now}).inserted_primary_key[0]
    except db_exc.DBDuplicateEntry as exc:
        field = _duplicate_field(exc)
        raise exception.ResourceProviderExists(
            field=field, value=uuid if field == 'uuid' else name)
    if root_id is None:
        session.execute(_OWN_ROOT, {'b_id': rp_id})
    return dict(zip(KEYS, (rp_id, uuid, name, 0, parent_uuid, root_uuid,
                           now, None)))


def _subtree_ids(session, rp_id, root_id):
    """Ids of the provider and its descendants (one query for the tree)."""
    children = {}
    for row in session.execute(
            sa.select(RP.c.id, RP.c.parent_provider_id)
            .where(RP.c.root_provider_id == root_id)):
        children.setdefault(row.parent_provider_id, []).append(row.id)
    found = []
    todo = [rp_id]
    while todo:
        current = todo.pop()
        found.append(current)
        todo.extend(children.get(current, ()))
    return found


@common.retry_on_deadlock
@common.writer
def update(context, uuid, name, parent_uuid=UNSET,
           allow_reparenting=False, report=None):
    """Rename a provider and (with ``parent_uuid``) set its parent.

    Before microversion 1.37 (``allow_reparenting`` false) a parent may
    only be given to a root; from it a provider may move to another
    parent or become a root, though never below itself. ``report``, a
    WriteReport, is told whether its name or parent changed.

    :raises ResourceProviderNotFound: no such provider.
    :raises ResourceProviderExists: the name is taken.
    :raises ResourceProviderActionError: what the parent would break.
    """
    session = context.session
    me = common.provider_row(context, uuid)
    values = {'name': name, 'updated_at': timeutils.utcnow()}
    new_root = None
    if parent_uuid is not UNSET:
        if parent_uuid is not None:
            parent = session.execute(
                sa.select(RP.c.id, RP.c.root_provider_id)
                .where(RP.c.uuid == parent_uuid)).first()
            if parent is None:
                raise exception.ResourceProviderActionError(
                    action='create',
                    reason='parent provider UUID does not exist.')
            if (me.parent_provider_id is not None and
                    me.parent_provider_id != parent.id and
                    not allow_reparenting):
                raise exception.ResourceProviderActionError(
                    action='update',
                    reason='re-parenting a provider is not currently '
                           'allowed.')
            if parent.id != me.parent_provider_id:
                subtree = _subtree_ids(session, me.id, me.root_provider_id)
                if parent.id in subtree:
                    raise exception.ResourceProviderActionError(
                        action='update',
                        reason='creating loop in the provider tree is not '
                               'allowed.')
                values['parent_provider_id'] = parent.id
                new_root = parent.root_provider_id
        elif me.parent_provider_id is not None:
            if not allow_reparenting:
                raise exception.ResourceProviderActionError(
                    action='update',
                    reason='un-parenting a provider is not currently '
                           'allowed.')
            subtree = _subtree_ids(session, me.id, me.root_provider_id)
            values['parent_provider_id'] = None
            new_root = me.id
    try:
        session.execute(RP.update().where(RP.c.id == me.id).values(**values))
    except db_exc.DBDuplicateEntry:
        raise exception.ResourceProviderExists(field='name', value=name)
    except db_exc.DBReferenceError:
        # The new parent went away in between.
        raise exception.ResourceProviderActionError(
            action='update', reason='parent provider UUID does not exist.')
    if new_root is not None and new_root != me.root_provider_id:
        session.execute(RP.update().where(RP.c.id.in_(subtree))
                        .values(root_provider_id=new_root))
    if report is not None:
        report.changed = (me.name != name or
                          'parent_provider_id' in values)
    return _get(context, uuid)


@common.retry_on_deadlock
@common.writer
def destroy(context, uuid, report=None):
    """Delete a provider with its inventories, traits and aggregates.

    ``report``, a WriteReport, gets the provider as it was (the values
    of ``get_by_uuid``).

    :raises ResourceProviderNotFound: no such provider.
    :raises CannotDeleteParentResourceProvider: it has children.
    :raises ResourceProviderInUse: it has allocations.
    """
    session = context.session
    row = session.execute(
        sa.select(
            RP.c.id,
            sa.exists().where(RP.alias('child').c.parent_provider_id ==
                              RP.c.id).label('has_children'),
            sa.exists().where(ALLOC.c.resource_provider_id ==
                              RP.c.id).label('in_use'))
        .where(RP.c.uuid == uuid)).first()
    if row is None:
        raise exception.ResourceProviderNotFound(uuid=uuid)
    if row.has_children:
        raise exception.CannotDeleteParentResourceProvider(uuid=uuid)
    if row.in_use:
        raise exception.ResourceProviderInUse(
            uuid=uuid, reason='Resource provider has allocations.')
    rp_id = row.id
    if report is not None:
        report.changed = True
        report.state = _get(context, uuid)
    for table in (INV, RPT, RPA):
        session.execute(table.delete().where(
            table.c.resource_provider_id == rp_id))
    # The root reference to itself first, or the foreign key refuses.
    session.execute(RP.update().where(RP.c.id == rp_id)
                    .values(root_provider_id=None))
    try:
        session.execute(RP.delete().where(RP.c.id == rp_id))
    except db_exc.DBReferenceError:
        # A child appeared since the check above.
        raise exception.CannotDeleteParentResourceProvider(uuid=uuid)


def _class_ids(context, names):
    """{name: id} of resource classes; unknown names are an error."""
    found = resource_classes.ids_for_names(context, names)
    for name in names:
        if name not in found:
            raise exception.ResourceClassNotFound(name=name)
    return found


def _trait_ids(context, names):
    """{name: id} of traits; unknown names are an error."""
    found = trait_db.ids_for_names(context, names)
    missing = sorted(set(names) - set(found))
    if missing:
        raise exception.TraitNotFound(names=', '.join(missing))
    return found


@common.reader
def get_all_by_filters(context, filters=None):
    """Providers matching every filter given, as dicts, ordered by id.

    See ``rows_by_filters``.
    """
    return [_values(row) for row in rows_by_filters(context, filters)]


# A list of providers is rendered by the database: each provider's JSON
# text is concatenated in SQL, so listing thousands of them builds no
# row, object or dict a provider in Python. The document's fields are
# those of Placement's list: uuid, name, generation, links, and from
# 1.14 parent_provider_uuid and root_provider_uuid. Uuids are written
# as they are (they are checked as uuids on every way in); the name is
# quoted by the database's own JSON function. On SQLite this is about as
# fast as formatting the rows in Python (and builds no object a row);
# through PyMySQL, several times faster.
#
# MariaDB (through PyMySQL, which decodes each value of each row in
# Python) also joins the texts of up to LISTING_CHUNK providers into
# one value with GROUP_CONCAT: 1,000 providers come as four values, not
# 1,000 rows. GROUP_CONCAT cuts a value longer than group_concat_max_len
# (with only a warning), so each connection's limit is raised to 16 MiB
# (MySQL's default is 1 kB; MariaDB's 1 MiB); a provider's text is under
# 2.1 kB (a 200-character name quoted), a chunk under 0.6 MB, far from
# it. MariaDB's JSON_OBJECT()/JSON_ARRAYAGG() would do the same but take
# three times as long as CONCAT().
LISTING_CHUNK = 256
_GROUP_CONCAT_MAX_LEN = 16 * 1024 * 1024
_SEPARATOR = ', '


def _json_literal(value):
    """``value`` as the inside of a JSON string (escaped, not quoted)."""
    return json.dumps(value)[1:-1]


@functools.lru_cache(maxsize=32)
def _document(dialect, links, tree):
    """The SQL expression of one provider's JSON text.

    Built once for each form (a handful: the microversions and link
    prefixes a deployment serves). SQLite formats it with printf(), in
    one pass; the others concatenate with CONCAT(), which takes any
    number of arguments (SQL's || would copy the growing text once for
    each of its thirty parts).
    """
    if dialect == 'postgresql':
        name = sa.cast(sa.func.to_json(RP.c.name), sa.Text)
    else:
        # SQLite's json_quote(), MariaDB's and MySQL's JSON_QUOTE().
        name = sa.func.json_quote(RP.c.name)
    # Literal text and values, in order.
    parts = ['{"uuid": "', RP.c.uuid, '", "name": ', name,
             ', "generation": ', RP.c.generation, ', "links": [']
    for index, (rel, head, tail) in enumerate(links):
        parts += ['%s{"rel": "%s", "href": "%s' % (
            ', ' if index else '', _json_literal(rel), _json_literal(head)),
            RP.c.uuid, '%s"}' % _json_literal(tail)]
    parts.append(']')
    if tree:
        # Concatenation with NULL is NULL (|| or MySQL's CONCAT(); not
        # PostgreSQL's CONCAT()).
        quoted_parent = sa.func.coalesce(
            sa.literal('"') + _PARENT.c.uuid + '"', 'null')
        parts += [', "parent_provider_uuid": ', quoted_parent,
                  ', "root_provider_uuid": "',
                  sa.func.coalesce(_ROOT.c.uuid, RP.c.uuid), '"']
    parts.append('}')
    if dialect != 'sqlite':
        return sa.func.concat(*[
            sa.cast(part, sa.String) if part is RP.c.generation else part
            for part in parts])
    template = ''.join(
        part.replace('%', '%%') if isinstance(part, str) else
        '%d' if part is RP.c.generation else '%s' for part in parts)
    return sa.func.printf(template, *[
        part for part in parts if not isinstance(part, str)])


def raise_group_concat_limit(connection):
    """Let MariaDB's GROUP_CONCAT make values up to 16 MiB long."""
    if not connection.info.get('zun_hostcap_group_concat'):
        connection.exec_driver_sql(
            'SET SESSION group_concat_max_len = %d' % _GROUP_CONCAT_MAX_LEN)
        connection.info['zun_hostcap_group_concat'] = True


@common.reader
def listing_document(context, filters=None, links=(), tree=True):
    """(text, newest change) of the providers matching ``filters``.

    :param filters: as ``rows_by_filters``.
    :param links: (rel, head, tail) of each link a provider shows; its
        href is head + the provider's uuid + tail.
    :param tree: whether the documents show the parent and root uuids.
    :returns: the providers' JSON documents, in id order, separated by
        ``, `` (the inside of a JSON array), and the newest updated_at
        (or created_at) of them, None when none matches.
    :raises ResourceClassNotFound: an unknown class in resources.
    :raises TraitNotFound: an unknown trait.
    """
    connection = context.session.connection()
    dialect = connection.dialect.name
    document = _document(dialect, tuple(links), tree)
    # Times as text: compared as text (each database writes them in a
    # fixed-width form, most significant first), only the newest parsed.
    changed = sa.cast(sa.func.coalesce(RP.c.updated_at, RP.c.created_at),
                      sa.String)
    if dialect == 'mysql':
        raise_group_concat_limit(connection)
        # Straight from the join: through a derived table of the
        # documents, MariaDB wrote them all to a temporary table first,
        # a third of the query's time.
        chunk = sa.func.floor(RP.c.id / LISTING_CHUNK)
        query = (sa.select(sa.func.aggregate_strings(document, _SEPARATOR)
                           .aggregate_order_by(RP.c.id),
                           sa.func.max(changed))
                 .group_by(chunk).order_by(chunk))
    else:
        query = sa.select(document, changed).order_by(RP.c.id)
    rows = context.session.execute(_filtered(
        context, query.select_from(*_SELECT_FROMS), filters)).all()
    newest = max((row[1] for row in rows if row[1] is not None),
                 default=None)
    if newest is not None:
        newest = datetime.datetime.fromisoformat(newest).replace(
            tzinfo=None)
    return _SEPARATOR.join(row[0] for row in rows), newest


@common.reader
def rows_by_filters(context, filters=None):
    """Providers matching every filter given, ordered by id.

    Rows, tuples of the values named by ``KEYS``: what building
    thousands of objects wants, without a dict each on the way.

    ``filters`` (all optional):

    - ``name``, ``uuid``: equal to;
    - ``in_tree``: a provider uuid; the providers of its tree (none if
      it does not exist);
    - ``member_of``: a list of sets of aggregate uuids; in at least one
      aggregate of each set;
    - ``forbidden_aggs``: a set of aggregate uuids; in none of them;
    - ``required_traits``: a list of sets of trait names; having at
      least one trait of each set;
    - ``forbidden_traits``: a set of trait names; having none of them;
    - ``resources``: {class name: amount}; room for each amount.

    :raises ResourceClassNotFound: an unknown class in ``resources``.
    :raises TraitNotFound: an unknown trait.
    """
    query = _filtered(context, _SELECT, filters)
    return context.session.execute(query.order_by(RP.c.id)).all()


def _filtered(context, query, filters):
    """``query`` (of RP and its root and parent) with ``filters``."""
    filters = filters or {}
    if filters.get('name'):
        query = query.where(RP.c.name == filters['name'])
    if filters.get('uuid'):
        query = query.where(RP.c.uuid == filters['uuid'])
    if filters.get('in_tree'):
        tree = RP.alias('tree_rp')
        query = query.where(RP.c.root_provider_id == (
            sa.select(tree.c.root_provider_id)
            .where(tree.c.uuid == filters['in_tree'])
            .scalar_subquery()))
    for agg_uuids in filters.get('member_of') or ():
        query = query.where(provider_filter.in_aggregates(RP.c.id,
                                                          agg_uuids))
    if filters.get('forbidden_aggs'):
        query = query.where(~provider_filter.in_aggregates(
            RP.c.id, filters['forbidden_aggs']))
    required = filters.get('required_traits') or []
    forbidden = filters.get('forbidden_traits') or set()
    if required or forbidden:
        names = set(forbidden)
        for any_of in required:
            names |= set(any_of)
        trait_ids = _trait_ids(context, sorted(names))
        for any_of in required:
            query = query.where(provider_filter.with_traits(
                RP.c.id, [trait_ids[name] for name in any_of]))
        if forbidden:
            query = query.where(~provider_filter.with_traits(
                RP.c.id, [trait_ids[name] for name in forbidden]))
    resources = filters.get('resources') or {}
    if resources:
        class_ids = _class_ids(context, sorted(resources))
        for name, amount in sorted(resources.items()):
            query = query.where(provider_filter.has_capacity(
                RP.c.id, class_ids[name], amount))
    return query
