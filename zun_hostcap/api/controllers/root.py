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

"""GET /: the version document, GET /openapi.json, and the routes under it."""

from oslo_serialization import jsonutils
import pecan
import webob
import webob.exc

from zun_hostcap.api.controllers import link
from zun_hostcap.api.controllers import v1
from zun_hostcap.api.controllers.v1 import hosts
from zun_hostcap.api.controllers.v1 import services
from zun_hostcap.api import hooks
from zun_hostcap.api import microversion
from zun_hostcap.api import openapi

NAME = 'OpenStack Zun API'
DESCRIPTION = ('zun-hostcap: the host capabilities of the container hosts '
               'of an OpenStack cloud, in the shape of the Zun API.')


def version_document(v1_url=None):
    """The one version, v1, with its microversion range.

    :param v1_url: the URL of /v1/; by default, that of pecan's request.
    """
    return {'id': 'v1',
            'status': 'CURRENT',
            'min_version': str(microversion.MIN_VERSION),
            'max_version': str(microversion.MAX_VERSION),
            'links': [{'href': v1_url or link.url('v1') + '/',
                       'rel': 'self'}]}


def root_document(v1_url=None):
    """GET /: the API's name and its one version."""
    version = version_document(v1_url)
    return {'name': NAME,
            'description': DESCRIPTION,
            'versions': [version],
            'default_version': version}


class VersionDocumentRoute(object):
    """Answers ``GET /`` before pecan, as pecan would.

    Every client asks for it first (python-zunclient, to learn the
    version range), and a request through pecan's routing and hooks costs
    several times the document. Anything unusual about the request (a
    query, another method, an Accept header that does not take JSON, a
    version header to refuse) goes to pecan, which answers it or refuses
    it with its error document.
    """

    _ACCEPTED = (None, 'application/json', '*/*')

    def __init__(self, application):
        self.application = application
        # {application URL: body}; one or two entries (behind a proxy).
        self._bodies = {}

    def __call__(self, environ, start_response):
        if (environ.get('PATH_INFO') != '/' or
                environ.get('REQUEST_METHOD') != 'GET' or
                environ.get('QUERY_STRING') or
                environ.get('HTTP_ACCEPT') not in self._ACCEPTED):
            return self.application(environ, start_response)
        request = webob.Request(environ)
        try:
            request.version = microversion.extract_version(request.headers)
        except webob.exc.HTTPException:
            return self.application(environ, start_response)
        url = request.application_url
        body = self._bodies.get(url)
        if body is None:
            body = jsonutils.dump_as_bytes(root_document(
                url.rstrip('/') + '/v1/'))
            if len(self._bodies) < 16:
                self._bodies[url] = body
        response = webob.Response(body=body,
                                  content_type='application/json',
                                  charset=None)
        hooks.add_version_headers(request, response)
        return response(environ, start_response)


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
        # Usually answered by VersionDocumentRoute before pecan.
        _only_get()
        return root_document()

    @pecan.expose(content_type='application/json', route='openapi.json')
    def openapi_document(self):
        """The OpenAPI 3.1 document of this API; no token needed."""
        _only_get()
        return openapi.document_text()
