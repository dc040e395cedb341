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

"""Read host facts from /sys, /proc and /etc under a root directory.

Every path is a logical path such as ``/proc/meminfo``; it is read below
``root`` so tests can point at a fixture tree. Errors name the logical
path. Layouts follow the kernel's Documentation/ABI (sysfs-devices-system-
cpu, sysfs-devices-system-node, sysfs-bus-pci) and os-release(5).
"""

import os
import re
import shlex

from zun_hostcap.os_capability import cpuinfo
from zun_hostcap.os_capability import cpulist
from zun_hostcap.os_capability import errors
from zun_hostcap.os_capability import meminfo
from zun_hostcap.os_capability import model

CPU_DIR = '/sys/devices/system/cpu'
NODE_DIR = '/sys/devices/system/node'
PCI_DIR = '/sys/bus/pci/devices'
CGROUP_CPUSET = '/sys/fs/cgroup/cpuset.cpus.effective'
OS_RELEASE_FILES = ('/etc/os-release', '/usr/lib/os-release')

_NODE_NAME = re.compile(r'^node(\d+)$')
_HEX = re.compile(r'^[0-9a-f]+$')


def host_path(root, path):
    """Return logical ``path`` (absolute) as seen below ``root``."""
    return os.path.join(root, path.lstrip('/'))


def read_text(root, path):
    """Read a text file; raise CapabilityError naming ``path`` if we can't."""
    try:
        with open(host_path(root, path), encoding='utf-8',
                  errors='replace') as f:
            return f.read()
    except OSError as exc:
        raise errors.CapabilityError(
            path, 'cannot read: %s' % (exc.strerror or exc))


def read_optional(root, path):
    """Like :func:`read_text` but return None if the file does not exist."""
    if not os.path.exists(host_path(root, path)):
        return None
    return read_text(root, path)


def read_cpu_list(root, path):
    """Read and parse a file holding a kernel CPU list."""
    return cpulist.parse_cpu_list(read_text(root, path), path)


def read_numa_cpus(root):
    """Map NUMA node id to its CPUs, or None if the kernel has no nodes dir.

    Nodes are the ``nodeN`` directories; memory-only nodes map to ().
    """
    node_root = host_path(root, NODE_DIR)
    if not os.path.isdir(node_root):
        return None
    try:
        names = os.listdir(node_root)
    except OSError as exc:
        raise errors.CapabilityError(
            NODE_DIR, 'cannot list: %s' % (exc.strerror or exc))
    numa_cpus = {}
    for name in names:
        match = _NODE_NAME.match(name)
        if match:
            node_id = int(match.group(1))
            numa_cpus[node_id] = read_cpu_list(
                root, '%s/%s/cpulist' % (NODE_DIR, name))
    return dict(sorted(numa_cpus.items()))


def read_cpu_info(root, architecture):
    """Build a :class:`CpuInfo` the way lscpu would, without running it.

    * cpus: the count of /sys/devices/system/cpu/present, as lscpu's
      "CPU(s)" (util-linux >= 2.37); offline: present CPUs not online.
      (The kernel's own ``offline`` file also lists possible-but-absent
      CPUs, which lscpu leaves out, so it is not used.)
    * A core is a distinct set of hardware threads (``core_cpus_list``, or
      ``thread_siblings_list`` on kernels before 5.7) among online CPUs; a
      socket is a distinct ``physical_package_id`` (-1, "unknown", counts
      as one package). threads_per_core = online CPUs // cores and
      cores_per_socket = cores // sockets, lscpu's ratios. Offline CPUs
      have no topology, so with SMT siblings offlined threads_per_core
      is 1, again as lscpu reports.
    * numa: the ``nodeN`` directories and their ``cpulist``; 0 and {} when
      /sys/devices/system/node does not exist.
    * model name and flags: see :mod:`cpuinfo`.

    ``usable_cpus`` is set to the online CPUs; the driver replaces it.
    """
    present = read_cpu_list(root, CPU_DIR + '/present')
    online = read_cpu_list(root, CPU_DIR + '/online')
    offline = tuple(sorted(set(present) - set(online)))

    packages = set()
    cores = set()
    for cpu in online:
        topo = '%s/cpu%d/topology' % (CPU_DIR, cpu)
        package = _read_int(root, topo + '/physical_package_id')
        packages.add(package)
        siblings_file = topo + '/core_cpus_list'
        if not os.path.exists(host_path(root, siblings_file)):
            siblings_file = topo + '/thread_siblings_list'
        if os.path.exists(host_path(root, siblings_file)):
            siblings = read_cpu_list(root, siblings_file)
            cores.add(frozenset(siblings).intersection(online))
        else:
            # Very old kernels: fall back to the (package, core id) pair.
            cores.add((package, _read_int(root, topo + '/core_id')))
    sockets = max(1, len(packages))
    threads_per_core = max(1, len(online) // max(1, len(cores)))
    cores_per_socket = max(1, len(cores) // sockets)

    numa_cpus = read_numa_cpus(root)
    model_name, flags = cpuinfo.parse_cpuinfo(
        read_text(root, '/proc/cpuinfo'))
    return model.CpuInfo(
        architecture=architecture,
        model_name=model_name,
        cpus=len(present),
        online_cpus=online,
        offline_cpus=offline,
        sockets=sockets,
        cores_per_socket=cores_per_socket,
        threads_per_core=threads_per_core,
        numa_nodes=len(numa_cpus or {}),
        numa_cpus=numa_cpus or {},
        flags=flags,
        usable_cpus=online,
    )


def read_memory_info(root):
    """Parse /proc/meminfo below ``root`` (see :func:`parse_meminfo`)."""
    return meminfo.parse_meminfo(read_text(root, '/proc/meminfo'))


def read_numa_topology(root):
    """Return one :class:`NumaNode` per node, sorted by id.

    Each node's CPUs come from ``nodeN/cpulist`` and its memory from
    ``nodeN/meminfo``. A kernel without /sys/devices/system/node (built
    without CONFIG_NUMA) is reported as a single node 0 holding all online
    CPUs and the MemTotal/MemFree totals from /proc/meminfo.
    """
    numa_cpus = read_numa_cpus(root)
    if numa_cpus is None:
        online_cpus = read_cpu_list(root, CPU_DIR + '/online')
        memory = read_memory_info(root)
        return (model.NumaNode(id=0, cpus=online_cpus,
                               mem_total_kb=memory.mem_total,
                               mem_free_kb=memory.mem_free),)
    nodes = []
    for node_id, cpus in numa_cpus.items():
        path = '%s/node%d/meminfo' % (NODE_DIR, node_id)
        total, free = meminfo.parse_node_meminfo(
            read_text(root, path), node_id, path)
        nodes.append(model.NumaNode(id=node_id, cpus=cpus,
                                    mem_total_kb=total, mem_free_kb=free))
    return tuple(nodes)


def read_pci_devices(root):
    """Return the PCI functions under /sys/bus/pci/devices, by address.

    No /sys/bus/pci (no PCI bus, or sysfs not mounted) gives (). An
    unreadable or negative ``numa_node`` gives None, an unbound device a
    None driver, and a device removed while we read it is skipped.
    """
    pci_root = host_path(root, PCI_DIR)
    try:
        addresses = sorted(os.listdir(pci_root))
    except FileNotFoundError:
        return ()
    except OSError as exc:
        raise errors.CapabilityError(
            PCI_DIR, 'cannot list: %s' % (exc.strerror or exc))
    devices = []
    for address in addresses:
        dev = '%s/%s' % (PCI_DIR, address)
        try:
            devices.append(_read_pci_device(root, dev, address))
        except errors.CapabilityError:
            if os.path.exists(host_path(root, dev)):
                raise
            # Hot-unplugged between listdir and read: not an error.
    return tuple(devices)


def _read_pci_device(root, dev, address):
    vendor = _read_hex(root, dev + '/vendor', 4)
    product = _read_hex(root, dev + '/device', 4)
    class_code = _read_hex(root, dev + '/class', 6)
    numa_node = None
    try:
        value = int(read_text(root, dev + '/numa_node'))
        numa_node = value if value >= 0 else None
    except (errors.CapabilityError, ValueError):
        pass  # partial result is fine: locality is only a hint
    try:
        driver = os.path.basename(os.readlink(host_path(root,
                                                        dev + '/driver')))
    except OSError:
        driver = None  # no driver bound
    try:
        netdevs = tuple(sorted(os.listdir(host_path(root, dev + '/net'))))
    except OSError:
        netdevs = ()  # not a network device, or no driver bound
    return model.PciDevice(address=address, vendor_id=vendor,
                           product_id=product, class_code=class_code,
                           numa_node=numa_node, driver=driver,
                           netdevs=netdevs)


def read_os_release(root):
    """Return PRETTY_NAME from os-release(5), or None if not available.

    /etc/os-release is read, falling back to /usr/lib/os-release as the
    specification says.
    """
    for path in OS_RELEASE_FILES:
        text = read_optional(root, path)
        if text is None:
            continue
        for line in text.splitlines():
            key, sep, value = line.partition('=')
            if sep and key.strip() == 'PRETTY_NAME':
                return _shell_unquote(value.strip()) or None
        return None
    return None


def read_cgroup_cpuset(root):
    """Return the cgroup v2 effective cpuset under ``root``, or None."""
    text = read_optional(root, CGROUP_CPUSET)
    if text is None:
        return None
    return cpulist.parse_cpu_list(text, CGROUP_CPUSET)


def _shell_unquote(value):
    # os-release values use shell quoting; fall back to the raw text if
    # the quoting is broken rather than failing the whole report.
    try:
        words = shlex.split(value)
    except ValueError:
        return value.strip('"\'')
    return ' '.join(words)


def _read_int(root, path):
    text = read_text(root, path).strip()
    try:
        return int(text)
    except ValueError:
        raise errors.CapabilityError(path, 'not an integer: %r' % text)


def _read_hex(root, path, digits):
    """Read a sysfs "0x8086" style id as lowercase hex without 0x."""
    text = read_text(root, path).strip().lower()
    value = text[2:] if text.startswith('0x') else text
    if len(value) != digits or not _HEX.match(value):
        raise errors.CapabilityError(
            path, 'expected %d hex digits, got %r' % (digits, text))
    return value
