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

"""zun-hostcap-db-manage: the database schema and its data migrations.

Each command's answer is on stdout and nothing else is, so that scripts
can read it; logs go to stderr. An error is one line on stderr and exit
status 1 (online_data_migrations has Nova's codes, see there).
"""

import logging as std_logging
import sys

from oslo_config import cfg
from oslo_db import exception as db_exc
from oslo_log import log as logging
import prettytable
from sqlalchemy import exc as sa_exc

from zun_hostcap.common import context as zun_context
from zun_hostcap.common import exception
import zun_hostcap.conf
from zun_hostcap.db import migration
from zun_hostcap.db import online_migrations
from zun_hostcap import service as zun_service

CONF = zun_hostcap.conf.CONF
LOG = logging.getLogger(__name__)

PROG = 'zun-hostcap-db-manage'

# Rows online_data_migrations gives the migrations per transaction.
BATCH_SIZE = 50

# Exit codes of online_data_migrations, Nova's.
MIGRATIONS_DONE = 0
MIGRATIONS_MAYBE_MORE = 1
MIGRATIONS_FAILED = 2
INVALID_INPUT = 127


class CommandError(Exception):
    """A failure the command explains in its message."""


def set_cli_defaults():
    """Defaults of a command line tool rather than of a service.

    Logs on stderr, so stdout is the answer; one attempt to connect, so
    an unreachable database is an answer at once rather than after
    ``max_retries`` times ``retry_interval`` seconds. The configuration
    file still wins.
    """
    logging.register_options(CONF)
    CONF.set_default('use_stderr', True)
    CONF.set_default('max_retries', 0, group='database')


def quiet_alembic():
    """Only --debug shows alembic's INFO lines about the connection."""
    if not CONF.debug:
        std_logging.getLogger('alembic').setLevel(std_logging.WARNING)


def _upgrade():
    migration.upgrade(CONF.command.revision)
    print('Database is at revision %s' % migration.version())


def _stamp():
    quiet_alembic()
    migration.stamp(CONF.command.revision)
    revision = migration.version()
    if revision:
        print('Database is at revision %s' % revision)
    else:
        print('Database has no revision (base)')


def _version():
    quiet_alembic()
    revision = migration.version()
    if revision is None:
        raise CommandError('the database has no schema revision; create '
                           'the schema with "%s upgrade"' % PROG)
    print(revision)


def _parse_max_count(value):
    """A positive integer, None if not given; CommandError otherwise."""
    if value is None:
        return None
    try:
        count = int(value)
    except ValueError:
        count = 0
    if count < 1:
        raise CommandError('--max-count must be a positive integer, not '
                           '%r' % value)
    return count


def _online_data_migrations():
    try:
        max_count = _parse_max_count(CONF.command.max_count)
    except CommandError as err:
        print('%s: %s' % (PROG, err), file=sys.stderr)
        return INVALID_INPUT
    if max_count is None:
        print('Running batches of %d until complete' % BATCH_SIZE)
    else:
        print('Running batches of up to %d rows until %d are migrated'
              % (BATCH_SIZE, max_count))
    context = zun_context.get_admin_context()
    totals = {online_migrations.name(m): [0, 0]
              for m in online_migrations.MIGRATIONS}
    migrated = 0
    while True:
        batch = BATCH_SIZE
        if max_count is not None:
            batch = min(batch, max_count - migrated)
        failed = []
        migrated_in_batch = 0
        for name, found, done, error in online_migrations.run_batch(
                context, batch):
            totals[name][0] += found
            totals[name][1] += done
            migrated_in_batch += done
            if error is not None:
                failed.append(name)
            elif found:
                print('%s: %d rows found, %d migrated' % (name, found, done))
        migrated += migrated_in_batch
        if not migrated_in_batch or (max_count is not None and
                                     migrated >= max_count):
            break

    table = prettytable.PrettyTable(
        ['Migration', 'Total Needed', 'Completed'])
    for name, (found, done) in totals.items():
        table.add_row([name, found, done])
    print(table)

    # Errors that other migrations' progress may still resolve are not
    # fatal; a last batch where nothing moved and something failed is.
    if failed and not migrated_in_batch:
        print('Some migrations failed: %s. The log on stderr says why; '
              'fix the cause and run this command again.'
              % ', '.join(failed))
        return MIGRATIONS_FAILED
    if max_count is not None and migrated:
        return MIGRATIONS_MAYBE_MORE
    return MIGRATIONS_DONE


def _add_commands(subparsers):
    parser = subparsers.add_parser(
        'upgrade', help='Upgrade the schema to the given revision.')
    parser.add_argument('revision', nargs='?', default='head',
                        help='Target revision (default: head).')
    parser.set_defaults(func=_upgrade)
    parser = subparsers.add_parser(
        'version', help='Print the revision the database is at.')
    parser.set_defaults(func=_version)
    parser = subparsers.add_parser(
        'stamp', help='Record the schema as being at the given revision '
                      'without running any migration (alembic stamp).')
    parser.add_argument('revision',
                        help='A revision, "head", or "base" to remove the '
                             'record.')
    parser.set_defaults(func=_stamp)
    text = ('Migrate the data of existing rows, in batches of %d rows, '
            'while the services run. Exit status 0: nothing more to do; '
            '1: rows were migrated, run it again until it exits 0; 2: some '
            'migrations failed; 127: invalid input.' % BATCH_SIZE)
    parser = subparsers.add_parser('online_data_migrations', help=text,
                                   description=text)
    parser.add_argument('--max-count', metavar='<number>',
                        help='Stop after migrating this many rows '
                             '(default: until all are).')
    parser.set_defaults(func=_online_data_migrations)


COMMAND_OPT = cfg.SubCommandOpt('command', title='Commands',
                                handler=_add_commands)


def _describe(err):
    if isinstance(err, (db_exc.DBError, sa_exc.SQLAlchemyError)):
        return 'database %s: %s' % (migration.database_url(),
                                    exception.one_line(err))
    return exception.one_line(err)


# What --help says the command does; the defaults are filled in.
DESCRIPTION = (
    'Creates, upgrades and stamps the schema of the database '
    '%(database)s ([database] connection), and runs the online data '
    'migrations.')


def main(argv=None):
    CONF.register_cli_opt(COMMAND_OPT)
    set_cli_defaults()
    zun_service.prepare_service(sys.argv if argv is None else argv,
                                description=DESCRIPTION)
    try:
        return CONF.command.func() or 0
    except Exception as err:  # a clear message, not a traceback
        LOG.debug('%s failed', PROG, exc_info=True)
        print('%s: %s' % (PROG, _describe(err)), file=sys.stderr)
        return 1
