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

"""Server side of the conductor RPC API: object indirection.

The compute service sends its objects' remotable calls here; the conductor
runs them against the database and returns the result and the changed
fields, backported to the versions the caller knows.
"""

import datetime

from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_service import periodic_task
from oslo_versionedobjects import exception as ovo_exc

from zun_hostcap.common import concurrency
from zun_hostcap.common import context as zun_context
from zun_hostcap.common import exception
from zun_hostcap.common import metrics
from zun_hostcap.conductor import heartbeats
import zun_hostcap.conf
from zun_hostcap.objects import base as objects_base

CONF = zun_hostcap.conf.CONF
LOG = logging.getLogger(__name__)

# Values that cannot change in place: one held before and after a call
# is the same value.
_IMMUTABLE = (str, int, float, bool, type(None), datetime.datetime)
_UNSET = object()


def _held_values(objinst):
    """{field: (value held, its primitive if it could change in place)}.

    What ``object_action`` compares after the call, instead of a deep
    copy of the object: the values themselves, and for objects, lists and
    dicts their primitive (objects do not compare by value).
    """
    held = {}
    for name, field in objinst.fields.items():
        value = objects_base.stored(objinst, name, _UNSET)
        if value is _UNSET:
            continue
        held[name] = (value, None if isinstance(value, _IMMUTABLE) else
                      field.to_primitive(objinst, name, value))
    return held


def _updates(objinst, before):
    """The primitives of the fields whose primitive the call changed.

    A field still holding the same immutable value is left out without
    a look at its primitive; the others are compared by primitive, as
    the caller will see them.
    """
    updates = {}
    for name, field in objinst.fields.items():
        value = objects_base.stored(objinst, name, _UNSET)
        if value is _UNSET:
            continue
        old, old_primitive = before.get(name, (_UNSET, None))
        if value is old and old_primitive is None:
            continue
        primitive = field.to_primitive(objinst, name, value)
        if old is not _UNSET and old_primitive is None:
            old_primitive = field.to_primitive(objinst, name, old)
        if old is _UNSET or primitive != old_primitive:
            updates[name] = primitive
    return updates


class ConductorManager(periodic_task.PeriodicTasks):
    """The conductor's RPC endpoint."""

    # 1.1: service_report_state
    target = messaging.Target(version='1.1')

    def __init__(self):
        super().__init__(CONF)
        self.heartbeats = heartbeats.HeartbeatBatcher()

    @metrics.counted_rpc
    def ping(self, context):
        """Answer, so a starting service knows a conductor listens."""
        return 'pong'

    @metrics.counted_rpc
    def service_report_state(self, context, service_id, sent_at=None):
        """Count a heartbeat of the service ``service_id`` (a cast).

        Written with the other heartbeats of the same second in one
        statement (``flush_heartbeats``).

        :param sent_at: when the service sent it, in seconds since the
            epoch; for the lag figures.

        New in 1.1.
        """
        self.heartbeats.add(service_id, sent_at)

    @periodic_task.periodic_task(spacing=heartbeats.FLUSH_INTERVAL,
                                 run_immediately=True)
    def flush_heartbeats(self, context):
        """Write the heartbeats received since the last run."""
        self.heartbeats.flush(context)

    def cleanup_host(self):
        """On stop: write the heartbeats still pending."""
        self.heartbeats.flush(zun_context.get_admin_context())

    # Exceptions of ours are expected answers, not server errors: they are
    # sent back to the caller and re-raised there without a traceback here.
    @messaging.expected_exceptions(exception.ZunHostcapException,
                                   ovo_exc.IncompatibleObjectVersion)
    @metrics.counted_rpc
    def object_class_action_versions(self, context, objname, objmethod,
                                     object_versions, args, kwargs):
        """Call ``objname.objmethod`` and backport the result.

        :param object_versions: the caller's version of every object it
            knows, so the result comes back in a form it can load.
        """
        concurrency.log_once('conductor RPC handler')
        LOG.debug('RPC object_class_action_versions %(obj)s.%(method)s',
                  {'obj': objname, 'method': objmethod})
        objclass = objects_base.ZunHostcapObject.obj_class_from_name(
            objname, object_versions[objname])
        args = tuple(args or ())
        with objects_base.conductor_scope():
            result = getattr(objclass, objmethod)(context, *args,
                                                  **(kwargs or {}))
        if isinstance(result, objects_base.ZunHostcapObject):
            return result.obj_to_primitive(
                target_version=object_versions[objname],
                version_manifest=object_versions)
        return result

    @messaging.expected_exceptions(exception.ZunHostcapException)
    @metrics.counted_rpc
    def object_action(self, context, objinst, objmethod, args, kwargs):
        """Call ``objinst.objmethod``; return (changed fields, result)."""
        concurrency.log_once('conductor RPC handler')
        LOG.debug('RPC object_action %(obj)s.%(method)s',
                  {'obj': objinst.obj_name(), 'method': objmethod})
        before = _held_values(objinst)
        with objects_base.conductor_scope():
            result = getattr(objinst, objmethod)(*(args or ()),
                                                 **(kwargs or {}))
        updates = _updates(objinst, before)
        # What is still marked changed stays marked on the caller's side.
        updates['obj_what_changed'] = objinst.obj_what_changed()
        return updates, result

    @metrics.counted_rpc
    def object_backport_versions(self, context, objinst, object_versions):
        """Return ``objinst`` as a primitive of the given versions."""
        target = object_versions[objinst.obj_name()]
        LOG.debug('Backporting %(obj)s to %(ver)s',
                  {'obj': objinst.obj_name(), 'ver': target})
        return objinst.obj_to_primitive(target_version=target,
                                        version_manifest=object_versions)
