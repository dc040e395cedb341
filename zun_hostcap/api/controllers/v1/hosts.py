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

"""/v1/hosts: the container hosts and what they have."""

from urllib import parse

from oslo_serialization import jsonutils
from oslo_utils import uuidutils
import pecan
from pecan import rest

from zun_hostcap.api.controllers import link
from zun_hostcap.api import microversion
from zun_hostcap.api.schemas import hosts as schema
from zun_hostcap.api import validation
from zun_hostcap.common.policies import host as host_policy
from zun_hostcap.common import policy
import zun_hostcap.conf
from zun_hostcap import objects
from zun_hostcap.objects import base as objects_base

CONF = zun_hostcap.conf.CONF

# Zun's fields of a host, in every version that has hosts.
_ZUN_FIELDS = (
    'uuid', 'hostname', 'mem_total', 'mem_used', 'cpus', 'cpu_used',
    'total_containers', 'architecture', 'os_type', 'os', 'kernel_version',
    'labels', 'disk_total', 'disk_used', 'disk_quota_supported', 'runtimes',
)
# What this service knows beyond Zun: /proc/meminfo in MiB and the
# containers by state.
_DETAIL_FIELDS = (
    'mem_free', 'mem_available', 'mem_buffers', 'mem_cached',
    'running_containers', 'paused_containers', 'stopped_containers',
)


# Every field a host's document shows, in the document's order.
_SHOWN_FIELDS = _ZUN_FIELDS + _DETAIL_FIELDS + (
    'numa_topology', 'pci_device_pools', 'enable_cpu_pinning')


def _node_values(node):
    """What the document of ``node`` (a ComputeNode) shows, as plain data.

    The fields are read as the object holds them: the field getters of
    oslo.versionedobjects would cost more than the rest of the document.
    """
    values = {name: objects_base.stored(node, name)
              for name in _SHOWN_FIELDS}
    numa = values['numa_topology']
    if numa is not None:
        values['numa_topology'] = numa.to_dict()
    pools = values['pci_device_pools']
    if pools is not None:
        values['pci_device_pools'] = pools.to_list()
    return values


def _documents(request, hosts):
    """Make each of ``hosts`` (``_SHOWN_FIELDS`` values) its document.

    In place: the version decides whether enable_cpu_pinning is shown;
    the links are added. What every host shares is worked out once.
    """
    pinning = request.version >= microversion.HOST_CPU_PINNING
    versioned = link.url('v1', 'hosts') + '/'
    bookmark = link.url('hosts') + '/'
    for host in hosts:
        enable_cpu_pinning = host.pop('enable_cpu_pinning')
        if pinning:
            host['enable_cpu_pinning'] = enable_cpu_pinning
        uuid = host['uuid']
        host['links'] = [{'href': versioned + uuid, 'rel': 'self'},
                         {'href': bookmark + uuid, 'rel': 'bookmark'}]
    return hosts


def _next_link(hosts, limit, sort_key, sort_dir):
    """Zun's ``next``: set when the page is full, else None."""
    if not hosts or len(hosts) != limit:
        return None
    query = parse.urlencode([('limit', limit),
                             ('marker', hosts[-1]['uuid']),
                             ('sort_dir', sort_dir),
                             ('sort_key', sort_key)])
    return '%s?%s' % (link.url('v1', 'hosts'), query)


class HostsController(rest.RestController):

    @pecan.expose()
    def _route(self, args, request=None):
        """Route a plain GET of the list or of a host straight to it.

        RestController's routing inspects the handlers' signatures
        several times per request (a fifth of a host's time). What it
        would choose for these two shapes is chosen here; every other
        request (another method, ``_method``, a longer path, a name of
        this controller) goes through it unchanged.
        """
        if request is None:
            request = pecan.request
        if request.method == 'GET' and '_method' not in request.params:
            if not args or args == ['']:
                return self.get_all, []
            if (len(args) == 1 and args[0] and
                    args[0] not in ('new', 'edit', 'delete') and
                    not hasattr(self, args[0])):
                return self.get_one, args
        return super()._route(args, request)

    @pecan.expose(content_type='application/json')
    def get_all(self, **_query):
        """List hosts, a page at a time."""
        request = pecan.request
        microversion.require(request, microversion.HOSTS)
        policy.authorize(request.context, host_policy.HOST % 'get_all')
        query = validation.validate_query(request,
                                          schema.GET_HOSTS_QUERY_v1_4)
        limit = validation.capped_integer(
            query.get('limit', str(CONF.api.max_limit)), CONF.api.max_limit)
        sort_key = query.get('sort_key', 'hostname')
        sort_dir = query.get('sort_dir', 'asc')
        # Built from the rows, not from objects: a page of a thousand
        # hosts costs a tenth of the objects it would take.
        hosts = objects.ComputeNodeList.get_all_values(
            request.context, _SHOWN_FIELDS, limit=limit,
            marker=query.get('marker'), sort_key=sort_key,
            sort_dir=sort_dir)
        # oslo.serialization's jsonutils (the standard library's encoder),
        # not pecan's: its hooks for other types cost a third more on a
        # thousand hosts.
        return jsonutils.dumps(
            {'hosts': _documents(request, hosts),
             'next': _next_link(hosts, limit, sort_key, sort_dir)})

    @pecan.expose(content_type='application/json')
    def get_one(self, host_ident, **_query):
        """Show a host by uuid, or by hostname for anything else."""
        request = pecan.request
        microversion.require(request, microversion.HOSTS)
        policy.authorize(request.context, host_policy.HOST % 'get')
        validation.validate_query(request, schema.GET_HOST_QUERY_v1_4)
        if uuidutils.is_uuid_like(host_ident):
            node = objects.ComputeNode.get_by_uuid(request.context,
                                                   host_ident)
        else:
            node = objects.ComputeNode.get_by_hostname(request.context,
                                                       host_ident)
        return jsonutils.dumps(_documents(request, [_node_values(node)])[0])
