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

"""Usage: how much of a resource class is allocated."""

from oslo_versionedobjects import fields

from zun_hostcap.db.sqlalchemy.placement import usages as usage_db
from zun_hostcap.objects import base

# The consumer_type filters of GET /usages that are not type names.
ALL_TYPES = usage_db.ALL_TYPES
UNKNOWN_TYPE = usage_db.UNKNOWN_TYPE


@base.ZunHostcapObjectRegistry.register
class Usage(base.ZunHostcapObject):
    """The sum of allocations of one class.

    ``consumer_type`` and ``consumer_count`` are set by
    ``get_by_consumer_type`` only.
    """
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'resource_class': fields.StringField(),
        'usage': fields.IntegerField(),
        'consumer_type': fields.StringField(nullable=True),
        'consumer_count': fields.IntegerField(),
    }

    @classmethod
    def get_all_by_resource_provider_uuid(cls, context, uuid):
        """(provider generation, [Usage]), a Usage per inventory class.

        :raises ResourceProviderNotFound: no such provider.
        """
        generation, usages = usage_db.get_by_provider(context, uuid)
        return generation, [cls._from_values(context, resource_class=rc,
                                             usage=amount)
                            for rc, amount in usages.items()]

    @classmethod
    def get_all_by_project_user(cls, context, project_id, user_id=None):
        return [cls._from_values(context, resource_class=rc, usage=amount)
                for rc, amount in usage_db.get_by_project(
                    context, project_id, user_id).items()]

    @classmethod
    def get_by_consumer_type(cls, context, project_id, user_id=None,
                             consumer_type=None):
        """Usages per consumer type (see the DB function for the filter)."""
        objs = []
        for ctype, usages in usage_db.get_by_consumer_type(
                context, project_id, user_id, consumer_type).items():
            count = usages.pop('consumer_count', 0)
            objs.extend(cls._from_values(
                context, resource_class=rc, usage=amount,
                consumer_type=ctype, consumer_count=count)
                for rc, amount in usages.items())
        return objs
