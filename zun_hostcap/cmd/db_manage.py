"""zun-hostcap-db-manage: create and upgrade the database schema."""

import sys

from oslo_config import cfg
from oslo_log import log as logging

from zun_hostcap.common import service as zun_service
import zun_hostcap.conf
from zun_hostcap.db import migration

CONF = zun_hostcap.conf.CONF


def _upgrade():
    migration.upgrade(CONF.command.revision)
    print('Database is at revision %s' % migration.version())


def _version():
    print(migration.version() or 'None (no schema yet)')


def _add_commands(subparsers):
    parser = subparsers.add_parser(
        'upgrade', help='Upgrade the schema to the given revision.')
    parser.add_argument('revision', nargs='?', default='head',
                        help='Target revision (default: head).')
    parser.set_defaults(func=_upgrade)
    parser = subparsers.add_parser(
        'version', help='Print the revision the database is at.')
    parser.set_defaults(func=_version)


COMMAND_OPT = cfg.SubCommandOpt('command', title='Commands',
                                handler=_add_commands)


def main(argv=None):
    CONF.register_cli_opt(COMMAND_OPT)
    zun_service.prepare_service(sys.argv if argv is None else argv)
    try:
        CONF.command.func()
    except Exception as err:  # a clear message, not a traceback
        logging.getLogger(__name__).debug('db-manage failed', exc_info=True)
        print('zun-hostcap-db-manage: %s' % err, file=sys.stderr)
        return 1
    return 0
