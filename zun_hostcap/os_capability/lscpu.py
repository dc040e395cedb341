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

"""Parse the default ``lscpu`` output (run with LC_ALL=C).

The output is "Key: value" lines. Newer util-linux indents keys to show
sections when writing to a terminal, and the set of keys varies by
version and architecture, so keys are matched after stripping and only the
first occurrence of a key is used (on hosts with several CPU types, e.g.
big.LITTLE, lscpu repeats the per-type keys; only the first type is
described).
"""

import re

from zun_hostcap.os_capability import cpulist
from zun_hostcap.os_capability import errors
from zun_hostcap.os_capability import model

SOURCE = 'lscpu'

_NUMA_NODE_KEY = re.compile(r'^NUMA node(\d+) CPU\(s\)$')
# lscpu prints '-' where it has no value (e.g. "Socket(s): -" on aarch64).
_NO_VALUE = ('', '-')


def parse_lscpu(text):
    """Build a :class:`CpuInfo` from ``lscpu`` output.

    Keys used: Architecture, CPU(s) (the present CPUs in util-linux
    >= 2.37), On-line CPU(s) list, Off-line CPU(s) list, Thread(s) per core,
    Core(s) per socket or Core(s) per cluster, Socket(s), NUMA node(s),
    NUMA nodeN CPU(s), Model name and Flags.

    Newer util-linux on aarch64 may print "Core(s) per cluster" with
    "Socket(s): -" (or no Socket(s) line). Then sockets is derived as
    online CPUs / (cores per cluster * threads per core), at least 1: the
    number of packages the online CPUs would fill. ``usable_cpus`` is set
    to the online CPUs; the driver replaces it with the real affinity.

    :raises CapabilityError: naming ``lscpu`` if a required key is
        missing or a value cannot be parsed.
    """
    fields = {}
    numa_cpus = {}
    for line in text.splitlines():
        key, sep, value = line.partition(':')
        if not sep:
            continue
        key = key.strip()
        value = value.strip()
        match = _NUMA_NODE_KEY.match(key)
        if match:
            numa_cpus[int(match.group(1))] = cpulist.parse_cpu_list(
                value, SOURCE, key)
        else:
            fields.setdefault(key, value)

    architecture = _required(fields, 'Architecture')
    cpus = _int(fields, 'CPU(s)')
    online = cpulist.parse_cpu_list(
        _required(fields, 'On-line CPU(s) list'), SOURCE,
        'On-line CPU(s) list')
    offline = cpulist.parse_cpu_list(
        fields.get('Off-line CPU(s) list', ''), SOURCE,
        'Off-line CPU(s) list')
    threads_per_core = _int(fields, 'Thread(s) per core')
    if 'Core(s) per socket' in fields:
        cores_per_socket = _int(fields, 'Core(s) per socket')
    elif 'Core(s) per cluster' in fields:
        cores_per_socket = _int(fields, 'Core(s) per cluster')
    else:
        raise errors.CapabilityError(
            SOURCE, "no 'Core(s) per socket' or 'Core(s) per cluster' line")
    if fields.get('Socket(s)', '') not in _NO_VALUE:
        sockets = _int(fields, 'Socket(s)')
    else:
        per_package = max(1, cores_per_socket * threads_per_core)
        sockets = max(1, len(online) // per_package)
    if fields.get('NUMA node(s)', '') in _NO_VALUE:
        numa_nodes = 0
    else:
        numa_nodes = _int(fields, 'NUMA node(s)')
    model_name = fields.get('Model name', '')
    flags = fields.get('Flags', '').split()
    return model.CpuInfo(
        architecture=architecture,
        model_name=None if model_name in _NO_VALUE else model_name,
        cpus=cpus,
        online_cpus=online,
        offline_cpus=offline,
        sockets=sockets,
        cores_per_socket=cores_per_socket,
        threads_per_core=threads_per_core,
        numa_nodes=numa_nodes,
        numa_cpus=numa_cpus,
        flags=tuple(sorted(set(flags))),
        usable_cpus=online,
    )


def _required(fields, key):
    value = fields.get(key, '')
    if value in _NO_VALUE:
        raise errors.CapabilityError(SOURCE, 'no %r line' % key)
    return value


def _int(fields, key):
    value = _required(fields, key)
    if not value.isdigit():
        raise errors.CapabilityError(
            SOURCE, 'cannot parse %r value %r' % (key, value))
    return int(value)
