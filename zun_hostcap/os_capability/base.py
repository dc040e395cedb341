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

"""The interface every host driver implements."""

import abc

from zun_hostcap.os_capability import errors
from zun_hostcap.os_capability import model


# HostCapabilities part -> the getter that reads it.
PART_GETTERS = {
    'cpu': 'get_cpu_info',
    'memory': 'get_memory_info',
    'numa_topology': 'get_numa_topology',
    'disk': 'get_disk_info',
    'pci_devices': 'get_pci_devices',
    'os': 'get_os_info',
}


class HostDriver(metaclass=abc.ABCMeta):
    """Discovers what the host offers; each method returns plain data.

    Getters raise :class:`CapabilityError` when a source is missing or
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
        """Return a :class:`HostCapabilities`, each part read on its own.

        A part whose getter cannot read its source (:class:`CapabilityError`
        or an OSError it did not wrap) is None and is named in ``errors``;
        the others are still read. Any other exception is a bug, not a
        property of the host, and propagates.
        """
        parts = {}
        source_errors = []
        for part, getter in PART_GETTERS.items():
            try:
                parts[part] = getattr(self, getter)()
            except errors.CapabilityError as exc:
                parts[part] = None
                source_errors.append(model.SourceError(
                    part, exc.source, exc.reason, exc.parameter))
            except OSError as exc:
                parts[part] = None
                source = str(exc.filename or getter)
                source_errors.append(model.SourceError(
                    part, source, exc.strerror or str(exc)))
        return model.HostCapabilities(errors=tuple(source_errors), **parts)
