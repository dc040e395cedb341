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

"""ResourceProvider: something with inventory, in a tree of providers.

Its writes are announced once committed: resource_provider.create,
.update (name or parent), .delete and .aggregates.update.
"""

from oslo_utils import uuidutils
from oslo_versionedobjects import fields

from zun_hostcap.db.sqlalchemy.placement import aggregates as agg_db
from zun_hostcap.db.sqlalchemy.placement import resource_providers as rp_db
from zun_hostcap.objects import base
from zun_hostcap.objects.notifications import base as notification_base
from zun_hostcap.objects.notifications import resource_provider as \
    notifications


@base.ZunHostcapObjectRegistry.register
class ResourceProvider(base.ZunHostcapPersistentObject,
                       base.ZunHostcapObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'id': fields.IntegerField(read_only=True),
        'uuid': fields.UUIDField(),
        'name': fields.StringField(),
        'generation': fields.IntegerField(),
        'parent_provider_uuid': fields.UUIDField(nullable=True),
        'root_provider_uuid': fields.UUIDField(),
    }

    @classmethod
    def check_exists(cls, context, uuid):
        """:raises ResourceProviderNotFound: no such provider."""
        rp_db.check_exists(context, uuid)

    @classmethod
    def get_by_uuid(cls, context, uuid):
        """:raises ResourceProviderNotFound: no such provider."""
        return cls._from_values(context, **rp_db.get_by_uuid(context, uuid))

    def create(self):
        """Store a new provider; a uuid is made if there is none.

        :raises ResourceProviderExists: the uuid or name is taken.
        :raises ResourceProviderActionError: a bad parent.
        """
        uuid = self.uuid if self.obj_attr_is_set('uuid') else None
        parent = (self.parent_provider_uuid
                  if self.obj_attr_is_set('parent_provider_uuid') else None)
        self._refresh(rp_db.create(
            self._context, uuid or uuidutils.generate_uuid(), self.name,
            parent))
        if notification_base.placement_notifications_enabled():
            notifications.provider_changed(self._context, 'create', self)

    def save(self, allow_reparenting=False):
        """Store the name and, if it changed, the parent.

        :param allow_reparenting: microversion 1.37 and later: a provider
            may change parent or become a root.
        """
        changes = self.obj_get_changes()
        parent = changes.get('parent_provider_uuid', rp_db.UNSET)
        report = notification_base.write_report()
        self._refresh(rp_db.update(
            self._context, self.uuid, self.name, parent,
            allow_reparenting=allow_reparenting, report=report))
        if report is not None and report.changed:
            notifications.provider_changed(self._context, 'update', self)

    def destroy(self):
        """Delete it with its inventories, traits and aggregates.

        :raises ResourceProviderInUse: it has allocations.
        :raises CannotDeleteParentResourceProvider: it has children.
        """
        report = notification_base.write_report()
        rp_db.destroy(self._context, self.uuid, report=report)
        if report is not None:
            notifications.provider_changed(
                self._context, 'delete',
                ResourceProvider._from_values(self._context,
                                              **report.state))

    def get_aggregates(self):
        """The uuids of its aggregates (and its generation is refreshed)."""
        generation, uuids = agg_db.get_by_provider(self._context, self.uuid)
        base.store(self, 'generation', generation)
        return uuids

    def set_aggregates(self, aggregate_uuids, increment_generation=False):
        """Make it a member of exactly ``aggregate_uuids``.

        With ``increment_generation`` its generation must not have moved
        since it was read, and is bumped.

        :raises ResourceProviderConcurrentUpdate: the generation moved.
        """
        report = notification_base.write_report()
        base.store(self, 'generation', agg_db.set_for_provider(
            self._context, self.uuid, aggregate_uuids,
            self.generation if increment_generation else None,
            report=report))
        if report is not None and report.changed:
            notifications.aggregates_changed(
                self._context, self.uuid, self.generation, report.state)


# Where a ResourceProvider keeps each value of a database row.
_STORED_KEYS = tuple(base.stored_attribute(name) for name in rp_db.KEYS)


@base.ZunHostcapObjectRegistry.register
class ResourceProviderList(base.ObjectListBase, base.ZunHostcapObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('ResourceProvider'),
    }

    @classmethod
    def get_all_by_filters(cls, context, filters=None):
        """The providers matching ``filters`` (see the DB function).

        :raises ResourceClassNotFound: an unknown class in resources.
        :raises TraitNotFound: an unknown trait.
        """
        return cls._from_rows(context, _STORED_KEYS,
                              rp_db.rows_by_filters(context, filters))

    @classmethod
    def get_listing_document(cls, context, filters=None, links=(),
                             tree=True):
        """(JSON text, newest change): the providers as the API lists them.

        Rendered by the database, not built from objects: see
        ``rp_db.listing_document`` for the arguments. Filters as
        ``get_all_by_filters``.
        """
        return rp_db.listing_document(context, filters, links, tree)

    @classmethod
    def _from_rows(cls, context, keys, rows):
        # _from_values, unrolled: a thousand providers list in a few
        # milliseconds rather than tens. zip() stops at the last key.
        new = ResourceProvider.__new__
        objects = []
        for row in rows:
            provider = new(ResourceProvider)
            fields = provider.__dict__
            fields.update(zip(keys, row))
            fields['_context'] = context
            fields['_changed_fields'] = set()
            objects.append(provider)
        return cls._from_values(context, objects=objects)
