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

"""service_versions: what each service's release speaks.

A service records the service version of its release when it registers
(``zun_hostcap.objects.service.SERVICE_VERSION``); a service of 2026.2,
which writes no such row, reads 0. Compute services with
``[upgrade_levels] conductor = auto`` pin the conductor RPC API and the
object versions they send to the oldest conductor's.

A table of its own, not a column of services: this schema is upgraded
while 2026.2 runs, and on a Galera cluster an ALTER TABLE of services
aborts the transactions reading services at that moment on every node
(a deadlock error, a 500 from 2026.2's API). Creating a table aborts no
reader.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-26
"""

from alembic import op
import sqlalchemy as sa

revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'service_versions',
        sa.Column('created_at', sa.DateTime()),
        sa.Column('updated_at', sa.DateTime()),
        sa.Column('service_id', sa.Integer(),
                  sa.ForeignKey('services.id', ondelete='CASCADE'),
                  primary_key=True),
        sa.Column('version', sa.Integer(), nullable=False),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
