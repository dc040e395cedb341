"""ComputeNode: what one host has and uses."""

from oslo_versionedobjects import fields

from zun_hostcap.common import exception
import zun_hostcap.conf
from zun_hostcap.db import api as db_api
from zun_hostcap.objects import base
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


@base.ZunHostcapObjectRegistry.register
class ComputeNode(base.ZunHostcapPersistentObject, base.ZunHostcapObject):
    """A container host: capacity, usage and what runs it."""

    # Version 1.0: Initial version
    VERSION = '1.0'

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
    }

    @staticmethod
    def _from_db_object(context, node, db_node):
        """Fill ``node`` from a database row and mark it unchanged."""
        for name in node.fields:
            value = db_node[name]
            if name in _STRUCTURED_FIELDS and value is not None:
                cls, _to_plain, from_plain = _STRUCTURED_FIELDS[name]
                value = getattr(cls, from_plain)(value)
            setattr(node, name, value)
        node._context = context
        node.obj_reset_changes(recursive=True)
        return node

    @staticmethod
    def _to_db_values(changes):
        values = dict(changes)
        for name, (_cls, to_plain, _from) in _STRUCTURED_FIELDS.items():
            if values.get(name) is not None:
                values[name] = getattr(values[name], to_plain)()
        return values

    @base.remotable_classmethod
    def get_by_uuid(cls, context, uuid):
        db_node = db_api.compute_node_get(context, uuid)
        return cls._from_db_object(context, cls(), db_node)

    @base.remotable_classmethod
    def get_by_hostname(cls, context, hostname):
        db_node = db_api.compute_node_get_by_hostname(context, hostname)
        return cls._from_db_object(context, cls(), db_node)

    @base.remotable
    def create(self):
        if self.obj_attr_is_set('id'):
            raise exception.ObjectActionError(action='create',
                                              reason='already created')
        values = self._to_db_values(self.obj_get_changes())
        db_node = db_api.compute_node_create(self._context, values)
        self._from_db_object(self._context, self, db_node)
        notifications.emit(self._context, self, 'create', CONF.host)

    @base.remotable
    def save(self):
        """Write the changed fields; nothing at all when none changed."""
        # Includes changes inside the NUMA topology and PCI pools.
        changes = self.obj_get_changes()
        changes.pop('id', None)
        if not changes:
            return
        db_node = db_api.compute_node_update(
            self._context, self.uuid, self._to_db_values(changes))
        self._from_db_object(self._context, self, db_node)
        # Listeners hear of changes to what the payload shows, nothing else.
        if set(changes) & notifications.ComputeNodePayload.watched_fields():
            notifications.emit(self._context, self, 'update', CONF.host)

    @base.remotable
    def destroy(self):
        db_api.compute_node_destroy(self._context, self.uuid)
        self.obj_reset_changes()
        notifications.emit(self._context, self, 'delete', CONF.host)


@base.ZunHostcapObjectRegistry.register
class ComputeNodeList(base.ObjectListBase, base.ZunHostcapObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('ComputeNode'),
    }

    @base.remotable_classmethod
    def get_all(cls, context, limit=None, marker=None, sort_key=None,
                sort_dir=None):
        db_nodes = db_api.compute_node_get_all(
            context, limit=limit, marker=marker, sort_key=sort_key,
            sort_dir=sort_dir)
        return cls(context, objects=[
            ComputeNode._from_db_object(context, ComputeNode(), db_node)
            for db_node in db_nodes])
