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

"""Who may call what: the role matrix of the API, as data.

One table for three users: the functional test that checks it with real
Keystone tokens against this service and against OpenStack Placement
(``tests/functional/test_keystone_roles.py``), the unit test that checks
the committed documentation table, and ``tools/role_matrix_doc.py``,
which writes that table (``doc/source/admin/role-matrix.inc``).

A persona is a kind of token Keystone issues; a configuration is the
pair ``[oslo_policy] enforce_new_defaults`` and ``enforce_scope``, both
True (``new``, oslo.policy's default) or both False (``legacy``).
oslo.policy 6, which this service and openstack-placement 16.0 both run,
no longer has ``enforce_scope``: the scope of a token is always checked,
and the option is ignored where it is set. An access class says which
personas a rule lets in, in each configuration; every route and method
names its rule and access class.

For ``/placement`` the reference is openstack-placement's own answer to
the same request with the same token; for ``/v1`` it is Zun's policy
defaults. A cell where this service answers otherwise is a failure of
the test unless ``DIFFERENCES`` lists it with its reason.
"""

import collections

NEW = 'new'
LEGACY = 'legacy'
# Configuration: [oslo_policy] enforce_new_defaults and enforce_scope.
CONFIGURATIONS = collections.OrderedDict([
    (NEW, True),
    (LEGACY, False),
])

Persona = collections.namedtuple('Persona', 'name title description')

PERSONAS = (
    Persona('system_admin', 'system admin',
            'the admin role on the system: a system-scoped token'),
    Persona('project_admin', 'project admin',
            'the admin role on the project'),
    Persona('member', 'member',
            'the member role on the project (and reader, which it implies)'),
    Persona('reader', 'reader', 'the reader role on the project'),
    Persona('service', 'service',
            'the service role on the service project, as a compute or '
            'another service has it'),
    Persona('norole', 'no role',
            'a user with no role on the project: an unscoped token'),
    Persona('other_project', 'other project',
            'the member role on another project'),
)
PERSONA_NAMES = tuple(persona.name for persona in PERSONAS)

_ALL = frozenset(PERSONA_NAMES)

# Who each access class lets in, by configuration. With
# enforce_new_defaults off oslo.policy also accepts each rule's
# deprecated default (Placement's: the admin role). A system-scoped token
# never passes a project-scoped rule (oslo.policy 6 always checks scope).
ACCESS = {
    # No token needed: the version documents.
    'public': {NEW: _ALL, LEGACY: _ALL},
    # Placement's admin_or_service_api.
    'admin_or_service': {
        NEW: frozenset(['project_admin', 'service']),
        LEGACY: frozenset(['project_admin', 'service']),
    },
    # Placement's service_api: before enforce_new_defaults, the admin too.
    'service': {
        NEW: frozenset(['service']),
        LEGACY: frozenset(['project_admin', 'service']),
    },
    # Placement's admin_or_project_reader_or_service_api, asked about the
    # personas' project (the member role implies reader).
    'admin_or_project_reader_or_service': {
        NEW: frozenset(['project_admin', 'member', 'reader', 'service']),
        LEGACY: frozenset(['project_admin', 'member', 'reader', 'service']),
    },
    # Zun's context_is_admin: the admin role, and no scope types, so a
    # system-scoped admin token passes too.
    'zun_admin': {
        NEW: frozenset(['system_admin', 'project_admin']),
        LEGACY: frozenset(['system_admin', 'project_admin']),
    },
}

Route = collections.namedtuple('Route', 'method path rule access')

# Every route and method of /placement at microversion 1.39, in the order
# of the API reference, with Placement's rule.
PLACEMENT_ROUTES = (
    Route('GET', '/', None, 'public'),
    Route('GET', '/resource_classes', 'placement:resource_classes:list',
          'admin_or_service'),
    Route('POST', '/resource_classes', 'placement:resource_classes:create',
          'admin_or_service'),
    Route('GET', '/resource_classes/{name}',
          'placement:resource_classes:show', 'admin_or_service'),
    Route('PUT', '/resource_classes/{name}',
          'placement:resource_classes:update', 'admin_or_service'),
    Route('DELETE', '/resource_classes/{name}',
          'placement:resource_classes:delete', 'admin_or_service'),
    Route('GET', '/resource_providers', 'placement:resource_providers:list',
          'admin_or_service'),
    Route('POST', '/resource_providers',
          'placement:resource_providers:create', 'admin_or_service'),
    Route('GET', '/resource_providers/{uuid}',
          'placement:resource_providers:show', 'admin_or_service'),
    Route('PUT', '/resource_providers/{uuid}',
          'placement:resource_providers:update', 'admin_or_service'),
    Route('DELETE', '/resource_providers/{uuid}',
          'placement:resource_providers:delete', 'admin_or_service'),
    Route('GET', '/resource_providers/{uuid}/inventories',
          'placement:resource_providers:inventories:list',
          'admin_or_service'),
    Route('POST', '/resource_providers/{uuid}/inventories',
          'placement:resource_providers:inventories:create',
          'admin_or_service'),
    Route('PUT', '/resource_providers/{uuid}/inventories',
          'placement:resource_providers:inventories:update',
          'admin_or_service'),
    Route('DELETE', '/resource_providers/{uuid}/inventories',
          'placement:resource_providers:inventories:delete',
          'admin_or_service'),
    Route('GET', '/resource_providers/{uuid}/inventories/{resource_class}',
          'placement:resource_providers:inventories:show',
          'admin_or_service'),
    Route('PUT', '/resource_providers/{uuid}/inventories/{resource_class}',
          'placement:resource_providers:inventories:update',
          'admin_or_service'),
    Route('DELETE',
          '/resource_providers/{uuid}/inventories/{resource_class}',
          'placement:resource_providers:inventories:delete',
          'admin_or_service'),
    Route('GET', '/resource_providers/{uuid}/aggregates',
          'placement:resource_providers:aggregates:list',
          'admin_or_service'),
    Route('PUT', '/resource_providers/{uuid}/aggregates',
          'placement:resource_providers:aggregates:update',
          'admin_or_service'),
    Route('GET', '/resource_providers/{uuid}/traits',
          'placement:resource_providers:traits:list', 'admin_or_service'),
    Route('PUT', '/resource_providers/{uuid}/traits',
          'placement:resource_providers:traits:update', 'admin_or_service'),
    Route('DELETE', '/resource_providers/{uuid}/traits',
          'placement:resource_providers:traits:delete', 'admin_or_service'),
    Route('GET', '/resource_providers/{uuid}/allocations',
          'placement:resource_providers:allocations:list',
          'admin_or_service'),
    Route('GET', '/resource_providers/{uuid}/usages',
          'placement:resource_providers:usages', 'admin_or_service'),
    Route('GET', '/traits', 'placement:traits:list', 'admin_or_service'),
    Route('GET', '/traits/{name}', 'placement:traits:show',
          'admin_or_service'),
    Route('PUT', '/traits/{name}', 'placement:traits:update',
          'admin_or_service'),
    Route('DELETE', '/traits/{name}', 'placement:traits:delete',
          'admin_or_service'),
    Route('POST', '/allocations', 'placement:allocations:manage',
          'admin_or_service'),
    Route('GET', '/allocations/{consumer_uuid}', 'placement:allocations:list',
          'admin_or_service'),
    Route('PUT', '/allocations/{consumer_uuid}',
          'placement:allocations:update', 'admin_or_service'),
    Route('DELETE', '/allocations/{consumer_uuid}',
          'placement:allocations:delete', 'admin_or_service'),
    Route('GET', '/usages', 'placement:usages',
          'admin_or_project_reader_or_service'),
    Route('GET', '/allocation_candidates',
          'placement:allocation_candidates:list', 'admin_or_service'),
    Route('POST', '/reshaper', 'placement:reshaper:reshape', 'service'),
)

# The routes of /v1 behind a rule, with Zun's rule names and defaults.
V1_ROUTES = (
    Route('GET', '/v1/hosts', 'host:get_all', 'zun_admin'),
    Route('GET', '/v1/hosts/{host_ident}', 'host:get', 'zun_admin'),
    Route('GET', '/v1/services', 'zun-service:get_all', 'zun_admin'),
)

# Why this service answers otherwise than the reference, by label.
REASONS = {
    'v1-scope': (
        "Zun's rules have no scope types, so Zun lets a system-scoped "
        "admin token list hosts. zun-hostcap's rules are project-scoped, "
        "as Nova's hypervisor rules and all of Placement's are: an "
        "operator lists hosts with a token of the admin project, as "
        "Horizon and the openstack client get by default."),
}

# The cells where this service answers otherwise than the reference,
# each with the label of its reason in ``REASONS``:
# (method, path, persona, configuration) -> label.
DIFFERENCES = {
    ('GET', '/v1/hosts', 'system_admin', NEW): 'v1-scope',
    ('GET', '/v1/hosts/{host_ident}', 'system_admin', NEW): 'v1-scope',
    ('GET', '/v1/services', 'system_admin', NEW): 'v1-scope',
    ('GET', '/v1/hosts', 'system_admin', LEGACY): 'v1-scope',
    ('GET', '/v1/hosts/{host_ident}', 'system_admin', LEGACY): 'v1-scope',
    ('GET', '/v1/services', 'system_admin', LEGACY): 'v1-scope',
}

ALLOWED = 'allowed'
DENIED = 'denied'


def reference(route, persona, configuration):
    """``ALLOWED`` or ``DENIED``: what the reference (Placement, Zun) does."""
    if persona in ACCESS[route.access][configuration]:
        return ALLOWED
    return DENIED


def expected(route, persona, configuration):
    """What this service does: the reference, but for ``DIFFERENCES``."""
    decision = reference(route, persona, configuration)
    if (route.method, route.path, persona, configuration) in DIFFERENCES:
        return DENIED if decision == ALLOWED else ALLOWED
    return decision


def decision_of(status):
    """The policy's decision an HTTP status shows; None if it shows none.

    403 is a refusal; 401 is one too, for a token the API does not take
    at all. A 2xx, a 404 (the thing asked about is not there) or a 409
    (it changed under the request) comes after the policy allowed it.
    Anything else (400, 5xx) means the request never reached the policy
    in a way that compares, and fails the test.
    """
    if status in (401, 403):
        return DENIED
    if 200 <= status < 300 or status in (404, 409):
        return ALLOWED
    return None


_CELL = {ALLOWED: 'yes', DENIED: 'no'}
_TITLES = {
    NEW: '``[oslo_policy] enforce_new_defaults = True`` (the default)',
    LEGACY: '``[oslo_policy] enforce_new_defaults = False``',
}


def _table(routes, configuration):
    header = ['Method', 'Path'] + [persona.title for persona in PERSONAS]
    rows = []
    for route in routes:
        row = [route.method, '``%s``' % route.path]
        for persona in PERSONA_NAMES:
            cell = _CELL[expected(route, persona, configuration)]
            label = DIFFERENCES.get((route.method, route.path, persona,
                                     configuration))
            if label:
                cell += ' [#%s]_' % label
            row.append(cell)
        rows.append(row)
    widths = [max(len(line[column]) for line in [header] + rows)
              for column in range(len(header))]
    rule = '  '.join('=' * width for width in widths)

    def line(cells):
        return '  '.join(cell.ljust(width)
                         for cell, width in zip(cells, widths)).rstrip()

    return [rule, line(header), rule] + [line(row) for row in rows] + [rule]


def render():
    """The role matrix as reStructuredText, to include in the docs."""
    out = [
        '.. This file is generated by tools/role_matrix_doc.py from',
        '   zun_hostcap/tests/role_matrix.py; do not edit it by hand.',
        '',
        'Personas:',
        '',
    ]
    for persona in PERSONAS:
        out.append('* *%s*: %s.' % (persona.title, persona.description))
    out += ['', 'oslo.policy 6 always checks the scope of a token; '
            '``[oslo_policy] enforce_scope`` is gone and ignored where it '
            'is set.']
    sections = (('/placement', PLACEMENT_ROUTES,
                 'the same as openstack-placement 16.0 answers'),
                ('/v1', V1_ROUTES, "Zun's defaults"))
    for configuration in CONFIGURATIONS:
        for area, routes, reference_name in sections:
            out += ['', '``%s`` with %s' % (area, _TITLES[configuration]),
                    '',
                    'Reference: %s.' % reference_name, '']
            out += _table(routes, configuration)
    labels = sorted(set(DIFFERENCES.values()))
    if labels:
        out += ['', 'Where this service answers otherwise:', '']
        for label in labels:
            out.append('.. [#%s] %s' % (label, REASONS[label]))
    return '\n'.join(out) + '\n'
