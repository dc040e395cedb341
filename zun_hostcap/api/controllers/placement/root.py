"""The version document and the top of the Placement routes."""

import pecan

from zun_hostcap.api.controllers.placement import allocations
from zun_hostcap.api.controllers.placement import resource_classes
from zun_hostcap.api.controllers.placement import resource_providers
from zun_hostcap.api.controllers.placement import traits
from zun_hostcap.api.controllers.placement import usages
from zun_hostcap.api.placement import microversion
from zun_hostcap.api.placement import util


def version_document():
    return {'versions': [{
        'id': 'v' + str(microversion.MIN_VERSION),
        'min_version': str(microversion.MIN_VERSION),
        'max_version': str(microversion.MAX_VERSION),
        'status': 'CURRENT',
        # Relative: "this same URL", whatever proxy is in front.
        'links': [{'rel': 'self', 'href': ''}],
    }]}


class RootController(object):

    resource_classes = resource_classes.ResourceClassesController()
    resource_providers = resource_providers.ResourceProvidersController()
    traits = traits.TraitsController()
    allocations = allocations.AllocationsController()
    usages = usages.UsagesController()

    @pecan.expose(generic=True)
    def index(self):
        util.method_not_allowed('GET')

    @index.when(method='GET')
    def get(self):
        """GET / (and GET /placement): the versions this API speaks."""
        return util.json_response(pecan.request, version_document())
