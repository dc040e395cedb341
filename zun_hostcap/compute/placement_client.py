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

"""The compute service's client of a Placement service.

Over HTTP, through keystoneauth1 and the ``[placement]`` options, against
this project's own ``/placement`` API or an OpenStack Placement service
an operator already runs: only the Placement API reference's routes and
fields are used.

It remembers each provider's generation and inventories as it last saw
them, so that an unchanged host costs no write, and writes with the
generation it holds; it reads them again after [compute]
resource_provider_refresh_interval seconds. A write refused because the
provider moved on meanwhile (409 ``placement.concurrent_update``) reads
the provider again and is tried again, up to ``RETRIES`` times.
"""

import functools
import time

from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import loading as ks_loading
from oslo_log import log as logging

from zun_hostcap.common import exception
from zun_hostcap.common import placement_codes as codes
import zun_hostcap.conf
from zun_hostcap.conf import placement as placement_conf

CONF = zun_hostcap.conf.CONF
LOG = logging.getLogger(__name__)

# The oldest microversion this client can work with: consumer
# generations in allocation writes (1.28), and a provider in the answer
# to its creation (1.20).
MIN_VERSION = (1, 28)
# The newest it asks for when the service has it: no field of a later
# one is needed.
WANTED_VERSION = (1, 36)
# What POST /reshaper needs ([compute] numa_providers).
RESHAPER_VERSION = (1, 30)
# Writes tried again after a generation conflict.
RETRIES = 4

# Without keystone ([placement] auth_type = admin_token, a Placement with
# noauth2), the roles keystone would give a compute's service user, sent
# with the requests only a service may make (POST /reshaper). A
# Placement behind keystonemiddleware takes no role from the client.
NOAUTH_AUTH_TYPE = 'admin_token'
NOAUTH_SERVICE_ROLES = 'admin,service'


# What a request of this client may fail with.
FAILURES = (exception.PlacementRequestFailed,
            exception.PlacementServiceUnavailable,
            exception.PlacementServiceTooOld)


def _version_text(version):
    return '%d.%d' % version


def _parse_version(text):
    major, _, minor = (text or '').partition('.')
    return int(major), int(minor)


def _error_code(resp):
    try:
        return resp.json()['errors'][0].get('code')
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        return None


def _detail(resp):
    try:
        return resp.json()['errors'][0].get('detail') or resp.text
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        return resp.text[:300]


def _with_retries(method):
    """Run a provider write again after a generation conflict.

    The wrapped method raises ``GenerationConflict`` when its provider
    moved on; the provider is read again before the next try.
    """
    @functools.wraps(method)
    def wrapper(self, uuid, *args, **kwargs):
        for _attempt in range(RETRIES):
            try:
                return method(self, uuid, *args, **kwargs)
            except GenerationConflict:
                LOG.debug('Resource provider %s changed meanwhile; '
                          'reading it again', uuid)
                if self.read_provider(uuid) is None:
                    raise exception.PlacementRequestFailed(
                        method='GET', path='/resource_providers/%s' %
                        uuid, status=404,
                        detail='the provider was deleted')
        raise exception.PlacementRequestFailed(
            method=method.__name__, path='/resource_providers/%s' % uuid,
            status=409, detail='the provider kept changing in %d '
                               'attempts' % RETRIES)
    return wrapper


class ReportClient(object):
    """What one compute service tells Placement of its host.

    :param adapter: a keystoneauth1 Adapter to use; by default one is
        made from ``[placement]`` at first use.
    """

    def __init__(self, adapter=None):
        self._adapter = adapter
        self.version = None
        # Provider uuid -> {'generation', 'inventories', 'traits', 'seen'}.
        self._providers = {}
        # Custom resource classes and traits known to exist.
        self._classes = set()
        self._traits = set()

    # The connection

    def _client(self):
        if self._adapter is None:
            group = placement_conf.placement_group.name
            auth = ks_loading.load_auth_from_conf_options(CONF, group)
            session = ks_loading.load_session_from_conf_options(
                CONF, group, auth=auth)
            self._adapter = ks_loading.load_adapter_from_conf_options(
                CONF, group, session=session, auth=auth)
        return self._adapter

    def _where(self):
        return (CONF.placement.endpoint_override or
                'the %s endpoint of the catalog' % (
                    CONF.placement.service_type))

    def _send(self, method, path, body=None, version=None, headers=None):
        """The response of one request; 5xx and no answer raise."""
        kwargs = {'raise_exc': False,
                  'headers': dict(headers or {},
                                  Accept='application/json')}
        if version is not None:
            kwargs['microversion'] = _version_text(version)
            kwargs['microversion_service_type'] = (
                placement_conf.SERVICE_TYPE)
        if body is not None:
            kwargs['json'] = body
        try:
            resp = self._client().request(path, method, **kwargs)
        except (ks_exc.ConnectionError, ks_exc.EndpointNotFound,
                ks_exc.DiscoveryFailure, ks_exc.RequestTimeout,
                ks_exc.GatewayTimeout, ks_exc.MissingAuthPlugin,
                ks_exc.AuthorizationFailure, ks_exc.Unauthorized) as err:
            raise exception.PlacementServiceUnavailable(
                url=self._where(), reason=exception.one_line(err))
        if resp.status_code >= 500:
            raise exception.PlacementServiceUnavailable(
                url=self._where(), reason='%s %s answered %d: %s' % (
                    method, path, resp.status_code, _detail(resp)))
        return resp

    def _request(self, method, path, body=None, headers=None):
        """The response of a request at the negotiated microversion."""
        if self.version is None:
            self.version = self._negotiate()
        return self._send(method, path, body, self.version, headers)

    def require_version(self, needed, what):
        """Fail unless the negotiated microversion is ``needed`` or later.

        :param what: what needs it, for the message.
        :raises PlacementServiceTooOld: naming the service's newest.
        """
        if self.version is None:
            self.version = self._negotiate()
        if self.version < needed:
            raise exception.PlacementServiceTooOld(
                url=self._where(), newest=_version_text(self.version),
                needed='%s (%s)' % (_version_text(needed), what))

    def _negotiate(self):
        resp = self._send('GET', '/')
        if resp.status_code != 200:
            raise exception.PlacementRequestFailed(
                method='GET', path='/', status=resp.status_code,
                detail=_detail(resp))
        versions = resp.json().get('versions') or [{}]
        newest = _parse_version(versions[0].get('max_version') or '1.0')
        if newest < MIN_VERSION:
            raise exception.PlacementServiceTooOld(
                url=self._where(), newest=_version_text(newest),
                needed=_version_text(MIN_VERSION))
        version = min(newest, WANTED_VERSION)
        LOG.info('Placement at %(url)s serves microversions up to '
                 '%(newest)s; using %(used)s',
                 {'url': self._where(), 'newest': _version_text(newest),
                  'used': _version_text(version)})
        return version

    def _get(self, path):
        """The JSON document of a GET that must answer 200."""
        resp = self._request('GET', path)
        if resp.status_code != 200:
            raise self._failed('GET', path, resp)
        return resp.json()

    def _put_provider(self, path, body):
        """The JSON answer of a PUT that carries a provider's generation.

        :raises GenerationConflict: the provider moved on (see
            ``_with_retries``).
        """
        resp = self._request('PUT', path, body)
        if (resp.status_code == 409 and
                _error_code(resp) == codes.CONCURRENT_UPDATE):
            raise GenerationConflict()
        if resp.status_code != 200:
            raise self._failed('PUT', path, resp)
        return resp.json()

    def _known_state(self, uuid, method, path):
        """``_state`` of a provider that must exist, for ``method path``."""
        state = self._state(uuid)
        if state is None:
            raise exception.PlacementRequestFailed(
                method=method, path=path, status=404,
                detail='no such provider')
        return state

    def _failed(self, method, path, resp):
        return exception.PlacementRequestFailed(
            method=method, path=path, status=resp.status_code,
            detail=_detail(resp))

    # Providers and inventories

    def read_provider(self, uuid):
        """{'generation', 'inventories'} of a provider as Placement has it.

        Remembered for the writes that follow; None if there is no such
        provider.
        """
        resp = self._request('GET', '/resource_providers/%s/inventories' %
                             uuid)
        if resp.status_code == 404:
            self._providers.pop(uuid, None)
            return None
        if resp.status_code != 200:
            raise self._failed('GET', '/resource_providers/%s/inventories' %
                               uuid, resp)
        doc = resp.json()
        return self._remember(uuid, doc['resource_provider_generation'],
                              doc['inventories'])

    def _remember(self, uuid, generation, inventories, traits=None):
        """Remember a provider as Placement just said it is.

        ``traits`` None: not known (read when needed).
        """
        state = {'generation': generation, 'inventories': inventories,
                 'traits': traits, 'seen': time.monotonic()}
        self._providers[uuid] = state
        return state

    def _state(self, uuid):
        """What the client knows of a provider, read again when old.

        Placement is read again after [compute]
        resource_provider_refresh_interval seconds, so that what another
        client changed (an operator's hand) is seen and put right.
        """
        state = self._providers.get(uuid)
        if state is None or (
                time.monotonic() - state['seen'] >=
                CONF.compute.resource_provider_refresh_interval):
            state = self.read_provider(uuid)
        return state

    def ensure_provider(self, uuid, name, parent_uuid=None):
        """Make the provider ``uuid`` named ``name`` if it is missing.

        :param parent_uuid: the provider it is made a child of.
        :returns: its generation.
        """
        state = self._state(uuid)
        if state is not None:
            return state['generation']
        body = {'uuid': uuid, 'name': name}
        if parent_uuid is not None:
            body['parent_provider_uuid'] = parent_uuid
        resp = self._request('POST', '/resource_providers', body)
        if resp.status_code == 409:
            # Made meanwhile (by an earlier run that lost its answer), or
            # the name is another provider's.
            state = self.read_provider(uuid)
            if state is not None:
                return state['generation']
            raise self._failed('POST', '/resource_providers', resp)
        if resp.status_code not in (200, 201):
            raise self._failed('POST', '/resource_providers', resp)
        LOG.info('Created resource provider %(uuid)s (%(name)s)',
                 {'uuid': uuid, 'name': name})
        return self._remember(uuid, resp.json()['generation'],
                              {}, set())['generation']

    @_with_retries
    def set_inventory(self, uuid, inventories):
        """Make the provider's inventories ``inventories``.

        :param inventories: {resource class: {'total': ..., 'reserved':
            ..., ...}} as the API takes them; fields left out are the
            API's defaults.
        :returns: whether anything was written.
        """
        path = '/resource_providers/%s/inventories' % uuid
        state = self._known_state(uuid, 'PUT', path)
        if _same_inventories(state['inventories'], inventories):
            return False
        doc = self._put_provider(path, {
            'resource_provider_generation': state['generation'],
            'inventories': inventories})
        self._remember(uuid, doc['resource_provider_generation'],
                       doc['inventories'], state['traits'])
        return True

    def get_inventories(self, uuid):
        """The provider's inventories as the client knows them, or None.

        None when there is no such provider; read when not known or old.
        """
        state = self._state(uuid)
        return None if state is None else dict(state['inventories'])

    def provider_tree(self, root_uuid):
        """{uuid: {'name', 'parent_provider_uuid'}} of a provider's tree.

        The root too; {} if there is no such root.
        """
        doc = self._get('/resource_providers?in_tree=%s' % root_uuid)
        return {rp['uuid']: {'name': rp['name'],
                             'parent_provider_uuid':
                                 rp.get('parent_provider_uuid')}
                for rp in doc['resource_providers']}

    def delete_provider(self, uuid):
        """Delete a provider; one already gone is fine.

        :returns: whether there was one.
        """
        path = '/resource_providers/%s' % uuid
        resp = self._request('DELETE', path)
        self._providers.pop(uuid, None)
        if resp.status_code == 404:
            return False
        if resp.status_code != 204:
            raise self._failed('DELETE', path, resp)
        return True

    def get_traits(self, uuid):
        """The provider's traits, a set (remembered, as inventories are).

        :raises PlacementRequestFailed: no such provider, or a refusal.
        """
        path = '/resource_providers/%s/traits' % uuid
        state = self._known_state(uuid, 'GET', path)
        if state['traits'] is None:
            doc = self._get(path)
            state = self._remember(uuid, doc['resource_provider_generation'],
                                   state['inventories'], set(doc['traits']))
        return set(state['traits'])

    @_with_retries
    def set_traits(self, uuid, traits, keep=None):
        """Make the provider's traits ``traits`` (names that exist).

        :param keep: a predicate of the traits it has that stay, whatever
            ``traits`` says (those the caller does not own). Asked again
            of the traits read again after a conflict.
        :returns: whether anything was written.
        """
        current = self.get_traits(uuid)
        wanted = set(traits) | {trait for trait in current
                                if keep is not None and keep(trait)}
        if current == wanted:
            return False
        state = self._providers[uuid]
        doc = self._put_provider('/resource_providers/%s/traits' % uuid, {
            'resource_provider_generation': state['generation'],
            'traits': sorted(wanted)})
        self._remember(uuid, doc['resource_provider_generation'],
                       state['inventories'], set(doc['traits']))
        return True

    def get_aggregates(self, uuid):
        """The uuids of the provider's aggregates, a set (not remembered)."""
        return set(self._get('/resource_providers/%s/aggregates' %
                             uuid)['aggregates'])

    def _ensure(self, collection, names, known):
        """PUT each of ``names`` not in ``known`` into ``collection``."""
        for name in sorted(set(names) - known):
            path = '/%s/%s' % (collection, name)
            resp = self._request('PUT', path)
            if resp.status_code not in (201, 204):
                raise self._failed('PUT', path, resp)
            known.add(name)

    def ensure_resource_classes(self, names):
        """Make the custom resource classes ``names`` that are missing."""
        self._ensure('resource_classes', names, self._classes)

    def ensure_traits(self, names):
        """Make the custom traits ``names`` that are missing."""
        self._ensure('traits', names, self._traits)

    # Allocations

    def get_consumer(self, consumer_uuid):
        """A consumer's allocations and what a write of them needs.

        :returns: {'generation', 'project_id', 'user_id', 'allocations':
            {provider uuid: {class: amount}}}; a consumer without
            allocations has generation None and no project or user.
        """
        doc = self._get('/allocations/%s' % consumer_uuid)
        return {'generation': doc.get('consumer_generation'),
                'project_id': doc.get('project_id'),
                'user_id': doc.get('user_id'),
                'allocations': {rp: alloc['resources'] for rp, alloc in
                                doc.get('allocations', {}).items()}}

    def reshape(self, inventories, allocations):
        """POST /reshaper: inventories and allocations in one write.

        :param inventories: {provider uuid: (generation, {class:
            {field: value}})}, each provider's whole inventory after it.
        :param allocations: {consumer uuid: (generation, project_id,
            user_id, {provider uuid: {class: amount}})}.
        :raises GenerationConflict: a provider or consumer moved on since
            it was read (409 placement.concurrent_update).
        :raises PlacementServiceTooOld: before microversion 1.30.
        :raises PlacementRequestFailed: any other refusal.
        """
        self.require_version(RESHAPER_VERSION, 'POST /reshaper')
        body = {
            'inventories': {
                uuid: {'resource_provider_generation': generation,
                       'inventories': inventory}
                for uuid, (generation, inventory) in inventories.items()},
            'allocations': {
                consumer: {'allocations': {rp: {'resources': resources}
                                           for rp, resources in
                                           held.items()},
                           'project_id': project_id, 'user_id': user_id,
                           'consumer_generation': generation}
                for consumer, (generation, project_id, user_id, held)
                in allocations.items()},
        }
        headers = None
        if CONF.placement.auth_type == NOAUTH_AUTH_TYPE:
            headers = {'X-Roles': NOAUTH_SERVICE_ROLES}
        resp = self._request('POST', '/reshaper', body, headers)
        if (resp.status_code == 409 and
                _error_code(resp) == codes.CONCURRENT_UPDATE):
            raise GenerationConflict()
        if resp.status_code != 204:
            raise self._failed('POST', '/reshaper', resp)
        # Their generations moved: what the next writes need.
        for uuid in inventories:
            self.read_provider(uuid)

    def get_allocations(self, consumer_uuid):
        """(consumer generation or None, {provider uuid: {class: n}})."""
        consumer = self.get_consumer(consumer_uuid)
        return consumer['generation'], consumer['allocations']

    def put_allocations(self, consumer_uuid, allocations, project_id,
                        user_id):
        """Make the consumer's allocations ``allocations``.

        :param allocations: {provider uuid: {resource class: amount}}.
        :returns: whether anything was written.
        """
        path = '/allocations/%s' % consumer_uuid
        for _attempt in range(RETRIES):
            generation, current = self.get_allocations(consumer_uuid)
            if current == allocations:
                return False
            resp = self._request('PUT', path, {
                'allocations': {rp: {'resources': resources}
                                for rp, resources in allocations.items()},
                'project_id': project_id, 'user_id': user_id,
                'consumer_generation': generation})
            if resp.status_code == 204:
                return True
            if (resp.status_code != 409 or
                    _error_code(resp) != codes.CONCURRENT_UPDATE):
                raise self._failed('PUT', path, resp)
            LOG.debug('Allocations of %s changed meanwhile; reading them '
                      'again', consumer_uuid)
        raise exception.PlacementRequestFailed(
            method='PUT', path=path, status=409,
            detail='the allocations kept changing in %d attempts' % RETRIES)

    def delete_allocations(self, consumer_uuid):
        """Delete the consumer's allocations; none is fine.

        :returns: whether there were any.
        """
        path = '/allocations/%s' % consumer_uuid
        resp = self._request('DELETE', path)
        if resp.status_code == 404:
            return False
        if resp.status_code != 204:
            raise self._failed('DELETE', path, resp)
        return True

    def provider_usages(self, uuid):
        """{resource class: used} of a provider."""
        return dict(self._get('/resource_providers/%s/usages' %
                              uuid)['usages'])

    def provider_allocations(self, uuid):
        """{consumer uuid: {resource class: amount}} held on a provider."""
        doc = self._get('/resource_providers/%s/allocations' % uuid)
        return {consumer: alloc['resources'] for consumer, alloc in
                doc.get('allocations', {}).items()}


class GenerationConflict(Exception):
    """A write lost to another writer's provider or consumer generation."""


# The fields of an inventory and the value Placement gives one left out.
_INVENTORY_DEFAULTS = {'reserved': 0, 'min_unit': 1,
                       'max_unit': 2147483647, 'step_size': 1,
                       'allocation_ratio': 1.0}


def _same_inventories(stored, wanted):
    """Whether ``wanted`` would change nothing of ``stored``."""
    if set(stored) != set(wanted):
        return False
    for rc, fields in wanted.items():
        full = dict(_INVENTORY_DEFAULTS, **fields)
        have = stored[rc]
        for name, value in full.items():
            if have.get(name) != value:
                return False
    return True
