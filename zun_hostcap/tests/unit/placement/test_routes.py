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

"""The route table of /placement: matching, 404 and 405."""

import webob

from zun_hostcap.api.placement import errors
from zun_hostcap.api.placement import routes
from zun_hostcap.tests import base

UUID = '9f4d3a53-3c4a-4e0a-8c4b-1d3b9f8f2f10'


class EchoController(object):
    """Answers with the parameters it was made from."""

    def __init__(self, *params):
        self.params = params

    def get(self, req):
        return webob.Response(json_body={'params': list(self.params),
                                         'user': req.context.user_id})

    def put(self, req):
        return webob.Response(status=204)


class TestTable(base.TestCase):

    def test_every_route_names_methods_its_controller_has(self):
        for template, controller, methods in routes.ROUTES:
            self.assertTrue(methods, template)
            for method in methods:
                self.assertTrue(callable(getattr(controller, method.lower())),
                                (template, method))

    def test_paths_find_their_route_and_parameters(self):
        router = routes.Router()
        cases = {
            '': ('/', ()),
            '/': ('/', ()),
            '/resource_providers': ('/resource_providers', ()),
            '/resource_providers/': ('/resource_providers', ()),
            '/resource_providers/%s' % UUID: (routes.PROVIDER, (UUID,)),
            '/resource_providers/%s/inventories/VCPU/' % UUID: (
                routes.PROVIDER + '/inventories/{resource_class}',
                (UUID, 'VCPU')),
            '/traits/CUSTOM_A': ('/traits/{name}', ('CUSTOM_A',)),
            # A trailing newline is a segment, not the end of the path.
            '/traits/\n': ('/traits/{name}', ('\n',)),
            '/allocations/%s/' % UUID: ('/allocations/{consumer_uuid}',
                                        (UUID,)),
        }
        for path, (template, params) in cases.items():
            route, found = router.match(path)
            self.assertEqual(template, route.template, path)
            self.assertEqual(params, found, path)

    def test_other_paths_match_nothing(self):
        router = routes.Router()
        for path in ('/index', '/resource_providers/%s/index' % UUID,
                     '/resource_providers/%s/usages/x' % UUID,
                     '/traits/A/B', '//', '/usages//', '/nothing',
                     '/traits\n'):
            self.assertEqual((None, None), router.match(path), path)

    def test_a_table_naming_a_missing_method_fails_at_start(self):
        self.assertRaises(AttributeError, routes.Router,
                          [('/echo', EchoController, ('GET', 'POST'))])


class TestRouter(base.TestCase):

    def setUp(self):
        super().setUp()
        self.app = routes.Router([('/echo/{a}/{b}', EchoController,
                                   ('PUT', 'GET'))])

    def request(self, method, path, **environ):
        req = webob.Request.blank(path, method=method)
        req.environ[errors.VERSION_ENVIRON] = (1, 39)
        req.environ.update(environ)
        req.headers['X-User-Id'] = 'alice'
        return req.get_response(self.app)

    def test_the_controller_gets_the_parameters_and_a_context(self):
        resp = self.request('GET', '/echo/x/y')
        self.assertEqual(200, resp.status_int)
        self.assertEqual({'params': ['x', 'y'], 'user': 'alice'},
                         resp.json)

    def test_another_method_is_405_naming_the_route_methods(self):
        resp = self.request('DELETE', '/echo/x/y')
        self.assertEqual(405, resp.status_int)
        self.assertEqual('GET, PUT', resp.headers['Allow'])
        # Placement's detail: webob's explanation naming the method, a
        # blank line, then the message.
        self.assertEqual('The method DELETE is not allowed for this '
                         'resource. \n\n The method specified is not '
                         'allowed for this resource.',
                         resp.json['errors'][0]['detail'])

    def test_an_unknown_path_is_404(self):
        resp = self.request('GET', '/echo/x')
        self.assertEqual(404, resp.status_int)
        self.assertEqual('placement.undefined_code',
                         resp.json['errors'][0]['code'])

    def test_a_get_refusing_json_is_406_after_routing(self):
        taste = {routes.NOT_ACCEPTABLE: 'text/html'}
        self.assertEqual(406, self.request('GET', '/echo/x/y',
                                           **taste).status_int)
        self.assertEqual(204, self.request('PUT', '/echo/x/y',
                                           **taste).status_int)
        self.assertEqual(404, self.request('GET', '/nothing',
                                           **taste).status_int)
