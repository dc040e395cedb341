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

"""oslo.messaging setup shared by every service.

One RPC transport and one notification transport per process, created by
``init()`` once the configuration is parsed; servers use the threading
executor, never eventlet. Notifications a request must not wait for go
through ``run_on_sender_thread()``: a thread of the process sends them,
in order.
"""

import os
import queue
import threading

from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_messaging.rpc import dispatcher

from zun_hostcap.common import context as zun_context
from zun_hostcap.common import metrics

TRANSPORT = None
NOTIFICATION_TRANSPORT = None
# Notifiers of the two formats; a format that is off gets the noop driver.
VERSIONED_NOTIFIER = None
LEGACY_NOTIFIER = None

LOG = logging.getLogger(__name__)

_init_lock = threading.Lock()

# Makes the serializer of what messages carry (versioned objects):
# called with {object name: version} caps, or None. The objects register
# theirs when imported (objects/base.py); this module, below them, does
# not import them.
_entity_serializer_factory = None

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
    global TRANSPORT
    if TRANSPORT is None:
        TRANSPORT = messaging.get_rpc_transport(
            conf, allowed_remote_exmods=ALLOWED_EXMODS)
    init_notifications(conf)
    return TRANSPORT


def init_notifications(conf):
    """Create the notification transport and notifiers, if not yet made.

    Enough for a process that only notifies (the API); the transport
    connects at its first send.
    """
    global NOTIFICATION_TRANSPORT, VERSIONED_NOTIFIER, LEGACY_NOTIFIER
    with _init_lock:
        if NOTIFICATION_TRANSPORT is not None:
            return
        transport = messaging.get_notification_transport(
            conf, allowed_remote_exmods=ALLOWED_EXMODS)
        notification_format = conf.notifications.notification_format
        VERSIONED_NOTIFIER = _notifier(
            transport, conf, notification_format in ('versioned', 'both'),
            topics=conf.notifications.versioned_notifications_topics)
        LEGACY_NOTIFIER = _notifier(
            transport, conf, notification_format in ('unversioned', 'both'))
        NOTIFICATION_TRANSPORT = transport


def _notifier(transport, conf, enabled, topics=None):
    """A notifier of one format; off unless a driver is configured.

    As in every oslo service, notifications are sent only when
    [oslo_messaging_notifications] driver names a driver (messagingv2,
    log...): a queue nobody reads would only fill the broker.
    """
    if not enabled or not conf.oslo_messaging_notifications.driver:
        return messaging.Notifier(transport, driver='noop')
    return messaging.Notifier(transport, serializer=_serializer(),
                              topics=topics)


def cleanup():
    """Release the transports; the next ``init()`` creates new ones."""
    global TRANSPORT, NOTIFICATION_TRANSPORT
    global VERSIONED_NOTIFIER, LEGACY_NOTIFIER
    for transport in (TRANSPORT, NOTIFICATION_TRANSPORT):
        if transport is not None:
            transport.cleanup()
    TRANSPORT = NOTIFICATION_TRANSPORT = None
    VERSIONED_NOTIFIER = LEGACY_NOTIFIER = None


class _Sender(object):
    """A thread that runs queued sends, one at a time, in order.

    While the broker is away a send waits for it as long as
    [oslo_messaging_notifications] retry says (forever by default), or
    fails and oslo.messaging logs it; either way only this thread waits.
    """

    def __init__(self, limit):
        self.pid = os.getpid()
        self._queue = queue.Queue(limit)
        self._limit = limit
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name='notification-sender')
        self._thread.start()

    def put(self, send, what):
        try:
            self._queue.put_nowait((send, what))
            metrics.set_notifications_queued(metrics.QUEUE_BROKER,
                                             self._queue.unfinished_tasks)
            return
        except queue.Full:
            pass
        metrics.count_notifications_dropped(metrics.QUEUE_BROKER)
        # Out of the except block: the line is all there is to say.
        LOG.warning('%(what)s not sent: %(limit)d notifications are '
                    'already waiting for the message broker',
                    {'what': what, 'limit': self._limit})

    def _run(self):
        while True:
            send, what = self._queue.get()
            try:
                send()
            except Exception:
                # A bug of ours (a payload that does not serialize):
                # the next notifications still go.
                LOG.exception('%s not sent', what)
            finally:
                self._queue.task_done()
                metrics.set_notifications_queued(
                    metrics.QUEUE_BROKER, self._queue.unfinished_tasks)

    def wait_until_sent(self, timeout):
        """True once every queued send has run."""
        done = self._queue.all_tasks_done
        with done:
            return done.wait_for(lambda: not self._queue.unfinished_tasks,
                                 timeout)


_sender = None


def run_on_sender_thread(send, what, limit):
    """Queue ``send()`` for this process's sender thread.

    :param what: what is sent, for the log line of a dropped one.
    :param limit: how many sends may wait, at most, when the first sender
        of the process is made; more are dropped (and logged).
    """
    global _sender
    sender = _sender
    if sender is None or sender.pid != os.getpid():
        # None yet, or inherited through a fork without its thread.
        with _init_lock:
            if _sender is None or _sender.pid != os.getpid():
                _sender = _Sender(limit)
            sender = _sender
    sender.put(send, what)


def _own_sender():
    """This process's sender, or None."""
    sender = _sender
    return sender if sender and sender.pid == os.getpid() else None


def wait_until_sent(timeout=10):
    """True once every send queued by ``run_on_sender_thread`` has run."""
    sender = _own_sender()
    return sender is None or sender.wait_until_sent(timeout)


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


def set_entity_serializer(factory):
    """Serialize the entities of messages with ``factory(versions)``.

    :param factory: takes {object name: version} (or None) and returns
        an oslo.messaging Serializer of the entities.
    """
    global _entity_serializer_factory
    _entity_serializer_factory = factory


def _serializer(object_versions=None):
    if _entity_serializer_factory is None:
        raise RuntimeError('No entity serializer: zun_hostcap.objects.base '
                           'was not imported')
    return RequestContextSerializer(
        _entity_serializer_factory(object_versions))


def get_client(target, version_cap=None, object_versions=None):
    """An RPC client on the process transport.

    :param object_versions: {object name: version}: objects are sent at
        these versions or older, for servers of an older release.
    """
    if TRANSPORT is None:
        raise RuntimeError('zun_hostcap.common.rpc.init() was not called')
    return messaging.get_rpc_client(TRANSPORT, target,
                                    version_cap=version_cap,
                                    serializer=_serializer(object_versions))


def get_server(target, endpoints):
    """An RPC server on the threading executor of the process transport."""
    if TRANSPORT is None:
        raise RuntimeError('zun_hostcap.common.rpc.init() was not called')
    access_policy = dispatcher.DefaultRPCAccessPolicy
    return messaging.get_rpc_server(TRANSPORT, target, endpoints,
                                    executor='threading',
                                    serializer=_serializer(),
                                    access_policy=access_policy)
