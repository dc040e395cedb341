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

"""Options of the conductor service."""

from oslo_config import cfg

conductor_group = cfg.OptGroup(
    'conductor',
    title='Conductor options',
    help='The conductor writes to the database on behalf of compute '
         'services.')

conductor_opts = [
    cfg.StrOpt('topic',
               default='zun-hostcap-conductor',
               help='RPC topic the conductor listens on. Every compute '
                    'service of a deployment must use the same value.'),
    cfg.IntOpt('call_monitor_timeout',
               default=10,
               min=2,
               help='Seconds a service calling the conductor waits for it '
                    'to show that it is working on the call (oslo.messaging '
                    'call monitoring: the conductor sends a heartbeat every '
                    'half of it). A call that was lost, as when RabbitMQ '
                    'restarts between the publish and the conductor\'s '
                    'return, is given up after this long instead of after '
                    '[DEFAULT] rpc_response_timeout, and the next run of '
                    'the task tries again; a call the conductor is working '
                    'on still has rpc_response_timeout to finish.'),
    cfg.IntOpt('workers',
               default=1,
               min=1,
               help='Conductor processes, each consuming object calls and '
                    'heartbeats from the same RabbitMQ queue. One process '
                    'takes about 1,500 heartbeats a second on one core '
                    '(10,000 compute services beating every 10 s send '
                    '1,000); give it as many as the host has cores to '
                    'spare.'),
]


def register_opts(conf):
    conf.register_group(conductor_group)
    conf.register_opts(conductor_opts, group=conductor_group)


def list_opts():
    return {conductor_group: conductor_opts}
