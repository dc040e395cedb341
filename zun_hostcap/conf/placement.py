"""How zun-hostcap-compute reaches a Placement service.

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


def register_opts(conf):
    conf.register_group(placement_group)
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
        ks_loading.get_session_conf_options() +
        ks_loading.get_auth_common_conf_options() +
        ks_loading.get_auth_plugin_conf_options('password') +
        adapter_opts)}
