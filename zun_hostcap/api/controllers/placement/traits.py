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

"""/traits, /traits/{name} and /resource_providers/{uuid}/traits (1.6).

As Placement:

- GET /traits[?name=in:A,B|startswith:X][&associated=true|false]:
  {"traits": [names]}.
- PUT /traits/{name}: a custom trait; 201 if created now, 204 if it
  existed, Location both times.
- GET /traits/{name}: 204 if it exists. DELETE: 204; 400 for a standard
  trait, 409 while a provider has it.
- GET /resource_providers/{uuid}/traits: {"traits": [...],
  "resource_provider_generation": N}.
- PUT .../traits {"traits": [...], "resource_provider_generation": N}:
  exactly these traits; the generation is checked (409
  placement.concurrent_update) and bumped; unknown traits are a 400.
- DELETE .../traits: no traits; the generation is bumped.

Standard traits have no timestamps: a document that shows one has
Last-Modified (1.15) now.
"""

import datetime
import re

from oslo_utils import timeutils

from zun_hostcap.api.placement import errors
from zun_hostcap.api.placement import microversion
from zun_hostcap.api.placement import util
from zun_hostcap.api.schemas.placement import traits as schema
from zun_hostcap.common import exception
from zun_hostcap.objects import trait as trait_obj

POLICY = 'placement:traits:%s'
PROVIDER_POLICY = 'placement:resource_providers:traits:%s'

_CUSTOM = re.compile(schema.CUSTOM_PATTERN.rstrip('$'))

_INVALID_TRAIT = ('The trait is invalid. A valid trait must be no longer '
                  'than 255 characters, start with the prefix "CUSTOM_" '
                  'and use following characters: "A"-"Z", "0"-"9" and '
                  '"_"')
_BAD_NAME_FILTER = ('Badly formatted name parameter. Expected name query '
                    'string parameter in form: '
                    '?name=[in|startswith]:[name1,name2|prefix]. Got: "%s"')


def _require_route(req):
    util.require(req, microversion.TRAITS)


def _url(req, name):
    return util.url(req, '/traits/%s' % name)


def _modified(trait):
    return trait.updated_at or trait.created_at


def _newest(traits):
    """Placement's Last-Modified of a list: now if any is standard."""
    times = [_modified(trait) for trait in traits]
    if not times or None in times:
        return None
    return max(times)


def _names(traits):
    return [trait.name for trait in traits]


def _query(req):
    """{key: its last value}, as Placement reads the query of GET /traits.

    (A repeated key is not an error there: the last value counts.)
    """
    try:
        params = dict(req.GET.items())
    except UnicodeDecodeError:
        raise errors.error(400, 'Invalid query string parameters: the '
                                'query string is not valid UTF-8.')
    problem = util.schema_problem(schema.LIST_TRAITS_QUERY_v1_6, params)
    if problem is not None:
        raise errors.error(400, 'Invalid query string parameters: %s'
                                % problem.message)
    return params


def _list_filters(req):
    params = _query(req)
    filters = {}
    if 'name' in params:
        op, sep, value = params['name'].partition(':')
        if not sep:
            raise errors.error(400, _BAD_NAME_FILTER % params['name'])
        if op == 'in':
            filters['name_in'] = value.split(',')
        elif op == 'startswith':
            filters['prefix'] = value
        # As Placement: another operator filters nothing.
    if 'associated' in params:
        value = params['associated'].lower()
        if value not in ('true', 'false'):
            raise errors.error(400, 'The query parameter "associated" only '
                                    'accepts "true" or "false"')
        filters['associated'] = value == 'true'
    return filters


class TraitController(object):
    """/traits/{name}."""

    def __init__(self, name):
        self.name = name

    def get(self, req):
        _require_route(req)
        util.authorize(req, POLICY % 'show')
        # An unknown trait is the exception's own 404.
        trait = trait_obj.Trait.get_by_name(req.context, self.name)
        resp = util.no_content(req)
        _cache_headers(req, resp, _modified(trait))
        return resp

    def put(self, req):
        _require_route(req)
        util.authorize(req, POLICY % 'update')
        if (len(self.name) > schema.MAX_LENGTH
                or not _CUSTOM.fullmatch(self.name)):
            raise errors.error(400, _INVALID_TRAIT)
        trait, created = trait_obj.Trait.ensure(req.context, self.name)
        resp = util.no_content(req, [('Location', _url(req, self.name))])
        if created:
            resp.status = 201
        _cache_headers(req, resp, trait.created_at)
        return resp

    def delete(self, req):
        _require_route(req)
        util.authorize(req, POLICY % 'delete')
        # Unknown, standard or in use: the exception's own 404, 400, 409.
        trait_obj.Trait._from_values(req.context, name=self.name).destroy()
        return util.no_content(req)


def _cache_headers(req, resp, last_modified):
    """Cache-Control and Last-Modified from 1.15 (now if None)."""
    if util.at_least(req, microversion.LAST_MODIFIED):
        resp.cache_control = 'no-cache'
        when = last_modified or timeutils.utcnow()
        resp.last_modified = when.replace(tzinfo=datetime.timezone.utc)


class TraitsController(object):
    """/traits."""

    def get(self, req):
        _require_route(req)
        util.authorize(req, POLICY % 'list')
        filters = _list_filters(req)
        traits = trait_obj.TraitList.get_all(req.context, **filters)
        return util.json_response(req, {'traits': _names(traits)},
                                  last_modified=_newest(traits))


class ProviderTraitsController(object):
    """/resource_providers/{uuid}/traits."""

    def __init__(self, provider_uuid):
        self.provider_uuid = provider_uuid

    def _document(self, req, generation, traits):
        return util.json_response(
            req, {'traits': _names(traits),
                  'resource_provider_generation': generation},
            last_modified=_newest(traits))

    @errors.answers({exception.ResourceProviderNotFound: errors.Fault(
        404, 'No resource provider with uuid {provider_uuid} found: No '
             'resource provider with uuid {provider_uuid} found')})
    def get(self, req):
        _require_route(req)
        util.authorize(req, PROVIDER_POLICY % 'list')
        generation, traits = trait_obj.TraitList.get_by_provider(
            req.context, self.provider_uuid)
        return self._document(req, generation, traits)

    @errors.answers({
        exception.ResourceProviderNotFound: errors.PROVIDER_NOT_FOUND,
        exception.ResourceProviderConcurrentUpdate:
            errors.GENERATION_CONFLICT,
        exception.TraitNotFound: errors.Fault(400, 'No such trait {names}'),
    })
    def put(self, req):
        _require_route(req)
        util.authorize(req, PROVIDER_POLICY % 'update')
        data = util.read_json(req, schema.PUT_PROVIDER_TRAITS_v1_6)
        generation, traits = trait_obj.TraitList.set_for_provider(
            req.context, self.provider_uuid, data['traits'],
            data['resource_provider_generation'])
        return self._document(req, generation, traits)

    # A generation conflict is the exception's own 409.
    @errors.answers({
        exception.ResourceProviderNotFound: errors.PROVIDER_NOT_FOUND})
    def delete(self, req):
        _require_route(req)
        util.authorize(req, PROVIDER_POLICY % 'delete')
        trait_obj.TraitList.set_for_provider(req.context,
                                             self.provider_uuid, [])
        return util.no_content(req)
