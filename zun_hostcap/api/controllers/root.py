"""GET /: the version document, GET /openapi.json, and the routes under it."""

import pecan

from zun_hostcap.api.controllers import link
from zun_hostcap.api.controllers import v1
from zun_hostcap.api.controllers.v1 import hosts
from zun_hostcap.api.controllers.v1 import services
from zun_hostcap.api import microversion
from zun_hostcap.api import openapi

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


def _only_get():
    """405, naming the one method these routes answer, for any other."""
    if pecan.request.method != 'GET':
        pecan.abort(405, headers={'Allow': 'GET'})


class RootController(object):

    v1 = v1.Controller()
    # Zun answers the collections without /v1 too: the bookmark links.
    hosts = hosts.HostsController()
    services = services.ServicesController()

    @pecan.expose('json')
    def index(self):
        _only_get()
        version = version_document()
        return {'name': NAME,
                'description': DESCRIPTION,
                'versions': [version],
                'default_version': version}

    @pecan.expose(content_type='application/json', route='openapi.json')
    def openapi_document(self):
        """The OpenAPI 3.1 document of this API; no token needed."""
        _only_get()
        return openapi.document_text()
