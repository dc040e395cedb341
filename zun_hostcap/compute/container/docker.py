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

"""A container driver for any runtime that serves the Docker Engine API.

Docker itself, or podman's Docker-compatible service (``podman system
service``). A run lists the containers (one request) and inspects each
(one request each), as their limits are only in the inspected document.

Each container's consumer uuid, the one its allocation in Placement is
written under, is the uuid in its ``UUID_LABEL`` label, set by whoever
created it for this service; a container without it gets one derived
from the runtime's container id, the same at every run.
"""

import contextlib
import math
import re
import threading
import uuid

import docker
from docker import errors as docker_errors
from oslo_log import log as logging
import requests

from zun_hostcap.common import exception
from zun_hostcap.compute.container import base
import zun_hostcap.conf

CONF = zun_hostcap.conf.CONF
LOG = logging.getLogger(__name__)

UUID_LABEL = 'org.openstack.zun-hostcap.uuid'
# The project and user its allocations are written for, when set.
PROJECT_LABEL = 'org.openstack.zun-hostcap.project_id'
USER_LABEL = 'org.openstack.zun-hostcap.user_id'
# The namespace of the uuids derived from container ids (uuid5).
ID_NAMESPACE = uuid.UUID('8f2a3c1e-5b7d-4e09-a6c4-1d3b5f7e9a20')

_MIB = 1024 ** 2
_GIB = 1024 ** 3
# The Docker API's states; created, exited, dead, removing: stopped.
_STATES = {'running': base.RUNNING, 'restarting': base.RUNNING,
           'paused': base.PAUSED}
# CpuQuota is in microseconds of CpuPeriod, 100 ms unless set.
_DEFAULT_CPU_PERIOD = 100000
# A disk quota (HostConfig.StorageOpt size), as Docker writes it: 10G,
# 512m, 1.5GiB, 2048 (bytes). Binary multiples, as Docker takes them.
_SIZE = re.compile(r'^\s*(\d+(?:\.\d+)?)\s*([kmgtp]?)(?:i?b)?\s*$', re.I)
_UNITS = {'': 1, 'k': 1024, 'm': _MIB, 'g': _GIB, 't': 1024 ** 4,
          'p': 1024 ** 5}


def consumer_uuid(container_id, labels):
    """The consumer uuid of a container: its label's, else derived."""
    value = (labels or {}).get(UUID_LABEL)
    if value:
        try:
            return str(uuid.UUID(value))
        except ValueError:
            LOG.warning('Container %(id)s has %(label)s=%(value)r, which '
                        'is not a uuid; a uuid derived from its id is '
                        'used instead.',
                        {'id': container_id[:12], 'label': UUID_LABEL,
                         'value': value})
    return str(uuid.uuid5(ID_NAMESPACE, container_id))


def cpus_of(host_config):
    """Its CPU limit in CPUs: NanoCpus (--cpus), else CpuQuota/Period."""
    nano = host_config.get('NanoCpus') or 0
    if nano > 0:
        return nano / 1e9
    quota = host_config.get('CpuQuota') or 0
    if quota > 0:
        return quota / (host_config.get('CpuPeriod') or _DEFAULT_CPU_PERIOD)
    return 0.0


def memory_mb_of(host_config):
    """Its memory limit in MiB, rounded up; 0 without one."""
    return math.ceil((host_config.get('Memory') or 0) / _MIB)


def disk_gb_of(host_config, container_id=''):
    """Its disk quota in GiB, rounded up; 0 without one (or unreadable)."""
    size = (host_config.get('StorageOpt') or {}).get('size')
    if not size:
        return 0
    match = _SIZE.match(str(size))
    if not match:
        LOG.debug('Container %(id)s: disk quota %(size)r not understood; '
                  'no disk is claimed for it',
                  {'id': container_id[:12], 'size': size})
        return 0
    return math.ceil(float(match.group(1)) *
                     _UNITS[match.group(2).lower()] / _GIB)


def container_of(attrs):
    """The Container of an inspected document (``GET /containers/{id}``)."""
    host_config = attrs.get('HostConfig') or {}
    labels = (attrs.get('Config') or {}).get('Labels') or {}
    name = (attrs.get('Name') or '').lstrip('/')
    status = ((attrs.get('State') or {}).get('Status') or '').lower()
    return base.Container(
        uuid=consumer_uuid(attrs['Id'], labels),
        name=name or attrs['Id'][:12],
        state=_STATES.get(status, base.STOPPED),
        cpus=cpus_of(host_config),
        memory_mb=memory_mb_of(host_config),
        disk_gb=disk_gb_of(host_config, attrs['Id']),
        project_id=labels.get(PROJECT_LABEL) or None,
        user_id=labels.get(USER_LABEL) or None)


class DockerDriver(base.ContainerDriver):
    """The containers of a Docker-compatible runtime ([docker] options)."""

    def __init__(self, url=None, version=None, timeout=None):
        self.url = url or CONF.docker.api_url
        self.version = version or CONF.docker.api_version
        self.timeout = timeout or CONF.docker.timeout
        self._lock = threading.Lock()
        self._client = None

    def _api(self):
        # Made at first use, not at start: the runtime may come up after
        # the compute service, and version "auto" asks it.
        with self._lock:
            if self._client is None:
                self._client = docker.APIClient(
                    base_url=self.url, version=self.version,
                    timeout=self.timeout)
            return self._client

    @contextlib.contextmanager
    def _reaching(self):
        try:
            yield
        except (docker_errors.DockerException,
                requests.exceptions.RequestException) as err:
            with self._lock:
                client, self._client = self._client, None
            if client is not None:
                client.close()
            raise exception.ContainerRuntimeUnavailable(
                url=self.url, reason=exception.one_line(err))

    def list_containers(self):
        containers = []
        with self._reaching():
            api = self._api()
            for summary in api.containers(all=True):
                try:
                    attrs = api.inspect_container(summary['Id'])
                except docker_errors.NotFound:
                    continue   # removed since it was listed
                containers.append(container_of(attrs))
        return containers

    def get_usage(self, containers=None):
        if containers is None:
            containers = self.list_containers()
        with self._reaching():
            info = self._api().info()
        return base.usage_of(
            containers, runtimes=tuple(sorted(info.get('Runtimes') or ())))
