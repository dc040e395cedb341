"""Server side of the conductor RPC API: object indirection.

The compute service sends its objects' remotable calls here; the conductor
runs them against the database and returns the result and the changed
fields, backported to the versions the caller knows.
"""

from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_versionedobjects import exception as ovo_exc

from zun_hostcap.common import concurrency
from zun_hostcap.common import exception
from zun_hostcap.objects import base as objects_base

LOG = logging.getLogger(__name__)


class ConductorManager:
    """The conductor's RPC endpoint."""

    target = messaging.Target(version='1.0')

    def ping(self, context):
        """Answer, so a starting service knows a conductor listens."""
        return 'pong'

    # Exceptions of ours are expected answers, not server errors: they are
    # sent back to the caller and re-raised there without a traceback here.
    @messaging.expected_exceptions(exception.ZunHostcapException,
                                   ovo_exc.IncompatibleObjectVersion)
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
    def object_action(self, context, objinst, objmethod, args, kwargs):
        """Call ``objinst.objmethod``; return (changed fields, result)."""
        concurrency.log_once('conductor RPC handler')
        LOG.debug('RPC object_action %(obj)s.%(method)s',
                  {'obj': objinst.obj_name(), 'method': objmethod})
        before = objinst.obj_clone()
        with objects_base.conductor_scope():
            result = getattr(objinst, objmethod)(*(args or ()),
                                                 **(kwargs or {}))
        updates = {}
        for name, field in objinst.fields.items():
            if not objinst.obj_attr_is_set(name):
                continue
            # Objects do not compare by value; their primitives do.
            now = field.to_primitive(objinst, name, getattr(objinst, name))
            if (not before.obj_attr_is_set(name) or now != field.to_primitive(
                    before, name, getattr(before, name))):
                updates[name] = now
        # What is still marked changed stays marked on the caller's side.
        updates['obj_what_changed'] = objinst.obj_what_changed()
        return updates, result

    def object_backport_versions(self, context, objinst, object_versions):
        """Return ``objinst`` as a primitive of the given versions."""
        target = object_versions[objinst.obj_name()]
        LOG.debug('Backporting %(obj)s to %(ver)s',
                  {'obj': objinst.obj_name(), 'ver': target})
        return objinst.obj_to_primitive(target_version=target,
                                        version_manifest=object_versions)
