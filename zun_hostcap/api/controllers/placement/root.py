"""GET /: the version document."""

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

    def get(self, req):
        """GET / (and GET /placement): the versions this API speaks."""
        return util.json_response(req, version_document())
