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

"""Host capability discovery as a self-contained library.

Nothing here imports the rest of zun_hostcap or reads oslo.config: callers
pass options to the driver constructors and get back frozen dataclasses.
``get_capabilities()`` reads each part of the host on its own: a part whose
source cannot be read is None and named in ``HostCapabilities.errors``.
"""

from zun_hostcap.os_capability.base import HostDriver
from zun_hostcap.os_capability.cpulist import parse_cpu_list
from zun_hostcap.os_capability.errors import CapabilityError
from zun_hostcap.os_capability.fake import FakeDriver
from zun_hostcap.os_capability.fake import sample_capabilities
from zun_hostcap.os_capability.linux import LinuxDriver
from zun_hostcap.os_capability.model import CpuInfo
from zun_hostcap.os_capability.model import DiskInfo
from zun_hostcap.os_capability.model import HostCapabilities
from zun_hostcap.os_capability.model import MemoryInfo
from zun_hostcap.os_capability.model import NumaNode
from zun_hostcap.os_capability.model import OsInfo
from zun_hostcap.os_capability.model import PARTS
from zun_hostcap.os_capability.model import PciDevice
from zun_hostcap.os_capability.model import SourceError

DRIVERS = {
    'fake': FakeDriver,
    'linux': LinuxDriver,
}

__all__ = [
    'CapabilityError', 'CpuInfo', 'DiskInfo', 'FakeDriver',
    'HostCapabilities', 'HostDriver', 'LinuxDriver', 'MemoryInfo',
    'NumaNode', 'OsInfo', 'PARTS', 'PciDevice', 'SourceError',
    'load_driver', 'parse_cpu_list', 'sample_capabilities',
]


def load_driver(name, **kwargs):
    """Return a new driver: ``'linux'`` or ``'fake'``, built with kwargs.

    :raises ValueError: for an unknown name.
    """
    try:
        driver_class = DRIVERS[name]
    except KeyError:
        raise ValueError('unknown host driver %r; choose one of %s'
                         % (name, ', '.join(sorted(DRIVERS))))
    return driver_class(**kwargs)
