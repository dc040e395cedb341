"""Container drivers: what runs on this host, as the tracker sees it."""

from zun_hostcap.compute.container import base
from zun_hostcap.compute.container import fake

ContainerUsage = base.ContainerUsage

_DRIVERS = {'fake': fake.FakeContainerDriver}


def load_driver(name):
    """The container driver named by ``[compute] container_driver``."""
    try:
        return _DRIVERS[name]()
    except KeyError:
        raise ValueError('Unknown container driver %r; known: %s' %
                         (name, ', '.join(sorted(_DRIVERS))))
