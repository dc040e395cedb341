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

"""The Placement inventory of a compute node's own CPUs, memory and disk.

What the compute service reports of its host (with a class per kind of
PCI device besides, ``compute/placement_report.py``), what the online
data migration gives the provider of a node 2026.2 wrote, and what
``ComputeNode.inventory`` reads from the node's columns while it has no
provider: VCPU, MEMORY_MB and DISK_GB with the reserved amounts and
allocation ratios of ``[compute]``.
"""

import math

import zun_hostcap.conf

CONF = zun_hostcap.conf.CONF


def standard_inventory(cpus, mem_total_mb, disk_total_gb):
    """{class: inventory record} of a node with these figures.

    A class the host has none of (0 CPUs, no disk read) is left out, and
    DISK_GB with a ``[compute] shared_disk_provider``, whose disk it is.
    """
    conf = CONF.compute
    amounts = (
        ('VCPU', cpus, conf.reserved_host_cpus, conf.cpu_allocation_ratio),
        ('MEMORY_MB', mem_total_mb, conf.reserved_host_memory_mb,
         conf.ram_allocation_ratio),
    )
    if not conf.shared_disk_provider:
        amounts += (('DISK_GB', disk_total_gb,
                     math.ceil(conf.reserved_host_disk_mb / 1024),
                     conf.disk_allocation_ratio),)
    return {rc: record(total, reserved, ratio)
            for rc, total, reserved, ratio in amounts if total}


def record(total, reserved=0, allocation_ratio=1.0):
    """An inventory of ``total`` that may be allocated a unit at a time."""
    return {'total': total, 'reserved': reserved, 'min_unit': 1,
            'max_unit': total, 'step_size': 1,
            'allocation_ratio': allocation_ratio}
