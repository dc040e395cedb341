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

"""A healthcheck plugin of oslo.middleware: can the database be reached?

Enabled by default through ``[healthcheck] backends = database``; a load
balancer that probes ``/healthcheck`` then takes an API out of rotation
while its database is down (503) and back when it answers (200).
"""

from oslo_log import log as logging
from oslo_middleware.healthcheck import pluginbase
import sqlalchemy as sa

from zun_hostcap.common import exception
from zun_hostcap.db import api as db_api
from zun_hostcap.db.sqlalchemy import api as sqla_api

LOG = logging.getLogger(__name__)


class DatabaseHealthcheck(pluginbase.HealthcheckBaseExtension):
    """Available when the database answers ``SELECT 1``."""

    def healthcheck(self, server_port):
        try:
            with sqla_api.get_engine().connect() as connection:
                connection.execute(sa.text('SELECT 1'))
        except Exception as err:
            if not db_api.is_unreachable(err):
                LOG.exception('The database health check failed')
            return pluginbase.HealthcheckResult(
                available=False, reason='Database unavailable',
                details=exception.one_line(err))
        return pluginbase.HealthcheckResult(available=True,
                                            reason='Database OK')
