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

"""zun-hostcap-status: is this deployment ready for this release?

``zun-hostcap-status upgrade check`` runs with the new release installed,
after ``zun-hostcap-db-manage upgrade`` and before the services of the new
release start. Each check answers Success, Warning or Failure with what to
do; the exit status is the worst answer (0, 1 or 2), 255 if a check itself
broke (oslo.upgradecheck's codes and table).

The checks read the database with SQL and alembic, not with the objects,
and change nothing.
"""

import os
import re
import sys

from oslo_log import log as logging
from oslo_policy import opts as policy_opts
from oslo_policy import policy as oslo_policy
from oslo_upgradecheck import common_checks
from oslo_upgradecheck import upgradecheck
from oslo_utils import versionutils

from zun_hostcap.cmd import db_manage
from zun_hostcap.common import context as zun_context
from zun_hostcap.common import exception
from zun_hostcap.common import policies
from zun_hostcap.conductor import rpcapi as conductor_rpcapi
import zun_hostcap.conf
from zun_hostcap.db import migration
from zun_hostcap.db import online_migrations
from zun_hostcap import service as zun_service

CONF = zun_hostcap.conf.CONF
LOG = logging.getLogger(__name__)

DB_MANAGE = 'zun-hostcap-db-manage'

# A policy rule that other rules use as "rule:<name>" is not unused.
_RULE_REFERENCE = re.compile(r'\brule:([^\s()]+)')
# The versions oslo.messaging takes as a version cap: X.Y or X.Y.Z.
_RPC_VERSION = re.compile(r'^\d+\.\d+(\.\d+)?$')
# OpenStack release names look like versions: 2026.2.
_RELEASE = re.compile(r'^\d{4}\.\d+$')


def _result(code, details):
    return upgradecheck.Result(code, details)


def _success(details):
    return _result(upgradecheck.Code.SUCCESS, details)


def _warning(details):
    return _result(upgradecheck.Code.WARNING, details)


def _failure(details):
    return _result(upgradecheck.Code.FAILURE, details)


def _parse_error(err):
    """Where and why a policy file does not parse, in one line.

    oslo.policy raises ValueError from the YAML error, which knows the
    place; its message would also quote the lines around it.
    """
    yaml_error = err.__cause__ or err.__context__
    mark = getattr(yaml_error, 'problem_mark', None)
    if mark is not None and getattr(yaml_error, 'problem', None):
        return 'line %d, column %d: %s' % (mark.line + 1, mark.column + 1,
                                           yaml_error.problem)
    return ' '.join(str(err).split()) or type(err).__name__


class Checks(upgradecheck.UpgradeCommands):
    """The upgrade checks of this release."""

    def _check_schema(self):
        url = migration.database_url()
        try:
            current = migration.version()
        except Exception as err:
            LOG.debug('Reading the schema revision failed', exc_info=True)
            return _failure(
                'Cannot read the schema revision of the database %s: %s. '
                'Check [database] connection and that the database server '
                'is up.' % (url, exception.one_line(err)))
        head = migration.head()
        if current is None:
            return _failure(
                'The database %s has no schema (no revision). Create it '
                'with "%s upgrade".' % (url, DB_MANAGE))
        if current == head:
            return _success('The schema is at revision %s, the newest of '
                            'this release.' % head)
        if not migration.is_known(current):
            return _failure(
                'The schema is at revision %s, which this release does not '
                'have (its newest is %s): a newer release upgraded the '
                'database. Run that release.' % (current, head))
        return _failure(
            'The schema is at revision %s; this release needs %s. Run "%s '
            'upgrade" before starting the services of this release.'
            % (current, head, DB_MANAGE))

    def _check_online_migrations(self):
        if not online_migrations.MIGRATIONS:
            return _success('This release has no online data migrations: '
                            'no rows wait for one.')
        context = zun_context.get_admin_context()
        pending = online_migrations.count_pending(context)
        broken = ['%s (%s)' % (name, exception.one_line(error))
                  for name, _count, error in pending if error is not None]
        if broken:
            return _failure(
                'Cannot count the rows that wait for %s. Is the schema at '
                'the newest revision and the database up?'
                % ', '.join(broken))
        waiting = [(name, count) for name, count, _error in pending
                   if count]
        if waiting:
            return _warning(
                '%d rows wait for an online data migration (%s). Run "%s '
                'online_data_migrations" until it exits 0; the next '
                'release needs them migrated.' % (
                    sum(count for _name, count in waiting),
                    ', '.join('%s: %d' % item for item in waiting),
                    DB_MANAGE))
        return _success('No rows wait for an online data migration (%d '
                        'checked).' % len(pending))

    def _policy_files(self):
        """The policy files that exist, in oslo.policy's order.

        The policy file first, then the files of each policy directory.
        """
        files = []
        path = CONF.find_file(CONF.oslo_policy.policy_file)
        if path:
            files.append(path)
        for directory in CONF.oslo_policy.policy_dirs:
            path = CONF.find_file(directory)
            if path and os.path.isdir(path):
                files.extend(os.path.join(path, name)
                             for name in sorted(os.listdir(path))
                             if not name.startswith('.') and
                             os.path.isfile(os.path.join(path, name)))
        return files

    def _check_policy_file(self):
        # The enforcer registers [oslo_policy]; this command has none.
        policy_opts.set_defaults(CONF)
        files = self._policy_files()
        if not files:
            return _success('No policy file %s found: the rules in code '
                            'apply.' % CONF.oslo_policy.policy_file)
        known = set()
        used = set()
        for rule in policies.list_rules():
            known.add(rule.name)
            if rule.deprecated_rule is not None:
                known.add(rule.deprecated_rule.name)
            used.update(_RULE_REFERENCE.findall(rule.check_str))
        broken = []
        names = {}
        for path in files:
            try:
                with open(path) as f:
                    rules = oslo_policy.parse_file_contents(f.read())
            except OSError as err:
                broken.append('%s cannot be read: %s' % (path, err))
                continue
            except ValueError as err:
                broken.append('%s does not parse: %s' % (path,
                                                         _parse_error(err)))
                continue
            if not isinstance(rules, dict):
                broken.append('%s holds a %s, not a mapping of rule names '
                              'to rules' % (path, type(rules).__name__))
                continue
            names[path] = list(rules)
            for check_str in rules.values():
                used.update(_RULE_REFERENCE.findall(str(check_str)))
        if broken:
            return _failure(
                '%s. zun-hostcap-api cannot load its policy: every request '
                'it authorizes fails until the file is fixed.'
                % '; '.join(broken))
        unknown = []
        for path, rules in names.items():
            unused = sorted(set(rules) - known - used)
            if unused:
                unknown.append('%s: %s' % (path, ', '.join(unused)))
        if unknown:
            return _warning(
                'Rules zun-hostcap does not have, which have no effect: %s. '
                'Remove them or correct their names; '
                '"oslopolicy-sample-generator --namespace zun-hostcap" '
                'lists the rules.' % '; '.join(unknown))
        return _success('Every policy file parses and names only rules '
                        'zun-hostcap has: %s.' % ', '.join(files))

    def _check_rpc_pin(self):
        pin = CONF.upgrade_levels.conductor
        newest = conductor_rpcapi.ConductorAPI.RPC_API_VERSION
        if not pin:
            return _success('[upgrade_levels] conductor is not set: the '
                            'services send conductor RPC API %s, the newest '
                            'of this release.' % newest)
        if pin == conductor_rpcapi.AUTO:
            return _success('[upgrade_levels] conductor = auto: each compute '
                            'service sends what the oldest conductor that is '
                            'up understands, from the versions the '
                            'conductors record (conductor RPC API %s once '
                            'every conductor runs this release).' % newest)
        aliases = conductor_rpcapi.VERSION_ALIASES
        version = aliases.get(pin, pin)
        if pin not in aliases and (_RELEASE.match(pin) or
                                   not _RPC_VERSION.match(pin)):
            return _failure(
                '[upgrade_levels] conductor = %s is neither "auto", a '
                'version such as "%s" nor a release this code knows (%s): '
                'services cannot send conductor calls. Correct or remove '
                'it.' % (pin, newest, ', '.join(sorted(aliases))))
        pinned = versionutils.convert_version_to_tuple(version)
        if pinned > versionutils.convert_version_to_tuple(newest):
            return _failure(
                '[upgrade_levels] conductor = %s is newer than conductor RPC '
                'API %s, the newest this release sends. Set it to the '
                'release the oldest service runs, or remove it.'
                % (pin, newest))
        if not versionutils.is_compatible(version, newest, same_major=True):
            return _failure(
                '[upgrade_levels] conductor = %s is a major version this '
                'release does not send (it sends %s): services cannot send '
                'conductor calls. Correct or remove it.' % (pin, newest))
        return _success('[upgrade_levels] conductor = %s caps the conductor '
                        'RPC API at %s. Remove it once every service runs '
                        'this release.' % (pin, version))

    _upgrade_checks = (
        ('Database Schema', _check_schema),
        ('Online Data Migrations', _check_online_migrations),
        ('Policy File', _check_policy_file),
        ('Policy File JSON to YAML Migration',
         (common_checks.check_policy_json, {'conf': CONF})),
        ('Conductor RPC Version Pin', _check_rpc_pin),
    )


# What --help says the command does; the defaults are filled in.
DESCRIPTION = (
    "Checks that a deployment is ready for this release: 'upgrade "
    "check', on the database %(database)s ([database] connection).")


def main(argv=None):
    upgradecheck.register_cli_options(CONF, Checks())
    db_manage.set_cli_defaults()
    zun_service.prepare_service(sys.argv if argv is None else argv,
                                description=DESCRIPTION)
    db_manage.quiet_alembic()
    # upgradecheck.main() keeps the parsed configuration for --json;
    # prepare_service() parsed it here.
    upgradecheck.CONF = CONF
    return upgradecheck.run(CONF)
