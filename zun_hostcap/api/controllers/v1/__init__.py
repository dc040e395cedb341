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
