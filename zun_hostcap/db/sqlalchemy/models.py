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
    release: orm.Mapped['ServiceVersion | None'] = orm.relationship(
        lazy='joined', cascade='all, delete-orphan', passive_deletes=True)

    @property
    def version(self):
        """The service version of the release it runs; 0 for 2026.2."""
        return 0 if self.release is None else self.release.version

    @version.setter
    def version(self, value):
        if self.release is None:
            self.release = ServiceVersion(version=value)
        else:
            self.release.version = value


class ServiceVersion(Base):
    """The service version of the release a service runs.

    See ``objects/service.py``. A table of its own, not a column of
    services: on a Galera cluster, the ALTER TABLE adding a column aborts
    every transaction that is reading services at that moment (a deadlock
    error), and 2026.2's APIs read them all through a rolling upgrade. No
    row: a service of 2026.2, which does not write one.
    """

    __tablename__ = 'service_versions'
    __table_args__ = (
        {'mysql_engine': 'InnoDB', 'mysql_charset': 'utf8mb4'},
    )

    service_id: orm.Mapped[int] = orm.mapped_column(
        sa.Integer, sa.ForeignKey('services.id', ondelete='CASCADE'),
        primary_key=True)
    version: orm.Mapped[int] = orm.mapped_column(sa.Integer, nullable=False)


# The resource provider model of the Placement API.
#
# Names and types follow OpenStack Placement's schema, so that an operator
# who knows one knows the other. Rows refer to each other by integer id;
# uuids and names are what the API shows.

_TABLE_ARGS = {'mysql_engine': 'InnoDB', 'mysql_charset': 'utf8mb4'}


class ResourceClass(Base):
    """A kind of resource: the standard classes and CUSTOM_* ones.

    Standard classes are rows too, synchronised from os-resource-classes
    with their index as id; custom classes take ids from 10000 on.
    """

    __tablename__ = 'resource_classes'
    __table_args__ = (
        sa.UniqueConstraint('name', name='uniq_resource_classes0name'),
        _TABLE_ARGS,
    )

    id: orm.Mapped[int] = orm.mapped_column(sa.Integer, primary_key=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255),
                                              nullable=False)


class ResourceProvider(Base):
    """Something that has inventory: a host, a NUMA node, a storage pool.

    ``root_provider_id`` is the provider's own id for a root; with
    ``parent_provider_id`` they describe trees of providers.
    """

    __tablename__ = 'resource_providers'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_resource_providers0uuid'),
        sa.UniqueConstraint('name', name='uniq_resource_providers0name'),
        sa.Index('resource_providers_root_provider_id_idx',
                 'root_provider_id'),
        sa.Index('resource_providers_parent_provider_id_idx',
                 'parent_provider_id'),
        _TABLE_ARGS,
    )

    id: orm.Mapped[int] = orm.mapped_column(sa.Integer, primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36), nullable=False)
    name: orm.Mapped[str] = orm.mapped_column(sa.Unicode(200),
                                              nullable=False)
    generation: orm.Mapped[int] = orm.mapped_column(
        sa.Integer, nullable=False, default=0)
    root_provider_id: orm.Mapped[int | None] = orm.mapped_column(
        sa.Integer, sa.ForeignKey('resource_providers.id'))
    parent_provider_id: orm.Mapped[int | None] = orm.mapped_column(
        sa.Integer, sa.ForeignKey('resource_providers.id'))


class Inventory(Base):
    """How much of one resource class a provider has."""

    __tablename__ = 'inventories'
    __table_args__ = (
        sa.UniqueConstraint(
            'resource_provider_id', 'resource_class_id',
            name='uniq_inventories0resource_provider_resource_class'),
        sa.Index('inventories_resource_class_id_idx', 'resource_class_id'),
        _TABLE_ARGS,
    )

    id: orm.Mapped[int] = orm.mapped_column(sa.Integer, primary_key=True)
    resource_provider_id: orm.Mapped[int] = orm.mapped_column(
        sa.Integer, nullable=False)
    resource_class_id: orm.Mapped[int] = orm.mapped_column(
        sa.Integer, nullable=False)
    total: orm.Mapped[int] = orm.mapped_column(sa.Integer, nullable=False)
    reserved: orm.Mapped[int] = orm.mapped_column(sa.Integer,
                                                  nullable=False)
    min_unit: orm.Mapped[int] = orm.mapped_column(sa.Integer,
                                                  nullable=False)
    max_unit: orm.Mapped[int] = orm.mapped_column(sa.Integer,
                                                  nullable=False)
    step_size: orm.Mapped[int] = orm.mapped_column(sa.Integer,
                                                   nullable=False)
    allocation_ratio: orm.Mapped[float] = orm.mapped_column(
        sa.Float, nullable=False)


class Allocation(Base):
    """An amount of one class, on one provider, used by one consumer."""

    __tablename__ = 'allocations'
    __table_args__ = (
        sa.Index('allocations_resource_provider_class_used_idx',
                 'resource_provider_id', 'resource_class_id', 'used'),
        sa.Index('allocations_resource_class_id_idx', 'resource_class_id'),
        sa.Index('allocations_consumer_id_idx', 'consumer_id'),
        _TABLE_ARGS,
    )

    id: orm.Mapped[int] = orm.mapped_column(sa.Integer, primary_key=True)
    resource_provider_id: orm.Mapped[int] = orm.mapped_column(
        sa.Integer, nullable=False)
    consumer_id: orm.Mapped[str] = orm.mapped_column(sa.String(36),
                                                     nullable=False)
    resource_class_id: orm.Mapped[int] = orm.mapped_column(
        sa.Integer, nullable=False)
    used: orm.Mapped[int] = orm.mapped_column(sa.Integer, nullable=False)


class Project(Base):
    """A keystone project that owns consumers."""

    __tablename__ = 'projects'
    __table_args__ = (
        sa.UniqueConstraint('external_id',
                            name='uniq_projects0external_id'),
        _TABLE_ARGS,
    )

    id: orm.Mapped[int] = orm.mapped_column(sa.Integer, primary_key=True)
    external_id: orm.Mapped[str] = orm.mapped_column(sa.String(255),
                                                     nullable=False)


class User(Base):
    """A keystone user that owns consumers."""

    __tablename__ = 'users'
    __table_args__ = (
        sa.UniqueConstraint('external_id', name='uniq_users0external_id'),
        _TABLE_ARGS,
    )

    id: orm.Mapped[int] = orm.mapped_column(sa.Integer, primary_key=True)
    external_id: orm.Mapped[str] = orm.mapped_column(sa.String(255),
                                                     nullable=False)


class ConsumerType(Base):
    """What kind of thing a consumer is (INSTANCE, MIGRATION, ...)."""

    __tablename__ = 'consumer_types'
    __table_args__ = (
        sa.UniqueConstraint('name', name='uniq_consumer_types0name'),
        _TABLE_ARGS,
    )

    id: orm.Mapped[int] = orm.mapped_column(sa.Integer, primary_key=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.Unicode(255),
                                              nullable=False)


class Consumer(Base):
    """Whoever holds allocations: a container, an instance, a migration.

    ``generation`` lets concurrent writers of the same consumer's
    allocations detect each other (microversion 1.28 and later).
    """

    __tablename__ = 'consumers'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_consumers0uuid'),
        sa.Index('consumers_project_id_uuid_idx', 'project_id', 'uuid'),
        sa.Index('consumers_project_id_user_id_uuid_idx', 'project_id',
                 'user_id', 'uuid'),
        sa.Index('consumers_consumer_type_id_idx', 'consumer_type_id'),
        _TABLE_ARGS,
    )

    id: orm.Mapped[int] = orm.mapped_column(sa.Integer, primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36), nullable=False)
    project_id: orm.Mapped[int] = orm.mapped_column(sa.Integer,
                                                    nullable=False)
    user_id: orm.Mapped[int] = orm.mapped_column(sa.Integer, nullable=False)
    generation: orm.Mapped[int] = orm.mapped_column(
        sa.Integer, nullable=False, default=0, server_default='0')
    consumer_type_id: orm.Mapped[int | None] = orm.mapped_column(
        sa.Integer, sa.ForeignKey('consumer_types.id'))


class Trait(Base):
    """A qualitative property: os-traits' standard ones and CUSTOM_*."""

    __tablename__ = 'traits'
    __table_args__ = (
        sa.UniqueConstraint('name', name='uniq_traits0name'),
        _TABLE_ARGS,
    )

    id: orm.Mapped[int] = orm.mapped_column(sa.Integer, primary_key=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.Unicode(255),
                                              nullable=False)


class ResourceProviderTrait(Base):
    """A provider has a trait."""

    __tablename__ = 'resource_provider_traits'
    __table_args__ = (
        sa.Index('resource_provider_traits_resource_provider_trait_idx',
                 'resource_provider_id', 'trait_id'),
        _TABLE_ARGS,
    )

    trait_id: orm.Mapped[int] = orm.mapped_column(
        sa.Integer, sa.ForeignKey('traits.id'), primary_key=True)
    resource_provider_id: orm.Mapped[int] = orm.mapped_column(
        sa.Integer, sa.ForeignKey('resource_providers.id'),
        primary_key=True)


class PlacementAggregate(Base):
    """An aggregate: a set of providers, known only by its uuid."""

    __tablename__ = 'placement_aggregates'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_placement_aggregates0uuid'),
        _TABLE_ARGS,
    )

    id: orm.Mapped[int] = orm.mapped_column(sa.Integer, primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36), nullable=False)


class ResourceProviderAggregate(Base):
    """A provider is a member of an aggregate."""

    __tablename__ = 'resource_provider_aggregates'
    __table_args__ = (
        sa.Index('resource_provider_aggregates_aggregate_id_idx',
                 'aggregate_id'),
        _TABLE_ARGS,
    )

    resource_provider_id: orm.Mapped[int] = orm.mapped_column(
        sa.Integer, primary_key=True)
    aggregate_id: orm.Mapped[int] = orm.mapped_column(sa.Integer,
                                                      primary_key=True)
