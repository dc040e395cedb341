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

"""/allocations, /allocations/{consumer_uuid} and provider allocations.

PUT /allocations/{consumer_uuid} replaces a consumer's allocations; POST
/allocations (from 1.13) those of several consumers, in one
transaction. The body's form follows the microversion (see the schema
module); it is made one form here: {consumer uuid: {'allocations':
{provider uuid: {class: amount}}, 'project_id', 'user_id',
'consumer_generation', 'consumer_type'}}.
"""

import collections
import uuid as uuid_lib

from oslo_utils import uuidutils

from zun_hostcap.api.placement import errors
from zun_hostcap.api.placement import microversion
from zun_hostcap.api.placement import util
from zun_hostcap.api.schemas.placement import allocations as schema
from zun_hostcap.common import exception
from zun_hostcap import objects
from zun_hostcap.objects import consumer as consumer_obj


def read_body(req, schemas):
    """The JSON body, valid for the newest schema the version allows.

    Refusals read as Placement's: "JSON does not validate: <what>".
    """
    data = util.read_json(req)
    for minimum, candidate in schemas:
        if util.at_least(req, minimum):
            break
    problem = util.schema_problem(candidate, data)
    if problem is not None:
        raise errors.error(400, 'JSON does not validate: %s' % problem)
    return data


def _last_modified(allocations):
    times = [a.updated_at or a.created_at for a in allocations]
    return util.newest(*times)


def canonical_keys(mapping, what):
    """``mapping`` keyed by uuids in their stored form.

    :raises webob.exc.HTTPBadRequest: two keys are the same uuid.
    """
    result = {}
    for key, value in mapping.items():
        canonical = util.canonical_uuid(key)
        if canonical in result:
            raise errors.error(400, 'JSON does not validate: the %s %s is '
                                    'given twice.' % (what, canonical))
        result[canonical] = value
    return result


def consumer_request(req, data):
    """One consumer's part of a body (1.12 form), as replace_all takes it.

    Amounts are integers: JSON's 1.0 and 1E2, which the schema takes as
    integers (as Placement's does), are 1 and 100.
    """
    allocations = {
        rp_uuid: {rc: int(amount)
                  for rc, amount in entry['resources'].items()}
        for rp_uuid, entry in canonical_keys(
            data['allocations'], 'resource provider').items()}
    project_id = data.get('project_id')
    user_id = data.get('user_id')
    if project_id is None:
        project_id = user_id = consumer_obj.INCOMPLETE_ID
    return {'allocations': allocations,
            'project_id': project_id,
            'user_id': user_id,
            'consumer_generation': data.get('consumer_generation'),
            'consumer_type': data.get('consumer_type')}


def _write(req, requests, class_error):
    """Write the allocations of ``requests``.

    An unknown class is a 400 whose detail starts with ``class_error``
    (worded as Placement's for PUT and POST).
    """
    try:
        objects.Allocation.replace_all(
            req.context, requests,
            check_generation=util.at_least(
                req, microversion.CONSUMER_GENERATION))
    except exception.ResourceClassNotFound as exc:
        raise errors.error(400, class_error + exc.message)


class ConsumerAllocationsController(object):
    """/allocations/{consumer_uuid}."""

    def __init__(self, consumer_uuid):
        self.consumer_uuid = consumer_uuid

    def get(self, req):
        """The consumer's allocations, keyed by provider.

        A consumer without allocations (or unknown) has {} and nothing
        else, at every version.
        """
        util.authorize(req, 'placement:allocations:list')
        allocations = objects.Allocation.get_all_by_consumer_id(
            req.context, self.consumer_uuid)
        by_provider = {}
        for alloc in allocations:
            entry = by_provider.setdefault(
                alloc.resource_provider_uuid,
                {'generation': alloc.resource_provider_generation,
                 'resources': {}})
            entry['resources'][alloc.resource_class] = alloc.used
        data = {'allocations': by_provider}
        if allocations and util.at_least(req, microversion.ALLOCATIONS_DICT):
            first = allocations[0]
            data['project_id'] = first.project_id
            data['user_id'] = first.user_id
            if util.at_least(req, microversion.CONSUMER_GENERATION):
                data['consumer_generation'] = first.consumer_generation
            if util.at_least(req, microversion.CONSUMER_TYPE):
                data['consumer_type'] = (first.consumer_type or
                                         consumer_obj.UNKNOWN_TYPE)
        return util.json_response(req, data,
                                  last_modified=_last_modified(allocations))

    def put(self, req):
        """Replace the consumer's allocations (204)."""
        util.authorize(req, 'placement:allocations:update')
        if not uuidutils.is_uuid_like(self.consumer_uuid):
            raise errors.error(400, 'Malformed consumer_uuid: %s'
                               % self.consumer_uuid)
        consumer_uuid = str(uuid_lib.UUID(self.consumer_uuid))
        data = read_body(req, schema.PUT_SCHEMAS)
        if not util.at_least(req, microversion.ALLOCATIONS_DICT):
            by_provider = {}
            for entry in data['allocations']:
                rp_uuid = util.canonical_uuid(
                    entry['resource_provider']['uuid'])
                if rp_uuid in by_provider:
                    raise errors.error(
                        400, 'JSON does not validate: the resource '
                             'provider %s is given twice.' % rp_uuid)
                by_provider[rp_uuid] = {'resources': entry['resources']}
            data['allocations'] = by_provider
        _write(req, {consumer_uuid: consumer_request(req, data)},
               'Unable to allocate inventory for consumer %s: '
               % consumer_uuid)
        return util.no_content(req)

    def delete(self, req):
        """Delete the consumer's allocations (204; 404 when none)."""
        util.authorize(req, 'placement:allocations:delete')
        objects.Allocation.delete_all_by_consumer_id(req.context,
                                                     self.consumer_uuid)
        return util.no_content(req)


class AllocationsController(object):
    """/allocations: POST only (from 1.13)."""

    def post(self, req):
        """Replace the allocations of several consumers at once (204)."""
        util.require(req, microversion.POST_ALLOCATIONS)
        util.authorize(req, 'placement:allocations:manage')
        data = read_body(req, schema.POST_SCHEMAS)
        requests = {consumer_uuid: consumer_request(req, entry)
                    for consumer_uuid, entry in canonical_keys(
                        data, 'consumer').items()}
        _write(req, requests, 'Unable to allocate inventory ')
        return util.no_content(req)


class ProviderAllocationsController(object):
    """/resource_providers/{uuid}/allocations."""

    def __init__(self, provider_uuid):
        self.provider_uuid = provider_uuid

    @errors.answers({exception.ResourceProviderNotFound: errors.Fault(
        404, "Resource provider '{provider_uuid}' not found: {message}")})
    def get(self, req):
        """The provider's allocations, keyed by consumer."""
        util.authorize(req, 'placement:resource_providers:allocations:list')
        generation, allocations = (
            objects.Allocation.get_all_by_resource_provider_uuid(
                req.context, self.provider_uuid))
        with_generation = util.at_least(req, microversion.CONSUMER_GENERATION)
        by_consumer = collections.OrderedDict()
        for alloc in allocations:
            entry = by_consumer.get(alloc.consumer_uuid)
            if entry is None:
                entry = by_consumer[alloc.consumer_uuid] = {'resources': {}}
                if with_generation:
                    entry['consumer_generation'] = alloc.consumer_generation
            entry['resources'][alloc.resource_class] = alloc.used
        data = {'allocations': by_consumer,
                'resource_provider_generation': generation}
        return util.json_response(req, data,
                                  last_modified=_last_modified(allocations))
