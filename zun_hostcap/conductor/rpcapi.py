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

"""Client side of the conductor RPC API.

API version history:

    1.0 - Initial version: object_class_action_versions, object_action,
          object_backport_versions, ping
    1.1 - service_report_state: a heartbeat as a cast

What a client sends is pinned by ``[upgrade_levels] conductor``: a
release, an RPC API version, or ``auto`` (the default), the oldest
release among the conductors that are up, from the service versions
they record. Pinned to an older release, it sends that release's RPC API
version and its object versions (``SERVICE_VERSION_HISTORY``), so that
conductors of both releases understand every message.
"""

import threading
import time

from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_utils import versionutils
from oslo_versionedobjects import base as ovo_base
from oslo_versionedobjects import exception as ovo_exc

from zun_hostcap.common import exception
from zun_hostcap.common import rpc
import zun_hostcap.conf
from zun_hostcap.objects import service as service_obj

CONF = zun_hostcap.conf.CONF
LOG = logging.getLogger(__name__)

# Seconds one ping waits before it is sent again.
PING_TIMEOUT = 5

# The binary whose recorded versions ``auto`` reads.
CONDUCTOR_BINARY = 'zun-hostcap-conductor'

# [upgrade_levels] conductor: pin to the oldest conductor's release.
AUTO = 'auto'

_HISTORY = service_obj.SERVICE_VERSION_HISTORY

# Release names an operator may give in [upgrade_levels] conductor.
VERSION_ALIASES = {entry['release']: entry['conductor_rpc']
                   for entry in _HISTORY if entry['release']}


def _version_tuple(version):
    return versionutils.convert_version_to_tuple(version)


def service_version_of(setting):
    """The service version an [upgrade_levels] conductor value pins to.

    The newest whose conductor RPC API a release name or version allows;
    ``SERVICE_VERSION`` when unset. Not for ``auto``.
    """
    if not setting:
        return service_obj.SERVICE_VERSION
    cap = _version_tuple(VERSION_ALIASES.get(setting, setting))
    allowed = [number for number, entry in enumerate(_HISTORY)
               if _version_tuple(entry['conductor_rpc']) <= cap]
    return allowed[-1] if allowed else 0


def release_name(service_version):
    """How log lines name the release of a service version."""
    return _HISTORY[service_version]['release'] or 'this release'


def _capped(object_versions, pinned):
    """``object_versions`` no newer than the ``pinned`` ones."""
    return {name: (pinned[name] if name in pinned and
                   _version_tuple(pinned[name]) < _version_tuple(version)
                   else version)
            for name, version in object_versions.items()}


def _is_incompatible_version(err):
    # A conductor answers it as itself in one process; over a broker,
    # whose allowed exception modules ours are, as a RemoteError.
    return (isinstance(err, ovo_exc.IncompatibleObjectVersion) or
            getattr(err, 'exc_type', None) == 'IncompatibleObjectVersion')


class ConductorAPI(ovo_base.VersionedObjectIndirectionAPI):
    """Sends object calls to the conductor; the compute's indirection_api.

    Every object call is an RPC ``call``: the caller waits for the
    conductor's answer, because the object state it returns is the truth.
    A heartbeat is a ``cast``: nothing comes back that the service needs.
    """

    RPC_API_VERSION = '1.1'

    def __init__(self, topic=None):
        super().__init__()
        self._target = messaging.Target(
            topic=topic or CONF.conductor.topic, version='1.0')
        setting = CONF.upgrade_levels.conductor
        self.auto = setting == AUTO
        # With auto: when the conductors' versions were last read, and
        # until they are, the oldest release this code talks to.
        self._checked_at = None
        self._known = False
        if self.auto:
            self._pin(0)
        else:
            self._pin(service_version_of(setting),
                      VERSION_ALIASES.get(setting, setting) or None)

    def _pin(self, service_version, version_cap=None):
        """Send what services of ``service_version`` understand.

        :param version_cap: an RPC API version cap given as such, rather
            than the service version's.
        """
        entry = _HISTORY[service_version]
        self.service_version = service_version
        if version_cap is None and service_version < len(_HISTORY) - 1:
            version_cap = entry['conductor_rpc']
        self.object_versions = entry['objects']
        self.client = rpc.get_client(self._target, version_cap=version_cap,
                                     object_versions=self.object_versions)

    # [upgrade_levels] conductor = auto

    def _oldest_conductor_version(self, context):
        """The oldest service version among the conductors that are up.

        Sent as is rather than through the remotable method, which this
        client's pin would send as Service 1.0: a conductor of 2026.2
        would then fail with an AttributeError, logged with its traceback;
        asked for Service 1.1 it answers IncompatibleObjectVersion, an
        expected answer, and that release it is.
        """
        try:
            version = self._prepare().call(
                context, 'object_class_action_versions', objname='Service',
                objmethod='get_minimum_version',
                object_versions={'Service': service_obj.Service.VERSION},
                args=(CONDUCTOR_BINARY,), kwargs={})
        except Exception as err:
            if _is_incompatible_version(err):
                return 0
            raise
        if version is None:
            # No conductor recorded one yet: the oldest this code knows.
            return 0
        return min(version, service_obj.SERVICE_VERSION)

    def check_conductor_versions(self, context):
        """With ``auto``: pin to the oldest conductor's release now.

        One log line when the pin changes. While the versions cannot be
        read (no conductor answers, its database is down), the pin stays
        as it is and they are read again at the next check.
        """
        if not self.auto:
            return
        self._checked_at = time.monotonic()
        try:
            version = self._oldest_conductor_version(context)
        except Exception as err:
            LOG.warning('[upgrade_levels] conductor = auto: the service '
                        'versions of the conductors cannot be read '
                        '(%(error)s); this service sends what %(release)s '
                        'understands until they can.',
                        {'error': exception.one_line(err),
                         'release': release_name(self.service_version)})
            return
        if self._known and version == self.service_version:
            return
        self._known = True
        self._pin(version)
        topic = self._target.topic
        if version == service_obj.SERVICE_VERSION:
            LOG.info('[upgrade_levels] conductor = auto: every '
                     '%(binary)s on topic %(topic)s runs this release; this '
                     'service sends conductor RPC API %(rpc)s.',
                     {'binary': CONDUCTOR_BINARY, 'topic': topic,
                      'rpc': self.RPC_API_VERSION})
            return
        LOG.info('[upgrade_levels] conductor = auto: a %(binary)s of '
                 '%(release)s runs on topic %(topic)s; until every one runs '
                 'this release, this service sends conductor RPC API '
                 '%(rpc)s and the objects of %(release)s, and reads the '
                 'conductors\' versions again every %(interval)d s.',
                 {'binary': CONDUCTOR_BINARY, 'topic': topic,
                  'release': release_name(version),
                  'rpc': _HISTORY[version]['conductor_rpc'],
                  'interval': CONF.service_down_time})

    def _check_if_due(self, context):
        """Read the conductors' versions again while pinned by ``auto``.

        Every [DEFAULT] service_down_time seconds: a conductor that
        stopped counts until it shows down.
        """
        if not self.auto or (self._known and self.service_version ==
                             service_obj.SERVICE_VERSION):
            return
        if (self._checked_at is None or time.monotonic() - self._checked_at
                >= CONF.service_down_time):
            self.check_conductor_versions(context)

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
                self.check_conductor_versions(context)
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
        if self.object_versions:
            # What a conductor of the pinned release can load and answer.
            object_versions = _capped(object_versions, self.object_versions)
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
        conductor, while conductors of 2026.2 run), it is the
        remotable ``Service.heartbeat()``, a call that writes one row.
        With ``auto``, pinned to an older release, the conductors'
        versions are read again when due.
        """
        self._check_if_due(context)
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
