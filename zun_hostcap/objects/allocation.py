"""Allocation: an amount of one class, on one provider, for one consumer."""

from oslo_versionedobjects import fields

from zun_hostcap.db.sqlalchemy.placement import allocations as alloc_db
from zun_hostcap.objects import base


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
        for ``requests`` and what it raises.
        """
        alloc_db.replace_all(context, requests, check_generation)

    @staticmethod
    def delete_all_by_consumer_id(context, consumer_uuid):
        """Delete the consumer's allocations and the consumer.

        :raises AllocationsNotFound: it has none.
        """
        alloc_db.delete_by_consumer(context, consumer_uuid)
