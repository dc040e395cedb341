"""Alembic environment: runs migrations on the connection we hand in."""

from alembic import context

from zun_hostcap.db.sqlalchemy import models

target_metadata = models.Base.metadata


def run_migrations_online():
    connection = context.config.attributes['connection']
    context.configure(connection=connection,
                      target_metadata=target_metadata,
                      render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    raise SystemExit('Offline (SQL script) migrations are not supported.')
run_migrations_online()
