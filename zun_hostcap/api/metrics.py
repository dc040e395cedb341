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

"""GET /metrics: capacity and health in the Prometheus text format.

Three kinds of families:

- the Placement figures, under the names, labels and meanings of
  openstack-exporter's placement exporter (``PLACEMENT_FAMILIES``), so
  that dashboards and alert rules written for it work unchanged; read
  from the database in one statement, whatever the number of providers;
- the hosts and services (``HOST_FAMILIES``), from the compute nodes and
  services tables, one statement each;
- the service's own requests, conductor RPC calls and notifications
  (``zun_hostcap.common.metrics``), summed over the host's processes.

A scraper has no keystone token: the endpoint answers without one, and
is kept off the networks users reach by ``[metrics] port``. While the
database cannot be reached it still answers, with
``openstack_placement_up 0`` and the service's own families, as
openstack-exporter answers for a Placement it cannot reach.
"""

import time
import zlib

from oslo_log import log as logging
import webob

from zun_hostcap.api.controllers.v1 import services as services_api
from zun_hostcap.api import errors
from zun_hostcap.api.placement import routes as placement_routes
from zun_hostcap.common import context
from zun_hostcap.common import exception
from zun_hostcap.common import metrics
from zun_hostcap.db import api as db_api
from zun_hostcap.db.sqlalchemy.placement import metrics as placement_db

LOG = logging.getLogger(__name__)

PATH = '/metrics'
CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8'

# name: (labels, help). openstack-exporter's; its meaning, per provider
# (hostname: the provider's name) and resource class (resourcetype): an
# inventory's total, reserved and allocation ratio, and the sum of the
# allocations against it. openstack_placement_up is 1 when the figures
# could be read, 0 when not.
PLACEMENT_FAMILIES = {
    'openstack_placement_resource_total': (
        ('hostname', 'resourcetype'),
        'Total of the inventory of a resource class on a provider.'),
    'openstack_placement_resource_usage': (
        ('hostname', 'resourcetype'),
        'Sum of the allocations against the inventory.'),
    'openstack_placement_resource_reserved': (
        ('hostname', 'resourcetype'),
        'Part of the inventory total reserved for the host itself.'),
    'openstack_placement_resource_allocation_ratio': (
        ('hostname', 'resourcetype'),
        'Allocation ratio of the inventory: capacity is (total - '
        'reserved) * ratio.'),
    'openstack_placement_up': (
        (), 'Whether the Placement figures could be read (1) or not (0).'),
}

HOST_FAMILIES = {
    'zun_hostcap_host_cpus': (
        ('hostname',), 'CPUs of the host.'),
    'zun_hostcap_host_cpus_used': (
        ('hostname',), 'CPUs the host\'s containers use.'),
    'zun_hostcap_host_memory_total_bytes': (
        ('hostname',), 'Memory of the host (MemTotal).'),
    'zun_hostcap_host_memory_available_bytes': (
        ('hostname',), 'Memory available for new work (MemAvailable).'),
    'zun_hostcap_host_numa_cells': (
        ('hostname',), 'NUMA cells of the host.'),
    'zun_hostcap_host_numa_cell_cpus': (
        ('hostname', 'cell'), 'CPUs of a NUMA cell.'),
    'zun_hostcap_host_numa_cell_memory_total_bytes': (
        ('hostname', 'cell'), 'Memory of a NUMA cell.'),
    'zun_hostcap_host_numa_cell_memory_available_bytes': (
        ('hostname', 'cell'), 'Free memory of a NUMA cell.'),
    'zun_hostcap_host_containers': (
        ('hostname', 'state'),
        'Containers on the host by state: running, paused, stopped, '
        'other.'),
    'zun_hostcap_service_up': (
        ('host', 'binary'),
        'Whether the service is up (1): a recent heartbeat and not forced '
        'down.'),
    'zun_hostcap_service_forced_down': (
        ('host', 'binary'), 'Whether the service is forced down (1).'),
    'zun_hostcap_service_disabled': (
        ('host', 'binary'), 'Whether the service is disabled (1).'),
}

# The families of zun_hostcap.common.metrics, as Prometheus shows them.
SERVICE_FAMILIES = {
    'zun_hostcap_api_requests_total': ('route', 'method', 'status'),
    'zun_hostcap_api_request_duration_seconds': ('route', 'method'),
    'zun_hostcap_conductor_rpc_calls_total': ('method', 'outcome'),
    'zun_hostcap_notifications_queued': ('queue',),
    'zun_hostcap_notifications_dropped_total': ('queue',),
    'zun_hostcap_db_deadlock_retries_total': (),
}

_MIB = 1024 * 1024

# The compute node columns the host families need.
_HOST_COLUMNS = ('hostname', 'cpus', 'cpu_used', 'mem_total',
                 'mem_available', 'numa_topology', 'total_containers',
                 'running_containers', 'paused_containers',
                 'stopped_containers')


def _escape(value):
    """A label value as the text format writes it."""
    if '\\' in value or '"' in value or '\n' in value:
        return (value.replace('\\', '\\\\').replace('\n', '\\n')
                .replace('"', '\\"'))
    return value


def _header(name, help_text):
    return '# HELP %s %s\n# TYPE %s gauge\n' % (name, help_text, name)


def _number(value):
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _family(name, help_text, samples):
    """A gauge family: ``samples`` are (label text, value)."""
    if not samples:
        return ''
    return _header(name, help_text) + ''.join(
        '%s%s %s\n' % (name, labels, _number(value))
        for labels, value in samples)


def _label_values(values):
    """``values`` as the text format writes label values.

    Provider names seldom hold a character to escape: one look at all of
    them, and the list itself when none does.
    """
    distinct = set(values)
    joined = ''.join(distinct)
    if '\\' not in joined and '"' not in joined and '\n' not in joined:
        return values
    escaped = {value: _escape(value) for value in distinct}
    return list(map(escaped.__getitem__, values))


# Samples of a part of the exposition's text: about 0.2 MB.
SAMPLES_A_PART = 2048

# The families of an inventory, and the column of ``Capacity`` that is
# each one's value.
_INVENTORY_FAMILIES = (
    ('openstack_placement_resource_total', 'totals'),
    ('openstack_placement_resource_usage', 'used'),
    ('openstack_placement_resource_reserved', 'reserved'),
    ('openstack_placement_resource_allocation_ratio', 'ratios'),
)


def placement_families(capacity, up):
    """The openstack-exporter families of a ``placement_db.Capacity``.

    As parts of text, encoded, of ``SAMPLES_A_PART`` samples each, each
    compressed before the next is made: never the whole text (13 MB for
    10,000 providers), which took longer to join and encode again than
    its pieces did to make, and which the processor's cache does not
    hold between the join, the encoding and the compression. Each column
    is put into its places by a slice: 10,000 providers with 3 classes
    make 120,000 samples, and a Python step a sample was most of a
    scrape's time.
    """
    count = len(capacity.totals)
    columns = capacity._asdict()
    # A cloud has a few allocation ratios: each printed once.
    ratio_texts = {ratio: repr(float(ratio))
                   for ratio in set(capacity.ratios)}
    columns['ratios'] = list(map(ratio_texts.__getitem__, capacity.ratios))
    hostnames = _label_values(capacity.hostnames)
    part = 6 * SAMPLES_A_PART
    for name, column in _INVENTORY_FAMILIES if count else ():
        # name{hostname="H",resourcetype="R"} value, a line each; what
        # follows a value starts the next line. Class names are upper
        # case letters, digits and underscores (the API's schema):
        # nothing to escape.
        start = name + '{hostname="'
        samples = [None, '",resourcetype="', None, '"} ', None,
                   '\n' + start] * count
        samples[0::6] = hostnames
        samples[2::6] = capacity.classes
        samples[4::6] = columns[column]
        samples[0] = (_header(name, PLACEMENT_FAMILIES[name][1]) + start +
                      samples[0])
        samples[-1] = '\n'
        for first in range(0, len(samples), part):
            yield ''.join(samples[first:first + part]).encode('utf-8')
    yield (_header('openstack_placement_up',
                   PLACEMENT_FAMILIES['openstack_placement_up'][1]) +
           'openstack_placement_up %d\n' % (1 if up else 0)).encode('utf-8')


def _host_samples(nodes):
    samples = {name: [] for name in HOST_FAMILIES}
    for node in nodes:
        host = '{hostname="%s"}' % _escape(node.hostname)
        samples['zun_hostcap_host_cpus'].append((host, node.cpus))
        samples['zun_hostcap_host_cpus_used'].append(
            (host, float(node.cpu_used)))
        samples['zun_hostcap_host_memory_total_bytes'].append(
            (host, node.mem_total * _MIB))
        samples['zun_hostcap_host_memory_available_bytes'].append(
            (host, node.mem_available * _MIB))
        cells = (node.numa_topology or {}).get('nodes', ())
        samples['zun_hostcap_host_numa_cells'].append((host, len(cells)))
        for cell in cells:
            labels = '{hostname="%s",cell="%s"}' % (
                _escape(node.hostname), cell['id'])
            samples['zun_hostcap_host_numa_cell_cpus'].append(
                (labels, len(cell['cpuset'])))
            samples['zun_hostcap_host_numa_cell_memory_total_bytes'].append(
                (labels, cell['mem_total'] * _MIB))
            samples[
                'zun_hostcap_host_numa_cell_memory_available_bytes'].append(
                (labels, cell['mem_available'] * _MIB))
        known = (node.running_containers + node.paused_containers +
                 node.stopped_containers)
        for state, count in (('running', node.running_containers),
                             ('paused', node.paused_containers),
                             ('stopped', node.stopped_containers),
                             ('other', max(node.total_containers - known,
                                           0))):
            samples['zun_hostcap_host_containers'].append(
                ('{hostname="%s",state="%s"}' % (_escape(node.hostname),
                                                 state), count))
    return samples


def _service_samples(services, samples):
    for service in services:
        labels = '{host="%s",binary="%s"}' % (_escape(service.host),
                                              _escape(service.binary))
        samples['zun_hostcap_service_up'].append(
            (labels, int(services_api.state(service) == 'up')))
        samples['zun_hostcap_service_forced_down'].append(
            (labels, int(bool(service.forced_down))))
        samples['zun_hostcap_service_disabled'].append(
            (labels, int(bool(service.disabled))))


def host_text(nodes, services):
    """The host and service families of compute node and service rows."""
    samples = _host_samples(nodes)
    _service_samples(services, samples)
    return ''.join(_family(name, HOST_FAMILIES[name][1], samples[name])
                   for name in HOST_FAMILIES)


def _unreachable(what, err):
    LOG.warning('/metrics without the %(what)s figures: %(error)s',
                {'what': what, 'error': exception.one_line(err)})


def exposition():
    """The whole exposition: its parts, as bytes, each made when asked for.

    The Placement families in parts of ``SAMPLES_A_PART`` samples, then
    the host and service families, then the service's own.
    """
    ctxt = context.get_admin_context()
    try:
        inventories, up = placement_db.capacity(ctxt), True
    except Exception as err:
        inventories, up = placement_db.NO_INVENTORIES, False
        _unreachable('Placement', err)
    yield from placement_families(inventories, up)
    del inventories
    if up:
        try:
            hosts = host_text(
                db_api.compute_node_get_all(ctxt, columns=_HOST_COLUMNS),
                db_api.service_get_all(ctxt))
        except Exception as err:
            hosts = ''
            _unreachable('host', err)
        yield hosts.encode('utf-8')
    try:
        own = metrics.exposition()
    except Exception:
        # A counter file another process left half written: the database
        # figures still go out.
        LOG.exception('/metrics without the service\'s own counters')
        own = b''
    yield own


def _gzip(parts):
    """``parts`` (bytes) as one gzip stream: a list of bytes.

    Each part is compressed as it is made, never joined with the others.
    """
    # Level 1: 13 MB of text in 0.4 MB, at a third of level 6's time
    # for a sixth more bytes.
    compressor = zlib.compressobj(1, zlib.DEFLATED, 31)
    # zlib keeps most parts' output back until it has a block to write:
    # the empty pieces are left out rather than handed to the server.
    compressed = [piece for piece in map(compressor.compress, parts)
                  if piece]
    compressed.append(compressor.flush())
    return compressed


class MetricsApp(object):
    """The WSGI application of /metrics (any path it is given)."""

    def __call__(self, environ, start_response):
        method = environ.get('REQUEST_METHOD')
        if method not in ('GET', 'HEAD'):
            resp = errors.response(
                405, 'Method %s is not allowed on %s.' % (method, PATH),
                request_id=environ.get('openstack.request_id'),
                headers=[('Allow', 'GET, HEAD')])
            return resp(environ, start_response)
        headers = [('Content-Type', CONTENT_TYPE),
                   ('Vary', 'Accept-Encoding')]
        if 'gzip' in environ.get('HTTP_ACCEPT_ENCODING', ''):
            body = _gzip(exposition())
            headers.append(('Content-Encoding', 'gzip'))
        else:
            body = list(exposition())
        headers.append(('Content-Length', str(sum(map(len, body)))))
        start_response('200 OK', headers)
        return [b''] if method == 'HEAD' else body


class MetricsRoute(object):
    """Sends ``/metrics`` to the metrics application, before any auth."""

    def __init__(self, application, metrics_app=None):
        self.application = application
        self.metrics_app = metrics_app or MetricsApp()

    def __call__(self, environ, start_response):
        if environ.get('PATH_INFO') == PATH:
            return self.metrics_app(environ, start_response)
        return self.application(environ, start_response)


class MetricsNotHereRoute(object):
    """Answers ``/metrics`` with a 404 that says why, before any auth.

    Without it the path would need a token like any unknown one, and its
    401 would read as "add a token".
    """

    def __init__(self, application, detail):
        self.application = application
        self.detail = detail

    def __call__(self, environ, start_response):
        if environ.get('PATH_INFO') in (PATH, PATH + '/'):
            resp = errors.response(
                404, self.detail, errors.NOT_FOUND,
                environ.get('openstack.request_id'))
            return resp(environ, start_response)
        return self.application(environ, start_response)


def not_here_detail(conf):
    """Why this API does not serve /metrics itself: the detail of its 404."""
    if not conf.metrics.enabled:
        return ('Metrics are off: set [metrics] enabled = true to serve '
                '%s.' % PATH)
    where = '%s:%s' % (conf.metrics.host, conf.metrics.port)
    return ('Metrics are served on the listener of [metrics] port (%s), '
            'not on the API\'s address.' % where)


class StandaloneMetricsApp(object):
    """The separate listener of ``[metrics] port``: /metrics, else 404."""

    def __init__(self):
        self.metrics_app = MetricsApp()

    def __call__(self, environ, start_response):
        if environ.get('PATH_INFO') in (PATH, PATH + '/'):
            return self.metrics_app(environ, start_response)
        resp = webob.Response(status=404, content_type='text/plain',
                              charset='utf-8',
                              text='Only %s is served here.\n' % PATH)
        return resp(environ, start_response)


# Route templates of the API outside /placement, for the request
# families: a path that is none of them counts as "other", so that the
# number of series stays bounded whatever clients ask for.
ZUN_ROUTES = ('/', '/v1', '/v1/hosts', '/v1/hosts/{ident}', '/v1/services',
              '/hosts', '/hosts/{ident}', '/services', '/openapi.json',
              '/healthcheck', PATH)
OTHER_ROUTE = 'other'
_METHODS = frozenset(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE',
                      'OPTIONS'])


class RequestMetrics(object):
    """Counts every request by route template, method and status.

    The Placement router names the template it matched
    (``routes.ROUTE_TEMPLATE``); other paths are matched against
    ``routes``. ``placement_prefix`` is where the Placement API is
    mounted: ``/placement``, or nothing when it is served alone.
    """

    def __init__(self, application, placement_prefix='', routes=ZUN_ROUTES):
        self.application = application
        self.placement_prefix = placement_prefix
        self._patterns = [(template, placement_routes.template_pattern(
            template)) for template in routes]
        self._placement_router = placement_routes.Router()

    def _route(self, path, environ):
        template = environ.get(placement_routes.ROUTE_TEMPLATE)
        if template is not None:
            return self.placement_prefix + template
        prefix = self.placement_prefix
        if prefix and (path == prefix or path.startswith(prefix + '/')):
            # Answered before the router (401, a bad version): matched
            # here as the router would have.
            route, _params = self._placement_router.match(
                path[len(prefix):])
            return (prefix + route.template if route is not None
                    else OTHER_ROUTE)
        for template, pattern in self._patterns:
            if pattern.match(path):
                return template
        if not prefix:
            route, _params = self._placement_router.match(path)
            if route is not None:
                return route.template
        return OTHER_ROUTE

    def __call__(self, environ, start_response):
        path = environ.get('PATH_INFO', '')
        started = time.perf_counter()
        status = []

        def start(status_line, headers, exc_info=None):
            status[:] = [status_line[:3]]
            return start_response(status_line, headers, exc_info)
        try:
            return self.application(environ, start)
        finally:
            method = environ.get('REQUEST_METHOD')
            metrics.count_request(
                self._route(path, environ),
                method if method in _METHODS else 'other',
                status[0] if status else '500',
                time.perf_counter() - started)
