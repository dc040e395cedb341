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

"""services.version: what each service's release speaks.

A service records the service version of its release when it registers
(``zun_hostcap.objects.service.SERVICE_VERSION``); the rows of services
of 2026.2, which has no such column, read 0. Compute services with
``[upgrade_levels] conductor = auto`` pin the conductor RPC API and the
object versions they send to the oldest conductor's.

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
    # A default on the server: the services of 2026.2 still insert rows
    # without the column while the others are upgraded.
    op.add_column('services', sa.Column('version', sa.Integer(),
                                        nullable=False, server_default='0'))
