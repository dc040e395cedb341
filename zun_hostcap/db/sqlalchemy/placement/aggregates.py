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

"""The aggregates a provider is a member of.

An aggregate is only a uuid; its row is made the first time a provider
joins it and stays when the last one leaves, as in Placement.
"""

import functools

from oslo_db import exception as db_exc
import sqlalchemy as sa

from zun_hostcap.common import exception
from zun_hostcap.db.sqlalchemy import models
from zun_hostcap.db.sqlalchemy.placement import common

AGG = models.PlacementAggregate.__table__
RPA = models.ResourceProviderAggregate.__table__


def _uuids_of(context, rp_id):
    return [row.uuid for row in context.session.execute(
        sa.select(AGG.c.uuid)
        .select_from(RPA.join(AGG, RPA.c.aggregate_id == AGG.c.id))
        .where(RPA.c.resource_provider_id == rp_id)
        .order_by(AGG.c.uuid))]


@common.reader
def get_by_provider(context, uuid):
    """(generation, [aggregate uuid]) of the provider ``uuid``.

    :raises ResourceProviderNotFound: no such provider.
    """
    row = common.provider_row(context, uuid)
    return row.generation, _uuids_of(context, row.id)


def ensure_aggregates(context, agg_uuids):
    """{uuid: id} of the aggregates, making the missing ones.

    In the caller's transaction. Two writers adding the same new uuid:
    the second insert fails with DBDuplicateEntry, and the caller's
    retry starts a new transaction that finds the row.
    """
    agg_uuids = sorted(set(agg_uuids))
    if not agg_uuids:
        return {}
    session = context.session
    found = {row.uuid: row.id for row in session.execute(
        sa.select(AGG.c.uuid, AGG.c.id).where(AGG.c.uuid.in_(agg_uuids)))}
    missing = [agg for agg in agg_uuids if agg not in found]
    if missing:
        session.execute(AGG.insert(), [{'uuid': agg} for agg in missing])
        found.update((row.uuid, row.id) for row in session.execute(
            sa.select(AGG.c.uuid, AGG.c.id).where(AGG.c.uuid.in_(missing))))
    return found


# A writer run again also when another made the same aggregate first.
_retry_on_duplicate = functools.partial(
    common.retry_on_deadlock,
    also=lambda exc: isinstance(exc, db_exc.DBDuplicateEntry))


@_retry_on_duplicate
@common.writer
def set_for_provider(context, uuid, agg_uuids, generation=None,
                     report=None):
    """Make the provider a member of exactly ``agg_uuids``.

    With ``generation`` (microversion 1.19 and later) the provider's
    generation must still be that, and is bumped; without it the
    generation is left alone. ``report``, a WriteReport, is told whether
    its aggregates changed; the state: their uuids, sorted.

    :returns: the provider's generation afterwards.
    :raises ResourceProviderNotFound: no such provider.
    :raises ResourceProviderConcurrentUpdate: the generation moved.
    """
    session = context.session
    row = common.provider_row(context, uuid)
    if generation is not None:
        if row.generation != generation:
            raise exception.ResourceProviderConcurrentUpdate(
                uuid=uuid)
        new_generation = common.increment_generation(
            context, row.id, generation, uuid)
    else:
        new_generation = row.generation
    wanted = ensure_aggregates(context, agg_uuids)
    current = {r.aggregate_id for r in session.execute(
        sa.select(RPA.c.aggregate_id)
        .where(RPA.c.resource_provider_id == row.id))}
    to_remove = current - set(wanted.values())
    to_add = set(wanted.values()) - current
    if to_remove:
        session.execute(RPA.delete().where(
            RPA.c.resource_provider_id == row.id,
            RPA.c.aggregate_id.in_(sorted(to_remove))))
    if to_add:
        session.execute(RPA.insert(), [
            {'resource_provider_id': row.id, 'aggregate_id': agg_id}
            for agg_id in sorted(to_add)])
    if report is not None:
        report.changed = bool(to_remove or to_add)
        report.state = sorted(wanted)
    return new_generation
