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

"""The framework of versioned notifications.

A notification is a versioned object: its priority, its event type (object,
action and an optional phase), its publisher and a payload. A payload
declares in ``SCHEMA`` which field of which source object each of its
fields copies, so ``populate_schema()`` fills it in one call and it stays
in step with the object it describes.
"""

import os
import sys

from oslo_log import log as logging
from oslo_serialization import jsonutils
from oslo_versionedobjects import fields

from zun_hostcap.common import rpc
import zun_hostcap.conf
from zun_hostcap.db.sqlalchemy.placement import common as db_common
from zun_hostcap.objects import base
from zun_hostcap.objects.notifications import notifier_process

CONF = zun_hostcap.conf.CONF

LOG = logging.getLogger(__name__)

# The binary named in every notification's publisher; services set it at
# start (zun_hostcap.service.prepare_service).
_publisher_source = os.path.basename(sys.argv[0]) or 'zun-hostcap'


def set_publisher_source(binary):
    """Name the binary that publishes this process's notifications."""
    global _publisher_source
    _publisher_source = binary


def publisher_source():
    return _publisher_source


def placement_notifications_enabled():
    """Whether writes of the resource provider model are announced.

    Asked before the write, so that what only a notification needs (the
    state before a change) is not read when none is sent.
    """
    return bool(CONF.notifications.placement_notifications and
                CONF.notifications.notification_format != 'none' and
                CONF.oslo_messaging_notifications.driver)


def write_report():
    """A WriteReport for a write, if writes are announced; else None."""
    if placement_notifications_enabled():
        return db_common.WriteReport()
    return None


def send_later(context, build, args, what):
    """Queue the notification ``build(*args)`` makes; return at once.

    For a process that serves requests (the API): the request only hands
    plain data to the notifier process (``notifier_process`` beside this
    module), which builds the notifications and sends them
    in the order they were queued; so neither the work of sending nor a
    broker that is slow or away delays a request. ``build`` is a
    function of a module, so that the notifier process finds it.

    :param what: the event type, for the log line of one not sent.
    """
    notifier_process.hand_over(CONF, context, build, args, what,
                               _publisher_source)


def make(cls, event_object, action, payload, priority='info'):
    """A notification ``cls`` from this process: <event_object>.<action>."""
    return cls(priority=priority,
               event_type=EventType(object=event_object, action=action),
               publisher=NotificationPublisher.for_this_process(CONF.host),
               payload=payload)


def notification_sample(*sample_files):
    """Name the samples, in doc/notification_samples, of a notification.

    The documentation lists each notification with its samples, and a test
    checks that every emitted notification matches its sample.
    """
    def wrap(cls):
        cls.samples = list(getattr(cls, 'samples', ())) + list(sample_files)
        return cls
    return wrap


class NotificationPriority(fields.Enum):
    # The levels oslo.messaging's Notifier has a method for.
    ALL = ('audit', 'critical', 'debug', 'info', 'error', 'sample', 'warn')

    def __init__(self):
        super().__init__(valid_values=self.ALL)


class NotificationPriorityField(fields.BaseEnumField):
    AUTO_TYPE = NotificationPriority()


class NotificationAction(fields.Enum):
    ALL = ('create', 'update', 'delete')

    def __init__(self):
        super().__init__(valid_values=self.ALL)


class NotificationActionField(fields.BaseEnumField):
    AUTO_TYPE = NotificationAction()


class NotificationPhase(fields.Enum):
    ALL = ('start', 'end', 'error')

    def __init__(self):
        super().__init__(valid_values=self.ALL)


class NotificationPhaseField(fields.BaseEnumField):
    AUTO_TYPE = NotificationPhase()


@base.ZunHostcapObjectRegistry.register
class EventType(base.ZunHostcapObject):
    """``<object>.<action>[.<phase>]``, e.g. ``compute_node.update``."""

    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'object': fields.StringField(),
        'action': NotificationActionField(),
        'phase': NotificationPhaseField(nullable=True),
    }

    def to_event_type_field(self):
        parts = [self.object, self.action]
        if self.obj_attr_is_set('phase') and self.phase is not None:
            parts.append(self.phase)
        return '.'.join(parts)


@base.ZunHostcapObjectRegistry.register
class NotificationPublisher(base.ZunHostcapObject):
    """Who sent a notification: a binary on a host."""

    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'host': fields.StringField(),
        'source': fields.StringField(),
    }

    @classmethod
    def for_this_process(cls, host):
        return cls(host=host, source=publisher_source())

    def publisher_id(self):
        return '%s:%s' % (self.source, self.host)


class NotificationPayloadBase(base.ZunHostcapObject):
    """Base of payloads; subclasses define SCHEMA and fields.

    ``SCHEMA`` maps a payload field to ``(source name, source field)``;
    ``populate_schema(<source name>=<object>, ...)`` copies them. A source
    may also be plain values, {field: value}. A payload must be populated
    before it is sent.
    """

    SCHEMA = {}

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.populated = not self.SCHEMA

    def populate_schema(self, **sources):
        """Copy every SCHEMA field from the named source objects."""
        for name, (source_name, source_field) in self.SCHEMA.items():
            source = sources[source_name]
            # A field the source has not set is sent as null.
            if isinstance(source, dict):
                value = source.get(source_field)
            elif source.obj_attr_is_set(source_field):
                value = getattr(source, source_field)
            else:
                value = None
            setattr(self, name, value)
        self.populated = True
        # The payload is new, not a changed object.
        self.obj_reset_changes(recursive=True)

    @classmethod
    def source_fields(cls, source_name):
        """The fields of ``source_name`` this payload copies."""
        return {field for name, field in cls.SCHEMA.values()
                if name == source_name}

    def to_legacy_dict(self):
        """The payload as plain data, for the unversioned format."""
        primitive = {}
        for name, field in self.fields.items():
            if self.obj_attr_is_set(name):
                value = getattr(self, name)
                if isinstance(value, NotificationPayloadBase):
                    primitive[name] = value.to_legacy_dict()
                elif isinstance(value, list) and value and isinstance(
                        value[0], NotificationPayloadBase):
                    primitive[name] = [item.to_legacy_dict()
                                       for item in value]
                else:
                    primitive[name] = jsonutils.to_primitive(
                        field.to_primitive(self, name, value))
        return primitive


class NotificationBase(base.ZunHostcapObject):
    """Base of notifications; subclasses add a ``payload`` field."""

    fields = {
        'priority': NotificationPriorityField(),
        'event_type': fields.ObjectField('EventType'),
        'publisher': fields.ObjectField('NotificationPublisher'),
    }

    def emit(self, context):
        """Send this notification in each enabled format.

        A process that never initialized RPC (a command line tool) sends
        nothing.
        """
        if not self.payload.populated:
            raise ValueError('%s: payload %s is not populated' % (
                self.obj_name(), self.payload.obj_name()))
        event_type = self.event_type.to_event_type_field()
        publisher_id = self.publisher.publisher_id()
        versioned = rpc.get_versioned_notifier(publisher_id)
        legacy = rpc.get_legacy_notifier(publisher_id)
        if versioned is None:
            LOG.debug('RPC is not initialized; %s not sent', event_type)
            return
        getattr(versioned, self.priority)(
            context, event_type, self.payload.obj_to_primitive())
        # Not built for nothing: most deployments send one format only.
        if legacy.is_enabled():
            getattr(legacy, self.priority)(
                context, event_type, self.payload.to_legacy_dict())
