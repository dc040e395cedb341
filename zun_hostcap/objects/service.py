"""Service: one running zun-hostcap binary on one host."""

from oslo_versionedobjects import fields

from zun_hostcap.db import api as db_api
from zun_hostcap.objects import base


@base.ZunHostcapObjectRegistry.register
class Service(base.ZunHostcapPersistentObject, base.ZunHostcapObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

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
    }

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

    @base.remotable
    def create(self):
        values = self.obj_get_changes()
        for name in ('report_count', 'disabled', 'forced_down'):
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
