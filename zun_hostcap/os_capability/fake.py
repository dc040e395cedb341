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

"""An in-memory host driver for tests of code that consumes capabilities."""

import dataclasses
import json
import os
import random
import tempfile
import threading

from zun_hostcap.os_capability import base
from zun_hostcap.os_capability import errors
from zun_hostcap.os_capability import model


def sample_capabilities():
    """Return a plausible 2-socket, 2-NUMA-node host.

    16 logical CPUs: 2 sockets x 4 cores x 2 threads, siblings interleaved
    as Linux numbers them on Intel servers (CPU n and n+8 share a core);
    node 0 holds socket 0 (CPUs 0-3,8-11), node 1 socket 1.
    """
    node0 = (0, 1, 2, 3, 8, 9, 10, 11)
    node1 = (4, 5, 6, 7, 12, 13, 14, 15)
    all_cpus = tuple(range(16))
    return model.HostCapabilities(
        cpu=model.CpuInfo(
            architecture='x86_64',
            model_name='Intel(R) Xeon(R) Silver 4208 CPU @ 2.10GHz',
            cpus=16,
            online_cpus=all_cpus,
            offline_cpus=(),
            sockets=2,
            cores_per_socket=4,
            threads_per_core=2,
            numa_nodes=2,
            numa_cpus={0: node0, 1: node1},
            flags=('avx', 'avx2', 'fpu', 'ht', 'sse4_2', 'vmx'),
            usable_cpus=all_cpus,
        ),
        memory=model.MemoryInfo(
            mem_total=65_747_000, mem_free=60_100_000,
            mem_available=62_000_000, buffers=120_000, cached=1_500_000,
            hugepages_total=1024, hugepages_free=1000,
            hugepage_size_kb=2048,
        ),
        numa_topology=(
            model.NumaNode(id=0, cpus=node0, mem_total_kb=32_873_500,
                           mem_free_kb=30_000_000),
            model.NumaNode(id=1, cpus=node1, mem_total_kb=32_873_500,
                           mem_free_kb=30_100_000),
        ),
        disk=model.DiskInfo(path='/', total_bytes=500 * 1024 ** 3,
                            used_bytes=120 * 1024 ** 3,
                            free_bytes=355 * 1024 ** 3),
        pci_devices=(
            model.PciDevice(address='0000:00:1f.2', vendor_id='8086',
                            product_id='a182', class_code='010601',
                            numa_node=0, driver='ahci'),
            model.PciDevice(address='0000:af:00.0', vendor_id='15b3',
                            product_id='1017', class_code='020000',
                            numa_node=1, driver='mlx5_core'),
        ),
        os=model.OsInfo(os_type='linux', os='Ubuntu 22.04.4 LTS',
                        kernel_version='5.15.0-105-generic',
                        hostname='compute-1'),
    )


def ballooned(capabilities, fraction):
    """``capabilities`` as a VM's memory balloon changes them.

    The balloon holds ``fraction`` of the memory (negative: it gave that
    much back): MemTotal, MemFree and MemAvailable of the host, and
    MemTotal and MemFree of each NUMA node, are less by ``fraction`` of
    their total, as a balloon driver that returns pages to the
    hypervisor reports them. The rest is left as it is.
    """
    def taken(total):
        return int(total * fraction)

    memory = capabilities.memory
    if memory is not None:
        gone = taken(memory.mem_total)
        memory = dataclasses.replace(
            memory, mem_total=memory.mem_total - gone,
            mem_free=max(0, memory.mem_free - gone),
            mem_available=(None if memory.mem_available is None
                           else max(0, memory.mem_available - gone)))
    numa_topology = capabilities.numa_topology
    if numa_topology is not None:
        numa_topology = tuple(
            dataclasses.replace(
                node, mem_total_kb=node.mem_total_kb - taken(
                    node.mem_total_kb),
                mem_free_kb=max(0, node.mem_free_kb - taken(
                    node.mem_total_kb)))
            for node in numa_topology)
    return dataclasses.replace(capabilities, memory=memory,
                               numa_topology=numa_topology)


def capabilities_to_dict(capabilities):
    """JSON-ready plain data of a :class:`HostCapabilities`.

    A PCI device's ``netdevs`` (new in this release) is written only when
    it names any: the file of a host without them stays readable by the
    previous release's fake driver, during an upgrade.
    """
    data = dataclasses.asdict(capabilities)
    for device in data.get('pci_devices') or ():
        if not device['netdevs']:
            del device['netdevs']
    return data


def capabilities_from_dict(data):
    """The :class:`HostCapabilities` that ``capabilities_to_dict`` gave."""
    def part(name, build):
        # A part that could not be read is null in the data.
        return None if data[name] is None else build(data[name])

    def cpu_info(cpu):
        cpu = dict(cpu)
        for name in ('online_cpus', 'offline_cpus', 'flags', 'usable_cpus'):
            cpu[name] = tuple(cpu[name])
        # JSON object keys are strings; NUMA node ids are ints.
        cpu['numa_cpus'] = {int(node): tuple(cpus)
                            for node, cpus in cpu['numa_cpus'].items()}
        return model.CpuInfo(**cpu)

    return model.HostCapabilities(
        cpu=part('cpu', cpu_info),
        memory=part('memory', lambda memory: model.MemoryInfo(**memory)),
        numa_topology=part('numa_topology', lambda nodes: tuple(
            model.NumaNode(**dict(node, cpus=tuple(node['cpus'])))
            for node in nodes)),
        disk=part('disk', lambda disk: model.DiskInfo(**disk)),
        pci_devices=part('pci_devices', lambda devices: tuple(
            model.PciDevice(**dict(dev, netdevs=tuple(dev.get('netdevs',
                                                              ()))))
            for dev in devices)),
        os=part('os', lambda os_info: model.OsInfo(**os_info)),
        # Files written before parts could fail have no errors key.
        errors=tuple(model.SourceError(**error)
                     for error in data.get('errors', ())))


def write_capabilities(path, capabilities):
    """Store ``capabilities`` as JSON at ``path``, atomically.

    A FakeDriver reading the file at the same time sees the old or the new
    content, never half of it.
    """
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp_path = tempfile.mkstemp(dir=directory, suffix='.tmp')
    with os.fdopen(fd, 'w') as f:
        json.dump(capabilities_to_dict(capabilities), f, indent=1)
    os.replace(tmp_path, path)


def read_capabilities(path):
    """Load a file written by :func:`write_capabilities`.

    :raises CapabilityError: naming the file, if it is missing or is not
        such data.
    """
    try:
        with open(path) as f:
            return capabilities_from_dict(json.load(f))
    except OSError as err:
        raise errors.CapabilityError(path, err.strerror or str(err))
    except (ValueError, KeyError, TypeError) as err:
        raise errors.CapabilityError(
            path, 'not host capabilities data: %s: %s'
            % (type(err).__name__, err))


class FakeDriver(base.HostDriver):
    """Return the capabilities it was given; change them between calls.

    Thread-safe: a lock guards the stored value, and since the data is
    immutable each getter returns a consistent section.

    :param capabilities: a :class:`HostCapabilities`; defaults to
        :func:`sample_capabilities`.
    :param data_file: a file written by :func:`write_capabilities`, read
        on every probe instead, so another process can change the host.
    """

    def __init__(self, capabilities=None, data_file=None):
        self._lock = threading.Lock()
        self._data_file = data_file
        self._caps = (capabilities if capabilities is not None
                      else sample_capabilities())

    def set_capabilities(self, capabilities):
        """Replace everything the driver reports."""
        if not isinstance(capabilities, model.HostCapabilities):
            raise TypeError('expected HostCapabilities, got %r'
                            % type(capabilities).__name__)
        with self._lock:
            self._caps = capabilities

    def update(self, **section_changes):
        """Replace some sections, e.g. ``update(memory=new_memory_info)``.

        Keys are :class:`HostCapabilities` field names (cpu, memory,
        numa_topology, disk, pci_devices, os). A part given a value is
        readable again: its entry in ``errors`` goes. Returns the new value.
        """
        with self._lock:
            errors_left = tuple(
                error for error in self._caps.errors
                if section_changes.get(error.part) is None)
            section_changes.setdefault('errors', errors_left)
            # dataclasses.replace raises TypeError for unknown names.
            self._caps = dataclasses.replace(self._caps, **section_changes)
            return self._caps

    def fail(self, part, source, reason, parameter=None):
        """Make ``part`` unreadable, as a LinuxDriver reports it.

        The part becomes None and ``errors`` names it with ``source``,
        ``reason`` and ``parameter``; ``update(part=value)`` heals it.
        Returns the new value.
        """
        if part not in model.PARTS:
            raise TypeError('unknown part %r; choose one of %s'
                            % (part, ', '.join(model.PARTS)))
        error = model.SourceError(part, source, reason, parameter)
        with self._lock:
            errors_left = tuple(e for e in self._caps.errors
                                if e.part != part)
            self._caps = dataclasses.replace(
                self._caps, errors=errors_left + (error,), **{part: None})
            return self._caps

    def get_capabilities(self):
        """Return the stored :class:`HostCapabilities` as one snapshot."""
        if self._data_file is not None:
            return read_capabilities(self._data_file)
        with self._lock:
            return self._caps

    def _part(self, part):
        caps = self.get_capabilities()
        error = caps.error_of(part)
        if error is not None:
            # The getters keep the HostDriver contract: raise, not None.
            raise errors.CapabilityError(error.source, error.reason,
                                         parameter=error.parameter)
        return getattr(caps, part)

    def get_cpu_info(self):
        return self._part('cpu')

    def get_memory_info(self):
        return self._part('memory')

    def get_numa_topology(self):
        return self._part('numa_topology')

    def get_disk_info(self):
        return self._part('disk')

    def get_pci_devices(self):
        return self._part('pci_devices')

    def get_os_info(self):
        return self._part('os')


class BalloonDriver(FakeDriver):
    """A virtual machine's host, whose memory a balloon moves.

    Each probe reports the capabilities it holds (as a FakeDriver) with
    the balloon at ``inflated`` plus a random jitter of up to
    ``jitter`` either way, both fractions of each memory total (see
    :func:`ballooned`).

    :param seed: seeds the jitter, for a run that can be repeated.
    """

    def __init__(self, capabilities=None, inflated=0.0, jitter=0.0,
                 seed=None):
        super().__init__(capabilities)
        self.inflated = inflated
        self.jitter = jitter
        self._random = random.Random(seed)

    def get_capabilities(self):
        """The held capabilities, with the balloon where it is now."""
        fraction = self.inflated + self._random.uniform(-self.jitter,
                                                        self.jitter)
        return ballooned(super().get_capabilities(), fraction)
