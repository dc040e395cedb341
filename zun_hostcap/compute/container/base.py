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

"""The interface the resource tracker asks container usage through."""

import abc
import dataclasses

# What a container is doing, as the ComputeNode counts it.
RUNNING = 'running'
PAUSED = 'paused'
STOPPED = 'stopped'


@dataclasses.dataclass(frozen=True)
class ContainerUsage:
    """What the containers of a host hold, as one snapshot."""

    total: int = 0
    running: int = 0
    paused: int = 0
    stopped: int = 0
    cpu_used: float = 0.0       # CPUs reserved by containers
    mem_used: int = 0           # MiB reserved by containers
    runtimes: tuple = ()        # OCI runtimes the engine offers
    disk_quota_supported: bool = False
    enable_cpu_pinning: bool = False


@dataclasses.dataclass(frozen=True)
class Container:
    """One container of this host, and what it claims of the host.

    ``uuid`` is its consumer uuid in Placement, ``project_id`` and
    ``user_id`` those its allocations are written for (None: not
    known). A limit of 0 is no limit, and claims nothing of that class.
    """

    uuid: str
    name: str
    state: str                  # RUNNING, PAUSED or STOPPED
    cpus: float = 0.0           # its CPU limit, in CPUs
    memory_mb: int = 0          # its memory limit, MiB (rounded up)
    disk_gb: int = 0            # its disk quota, GiB (rounded up)
    project_id: str = None
    user_id: str = None

    @property
    def claim(self):
        """{resource class: amount} it holds of this host; VCPU whole."""
        amounts = {'VCPU': -int(-self.cpus // 1),
                   'MEMORY_MB': self.memory_mb,
                   'DISK_GB': self.disk_gb}
        return {rc: amount for rc, amount in amounts.items() if amount}


def usage_of(containers, **host):
    """The ContainerUsage of ``containers``; ``host`` its other fields.

    Every container that exists holds its claim, stopped or not, as an
    instance holds its flavor.
    """
    states = [container.state for container in containers]
    return ContainerUsage(
        total=len(containers), running=states.count(RUNNING),
        paused=states.count(PAUSED), stopped=states.count(STOPPED),
        cpu_used=round(sum(c.cpus for c in containers), 3),
        mem_used=sum(c.memory_mb for c in containers), **host)


class ContainerDriver(abc.ABC):
    """A container runtime, as far as resource tracking needs it."""

    @abc.abstractmethod
    def get_usage(self, containers=None):
        """Return a ContainerUsage of this host now.

        :param containers: what ``list_containers()`` just answered, for
            a driver that counts them, so that they are not listed twice.
        """

    @abc.abstractmethod
    def list_containers(self):
        """Return a list of the Containers of this host now.

        None when the driver cannot know them (the fake driver, unless
        given some): no allocation is then written or deleted for them.
        """
