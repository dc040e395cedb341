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

"""Usages: the sums of allocations, per provider or per project."""

import sqlalchemy as sa

from zun_hostcap.common import exception
from zun_hostcap.db.sqlalchemy import models
from zun_hostcap.db.sqlalchemy.placement import allocations as alloc_db
from zun_hostcap.db.sqlalchemy.placement import common
from zun_hostcap.db.sqlalchemy.placement import consumers as consumer_db
from zun_hostcap.db.sqlalchemy.placement import provider_filter

ALLOC = models.Allocation.__table__
INV = models.Inventory.__table__
CONSUMER = consumer_db.CONSUMER
PROJECT = consumer_db.PROJECT
USER = consumer_db.USER
CONSUMER_TYPE = consumer_db.CONSUMER_TYPE

# The consumer_type filters of GET /usages that are not type names.
ALL_TYPES = 'all'
UNKNOWN_TYPE = consumer_db.UNKNOWN_TYPE


RP = common.RP

# A provider's generation and, per class of its inventory, the sum of its
# allocations: one statement, built once. No row: no such provider; a
# row without a class: a provider without inventory.
_PROVIDER_USAGES = (
    sa.select(RP.c.generation, INV.c.resource_class_id,
              provider_filter.used(or_zero=True))
    .select_from(RP.outerjoin(INV, INV.c.resource_provider_id == RP.c.id))
    .where(RP.c.uuid == sa.bindparam('uuid')))


@common.reader
def _provider_rows(context, provider_uuid):
    rows = context.session.execute(_PROVIDER_USAGES,
                                   {'uuid': provider_uuid}).all()
    if not rows:
        raise exception.ResourceProviderNotFound(uuid=provider_uuid)
    return rows[0][0], [(rc_id, used) for _generation, rc_id, used in rows
                        if rc_id is not None]


def get_by_provider(context, provider_uuid):
    """(generation, {class name: used}) of a provider.

    Every class it has inventory of is there, 0 when unused.

    :raises ResourceProviderNotFound: no such provider.
    """
    generation, rows = _provider_rows(context, provider_uuid)
    names = alloc_db.class_names(context, {row[0] for row in rows})
    return generation, {names[rc_id]: int(amount) for rc_id, amount in rows}


def _project_query(columns, project_id, user_id):
    query = (sa.select(*columns)
             .select_from(
                 ALLOC.join(CONSUMER, ALLOC.c.consumer_id == CONSUMER.c.uuid)
                 .join(PROJECT, CONSUMER.c.project_id == PROJECT.c.id)
                 .join(USER, CONSUMER.c.user_id == USER.c.id)
                 .outerjoin(CONSUMER_TYPE,
                            CONSUMER.c.consumer_type_id ==
                            CONSUMER_TYPE.c.id))
             .where(PROJECT.c.external_id == project_id))
    if user_id is not None:
        query = query.where(USER.c.external_id == user_id)
    return query


@common.reader
def _project_rows(context, project_id, user_id):
    return context.session.execute(
        _project_query((ALLOC.c.resource_class_id,
                        sa.func.sum(ALLOC.c.used)), project_id, user_id)
        .group_by(ALLOC.c.resource_class_id)).all()


def get_by_project(context, project_id, user_id=None):
    """{class name: used} of a project's (and a user's) consumers."""
    rows = _project_rows(context, project_id, user_id)
    names = alloc_db.class_names(context, {row[0] for row in rows})
    return {names[rc_id]: int(amount) for rc_id, amount in rows}


@common.reader
def _type_rows(context, project_id, user_id, consumer_type):
    if consumer_type == ALL_TYPES:
        group = sa.literal_column("'%s'" % ALL_TYPES)
    else:
        group = sa.func.coalesce(CONSUMER_TYPE.c.name,
                                 sa.literal_column("'%s'" % UNKNOWN_TYPE))

    def query(*columns):
        q = _project_query((group.label('type'),) + columns,
                           project_id, user_id)
        if consumer_type == UNKNOWN_TYPE:
            q = q.where(CONSUMER.c.consumer_type_id.is_(None))
        elif consumer_type not in (None, ALL_TYPES):
            q = q.where(CONSUMER_TYPE.c.name == consumer_type)
        return q

    session = context.session
    if consumer_type == ALL_TYPES:
        sums = session.execute(
            query(ALLOC.c.resource_class_id, sa.func.sum(ALLOC.c.used))
            .group_by(ALLOC.c.resource_class_id)).all()
        counts = session.execute(
            query(sa.func.count(sa.distinct(ALLOC.c.consumer_id)))).all()
    else:
        sums = session.execute(
            query(ALLOC.c.resource_class_id, sa.func.sum(ALLOC.c.used))
            .group_by(CONSUMER_TYPE.c.name,
                      ALLOC.c.resource_class_id)).all()
        counts = session.execute(
            query(sa.func.count(sa.distinct(ALLOC.c.consumer_id)))
            .group_by(CONSUMER_TYPE.c.name)).all()
    return sums, counts


def get_by_consumer_type(context, project_id, user_id=None,
                         consumer_type=None):
    """{type: {class name: used, 'consumer_count': n}} (from 1.38).

    ``consumer_type`` None groups by type, consumers without one under
    'unknown'; 'all' puts everything under 'all'; 'unknown' only the
    consumers without a type; another name only that type's.
    """
    sums, counts = _type_rows(context, project_id, user_id, consumer_type)
    names = alloc_db.class_names(context, {row[1] for row in sums})
    usages = {}
    for ctype, rc_id, amount in sums:
        usages.setdefault(ctype, {})[names[rc_id]] = int(amount)
    for ctype, count in counts:
        if ctype in usages:
            usages[ctype]['consumer_count'] = int(count)
    return usages
