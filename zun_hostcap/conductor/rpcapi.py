"""Client side of the conductor RPC API.

API version history:

    1.0 - Initial version: object_class_action_versions, object_action,
          object_backport_versions, ping
    1.1 - service_report_state: a heartbeat as a cast
"""

import threading
import time

from oslo_log import log as logging

import oslo_messaging as messaging
from oslo_versionedobjects import base as ovo_base

from zun_hostcap.common import rpc
import zun_hostcap.conf

CONF = zun_hostcap.conf.CONF
LOG = logging.getLogger(__name__)

# Seconds one ping waits before it is sent again.
PING_TIMEOUT = 5

# Release names an operator may give in [upgrade_levels] conductor.
VERSION_ALIASES = {
    '2026.2': '1.0',
}


class ConductorAPI(ovo_base.VersionedObjectIndirectionAPI):
    """Sends object calls to the conductor; the compute's indirection_api.

    Every object call is an RPC ``call``: the caller waits for the
    conductor's answer, because the object state it returns is the truth.
    A heartbeat is a ``cast``: nothing comes back that the service needs.
    """

    RPC_API_VERSION = '1.1'

    def __init__(self, topic=None):
        super().__init__()
        target = messaging.Target(topic=topic or CONF.conductor.topic,
                                  version='1.0')
        cap = CONF.upgrade_levels.conductor
        version_cap = VERSION_ALIASES.get(cap, cap)
        self.client = rpc.get_client(target, version_cap=version_cap)

    def wait_until_ready(self, context, stop_event=None):
        """Block until a conductor answers; warn while none does.

        A call sent before any conductor listens is lost (RabbitMQ drops a
        message no queue is bound for), so a service that starts first
        would otherwise wait out the whole RPC timeout.

        :param stop_event: a threading.Event that ends the wait early.
        :returns: True once a conductor answered, False if stopped.
        """
        stop_event = stop_event or threading.Event()
        cctxt = self.client.prepare(timeout=PING_TIMEOUT)
        attempt = 0
        while not stop_event.is_set():
            attempt += 1
            try:
                cctxt.call(context, 'ping')
                if attempt > 1:
                    LOG.info('zun-hostcap-conductor answered after %d '
                             'attempts', attempt)
                return True
            except messaging.MessagingTimeout:
                LOG.warning('No zun-hostcap-conductor answered on topic '
                            '%(topic)s within %(timeout)ss (attempt '
                            '%(attempt)d). Is one running? Retrying.',
                            {'topic': self.client.target.topic,
                             'timeout': PING_TIMEOUT, 'attempt': attempt})
        return False

    def _prepare(self):
        # A call lost on the way (a broker restart) fails after the call
        # monitor's timeout, not rpc_response_timeout.
        return self.client.prepare(
            call_monitor_timeout=CONF.conductor.call_monitor_timeout)

    def object_class_action_versions(self, context, objname, objmethod,
                                     object_versions, args, kwargs):
        """Run a remotable classmethod of ``objname`` in the conductor."""
        cctxt = self._prepare()
        return cctxt.call(context, 'object_class_action_versions',
                          objname=objname, objmethod=objmethod,
                          object_versions=object_versions,
                          args=args, kwargs=kwargs)

    def object_action(self, context, objinst, objmethod, args, kwargs):
        """Run a remotable method of ``objinst`` in the conductor."""
        cctxt = self._prepare()
        return cctxt.call(context, 'object_action', objinst=objinst,
                          objmethod=objmethod, args=args, kwargs=kwargs)

    def service_report_state(self, context, service):
        """Tell the conductor that ``service`` (a Service object) is alive.

        A cast (1.1): the conductor writes it with the other heartbeats of
        the same second. It expires in RabbitMQ after report_interval, when
        the next heartbeat makes it useless: a conductor that was away
        does not find a backlog of old ones. Capped at 1.0 ([upgrade_levels]
        conductor, while conductors of the previous release run), it is the
        remotable ``Service.heartbeat()``, a call that writes one row.
        """
        if not self.client.can_send_version('1.1'):
            service.heartbeat()
            return
        cctxt = self.client.prepare(version='1.1',
                                    timeout=CONF.report_interval)
        cctxt.cast(context, 'service_report_state', service_id=service.id,
                   sent_at=time.time())

    def object_backport_versions(self, context, objinst, object_versions):
        """Have the conductor backport ``objinst`` to versions we know."""
        cctxt = self._prepare()
        return cctxt.call(context, 'object_backport_versions',
                          objinst=objinst, object_versions=object_versions)
