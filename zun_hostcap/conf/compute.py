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

"""Options of the compute service: discovery and resource tracking."""

from oslo_config import cfg

compute_group = cfg.OptGroup(
    'compute',
    title='Compute service options',
    help='How zun-hostcap-compute discovers this host and how often it '
         'reports it.')

compute_opts = [
    cfg.IntOpt('resource_update_interval',
               default=60,
               min=1,
               mutable=True,
               help='Seconds between two runs of the resource tracker. '
                    'Each run probes the host and saves what changed; an '
                    'unchanged host costs no RPC call and no database '
                    'write, so a short interval is cheap. SIGHUP applies a '
                    'new value from the next run on.'),
    cfg.StrOpt('topic',
               default='zun-hostcap-compute',
               help='RPC topic the compute services listen on, each under '
                    'its host name: what asks a host for room for a '
                    'container (claims) sends there.'),
    cfg.StrOpt('os_capability_driver',
               default='linux',
               choices=[('linux', 'Probe the local Linux host.'),
                        ('fake', 'Serve canned data; for tests only.')],
               help='Driver that discovers the host capabilities.'),
    cfg.StrOpt('fake_capabilities_file',
               help='With os_capability_driver = fake: a JSON file of host '
                    'capabilities that the fake driver reads on every '
                    'probe, so tests can change what the host has. Unset, '
                    'the fake driver serves built-in sample data.'),
    cfg.StrOpt('cpu_source',
               default='sysfs',
               choices=[('sysfs', 'Read /sys and /proc directly (fast).'),
                        ('lscpu', 'Parse the output of lscpu.')],
               help='Where the linux driver reads CPU topology from. Both '
                    'give the same values; sysfs avoids a subprocess per '
                    'run.'),
    cfg.StrOpt('disk_path',
               default='$state_path',
               help='Filesystem whose size and usage are reported as the '
                    'host disk: the one containers are stored on (for '
                    'Docker, /var/lib/docker). If it cannot be read, e.g. '
                    'the path does not exist, one warning names this '
                    'option, the disk is not reported (a new host records '
                    '0 GiB, an existing one keeps its stored figures) and '
                    'CPU, memory and the rest still are.'),
    cfg.StrOpt('container_driver',
               default='fake',
               choices=[('fake', 'No container runtime; reports the '
                                 'containers it was given (none by '
                                 'default).'),
                        ('docker', 'A Docker-compatible runtime API (Docker, '
                                   'podman system service), see [docker].')],
               help='Driver that reports the containers on this host.'),
    cfg.IntOpt('reserved_host_cpus',
               default=0,
               min=0,
               help='CPUs of this host kept for the host itself: the '
                    'reserved part of its VCPU inventory in Placement.'),
    cfg.IntOpt('reserved_host_memory_mb',
               default=512,
               min=0,
               help='Memory (MiB) kept for the host itself: the reserved '
                    'part of its MEMORY_MB inventory in Placement.'),
    cfg.IntOpt('reserved_host_disk_mb',
               default=0,
               min=0,
               help='Disk (MiB) kept for the host itself: the reserved part '
                    'of its DISK_GB inventory in Placement, rounded up to '
                    'GiB.'),
    cfg.FloatOpt('cpu_allocation_ratio',
                 default=4.0,
                 min=0.0,
                 help='How many CPUs containers may be promised for each '
                      'CPU of this host: the allocation_ratio of its VCPU '
                      'inventory in Placement.'),
    cfg.FloatOpt('ram_allocation_ratio',
                 default=1.0,
                 min=0.0,
                 help='The allocation_ratio of this host\'s MEMORY_MB '
                      'inventory in Placement.'),
    cfg.FloatOpt('disk_allocation_ratio',
                 default=1.0,
                 min=0.0,
                 help='The allocation_ratio of this host\'s DISK_GB '
                      'inventory in Placement.'),
    cfg.StrOpt('shared_disk_provider',
               regex=r'^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?'
                     r'[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$',
               help='The uuid of a Placement resource provider of shared '
                    'storage (a pool with DISK_GB inventory and the '
                    'MISC_SHARES_VIA_AGGREGATE trait, in an aggregate with '
                    'this host\'s provider) that this host\'s containers '
                    'store their disks on. Set, the host reports no '
                    'DISK_GB of its own and its containers\' disk claims '
                    'are allocations on that provider.'),
    cfg.BoolOpt('numa_providers',
                default=False,
                help='Report each NUMA node of this host to Placement as a '
                     'child resource provider of the host\'s provider '
                     '(named <hostname>_NUMA<id>, with the trait '
                     'HW_NUMA_ROOT), holding that node\'s VCPU and '
                     'MEMORY_MB: the reserved amounts and allocation '
                     'ratios above are split between the nodes in '
                     'proportion to their CPUs and memory. The host\'s '
                     'provider keeps DISK_GB and the PCI device classes. '
                     'A container\'s VCPU and MEMORY_MB are then '
                     'allocated on one NUMA node, so a scheduler can ask '
                     'for NUMA-local resources; a container larger than '
                     'every node can no longer be claimed here. Changing '
                     'it on a host with containers moves their allocations '
                     'with the inventory in one Placement request (POST '
                     '/reshaper, microversion 1.30 or later) at the next '
                     'start.'),
    cfg.IntOpt('resource_provider_refresh_interval',
               default=300,
               min=0,
               mutable=True,
               help='Seconds the compute service trusts what it last read '
                    'or wrote of its resource provider in Placement (its '
                    'generation and inventory). Past them it reads the '
                    'provider again, so that a change made by someone '
                    'else, such as an operator\'s edit of the inventory, '
                    'is put right at the next run. 0 reads it at every '
                    'run.'),
    cfg.FloatOpt('usage_report_granularity',
                 default=1.0,
                 min=0.0,
                 max=100.0,
                 help='Percent of the total by which a figure that drifts '
                      'all the time (free, available, buffered and cached '
                      'memory; used disk; the memory totals of the host '
                      'and of each NUMA node, which a virtual machine\'s '
                      'memory balloon moves) must move before it is saved. '
                      'With the default of 1, an idle host writes '
                      'nothing; 0 saves every change.'),
]


def register_opts(conf):
    conf.register_group(compute_group)
    conf.register_opts(compute_opts, group=compute_group)


def list_opts():
    return {compute_group: compute_opts}
