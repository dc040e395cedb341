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

"""Options of the Docker-compatible container driver."""

from oslo_config import cfg

docker_group = cfg.OptGroup(
    'docker',
    title='Docker-compatible container runtime',
    help='With [compute] container_driver = docker: the runtime API the '
         'compute service reads this host\'s containers from. Docker, or '
         'any runtime that serves the Docker Engine API, such as podman '
         '(podman system service).')

docker_opts = [
    cfg.StrOpt('api_url',
               default='unix:///var/run/docker.sock',
               help='URL of the runtime\'s Docker Engine API: '
                    'unix:///path/to/socket or tcp://host:port.'),
    cfg.StrOpt('api_version',
               default='auto',
               help='Docker Engine API version to speak; "auto" takes the '
                    'runtime\'s own.'),
    cfg.IntOpt('timeout',
               default=30,
               min=1,
               help='Seconds to wait for one answer of the runtime before '
                    'the resource update counts it as unreachable.'),
]


def register_opts(conf):
    conf.register_group(docker_group)
    conf.register_opts(docker_opts, group=docker_group)


def list_opts():
    return {docker_group: docker_opts}
