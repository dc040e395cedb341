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

"""/resource_providers/{uuid}/inventories[/{resource_class}].

The routes, bodies, statuses, error details and codes of Placement's:

- GET    .../inventories: {"inventories": {class: {...}},
  "resource_provider_generation": N}
- POST   .../inventories: one class; 201 with Location and the inventory.
- PUT    .../inventories: all of them; classes left out are removed.
- DELETE .../inventories: all of them (1.5; 405 before).
- GET, PUT, DELETE .../inventories/{resource_class}: one class.

Writes check and bump the provider's generation. Reserved may equal
total (no capacity left) from 1.26. Allocations above a new capacity are
allowed, and logged. Policy is checked first, then the provider must
exist (404), then the body (400), as in Placement.
"""

import math

import webob.exc

from zun_hostcap.api.placement import errors
from zun_hostcap.api.placement import microversion
from zun_hostcap.api.placement import util
from zun_hostcap.api.schemas.placement import inventories as schema
from zun_hostcap.common import exception
from zun_hostcap.common import placement_codes as codes
from zun_hostcap.objects import inventory as inv_obj
from zun_hostcap.objects import resource_provider as rp_obj

POLICY = 'placement:resource_providers:inventories:%s'
OUTPUT_FIELDS = ('total', 'reserved', 'min_unit', 'max_unit', 'step_size',
                 'allocation_ratio')

# How each handler answers the model's exceptions: Placement's words,
# which differ from route to route.
_NOT_FOUND_TWICE = errors.Fault(
    404, 'No resource provider with uuid {provider_uuid} found : No '
         'resource provider with uuid {provider_uuid} found')
_GENERATION_CONFLICT = errors.Fault(
    409, 'resource provider generation conflict', codes.CONCURRENT_UPDATE)
UPDATE_FAILED = errors.Fault(
    400, 'Unable to update inventory for resource provider {uuid}: '
         '{message}')
# (lower case, unlike errors.UPDATE_CONFLICT)
UPDATE_CONFLICT = 'update conflict: {message}'


_LIST_FAULTS = {exception.ResourceProviderNotFound: _NOT_FOUND_TWICE}
_CREATE_FAULTS = {
    exception.ResourceProviderNotFound: errors.PROVIDER_NOT_FOUND,
    # InventoryExists too.
    exception.ConcurrentUpdateDetected: errors.UPDATE_CONFLICT,
    (exception.InvalidInventory, exception.ResourceClassNotFound):
        errors.Fault(400, 'Unable to create inventory for resource '
                          'provider {provider_uuid}: {message}'),
}
_REPLACE_FAULTS = {
    exception.ResourceProviderNotFound: errors.PROVIDER_NOT_FOUND,
    exception.ResourceProviderConcurrentUpdate: _GENERATION_CONFLICT,
    exception.ConcurrentUpdateDetected: errors.Fault(
        409, UPDATE_CONFLICT, codes.CONCURRENT_UPDATE),
    exception.ResourceClassNotFound: errors.Fault(
        400, 'Unknown resource class in inventory for resource provider '
             '{provider_uuid}: {message}'),
    exception.InventoryInUse: errors.Fault(409, UPDATE_CONFLICT,
                                           codes.INVENTORY_INUSE),
    exception.InvalidInventory: UPDATE_FAILED,
}
_DELETE_ALL_FAULTS = {
    exception.ResourceProviderNotFound: errors.PROVIDER_NOT_FOUND,
    exception.ConcurrentUpdateDetected: errors.Fault(
        409, 'Unable to delete inventory for resource provider '
             '{provider_uuid} because the inventory was updated by '
             'another process. Please retry your request.',
        codes.CONCURRENT_UPDATE),
    exception.InventoryInUse: errors.Fault(409, code=codes.INVENTORY_INUSE),
}
_SHOW_FAULTS = {
    exception.ResourceProviderNotFound: _NOT_FOUND_TWICE,
    exception.InventoryNotFound: errors.Fault(
        404, 'No inventory of class {resource_class} for {provider_uuid}'),
}
_UPDATE_FAULTS = {
    exception.ResourceProviderNotFound: errors.PROVIDER_NOT_FOUND,
    exception.ResourceProviderConcurrentUpdate: _GENERATION_CONFLICT,
    # Placement lets this one through as a plain 404.
    exception.ResourceClassNotFound: errors.Fault(404),
    exception.InventoryNotFound: errors.Fault(
        400, 'No inventory record with resource class for resource '
             'provider {provider_uuid}: No inventory of class '
             '{resource_class} found.'),
    exception.InvalidInventory: UPDATE_FAILED,
}
_DELETE_ONE_FAULTS = {
    exception.ResourceProviderNotFound: errors.PROVIDER_NOT_FOUND,
    exception.ConcurrentUpdateDetected: errors.Fault(
        409, 'Unable to delete inventory of class {resource_class}: '
             '{message}', codes.CONCURRENT_UPDATE),
    # Placement answers a class in use with concurrent_update here (its
    # DELETE of all of them and its PUT say inventory.inuse).
    exception.InventoryInUse: errors.Fault(
        409, 'Unable to delete inventory of class {resource_class}: '
             '{message}', codes.CONCURRENT_UPDATE),
    exception.ResourceClassNotFound: errors.Fault(
        404, 'No inventory of class {resource_class} found for delete: '
             '{message}'),
    exception.InventoryNotFound: errors.Fault(
        404, 'No inventory of class {resource_class} found for delete: '
             'No inventory of class {resource_class} found for delete'),
}


def _check_provider(req, uuid):
    """404 if the provider is missing (before a 400 of the body)."""
    try:
        rp_obj.ResourceProvider.check_exists(req.context, uuid)
    except exception.ResourceProviderNotFound as exc:
        raise errors.PROVIDER_NOT_FOUND.error(exc, {'provider_uuid': uuid})


def finite_ratio(values):
    ratio = values.get('allocation_ratio')
    return ratio is None or math.isfinite(ratio)


def _read_body(req, uuid, body_schema):
    """The valid body; a 404 for a missing provider comes before a 400."""
    try:
        body = util.read_json(req, body_schema)
        records = (body['inventories'].values() if 'inventories' in body
                   else [body])
        if not all(finite_ratio(values) for values in records):
            raise errors.error(400, 'JSON does not validate: '
                                    'allocation_ratio must be a finite '
                                    'number.')
    except webob.exc.HTTPBadRequest:
        _check_provider(req, uuid)
        raise
    return body


def _allow_zero(req):
    return util.at_least(req, microversion.RESERVED_EQUALS_TOTAL)


def _serialize(inventory, sent=None):
    """The inventory's fields; ``sent``, the request's values, echoed.

    Placement answers a write with the inventory it was sent: an
    allocation ratio written ``1`` is answered ``1``, and ``1.0`` once
    read back from the database.
    """
    data = {field: getattr(inventory, field) for field in OUTPUT_FIELDS}
    if sent and sent.get('allocation_ratio') is not None:
        data['allocation_ratio'] = sent['allocation_ratio']
    return data


def _one(inventory, sent=None):
    data = _serialize(inventory, sent)
    # As Placement: a generation of 0 is left out.
    if inventory.resource_provider_generation:
        data['resource_provider_generation'] = (
            inventory.resource_provider_generation)
    return data


def _modified(inventories):
    """Newest change of stored inventories; None if any is not stored."""
    times = [inv.updated_at or inv.created_at for inv in inventories]
    if not times or None in times:
        return None
    return max(times)


def _send_list(req, inventories, sent=None):
    sent = sent or {}
    doc = {'inventories': {inv.resource_class: _serialize(
                               inv, sent.get(inv.resource_class))
                           for inv in inventories},
           'resource_provider_generation':
               inventories.resource_provider_generation}
    resp = util.json_response(req, doc, last_modified=_modified(inventories))
    if not inventories and 'Last-Modified' in resp.headers:
        # Placement has no time to show for no inventory.
        del resp.headers['Last-Modified']
    return resp


def _url(req, uuid, resource_class):
    return util.url(req, '/resource_providers/%s/inventories/%s' % (
        uuid, resource_class))


class ProviderInventoriesController(object):
    """/resource_providers/{uuid}/inventories."""

    def __init__(self, provider_uuid):
        self.provider_uuid = provider_uuid

    @errors.answers(_LIST_FAULTS)
    def get(self, req):
        util.authorize(req, POLICY % 'list')
        inventories = inv_obj.InventoryList.get_all_by_provider_uuid(
            req.context, self.provider_uuid)
        return _send_list(req, inventories)

    @errors.answers(_CREATE_FAULTS)
    def post(self, req):
        util.authorize(req, POLICY % 'create')
        uuid = self.provider_uuid
        body = _read_body(req, uuid, schema.POST_INVENTORY)
        resource_class = body.pop('resource_class')
        body.pop('resource_provider_generation', None)
        inventory = inv_obj.Inventory(
            req.context, resource_provider_uuid=uuid,
            resource_class=resource_class, **body)
        inventory.create(allow_zero_capacity=_allow_zero(req))
        resp = util.created(req, _url(req, uuid, resource_class),
                            _one(inventory, body))
        return resp

    @errors.answers(_REPLACE_FAULTS)
    def put(self, req):
        util.authorize(req, POLICY % 'update')
        uuid = self.provider_uuid
        body = _read_body(req, uuid, schema.PUT_INVENTORIES)
        inventories = inv_obj.InventoryList.replace_all(
            req.context, uuid, body['resource_provider_generation'],
            body['inventories'], allow_zero_capacity=_allow_zero(req))
        return _send_list(req, inventories, body['inventories'])

    @errors.answers(_DELETE_ALL_FAULTS)
    def delete(self, req):
        if not util.at_least(req, microversion.DELETE_ALL_INVENTORIES):
            raise errors.error(405, 'The method DELETE is not allowed for '
                                    'this resource.')
        util.authorize(req, POLICY % 'delete')
        inv_obj.InventoryList.delete_all(req.context, self.provider_uuid)
        return util.no_content(req)


class ProviderInventoryController(object):
    """/resource_providers/{uuid}/inventories/{resource_class}."""

    def __init__(self, provider_uuid, resource_class):
        self.provider_uuid = provider_uuid
        self.resource_class = resource_class

    @errors.answers(_SHOW_FAULTS)
    def get(self, req):
        util.authorize(req, POLICY % 'show')
        inventory = inv_obj.Inventory.get_by_class(
            req.context, self.provider_uuid, self.resource_class)
        return util.json_response(
            req, _one(inventory),
            last_modified=inventory.updated_at or inventory.created_at)

    @errors.answers(_UPDATE_FAULTS)
    def put(self, req):
        util.authorize(req, POLICY % 'update')
        uuid, resource_class = self.provider_uuid, self.resource_class
        body = _read_body(req, uuid, schema.PUT_INVENTORY)
        inventory = inv_obj.Inventory(
            req.context, resource_provider_uuid=uuid,
            resource_class=resource_class, **body)
        inventory.save(allow_zero_capacity=_allow_zero(req))
        return util.json_response(req, _one(inventory, body))

    @errors.answers(_DELETE_ONE_FAULTS)
    def delete(self, req):
        util.authorize(req, POLICY % 'delete')
        inv_obj.Inventory.destroy_by_class(req.context, self.provider_uuid,
                                           self.resource_class)
        return util.no_content(req)
