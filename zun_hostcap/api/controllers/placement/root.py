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
