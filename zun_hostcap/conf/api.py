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

"""Options of the REST API service, group [api]."""

from oslo_config import cfg
from oslo_middleware import cors
from oslo_middleware.healthcheck import opts as healthcheck_opts
from oslo_middleware import http_proxy_to_wsgi
from oslo_middleware import sizelimit

# Headers a browser may send to and read from our API.
CORS_ALLOW_HEADERS = ['X-Auth-Token', 'X-OpenStack-Request-ID',
                      'OpenStack-API-Version', 'Content-Type']
CORS_EXPOSE_HEADERS = ['X-OpenStack-Request-ID', 'OpenStack-API-Version',
                       'OpenStack-API-Minimum-Version',
                       'OpenStack-API-Maximum-Version']
CORS_ALLOW_METHODS = ['GET', 'OPTIONS']

api_group = cfg.OptGroup(
    'api', title='REST API',
    help='Options of zun-hostcap-api and of the API that zun-hostcap-all '
         'serves.')

api_opts = [
    cfg.HostAddressOpt('host',
                       default='127.0.0.1',
                       help='Address zun-hostcap-api listens on. Use '
                            '0.0.0.0 to listen on every address, behind a '
                            'firewall or proxy.'),
    cfg.PortOpt('port',
                default=9518,
                help='TCP port zun-hostcap-api listens on.'),
    cfg.IntOpt('workers',
               default=1,
               min=1,
               help='Number of API worker processes zun-hostcap-api '
                    'starts. Each worker serves requests on its own '
                    'threads (see threads). zun-hostcap-all always serves '
                    'from its one process.'),
    cfg.IntOpt('threads',
               default=8,
               min=1,
               help='Threads of each API worker; one request is handled '
                    'by one thread at a time.'),
    cfg.StrOpt('auth_strategy',
               default='keystone',
               choices=[('keystone', 'Validate tokens with keystone, '
                                     'configured in [keystone_authtoken].'),
                        ('noauth2', 'No keystone, for development and '
                                    'tests: the token "admin" is an admin, '
                                    'any other token a plain user, no '
                                    'token gets 401.')],
               help='How the API authenticates requests.'),
    cfg.IntOpt('max_limit',
               default=1000,
               min=1,
               help='Most items one list request returns; a larger '
                    '"limit" is lowered to it.'),
]


def set_middleware_defaults():
    """Our defaults for oslo.middleware's CORS and healthcheck options."""
    cors.set_defaults(allow_headers=CORS_ALLOW_HEADERS,
                      expose_headers=CORS_EXPOSE_HEADERS,
                      allow_methods=CORS_ALLOW_METHODS)
    # /healthcheck fails while the database does (zun_hostcap.api.
    # healthcheck), so a load balancer stops sending requests it cannot
    # serve.
    cfg.set_defaults(healthcheck_opts.HEALTHCHECK_OPTS,
                     backends=['database'])


def register_opts(conf):
    conf.register_group(api_group)
    conf.register_opts(api_opts, group=api_group)
    # The middleware registers these when the app is built; registering
    # the same option objects now lets config files and tests set them
    # before that.
    set_middleware_defaults()
    conf.register_opts(cors.CORS_OPTS, group='cors')
    conf.register_opts(sizelimit.OPTS, group='oslo_middleware')
    conf.register_opts(http_proxy_to_wsgi.OPTS, group='oslo_middleware')
    conf.register_opts(healthcheck_opts.HEALTHCHECK_OPTS, group='healthcheck')


def list_opts():
    return {api_group: api_opts}
