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

"""Our default for oslo.db's [database] connection."""

from oslo_config import cfg
from oslo_db import options as db_options

# oslo.config interpolates $state_path when the value is read, so the
# default database follows [DEFAULT] state_path.
DEFAULT_CONNECTION = 'sqlite:///$state_path/zun-hostcap.sqlite'


# One attempt to connect when the engine is made: a service that finds
# the database down answers 503 at once and tries again on the next
# request or heartbeat, instead of blocking for max_retries times
# retry_interval seconds (100 with oslo.db's defaults).
DEFAULT_MAX_RETRIES = 0


def set_defaults():
    # The options' own defaults, not conf.set_default() overrides, so that
    # ConfigOpts.reset() keeps them.
    cfg.set_defaults(db_options.database_opts,
                     connection=DEFAULT_CONNECTION,
                     max_retries=DEFAULT_MAX_RETRIES)


def register_opts(conf):
    set_defaults()
    conf.register_opts(db_options.database_opts, group='database')


database_group = cfg.OptGroup(
    'database',
    title='Database',
    help='The database of zun-hostcap. zun-hostcap-conductor writes it for '
         'the compute services (which never open it), zun-hostcap-api '
         'reads it, and zun-hostcap-db-manage creates and upgrades it. The '
         'embedded default, a SQLite file under state_path, suits one '
         'host (zun-hostcap-all); a deployment of several hosts uses '
         'MariaDB/MySQL (mysql+pymysql://, pip install zun-hostcap[mysql]) '
         'or PostgreSQL (postgresql+psycopg://, pip install '
         'zun-hostcap[postgresql]).')


def list_opts():
    # oslo.db's own options, under our group: the sample then says what
    # the group is for (the generator keeps a group's help only from an
    # OptGroup with options), and shows our default connection.
    return {database_group: db_options.database_opts}
