"""Exceptions of zun-hostcap.

Every exception carries a message template formatted with its keyword
arguments and an HTTP code, so the API can turn any of them into the right
error document.
"""

from oslo_log import log as logging

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
