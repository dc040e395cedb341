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

"""Traits: os-traits' standard ones and CUSTOM_* ones, and providers'.

The standard traits are written into the table the first time this
process uses a database (``ensure_standard``); names and ids are cached
as resource classes' are (see common.NameCache).
"""

import os_traits
from oslo_db import exception as db_exc
from oslo_utils import timeutils
import sqlalchemy as sa

from zun_hostcap.common import exception
from zun_hostcap.db.sqlalchemy import models
from zun_hostcap.db.sqlalchemy.placement import common

TRAIT = models.Trait.__table__
RP_TRAIT = models.ResourceProviderTrait.__table__

CUSTOM_PREFIX = 'CUSTOM_'

COLUMNS = (TRAIT.c.id, TRAIT.c.name, TRAIT.c.created_at,
           TRAIT.c.updated_at)


def is_custom(name):
    return name.startswith(CUSTOM_PREFIX)


def _standard_rows():
    return [{'name': name} for name in sorted(os_traits.get_traits())]


CACHE = common.NameCache(
    TRAIT, _standard_rows, lambda name, id_: is_custom(name), 'traits')


def ensure_standard(context):
    """Write the standard traits missing from the database, once."""
    CACHE.ensure(context)


def ids_for_names(context, names):
    """{name: id} of traits.

    :raises TraitNotFound: some of ``names`` do not exist (all named).
    """
    found = CACHE.ids_for_names(context, names)
    missing = set(names).difference(found)
    if missing:
        raise exception.TraitNotFound(names=', '.join(sorted(missing)))
    return found


def names_for_ids(context, ids):
    """{id: name} of traits.

    :raises TraitNotFound: some of ``ids`` do not exist.
    """
    found = CACHE.names_for_ids(context, ids)
    missing = set(ids).difference(found)
    if missing:
        raise exception.TraitNotFound(
            names=', '.join(str(id_) for id_ in sorted(missing)))
    return found


# The routes of /traits.

def _row(row):
    return dict(row._mapping)


@common.reader
def _get_all(context, name_in, prefix, associated):
    query = sa.select(*COLUMNS)
    if name_in is not None:
        query = query.where(TRAIT.c.name.in_(sorted(set(name_in))))
    if prefix is not None:
        # The prefix is matched literally: no LIKE wildcards.
        query = query.where(sa.func.substr(
            TRAIT.c.name, 1, len(prefix)) == prefix)
    if associated is not None:
        used = sa.exists().where(RP_TRAIT.c.trait_id == TRAIT.c.id)
        query = query.where(used if associated else ~used)
    return [_row(row) for row in
            context.session.execute(query.order_by(TRAIT.c.name))]


def get_all(context, name_in=None, prefix=None, associated=None):
    """Traits as dicts (id, name, created_at, updated_at), by name.

    :param name_in: only these names.
    :param prefix: only names that start with it.
    :param associated: True: only traits some provider has; False: only
        traits no provider has.
    """
    ensure_standard(context)
    return _get_all(context, name_in, prefix, associated)


@common.reader
def _get_by_name(context, name):
    row = context.session.execute(
        sa.select(*COLUMNS).where(TRAIT.c.name == name)).first()
    if row is None:
        raise exception.TraitNotFound(names=name)
    return _row(row)


def get_by_name(context, name):
    """The trait ``name`` as a dict.

    :raises TraitNotFound: there is none.
    """
    ensure_standard(context)
    return _get_by_name(context, name)


@common.retry_on_deadlock
@common.writer
def _insert(context, name):
    values = {'name': name, 'created_at': timeutils.utcnow()}
    result = context.session.execute(TRAIT.insert().values(**values))
    values['id'] = result.inserted_primary_key[0]
    values['updated_at'] = None
    return values


def create(context, name):
    """Create the custom trait ``name`` unless it exists.

    :returns: (its dict, whether it was created now).
    """
    ensure_standard(context)
    try:
        return _get_by_name(context, name), False
    except exception.TraitNotFound:
        pass
    try:
        return _insert(context, name), True
    except db_exc.DBDuplicateEntry:
        # Created by someone else in the meantime.
        return _get_by_name(context, name), False


@common.retry_on_deadlock
@common.writer
def _delete(context, name):
    row = context.session.execute(
        sa.select(TRAIT.c.id).where(TRAIT.c.name == name)).first()
    if row is None:
        raise exception.TraitNotFound(names=name)
    if not is_custom(name):
        raise exception.TraitCannotDeleteStandard(name=name)
    if context.session.execute(sa.select(sa.exists().where(
            RP_TRAIT.c.trait_id == row.id))).scalar():
        raise exception.TraitInUse(name=name)
    context.session.execute(TRAIT.delete().where(TRAIT.c.id == row.id))


def delete(context, name):
    """Delete the custom trait ``name``.

    :raises TraitNotFound: there is none.
    :raises TraitCannotDeleteStandard: it is standard.
    :raises TraitInUse: a provider has it.
    """
    ensure_standard(context)
    try:
        _delete(context, name)
    finally:
        CACHE.forget()


# The traits of a provider.

def _provider_traits(context, provider_id):
    return [_row(row) for row in context.session.execute(
        sa.select(*COLUMNS)
        .join(RP_TRAIT, RP_TRAIT.c.trait_id == TRAIT.c.id)
        .where(RP_TRAIT.c.resource_provider_id == provider_id)
        .order_by(TRAIT.c.name))]


@common.reader
def _get_by_provider(context, uuid):
    provider = common.provider_row(context, uuid)
    return provider.generation, _provider_traits(context, provider.id)


def get_by_provider(context, uuid):
    """(generation, [trait dicts]) of the provider ``uuid``.

    :raises ResourceProviderNotFound: there is none.
    """
    ensure_standard(context)
    return _get_by_provider(context, uuid)


@common.retry_on_deadlock
@common.writer
def _set_for_provider(context, uuid, names, generation, report):
    provider = common.provider_row(context, uuid)
    if generation is not None and provider.generation != generation:
        raise exception.ResourceProviderConcurrentUpdate(uuid=uuid)
    rows = []
    if names:
        rows = [_row(row) for row in context.session.execute(
            sa.select(*COLUMNS).where(TRAIT.c.name.in_(names))
            .order_by(TRAIT.c.name))]
        if len(rows) != len(names):
            missing = set(names).difference(row['name'] for row in rows)
            raise exception.TraitNotFound(names=', '.join(sorted(missing)))
    wanted_ids = {row['id'] for row in rows}
    have = {row[0] for row in context.session.execute(
        sa.select(RP_TRAIT.c.trait_id)
        .where(RP_TRAIT.c.resource_provider_id == provider.id))}
    gone = have - wanted_ids
    if gone:
        context.session.execute(RP_TRAIT.delete().where(
            RP_TRAIT.c.resource_provider_id == provider.id,
            RP_TRAIT.c.trait_id.in_(sorted(gone))))
    new = wanted_ids - have
    if new:
        now = timeutils.utcnow()
        context.session.execute(RP_TRAIT.insert(), [
            {'resource_provider_id': provider.id, 'trait_id': trait_id,
             'created_at': now} for trait_id in sorted(new)])
    if report is not None:
        report.changed = bool(gone or new)
        report.state = names
    return common.increment_generation(
        context, provider.id, provider.generation, uuid), rows


def set_for_provider(context, uuid, names, generation=None, report=None):
    """Give the provider ``uuid`` exactly the traits ``names``.

    Its generation is bumped in the same transaction.

    :param generation: the generation the caller saw; None: any.
    :param report: a WriteReport to tell whether its traits changed;
        the state: their names, sorted.
    :returns: (the new generation, [trait dicts]).
    :raises ResourceProviderNotFound: there is no such provider.
    :raises ResourceProviderConcurrentUpdate: the generation moved.
    :raises TraitNotFound: some of ``names`` do not exist.
    """
    ensure_standard(context)
    return _set_for_provider(context, uuid, sorted(set(names)), generation,
                             report)
