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

"""The reshaper: inventories and allocations replaced together.

One writer transaction moves inventory between providers (a class from
a root to new children, and back) together with the allocations that
consume it, so that no reader ever sees allocations without the
inventory they use, or the other way round. It takes Placement's steps,
with the writers of ``inventories`` and ``allocations`` in the same
transaction:

1. the providers whose inventories are given are locked (in id order),
   and their generations checked against those given;
2. each gets, for now, its inventory as it was with the new one laid
   over it: no class that holds allocations is removed yet, and each
   class to be allocated exists;
3. the consumers' allocations are replaced, with the checks of POST
   /allocations (consumer generations, capacity, min/max/step);
4. each provider's inventory becomes exactly the new one: a class that
   still has allocations cannot go (InventoryInUse).

Each step bumps the generations of the providers it writes, as
Placement's do: a provider whose inventory and allocations both change
moves on by three. Anything refused rolls the whole transaction back.
A provider that is in the allocations only, and that another writer
changed meanwhile, makes the transaction run again (the client gave no
generation for it); a provider of the inventories whose generation is
not the one given is refused at once.
"""

import collections

import sqlalchemy as sa

from zun_hostcap.common import exception
from zun_hostcap.db.sqlalchemy.placement import allocations as alloc_db
from zun_hostcap.db.sqlalchemy.placement import common
from zun_hostcap.db.sqlalchemy.placement import inventories as inv_db
from zun_hostcap.db.sqlalchemy.placement import resource_classes

RP = common.RP

# What a reshape made of the inventory of a provider it was given: its
# generation and whole inventory ({class name: record}) after it, and
# whether the inventory differs from what it was.
InventoryChange = collections.namedtuple('InventoryChange',
                                         'generation records changed')

_LOCK_PROVIDERS = (
    sa.select(RP.c.id, RP.c.uuid, RP.c.generation)
    .where(RP.c.uuid.in_(sa.bindparam('uuids', expanding=True)))
    .order_by(RP.c.id)
    .with_for_update())


def _lock_providers(context, inventories):
    """{uuid: provider id} of the providers of ``inventories``.

    Their rows are locked until the transaction ends (SQLite's writer
    holds the whole file already), in id order: two reshapes of the
    same providers wait for each other instead of deadlocking.

    :raises ResourceProviderNotFound: one does not exist.
    :raises ProviderGenerationConflict: one's generation is not the
        one given.
    """
    rows = {row.uuid: row for row in context.session.execute(
        _LOCK_PROVIDERS, {'uuids': list(inventories)})}
    for uuid, given in inventories.items():
        row = rows.get(uuid)
        if row is None:
            raise exception.ResourceProviderNotFound(uuid=uuid)
        if row.generation != given['generation']:
            raise exception.ProviderGenerationConflict(
                uuid=uuid, actual=row.generation, given=given['generation'])
    return {uuid: rows[uuid].id for uuid in inventories}


def _reshape_once(context, inventories, allocations, rc_ids, report):
    provider_ids = _lock_providers(context, inventories)
    if allocations:
        # Before anything else is checked, as Placement does.
        alloc_db.check_consumer_generations(context, allocations)
    before = {uuid: inv_db.records_of(context, provider_id)
              for uuid, provider_id in provider_ids.items()}

    for uuid, given in inventories.items():
        if given['inventories']:
            interim = dict(before[uuid])
            interim.update(given['inventories'])
            inv_db.replace_in_transaction(context, uuid, given['generation'],
                                          interim)

    held = common.WriteReport()
    if allocations:
        alloc_db.replace_in_transaction(context, allocations, True, rc_ids,
                                        held)

    changes = {}
    for uuid, given in inventories.items():
        generation, records = inv_db.replace_in_transaction(
            context, uuid, None, given['inventories'])
        changes[uuid] = InventoryChange(
            generation, records,
            not inv_db.same_records(before[uuid], records))
    if report is not None:
        report.state = {'inventories': changes,
                        'allocations': held.state or {}}


_reshape = alloc_db.retried_writer(_reshape_once)


def reshape(context, inventories, allocations, report=None):
    """Replace inventories and allocations in one transaction.

    :param inventories: {provider uuid: {'generation': the provider's
        generation the client saw, 'inventories': {class name: {field:
        value}}}}: each provider's whole inventory after the reshape.
    :param allocations: {consumer uuid: request}, the requests of
        ``allocations.replace_all``; consumer generations are checked.
        May be empty.
    :param report: a WriteReport whose state becomes {'inventories':
        {provider uuid: InventoryChange}, 'allocations': {consumer uuid:
        Held}} (what the consumers that existed held before).
    :raises ResourceProviderNotFound: a provider of ``inventories``
        does not exist.
    :raises ProviderGenerationConflict: the generation of one is not
        the one given.
    :raises ConsumerConcurrentUpdate: a consumer generation differs.
    :raises ResourceClassNotFound: an unknown class.
    :raises InvalidInventory: an inventory without capacity.
    :raises AllocationProviderNotFound: a provider of the allocations
        does not exist.
    :raises AllocationInventoryInvalid: no inventory for an allocation.
    :raises AllocationConstraintsConflict: min_unit, max_unit, step_size.
    :raises AllocationCapacityExceeded: not enough capacity.
    :raises InventoryInUse: a class removed still has allocations.
    :raises AllocationConcurrentUpdate: providers kept changing.
    """
    # Outside the transaction: the class caches (see inventories).
    resource_classes.ensure_standard(context)
    rc_ids = alloc_db.request_class_ids(context, allocations)
    alloc_db.until_providers_settle(_reshape, context, inventories,
                                    allocations, rc_ids, report)
    if report is not None:
        report.changed = True
        report.state['allocations'] = alloc_db.as_held(
            context, report.state['allocations'])
