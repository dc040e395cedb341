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

"""Allocation: an amount of one class, on one provider, for one consumer."""

from oslo_versionedobjects import fields

from zun_hostcap.db.sqlalchemy.placement import allocations as alloc_db
from zun_hostcap.objects import base
from zun_hostcap.objects.notifications import allocation as notifications
from zun_hostcap.objects.notifications import base as notification_base


@base.ZunHostcapObjectRegistry.register
class Allocation(base.ZunHostcapPersistentObject, base.ZunHostcapObject):
    """One allocation, with what the API shows of its provider and consumer.

    Read by consumer, it carries the provider's generation and the
    consumer's project, user (external ids), generation and type; read
    by provider, the consumer's generation.
    """
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'consumer_uuid': fields.UUIDField(),
        'consumer_generation': fields.IntegerField(nullable=True),
        'project_id': fields.StringField(nullable=True),
        'user_id': fields.StringField(nullable=True),
        'consumer_type': fields.StringField(nullable=True),
        'resource_provider_uuid': fields.UUIDField(),
        'resource_provider_generation': fields.IntegerField(nullable=True),
        'resource_class': fields.StringField(),
        'used': fields.IntegerField(),
    }

    @classmethod
    def get_all_by_consumer_id(cls, context, consumer_uuid):
        """The consumer's allocations; an empty list when it has none."""
        return [cls._from_values(context, **values)
                for values in alloc_db.get_by_consumer(
                    context, consumer_uuid)]

    @classmethod
    def get_all_by_resource_provider_uuid(cls, context, provider_uuid):
        """(provider generation, [Allocation]) of a provider.

        :raises ResourceProviderNotFound: no such provider.
        """
        generation, rows = alloc_db.get_by_provider(context, provider_uuid)
        return generation, [
            cls._from_values(context, resource_provider_uuid=provider_uuid,
                             **values)
            for values in rows]

    @staticmethod
    def replace_all(context, requests, check_generation=False):
        """Replace the allocations of several consumers at once.

        See ``zun_hostcap.db.sqlalchemy.placement.allocations.replace_all``
        for ``requests`` and what it raises. Once it is committed, each
        consumer it changed is announced (allocation.*).
        """
        report = notification_base.write_report()
        alloc_db.replace_all(context, requests, check_generation,
                             report=report)
        if report is not None:
            for uuid, request in requests.items():
                announce_consumer(context, uuid, report.state.get(uuid),
                                  request)

    @staticmethod
    def delete_all_by_consumer_id(context, consumer_uuid):
        """Delete the consumer's allocations and the consumer.

        Once it is committed, the consumer's allocation.delete is sent.

        :raises AllocationsNotFound: it has none.
        """
        report = notification_base.write_report()
        alloc_db.delete_by_consumer(context, consumer_uuid, report=report)
        if report is not None:
            announce_consumer(context, consumer_uuid, report.state,
                              {'allocations': {}})


def announce_consumer(context, uuid, held, request):
    """Send the consumer's allocation.* if the write changed it.

    Once the write is committed (the allocation writes, the reshaper).

    :param held: what it held before (alloc_db.Held), None if nothing.
    :param request: what it was given ('allocations' and, unless they
        are all gone, 'project_id', 'user_id' and 'consumer_type').
    """
    after = request['allocations']
    if held is None and not after:
        return  # nothing before, nothing after
    if not after:
        # Deleted: the consumer is gone, so it has no generation.
        consumer = dict(uuid=uuid, project_id=held.project_id,
                        user_id=held.user_id,
                        consumer_type=held.consumer_type, generation=None)
    else:
        consumer_type = request.get('consumer_type')
        if consumer_type is None and held is not None:
            consumer_type = held.consumer_type  # kept as it was
        consumer = dict(uuid=uuid, project_id=request['project_id'],
                        user_id=request['user_id'],
                        consumer_type=consumer_type,
                        generation=1 if held is None else held.generation + 1)
        if held is not None and held == (
                consumer['project_id'], consumer['user_id'],
                consumer['consumer_type'], held.generation, after):
            return  # the same again
    notifications.allocations_changed(
        context, consumer, held.allocations if held else {}, after)
