"""/v1/hosts: the container hosts and what they have."""

from urllib import parse

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


def _serialize_host(node, version):
    host = {name: getattr(node, name) for name in _ZUN_FIELDS}
    host.update((name, getattr(node, name)) for name in _DETAIL_FIELDS)
    host['numa_topology'] = (node.numa_topology.to_dict()
                             if node.numa_topology is not None else None)
    host['pci_device_pools'] = (node.pci_device_pools.to_list()
                                if node.pci_device_pools is not None
                                else None)
    if version >= microversion.HOST_CPU_PINNING:
        host['enable_cpu_pinning'] = node.enable_cpu_pinning
    host['links'] = link.self_and_bookmark('hosts', node.uuid)
    return host


def _next_link(nodes, limit, sort_key, sort_dir):
    """Zun's ``next``: set when the page is full, else None."""
    if not nodes or len(nodes) != limit:
        return None
    query = parse.urlencode([('limit', limit), ('marker', nodes[-1].uuid),
                             ('sort_dir', sort_dir),
                             ('sort_key', sort_key)])
    return '%s?%s' % (link.url('v1', 'hosts'), query)


class HostsController(rest.RestController):

    @pecan.expose('json')
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
        nodes = objects.ComputeNodeList.get_all(
            request.context, limit=limit, marker=query.get('marker'),
            sort_key=sort_key, sort_dir=sort_dir)
        return {'hosts': [_serialize_host(node, request.version)
                          for node in nodes],
                'next': _next_link(nodes, limit, sort_key, sort_dir)}

    @pecan.expose('json')
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
        return _serialize_host(node, request.version)
