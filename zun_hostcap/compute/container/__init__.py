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

"""Container drivers: what runs on this host, as the tracker sees it."""

import importlib

from zun_hostcap.compute.container import base
from zun_hostcap.compute.container import fake  # noqa: F401  (cheap)

Container = base.Container
ContainerUsage = base.ContainerUsage

# Name -> module:class; imported when chosen, so that a process that
# does not use a runtime does not load its client library.
_DRIVERS = {
    'fake': 'zun_hostcap.compute.container.fake:FakeContainerDriver',
    'docker': 'zun_hostcap.compute.container.docker:DockerDriver',
}


def load_driver(name):
    """The container driver named by ``[compute] container_driver``."""
    try:
        module, _, cls = _DRIVERS[name].partition(':')
    except KeyError:
        raise ValueError('Unknown container driver %r; known: %s' %
                         (name, ', '.join(sorted(_DRIVERS))))
    return getattr(importlib.import_module(module), cls)()
