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

"""/resource_providers/{uuid}/aggregates (from 1.1).

Before microversion 1.19 the document is the list of aggregate uuids
in an object, and PUT takes the bare list; from 1.19 both carry the
provider's generation, which PUT checks and bumps.
"""


from zun_hostcap.api.placement import errors
from zun_hostcap.api.placement import microversion
from zun_hostcap.api.placement import util
from zun_hostcap.api.schemas.placement import aggregates as schema
from zun_hostcap.common import exception
from zun_hostcap import objects


def _document(req, provider, aggregate_uuids):
    data = {'aggregates': aggregate_uuids}
    if util.at_least(req, microversion.AGGREGATE_GENERATION):
        data['resource_provider_generation'] = provider.generation
    # Memberships have no time of their own: Last-Modified is now.
    return util.json_response(req, data)


class ProviderAggregatesController(object):

    def __init__(self, provider_uuid):
        self.provider_uuid = provider_uuid

    def get(self, req):
        """GET /resource_providers/{uuid}/aggregates."""
        util.require(req, microversion.AGGREGATES)
        util.authorize(req, 'placement:resource_providers:aggregates:list')
        provider = objects.ResourceProvider._from_values(
            req.context, uuid=self.provider_uuid)
        aggregate_uuids = provider.get_aggregates()
        return _document(req, provider, aggregate_uuids)

    @errors.answers({exception.ConcurrentUpdateDetected:
                     errors.UPDATE_CONFLICT})
    def put(self, req):
        """PUT /resource_providers/{uuid}/aggregates: the whole set."""
        util.require(req, microversion.AGGREGATES)
        util.authorize(req,
                       'placement:resource_providers:aggregates:update')
        with_generation = util.at_least(req,
                                        microversion.AGGREGATE_GENERATION)
        provider = objects.ResourceProvider.get_by_uuid(
            req.context, self.provider_uuid)
        if with_generation:
            data = util.read_json(req, schema.PUT_AGGREGATES_v1_19)
            if data['resource_provider_generation'] != provider.generation:
                raise errors.GENERATION_CONFLICT.error()
            aggregate_uuids = data['aggregates']
        else:
            aggregate_uuids = util.read_json(req, schema.PUT_AGGREGATES_v1_1)
        # An aggregate named in upper case is the one in lower case, named
        # twice once in the form it is stored in.
        aggregate_uuids = list(dict.fromkeys(
            util.canonical_uuid(agg) for agg in aggregate_uuids))
        provider.set_aggregates(aggregate_uuids,
                                increment_generation=with_generation)
        return _document(req, provider, aggregate_uuids)
