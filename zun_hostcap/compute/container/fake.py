"""A container driver without a runtime, for tests and the demo."""

import threading

from zun_hostcap.compute.container import base


class FakeContainerDriver(base.ContainerDriver):
    """Reports the usage it was given; none by default."""

    def __init__(self, usage=None):
        self._lock = threading.Lock()
        self._usage = usage or base.ContainerUsage(runtimes=('runc',))

    def set_usage(self, usage):
        with self._lock:
            self._usage = usage

    def get_usage(self):
        with self._lock:
            return self._usage
