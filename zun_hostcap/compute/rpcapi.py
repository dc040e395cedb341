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

"""Client side of the compute RPC API: asking a host for room.

API version history:

    1.0 - Initial version: claim, abort_claim, drop_claim
"""

import oslo_messaging as messaging

from zun_hostcap.common import rpc
import zun_hostcap.conf

CONF = zun_hostcap.conf.CONF

# Release names an operator may give in [upgrade_levels] compute.
VERSION_ALIASES = {
    '2026.2': '1.0',
}


class ComputeAPI(object):
    """Asks the compute service of a host for room for a container.

    A claim is written to Placement by the host itself, as the allocation
    of the container's consumer uuid, so that the host's periodic audit
    knows it before the container exists.
    """

    RPC_API_VERSION = '1.0'

    def __init__(self, topic=None):
        target = messaging.Target(topic=topic or CONF.compute.topic,
                                  version='1.0')
        cap = CONF.upgrade_levels.compute
        self.client = rpc.get_client(
            target, version_cap=VERSION_ALIASES.get(cap, cap))

    def _prepare(self, host):
        return self.client.prepare(server=host, version='1.0')

    def claim(self, context, host, consumer_uuid, resources, project_id,
              user_id):
        """Claim ``resources`` ({class: amount}) on ``host``.

        :raises ClaimFailed: no room, with Placement's reason.
        """
        return self._prepare(host).call(
            context, 'claim', consumer_uuid=consumer_uuid,
            resources=resources, project_id=project_id, user_id=user_id)

    def abort_claim(self, context, host, consumer_uuid):
        """The container of a claim will not be made: release it."""
        return self._prepare(host).call(context, 'abort_claim',
                                        consumer_uuid=consumer_uuid)

    def drop_claim(self, context, host, consumer_uuid):
        """The container of a claim is gone: release what it held."""
        return self._prepare(host).call(context, 'drop_claim',
                                        consumer_uuid=consumer_uuid)
