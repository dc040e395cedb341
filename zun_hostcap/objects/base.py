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

"""Base classes, registry and serializer of zun-hostcap's objects."""

from oslo_utils import versionutils
from oslo_versionedobjects import base as ovo_base

from zun_hostcap.common import rpc
from zun_hostcap.db import api as db_api

remotable = ovo_base.remotable
remotable_classmethod = ovo_base.remotable_classmethod


# oslo.versionedobjects keeps the value of a field ``name`` in the
# object's attribute ``_obj_<name>``, behind the field's property (which
# coerces on set and lazy-loads an unset field on get). The paths where
# that machinery costs more than the work itself (building thousands of
# objects, serialising them, diffing them in the conductor) reach the
# attribute through these accessors, the one place that names it.

def stored_attribute(name):
    """The attribute in which an object holds the value of field ``name``."""
    return '_obj_' + name


def stored(obj, name, default=None):
    """The value ``obj`` holds for field ``name``, or ``default`` if unset.

    No lazy load.
    """
    return getattr(obj, '_obj_' + name, default)


def store(obj, name, value):
    """Hold ``value`` for field ``name``: no coercion, not marked changed.

    For values already of the field's type (read from the database).
    """
    setattr(obj, '_obj_' + name, value)


class ZunHostcapObjectRegistry(ovo_base.VersionedObjectRegistry):
    """Registry of every object; exposes each on ``zun_hostcap.objects``."""

    def registration_hook(self, cls, index):
        # Make the newest version importable as zun_hostcap.objects.<Name>.
        from zun_hostcap import objects
        current = getattr(objects, cls.obj_name(), None)
        if current is None or (
                versionutils.convert_version_to_tuple(cls.VERSION) >=
                versionutils.convert_version_to_tuple(current.VERSION)):
            setattr(objects, cls.obj_name(), cls)


class ZunHostcapObject(ovo_base.VersionedObject):
    """Base of every object; remotable through the conductor."""

    OBJ_SERIAL_NAMESPACE = 'zun_hostcap_object'
    OBJ_PROJECT_NAMESPACE = 'zun_hostcap'

    @classmethod
    def _from_values(cls, context, **values):
        """An object holding ``values``, with nothing marked changed.

        For values read from the database, which are already of the
        fields' types: no coercion, no change tracking, so that building
        a list of thousands of objects costs microseconds per object,
        not the milliseconds of setattr() and obj_reset_changes().
        """
        obj = cls.__new__(cls)
        obj._context = context
        return obj._refresh(values)

    def _refresh(self, values):
        """Hold ``values`` ({field: value} read from the database).

        As ``_from_values``, for an object that exists: nothing is left
        marked changed.
        """
        for name, value in values.items():
            store(self, name, value)
        self._changed_fields = set()
        return self


class ZunHostcapPersistentObject(ovo_base.TimestampedObject):
    """Mixin for objects stored in a table with created/updated times."""


class ObjectListBase(ovo_base.ObjectListBase):
    pass


class ZunHostcapObjectSerializer(ovo_base.VersionedObjectSerializer):
    """Objects to and from their primitives, for RPC.

    :param object_versions: {object name: version} to send objects at
        no newer than, with their children: what a peer of an older
        release understands. None: as they are.
    """

    OBJ_BASE_CLASS = ZunHostcapObject

    def __init__(self, object_versions=None):
        super().__init__()
        self.object_versions = object_versions

    def serialize_entity(self, context, entity):
        versions = self.object_versions
        if versions and isinstance(entity, ZunHostcapObject):
            wanted = versions.get(entity.obj_name())
            if wanted is not None:
                return entity.obj_to_primitive(
                    target_version=_older(wanted, entity.VERSION),
                    version_manifest=versions)
        return super().serialize_entity(context, entity)


# RPC and notifications carry objects with it.
rpc.set_entity_serializer(ZunHostcapObjectSerializer)


def _older(version, other):
    """The older of two versions."""
    return min(version, other, key=versionutils.convert_version_to_tuple)


class _ScopedIndirectionAPI:
    """The conductor client, switched off in threads doing conductor work.

    oslo.versionedobjects sends a remotable call over RPC when
    ``indirection_api`` is true. Where conductor and compute share a process
    (zun-hostcap-all), the conductor's handler threads must run the object
    methods locally instead of calling themselves.
    """

    def __init__(self, api):
        self._api = api

    def __bool__(self):
        return not db_api.in_conductor_scope()

    def __getattr__(self, name):
        return getattr(self._api, name)


def install_indirection_api(api):
    """Send remotable object calls of this process through ``api``."""
    ZunHostcapObject.indirection_api = (
        None if api is None else _ScopedIndirectionAPI(api))


# Conductor code runs object methods locally inside this scope.
conductor_scope = db_api.conductor_scope
