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

"""The resource tracker: keeps this host's ComputeNode true.

Each run probes the host, builds the values of its ComputeNode and writes
only what changed. Figures that move all the time (free, available,
buffered and cached memory, used disk, free memory of each NUMA node) count
as changed only when they move by more than ``[compute]
usage_report_granularity`` percent of their total, so an idle host causes
no RPC call and no database write. The memory totals of the host and of
each NUMA node, which a virtual machine's memory balloon moves, are held
the same way: they count as changed only past that percent of the total.

A part of the host whose source cannot be read (see
``HostCapabilities.errors``) is left out: the stored values of its fields
stay as they are and the other parts are saved. Its first failure is one
WARNING, its recovery one INFO line; in between only DEBUG.
"""

import collections
import threading

from oslo_log import log as logging

from zun_hostcap.common import concurrency
from zun_hostcap.common import exception
from zun_hostcap.compute import placement_client
from zun_hostcap import objects
from zun_hostcap import os_capability

LOG = logging.getLogger(__name__)

_KIB_PER_MIB = 1024
_BYTES_PER_GIB = 1024 ** 3

# Drifting field -> the field holding the total it is measured against.
DRIFTING_FIELDS = {
    # A VM's memory balloon moves MemTotal itself.
    'mem_total': 'mem_total',
    'mem_free': 'mem_total',
    'mem_available': 'mem_total',
    'mem_buffers': 'mem_total',
    'mem_cached': 'mem_total',
    'disk_used': 'disk_total',
}

# Set by the tracker at creation only; the API or operators own them later.
_CREATE_ONLY_FIELDS = {'labels': {}}

# Parts without which a ComputeNode cannot be created: it would claim zero
# CPUs or zero memory, which a scheduler takes for a full host and which
# would later read as a change of capacity. Once the row exists no part is
# essential: one that cannot be read keeps the values stored before.
ESSENTIAL_PARTS = ('cpu', 'memory')

# What a new ComputeNode holds for a part that could not be read: None
# ("not known") for the OS strings, zero for the disk, no NUMA node and no
# PCI pool (their JSON columns store a null as empty anyway). Functions, so
# each node gets objects of its own.
EMPTY_AT_CREATION = {
    'numa_topology': lambda: {
        'numa_topology': objects.NUMATopology(nodes=[])},
    'disk': lambda: {'disk_total': 0, 'disk_used': 0},
    'pci_devices': lambda: {
        'pci_device_pools': objects.PciDevicePoolList(objects=[])},
    'os': lambda: {'os_type': None, 'os': None, 'kernel_version': None},
}

# How log lines name each part of the host.
PART_NAMES = {
    'cpu': 'CPU topology',
    'memory': 'memory',
    'numa_topology': 'NUMA topology',
    'disk': 'disk',
    'pci_devices': 'PCI devices',
    'os': 'OS version',
}

# The linux driver names the argument that chose a failing source; the
# compute manager passes each from the [compute] option of the same name.
OPTION_ADVICE = {
    'disk_path': 'set [compute] disk_path to the filesystem containers are '
                 'stored on',
    'cpu_source': 'install lscpu (util-linux) or set [compute] cpu_source '
                  'to sysfs',
}


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


def _cpu_fields(cpu):
    # Offline CPUs cannot run anything, so they are not capacity.
    return {'cpus': len(cpu.online_cpus), 'architecture': cpu.architecture}


def _memory_fields(memory):
    return {
        'mem_total': memory.mem_total // _KIB_PER_MIB,
        'mem_free': memory.mem_free // _KIB_PER_MIB,
        'mem_available': _mem_available_kb(memory) // _KIB_PER_MIB,
        'mem_buffers': memory.buffers // _KIB_PER_MIB,
        'mem_cached': memory.cached // _KIB_PER_MIB,
    }


def _numa_fields(numa_nodes):
    return {'numa_topology': objects.NUMATopology(nodes=[
        objects.NUMANode(
            id=node.id, cpuset=set(node.cpus), pinned_cpus=set(),
            mem_total=node.mem_total_kb // _KIB_PER_MIB,
            mem_available=node.mem_free_kb // _KIB_PER_MIB)
        for node in numa_nodes])}


def _disk_fields(disk):
    return {'disk_total': disk.total_bytes // _BYTES_PER_GIB,
            'disk_used': disk.used_bytes // _BYTES_PER_GIB}


def _pci_fields(pci_devices):
    return {'pci_device_pools': _pci_pools(pci_devices)}


def _os_fields(os_info):
    return {'os_type': os_info.os_type, 'os': os_info.os,
            'kernel_version': os_info.kernel_version}


# Part of HostCapabilities -> the ComputeNode fields built from it.
PART_FIELDS = {
    'cpu': _cpu_fields,
    'memory': _memory_fields,
    'numa_topology': _numa_fields,
    'disk': _disk_fields,
    'pci_devices': _pci_fields,
    'os': _os_fields,
}


def _where(error):
    """The failing source, with the [compute] option that chose it."""
    if error.parameter:
        return '[compute] %s %s' % (error.parameter, error.source)
    return error.source


def _advice(error):
    advice = OPTION_ADVICE.get(error.parameter)
    return '; %s' % advice if advice else ''


class ResourceTracker:
    """Builds and saves the ComputeNode of one host."""

    def __init__(self, host, host_driver, container_driver,
                 granularity_percent=1.0, reporter=None):
        self.host = host
        self.host_driver = host_driver
        self.container_driver = container_driver
        self.granularity_percent = granularity_percent
        # A placement_report.Reporter, or None: no Placement to tell.
        self.reporter = reporter
        # Consumer uuids of the claims whose container is still to come.
        # Written by RPC threads, read by the audit.
        self._claims = set()
        self._claims_lock = threading.Lock()
        self.compute_node = None
        # Part -> its SourceError, for the parts failing since we warned.
        self.unreadable_parts = {}

    def update_available_resource(self, context):
        """Probe the host and save what changed since the last run.

        :raises HostProbeFailed: if the host cannot be read at all, or if
            its node does not exist yet and an essential part is missing.
        """
        concurrency.log_once('resource tracker periodic task')
        caps = self._probe()
        # Listed once a run: the usage and the audit count the same ones.
        containers = (self.container_driver.list_containers()
                      if self.reporter is not None else None)
        usage = self.container_driver.get_usage(containers)
        node = self.compute_node
        if node is None:
            node = self._load(context)
            if node is None:
                # Before any warning: a host that cannot be created is the
                # manager's one error line, every interval.
                self._check_essential_parts(caps)
        self._log_unreadable_parts(caps)
        values = self._host_values(caps, usage)
        if node is None:
            node = self._create(context, values, caps)
        else:
            self._apply(node, values)
            changed = node.obj_what_changed()
            if changed:
                LOG.debug('Saving changed fields of %(host)s: %(fields)s',
                          {'host': self.host, 'fields': sorted(changed)})
                node.save()
        self.compute_node = node
        if self.reporter is not None:
            # After the node is stored: Placement only ever hears of a
            # host that the database has.
            self.reporter.report(
                node, containers,
                cpu_flags=caps.cpu.flags if caps.cpu is not None else None,
                claimed=self.claimed, pci_devices=caps.pci_devices)
            self._settle_claims(containers)
        return node

    # Claims: room asked for a container that the runtime has yet to run.

    def claimed(self):
        """The consumer uuids of the claims still waiting for a container."""
        with self._claims_lock:
            return set(self._claims)

    def _settle_claims(self, containers):
        # A claim's container exists: its own limits are its claim now.
        if containers is None:
            return
        with self._claims_lock:
            for container in containers:
                self._claims.discard(container.uuid)

    def claim(self, consumer_uuid, resources, project_id=None, user_id=None):
        """Allocate ``resources`` on this host for a container to come.

        :raises ClaimFailed: no room (Placement's reason), or no
            Placement to claim in; nothing is left claimed.
        """
        node = self.compute_node
        reason = None
        if self.reporter is None:
            reason = ('this host reports to no Placement ([placement] '
                      'auth_type is not set)')
        elif node is None:
            reason = 'this host is not stored yet'
        if reason:
            raise exception.ClaimFailed(consumer=consumer_uuid,
                                        host=self.host, reason=reason)
        # Known before it is written: the audit must not take it for a
        # stranger's.
        with self._claims_lock:
            self._claims.add(consumer_uuid)
        try:
            self.reporter.claim(node.uuid, consumer_uuid, resources,
                                project_id, user_id)
        except placement_client.FAILURES as err:
            with self._claims_lock:
                self._claims.discard(consumer_uuid)
            raise exception.ClaimFailed(consumer=consumer_uuid,
                                        host=self.host,
                                        reason=exception.one_line(err))
        LOG.info('Claimed %(resources)s for %(consumer)s',
                 {'consumer': consumer_uuid,
                  'resources': ', '.join('%s %d' % item for item in
                                         sorted(resources.items()))})

    def release_claim(self, consumer_uuid):
        """Delete the allocations of a claim (or of its container).

        :returns: whether Placement had any. If Placement cannot be
            reached they are left to the audit, which deletes them once
            no container has the uuid.
        """
        with self._claims_lock:
            self._claims.discard(consumer_uuid)
        if self.reporter is None:
            return False
        try:
            return self.reporter.client.delete_allocations(consumer_uuid)
        except placement_client.FAILURES as err:
            LOG.warning('The allocations of %(consumer)s are left to the '
                        'audit: %(error)s',
                        {'consumer': consumer_uuid,
                         'error': exception.one_line(err)})
            return False

    def _probe(self):
        try:
            return self.host_driver.get_capabilities()
        except os_capability.CapabilityError as err:
            raise exception.HostProbeFailed(reason=str(err))

    def _check_essential_parts(self, caps):
        # A driver that leaves a part out without saying why still counts.
        missing = [caps.error_of(part) or os_capability.SourceError(
                       part, part, 'not reported by the host driver')
                   for part in ESSENTIAL_PARTS
                   if getattr(caps, part) is None]
        if not missing:
            return
        causes = '; '.join(
            '%s: %s%s' % (_where(error), error.reason, _advice(error))
            for error in missing)
        parts = ' and '.join(PART_NAMES[error.part] for error in missing)
        raise exception.HostProbeFailed(
            reason='%s; the compute node of %s cannot be created without '
                   'its %s' % (causes, self.host, parts))

    def _log_unreadable_parts(self, caps):
        """Warn once when a part fails, say once when it is read again."""
        failing = {error.part: error for error in caps.errors}
        for part, error in failing.items():
            values = {'where': _where(error), 'reason': error.reason,
                      'part': PART_NAMES[part], 'advice': _advice(error)}
            if part in self.unreadable_parts:
                LOG.debug('%(where)s: %(reason)s; %(part)s is still not '
                          'reported', values)
            else:
                LOG.warning('%(where)s: %(reason)s; %(part)s is not '
                            'reported until it can be read%(advice)s',
                            values)
        for part, error in self.unreadable_parts.items():
            if part not in failing:
                LOG.info('%(where)s can be read again; %(part)s is reported '
                         'again', {'where': _where(error),
                                   'part': PART_NAMES[part]})
        self.unreadable_parts = failing

    def _host_values(self, caps, usage):
        """The ComputeNode values of what was read; the rest is left out."""
        values = {
            'hostname': self.host,
            'cpu_used': float(usage.cpu_used),
            'mem_used': usage.mem_used,
            'total_containers': usage.total,
            'running_containers': usage.running,
            'paused_containers': usage.paused,
            'stopped_containers': usage.stopped,
            'disk_quota_supported': usage.disk_quota_supported,
            'enable_cpu_pinning': usage.enable_cpu_pinning,
            'runtimes': list(usage.runtimes),
        }
        for part, fields_of in PART_FIELDS.items():
            data = getattr(caps, part)
            if data is not None:
                values.update(fields_of(data))
        return values

    def _load(self, context):
        try:
            return objects.ComputeNode.get_by_hostname(context, self.host)
        except exception.ComputeNodeNotFound:
            return None

    def _create(self, context, values, caps):
        unread = [part for part in PART_FIELDS
                  if getattr(caps, part) is None]
        for part in unread:
            values.update(EMPTY_AT_CREATION[part]())
        node = objects.ComputeNode(context, **values)
        for name, default in _CREATE_ONLY_FIELDS.items():
            setattr(node, name, default)
        node.create()
        LOG.info('Created compute node %(uuid)s for %(host)s: '
                 '%(cpus)d CPUs (%(arch)s), %(mem)d MiB memory, '
                 '%(numa)d NUMA nodes, %(disk)d GiB disk, %(os)s%(empty)s',
                 {'uuid': node.uuid, 'host': self.host,
                  'cpus': node.cpus, 'arch': node.architecture,
                  'mem': node.mem_total,
                  'numa': len(node.numa_topology.nodes),
                  'disk': node.disk_total, 'os': node.os,
                  'empty': ('; stored empty until it can be read: %s'
                            % ', '.join(PART_NAMES[part] for part in unread)
                            if unread else '')})
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
            # Keep a node's old memory total and free memory while they
            # drift within bounds: a balloon moves both.
            old_nodes = {cell.id: cell for cell in old.nodes}
            for cell in new.nodes:
                previous = old_nodes.get(cell.id)
                if previous is None:
                    continue
                if not _moved_enough(previous.mem_total, cell.mem_total,
                                     cell.mem_total,
                                     self.granularity_percent):
                    cell.mem_total = previous.mem_total
                if not _moved_enough(
                        previous.mem_available, cell.mem_available,
                        cell.mem_total, self.granularity_percent):
                    cell.mem_available = previous.mem_available
        if old is None or old.to_dict() != new.to_dict():
            node.numa_topology = new
