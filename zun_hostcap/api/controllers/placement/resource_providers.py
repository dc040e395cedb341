"""/resource_providers and /resource_providers/{uuid}.

A provider's sub-resources live in their own modules (inventories,
aggregates, traits, allocations, usages).
"""

import uuid as uuidlib

from oslo_utils import uuidutils

from zun_hostcap.api.placement import errors
from zun_hostcap.api.placement import microversion
from zun_hostcap.api.placement import util
from zun_hostcap.api.schemas.placement import resource_providers as schema
from zun_hostcap.common import exception
from zun_hostcap import objects

_RESOURCES_FORM = ('Badly formed resources parameter. Expected resources '
                   'query string parameter in form: '
                   '?resources=VCPU:2,MEMORY_MB:1024. Got: %s.')


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
    are read from the object's storage (``_obj_<name>``, as
    ``_from_values`` fills it) rather than through the versioned
    object's property getters, several times slower for 1,000 providers.
    """
    links = link_forms(req)
    nested = util.at_least(req, microversion.NESTED_PROVIDERS)

    def serialize(provider):
        fields = provider.__dict__
        uuid = fields['_obj_uuid']
        data = {
            'uuid': uuid,
            'name': fields['_obj_name'],
            'generation': fields['_obj_generation'],
            'links': [{'rel': rel, 'href': head + uuid + tail}
                      for rel, head, tail in links],
        }
        if nested:
            data['parent_provider_uuid'] = fields.get(
                '_obj_parent_provider_uuid')
            data['root_provider_uuid'] = fields['_obj_root_provider_uuid']
        return data
    return serialize


def serialize(req, provider):
    """A provider's document at the request's version."""
    return serializer(req)(provider)


def _last_values(req):
    """{key: the last value given}, as Placement reads its query."""
    try:
        return dict(req.GET.items())
    except UnicodeDecodeError:
        raise errors.error(400, 'Invalid query string parameters: the '
                                'query string is not valid UTF-8.')


def _check_query(params, query_schema):
    """400 unless ``params`` fit; uuids need their dashes, as Placement's."""
    problem = util.schema_problem(query_schema, params)
    if problem is not None:
        raise errors.error(400, 'Invalid query string parameters: %s'
                                % problem)


def parse_resources(value):
    """'VCPU:2,DISK_GB:10' as {'VCPU': 2, 'DISK_GB': 10}."""
    if value.strip() == '':
        raise errors.error(400, _RESOURCES_FORM % 'empty string')
    result = {}
    for item in value.split(','):
        try:
            name, amount = item.split(':')
        except ValueError:
            raise errors.error(400, _RESOURCES_FORM % item)
        try:
            amount = int(amount)
        except ValueError:
            raise errors.error(
                400, 'Requested resource %s expected positive integer '
                     'amount. Got: %s.' % (name, amount))
        if amount < 1:
            raise errors.error(
                400, 'Requested resource %s requires amount >= 1. Got: '
                     '%d.' % (name, amount))
        result[name] = amount
    return result


def _parse_member_of(value):
    """One member_of value: (any-of set, forbidden set)."""
    if ',' in value and not value.startswith(('in:', '!in:')):
        raise errors.error(
            400, "Multiple values for 'member_of' must be prefixed with "
                 "the 'in:' or '!in:' keyword using the valid "
                 "microversion. Got: %s" % value)
    required = forbidden = set()
    if value.startswith('!in:'):
        forbidden = set(value[4:].split(','))
    elif value.startswith('!'):
        forbidden = {value[1:]}
    elif value.startswith('in:'):
        required = set(value[3:].split(','))
    else:
        required = {value}
    for agg in sorted(required | forbidden):
        if not uuidutils.is_uuid_like(agg):
            raise errors.error(
                400, "Invalid query string parameters: Expected "
                     "'member_of' parameter to contain valid UUID(s). "
                     "Got: %s" % agg)
    return required, forbidden


def parse_member_of(req, values):
    """All member_of values: ([any-of set, ...], forbidden set)."""
    if len(values) > 1 and not util.at_least(
            req, microversion.MULTIPLE_MEMBER_OF):
        raise errors.error(400, 'Multiple member_of parameters are not '
                                'supported')
    required, forbidden = [], set()
    for value in values:
        any_of, none_of = _parse_member_of(value)
        if any_of:
            required.append(any_of)
        if none_of:
            if not util.at_least(req, microversion.FORBIDDEN_AGGREGATES):
                raise errors.error(
                    400, 'Forbidden member_of parameters are not '
                         'supported in the specified microversion')
            forbidden |= none_of
    return required, forbidden


def _parse_required(req, value):
    """One required value: ([any-of set, ...], forbidden set)."""
    allow_forbidden = util.at_least(req, microversion.FORBIDDEN_TRAITS)
    if value.startswith('in:'):
        if not util.at_least(req, microversion.ANY_TRAITS):
            raise errors.error(
                400, "Invalid query string parameters: The format "
                     "'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' only supported "
                     "since microversion 1.39. Got: %s" % value)
        any_of = {name.strip() for name in value[3:].split(',')}
        if not all(any_of):
            raise errors.error(
                400, "Invalid query string parameters: Expected "
                     "'required' parameter value of the form: "
                     "in:HW_CPU_X86_VMX,CUSTOM_MAGIC. Got an empty trait "
                     "in: %s" % value)
        if any(name.startswith('!') for name in any_of):
            raise errors.error(
                400, "Invalid query string parameters: The format "
                     "'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' does not support "
                     "forbidden traits. Got: %s" % value)
        return [any_of], set()
    names = [name.strip() for name in value.split(',')]
    forbidden = {name.lstrip('!') for name in names if name.startswith('!')}
    if not all(names) or not all(forbidden):
        form = ('HW_CPU_X86_VMX,!CUSTOM_MAGIC' if allow_forbidden
                else 'HW_CPU_X86_VMX,CUSTOM_MAGIC')
        raise errors.error(
            400, "Invalid query string parameters: Expected 'required' "
                 "parameter value of the form: %s. Got an empty trait in: "
                 "%s" % (form, value))
    if forbidden and not allow_forbidden:
        raise errors.error(
            400, "Invalid query string parameters: Expected 'required' "
                 "parameter value of the form: HW_CPU_X86_VMX,"
                 "CUSTOM_MAGIC. Got: %s" % value)
    return [{name} for name in names if not name.startswith('!')], forbidden


def parse_required(req, values):
    """All required values: ([any-of set, ...], forbidden set).

    Before 1.39 only the last of repeated values counts, as in
    Placement; from 1.39 they are ANDed.
    """
    if not util.at_least(req, microversion.ANY_TRAITS):
        values = values[-1:]
    required, forbidden = [], set()
    for value in values:
        any_of, none_of = _parse_required(req, value)
        required += any_of
        forbidden |= none_of
    return required, forbidden


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

    def put(self, req):
        """PUT /resource_providers/{uuid}: name and parent."""
        util.authorize(req, 'placement:resource_providers:update')
        util.require_json_content(req)
        provider = objects.ResourceProvider.get_by_uuid(req.context,
                                                        self.uuid)
        data = _read_body(req, post=False)
        provider.name = data['name']
        if 'parent_provider_uuid' in data:
            provider.parent_provider_uuid = data['parent_provider_uuid']
        try:
            provider.save(allow_reparenting=util.at_least(
                req, microversion.REPARENT))
        except exception.ResourceProviderExists:
            raise errors.error(409, 'Conflicting resource provider %s '
                                    'already exists.' % data['name'],
                               errors.DUPLICATE_NAME)
        except exception.ResourceProviderActionError as exc:
            raise errors.error(400, 'Unable to save resource provider %s: '
                                    '%s' % (self.uuid, exc))
        return util.json_response(req, serialize(req, provider),
                                  last_modified=last_modified(provider))

    def delete(self, req):
        """DELETE /resource_providers/{uuid}."""
        util.authorize(req, 'placement:resource_providers:delete')
        try:
            objects.ResourceProvider._from_values(
                req.context, uuid=self.uuid).destroy()
        except exception.ResourceProviderNotFound:
            raise errors.error(404, 'No resource provider with uuid %s '
                                    'found for delete' % self.uuid,
                               errors.PROVIDER_NOT_FOUND)
        return util.no_content(req)


class ResourceProvidersController(object):
    """/resource_providers."""

    def get(self, req):
        """GET /resource_providers, with the filters of the version."""
        util.authorize(req, 'placement:resource_providers:list')
        params = _last_values(req)
        _check_query(params, schema.get_resource_providers(
            util.version(req)))
        filters = {}
        if 'member_of' in params:
            filters['member_of'], filters['forbidden_aggs'] = (
                parse_member_of(req, req.GET.getall('member_of')))
        if 'required' in params:
            filters['required_traits'], filters['forbidden_traits'] = (
                parse_required(req, req.GET.getall('required')))
        for key in ('uuid', 'name', 'in_tree'):
            if key in params:
                filters[key] = params[key]
        if 'resources' in params:
            filters['resources'] = parse_resources(params['resources'])
        try:
            documents, newest = (
                objects.ResourceProviderList.get_listing_document(
                    req.context, filters, link_forms(req),
                    util.at_least(req, microversion.NESTED_PROVIDERS)))
        except exception.ResourceClassNotFound as exc:
            raise errors.error(400, 'Invalid resource class in resources '
                                    'parameter: %s' % exc)
        except exception.TraitNotFound as exc:
            raise errors.error(400, 'Invalid trait(s) in "required" '
                                    'parameter: %s' % exc)
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
            parent_provider_uuid=data.get('parent_provider_uuid'))
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
