"""oslo.messaging setup shared by every service.

One RPC transport and one notification transport per process, created by
``init()`` once the configuration is parsed; servers use the threading
executor, never eventlet.
"""

import oslo_messaging as messaging
from oslo_messaging.rpc import dispatcher

from zun_hostcap.common import context as zun_context
from zun_hostcap.objects import base as objects_base

TRANSPORT = None
NOTIFICATION_TRANSPORT = None
# Notifiers of the two formats; a format that is off gets the noop driver.
VERSIONED_NOTIFIER = None
LEGACY_NOTIFIER = None

# Exceptions a conductor may raise that callers get back as themselves
# (ComputeNodeNotFound...) rather than as oslo.messaging's RemoteError.
ALLOWED_EXMODS = ['zun_hostcap.common.exception']


class RequestContextSerializer(messaging.Serializer):
    """Serializes our RequestContext next to the versioned objects."""

    def __init__(self, base):
        self._base = base

    def serialize_entity(self, context, entity):
        return self._base.serialize_entity(context, entity)

    def deserialize_entity(self, context, entity):
        return self._base.deserialize_entity(context, entity)

    def serialize_context(self, context):
        return context.to_dict()

    def deserialize_context(self, context):
        return zun_context.RequestContext.from_dict(context)


def init(conf):
    """Create the process-wide transports and notifiers."""
    global TRANSPORT, NOTIFICATION_TRANSPORT
    global VERSIONED_NOTIFIER, LEGACY_NOTIFIER
    if TRANSPORT is None:
        TRANSPORT = messaging.get_rpc_transport(
            conf, allowed_remote_exmods=ALLOWED_EXMODS)
    if NOTIFICATION_TRANSPORT is None:
        NOTIFICATION_TRANSPORT = messaging.get_notification_transport(
            conf, allowed_remote_exmods=ALLOWED_EXMODS)
        notification_format = conf.notifications.notification_format
        VERSIONED_NOTIFIER = _notifier(
            conf, notification_format in ('versioned', 'both'),
            topics=conf.notifications.versioned_notifications_topics)
        LEGACY_NOTIFIER = _notifier(
            conf, notification_format in ('unversioned', 'both'))
    return TRANSPORT


def _notifier(conf, enabled, topics=None):
    """A notifier of one format; off unless a driver is configured.

    As in every oslo service, notifications are sent only when
    [oslo_messaging_notifications] driver names a driver (messagingv2,
    log...): a queue nobody reads would only fill the broker.
    """
    if not enabled or not conf.oslo_messaging_notifications.driver:
        return messaging.Notifier(NOTIFICATION_TRANSPORT, driver='noop')
    return messaging.Notifier(NOTIFICATION_TRANSPORT,
                              serializer=_serializer(), topics=topics)


def cleanup():
    """Release the transports; the next ``init()`` creates new ones."""
    global TRANSPORT, NOTIFICATION_TRANSPORT
    global VERSIONED_NOTIFIER, LEGACY_NOTIFIER
    for transport in (TRANSPORT, NOTIFICATION_TRANSPORT):
        if transport is not None:
            transport.cleanup()
    TRANSPORT = NOTIFICATION_TRANSPORT = None
    VERSIONED_NOTIFIER = LEGACY_NOTIFIER = None


def get_versioned_notifier(publisher_id):
    """The versioned notifier, or None before ``init()``."""
    if VERSIONED_NOTIFIER is None:
        return None
    return VERSIONED_NOTIFIER.prepare(publisher_id=publisher_id)


def get_legacy_notifier(publisher_id):
    """The notifier of the legacy format, or None before ``init()``."""
    if LEGACY_NOTIFIER is None:
        return None
    return LEGACY_NOTIFIER.prepare(publisher_id=publisher_id)


def _serializer():
    return RequestContextSerializer(objects_base.ZunHostcapObjectSerializer())


def get_client(target, version_cap=None):
    """An RPC client on the process transport."""
    if TRANSPORT is None:
        raise RuntimeError('zun_hostcap.common.rpc.init() was not called')
    return messaging.get_rpc_client(TRANSPORT, target,
                                    version_cap=version_cap,
                                    serializer=_serializer())


def get_server(target, endpoints):
    """An RPC server on the threading executor of the process transport."""
    if TRANSPORT is None:
        raise RuntimeError('zun_hostcap.common.rpc.init() was not called')
    access_policy = dispatcher.DefaultRPCAccessPolicy
    return messaging.get_rpc_server(TRANSPORT, target, endpoints,
                                    executor='threading',
                                    serializer=_serializer(),
                                    access_policy=access_policy)
