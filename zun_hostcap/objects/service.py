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

"""Service: one running zun-hostcap binary on one host.

Each service records in its row the service version of the release it
runs: what it understands of the others. A compute service with
``[upgrade_levels] conductor = auto`` reads the oldest conductor's
(``Service.get_minimum_version``) and sends what that one understands,
as ``SERVICE_VERSION_HISTORY`` says.
"""

from oslo_utils import versionutils
from oslo_versionedobjects import fields

import zun_hostcap.conf
from zun_hostcap.db import api as db_api
from zun_hostcap.objects import base

CONF = zun_hostcap.conf.CONF

# What a service of each service version understands of what compute
# services send it: the conductor RPC API and the object versions. One
# entry more for every release that changes either; its index is the
# version a service of that release records. ``objects`` None: this
# code's own versions.
SERVICE_VERSION_HISTORY = (
    # Version 0: 2026.2, which records no version (the column's default).
    {'release': '2026.2', 'conductor_rpc': '1.0',
     'objects': {'ComputeNode': '1.0', 'ComputeNodeList': '1.0',
                 'NUMANode': '1.0', 'NUMATopology': '1.0',
                 'PciDevicePool': '1.0', 'PciDevicePoolList': '1.0',
                 'Service': '1.0', 'ServiceList': '1.0'}},
    # Version 1: conductor RPC API 1.1 (the heartbeat cast); ComputeNode
    # 1.1 (inventory), Service 1.1 (version, get_minimum_version).
    {'release': None, 'conductor_rpc': '1.1', 'objects': None},
)
SERVICE_VERSION = len(SERVICE_VERSION_HISTORY) - 1


@base.ZunHostcapObjectRegistry.register
class Service(base.ZunHostcapPersistentObject, base.ZunHostcapObject):
    """A service and its heartbeat.

    Version history:

    * 1.0: Initial version
    * 1.1: ``version``, the service version of its release;
      ``get_minimum_version()``
    """

    # Version 1.0: Initial version
    # Version 1.1: version; get_minimum_version()
    VERSION = '1.1'

    fields = {
        'id': fields.IntegerField(read_only=True),
        'host': fields.StringField(),
        'binary': fields.StringField(),
        'topic': fields.StringField(nullable=True),
        'report_count': fields.NonNegativeIntegerField(default=0),
        'disabled': fields.BooleanField(default=False),
        'disabled_reason': fields.StringField(nullable=True),
        'forced_down': fields.BooleanField(default=False),
        'last_seen_up': fields.DateTimeField(nullable=True),
        'version': fields.NonNegativeIntegerField(default=0),
    }

    def obj_make_compatible(self, primitive, target_version):
        super().obj_make_compatible(primitive, target_version)
        if versionutils.convert_version_to_tuple(target_version) < (1, 1):
            primitive.pop('version', None)

    @staticmethod
    def _from_db_object(context, service, db_service):
        for name in service.fields:
            setattr(service, name, db_service[name])
        service._context = context
        service.obj_reset_changes()
        return service

    @base.remotable_classmethod
    def get_by_host_and_binary(cls, context, host, binary):
        db_service = db_api.service_get_by_host_and_binary(context, host,
                                                           binary)
        return cls._from_db_object(context, cls(), db_service)

    @base.remotable_classmethod
    def get_minimum_version(cls, context, binary):
        """The oldest service version of the ``binary`` services up.

        Up as ``/v1/services`` shows them ([DEFAULT] service_down_time);
        when none is, the oldest of them all; None when there is none. A
        conductor of 2026.2 answers IncompatibleObjectVersion: it has no
        Service 1.1.
        """
        return db_api.service_get_minimum_version(context, binary,
                                                  CONF.service_down_time)

    @base.remotable
    def create(self):
        values = self.obj_get_changes()
        for name in ('report_count', 'disabled', 'forced_down', 'version'):
            values.setdefault(name, self.fields[name].default)
        db_service = db_api.service_create(self._context, values)
        self._from_db_object(self._context, self, db_service)

    @base.remotable
    def save(self):
        changes = self.obj_get_changes()
        changes.pop('id', None)
        if not changes:
            return
        db_service = db_api.service_update(self._context, self.id, changes)
        self._from_db_object(self._context, self, db_service)

    @base.remotable
    def heartbeat(self):
        """Record that the service is alive: one more report, now."""
        db_service = db_api.service_heartbeat(self._context, self.id)
        self._from_db_object(self._context, self, db_service)

    @classmethod
    def record_heartbeats(cls, context, beats):
        """Write many services' heartbeats at once; the conductor's batch.

        Not remotable: services cast their heartbeat to the conductor
        (conductor RPC API 1.1), which calls this for what it received.

        :param beats: {service id: heartbeats received}.
        :returns: the ids that match no service.
        """
        return db_api.service_heartbeats(context, beats)

    @base.remotable
    def destroy(self):
        db_api.service_destroy(self._context, self.id)


@base.ZunHostcapObjectRegistry.register
class ServiceList(base.ObjectListBase, base.ZunHostcapObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('Service'),
    }

    @base.remotable_classmethod
    def get_all(cls, context, disabled=None):
        db_services = db_api.service_get_all(context, disabled=disabled)
        return cls(context, objects=[
            Service._from_db_object(context, Service(), db_service)
            for db_service in db_services])
