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

"""Notifications about allocations: allocation.create/update/delete.

One per consumer whose allocations a write changed, with the allocations
before and after it, so that a listener can keep the usage of every
provider without asking Placement:

- create: the consumer had none before;
- delete: it has none after (its consumer record is gone with them);
- update: anything else that changed (amounts, providers, classes, the
  project, user or type of the consumer).
"""

from oslo_versionedobjects import fields

from zun_hostcap.objects import base
from zun_hostcap.objects import consumer as consumer_obj
from zun_hostcap.objects.notifications import base as notification


class AllocationsField(fields.AutoTypedField):
    """{provider uuid: {resource class: amount}}."""

    AUTO_TYPE = fields.Dict(fields.Dict(fields.Integer()))


@base.ZunHostcapObjectRegistry.register
class AllocationPayload(notification.NotificationPayloadBase):
    """A consumer, with its allocations before and after a write.

    ``consumer_generation`` is the one it has after the write; null for
    a delete, as the consumer is gone.
    """

    SCHEMA = {
        'consumer_uuid': ('consumer', 'uuid'),
        'project_id': ('consumer', 'project_id'),
        'user_id': ('consumer', 'user_id'),
        'consumer_type': ('consumer', 'consumer_type'),
        'consumer_generation': ('consumer', 'generation'),
    }
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'consumer_uuid': fields.UUIDField(),
        'project_id': fields.StringField(),
        'user_id': fields.StringField(),
        'consumer_type': fields.StringField(nullable=True),
        'consumer_generation': fields.IntegerField(nullable=True),
        'allocations_before': AllocationsField(),
        'allocations_after': AllocationsField(),
    }

    def __init__(self, consumer=None, before=None, after=None):
        super().__init__()
        if consumer is None:
            return  # being deserialized
        self.populate_schema(consumer=consumer)
        self.allocations_before = before
        self.allocations_after = after
        self.obj_reset_changes()


@notification.notification_sample('allocation-create.json',
                                  'allocation-update.json',
                                  'allocation-delete.json')
@base.ZunHostcapObjectRegistry.register
class AllocationNotification(notification.NotificationBase):
    """allocation.create, .update and .delete."""

    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'payload': fields.ObjectField('AllocationPayload'),
    }


def build_notification(action, consumer, before, after):
    """The notification of what ``allocations_changed`` queued."""
    return notification.make(
        AllocationNotification, 'allocation', action, AllocationPayload(
            consumer_obj.Consumer._from_values(None, **consumer),
            before, after))


def allocations_changed(context, consumer, before, after):
    """Queue the notification of a consumer whose allocations changed.

    :param consumer: the consumer as it is after the write: {uuid,
        project_id, user_id, consumer_type, generation (None for a
        delete)}.
    :param before: its allocations before: {provider: {class: amount}}.
    :param after: its allocations after, in the same form.
    """
    action = ('create' if not before else
              'delete' if not after else 'update')
    notification.send_later(context, build_notification,
                            (action, consumer, before, after),
                            'allocation.' + action)
