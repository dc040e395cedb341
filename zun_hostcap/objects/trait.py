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

"""Trait: a qualitative property of a provider, standard or CUSTOM_*."""

from oslo_versionedobjects import fields

from zun_hostcap.db.sqlalchemy.placement import traits as trait_db
from zun_hostcap.objects import base
from zun_hostcap.objects.notifications import base as notification_base
from zun_hostcap.objects.notifications import resource_provider as \
    rp_notifications


@base.ZunHostcapObjectRegistry.register
class Trait(base.ZunHostcapPersistentObject, base.ZunHostcapObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'id': fields.IntegerField(read_only=True),
        'name': fields.StringField(),
    }

    @property
    def is_custom(self):
        return trait_db.is_custom(self.name)

    @classmethod
    def get_by_name(cls, context, name):
        """:raises TraitNotFound: there is no such trait."""
        return cls._from_values(context,
                                **trait_db.get_by_name(context, name))

    @classmethod
    def ensure(cls, context, name):
        """The trait ``name``, created if it does not exist.

        :returns: (the trait, whether it was created now).
        """
        values, created = trait_db.create(context, name)
        return cls._from_values(context, **values), created

    def destroy(self):
        """Delete it.

        :raises TraitNotFound: there is no such trait.
        :raises TraitCannotDeleteStandard: it is standard.
        :raises TraitInUse: a provider has it.
        """
        trait_db.delete(self._context, self.name)


@base.ZunHostcapObjectRegistry.register
class TraitList(base.ObjectListBase, base.ZunHostcapObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('Trait'),
    }

    @classmethod
    def _make(cls, context, rows):
        make = Trait._from_values
        return cls._from_values(
            context, objects=[make(context, **values) for values in rows])

    @classmethod
    def get_all(cls, context, name_in=None, prefix=None, associated=None):
        """Traits, filtered (see the DB function), by name."""
        return cls._make(context, trait_db.get_all(
            context, name_in=name_in, prefix=prefix, associated=associated))

    @classmethod
    def get_by_provider(cls, context, uuid):
        """(the provider's generation, its traits).

        :raises ResourceProviderNotFound: there is no such provider.
        """
        generation, rows = trait_db.get_by_provider(context, uuid)
        return generation, cls._make(context, rows)

    @classmethod
    def set_for_provider(cls, context, uuid, names, generation=None):
        """Give the provider exactly ``names``.

        A change is announced, once committed, by
        resource_provider.traits.update.

        :returns: (the provider's new generation, its traits).
        :raises ResourceProviderNotFound: there is no such provider.
        :raises ResourceProviderConcurrentUpdate: the generation moved
            from ``generation`` (None: not checked).
        :raises TraitNotFound: some of ``names`` do not exist.
        """
        report = notification_base.write_report()
        generation, rows = trait_db.set_for_provider(
            context, uuid, names, generation, report=report)
        if report is not None and report.changed:
            rp_notifications.traits_changed(context, uuid, generation,
                                            report.state)
        return generation, cls._make(context, rows)
