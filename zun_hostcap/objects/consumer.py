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

"""Consumer: whoever holds allocations (a container, an instance ...)."""

from oslo_versionedobjects import fields

from zun_hostcap.db.sqlalchemy.placement import consumers as consumer_db
from zun_hostcap.objects import base

# Project and user of consumers written before microversion 1.8.
INCOMPLETE_ID = consumer_db.INCOMPLETE_ID
# The type a consumer without one shows (microversion 1.38).
UNKNOWN_TYPE = consumer_db.UNKNOWN_TYPE


@base.ZunHostcapObjectRegistry.register
class Consumer(base.ZunHostcapPersistentObject, base.ZunHostcapObject):
    """A consumer; its row lives as long as it has allocations.

    ``project_id`` and ``user_id`` are the external (keystone) ids;
    ``consumer_type`` is None for a consumer written without one.
    """
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'id': fields.IntegerField(read_only=True),
        'uuid': fields.UUIDField(),
        'project_id': fields.StringField(),
        'user_id': fields.StringField(),
        'generation': fields.IntegerField(),
        'consumer_type': fields.StringField(nullable=True),
    }

    @classmethod
    def get_by_uuid(cls, context, uuid):
        """:raises ConsumerNotFound: no such consumer."""
        row = consumer_db.get_by_uuid(context, uuid)
        return cls._from_values(
            context, id=row.id, uuid=row.uuid,
            project_id=row.project_external_id,
            user_id=row.user_external_id, generation=row.generation,
            consumer_type=row.consumer_type, created_at=row.created_at,
            updated_at=row.updated_at)
