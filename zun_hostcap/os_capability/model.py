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


@dataclasses.dataclass(frozen=True)
class OsInfo:
    """Operating system identification."""

    os_type: str
    os: str | None
    kernel_version: str
    hostname: str


@dataclasses.dataclass(frozen=True)
class HostCapabilities:
    """Everything a driver reports about the host, in one value."""

    cpu: CpuInfo
    memory: MemoryInfo
    numa_topology: tuple[NumaNode, ...]
    disk: DiskInfo
    pci_devices: tuple[PciDevice, ...]
    os: OsInfo
