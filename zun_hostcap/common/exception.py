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

"""Exceptions of zun-hostcap.

Every exception carries a message template formatted with its keyword
arguments and an HTTP code, so the API can turn any of them into the right
error document.
"""

from oslo_log import log as logging

from zun_hostcap.common import placement_codes as codes

LOG = logging.getLogger(__name__)


class ZunHostcapException(Exception):
    """Base exception; subclasses set ``msg_fmt`` and ``code``."""

    msg_fmt = 'An unknown exception occurred.'
    code = 500

    def __init__(self, message=None, **kwargs):
        self.kwargs = kwargs
        if message is None:
            try:
                message = self.msg_fmt % kwargs
            except (KeyError, TypeError):
                # A wrong template must not hide the error it describes.
                LOG.exception('Cannot format %(cls)s with %(kwargs)s',
                              {'cls': type(self).__name__, 'kwargs': kwargs})
                message = self.msg_fmt
        self.message = message
        super().__init__(message)


def one_line(err):
    """The message of ``err`` in one line, for a log line or a detail.

    Drivers append their SQL and a web link to their messages;
    oslo.messaging appends the remote traceback to the message of an
    exception it rebuilds (our own keep it apart, in ``message``); str()
    of a KeyError would show it all as one escaped line, its argument
    does not.
    """
    if isinstance(err, ZunHostcapException):
        return err.message
    text = str(err)
    if err.args and isinstance(err.args[0], str) and '\n' in err.args[0]:
        text = err.args[0]
    lines = text.strip().splitlines()
    return lines[0] if lines else type(err).__name__


class NotFound(ZunHostcapException):
    msg_fmt = 'Resource could not be found.'
    code = 404


class Conflict(ZunHostcapException):
    msg_fmt = 'Conflict.'
    code = 409


class Invalid(ZunHostcapException):
    msg_fmt = 'Invalid input.'
    code = 400


class ComputeNodeNotFound(NotFound):
    msg_fmt = 'Compute node %(compute_node)s could not be found.'


class ComputeNodeAlreadyExists(Conflict):
    msg_fmt = 'A compute node with %(field)s %(value)s already exists.'


class ServiceNotFound(NotFound):
    msg_fmt = 'Service %(binary)s on host %(host)s could not be found.'


class ServiceIdNotFound(ServiceNotFound):
    msg_fmt = 'Service %(service_id)s could not be found.'


class ServiceAlreadyExists(Conflict):
    msg_fmt = 'Service %(binary)s on host %(host)s already exists.'


class InvalidSortKey(Invalid):
    msg_fmt = 'Sort key %(key)s is not one of %(allowed)s.'


class MarkerNotFound(NotFound):
    msg_fmt = 'Marker %(marker)s could not be found.'


class DBAccessForbidden(ZunHostcapException):
    msg_fmt = ('%(service)s must not access the database directly; its '
               'objects go through the conductor. Attempted: %(call)s')


class ObjectActionError(ZunHostcapException):
    msg_fmt = 'Object action %(action)s failed because: %(reason)s'


class ServiceUnavailable(ZunHostcapException):
    """A backend this request needs is down or misconfigured; try later."""
    msg_fmt = 'The service is unavailable: %(reason)s'
    code = 503


class DatabaseUnavailable(ServiceUnavailable):
    """The database is down or unreachable.

    ``reason``, the driver's error, is for the log (``kwargs``): the
    message a client sees does not name the database server.
    """
    msg_fmt = 'The database cannot be reached; try again later.'


class HostProbeFailed(ZunHostcapException):
    msg_fmt = 'Discovering this host failed: %(reason)s'


# What the compute service's client of a Placement service meets
# (compute/placement_client.py).

class PlacementServiceUnavailable(ZunHostcapException):
    msg_fmt = ('The Placement service at %(url)s cannot be reached: '
               '%(reason)s')


class PlacementServiceTooOld(ZunHostcapException):
    msg_fmt = ('The Placement service at %(url)s serves microversions up '
               'to %(newest)s; zun-hostcap-compute needs %(needed)s or '
               'later')


class PlacementRequestFailed(ZunHostcapException):
    msg_fmt = 'Placement refused %(method)s %(path)s (%(status)s): %(detail)s'


class ClaimFailed(ZunHostcapException):
    msg_fmt = 'No room for %(consumer)s on host %(host)s: %(reason)s'
    code = 409


class ContainerRuntimeUnavailable(ZunHostcapException):
    msg_fmt = ('The container runtime at %(url)s cannot be reached: '
               '%(reason)s')


# The resource provider model (the /placement API).
#
# ``error_code`` is the code Placement's error documents carry (from
# microversion 1.23); the API shows ``placement.undefined_code`` for the
# others, as Placement does.

class PlacementError(ZunHostcapException):
    """Base of the errors of the resource provider model."""
    error_code = codes.UNDEFINED


class PlacementNotFound(PlacementError):
    msg_fmt = 'Resource could not be found.'
    code = 404


class PlacementConflict(PlacementError):
    msg_fmt = 'Conflict.'
    code = 409


class PlacementInvalid(PlacementError):
    msg_fmt = 'Invalid input.'
    code = 400


class ResourceProviderNotFound(PlacementNotFound):
    # Placement's words, without a period.
    msg_fmt = 'No resource provider with uuid %(uuid)s found'
    error_code = codes.PROVIDER_NOT_FOUND


class ResourceProviderExists(PlacementConflict):
    msg_fmt = ('Conflicting resource provider %(field)s: %(value)s '
               'already exists.')
    error_code = codes.DUPLICATE_NAME


class ResourceProviderInUse(PlacementConflict):
    msg_fmt = 'Unable to delete resource provider %(uuid)s: %(reason)s'
    error_code = codes.PROVIDER_IN_USE


class CannotDeleteParentResourceProvider(PlacementConflict):
    msg_fmt = ('Unable to delete parent resource provider %(uuid)s: It '
               'has child resource providers.')
    error_code = codes.PROVIDER_CANNOT_DELETE_PARENT


class ConcurrentUpdateDetected(PlacementConflict):
    msg_fmt = ('Another thread concurrently updated the data. Please '
               'retry your update')
    error_code = codes.CONCURRENT_UPDATE


class ResourceProviderConcurrentUpdate(ConcurrentUpdateDetected):
    msg_fmt = ('Resource provider\'s generation already changed. Please '
               'update the generation and try again. (provider %(uuid)s)')


class ConsumerConcurrentUpdate(ConcurrentUpdateDetected):
    msg_fmt = ('consumer generation conflict - expected %(expected)s but '
               'got %(actual)s for consumer %(uuid)s')


class ProviderGenerationConflict(ConcurrentUpdateDetected):
    """A writer named a generation the provider no longer has.

    Unlike ResourceProviderConcurrentUpdate, never tried again: the
    generation came from the client.
    """
    msg_fmt = ('resource provider generation conflict for provider '
               '%(uuid)s: actual: %(actual)s, given: %(given)s')


class ResourceClassNotFound(PlacementNotFound):
    msg_fmt = 'No such resource class %(name)s.'


class ResourceClassExists(PlacementConflict):
    # Placement's code for it is the undefined one, unlike providers'.
    msg_fmt = 'Conflicting resource class already exists: %(name)s'


class ResourceClassCannotDeleteStandard(PlacementInvalid):
    msg_fmt = 'Cannot delete standard resource class %(name)s.'


class ResourceClassCannotUpdateStandard(PlacementInvalid):
    msg_fmt = 'Cannot update standard resource class %(name)s.'


class ResourceClassInUse(PlacementConflict):
    msg_fmt = ('Unable to delete resource class %(name)s. Class is in use '
               'in inventory.')


class TraitNotFound(PlacementNotFound):
    msg_fmt = 'No such trait(s): %(names)s.'


class TraitCannotDeleteStandard(PlacementInvalid):
    msg_fmt = 'Cannot delete standard trait %(name)s.'


class TraitInUse(PlacementConflict):
    msg_fmt = 'The trait %(name)s is in use by a resource provider.'


class InventoryNotFound(PlacementNotFound):
    msg_fmt = ('No inventory of class %(resource_class)s for resource '
               'provider %(uuid)s.')


class InventoryExists(ConcurrentUpdateDetected):
    # Placement answers it as a concurrent update: same status and code.
    msg_fmt = ('Inventory of class %(resource_class)s already exists on '
               'resource provider %(uuid)s.')


class InventoryInUse(PlacementConflict):
    msg_fmt = ('Inventory for %(resource_classes)s on resource provider '
               '%(uuid)s in use.')
    error_code = codes.INVENTORY_INUSE


class InvalidInventory(PlacementInvalid):
    msg_fmt = ('Inventory for %(resource_class)s on resource provider '
               '%(uuid)s invalid: %(reason)s')


class AllocationCapacityExceeded(PlacementConflict):
    msg_fmt = ('Unable to allocate inventory: Unable to create allocation '
               'for \'%(resource_class)s\' on resource provider '
               '\'%(uuid)s\'. The requested amount would exceed the '
               'capacity.')


class ConsumerNotFound(PlacementNotFound):
    msg_fmt = 'No such consumer(s): %(uuid)s.'


class ResourceProviderActionError(PlacementInvalid):
    """A create or update of a provider its tree does not allow."""
    msg_fmt = 'Object action %(action)s failed because: %(reason)s'


# Allocation writes, with Placement's statuses and messages: a missing
# provider is a 400; no inventory, constraints and capacity are 409s.

class AllocationProviderNotFound(PlacementInvalid):
    msg_fmt = ("Allocation for resource provider '%(uuid)s' that does not "
               "exist.")


class AllocationInventoryInvalid(PlacementConflict):
    msg_fmt = ("Unable to allocate inventory: Inventory for "
               "'%(resource_class)s' on resource provider '%(uuid)s' "
               "invalid.")


class AllocationConstraintsConflict(PlacementConflict):
    msg_fmt = ("Unable to allocate inventory: Unable to create allocation "
               "for '%(resource_class)s' on resource provider '%(uuid)s'. "
               "The requested amount would violate inventory constraints.")


class AllocationConcurrentUpdate(ConcurrentUpdateDetected):
    msg_fmt = ('Inventory and/or allocations changed while attempting to '
               'allocate: %(reason)s')


class AllocationsNotFound(PlacementNotFound):
    msg_fmt = "No allocations for consumer '%(uuid)s'"
