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
