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

"""A real Docker-compatible runtime for the tests: podman's API service.

``tools/container-runtime-setup.sh`` (run by ``tox -e functional``)
installs podman and runc and writes a configuration and the root
filesystem of a small image (busybox) into ``PODMAN_DIR``. Each
``PodmanService`` imports the image into a storage of its own (so that
a test sees its own containers only) and serves it on a socket of its
own, started and stopped by its own pid; the containers it made are
removed when the test ends.
"""

import os
import shutil
import subprocess

import docker
import fixtures
import requests

from zun_hostcap.tests.functional import base

PODMAN_DIR = os.environ.get('ZUN_HOSTCAP_TEST_PODMAN_DIR',
                            '/var/tmp/zun-hostcap-podman')
IMAGE = 'localhost/zun-hostcap-test:latest'


class PodmanService(fixtures.Fixture):
    """``podman system service`` on a unix socket, and a client of it."""

    def __init__(self, test):
        super().__init__()
        self.test = test

    def _setUp(self):
        podman = shutil.which('podman')
        conf = os.path.join(PODMAN_DIR, 'containers.conf')
        image = os.path.join(PODMAN_DIR, 'image.tar')
        base.require(self.test, podman and os.path.exists(conf) and
                     os.path.exists(image),
                     'podman is not set up in %s (run tools/'
                     'container-runtime-setup.sh)' % PODMAN_DIR)
        tmp = self.useFixture(fixtures.TempDir()).path
        # vfs: layers as plain copies (the image is 2 MB), no mounts to
        # leave behind.
        podman = [podman, '--root', os.path.join(tmp, 'storage'),
                  '--runroot', os.path.join(tmp, 'run'),
                  '--storage-driver', 'vfs']
        env = dict(os.environ, CONTAINERS_CONF=conf)
        subprocess.run(podman + ['import', '--quiet', image, IMAGE],
                       env=env, check=True, capture_output=True)
        self.socket = os.path.join(tmp, 'podman.sock')
        self.url = 'unix://' + self.socket
        self.service = self.useFixture(base.Process(
            'podman-service',
            podman + ['system', 'service', '--time=0', self.url],
            os.path.join(tmp, 'podman.log'), env={'CONTAINERS_CONF': conf}))
        base.wait_for(self._answers, 30, message='podman system service',
                      processes=(self.service,))
        self.api = docker.APIClient(base_url=self.url, version='auto',
                                    timeout=60)
        self.addCleanup(self._remove_containers)

    def _answers(self):
        self.service.assert_running(self.test)
        if not os.path.exists(self.socket):
            return False
        try:
            # Its version is asked for when it is made.
            with docker.APIClient(base_url=self.url, version='auto',
                                  timeout=5) as client:
                return client.ping()
        except (docker.errors.DockerException,
                requests.exceptions.RequestException):
            return False

    def run(self, labels=None, **host_config):
        """Start a container of ``IMAGE`` that sleeps; its id.

        ``host_config``: docker-py's create_host_config() arguments, such
        as nano_cpus and mem_limit.
        """
        created = self.api.create_container(
            IMAGE, command=['sleep', '600'], labels=labels,
            host_config=self.api.create_host_config(**host_config))
        self.api.start(created['Id'])
        return created['Id']

    def remove(self, container_id):
        self.api.remove_container(container_id, force=True)

    def _remove_containers(self):
        for summary in self.api.containers(all=True):
            self.api.remove_container(summary['Id'], force=True)
        self.api.close()
