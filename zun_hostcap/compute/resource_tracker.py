"""The resource tracker: keeps this host's ComputeNode true.

Each run probes the host, builds the values of its ComputeNode and writes
only what changed. Figures that move all the time (free, available,
buffered and cached memory, used disk, free memory of each NUMA node) count
as changed only when they move by more than ``[compute]
usage_report_granularity`` percent of their total, so an idle host causes
no RPC call and no database write.
"""

import collections

from oslo_log import log as logging

from zun_hostcap.common import concurrency
from zun_hostcap.common import exception
from zun_hostcap import objects
from zun_hostcap import os_capability

LOG = logging.getLogger(__name__)

_KIB_PER_MIB = 1024
_BYTES_PER_GIB = 1024 ** 3

# Drifting field -> the field holding the total it is measured against.
DRIFTING_FIELDS = {
    'mem_free': 'mem_total',
    'mem_available': 'mem_total',
    'mem_buffers': 'mem_total',
    'mem_cached': 'mem_total',
    'disk_used': 'disk_total',
}

# Set by the tracker at creation only; the API or operators own them later.
_CREATE_ONLY_FIELDS = {'labels': {}}


def _moved_enough(old, new, total, granularity_percent):
    if old == new:
        return False
    return abs(new - old) > total * granularity_percent / 100.0


def _pool_order(pool_key):
    vendor, product, numa_node, class_code = pool_key
    # A stable order makes an unchanged host compare equal; None sorts
    # first among NUMA nodes.
    return vendor, product, -1 if numa_node is None else numa_node, class_code


def _pci_pools(devices):
    """PCI devices counted by vendor, product, NUMA node and class."""
    counts = collections.Counter(
        (dev.vendor_id, dev.product_id, dev.numa_node, dev.class_code)
        for dev in devices)
    return objects.PciDevicePoolList(objects=[
        objects.PciDevicePool(vendor_id=vendor, product_id=product,
                              numa_node=numa_node, count=counts[key],
                              tags={'class_code': class_code})
        for key in sorted(counts, key=_pool_order)
        for vendor, product, numa_node, class_code in [key]])


def _mem_available_kb(memory):
    if memory.mem_available is not None:
        return memory.mem_available
    # Kernels before 3.14 have no MemAvailable; this is the usual estimate.
    return memory.mem_free + memory.buffers + memory.cached


class ResourceTracker:
    """Builds and saves the ComputeNode of one host."""

    def __init__(self, host, host_driver, container_driver,
                 granularity_percent=1.0):
        self.host = host
        self.host_driver = host_driver
        self.container_driver = container_driver
        self.granularity_percent = granularity_percent
        self.compute_node = None

    def update_available_resource(self, context):
        """Probe the host and save what changed since the last run."""
        concurrency.log_once('resource tracker periodic task')
        values = self._host_values()
        if self.compute_node is None:
            self.compute_node = self._load_or_create(context, values)
            return self.compute_node
        self._apply(self.compute_node, values)
        changed = self.compute_node.obj_what_changed()
        if changed:
            LOG.debug('Saving changed fields of %(host)s: %(fields)s',
                      {'host': self.host, 'fields': sorted(changed)})
            self.compute_node.save()
        return self.compute_node

    def _probe(self):
        try:
            return self.host_driver.get_capabilities()
        except os_capability.CapabilityError as err:
            raise exception.HostProbeFailed(reason=str(err))

    def _host_values(self):
        caps = self._probe()
        usage = self.container_driver.get_usage()
        memory = caps.memory
        return {
            'hostname': self.host,
            # Offline CPUs cannot run anything, so they are not capacity.
            'cpus': len(caps.cpu.online_cpus),
            'cpu_used': float(usage.cpu_used),
            'mem_total': memory.mem_total // _KIB_PER_MIB,
            'mem_free': memory.mem_free // _KIB_PER_MIB,
            'mem_available': _mem_available_kb(memory) // _KIB_PER_MIB,
            'mem_buffers': memory.buffers // _KIB_PER_MIB,
            'mem_cached': memory.cached // _KIB_PER_MIB,
            'mem_used': usage.mem_used,
            'total_containers': usage.total,
            'running_containers': usage.running,
            'paused_containers': usage.paused,
            'stopped_containers': usage.stopped,
            'architecture': caps.cpu.architecture,
            'os_type': caps.os.os_type,
            'os': caps.os.os,
            'kernel_version': caps.os.kernel_version,
            'disk_total': caps.disk.total_bytes // _BYTES_PER_GIB,
            'disk_used': caps.disk.used_bytes // _BYTES_PER_GIB,
            'disk_quota_supported': usage.disk_quota_supported,
            'enable_cpu_pinning': usage.enable_cpu_pinning,
            'runtimes': list(usage.runtimes),
            'numa_topology': objects.NUMATopology(nodes=[
                objects.NUMANode(
                    id=node.id, cpuset=set(node.cpus), pinned_cpus=set(),
                    mem_total=node.mem_total_kb // _KIB_PER_MIB,
                    mem_available=node.mem_free_kb // _KIB_PER_MIB)
                for node in caps.numa_topology]),
            'pci_device_pools': _pci_pools(caps.pci_devices),
        }

    def _load_or_create(self, context, values):
        try:
            node = objects.ComputeNode.get_by_hostname(context, self.host)
        except exception.ComputeNodeNotFound:
            node = objects.ComputeNode(context, **values)
            for name, default in _CREATE_ONLY_FIELDS.items():
                setattr(node, name, default)
            node.create()
            LOG.info('Created compute node %(uuid)s for %(host)s: '
                     '%(cpus)d CPUs (%(arch)s), %(mem)d MiB memory, '
                     '%(numa)d NUMA nodes, %(disk)d GiB disk, %(os)s',
                     {'uuid': node.uuid, 'host': self.host,
                      'cpus': node.cpus, 'arch': node.architecture,
                      'mem': node.mem_total,
                      'numa': len(node.numa_topology.nodes),
                      'disk': node.disk_total, 'os': node.os})
            return node
        self._apply(node, values)
        if node.obj_what_changed():
            node.save()
        return node

    def _apply(self, node, values):
        """Set on ``node`` each value that changed enough to be saved."""
        for name, new in values.items():
            old = getattr(node, name)
            if name in DRIFTING_FIELDS:
                total = values[DRIFTING_FIELDS[name]]
                if _moved_enough(old, new, total, self.granularity_percent):
                    setattr(node, name, new)
            elif name == 'numa_topology':
                self._apply_numa(node, new)
            elif name == 'pci_device_pools':
                if old is None or old.to_list() != new.to_list():
                    node.pci_device_pools = new
            elif old != new:
                setattr(node, name, new)

    def _apply_numa(self, node, new):
        old = node.numa_topology
        if old is not None:
            # Keep a node's old free memory while it drifts within bounds.
            old_nodes = {cell.id: cell for cell in old.nodes}
            for cell in new.nodes:
                previous = old_nodes.get(cell.id)
                if previous is not None and not _moved_enough(
                        previous.mem_available, cell.mem_available,
                        cell.mem_total, self.granularity_percent):
                    cell.mem_available = previous.mem_available
        if old is None or old.to_dict() != new.to_dict():
            node.numa_topology = new
