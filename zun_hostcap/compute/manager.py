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

"""The compute manager: the verbs of zun-hostcap-compute."""

from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_service import periodic_task

from zun_hostcap.common import exception
from zun_hostcap.compute import container
from zun_hostcap.compute import placement_client
from zun_hostcap.compute import placement_report
from zun_hostcap.compute import resource_tracker
import zun_hostcap.conf
from zun_hostcap import os_capability

CONF = zun_hostcap.conf.CONF
LOG = logging.getLogger(__name__)


def load_host_driver():
    """The os_capability driver configured in [compute]."""
    if CONF.compute.os_capability_driver == 'fake':
        return os_capability.load_driver(
            'fake', data_file=CONF.compute.fake_capabilities_file)
    return os_capability.load_driver(
        CONF.compute.os_capability_driver,
        cpu_source=CONF.compute.cpu_source,
        disk_path=CONF.compute.disk_path)


class ClaimsEndpoint(object):
    """The compute RPC API (see compute/rpcapi.py) of one host."""

    target = messaging.Target(version='1.0')

    def __init__(self, tracker):
        self.tracker = tracker

    @messaging.expected_exceptions(exception.ClaimFailed)
    def claim(self, context, consumer_uuid, resources, project_id=None,
              user_id=None):
        self.tracker.claim(consumer_uuid, resources, project_id, user_id)

    def abort_claim(self, context, consumer_uuid):
        return self.tracker.release_claim(consumer_uuid)

    def drop_claim(self, context, consumer_uuid):
        return self.tracker.release_claim(consumer_uuid)


class ComputeManager(periodic_task.PeriodicTasks):
    """Keeps this host's capabilities current in the database."""

    def __init__(self, host=None, host_driver=None, container_driver=None,
                 report_client=None):
        super().__init__(CONF)
        self.host = host or CONF.host
        self._apply_update_interval()
        if report_client is None and CONF.placement.auth_type:
            report_client = placement_client.ReportClient()
        if report_client is None:
            LOG.info('Not reporting to Placement: [placement] auth_type is '
                     'not set.')
        self.resource_tracker = resource_tracker.ResourceTracker(
            self.host,
            host_driver or load_host_driver(),
            container_driver or container.load_driver(
                CONF.compute.container_driver),
            granularity_percent=CONF.compute.usage_report_granularity,
            reporter=(placement_report.Reporter(report_client)
                      if report_client is not None else None))
        # Failed runs of the periodic task since the last one that worked.
        self._failed_updates = 0

    @property
    def rpc_endpoints(self):
        """What the compute RPC server serves: the claims only."""
        return [ClaimsEndpoint(self.resource_tracker)]

    def _apply_update_interval(self):
        # The decorator's spacing is fixed at import time, before the
        # configuration is read; this instance uses the configured one.
        self._periodic_spacing = dict(
            self._periodic_spacing,
            update_available_resource=(
                CONF.compute.resource_update_interval))

    def reset(self):
        """SIGHUP: a new [compute] resource_update_interval applies."""
        self._apply_update_interval()

    @periodic_task.periodic_task(run_immediately=True)
    def update_available_resource(self, context):
        """Probe this host and save its ComputeNode if it changed.

        Never raises, so the service outlives any failure: each is one log
        line without a traceback and the update is retried at the next
        interval; what was not saved stays pending on the object.
        """
        interval = CONF.compute.resource_update_interval
        try:
            self.resource_tracker.update_available_resource(context)
        except exception.HostProbeFailed as err:
            LOG.error('%s; the stored capabilities are left as they are.',
                      err)
        except exception.ContainerRuntimeUnavailable as err:
            # Nothing is saved: counting no containers would be a lie.
            LOG.warning('%(error)s; the resource update is retried in '
                        '%(interval)d seconds.',
                        {'error': exception.one_line(err),
                         'interval': interval})
        except (exception.PlacementServiceUnavailable,
                exception.PlacementRequestFailed) as err:
            # The host is saved; Placement hears of it at the next run.
            LOG.warning('%(error)s; the report to Placement is retried in '
                        '%(interval)d seconds.',
                        {'error': exception.one_line(err),
                         'interval': interval})
        except exception.PlacementServiceTooOld as err:
            LOG.error('%(error)s; the host is not reported to it. Point '
                      '[placement] at a newer one.',
                      {'error': exception.one_line(err)})
        except exception.DatabaseUnavailable as err:
            # The conductor answered: its database is down. The driver's
            # error is in kwargs (the message stays generic for clients).
            LOG.warning('zun-hostcap-conductor cannot reach the database '
                        '(%(reason)s); the resource update is retried in '
                        '%(interval)d seconds.',
                        {'reason': (err.kwargs.get('reason') or
                                    exception.one_line(err)),
                         'interval': interval})
        except exception.ServiceUnavailable as err:
            # Another backend of the conductor is down.
            LOG.warning('zun-hostcap-conductor cannot save the resource '
                        'update: %(error)s The update is retried in '
                        '%(interval)d seconds.',
                        {'error': exception.one_line(err),
                         'interval': interval})
        except messaging.MessagingTimeout:
            LOG.warning('No zun-hostcap-conductor answered; the resource '
                        'update is retried in %d seconds.', interval)
        except (messaging.MessageDeliveryFailure,
                messaging.ClientSendError) as err:
            # The transport gave up sending: the message bus is down or
            # refuses us (retries exhausted, connection lost).
            LOG.warning('The message bus did not take the resource update '
                        'to zun-hostcap-conductor (%(type)s: %(error)s); it '
                        'is retried in %(interval)d seconds.',
                        {'type': type(err).__name__,
                         'error': exception.one_line(err),
                         'interval': interval})
        except Exception as err:
            LOG.error('The resource update failed with an unexpected '
                      '%(type)s: %(error)s; it is retried in %(interval)d '
                      'seconds.',
                      {'type': type(err).__name__,
                       'error': exception.one_line(err),
                       'interval': interval})
            LOG.debug('Traceback of the failed resource update',
                      exc_info=True)
        else:
            if self._failed_updates:
                LOG.info('The resource update succeeded after %d failed '
                         'attempts.', self._failed_updates)
            self._failed_updates = 0
            return
        self._failed_updates += 1
