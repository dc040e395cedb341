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

"""Parsers for /proc/meminfo and /sys/devices/system/node/nodeN/meminfo."""

from zun_hostcap.os_capability import errors
from zun_hostcap.os_capability import model

# Lines every supported kernel has; without them the result would be wrong,
# not merely incomplete.
_REQUIRED = ('MemTotal', 'MemFree', 'Buffers', 'Cached')


def parse_meminfo(text, source='/proc/meminfo'):
    """Parse /proc/meminfo text into a :class:`MemoryInfo`.

    Partial results where the kernel may legitimately lack a line:
    MemAvailable (added in Linux 3.14) becomes None, HugePages_Total and
    HugePages_Free become 0 and Hugepagesize None (kernels without
    hugetlbfs).

    :raises CapabilityError: naming ``source`` if a required line is
        missing or any line is malformed.
    """
    values = _parse_lines(text, source, prefix='')
    for key in _REQUIRED:
        if key not in values:
            raise errors.CapabilityError(source, 'no %s line' % key)
    return model.MemoryInfo(
        mem_total=values['MemTotal'],
        mem_free=values['MemFree'],
        mem_available=values.get('MemAvailable'),
        buffers=values['Buffers'],
        cached=values['Cached'],
        hugepages_total=values.get('HugePages_Total', 0),
        hugepages_free=values.get('HugePages_Free', 0),
        hugepage_size_kb=values.get('Hugepagesize'),
    )


def parse_node_meminfo(text, node_id, source):
    """Parse a NUMA node's meminfo ("Node 0 MemTotal: N kB" lines).

    :returns: ``(mem_total_kb, mem_free_kb)``.
    :raises CapabilityError: if either line is missing or malformed.
    """
    values = _parse_lines(text, source, prefix='Node %d ' % node_id)
    try:
        return values['MemTotal'], values['MemFree']
    except KeyError as exc:
        raise errors.CapabilityError(
            source, 'no Node %d %s line' % (node_id, exc.args[0]))


def _parse_lines(text, source, prefix):
    """Map each "<prefix>Key: N [kB]" line to its integer value."""
    values = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        key, sep, rest = line.partition(':')
        if not sep:
            raise errors.CapabilityError(
                source, 'line %d has no colon: %r' % (lineno, line))
        key = key.strip()
        if prefix:
            if not key.startswith(prefix):
                # Per-node files name the node on every line; a line for a
                # different node means we were handed the wrong file.
                raise errors.CapabilityError(
                    source, 'line %d is not for %r: %r'
                    % (lineno, prefix.strip(), line))
            key = key[len(prefix):].strip()
        parts = rest.split()
        # Values are "N kB" or a bare count (HugePages_*); nothing else.
        if (len(parts) not in (1, 2) or not parts[0].isdigit()
                or (len(parts) == 2 and parts[1] != 'kB')):
            raise errors.CapabilityError(
                source, 'cannot parse %s value %r' % (key, rest.strip()))
        values[key] = int(parts[0])
    return values
