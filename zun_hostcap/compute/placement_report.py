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

"""What the resource tracker tells Placement at each run.

The host's ComputeNode is a resource provider (its uuid, its hostname)
with VCPU, MEMORY_MB and DISK_GB inventory; each container of the host
is a consumer whose allocation on it is its claim. Every run:

1. make the provider if it is missing, and set its inventory (with the
   PCI devices ``[pci] device_spec`` offers, ``conf/pci_spec.py``) and
   its CPU's traits and those of the specs if they changed
   (``ReportClient`` remembers what it wrote: no call if not); a PCI
   class no spec offers any more stays while allocations hold some of
   it;
2. audit: read the allocations held on the provider (one call), write
   those of containers that are missing or differ from their claim, and
   delete those of consumers that are no container of this host.

An idle host costs one GET a run (one more for each NUMA node with
``[compute] numa_providers``, see ``numa_providers``). Nothing here keeps
state between runs but the client's memory of the providers: a run that
failed half-way (Placement down) is made whole by the next one.
"""

import uuid

import os_traits
from oslo_log import log as logging

from zun_hostcap.common import compute_inventory
from zun_hostcap.compute import numa_providers
import zun_hostcap.conf
from zun_hostcap.conf import pci_spec

CONF = zun_hostcap.conf.CONF
LOG = logging.getLogger(__name__)

# The project and user of allocations of containers that name none, as
# Placement's own incomplete_consumer_project_id and _user_id.
UNKNOWN_OWNER = '00000000-0000-0000-0000-000000000000'


# Linux's /proc/cpuinfo flags whose os-traits name is not the flag in
# capitals without underscores.
_X86_FLAG_TRAITS = {
    'aes': 'AESNI', 'fma': 'FMA3', 'bmi1': 'BMI', 'sha_ni': 'SHA',
    'pclmulqdq': 'CLMUL', 'pni': 'SSE3', 'md_clear': 'INTEL_MD_CLEAR',
    'pcid': 'INTEL_PCID', 'rtm': 'TSX',
}
_TRAIT_PREFIXES = {'x86_64': 'HW_CPU_X86_', 'i686': 'HW_CPU_X86_',
                   'aarch64': 'HW_CPU_AARCH64_'}
# The traits of the host's CPU: the reporter owns those, and leaves the
# others of the provider (an operator's CUSTOM_ ones) as they are.
CPU_TRAIT_PREFIX = 'HW_CPU_'


def cpu_traits(architecture, flags):
    """The os-traits of a CPU's flags; those os-traits does not name go."""
    prefix = _TRAIT_PREFIXES.get(architecture)
    if prefix is None:
        return set()
    known = set(os_traits.get_traits(prefix))
    names = set()
    for flag in flags:
        name = _X86_FLAG_TRAITS.get(flag) if prefix == 'HW_CPU_X86_' else None
        names.add(prefix + (name or flag.upper().replace('_', '')))
    return names & known


def device_specs():
    """The specs of [pci] device_spec, in their order."""
    return pci_spec.flatten(CONF.pci.device_spec)


def inventory_of(node, pci_counts=None):
    """The Placement inventories of a ComputeNode, from [compute].

    Its CPUs, memory and disk (``compute_inventory``), and ``pci_counts``
    ({class: number of devices}, ``pci_spec.offered``).
    """
    inventories = compute_inventory.standard_inventory(
        node.cpus, node.mem_total, node.disk_total)
    inventories.update((rc, compute_inventory.record(count))
                       for rc, count in sorted((pci_counts or {}).items())
                       if count)
    return inventories


def shared_disk_provider():
    """The uuid of [compute] shared_disk_provider, or None."""
    value = CONF.compute.shared_disk_provider
    return str(uuid.UUID(value)) if value else None


def split_claim(claim, host, pool, numa=None):
    """{provider: {class: amount}} of a claim: its disk on ``pool``.

    :param numa: where its VCPU and MEMORY_MB go, {NUMA provider:
        amounts} (``numa_providers``); None: on ``host``.
    """
    allocations = {host: {rc: n for rc, n in claim.items()
                          if (pool is None or rc != 'DISK_GB') and
                          (numa is None or
                           rc not in numa_providers.NUMA_CLASSES)}}
    if pool is not None and claim.get('DISK_GB'):
        allocations[pool] = {'DISK_GB': claim['DISK_GB']}
    allocations.update(numa or {})
    return {rp: amounts for rp, amounts in allocations.items() if amounts}


class Reporter(object):
    """Reports one host's provider and its containers' allocations."""

    def __init__(self, client):
        self.client = client
        # The shared disk provider checked (once: it costs three GETs).
        self._checked_pool = None
        # The host's provider and its NUMA providers.
        self.tree = numa_providers.ProviderTree(client)
        # The traits of [pci] device_spec this process put on the host's
        # provider: those of a spec taken away by a reload are removed.
        self._pci_traits = set()
        # {class: consumers} of the PCI classes kept for their
        # allocations, as last warned of.
        self._held = {}

    def report(self, node, containers, cpu_flags=None, claimed=None,
               pci_devices=None):
        """Bring Placement in line with ``node`` and ``containers``.

        ``containers`` None (a driver that cannot know them): the
        provider and its inventory only, no audit. ``cpu_flags`` None
        (not read): the provider's CPU traits are left as they are.
        ``pci_devices``: the host's PCI devices (os_capability's
        ``PciDevice``), offered as ``[pci] device_spec`` says; None (not
        read): the PCI classes and traits are left as they are.
        ``claimed``: see ``audit``.
        """
        provider = node.uuid
        self.client.ensure_provider(provider, node.hostname)
        specs = device_specs()
        pci_counts = pci_traits = None
        if pci_devices is not None:
            pci_counts, pci_traits = pci_spec.offered(pci_devices, specs)
        inventories = self._keep_held(provider, inventory_of(node,
                                                             pci_counts),
                                      keep_all=pci_devices is None)
        self.client.ensure_resource_classes(
            rc for rc in inventories if rc.startswith('CUSTOM_'))
        self.tree.set_inventories(node, inventories)
        self._set_traits(node, cpu_flags, pci_traits,
                         pci_spec.owned_traits(specs))
        pool = shared_disk_provider()
        if pool is not None:
            self._check_pool(provider, pool)
        if containers is not None:
            self.audit(provider, containers, pool, claimed)

    def _keep_held(self, provider, inventories, keep_all=False):
        """``inventories``, with the PCI classes that must stay.

        A class of the provider's inventory that is not the host's own
        and that ``inventories`` leaves out (its spec was removed) is
        kept as it is while allocations hold some of it: Placement would
        refuse to remove it. One warning names the consumers, again only
        when they change. ``keep_all``: the devices were not read, every
        such class stays.
        """
        current = self.client.get_inventories(provider) or {}
        going = [rc for rc in sorted(current) if rc not in inventories and
                 rc not in pci_spec.HOST_CLASSES]
        if keep_all:
            return dict(inventories, **{rc: current[rc] for rc in going})
        held = {}
        if going:
            for consumer, amounts in self.client.provider_allocations(
                    provider).items():
                for rc in going:
                    if amounts.get(rc):
                        held.setdefault(rc, set()).add(consumer)
        if held and held != self._held:
            LOG.warning(
                '[pci] device_spec offers no more %(classes)s, but '
                'allocations hold some: the inventory stays until the '
                'consumers %(consumers)s release it',
                {'classes': ', '.join(sorted(held)),
                 'consumers': ', '.join(sorted(set().union(
                     *held.values())))})
        for rc in going:
            if rc not in held:
                LOG.info('Removing the inventory of %s: [pci] device_spec '
                         'offers no device of it', rc)
        self._held = held
        return dict(inventories, **{rc: current[rc] for rc in held})

    def _set_traits(self, node, cpu_flags, pci_traits, spec_traits):
        """The provider's traits: its CPU's and its PCI specs'.

        Those an operator put on it stay. ``cpu_flags`` None: its CPU
        traits stay as they are; ``pci_traits`` None: those of the specs.
        """
        if cpu_flags is None and pci_traits is None:
            return
        wanted = set()
        if cpu_flags is not None:
            wanted |= cpu_traits(node.architecture, cpu_flags)
        owned = set()
        if pci_traits is not None:
            wanted |= pci_traits
            owned = spec_traits | self._pci_traits

        def keep(trait):
            if cpu_flags is not None and trait.startswith(CPU_TRAIT_PREFIX):
                return False
            return trait not in owned

        self.client.ensure_traits(
            trait for trait in wanted if os_traits.is_custom(trait))
        self.client.set_traits(node.uuid, wanted, keep=keep)
        if pci_traits is not None:
            self._pci_traits = set(pci_traits)

    def claim(self, provider, consumer_uuid, resources, project_id,
              user_id):
        """Allocate ``resources`` on ``provider`` for a container to come.

        Its disk goes to the shared disk provider, as the audit puts it;
        its VCPU and MEMORY_MB to a NUMA provider with room, if the host
        has them (``numa_providers``).

        :raises PlacementRequestFailed: no room (Placement's reason).
        """
        pool = shared_disk_provider()
        self.tree.put_claim(
            consumer_uuid, resources,
            lambda numa: split_claim(resources, provider, pool, numa),
            project_id or UNKNOWN_OWNER, user_id or UNKNOWN_OWNER)

    def _check_pool(self, provider, pool):
        """Warn of a shared disk provider set up wrong (checked once)."""
        if self._checked_pool == pool:
            return
        problems = []
        if 'MISC_SHARES_VIA_AGGREGATE' not in self.client.get_traits(pool):
            problems.append('it has no MISC_SHARES_VIA_AGGREGATE trait')
        if not (self.client.get_aggregates(pool) &
                self.client.get_aggregates(provider)):
            problems.append('it is in no aggregate with this host')
        self._checked_pool = pool
        if problems:
            LOG.warning('[compute] shared_disk_provider %(pool)s: %(what)s, '
                        'so schedulers will not see its disk as this '
                        'host\'s; the containers\' disk claims are '
                        'allocated on it all the same.',
                        {'pool': pool, 'what': ' and '.join(problems)})

    def audit(self, provider, containers, pool=None, claimed=None):
        """Allocations on ``provider`` exactly the claims of ``containers``.

        With a shared disk ``pool``, their disk is allocated on it, and
        its allocations are read too. A consumer that is no container of
        this host is deleted if it holds some of ``provider``: one that
        holds only disk of the pool may be another host's.

        :param claimed: a callable giving the consumer uuids of claims
            whose container is still to come: they are left alone. Asked
            after the allocations are read, so that a claim written
            meanwhile is among them.
        :returns: (written, deleted) consumer uuids.
        """
        host = [provider] + [child.uuid for child in self.tree.children]
        held = {}
        for rp in host:
            for consumer, amounts in self.client.provider_allocations(
                    rp).items():
                held.setdefault(consumer, {})[rp] = amounts
        placer = self.tree.placer(held)
        numa = placer.place_all({container.uuid: container.claim
                                 for container in containers}) if placer \
            else {}
        if pool is not None:
            for consumer, amounts in self.client.provider_allocations(
                    pool).items():
                held.setdefault(consumer, {})[pool] = amounts
        in_flight = claimed() if claimed is not None else set()
        written, deleted = [], []
        for container in containers:
            claim = container.claim
            wanted = split_claim(claim, provider, pool,
                                 numa.get(container.uuid) if placer else None)
            if held.get(container.uuid, {}) == wanted:
                continue
            if not claim:
                # Limits all taken off: it holds nothing of this host.
                self.client.delete_allocations(container.uuid)
                deleted.append(container.uuid)
                continue
            self.client.put_allocations(
                container.uuid, wanted,
                container.project_id or UNKNOWN_OWNER,
                container.user_id or UNKNOWN_OWNER)
            written.append(container.uuid)
            LOG.info('Allocation of container %(name)s (%(uuid)s) on this '
                     'host: %(claim)s',
                     {'name': container.name, 'uuid': container.uuid,
                      'claim': ', '.join('%s %d' % item for item in
                                         sorted(claim.items()))})
        existing = {container.uuid for container in containers}
        for consumer in sorted(consumer for consumer in held
                               if consumer not in existing and
                               consumer not in in_flight and
                               set(host) & set(held[consumer])):
            self.client.delete_allocations(consumer)
            deleted.append(consumer)
            LOG.info('Deleted the allocations of %s on this host: no '
                     'container of this host has that uuid', consumer)
        return written, deleted
