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

"""The kernel's CPU list format, shared by the sysfs and lscpu paths."""

from zun_hostcap.os_capability import errors


def parse_cpu_list(text, source='cpu list', field=None):
    """Parse a kernel CPU list such as ``'0-3,8,10-11'``.

    This is the format of /sys/devices/system/cpu/online, nodeN/cpulist
    and lscpu's "... CPU(s) list" lines (see the kernel's
    Documentation/admin-guide/cputopology.rst). An empty or blank string
    is an empty list.

    :param text: the list as read.
    :param source: named in the error, e.g. ``'lscpu'`` or a file path.
    :param field: optional name of the value, e.g. ``'On-line CPU(s) list'``.
    :returns: sorted tuple of unique CPU ids.
    :raises CapabilityError: if ``text`` is not a valid CPU list.
    """
    text = (text or '').strip()
    if not text:
        return ()
    cpus = set()
    try:
        for chunk in text.split(','):
            first, sep, last = chunk.strip().partition('-')
            start = _cpu_id(first)
            end = _cpu_id(last) if sep else start
            if end < start:
                raise ValueError('descending range')
            cpus.update(range(start, end + 1))
    except ValueError:
        what = repr(field) if field else 'CPU list'
        raise errors.CapabilityError(
            source, 'cannot parse %s value %r' % (what, text))
    return tuple(sorted(cpus))


def _cpu_id(text):
    # int() accepts '+1', ' 1' and '1_0'; a CPU id is plain digits only.
    if not text.isdigit() or not text.isascii():
        raise ValueError(text)
    return int(text)


def format_cpu_list(cpus):
    """Format CPU ids as a kernel CPU list (``(0, 1, 2, 5)`` -> ``'0-2,5'``).

    The inverse of :func:`parse_cpu_list`; handy for logs and fixtures.
    """
    ranges = []
    for cpu in sorted(set(cpus)):
        if ranges and ranges[-1][1] == cpu - 1:
            ranges[-1][1] = cpu
        else:
            ranges.append([cpu, cpu])
    return ','.join(str(a) if a == b else '%d-%d' % (a, b)
                    for a, b in ranges)
