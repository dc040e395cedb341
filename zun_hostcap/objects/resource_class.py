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

"""ResourceClass: a kind of resource, standard (VCPU) or CUSTOM_*."""

from oslo_versionedobjects import fields

from zun_hostcap.db.sqlalchemy.placement import resource_classes as rc_db
from zun_hostcap.objects import base


@base.ZunHostcapObjectRegistry.register
class ResourceClass(base.ZunHostcapPersistentObject, base.ZunHostcapObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    MIN_CUSTOM_ID = rc_db.MIN_CUSTOM_ID

    fields = {
        'id': fields.IntegerField(read_only=True),
        'name': fields.StringField(),
    }

    @property
    def is_standard(self):
        return self.id < rc_db.MIN_CUSTOM_ID

    @classmethod
    def get_by_name(cls, context, name):
        """:raises ResourceClassNotFound: there is no such class."""
        return cls._from_values(context, **rc_db.get_by_name(context, name))

    def create(self):
        """Store a new custom class named ``name``.

        :raises ResourceClassExists: the name is taken.
        """
        self._refresh(rc_db.create(self._context, self.name))

    def rename(self, old_name):
        """Store ``name`` as the new name of the class ``old_name``.

        :raises ResourceClassNotFound: there is no class ``old_name``.
        :raises ResourceClassCannotUpdateStandard: it is standard.
        :raises ResourceClassExists: the new name is taken.
        """
        self._refresh(rc_db.update(self._context, old_name, self.name))

    def destroy(self):
        """Delete it.

        :raises ResourceClassNotFound: there is no such class.
        :raises ResourceClassCannotDeleteStandard: it is standard.
        :raises ResourceClassInUse: an inventory or allocation uses it.
        """
        rc_db.delete(self._context, self.name)


@base.ZunHostcapObjectRegistry.register
class ResourceClassList(base.ObjectListBase, base.ZunHostcapObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('ResourceClass'),
    }

    @classmethod
    def get_all(cls, context):
        make = ResourceClass._from_values
        return cls._from_values(context, objects=[
            make(context, **values) for values in rc_db.get_all(context)])
