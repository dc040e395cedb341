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

"""NUMA nodes as child resource providers ([compute] numa_providers).

With the option on, each NUMA node of the host is a child of the host's
provider, as the NUMA topology the compute discovers says, so that a
scheduler can place a container on one NUMA node:

- uuid: uuid5 of the host provider's uuid and ``NUMA<cell id>``; name:
  ``<hostname>_NUMA<cell id>`` (the convention of Nova's NUMA-in-Placement
  spec); trait ``HW_NUMA_ROOT``. Both stay the same across restarts.
- inventory: ``VCPU``, the node's CPUs, and ``MEMORY_MB``, its memory,
  each with ``max_unit`` its total and the allocation ratio of the
  host's option (``cpu_allocation_ratio``, ``ram_allocation_ratio``).
  ``reserved_host_cpus`` and ``reserved_host_memory_mb`` are split
  between the nodes in proportion to their size (their CPUs, their
  memory), the parts adding up to the option's value.
- the host's provider keeps ``DISK_GB`` and the PCI device classes.

A host whose NUMA topology is not known keeps VCPU and MEMORY_MB on its
provider.

Turning the option on or off on a host whose containers hold VCPU or
MEMORY_MB moves the inventory and those allocations together, in one
``POST /reshaper`` (``plan_moves``), as Nova's update_provider_tree and
reshape do; the NUMA providers left empty by turning it off are deleted.

A container's VCPU and MEMORY_MB go together to one NUMA node: the node
it holds them on already, else the first node (by cell id) with room
for both, the largest containers placed first. A claim that fits no
single node is refused. A running container that fits no single node
(the audit, a reshape) is spread over several, first fit, with a
warning: what it holds is still counted.
"""

import collections
import time
import uuid as uuid_lib

import os_traits
from oslo_log import log as logging

from zun_hostcap.common import exception
from zun_hostcap.compute import placement_client
import zun_hostcap.conf

CONF = zun_hostcap.conf.CONF
LOG = logging.getLogger(__name__)

# The classes a NUMA node provides.
NUMA_CLASSES = ('VCPU', 'MEMORY_MB')
# The trait of a NUMA node's provider (os-traits).
NUMA_TRAIT = os_traits.HW_NUMA_ROOT
NAME_SUFFIX = '_NUMA'

# One NUMA node's provider as the host should have it.
Child = collections.namedtuple('Child', 'uuid name cell_id inventories')


def provider_uuid(root_uuid, cell_id):
    """The uuid of the provider of NUMA node ``cell_id`` of a host."""
    return str(uuid_lib.uuid5(uuid_lib.UUID(root_uuid), 'NUMA%d' % cell_id))


def provider_name(hostname, cell_id):
    """The name of the provider of NUMA node ``cell_id`` of a host."""
    return '%s%s%d' % (hostname, NAME_SUFFIX, cell_id)


def is_numa_provider(root_uuid, uuid, name):
    """Whether a provider is one of ``provider_uuid``'s of that root."""
    _host, sep, cell = name.rpartition(NAME_SUFFIX)
    return bool(sep) and cell.isdigit() and uuid == provider_uuid(
        root_uuid, int(cell))


def split_reserved(reserved, sizes):
    """``reserved`` split in proportion to ``sizes``, in whole units.

    The largest remainders take the units left, the first of equal ones
    first: the parts add up to ``reserved`` (at most the sum of sizes).
    """
    total = sum(sizes)
    if not total:
        return [0] * len(sizes)
    reserved = min(reserved, total)
    parts = [reserved * size // total for size in sizes]
    order = sorted(range(len(sizes)),
                   key=lambda i: (-(reserved * sizes[i] % total), i))
    for index in order[:reserved - sum(parts)]:
        parts[index] += 1
    return parts


def capacity(inventory):
    """What may be allocated of an inventory record, as Placement says."""
    return int((inventory['total'] - inventory.get('reserved', 0)) *
               inventory.get('allocation_ratio', 1.0))


def layout(node, inventories):
    """(the host provider's inventories, [Child]) the tree should have.

    :param inventories: the host's whole inventory (placement_report's
        ``inventory_of``).
    """
    cells = []
    if CONF.compute.numa_providers and node.obj_attr_is_set(
            'numa_topology') and node.numa_topology is not None:
        cells = sorted(node.numa_topology.nodes, key=lambda cell: cell.id)
    if not cells:
        return inventories, []
    conf = CONF.compute
    cpus = [len(cell.cpuset) for cell in cells]
    memory = [cell.mem_total for cell in cells]
    children = []
    for cell, total_cpus, cpus_reserved, total_mb, mb_reserved in zip(
            cells, cpus, split_reserved(conf.reserved_host_cpus, cpus),
            memory, split_reserved(conf.reserved_host_memory_mb, memory)):
        amounts = (('VCPU', total_cpus, cpus_reserved,
                    conf.cpu_allocation_ratio),
                   ('MEMORY_MB', total_mb, mb_reserved,
                    conf.ram_allocation_ratio))
        children.append(Child(
            provider_uuid(node.uuid, cell.id),
            provider_name(node.hostname, cell.id), cell.id,
            {rc: {'total': total, 'reserved': reserved, 'min_unit': 1,
                  'max_unit': total, 'step_size': 1,
                  'allocation_ratio': ratio}
             for rc, total, reserved, ratio in amounts if total}))
    root = {rc: inventory for rc, inventory in inventories.items()
            if rc not in NUMA_CLASSES}
    return root, children


def numa_part(amounts):
    """The NUMA classes of ``amounts`` ({class: amount}) that are not 0."""
    return {rc: amounts[rc] for rc in NUMA_CLASSES if amounts.get(rc)}


def place(amounts, room, spread=False):
    """Where ``amounts`` of NUMA classes go, in ``room``; None if nowhere.

    :param room: {provider: {class: free}}, in the order to try them.
    :param spread: if no single provider has room, over several (first
        fit), rather than None.
    :returns: {provider: {class: amount}}; {} for no amounts.
    """
    if not amounts:
        return {}
    for uuid, free in room.items():
        if all(amount <= free.get(rc, 0) for rc, amount in amounts.items()):
            return {uuid: dict(amounts)}
    if not spread:
        return None
    left = dict(amounts)
    placed = {}
    for uuid, free in room.items():
        for rc in list(left):
            taken = min(left[rc], max(free.get(rc, 0), 0))
            if taken:
                placed.setdefault(uuid, {})[rc] = taken
                left[rc] -= taken
                if not left[rc]:
                    del left[rc]
    return placed if not left else None


def _take(room, placed, sign=-1):
    for uuid, amounts in placed.items():
        if uuid in room:
            for rc, amount in amounts.items():
                room[uuid][rc] = room[uuid].get(rc, 0) + sign * amount


def _largest_first(item):
    consumer, amounts = item
    return (-amounts.get('VCPU', 0), -amounts.get('MEMORY_MB', 0), consumer)


def plan_moves(root, children, tree, consumers):
    """The allocations of ``consumers`` once the tree is ``children``.

    :param root: the host's provider.
    :param children: [Child] the host is to have; none: everything on
        the root.
    :param tree: the host's providers now (the root, its NUMA
        providers): their NUMA classes are the ones that move.
    :param consumers: {consumer: {provider: {class: amount}}}, all the
        allocations of each consumer that holds something in ``tree``.
    :returns: {consumer: its new allocations}, for those that change.
    """
    room = collections.OrderedDict(
        (child.uuid, {rc: capacity(inventory)
                      for rc, inventory in child.inventories.items()})
        for child in children)
    numa, kept = {}, {}
    for consumer, held in consumers.items():
        amounts = collections.Counter()
        for rp, resources in held.items():
            for rc, amount in resources.items():
                if rp in tree and rc in NUMA_CLASSES:
                    amounts[rc] += amount
                else:
                    kept.setdefault(consumer, {}).setdefault(rp, {})[rc] = (
                        amount)
        numa[consumer] = dict(amounts)
    moves = {}
    for consumer, amounts in sorted(numa.items(), key=_largest_first):
        if not children:
            placed = {root: amounts} if amounts else {}
        else:
            placed = place(amounts, room)
            if placed is None:
                placed = place(amounts, room, spread=True)
                LOG.warning('Consumer %(consumer)s holds more VCPU or '
                            'MEMORY_MB (%(amounts)s) than any NUMA node of '
                            'this host has room for: spread over several',
                            {'consumer': consumer, 'amounts': amounts})
            if placed is None:
                # More than the nodes have: Placement refuses it and says
                # why.
                placed = {children[0].uuid: amounts}
            _take(room, placed)
        new = {rp: dict(resources)
               for rp, resources in kept.get(consumer, {}).items()}
        for rp, resources in placed.items():
            new.setdefault(rp, {}).update(resources)
        if new != consumers[consumer]:
            moves[consumer] = new
    return moves


class Placer(object):
    """Where the audit puts each container's VCPU and MEMORY_MB.

    :param children: the host's NUMA providers ([Child]).
    :param held: {consumer: {provider: {class: amount}}} of what every
        consumer holds on the host's providers now.
    """

    def __init__(self, children, held):
        self.held = held
        self.room = collections.OrderedDict(
            (child.uuid, {rc: capacity(inventory)
                          for rc, inventory in child.inventories.items()})
            for child in children)
        for allocations in held.values():
            _take(self.room, allocations)

    def _current(self, consumer):
        return {rp: numa_part(amounts) for rp, amounts in
                self.held.get(consumer, {}).items()
                if rp in self.room and numa_part(amounts)}

    def place_all(self, claims):
        """{consumer: {NUMA provider: amounts}} of the consumers' claims.

        A consumer that holds its VCPU and MEMORY_MB on one NUMA
        provider, as its claim says, keeps them there; the others go
        where there is room, the largest first.
        """
        placed = {}
        moving = {}
        currents = {}
        for consumer, claim in claims.items():
            amounts = numa_part(claim)
            current = currents[consumer] = self._current(consumer)
            if len(current) == 1 and list(current.values()) == [amounts]:
                placed[consumer] = current
            else:
                moving[consumer] = amounts
                # Its current allocations are given back: it is moved.
                _take(self.room, current, sign=1)
        for consumer, amounts in sorted(moving.items(), key=_largest_first):
            where = place(amounts, self.room)
            if where is None:
                where = place(amounts, self.room, spread=True)
                # Once, when it is spread, not at every run.
                if where is not None and where != currents[consumer]:
                    LOG.warning('No NUMA node of this host has room for '
                                'the %(amounts)s of container %(consumer)s: '
                                'spread over several',
                                {'amounts': amounts, 'consumer': consumer})
            if where is None:
                # Over capacity: Placement refuses it and says why.
                where = {next(iter(self.room)): amounts}
            _take(self.room, where)
            placed[consumer] = where
        return placed


class ProviderTree(object):
    """The host's provider and its NUMA providers, kept as the option says.

    :param client: the ``placement_client.ReportClient``.
    """

    def __init__(self, client):
        self.client = client
        # [Child] as last written: the NUMA providers claims go to.
        self.children = []
        # {uuid: name} of the host's NUMA providers in Placement, as last
        # read (None: not yet), and when.
        self._known = None
        self._read_at = None

    def _numa_providers(self, root):
        """The host's NUMA providers in Placement (read now and then).

        Read at the first run and every [compute]
        resource_provider_refresh_interval seconds: those left by a run
        with the option on are found after a restart with it off.
        """
        now = time.monotonic()
        if (self._known is None or now - self._read_at >=
                CONF.compute.resource_provider_refresh_interval):
            self._known = {
                uuid: rp['name']
                for uuid, rp in self.client.provider_tree(root).items()
                if rp['parent_provider_uuid'] == root and
                is_numa_provider(root, uuid, rp['name'])}
            self._read_at = now
        return self._known

    def set_inventories(self, node, inventories):
        """Bring the host's providers in line with ``inventories``.

        Without NUMA providers (option off, none left in Placement):
        the host provider's inventory, as before. Otherwise the NUMA
        providers are made, inventory and allocations moved in one
        reshape if allocations must move, and those no longer wanted
        deleted.

        :raises PlacementServiceTooOld: the option is on and Placement
            has no POST /reshaper (before 1.30).
        """
        root = node.uuid
        root_inventories, children = layout(node, inventories)
        if children:
            self.client.require_version(
                placement_client.RESHAPER_VERSION,
                'POST /reshaper, for [compute] numa_providers = true')
        known = self._numa_providers(root)
        if not children and not known:
            self.client.set_inventory(root, inventories)
            self.children = []
            return
        for child in children:
            if child.uuid not in known:
                self.client.ensure_provider(child.uuid, child.name, root)
                known[child.uuid] = child.name
                LOG.info('NUMA node %(cell)d of this host is the resource '
                         'provider %(uuid)s (%(name)s)',
                         {'cell': child.cell_id, 'uuid': child.uuid,
                          'name': child.name})
        target = {root: root_inventories}
        target.update((child.uuid, child.inventories) for child in children)
        unwanted = [uuid for uuid in known if uuid not in target]
        target.update((uuid, {}) for uuid in unwanted)
        if self._stranded(target):
            self._reshape(node, target, children, [root] + list(known))
        else:
            for uuid, inventory in target.items():
                if uuid not in unwanted:
                    self.client.set_inventory(uuid, inventory)
        for uuid in unwanted:
            self.client.delete_provider(uuid)
            LOG.info('Deleted the resource provider %(uuid)s (%(name)s): '
                     '[compute] numa_providers is off',
                     {'uuid': uuid, 'name': known.pop(uuid)})
        for child in children:
            self.client.set_traits(child.uuid, {NUMA_TRAIT},
                                   keep=lambda trait: True)
        self.children = children

    def _stranded(self, target):
        """Whether allocations hold a class ``target`` takes away."""
        for uuid, inventory in target.items():
            current = self.client.get_inventories(uuid) or {}
            gone = {rc for rc in current
                    if rc in NUMA_CLASSES and rc not in inventory}
            if gone and any(gone & set(amounts) for amounts in
                            self.client.provider_allocations(uuid).values()):
                return True
        return False

    def _reshape(self, node, target, children, tree):
        """Move the inventories of ``target`` and their allocations."""
        root = node.uuid
        for _attempt in range(placement_client.RETRIES):
            generations = {uuid: self._generation(uuid) for uuid in target}
            holders = set()
            for uuid in tree:
                holders.update(self.client.provider_allocations(uuid))
            consumers = {consumer: self.client.get_consumer(consumer)
                         for consumer in sorted(holders)}
            moves = plan_moves(root, children, set(tree), {
                consumer: doc['allocations']
                for consumer, doc in consumers.items()})
            try:
                self.client.reshape(
                    {uuid: (generations[uuid], inventory)
                     for uuid, inventory in target.items()},
                    {consumer: (consumers[consumer]['generation'],
                                consumers[consumer]['project_id'],
                                consumers[consumer]['user_id'], allocations)
                     for consumer, allocations in moves.items()})
            except placement_client.GenerationConflict:
                LOG.debug('The providers of this host or their consumers '
                          'changed meanwhile; reshaping again')
                continue
            LOG.info('Reshaped the resource providers of %(host)s: VCPU and '
                     'MEMORY_MB are now on %(where)s, with the allocations '
                     'of %(count)d consumers',
                     {'host': node.hostname,
                      'where': ('its %d NUMA nodes' % len(children)
                                if children else 'the host'),
                      'count': len(moves)})
            return
        raise exception.PlacementRequestFailed(
            method='POST', path='/reshaper', status=409,
            detail='the providers of this host kept changing in %d '
                   'attempts' % placement_client.RETRIES)

    def _generation(self, uuid):
        state = self.client.read_provider(uuid)
        if state is None:
            raise exception.PlacementRequestFailed(
                method='GET', path='/resource_providers/%s' % uuid,
                status=404, detail='the provider was deleted')
        return state['generation']

    def placer(self, held):
        """A Placer of the audit; None without NUMA providers."""
        return Placer(self.children, held) if self.children else None

    def _claim_choices(self, resources):
        """Where the VCPU and MEMORY_MB of a claim may go, best first.

        [None] without NUMA providers (the host provider takes them);
        else {NUMA provider: amounts} for each node with room now, by
        cell id. Their usages are read: what the audit has not seen yet
        counts too.
        """
        amounts = numa_part(resources)
        if not self.children or not amounts:
            return [None]
        choices = []
        for child in self.children:
            used = self.client.provider_usages(child.uuid)
            free = {rc: capacity(inventory) - used.get(rc, 0)
                    for rc, inventory in child.inventories.items()}
            if place(amounts, {child.uuid: free}) is not None:
                choices.append({child.uuid: amounts})
        return choices

    def put_claim(self, consumer_uuid, resources, allocations_of,
                  project_id, user_id):
        """Write a claim, its VCPU and MEMORY_MB on a node with room.

        :param allocations_of: the claim's allocations, given where its
            VCPU and MEMORY_MB go ({NUMA provider: amounts}, or None for
            the host provider).
        :raises PlacementRequestFailed: no node has room (409), or
            Placement's refusal.
        """
        refused = None
        for numa in self._claim_choices(resources):
            try:
                self.client.put_allocations(
                    consumer_uuid, allocations_of(numa), project_id,
                    user_id)
                return
            except exception.PlacementRequestFailed as err:
                # Another claim took the room meanwhile: the next node.
                if numa is None or err.kwargs.get('status') != 409:
                    raise
                refused = err
        raise refused or exception.PlacementRequestFailed(
            method='PUT', path='/allocations/%s' % consumer_uuid,
            status=409, detail='no NUMA node of this host has room for %s'
            % ', '.join('%s %d' % item for item in
                        sorted(numa_part(resources).items())))
