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

"""[placement]: how the compute reaches a Placement service, and how the
API's own /placement searches allocation candidates, how often it tries
a write of allocations, and how large a body it takes.

keystoneauth1's own options, registered through its loading helpers as
every OpenStack service does it: the session (TLS, timeout), the auth
plugin (``auth_type = password`` against keystone, or ``none`` /
``admin_token`` for a deployment without it) and the adapter
(``endpoint_override``, ``valid_interfaces``, ``region_name``...). The
Placement service may be this project's own ``/placement`` or an
OpenStack Placement service an operator already runs.
"""

from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

SERVICE_TYPE = 'placement'

placement_group = cfg.OptGroup(
    'placement',
    title='Placement service',
    help='The Placement service the compute service reports this host\'s '
         'resource provider, inventory and container allocations to: '
         'this project\'s own /placement API or an existing OpenStack '
         'Placement. keystoneauth1 options: set auth_type (password, with '
         'auth_url, username, password, project_name, user_domain_name, '
         'project_domain_name; or admin_token, with token) and, without a '
         'keystone catalog, endpoint_override.')


# The candidate search of /placement: OpenStack Placement's option names
# and meanings, so that a Placement configuration carries over.
candidate_opts = [
    cfg.BoolOpt(
        'randomize_allocation_candidates',
        default=False,
        help='Whether GET /allocation_candidates answers in a random '
             'order. With a limit, the answer is then a sample spread '
             'across root providers (each viable root gives one candidate '
             'in turn, in a random order of roots and of providers), made '
             'without making the rest. Off, the order is fixed: depth '
             'first or breadth first across roots, as '
             'allocation_candidates_generation_strategy says, roots in the '
             'order of their creation.'),
    cfg.IntOpt(
        'max_allocation_candidates',
        default=-1,
        min=-1,
        help='The most allocation candidates one request makes, before '
             'its limit (if any) applies; -1 for no maximum. The search '
             'always prunes and stops at the limit, so unlike OpenStack '
             'Placement it does not need this to stay fast on wide '
             'provider trees; it bounds the size of an answer without a '
             'limit.'),
    cfg.StrOpt(
        'allocation_candidates_generation_strategy',
        default='depth-first',
        choices=(('depth-first',
                  'every candidate of the first viable root, then of the '
                  'next'),
                 ('breadth-first',
                  'one candidate of each viable root in turn, so that a '
                  'limit or maximum spreads the answer across roots')),
        help='The order in which viable root providers give their '
             'allocation candidates.'),
]


# How /placement writes allocations: OpenStack Placement's option.
allocation_opts = [
    cfg.IntOpt(
        'allocation_conflict_retry_count',
        default=10,
        min=1,
        help='How many times /placement tries a write of allocations (PUT '
             'and POST /allocations, POST /reshaper) whose resource '
             'providers another writer changed meanwhile, before it '
             'answers 409 placement.concurrent_update. Each attempt reads '
             'the providers again and checks capacity again. Raise it '
             'where many schedulers allocate from the same providers at '
             'once and clients see such 409s; the same option as in '
             'OpenStack Placement, with its default.'),
]


# The size of the bodies /placement takes.
api_opts = [
    cfg.IntOpt(
        'max_request_body_size',
        default=8 * 1024 * 1024,
        min=1,
        help='The largest request body, in bytes, the /placement API (and '
             'zun_hostcap.wsgi.placement) takes; a larger one is answered '
             '413. The rest of the API keeps [oslo_middleware] '
             'max_request_body_size (112 KiB). POST /allocations for many '
             'consumers and POST /reshaper for a large provider tree are '
             'bigger than that: about 300 bytes per consumer and per '
             'inventory. OpenStack Placement sets no limit of its own; '
             'leave this one well above the largest body your compute '
             'services send.'),
]


def register_opts(conf):
    conf.register_group(placement_group)
    conf.register_opts(candidate_opts, group=placement_group)
    conf.register_opts(allocation_opts, group=placement_group)
    conf.register_opts(api_opts, group=placement_group)
    ks_loading.register_session_conf_options(conf, placement_group)
    ks_loading.register_auth_conf_options(conf, placement_group)
    ks_loading.register_adapter_conf_options(conf, placement_group,
                                             include_deprecated=False)
    conf.set_default('service_type', SERVICE_TYPE, group=placement_group)
    conf.set_default('valid_interfaces', ['internal', 'public'],
                     group=placement_group)


def list_opts():
    # The options of the password plugin are listed too: the one an
    # operator with keystone sets.
    adapter_opts = ks_loading.get_adapter_conf_options(
        include_deprecated=False)
    cfg.set_defaults(adapter_opts, service_type=SERVICE_TYPE,
                     valid_interfaces=['internal', 'public'])
    return {placement_group: (
        candidate_opts + allocation_opts + api_opts +
        ks_loading.get_session_conf_options() +
        ks_loading.get_auth_common_conf_options() +
        ks_loading.get_auth_plugin_conf_options('password') +
        adapter_opts)}
