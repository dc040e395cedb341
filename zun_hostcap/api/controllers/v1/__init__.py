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

"""GET /v1: what version 1 offers, and its collections."""

import pecan

from zun_hostcap.api.controllers import link
from zun_hostcap.api.controllers.v1 import hosts
from zun_hostcap.api.controllers.v1 import services

MEDIA_TYPE = 'application/vnd.openstack.zun.v1+json'


class Controller(object):

    hosts = hosts.HostsController()
    services = services.ServicesController()

    @pecan.expose('json')
    def index(self):
        if pecan.request.method != 'GET':
            pecan.abort(405, headers={'Allow': 'GET'})
        return {'id': 'v1',
                'media_types': [{'base': 'application/json',
                                 'type': MEDIA_TYPE}],
                'links': [{'href': link.url('v1') + '/', 'rel': 'self'}],
                'hosts': link.self_and_bookmark('hosts'),
                'services': link.self_and_bookmark('services')}
