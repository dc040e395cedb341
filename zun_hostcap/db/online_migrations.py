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

"""Online data migrations: rows rewritten while the services run.

A schema migration adds a column; the code of the new release writes it
for new rows and reads the old place for old rows, and an online data
migration moves the old rows over in small batches, without downtime
(``zun-hostcap-db-manage online_data_migrations``). The release after can
rely on every row being migrated, which ``zun-hostcap-status upgrade
check`` verifies.

A migration is a function, as in Nova::

    def migrate(context, max_count, count_only=False):
        ...
        return found, done

It migrates at most ``max_count`` rows, in one transaction or in a few
per row, and returns how many rows it found that need migrating (at
most ``max_count``) and how many of them it migrated. With
``count_only=True`` it changes nothing and returns ``(rows still to
migrate, 0)``; the upgrade check calls it so.
It must be safe to run again at any time, from several hosts at once.
"""

from oslo_log import log as logging

from zun_hostcap.common import exception
from zun_hostcap.db.sqlalchemy import compute_node_providers

LOG = logging.getLogger(__name__)

# Adding a migration is one line here, oldest first. Remove one when a
# release can assume every deployment has run it.
MIGRATIONS = (
    # The compute nodes of 2026.2 as resource providers with inventory.
    compute_node_providers.create_compute_node_providers,
)


def name(migration):
    return migration.__name__


def run_batch(context, max_count):
    """Run every migration once, sharing ``max_count`` rows between them.

    A migration that raises is logged and reported; the others still run.

    :returns: a list of ``(name, found, done, error)``, ``error`` being the
        exception or None, for the migrations that ran.
    """
    results = []
    left = max_count
    for migration in MIGRATIONS:
        try:
            found, done = migration(context, left)
            error = None
        except Exception as err:
            LOG.debug('Online data migration %s failed', name(migration),
                      exc_info=True)
            found = done = 0
            error = err
        if error is not None:
            # Out of the except block: oslo.log would repeat the error.
            LOG.error('Online data migration %(name)s failed: %(error)s',
                      {'name': name(migration),
                       'error': exception.one_line(error)})
        results.append((name(migration), found, done, error))
        left -= done
        if left <= 0:
            # The batch is used up; the others run in the next one.
            break
    return results


def count_pending(context):
    """Rows each migration still has to migrate, changing nothing.

    :returns: a list of ``(name, count, error)``; ``count`` is None and
        ``error`` the exception when the migration raised.
    """
    pending = []
    for migration in MIGRATIONS:
        try:
            count = migration(context, 0, count_only=True)[0]
            pending.append((name(migration), count, None))
        except Exception as err:
            LOG.debug('Counting the rows of %s failed', name(migration),
                      exc_info=True)
            pending.append((name(migration), None, err))
    return pending
