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

"""/resource_providers and /resource_providers/{uuid}.

A provider's sub-resources live in their own modules (inventories,
aggregates, traits, allocations, usages).
"""

import uuid as uuidlib

from oslo_utils import uuidutils

from zun_hostcap.api.placement import errors
from zun_hostcap.api.placement import filters as query
from zun_hostcap.api.placement import microversion
from zun_hostcap.api.placement import util
from zun_hostcap.api.schemas.placement import resource_providers as schema
from zun_hostcap.common import exception
from zun_hostcap.common import placement_codes as codes
from zun_hostcap import objects
from zun_hostcap.objects import base as objects_base


def last_modified(provider):
    return provider.updated_at or provider.created_at


def link_forms(req):
    """(rel, head, tail) of each link a provider's document shows.

    At the request's version; the href is head + the provider's uuid +
    tail.
    """
    marker = '\x00'
    return tuple((link['rel'],) + tuple(link['href'].split(marker, 1))
                 for link in util.provider_links(req, marker))


def serializer(req):
    """A function making a provider's document at the request's version.

    What depends on the request (the links' prefix, the version) is
    worked out once, not once per provider of a long list; the fields
    are read from the object's storage (``objects.base.stored``, as
    ``_from_values`` fills it) rather than through the versioned
    object's property getters, several times slower for 1,000 providers.
    """
    links = link_forms(req)
    nested = util.at_least(req, microversion.NESTED_PROVIDERS)
    stored = objects_base.stored

    def serialize(provider):
        uuid = stored(provider, 'uuid')
        data = {
            'uuid': uuid,
            'name': stored(provider, 'name'),
            'generation': stored(provider, 'generation'),
            'links': [{'rel': rel, 'href': head + uuid + tail}
                      for rel, head, tail in links],
        }
        if nested:
            data['parent_provider_uuid'] = stored(provider,
                                                  'parent_provider_uuid')
            data['root_provider_uuid'] = stored(provider,
                                                'root_provider_uuid')
        return data
    return serialize


def serialize(req, provider):
    """A provider's document at the request's version."""
    return serializer(req)(provider)


def _read_body(req, post):
    nested = util.at_least(req, microversion.NESTED_PROVIDERS)
    if post:
        body_schema = (schema.POST_RESOURCE_PROVIDER_v1_14 if nested
                       else schema.POST_RESOURCE_PROVIDER)
    else:
        body_schema = (schema.PUT_RESOURCE_PROVIDER_v1_14 if nested
                       else schema.PUT_RESOURCE_PROVIDER)
    return util.read_json(req, body_schema)


class ProviderController(object):
    """/resource_providers/{uuid} and what is under it."""

    def __init__(self, uuid):
        self.uuid = uuid

    def get(self, req):
        """GET /resource_providers/{uuid}."""
        util.authorize(req, 'placement:resource_providers:show')
        provider = objects.ResourceProvider.get_by_uuid(req.context,
                                                        self.uuid)
        return util.json_response(req, serialize(req, provider),
                                  last_modified=last_modified(provider))

    @errors.answers({
        exception.ResourceProviderExists: errors.Fault(
            409, 'Conflicting resource provider {value} already exists.',
            codes.DUPLICATE_NAME),
        exception.ResourceProviderActionError: errors.Fault(
            400, 'Unable to save resource provider {uuid}: {message}'),
    })
    def put(self, req):
        """PUT /resource_providers/{uuid}: name and parent."""
        util.authorize(req, 'placement:resource_providers:update')
        util.require_json_content(req)
        provider = objects.ResourceProvider.get_by_uuid(req.context,
                                                        self.uuid)
        data = _read_body(req, post=False)
        provider.name = data['name']
        if 'parent_provider_uuid' in data:
            provider.parent_provider_uuid = util.canonical_uuid(
                data['parent_provider_uuid'])
        provider.save(allow_reparenting=util.at_least(
            req, microversion.REPARENT))
        return util.json_response(req, serialize(req, provider),
                                  last_modified=last_modified(provider))

    @errors.answers({exception.ResourceProviderNotFound: errors.Fault(
        404, 'No resource provider with uuid {uuid} found for delete',
        codes.PROVIDER_NOT_FOUND)})
    def delete(self, req):
        """DELETE /resource_providers/{uuid}."""
        util.authorize(req, 'placement:resource_providers:delete')
        objects.ResourceProvider._from_values(req.context,
                                              uuid=self.uuid).destroy()
        return util.no_content(req)


class ResourceProvidersController(object):
    """/resource_providers."""

    @errors.answers({
        exception.ResourceClassNotFound: errors.INVALID_RESOURCE_CLASS,
        exception.TraitNotFound: errors.Fault(
            400, 'Invalid trait(s) in "required" parameter: {message}'),
    })
    def get(self, req):
        """GET /resource_providers, with the filters of the version."""
        util.authorize(req, 'placement:resource_providers:list')
        params = util.last_values(req)
        util.check_query(params, schema.get_resource_providers(
            util.version(req)))
        filters = {}
        if 'member_of' in params:
            filters['member_of'], filters['forbidden_aggs'] = (
                query.parse_member_of(req, req.GET.getall('member_of')))
        if 'required' in params:
            filters['required_traits'], filters['forbidden_traits'] = (
                query.parse_required(req, req.GET.getall('required')))
        for key in ('uuid', 'name', 'in_tree'):
            if key in params:
                filters[key] = params[key]
        for key in ('uuid', 'in_tree'):
            if key in filters:
                filters[key] = util.canonical_uuid(filters[key])
        if 'resources' in params:
            filters['resources'] = query.parse_resources(params['resources'])
        documents, newest = (
            objects.ResourceProviderList.get_listing_document(
                req.context, filters, link_forms(req),
                util.at_least(req, microversion.NESTED_PROVIDERS)))
        resp = util.json_response(req, {}, last_modified=newest)
        resp.body = ('{"resource_providers": [%s]}' % documents).encode(
            'utf-8')
        return resp

    def post(self, req):
        """POST /resource_providers: 201 before 1.20, 200 from it."""
        util.authorize(req, 'placement:resource_providers:create')
        data = _read_body(req, post=True)
        uuid = (str(uuidlib.UUID(data['uuid'])) if data.get('uuid')
                else uuidutils.generate_uuid())
        provider = objects.ResourceProvider(
            req.context, uuid=uuid, name=data['name'],
            parent_provider_uuid=util.canonical_uuid(
                data.get('parent_provider_uuid')))
        try:
            provider.create()
        except exception.ResourceProviderActionError as exc:
            raise errors.error(400, 'Unable to create resource provider '
                                    '"%s", %s: %s' % (data['name'], uuid,
                                                      exc))
        location = util.url(req, '/resource_providers/%s' % provider.uuid)
        if not util.at_least(req, microversion.PROVIDER_CREATE_RETURNS_BODY):
            return util.created(req, location)
        return util.json_response(req, serialize(req, provider),
                                  last_modified=last_modified(provider),
                                  headers=[('Location', location)])
