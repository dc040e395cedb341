"""GET /: the version document, and the routes under it."""

import pecan

from zun_hostcap.api.controllers import link
from zun_hostcap.api.controllers import v1
from zun_hostcap.api.controllers.v1 import hosts
from zun_hostcap.api.controllers.v1 import services
from zun_hostcap.api import microversion

NAME = 'OpenStack Zun API'
DESCRIPTION = ('zun-hostcap: the host capabilities of the container hosts '
               'of an OpenStack cloud, in the shape of the Zun API.')


def version_document():
    """The one version, v1, with its microversion range."""
    return {'id': 'v1',
            'status': 'CURRENT',
            'min_version': str(microversion.MIN_VERSION),
            'max_version': str(microversion.MAX_VERSION),
            'links': [{'href': link.url('v1') + '/', 'rel': 'self'}]}


class RootController(object):

    v1 = v1.Controller()
    # Zun answers the collections without /v1 too: the bookmark links.
    hosts = hosts.HostsController()
    services = services.ServicesController()

    @pecan.expose('json')
    def index(self):
        if pecan.request.method != 'GET':
            pecan.abort(405)
        version = version_document()
        return {'name': NAME,
                'description': DESCRIPTION,
                'versions': [version],
                'default_version': version}
