"""SQLAlchemy models of zun-hostcap's tables.

Structured values (NUMA topology, PCI pools, labels, runtimes) are stored
as JSON of plain data, not of versioned objects, so the schema does not
change when an object version does.
"""

import datetime

from oslo_db.sqlalchemy import models
from oslo_db.sqlalchemy import types as db_types
import sqlalchemy as sa
from sqlalchemy import orm


class Base(models.TimestampMixin, models.ModelBase, orm.DeclarativeBase):
    """Declarative base: created_at/updated_at and dict-like access."""

    def __repr__(self):
        return '<%s %s>' % (type(self).__name__, getattr(self, 'id', None))


class ComputeNode(Base):
    """What one host has and uses."""

    __tablename__ = 'compute_nodes'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_compute_nodes0uuid'),
        sa.UniqueConstraint('hostname',
                            name='uniq_compute_nodes0hostname'),
        {'mysql_engine': 'InnoDB', 'mysql_charset': 'utf8mb4'},
    )

    id: orm.Mapped[int] = orm.mapped_column(sa.Integer, primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36), nullable=False)
    hostname: orm.Mapped[str] = orm.mapped_column(sa.String(255),
                                                  nullable=False)
    cpus: orm.Mapped[int] = orm.mapped_column(sa.Integer, nullable=False)
    cpu_used: orm.Mapped[float] = orm.mapped_column(sa.Float,
                                                    nullable=False)
    # Memory figures in MiB, as /proc/meminfo gives them divided by 1024.
    mem_total: orm.Mapped[int] = orm.mapped_column(sa.Integer,
                                                   nullable=False)
    mem_free: orm.Mapped[int] = orm.mapped_column(sa.Integer,
                                                  nullable=False)
    mem_available: orm.Mapped[int] = orm.mapped_column(sa.Integer,
                                                       nullable=False)
    mem_buffers: orm.Mapped[int] = orm.mapped_column(sa.Integer,
                                                     nullable=False)
    mem_cached: orm.Mapped[int] = orm.mapped_column(sa.Integer,
                                                    nullable=False)
    mem_used: orm.Mapped[int] = orm.mapped_column(sa.Integer,
                                                  nullable=False)
    total_containers: orm.Mapped[int] = orm.mapped_column(sa.Integer,
                                                          nullable=False)
    running_containers: orm.Mapped[int] = orm.mapped_column(
        sa.Integer, nullable=False)
    paused_containers: orm.Mapped[int] = orm.mapped_column(
        sa.Integer, nullable=False)
    stopped_containers: orm.Mapped[int] = orm.mapped_column(
        sa.Integer, nullable=False)
    architecture: orm.Mapped[str | None] = orm.mapped_column(sa.String(32))
    os_type: orm.Mapped[str | None] = orm.mapped_column(sa.String(32))
    os: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    kernel_version: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255))
    labels: orm.Mapped[dict | None] = orm.mapped_column(
        db_types.JsonEncodedDict)
    # Disk figures in GiB.
    disk_total: orm.Mapped[int] = orm.mapped_column(sa.Integer,
                                                    nullable=False)
    disk_used: orm.Mapped[int] = orm.mapped_column(sa.Integer,
                                                   nullable=False)
    disk_quota_supported: orm.Mapped[bool] = orm.mapped_column(
        sa.Boolean, nullable=False)
    enable_cpu_pinning: orm.Mapped[bool] = orm.mapped_column(
        sa.Boolean, nullable=False)
    numa_topology: orm.Mapped[dict | None] = orm.mapped_column(
        db_types.JsonEncodedDict)
    pci_device_pools: orm.Mapped[list | None] = orm.mapped_column(
        db_types.JsonEncodedList)
    runtimes: orm.Mapped[list | None] = orm.mapped_column(
        db_types.JsonEncodedList)


class Service(Base):
    """One running zun-hostcap service and its heartbeat."""

    __tablename__ = 'services'
    __table_args__ = (
        sa.UniqueConstraint('host', 'binary',
                            name='uniq_services0host0binary'),
        {'mysql_engine': 'InnoDB', 'mysql_charset': 'utf8mb4'},
    )

    id: orm.Mapped[int] = orm.mapped_column(sa.Integer, primary_key=True)
    host: orm.Mapped[str] = orm.mapped_column(sa.String(255),
                                              nullable=False)
    binary: orm.Mapped[str] = orm.mapped_column(sa.String(255),
                                                nullable=False)
    topic: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    report_count: orm.Mapped[int] = orm.mapped_column(
        sa.Integer, nullable=False, default=0)
    disabled: orm.Mapped[bool] = orm.mapped_column(
        sa.Boolean, nullable=False, default=False)
    disabled_reason: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255))
    forced_down: orm.Mapped[bool] = orm.mapped_column(
        sa.Boolean, nullable=False, default=False)
    last_seen_up: orm.Mapped[datetime.datetime | None] = orm.mapped_column(
        sa.DateTime)
