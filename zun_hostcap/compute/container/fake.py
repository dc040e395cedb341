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

"""A container driver without a runtime, for tests and the demo."""

import threading

from zun_hostcap.compute.container import base


class FakeContainerDriver(base.ContainerDriver):
    """Reports the usage and containers it was given; none by default.

    Until it is given containers it does not know them (``None``): the
    resource tracker then makes no audit of allocations.
    """

    def __init__(self, usage=None, containers=None):
        self._lock = threading.Lock()
        self._usage = usage or base.ContainerUsage(runtimes=('runc',))
        self._containers = (list(containers) if containers is not None
                            else None)

    def set_usage(self, usage):
        with self._lock:
            self._usage = usage

    def set_containers(self, containers):
        """Report ``containers``, and the usage they make."""
        with self._lock:
            self._containers = list(containers)
            self._usage = base.usage_of(self._containers,
                                        runtimes=self._usage.runtimes)

    def get_usage(self, containers=None):
        with self._lock:
            return self._usage

    def list_containers(self):
        with self._lock:
            if self._containers is None:
                return None
            return list(self._containers)
