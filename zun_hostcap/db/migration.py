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

"""Schema migrations through alembic, on oslo.db's engine."""

import contextlib
import logging
import os
import re

from alembic import command as alembic_command
from alembic import config as alembic_config
from alembic import migration as alembic_migration
from alembic import script as alembic_script
from alembic import util as alembic_util
import sqlalchemy as sa

import zun_hostcap.conf
from zun_hostcap.db.sqlalchemy import api as sqla_api

CONF = zun_hostcap.conf.CONF

_MIGRATIONS_DIR = os.path.join(os.path.dirname(__file__), 'migrations')

# alembic's relative revisions ("+1", "head-1") depend on the database's.
_RELATIVE = re.compile(r'[+-]\d+$')


def _alembic_config(connection=None):
    config = alembic_config.Config()
    config.set_main_option('script_location', _MIGRATIONS_DIR)
    config.attributes['connection'] = connection
    return config


def _script():
    return alembic_script.ScriptDirectory.from_config(_alembic_config())


@contextlib.contextmanager
def _alembic_quiet():
    """alembic's INFO lines ("Context impl SQLiteImpl.") left out.

    They say nothing when nothing is migrated; a start that finds the
    schema at its head logs none of them.
    """
    logger = logging.getLogger('alembic.runtime.migration')
    level = logger.level
    logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        logger.setLevel(level)


def _check_revision(revision):
    """Refuse a revision we do not have before touching the database."""
    if _RELATIVE.search(revision):
        return
    _script().get_revisions(revision)


def upgrade(revision='head', engine=None):
    """Migrate the database schema up to ``revision``.

    A schema at the head already is left alone, without a log line.
    """
    _check_revision(revision)
    engine = engine or sqla_api.get_engine()
    if revision == 'head' and version(engine) == head():
        return
    with engine.begin() as connection:
        alembic_command.upgrade(_alembic_config(connection), revision)


def stamp(revision, engine=None):
    """Record ``revision`` as the schema's without running migrations.

    ``base`` removes the record.
    """
    _check_revision(revision)
    engine = engine or sqla_api.get_engine()
    with engine.begin() as connection:
        alembic_command.stamp(_alembic_config(connection), revision)


def version(engine=None):
    """The revision the database is at, or None if it has no schema."""
    engine = engine or sqla_api.get_engine()
    with engine.connect() as connection, _alembic_quiet():
        return alembic_migration.MigrationContext.configure(
            connection).get_current_revision()


def head():
    """The newest revision of this code."""
    return _script().get_current_head()


def is_known(revision):
    """Whether this code has ``revision``; a newer release's is not."""
    try:
        _script().get_revision(revision)
    except alembic_util.CommandError:
        return False
    return True


def database_url():
    """``[database] connection`` as a message may show it: no password."""
    try:
        return sa.engine.make_url(CONF.database.connection).render_as_string(
            hide_password=True)
    except sa.exc.ArgumentError:
        return '(a URL SQLAlchemy cannot parse)'
