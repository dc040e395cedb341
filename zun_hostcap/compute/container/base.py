"""The interface the resource tracker asks container usage through."""

import abc
import dataclasses


@dataclasses.dataclass(frozen=True)
class ContainerUsage:
    """What the containers of a host hold, as one snapshot."""

    total: int = 0
    running: int = 0
    paused: int = 0
    stopped: int = 0
    cpu_used: float = 0.0       # CPUs reserved by containers
    mem_used: int = 0           # MiB reserved by containers
    runtimes: tuple = ()        # OCI runtimes the engine offers
    disk_quota_supported: bool = False
    enable_cpu_pinning: bool = False


class ContainerDriver(abc.ABC):
    """A container runtime, as far as resource tracking needs it."""

    @abc.abstractmethod
    def get_usage(self):
        """Return a ContainerUsage of this host now."""
