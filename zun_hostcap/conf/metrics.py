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

"""Options of the Prometheus metrics endpoint, group [metrics]."""

from oslo_config import cfg

metrics_group = cfg.OptGroup(
    'metrics',
    title='Prometheus metrics',
    help='GET /metrics in the Prometheus text format: the Placement '
         'figures under the names openstack-exporter uses, the hosts and '
         'services, and the API\'s own requests. It answers without a '
         'token: expose it to the monitoring network only.')

metrics_opts = [
    cfg.BoolOpt('enabled',
                default=False,
                help='Serve /metrics from zun-hostcap-api and '
                     'zun-hostcap-all, and count requests, conductor RPC '
                     'calls and notifications. The endpoint needs no '
                     'token; keep it off the networks users reach '
                     '(see host and port).'),
    cfg.HostAddressOpt('host',
                       default='127.0.0.1',
                       help='Address of the separate metrics listener, '
                            'when port is set.'),
    cfg.PortOpt('port',
                help='zun-hostcap-api and zun-hostcap-all serve /metrics '
                     'on host:port, a listener of their own, and not on the '
                     'API\'s address. Unset: /metrics is a path of the '
                     'API, reachable by whoever reaches the API. The WSGI '
                     'callables (uwsgi, mod_wsgi) always serve it as a '
                     'path of the application: restrict it in the web '
                     'server.'),
    cfg.StrOpt('directory',
               default='$state_path/metrics',
               help='Where every process of this host with metrics on '
                    '(API workers, their notifier processes, the '
                    'conductor) keeps its counters, one file per process, '
                    'so that /metrics shows their sums (prometheus_client\'s '
                    'multiprocess mode). Local to one host; created if '
                    'missing. The files of processes that are gone are '
                    'removed when a process starts.'),
]


def register_opts(conf):
    conf.register_group(metrics_group)
    conf.register_opts(metrics_opts, group=metrics_group)


def list_opts():
    return {metrics_group: metrics_opts}
