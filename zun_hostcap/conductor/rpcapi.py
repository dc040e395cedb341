"""Client side of the conductor RPC API.

API version history:

    1.0 - Initial version: object_class_action_versions, object_action,
          object_backport_versions
"""

import oslo_messaging as messaging
from oslo_versionedobjects import base as ovo_base

from zun_hostcap.common import rpc
import zun_hostcap.conf

CONF = zun_hostcap.conf.CONF

# Release names an operator may give in [upgrade_levels] conductor.
VERSION_ALIASES = {
    '2026.2': '1.0',
}


class ConductorAPI(ovo_base.VersionedObjectIndirectionAPI):
    """Sends object calls to the conductor; the compute's indirection_api.

    Every call is an RPC ``call``: the caller waits for the conductor's
    answer, because the object state it returns is the truth.
    """

    RPC_API_VERSION = '1.0'

    def __init__(self, topic=None):
        super().__init__()
        target = messaging.Target(topic=topic or CONF.conductor.topic,
                                  version='1.0')
        cap = CONF.upgrade_levels.conductor
        version_cap = VERSION_ALIASES.get(cap, cap)
        self.client = rpc.get_client(target, version_cap=version_cap)

    def object_class_action_versions(self, context, objname, objmethod,
                                     object_versions, args, kwargs):
        """Run a remotable classmethod of ``objname`` in the conductor."""
        cctxt = self.client.prepare()
        return cctxt.call(context, 'object_class_action_versions',
                          objname=objname, objmethod=objmethod,
                          object_versions=object_versions,
                          args=args, kwargs=kwargs)

    def object_action(self, context, objinst, objmethod, args, kwargs):
        """Run a remotable method of ``objinst`` in the conductor."""
        cctxt = self.client.prepare()
        return cctxt.call(context, 'object_action', objinst=objinst,
                          objmethod=objmethod, args=args, kwargs=kwargs)

    def object_backport_versions(self, context, objinst, object_versions):
        """Have the conductor backport ``objinst`` to versions we know."""
        cctxt = self.client.prepare()
        return cctxt.call(context, 'object_backport_versions',
                          objinst=objinst, object_versions=object_versions)
