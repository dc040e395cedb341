"""What the resource tracker tells Placement at each run.

The host's ComputeNode is a resource provider (its uuid, its hostname)
with VCPU, MEMORY_MB and DISK_GB inventory; each container of the host
is a consumer whose allocation on it is its claim. Every run:

1. make the provider if it is missing, and set its inventory (with a
   custom class for each kind of PCI device) and its CPU's traits if
   they changed (``ReportClient`` remembers what it wrote: no call if
   not);
2. audit: read the allocations held on the provider (one call), write
   those of containers that are missing or differ from their claim, and
   delete those of consumers that are no container of this host.

An idle host costs one GET a run (one more for each NUMA node with
``[compute] numa_providers``, see ``numa_providers``). Nothing here keeps
state between runs but the client's memory of the providers: a run that
failed half-way (Placement down) is made whole by the next one.
"""

import collections
import uuid

import os_traits
from oslo_log import log as logging

from zun_hostcap.common import compute_inventory
from zun_hostcap.compute import numa_providers
import zun_hostcap.conf

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


def pci_class(vendor_id, product_id):
    """The custom resource class of a PCI device of that vendor, product."""
    return 'CUSTOM_PCI_%s_%s' % (vendor_id.upper(), product_id.upper())


def inventory_of(node):
    """The Placement inventories of a ComputeNode, from [compute].

    Its CPUs, memory and disk (``compute_inventory``), and its PCI
    devices as a class (``pci_class``) of each vendor and product.
    """
    inventories = compute_inventory.standard_inventory(
        node.cpus, node.mem_total, node.disk_total)
    devices = collections.Counter()
    for pool in (node.pci_device_pools.objects
                 if node.obj_attr_is_set('pci_device_pools') and
                 node.pci_device_pools else ()):
        devices[pci_class(pool.vendor_id, pool.product_id)] += pool.count
    inventories.update((rc, compute_inventory.record(count))
                       for rc, count in sorted(devices.items()) if count)
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

    def report(self, node, containers, cpu_flags=None, claimed=None):
        """Bring Placement in line with ``node`` and ``containers``.

        ``containers`` None (a driver that cannot know them): the
        provider and its inventory only, no audit. ``cpu_flags`` None
        (not read): the provider's traits are left as they are.
        ``claimed``: see ``audit``.
        """
        provider = node.uuid
        self.client.ensure_provider(provider, node.hostname)
        inventories = inventory_of(node)
        self.client.ensure_resource_classes(
            rc for rc in inventories if rc.startswith('CUSTOM_'))
        self.tree.set_inventories(node, inventories)
        if cpu_flags is not None:
            self.client.set_traits(
                provider, cpu_traits(node.architecture, cpu_flags),
                keep=lambda trait: not trait.startswith(CPU_TRAIT_PREFIX))
        pool = shared_disk_provider()
        if pool is not None:
            self._check_pool(provider, pool)
        if containers is not None:
            self.audit(provider, containers, pool, claimed)

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
