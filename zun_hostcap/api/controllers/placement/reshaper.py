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

"""/reshaper: POST only, from 1.30.

Replaces the inventories of several providers and the allocations of
several consumers in one transaction (``objects.reshaper``), as a
compute does when it moves a class of its inventory from its root
provider to new children (or back) while instances hold it. 204 when
done; nothing is changed when any part is refused. The statuses, error
codes and details are Placement's:

- 400: the body; a provider of the inventories or of the allocations
  that does not exist (placement.resource_provider.not_found for the
  former); an unknown resource class ("malformed reshaper data");
- 409: a provider or consumer generation that is not the current one
  (placement.concurrent_update); a class removed while it still has
  allocations (placement.inventory.inuse); allocations that do not fit
  ("Unable to allocate inventory").

Placement does not check the capacity of the inventories it is given
here; a reserved amount above the total is refused (400), as by PUT
.../inventories.
"""

from zun_hostcap.api.controllers.placement import allocations
from zun_hostcap.api.controllers.placement import inventories
from zun_hostcap.api.placement import errors
from zun_hostcap.api.placement import microversion
from zun_hostcap.api.placement import util
from zun_hostcap.api.schemas.placement import reshaper as schema
from zun_hostcap.common import exception
from zun_hostcap.common import placement_codes as codes
from zun_hostcap.objects import reshaper

POLICY = 'placement:reshaper:reshape'

_FAULTS = {
    exception.ResourceProviderNotFound: errors.Fault(
        400, 'Resource provider {uuid} in inventories not found: '
             '{message}', codes.PROVIDER_NOT_FOUND),
    exception.ResourceClassNotFound: errors.Fault(
        400, 'malformed reshaper data: {message}'),
    exception.InvalidInventory: inventories.UPDATE_FAILED,
    exception.InventoryInUse: errors.Fault(409, inventories.UPDATE_CONFLICT,
                                           codes.INVENTORY_INUSE),
    (exception.ProviderGenerationConflict,
     exception.ConsumerConcurrentUpdate): errors.Fault(
        409, code=codes.CONCURRENT_UPDATE),
    exception.ConcurrentUpdateDetected: errors.Fault(
        409, inventories.UPDATE_CONFLICT, codes.CONCURRENT_UPDATE),
}


def _read_body(req):
    """The valid body, by the schema of the request's version."""
    for minimum, body_schema in schema.POST_SCHEMAS:
        if util.at_least(req, minimum):
            break
    data = util.read_json(req, body_schema)
    for provider in data['inventories'].values():
        if not all(inventories.finite_ratio(values)
                   for values in provider['inventories'].values()):
            raise errors.error(400, 'JSON does not validate: '
                                    'allocation_ratio must be a finite '
                                    'number.')
    return data


class ReshaperController(object):
    """/reshaper."""

    @errors.answers(_FAULTS)
    def post(self, req):
        """Reshape inventories and allocations (204)."""
        util.require(req, microversion.RESHAPER)
        util.require_json_content(req)
        util.authorize(req, POLICY)
        data = _read_body(req)
        given = {uuid: {'generation': body['resource_provider_generation'],
                        'inventories': body['inventories']}
                 for uuid, body in allocations.canonical_keys(
                     data['inventories'], 'resource provider').items()}
        requests = {consumer_uuid: allocations.consumer_request(req, entry)
                    for consumer_uuid, entry in allocations.canonical_keys(
                        data['allocations'], 'consumer').items()}
        reshaper.reshape(req.context, given, requests)
        return util.no_content(req)
