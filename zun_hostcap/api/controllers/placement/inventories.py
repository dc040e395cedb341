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
from zun_hostcap.objects import inventory as inv_obj
from zun_hostcap.objects import resource_provider as rp_obj

POLICY = 'placement:resource_providers:inventories:%s'
OUTPUT_FIELDS = ('total', 'reserved', 'min_unit', 'max_unit', 'step_size',
                 'allocation_ratio')

# Placement answers a DELETE of one class that has allocations with
# this code (its DELETE of all of them and its PUT say inventory.inuse).
DELETE_ONE_IN_USE_CODE = errors.CONCURRENT_UPDATE


def _not_found(uuid):
    return errors.error(404, 'No resource provider with uuid %s found'
                        % uuid)


def _check_provider(req, uuid):
    """404 if the provider is missing (before a 400 of the body)."""
    try:
        rp_obj.ResourceProvider.check_exists(req.context, uuid)
    except exception.ResourceProviderNotFound:
        raise _not_found(uuid)


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


def _in_use(exc):
    return errors.error(409, 'update conflict: %s' % exc.message,
                        errors.INVENTORY_INUSE)


def _url(req, uuid, resource_class):
    return util.url(req, '/resource_providers/%s/inventories/%s' % (
        uuid, resource_class))


class ProviderInventoriesController(object):
    """/resource_providers/{uuid}/inventories."""

    def __init__(self, provider_uuid):
        self.provider_uuid = provider_uuid

    def get(self, req):
        util.authorize(req, POLICY % 'list')
        uuid = self.provider_uuid
        try:
            inventories = inv_obj.InventoryList.get_all_by_provider_uuid(
                req.context, uuid)
        except exception.ResourceProviderNotFound:
            raise errors.error(
                404, 'No resource provider with uuid %(uuid)s found : No '
                     'resource provider with uuid %(uuid)s found'
                     % {'uuid': uuid})
        return _send_list(req, inventories)

    def post(self, req):
        util.authorize(req, POLICY % 'create')
        uuid = self.provider_uuid
        body = _read_body(req, uuid, schema.POST_INVENTORY)
        resource_class = body.pop('resource_class')
        body.pop('resource_provider_generation', None)
        inventory = inv_obj.Inventory(
            req.context, resource_provider_uuid=uuid,
            resource_class=resource_class, **body)
        try:
            inventory.create(allow_zero_capacity=_allow_zero(req))
        except exception.ResourceProviderNotFound:
            raise _not_found(uuid)
        except exception.ConcurrentUpdateDetected as exc:
            # InventoryExists too.
            raise errors.error(409, 'Update conflict: %s' % exc.message,
                               errors.CONCURRENT_UPDATE)
        except (exception.InvalidInventory,
                exception.ResourceClassNotFound) as exc:
            raise errors.error(
                400, 'Unable to create inventory for resource provider '
                     '%s: %s' % (uuid, exc.message))
        resp = util.created(req, _url(req, uuid, resource_class),
                            _one(inventory, body))
        return resp

    def put(self, req):
        util.authorize(req, POLICY % 'update')
        uuid = self.provider_uuid
        body = _read_body(req, uuid, schema.PUT_INVENTORIES)
        try:
            inventories = inv_obj.InventoryList.replace_all(
                req.context, uuid, body['resource_provider_generation'],
                body['inventories'], allow_zero_capacity=_allow_zero(req))
        except exception.ResourceProviderNotFound:
            raise _not_found(uuid)
        except exception.ResourceProviderConcurrentUpdate:
            raise errors.error(409, 'resource provider generation conflict',
                               errors.CONCURRENT_UPDATE)
        except exception.ConcurrentUpdateDetected as exc:
            raise errors.error(409, 'update conflict: %s' % exc.message,
                               errors.CONCURRENT_UPDATE)
        except exception.ResourceClassNotFound as exc:
            raise errors.error(
                400, 'Unknown resource class in inventory for resource '
                     'provider %s: %s' % (uuid, exc.message))
        except exception.InventoryInUse as exc:
            raise _in_use(exc)
        except exception.InvalidInventory as exc:
            raise errors.error(
                400, 'Unable to update inventory for resource provider '
                     '%s: %s' % (uuid, exc.message))
        return _send_list(req, inventories, body['inventories'])

    def delete(self, req):
        if not util.at_least(req, microversion.DELETE_ALL_INVENTORIES):
            raise errors.error(405, 'The method DELETE is not allowed for '
                                    'this resource.')
        util.authorize(req, POLICY % 'delete')
        uuid = self.provider_uuid
        try:
            inv_obj.InventoryList.delete_all(req.context, uuid)
        except exception.ResourceProviderNotFound:
            raise _not_found(uuid)
        except exception.ConcurrentUpdateDetected:
            raise errors.error(
                409, 'Unable to delete inventory for resource provider %s '
                     'because the inventory was updated by another '
                     'process. Please retry your request.' % uuid,
                errors.CONCURRENT_UPDATE)
        except exception.InventoryInUse as exc:
            raise errors.error(409, exc.message, errors.INVENTORY_INUSE)
        return util.no_content(req)


class ProviderInventoryController(object):
    """/resource_providers/{uuid}/inventories/{resource_class}."""

    def __init__(self, provider_uuid, resource_class):
        self.provider_uuid = provider_uuid
        self.resource_class = resource_class

    def get(self, req):
        util.authorize(req, POLICY % 'show')
        uuid, resource_class = self.provider_uuid, self.resource_class
        try:
            inventory = inv_obj.Inventory.get_by_class(
                req.context, uuid, resource_class)
        except exception.ResourceProviderNotFound:
            raise errors.error(
                404, 'No resource provider with uuid %(uuid)s found : No '
                     'resource provider with uuid %(uuid)s found'
                     % {'uuid': uuid})
        except exception.InventoryNotFound:
            raise errors.error(404, 'No inventory of class %s for %s'
                               % (resource_class, uuid))
        return util.json_response(
            req, _one(inventory),
            last_modified=inventory.updated_at or inventory.created_at)

    def put(self, req):
        util.authorize(req, POLICY % 'update')
        uuid, resource_class = self.provider_uuid, self.resource_class
        body = _read_body(req, uuid, schema.PUT_INVENTORY)
        inventory = inv_obj.Inventory(
            req.context, resource_provider_uuid=uuid,
            resource_class=resource_class, **body)
        try:
            inventory.save(allow_zero_capacity=_allow_zero(req))
        except exception.ResourceProviderNotFound:
            raise _not_found(uuid)
        except exception.ResourceProviderConcurrentUpdate:
            raise errors.error(409, 'resource provider generation conflict',
                               errors.CONCURRENT_UPDATE)
        except exception.ResourceClassNotFound as exc:
            # Placement lets this one through as a plain 404.
            raise errors.error(404, exc.message)
        except exception.InventoryNotFound:
            raise errors.error(
                400, 'No inventory record with resource class for resource '
                     'provider %s: No inventory of class %s found.'
                     % (uuid, resource_class))
        except exception.InvalidInventory as exc:
            raise errors.error(
                400, 'Unable to update inventory for resource provider '
                     '%s: %s' % (uuid, exc.message))
        return util.json_response(req, _one(inventory, body))

    def delete(self, req):
        util.authorize(req, POLICY % 'delete')
        uuid, resource_class = self.provider_uuid, self.resource_class
        try:
            inv_obj.Inventory.destroy_by_class(req.context, uuid,
                                               resource_class)
        except exception.ResourceProviderNotFound:
            raise _not_found(uuid)
        except exception.ConcurrentUpdateDetected as exc:
            raise errors.error(
                409, 'Unable to delete inventory of class %s: %s'
                % (resource_class, exc.message), errors.CONCURRENT_UPDATE)
        except exception.InventoryInUse as exc:
            raise errors.error(
                409, 'Unable to delete inventory of class %s: %s'
                % (resource_class, exc.message), DELETE_ONE_IN_USE_CODE)
        except (exception.ResourceClassNotFound,
                exception.InventoryNotFound) as exc:
            if isinstance(exc, exception.InventoryNotFound):
                reason = ('No inventory of class %s found for delete'
                          % resource_class)
            else:
                reason = exc.message
            raise errors.error(
                404, 'No inventory of class %s found for delete: %s'
                % (resource_class, reason))
        return util.no_content(req)
