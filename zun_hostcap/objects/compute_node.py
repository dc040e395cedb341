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

"""ComputeNode: what one host has and uses.

Its resources are read the new way, as the inventory of its resource
provider (the provider with its uuid), and the old way, from its
columns, for a node that has none yet: one written by 2026.2 before the
online data migration (``db/sqlalchemy/compute_node_providers.py``) or
its compute's upgrade gave it one.
"""

import datetime
import json

from oslo_utils import versionutils
from oslo_versionedobjects import fields

from zun_hostcap.common import compute_inventory
from zun_hostcap.common import exception
from zun_hostcap.common import rpc
import zun_hostcap.conf
from zun_hostcap.db import api as db_api
from zun_hostcap.objects import base
from zun_hostcap.objects import inventory as inventory_obj
from zun_hostcap.objects.notifications import compute_node as notifications
from zun_hostcap.objects import numa
from zun_hostcap.objects import pci_device_pool

CONF = zun_hostcap.conf.CONF

# Fields stored as JSON of plain data: (object class, to-plain, from-plain).
_STRUCTURED_FIELDS = {
    'numa_topology': (numa.NUMATopology, 'to_dict', 'from_dict'),
    'pci_device_pools': (pci_device_pool.PciDevicePoolList, 'to_list',
                         'from_list'),
}
# The columns stored as JSON text.
_JSON_COLUMNS = ('labels', 'runtimes') + tuple(_STRUCTURED_FIELDS)
# Fields of a row that the database hands back naive, in UTC.
_DATETIME_FIELDS = ('created_at', 'updated_at')
# What a row holds in another form than the field.
_CONVERTED_FIELDS = tuple(_STRUCTURED_FIELDS) + _DATETIME_FIELDS
# Fields that are no column of the row: read on first use.
_LOADED_FIELDS = ('inventory',)
_UNSET = object()


def _from_row_value(name, value):
    """A column's value as the field holds it, without setattr().

    Rows hold the fields' types already (the schema and the JSON we wrote
    say so), except the structured fields, built here from their plain
    data, and the times, which the field holds with their time zone.
    """
    if value is None:
        return None
    if name in _STRUCTURED_FIELDS:
        cls, _to_plain, from_plain = _STRUCTURED_FIELDS[name]
        return getattr(cls, from_plain)(value)
    if name in _DATETIME_FIELDS and value.tzinfo is None:
        return value.replace(tzinfo=datetime.timezone.utc)
    return value


def _plain_of_json(name, text):
    """A JSON column's stored ``text`` as its field's plain data.

    What the column's type decodes; for a structured field, what its
    object's ``to_dict()`` or ``to_list()`` would give.
    """
    value = json.loads(text)
    if value is not None and name in _STRUCTURED_FIELDS:
        value = _STRUCTURED_FIELDS[name][0].plain(value)
    return value


def _holds(held, name, value):
    """Whether the field ``name``, holding ``held``, has the row's value."""
    if held is _UNSET:
        return False
    if value is None or held is None:
        return value is None and held is None
    if name in _STRUCTURED_FIELDS:
        # The plain data of two NUMA cells or a PCI pool: microseconds.
        return getattr(held, _STRUCTURED_FIELDS[name][1])() == value
    value = _from_row_value(name, value)
    # (Lists and dicts the field coerced are subclasses of list and dict;
    # 1 == 1.0 == True, but a float field must not hold an int.)
    return isinstance(held, type(value)) and held == value


def _notify(context, node, action):
    """Send compute_node.<action> about ``node``, if anything carries it.

    A payload costs more to build than the rest of a save; with
    notifications off (no driver, the default) none is built.
    """
    notifiers = (rpc.VERSIONED_NOTIFIER, rpc.LEGACY_NOTIFIER)
    if any(notifier is not None and notifier.is_enabled()
           for notifier in notifiers):
        notifications.emit(context, node, action)


def _read_inventory(context, node):
    """[Inventory] of ``node``: its provider's, else from its columns.

    Those made from the columns have no provider generation.
    """
    try:
        stored = inventory_obj.InventoryList.get_all_by_provider_uuid(
            context, node.uuid).objects
    except exception.ResourceProviderNotFound:
        stored = []
    if stored:
        return stored
    return [inventory_obj.Inventory(
        context, resource_provider_uuid=node.uuid,
        resource_provider_generation=None, resource_class=rc,
        created_at=None, updated_at=None, **record)
        for rc, record in compute_inventory.standard_inventory(
            node.cpus, node.mem_total, node.disk_total).items()]


@base.ZunHostcapObjectRegistry.register
class ComputeNode(base.ZunHostcapPersistentObject, base.ZunHostcapObject):
    """A container host: capacity, usage and what runs it.

    Version history:

    * 1.0: Initial version
    * 1.1: ``inventory``, its resources as its provider's inventory, read
      on first use (``load_inventory``); a conductor backports the node
      to 1.0 for a compute of 2026.2 without it
    """

    # Version 1.0: Initial version
    # Version 1.1: inventory; load_inventory()
    VERSION = '1.1'

    fields = {
        'id': fields.IntegerField(read_only=True),
        'uuid': fields.UUIDField(),
        'hostname': fields.StringField(),
        'cpus': fields.NonNegativeIntegerField(),
        'cpu_used': fields.NonNegativeFloatField(),
        # Memory in MiB: MemTotal, MemFree, MemAvailable, Buffers and
        # Cached of /proc/meminfo; mem_used is what containers reserve.
        'mem_total': fields.NonNegativeIntegerField(),
        'mem_free': fields.NonNegativeIntegerField(),
        'mem_available': fields.NonNegativeIntegerField(),
        'mem_buffers': fields.NonNegativeIntegerField(),
        'mem_cached': fields.NonNegativeIntegerField(),
        'mem_used': fields.NonNegativeIntegerField(),
        'total_containers': fields.NonNegativeIntegerField(),
        'running_containers': fields.NonNegativeIntegerField(),
        'paused_containers': fields.NonNegativeIntegerField(),
        'stopped_containers': fields.NonNegativeIntegerField(),
        'architecture': fields.StringField(nullable=True),
        'os_type': fields.StringField(nullable=True),
        'os': fields.StringField(nullable=True),
        'kernel_version': fields.StringField(nullable=True),
        'labels': fields.DictOfStringsField(nullable=True),
        # Disk in GiB.
        'disk_total': fields.NonNegativeIntegerField(),
        'disk_used': fields.NonNegativeIntegerField(),
        'disk_quota_supported': fields.BooleanField(),
        'enable_cpu_pinning': fields.BooleanField(),
        'numa_topology': fields.ObjectField('NUMATopology', nullable=True),
        'pci_device_pools': fields.ObjectField('PciDevicePoolList',
                                               nullable=True),
        'runtimes': fields.ListOfStringsField(nullable=True),
        # Its resource provider's inventory, or the one its columns make
        # while it has no provider; read on first use, never saved.
        'inventory': fields.ListOfObjectsField('Inventory'),
    }

    def obj_make_compatible(self, primitive, target_version):
        super().obj_make_compatible(primitive, target_version)
        if versionutils.convert_version_to_tuple(target_version) < (1, 1):
            primitive.pop('inventory', None)

    def obj_load_attr(self, attrname):
        if attrname != 'inventory':
            raise exception.ObjectActionError(
                action='obj_load_attr',
                reason='%s is not read on first use' % attrname)
        if self._context is None:
            raise exception.ObjectActionError(
                action='obj_load_attr', reason='the node has no context')
        self.load_inventory()

    @base.remotable
    def load_inventory(self):
        """Read ``inventory``: its provider's, or from its columns.

        Where the database is; a compute service's goes to a conductor
        of this release.
        """
        self.inventory = _read_inventory(self._context, self)
        self.obj_reset_changes(['inventory'])

    def obj_what_changed(self):
        # As oslo.versionedobjects' own, which looks at every field for a
        # changed object in it: only two fields can hold one.
        changes = set(self._changed_fields)
        for name in _STRUCTURED_FIELDS:
            value = base.stored(self, name)
            if value is not None and value.obj_what_changed():
                changes.add(name)
        return changes

    @staticmethod
    def _from_db_object(context, node, db_node):
        """Fill ``node`` from a database row and mark it unchanged.

        Only the fields whose value differs from the row's are replaced:
        after a save, that is what was written and updated_at, not the
        NUMA topology and PCI pools again; the conductor's diff
        (``object_action``) finds the fields replaced by identity. The
        row's values are of the fields' types already: no setattr()
        coercion. A field kept as it was (a NUMA topology whose change
        was just written) is marked unchanged, with what it holds.
        """
        node._context = context
        for name in node.fields:
            if name in _LOADED_FIELDS:
                continue
            value = getattr(db_node, name)
            held = base.stored(node, name, _UNSET)
            if _holds(held, name, value):
                if name in _STRUCTURED_FIELDS and held is not None:
                    held.obj_reset_changes(recursive=True)
                continue
            base.store(node, name, _from_row_value(name, value))
        node._changed_fields = set()
        return node

    @classmethod
    def _from_row(cls, context, db_node):
        """A new object from a database row, for reads and lists."""
        if hasattr(db_node, '_asdict'):
            # A row of the columns, which are the fields.
            values = db_node._asdict()
        else:
            values = {name: getattr(db_node, name) for name in cls.fields
                      if name not in _LOADED_FIELDS}
        for name in _CONVERTED_FIELDS:
            values[name] = _from_row_value(name, values[name])
        return cls._from_values(context, **values)

    @staticmethod
    def _to_db_values(changes):
        values = {name: value for name, value in changes.items()
                  if name not in _LOADED_FIELDS}
        for name, (_cls, to_plain, _from) in _STRUCTURED_FIELDS.items():
            if values.get(name) is not None:
                values[name] = getattr(values[name], to_plain)()
        return values

    @base.remotable_classmethod
    def get_by_uuid(cls, context, uuid):
        return cls._from_row(context, db_api.compute_node_get(context, uuid))

    @base.remotable_classmethod
    def get_by_hostname(cls, context, hostname):
        return cls._from_row(
            context, db_api.compute_node_get_by_hostname(context, hostname))

    @base.remotable
    def create(self):
        if self.obj_attr_is_set('id'):
            raise exception.ObjectActionError(action='create',
                                              reason='already created')
        values = self._to_db_values(self.obj_get_changes())
        db_node = db_api.compute_node_create(self._context, values)
        self._from_db_object(self._context, self, db_node)
        _notify(self._context, self, 'create')

    @base.remotable
    def save(self):
        """Write the changed fields; nothing at all when none changed."""
        # Includes changes inside the NUMA topology and PCI pools.
        changes = self.obj_get_changes()
        for name in ('id',) + _LOADED_FIELDS:
            changes.pop(name, None)
        if not changes:
            return
        db_node = db_api.compute_node_update(
            self._context, self.uuid, self._to_db_values(changes))
        self._from_db_object(self._context, self, db_node)
        # Listeners hear of changes to what the payload shows, nothing else.
        if set(changes) & notifications.ComputeNodePayload.watched_fields():
            _notify(self._context, self, 'update')

    @base.remotable
    def destroy(self):
        db_api.compute_node_destroy(self._context, self.uuid)
        self.obj_reset_changes()
        _notify(self._context, self, 'delete')


@base.ZunHostcapObjectRegistry.register
class ComputeNodeList(base.ObjectListBase, base.ZunHostcapObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('ComputeNode'),
    }

    @staticmethod
    def get_all_values(context, names, limit=None, marker=None,
                       sort_key=None, sort_dir=None):
        """A page as plain data: a dict of the fields ``names`` per host.

        What the objects of ``get_all`` would give, in the order of
        ``names``, the NUMA topology and PCI pools as their ``to_dict()``
        and ``to_list()``, for a caller that only shows them (the API's
        list): no object is built. Where the database is (not through the
        conductor).
        """
        rows = db_api.compute_node_get_all(
            context, limit=limit, marker=marker, sort_key=sort_key,
            sort_dir=sort_dir, columns=names, json_text=True)
        # The JSON columns come as their text, each distinct text decoded
        # once: a fleet's hosts share their runtimes, PCI pools and many
        # labels. Hosts with the same text share its value (plain data
        # for a document, not to be changed in place).
        decoders = [(index, name, {}) for index, name in enumerate(names)
                    if name in _JSON_COLUMNS]
        hosts = []
        for row in rows:
            values = dict(zip(names, row))
            for index, name, decoded in decoders:
                text = row[index]
                if text is None:
                    continue
                try:
                    values[name] = decoded[text]
                except KeyError:
                    values[name] = decoded[text] = _plain_of_json(name, text)
            hosts.append(values)
        return hosts

    @base.remotable_classmethod
    def get_all(cls, context, limit=None, marker=None, sort_key=None,
                sort_dir=None):
        db_nodes = db_api.compute_node_get_all(
            context, limit=limit, marker=marker, sort_key=sort_key,
            sort_dir=sort_dir)
        # No per-row setattr() nor change tracking: a page of a thousand
        # hosts is built in milliseconds.
        from_row = ComputeNode._from_row
        return cls._from_values(context, objects=[
            from_row(context, db_node) for db_node in db_nodes])
