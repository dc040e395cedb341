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

"""Notifications about compute nodes: compute_node.create/update/delete."""

from oslo_versionedobjects import fields

from zun_hostcap.objects import base
from zun_hostcap.objects.notifications import base as notification


@base.ZunHostcapObjectRegistry.register
class NUMANodePayload(notification.NotificationPayloadBase):
    """One NUMA node of a compute node."""

    SCHEMA = {
        'id': ('numa_node', 'id'),
        'cpuset': ('numa_node', 'cpuset'),
        'pinned_cpus': ('numa_node', 'pinned_cpus'),
        'mem_total': ('numa_node', 'mem_total'),
        'mem_available': ('numa_node', 'mem_available'),
    }
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'id': fields.IntegerField(),
        'cpuset': fields.SetOfIntegersField(),
        'pinned_cpus': fields.SetOfIntegersField(),
        'mem_total': fields.IntegerField(),
        'mem_available': fields.IntegerField(),
    }

    def __init__(self, numa_node=None):
        super().__init__()
        if numa_node is not None:
            self.populate_schema(numa_node=numa_node)


@base.ZunHostcapObjectRegistry.register
class ComputeNodePayload(notification.NotificationPayloadBase):
    """What a compute node has and uses; memory in MiB, disk in GiB."""

    SCHEMA = {
        'id': ('compute_node', 'id'),
        'uuid': ('compute_node', 'uuid'),
        'host': ('compute_node', 'hostname'),
        'cpus': ('compute_node', 'cpus'),
        'cpu_used': ('compute_node', 'cpu_used'),
        'mem_total': ('compute_node', 'mem_total'),
        'mem_used': ('compute_node', 'mem_used'),
        'mem_free': ('compute_node', 'mem_free'),
        'mem_available': ('compute_node', 'mem_available'),
        'disk_total': ('compute_node', 'disk_total'),
        'disk_used': ('compute_node', 'disk_used'),
        'total_containers': ('compute_node', 'total_containers'),
        'running_containers': ('compute_node', 'running_containers'),
        'paused_containers': ('compute_node', 'paused_containers'),
        'stopped_containers': ('compute_node', 'stopped_containers'),
        'architecture': ('compute_node', 'architecture'),
        'os_type': ('compute_node', 'os_type'),
        'os': ('compute_node', 'os'),
        'kernel_version': ('compute_node', 'kernel_version'),
        'runtimes': ('compute_node', 'runtimes'),
    }
    # Fields computed from others; they change when their sources do.
    DERIVED_FROM = {
        'disk_free': ('disk_total', 'disk_used'),
        'numa_topology': ('numa_topology',),
    }
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'id': fields.IntegerField(),
        'uuid': fields.UUIDField(),
        'host': fields.StringField(),
        'cpus': fields.IntegerField(),
        'cpu_used': fields.FloatField(),
        'mem_total': fields.IntegerField(),
        'mem_used': fields.IntegerField(),
        'mem_free': fields.IntegerField(),
        'mem_available': fields.IntegerField(),
        'disk_total': fields.IntegerField(),
        'disk_used': fields.IntegerField(),
        'disk_free': fields.IntegerField(),
        'total_containers': fields.IntegerField(),
        'running_containers': fields.IntegerField(),
        'paused_containers': fields.IntegerField(),
        'stopped_containers': fields.IntegerField(),
        'architecture': fields.StringField(nullable=True),
        'os_type': fields.StringField(nullable=True),
        'os': fields.StringField(nullable=True),
        'kernel_version': fields.StringField(nullable=True),
        'runtimes': fields.ListOfStringsField(nullable=True),
        'numa_topology': fields.ListOfObjectsField('NUMANodePayload',
                                                   nullable=True),
    }

    def __init__(self, compute_node=None):
        super().__init__()
        if compute_node is None:
            return  # being deserialized
        self.populate_schema(compute_node=compute_node)
        self.disk_free = max(0, compute_node.disk_total -
                             compute_node.disk_used)
        topology = compute_node.numa_topology
        self.numa_topology = (None if topology is None else
                              [NUMANodePayload(cell)
                               for cell in topology.nodes])
        self.obj_reset_changes(recursive=True)

    @classmethod
    def watched_fields(cls):
        """ComputeNode fields whose change is worth an update."""
        watched = cls.source_fields('compute_node')
        for sources in cls.DERIVED_FROM.values():
            watched.update(sources)
        return watched


@base.ZunHostcapObjectRegistry.register
class ComputeNodeDeletePayload(notification.NotificationPayloadBase):
    """The identity of a deleted compute node."""

    SCHEMA = {
        'id': ('compute_node', 'id'),
        'uuid': ('compute_node', 'uuid'),
    }
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'id': fields.IntegerField(),
        'uuid': fields.UUIDField(),
    }

    def __init__(self, compute_node=None):
        super().__init__()
        if compute_node is not None:
            self.populate_schema(compute_node=compute_node)


@notification.notification_sample('compute_node-create.json',
                                  'compute_node-update.json')
@base.ZunHostcapObjectRegistry.register
class ComputeNodeNotification(notification.NotificationBase):
    """compute_node.create and compute_node.update."""

    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'payload': fields.ObjectField('ComputeNodePayload'),
    }


@notification.notification_sample('compute_node-delete.json')
@base.ZunHostcapObjectRegistry.register
class ComputeNodeDeleteNotification(notification.NotificationBase):
    """compute_node.delete."""

    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'payload': fields.ObjectField('ComputeNodeDeletePayload'),
    }


def emit(context, compute_node, action):
    """Send compute_node.<action> about ``compute_node`` from this host."""
    if action == 'delete':
        cls, payload = (ComputeNodeDeleteNotification,
                        ComputeNodeDeletePayload(compute_node))
    else:
        cls, payload = (ComputeNodeNotification,
                        ComputeNodePayload(compute_node))
    notification.make(cls, 'compute_node', action, payload).emit(context)
