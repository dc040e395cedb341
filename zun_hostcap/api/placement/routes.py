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

"""The route table of the Placement-compatible API.

Every URL and method of ``/placement`` and the controller that answers
it, in one table, as Placement's own handler has it: the code of any
request is one hop from here. A ``{name}`` is one path segment, handed to
the controller's constructor (in order); the method called is the HTTP
method in lower case (``get(self, req)``). One trailing slash is allowed.

A path of the table with another method is a 405 naming the methods it
has (``Allow``); any other path is a 404. A GET from a client that does
not take JSON is a 406, after routing, so an unknown path stays a 404;
the version document and a trait's 204 are answered to any client, as
Placement answers them.
"""

import re

import webob

from zun_hostcap.api.controllers.placement import aggregates
from zun_hostcap.api.controllers.placement import allocation_candidates
from zun_hostcap.api.controllers.placement import allocations
from zun_hostcap.api.controllers.placement import inventories
from zun_hostcap.api.controllers.placement import reshaper
from zun_hostcap.api.controllers.placement import resource_classes
from zun_hostcap.api.controllers.placement import resource_providers
from zun_hostcap.api.controllers.placement import root
from zun_hostcap.api.controllers.placement import traits
from zun_hostcap.api.controllers.placement import usages
from zun_hostcap.api import middleware
from zun_hostcap.api.placement import errors
from zun_hostcap.api.placement import util
from zun_hostcap.common import context

PROVIDER = '/resource_providers/{uuid}'

ROUTES = (
    ('/', root.RootController,
     ('GET',)),
    ('/resource_classes', resource_classes.ResourceClassesController,
     ('GET', 'POST')),
    ('/resource_classes/{name}', resource_classes.ResourceClassController,
     ('GET', 'PUT', 'DELETE')),
    ('/resource_providers', resource_providers.ResourceProvidersController,
     ('GET', 'POST')),
    (PROVIDER, resource_providers.ProviderController,
     ('GET', 'PUT', 'DELETE')),
    (PROVIDER + '/inventories', inventories.ProviderInventoriesController,
     ('GET', 'POST', 'PUT', 'DELETE')),
    (PROVIDER + '/inventories/{resource_class}',
     inventories.ProviderInventoryController,
     ('GET', 'PUT', 'DELETE')),
    (PROVIDER + '/aggregates', aggregates.ProviderAggregatesController,
     ('GET', 'PUT')),
    (PROVIDER + '/traits', traits.ProviderTraitsController,
     ('GET', 'PUT', 'DELETE')),
    (PROVIDER + '/allocations', allocations.ProviderAllocationsController,
     ('GET',)),
    (PROVIDER + '/usages', usages.ProviderUsagesController,
     ('GET',)),
    ('/traits', traits.TraitsController,
     ('GET',)),
    ('/traits/{name}', traits.TraitController,
     ('GET', 'PUT', 'DELETE')),
    ('/allocations', allocations.AllocationsController,
     ('POST',)),
    ('/allocations/{consumer_uuid}',
     allocations.ConsumerAllocationsController,
     ('GET', 'PUT', 'DELETE')),
    ('/usages', usages.UsagesController,
     ('GET',)),
    ('/allocation_candidates',
     allocation_candidates.AllocationCandidatesController,
     ('GET',)),
    ('/reshaper', reshaper.ReshaperController,
     ('POST',)),
)

# Routes that answer whatever the client accepts, as in Placement: the
# version document, and a trait's 204 (no document).
ANY_ACCEPT = frozenset(['/', '/traits/{name}'])

# Set by the accept guard (``middleware.AcceptGuard``) for a client that
# does not take JSON.
NOT_ACCEPTABLE = middleware.NOT_ACCEPTABLE
# Where the router names the template of the route it matched (for the
# request metrics).
ROUTE_TEMPLATE = 'placement.route_template'


def template_pattern(template):
    """The regular expression of a template: ``{name}`` is one segment."""
    parts = re.split(r'\{\w+\}', template.rstrip('/'))
    return re.compile('^' + '([^/]+)'.join(re.escape(part)
                                           for part in parts) + r'/?\Z')


class Route(object):

    def __init__(self, template, controller, methods):
        self.template = template
        self.pattern = template_pattern(template)
        # Parameters that name a uuid are taken in its stored form.
        self.uuid_params = tuple(name.endswith('uuid') for name in
                                 re.findall(r'\{(\w+)\}', template))
        self.controller = controller
        self.methods = frozenset(methods)
        self.allow = ', '.join(sorted(methods))
        for method in methods:
            # A table naming a method its controller lacks fails at start.
            getattr(controller, method.lower())


class Router(object):
    """The WSGI application answering every route of ``ROUTES``."""

    def __init__(self, routes=ROUTES):
        self.routes = [Route(*route) for route in routes]

    def __call__(self, environ, start_response):
        req = webob.Request(environ)
        try:
            resp = self.dispatch(req)
        except Exception as exc:
            resp = errors.for_exception(req, exc)
        return resp(environ, start_response)

    def match(self, path):
        """(route, parameters) of ``path``; (None, None) if none has it."""
        for route in self.routes:
            found = route.pattern.match(path)
            if found is not None:
                return route, found.groups()
        return None, None

    def dispatch(self, req):
        route, params = self.match(req.path_info)
        if route is None:
            raise errors.error(404, '')
        req.environ[ROUTE_TEMPLATE] = route.template
        method = req.method
        accept = req.environ.get(NOT_ACCEPTABLE)
        # Placement checks Accept on the routes that answer documents to
        # GET only.
        if accept is not None and method == 'GET' and \
                route.template not in ANY_ACCEPT:
            raise errors.error(406, 'Only application/json is provided; '
                                    'the Accept header asks for %s.' % accept)
        if method not in route.methods:
            raise errors.error(405, 'The method specified is not allowed '
                                    'for this resource.',
                               headers=[('Allow', route.allow)])
        # Also the thread's context from now on, for the log lines.
        req.context = context.RequestContext.from_environ(req.environ)
        params = [util.canonical_uuid(value) if is_uuid else value
                  for value, is_uuid in zip(params, route.uuid_params)]
        handler = getattr(route.controller(*params), method.lower())
        return handler(req)
