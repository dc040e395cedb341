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

"""Host discovery on Linux from procfs, sysfs, os-release and lscpu."""

import dataclasses
import os

from oslo_concurrency import processutils

from zun_hostcap.os_capability import base
from zun_hostcap.os_capability import errors
from zun_hostcap.os_capability import lscpu
from zun_hostcap.os_capability import model
from zun_hostcap.os_capability import sysfs

CPU_SOURCES = ('sysfs', 'lscpu')


def default_run_lscpu(root='/'):
    """Run ``lscpu`` with LC_ALL=C and return its standard output.

    With a ``root`` other than '/', lscpu is told to read that tree
    (``--sysroot``). Failures become :class:`CapabilityError` naming lscpu.
    """
    cmd = ['lscpu']
    if root != '/':
        cmd += ['--sysroot', root]
    # Keep PATH and the rest of the environment: env_variables replaces
    # the whole environment, and we only want stable (English) labels.
    env = dict(os.environ, LC_ALL='C')
    try:
        out, _err = processutils.execute(*cmd, env_variables=env)
    except FileNotFoundError:
        raise errors.CapabilityError(lscpu.SOURCE, 'command not found')
    except OSError as exc:
        raise errors.CapabilityError(
            lscpu.SOURCE, 'cannot run: %s' % (exc.strerror or exc))
    except processutils.ProcessExecutionError as exc:
        raise errors.CapabilityError(
            lscpu.SOURCE, 'failed with exit code %s: %s'
            % (exc.exit_code, (exc.stderr or '').strip()))
    return out


class LinuxDriver(base.HostDriver):
    """Read the capabilities of the Linux host this process runs on.

    :param cpu_source: ``'sysfs'`` (default, fast: reads files only) or
        ``'lscpu'`` (runs the command). Both give the same :class:`CpuInfo`
        on the same host, within the limits documented in
        :func:`sysfs.read_cpu_info` and :mod:`cpuinfo`.
    :param disk_path: the file system reported by :meth:`get_disk_info`; it
        is a real path and is not prefixed by ``root``.
    :param root: prefix for every /proc, /sys and /etc path, so a fixture
        tree can stand in for the host.
    :param run_lscpu: callable returning lscpu's output text; defaults to
        running lscpu (with ``--sysroot`` when ``root`` is not '/').
    :param affinity: iterable of CPU ids this process may run on. When not
        given: ``os.sched_getaffinity(0)`` if ``root`` is '/', otherwise
        ``<root>/sys/fs/cgroup/cpuset.cpus.effective`` if present, otherwise
        the online CPUs.
    :param uname: callable returning an ``os.uname()`` like result (machine,
        release, nodename, sysname); defaults to ``os.uname``. Used for the
        architecture on the sysfs path and for :meth:`get_os_info`.
    """

    def __init__(self, cpu_source='sysfs', disk_path='/', root='/',
                 run_lscpu=None, affinity=None, uname=None):
        if cpu_source not in CPU_SOURCES:
            raise ValueError('cpu_source must be one of %s, not %r'
                             % (', '.join(CPU_SOURCES), cpu_source))
        self.cpu_source = cpu_source
        self.disk_path = disk_path
        self.root = root
        self._run_lscpu = run_lscpu or (lambda: default_run_lscpu(root))
        self._affinity = (None if affinity is None
                          else tuple(sorted(set(affinity))))
        self._uname = uname or os.uname

    def get_cpu_info(self):
        """Return a :class:`CpuInfo` from ``cpu_source``.

        Errors of lscpu name ``cpu_source`` as their parameter: choosing
        sysfs is a way around a host without a working lscpu.
        """
        if self.cpu_source == 'lscpu':
            try:
                info = lscpu.parse_lscpu(self._run_lscpu())
            except errors.CapabilityError as exc:
                exc.parameter = 'cpu_source'
                raise
        else:
            info = sysfs.read_cpu_info(self.root, self._uname().machine)
        return dataclasses.replace(
            info, usable_cpus=self._usable_cpus(info.online_cpus))

    def _usable_cpus(self, online_cpus):
        if self._affinity is not None:
            return self._affinity
        if self.root == '/':
            # Covers taskset, cgroup cpusets and container limits at once.
            return tuple(sorted(os.sched_getaffinity(0)))
        cpuset = sysfs.read_cgroup_cpuset(self.root)
        return online_cpus if cpuset is None else cpuset

    def get_memory_info(self):
        """Return a :class:`MemoryInfo` from /proc/meminfo."""
        return sysfs.read_memory_info(self.root)

    def get_numa_topology(self):
        """Return the NUMA nodes (see :func:`sysfs.read_numa_topology`).

        Without /sys/devices/system/node the host is one node 0 with all
        online CPUs and the /proc/meminfo totals.
        """
        return sysfs.read_numa_topology(self.root)

    def get_disk_info(self):
        """Return a :class:`DiskInfo` for ``disk_path`` via statvfs.

        Errors name ``disk_path`` as their parameter: the path is a setting
        (e.g. /var/lib/docker), and a host without it is a common mistake.
        """
        try:
            st = os.statvfs(self.disk_path)
        except FileNotFoundError:
            raise errors.CapabilityError(self.disk_path, 'does not exist',
                                         parameter='disk_path')
        except OSError as exc:
            raise errors.CapabilityError(
                self.disk_path, 'cannot statvfs: %s' % (exc.strerror or exc),
                parameter='disk_path')
        # f_bavail (not f_bfree) is what an unprivileged user can still
        # write; "used" counts from f_bfree as df does.
        return model.DiskInfo(
            path=self.disk_path,
            total_bytes=st.f_blocks * st.f_frsize,
            used_bytes=(st.f_blocks - st.f_bfree) * st.f_frsize,
            free_bytes=st.f_bavail * st.f_frsize,
        )

    def get_pci_devices(self):
        """Return the PCI devices (see :func:`sysfs.read_pci_devices`)."""
        return sysfs.read_pci_devices(self.root)

    def get_os_info(self):
        """Return an :class:`OsInfo` from uname and os-release."""
        uname = self._uname()
        return model.OsInfo(
            os_type=uname.sysname.lower(),
            os=sysfs.read_os_release(self.root),
            kernel_version=uname.release,
            hostname=uname.nodename,
        )
