"""What the resource tracker tells Placement at each run.

The host's ComputeNode is a resource provider (its uuid, its hostname)
with VCPU, MEMORY_MB and DISK_GB inventory; each container of the host
is a consumer whose allocation on it is its claim. Every run:

1. make the provider if it is missing, and set its inventory if it
   changed (``ReportClient`` remembers what it wrote: no call if not);
2. audit: read the allocations held on the provider (one call), write
   those of containers that are missing or differ from their claim, and
   delete those of consumers that are no container of this host.

An idle host costs one GET a run. Nothing here keeps state between runs
but the client's memory of the provider: a run that failed half-way
(Placement down) is made whole by the next one.
"""

import math

from oslo_log import log as logging

import zun_hostcap.conf

CONF = zun_hostcap.conf.CONF
LOG = logging.getLogger(__name__)

# The project and user of allocations of containers that name none, as
# Placement's own incomplete_consumer_project_id and _user_id.
UNKNOWN_OWNER = '00000000-0000-0000-0000-000000000000'


def inventory_of(node):
    """The Placement inventories of a ComputeNode, from [compute].

    A class the host has none of (0 CPUs, no disk read) is left out.
    """
    conf = CONF.compute
    amounts = (
        ('VCPU', node.cpus, conf.reserved_host_cpus,
         conf.cpu_allocation_ratio),
        ('MEMORY_MB', node.mem_total, conf.reserved_host_memory_mb,
         conf.ram_allocation_ratio),
        ('DISK_GB', node.disk_total,
         math.ceil(conf.reserved_host_disk_mb / 1024),
         conf.disk_allocation_ratio),
    )
    return {rc: {'total': total, 'reserved': reserved, 'min_unit': 1,
                 'max_unit': total, 'step_size': 1,
                 'allocation_ratio': ratio}
            for rc, total, reserved, ratio in amounts if total}


class Reporter(object):
    """Reports one host's provider and its containers' allocations."""

    def __init__(self, client):
        self.client = client

    def report(self, node, containers):
        """Bring Placement in line with ``node`` and ``containers``.

        ``containers`` None (a driver that cannot know them): the
        provider and its inventory only, no audit.
        """
        provider = node.uuid
        self.client.ensure_provider(provider, node.hostname)
        self.client.set_inventory(provider, inventory_of(node))
        if containers is not None:
            self.audit(provider, containers)

    def audit(self, provider, containers):
        """Allocations on ``provider`` exactly the claims of ``containers``.

        :returns: (written, deleted) consumer uuids.
        """
        held = self.client.provider_allocations(provider)
        written, deleted = [], []
        for container in containers:
            claim = container.claim
            if held.get(container.uuid, {}) == claim:
                continue
            if not claim:
                # Limits all taken off: it holds nothing of this host.
                self.client.delete_allocations(container.uuid)
                deleted.append(container.uuid)
                continue
            self.client.put_allocations(
                container.uuid, {provider: claim},
                container.project_id or UNKNOWN_OWNER,
                container.user_id or UNKNOWN_OWNER)
            written.append(container.uuid)
            LOG.info('Allocation of container %(name)s (%(uuid)s) on this '
                     'host: %(claim)s',
                     {'name': container.name, 'uuid': container.uuid,
                      'claim': ', '.join('%s %d' % item for item in
                                         sorted(claim.items()))})
        existing = {container.uuid for container in containers}
        for consumer in sorted(set(held) - existing):
            self.client.delete_allocations(consumer)
            deleted.append(consumer)
            LOG.info('Deleted the allocations of %s on this host: no '
                     'container of this host has that uuid', consumer)
        return written, deleted
