"""oslo.messaging setup shared by every service.

One transport per process, created by ``init()`` once the configuration is
parsed; servers use the threading executor, never eventlet.
"""

import oslo_messaging as messaging
from oslo_messaging.rpc import dispatcher

from zun_hostcap.common import context as zun_context
from zun_hostcap.objects import base as objects_base

TRANSPORT = None

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
    """Create the process-wide RPC transport from ``transport_url``."""
    global TRANSPORT
    if TRANSPORT is None:
        TRANSPORT = messaging.get_rpc_transport(
            conf, allowed_remote_exmods=ALLOWED_EXMODS)
    return TRANSPORT


def cleanup():
    """Release the transport; the next ``init()`` creates a new one."""
    global TRANSPORT
    if TRANSPORT is not None:
        TRANSPORT.cleanup()
        TRANSPORT = None


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
