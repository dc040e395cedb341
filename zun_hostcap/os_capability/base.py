"""The interface every host driver implements."""

import abc

from zun_hostcap.os_capability import model


class HostDriver(metaclass=abc.ABCMeta):
    """Discovers what the host offers; each method returns plain data.

    Methods raise :class:`CapabilityError` when a source is missing or
    malformed and a partial result would be misleading.
    """

    @abc.abstractmethod
    def get_cpu_info(self):
        """Return a :class:`CpuInfo`."""

    @abc.abstractmethod
    def get_memory_info(self):
        """Return a :class:`MemoryInfo`."""

    @abc.abstractmethod
    def get_numa_topology(self):
        """Return a tuple of :class:`NumaNode`, sorted by id."""

    @abc.abstractmethod
    def get_disk_info(self):
        """Return a :class:`DiskInfo`."""

    @abc.abstractmethod
    def get_pci_devices(self):
        """Return a tuple of :class:`PciDevice`, sorted by address."""

    @abc.abstractmethod
    def get_os_info(self):
        """Return an :class:`OsInfo`."""

    def get_capabilities(self):
        """Return a :class:`HostCapabilities` built from the getters."""
        return model.HostCapabilities(
            cpu=self.get_cpu_info(),
            memory=self.get_memory_info(),
            numa_topology=self.get_numa_topology(),
            disk=self.get_disk_info(),
            pci_devices=self.get_pci_devices(),
            os=self.get_os_info(),
        )
