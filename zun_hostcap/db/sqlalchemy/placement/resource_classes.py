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

"""Resource classes: the standard ones and CUSTOM_* ones.

The standard classes are rows too, written into the table the first time
this process uses a database (``ensure_standard``), with their index in
os-resource-classes as id, as Placement numbers them; custom classes take
ids from 10000 on.

Standard names and ids are cached in the process, per database
(``common.NameCache``): they never change. Custom ones are looked up in
the database every time, because another API process may create, rename
or delete them.
"""

import os_resource_classes as orc
from oslo_db import exception as db_exc
from oslo_utils import timeutils
import sqlalchemy as sa

from zun_hostcap.common import exception
from zun_hostcap.db.sqlalchemy import models
from zun_hostcap.db.sqlalchemy.placement import common

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


def _standard_rows():
    return [{'id': index, 'name': name}
            for index, name in enumerate(STANDARDS)]


def _is_custom(name, id_):
    return id_ >= MIN_CUSTOM_ID


CACHE = common.NameCache(RC, _standard_rows, _is_custom, 'resource classes')


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
