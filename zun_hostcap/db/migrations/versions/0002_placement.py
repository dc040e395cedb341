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

"""The resource provider model of the Placement-compatible API.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23
"""

from alembic import op
import sqlalchemy as sa

revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None

_TABLE_ARGS = {'mysql_engine': 'InnoDB', 'mysql_charset': 'utf8mb4'}


def _timestamps():
    return [sa.Column('created_at', sa.DateTime()),
            sa.Column('updated_at', sa.DateTime())]


def upgrade():
    op.create_table(
        'resource_classes', *_timestamps(),
        sa.Column('id', sa.Integer(), primary_key=True),
        sa.Column('name', sa.String(255), nullable=False),
        sa.UniqueConstraint('name', name='uniq_resource_classes0name'),
        **_TABLE_ARGS)
    op.create_table(
        'resource_providers', *_timestamps(),
        sa.Column('id', sa.Integer(), primary_key=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('name', sa.Unicode(200), nullable=False),
        sa.Column('generation', sa.Integer(), nullable=False),
        sa.Column('root_provider_id', sa.Integer(),
                  sa.ForeignKey('resource_providers.id')),
        sa.Column('parent_provider_id', sa.Integer(),
                  sa.ForeignKey('resource_providers.id')),
        sa.UniqueConstraint('uuid', name='uniq_resource_providers0uuid'),
        sa.UniqueConstraint('name', name='uniq_resource_providers0name'),
        sa.Index('resource_providers_root_provider_id_idx',
                 'root_provider_id'),
        sa.Index('resource_providers_parent_provider_id_idx',
                 'parent_provider_id'),
        **_TABLE_ARGS)
    op.create_table(
        'inventories', *_timestamps(),
        sa.Column('id', sa.Integer(), primary_key=True),
        sa.Column('resource_provider_id', sa.Integer(), nullable=False),
        sa.Column('resource_class_id', sa.Integer(), nullable=False),
        sa.Column('total', sa.Integer(), nullable=False),
        sa.Column('reserved', sa.Integer(), nullable=False),
        sa.Column('min_unit', sa.Integer(), nullable=False),
        sa.Column('max_unit', sa.Integer(), nullable=False),
        sa.Column('step_size', sa.Integer(), nullable=False),
        sa.Column('allocation_ratio', sa.Float(), nullable=False),
        sa.UniqueConstraint(
            'resource_provider_id', 'resource_class_id',
            name='uniq_inventories0resource_provider_resource_class'),
        sa.Index('inventories_resource_class_id_idx', 'resource_class_id'),
        **_TABLE_ARGS)
    op.create_table(
        'allocations', *_timestamps(),
        sa.Column('id', sa.Integer(), primary_key=True),
        sa.Column('resource_provider_id', sa.Integer(), nullable=False),
        sa.Column('consumer_id', sa.String(36), nullable=False),
        sa.Column('resource_class_id', sa.Integer(), nullable=False),
        sa.Column('used', sa.Integer(), nullable=False),
        sa.Index('allocations_resource_provider_class_used_idx',
                 'resource_provider_id', 'resource_class_id', 'used'),
        sa.Index('allocations_resource_class_id_idx', 'resource_class_id'),
        sa.Index('allocations_consumer_id_idx', 'consumer_id'),
        **_TABLE_ARGS)
    op.create_table(
        'projects', *_timestamps(),
        sa.Column('id', sa.Integer(), primary_key=True),
        sa.Column('external_id', sa.String(255), nullable=False),
        sa.UniqueConstraint('external_id', name='uniq_projects0external_id'),
        **_TABLE_ARGS)
    op.create_table(
        'users', *_timestamps(),
        sa.Column('id', sa.Integer(), primary_key=True),
        sa.Column('external_id', sa.String(255), nullable=False),
        sa.UniqueConstraint('external_id', name='uniq_users0external_id'),
        **_TABLE_ARGS)
    op.create_table(
        'consumer_types', *_timestamps(),
        sa.Column('id', sa.Integer(), primary_key=True),
        sa.Column('name', sa.Unicode(255), nullable=False),
        sa.UniqueConstraint('name', name='uniq_consumer_types0name'),
        **_TABLE_ARGS)
    op.create_table(
        'consumers', *_timestamps(),
        sa.Column('id', sa.Integer(), primary_key=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('project_id', sa.Integer(), nullable=False),
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('generation', sa.Integer(), nullable=False,
                  server_default='0'),
        sa.Column('consumer_type_id', sa.Integer(),
                  sa.ForeignKey('consumer_types.id')),
        sa.UniqueConstraint('uuid', name='uniq_consumers0uuid'),
        sa.Index('consumers_project_id_uuid_idx', 'project_id', 'uuid'),
        sa.Index('consumers_project_id_user_id_uuid_idx', 'project_id',
                 'user_id', 'uuid'),
        sa.Index('consumers_consumer_type_id_idx', 'consumer_type_id'),
        **_TABLE_ARGS)
    op.create_table(
        'traits', *_timestamps(),
        sa.Column('id', sa.Integer(), primary_key=True),
        sa.Column('name', sa.Unicode(255), nullable=False),
        sa.UniqueConstraint('name', name='uniq_traits0name'),
        **_TABLE_ARGS)
    op.create_table(
        'resource_provider_traits', *_timestamps(),
        sa.Column('trait_id', sa.Integer(), sa.ForeignKey('traits.id'),
                  primary_key=True),
        sa.Column('resource_provider_id', sa.Integer(),
                  sa.ForeignKey('resource_providers.id'), primary_key=True),
        sa.Index('resource_provider_traits_resource_provider_trait_idx',
                 'resource_provider_id', 'trait_id'),
        **_TABLE_ARGS)
    op.create_table(
        'placement_aggregates', *_timestamps(),
        sa.Column('id', sa.Integer(), primary_key=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.UniqueConstraint('uuid', name='uniq_placement_aggregates0uuid'),
        **_TABLE_ARGS)
    op.create_table(
        'resource_provider_aggregates', *_timestamps(),
        sa.Column('resource_provider_id', sa.Integer(), primary_key=True),
        sa.Column('aggregate_id', sa.Integer(), primary_key=True),
        sa.Index('resource_provider_aggregates_aggregate_id_idx',
                 'aggregate_id'),
        **_TABLE_ARGS)
