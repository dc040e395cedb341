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

"""/v1/services: the zun-hostcap services and whether they are up."""

from oslo_utils import timeutils
import pecan
from pecan import rest

from zun_hostcap.api.schemas import services as schema
from zun_hostcap.api import validation
from zun_hostcap.common.policies import service as service_policy
from zun_hostcap.common import policy
import zun_hostcap.conf
from zun_hostcap import objects

CONF = zun_hostcap.conf.CONF


def _isotime(value):
    return value.isoformat() if value is not None else None


def state(service):
    """``up`` when the last heartbeat is recent and nobody forced it down."""
    if service.forced_down:
        return 'down'
    last_seen = service.last_seen_up or service.updated_at or \
        service.created_at
    if last_seen is None or timeutils.is_older_than(
            last_seen, CONF.service_down_time):
        return 'down'
    return 'up'


def _serialize_service(service):
    return {'id': service.id,
            'host': service.host,
            'binary': service.binary,
            'state': state(service),
            'disabled': service.disabled,
            'disabled_reason': service.disabled_reason,
            'forced_down': service.forced_down,
            'report_count': service.report_count,
            'last_seen_up': _isotime(service.last_seen_up),
            'created_at': _isotime(service.created_at),
            'updated_at': _isotime(service.updated_at)}


class ServicesController(rest.RestController):

    @pecan.expose('json')
    def get_all(self, **_query):
        """List the services with their state."""
        request = pecan.request
        policy.authorize(request.context,
                         service_policy.SERVICE % 'get_all')
        validation.validate_query(request, schema.GET_SERVICES_QUERY_v1_1)
        services = objects.ServiceList.get_all(request.context)
        return {'services': [_serialize_service(service)
                             for service in services]}
