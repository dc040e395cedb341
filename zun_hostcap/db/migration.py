"""Schema migrations through alembic, on oslo.db's engine."""

import os

from alembic import command as alembic_command
from alembic import config as alembic_config
from alembic import migration as alembic_migration

from zun_hostcap.db.sqlalchemy import api as sqla_api

_MIGRATIONS_DIR = os.path.join(os.path.dirname(__file__), 'migrations')


def _alembic_config(connection):
    config = alembic_config.Config()
    config.set_main_option('script_location', _MIGRATIONS_DIR)
    config.attributes['connection'] = connection
    return config


def upgrade(revision='head', engine=None):
    """Migrate the database schema up to ``revision``."""
    engine = engine or sqla_api.get_engine()
    with engine.begin() as connection:
        alembic_command.upgrade(_alembic_config(connection), revision)


def version(engine=None):
    """The revision the database is at, or None if it has no schema."""
    engine = engine or sqla_api.get_engine()
    with engine.connect() as connection:
        return alembic_migration.MigrationContext.configure(
            connection).get_current_revision()
