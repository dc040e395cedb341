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

"""Plain, immutable data returned by host drivers.

Everything here is built from the standard library only so the results can
be logged, compared, pickled or converted to versioned objects by callers.
"""

import dataclasses


@dataclasses.dataclass(frozen=True)
class CpuInfo:
    """Logical CPU layout of the host."""

    architecture: str
    model_name: str | None
    cpus: int
    online_cpus: tuple[int, ...]
    offline_cpus: tuple[int, ...]
    sockets: int
    cores_per_socket: int
    threads_per_core: int
    numa_nodes: int
    # A dict cannot be hashed; leave it out of __hash__ so CpuInfo (and
    # HostCapabilities) stay hashable.
    numa_cpus: dict[int, tuple[int, ...]] = dataclasses.field(hash=False)
    flags: tuple[str, ...]
    usable_cpus: tuple[int, ...]


@dataclasses.dataclass(frozen=True)
class MemoryInfo:
    """Host memory, in kB as /proc/meminfo reports it."""

    mem_total: int
    mem_free: int
    mem_available: int | None
    buffers: int
    cached: int
    hugepages_total: int
    hugepages_free: int
    hugepage_size_kb: int | None


@dataclasses.dataclass(frozen=True)
class NumaNode:
    """One NUMA node: its CPUs and memory in kB."""

    id: int
    cpus: tuple[int, ...]
    mem_total_kb: int
    mem_free_kb: int


@dataclasses.dataclass(frozen=True)
class DiskInfo:
    """Space on the file system holding ``path``, in bytes."""

    path: str
    total_bytes: int
    used_bytes: int
    free_bytes: int


@dataclasses.dataclass(frozen=True)
class PciDevice:
    """A PCI function as sysfs describes it."""

    address: str
    vendor_id: str
    product_id: str
    class_code: str
    numa_node: int | None
    driver: str | None
    # Its network interfaces (``net/`` in sysfs), by name.
    netdevs: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class OsInfo:
    """Operating system identification."""

    os_type: str
    os: str | None
    kernel_version: str
    hostname: str


# The parts of a HostCapabilities, each read from its own source(s).
PARTS = ('cpu', 'memory', 'numa_topology', 'disk', 'pci_devices', 'os')


@dataclasses.dataclass(frozen=True)
class SourceError:
    """A part of the host that could not be read, and why.

    ``part`` is a :class:`HostCapabilities` field name (one of ``PARTS``);
    ``source``, ``reason`` and ``parameter`` are those of the
    :class:`CapabilityError` that stopped it.
    """

    part: str
    source: str
    reason: str
    parameter: str | None = None

    def __str__(self):
        return '%s: %s' % (self.source, self.reason)


@dataclasses.dataclass(frozen=True)
class HostCapabilities:
    """Everything a driver reports about the host, in one value.

    A part whose source could not be read is None and has an entry in
    ``errors``; the other parts are still reported. Which parts a caller
    cannot do without is the caller's decision.
    """

    cpu: CpuInfo | None
    memory: MemoryInfo | None
    numa_topology: tuple[NumaNode, ...] | None
    disk: DiskInfo | None
    pci_devices: tuple[PciDevice, ...] | None
    os: OsInfo | None
    errors: tuple[SourceError, ...] = ()

    def error_of(self, part):
        """The :class:`SourceError` of ``part``, or None if it was read."""
        for error in self.errors:
            if error.part == part:
                return error
        return None
