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

"""Initial schema: compute_nodes and services.

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

from alembic import op
from oslo_db.sqlalchemy import types as db_types
import sqlalchemy as sa

revision = '0001'
down_revision = None
branch_labels = None
depends_on = None

_TABLE_ARGS = {'mysql_engine': 'InnoDB', 'mysql_charset': 'utf8mb4'}


def upgrade():
    op.create_table(
        'compute_nodes',
        sa.Column('created_at', sa.DateTime()),
        sa.Column('updated_at', sa.DateTime()),
        sa.Column('id', sa.Integer(), primary_key=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('hostname', sa.String(255), nullable=False),
        sa.Column('cpus', sa.Integer(), nullable=False),
        sa.Column('cpu_used', sa.Float(), nullable=False),
        sa.Column('mem_total', sa.Integer(), nullable=False),
        sa.Column('mem_free', sa.Integer(), nullable=False),
        sa.Column('mem_available', sa.Integer(), nullable=False),
        sa.Column('mem_buffers', sa.Integer(), nullable=False),
        sa.Column('mem_cached', sa.Integer(), nullable=False),
        sa.Column('mem_used', sa.Integer(), nullable=False),
        sa.Column('total_containers', sa.Integer(), nullable=False),
        sa.Column('running_containers', sa.Integer(), nullable=False),
        sa.Column('paused_containers', sa.Integer(), nullable=False),
        sa.Column('stopped_containers', sa.Integer(), nullable=False),
        sa.Column('architecture', sa.String(32)),
        sa.Column('os_type', sa.String(32)),
        sa.Column('os', sa.String(255)),
        sa.Column('kernel_version', sa.String(255)),
        sa.Column('labels', db_types.JsonEncodedDict()),
        sa.Column('disk_total', sa.Integer(), nullable=False),
        sa.Column('disk_used', sa.Integer(), nullable=False),
        sa.Column('disk_quota_supported', sa.Boolean(), nullable=False),
        sa.Column('enable_cpu_pinning', sa.Boolean(), nullable=False),
        sa.Column('numa_topology', db_types.JsonEncodedDict()),
        sa.Column('pci_device_pools', db_types.JsonEncodedList()),
        sa.Column('runtimes', db_types.JsonEncodedList()),
        sa.UniqueConstraint('uuid', name='uniq_compute_nodes0uuid'),
        sa.UniqueConstraint('hostname', name='uniq_compute_nodes0hostname'),
        **_TABLE_ARGS)
    op.create_table(
        'services',
        sa.Column('created_at', sa.DateTime()),
        sa.Column('updated_at', sa.DateTime()),
        sa.Column('id', sa.Integer(), primary_key=True),
        sa.Column('host', sa.String(255), nullable=False),
        sa.Column('binary', sa.String(255), nullable=False),
        sa.Column('topic', sa.String(255)),
        sa.Column('report_count', sa.Integer(), nullable=False),
        sa.Column('disabled', sa.Boolean(), nullable=False),
        sa.Column('disabled_reason', sa.String(255)),
        sa.Column('forced_down', sa.Boolean(), nullable=False),
        sa.Column('last_seen_up', sa.DateTime()),
        sa.UniqueConstraint('host', 'binary',
                            name='uniq_services0host0binary'),
        **_TABLE_ARGS)
