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

"""Resource providers for the compute nodes of 2026.2: a data migration.

2026.2 kept a host's resources in its compute node's columns only; this
release reads them as the inventory of the node's resource provider
(``ComputeNode.inventory``), and the compute services report them there.
The online data migration ``create_compute_node_providers`` gives each
node that has no provider its provider, with the node's uuid and its
hostname as name, and VCPU, MEMORY_MB and DISK_GB inventory from its
columns with the reserved amounts and allocation ratios of ``[compute]``
in the configuration it runs with. When the host's compute service is
upgraded, it finds the provider by the uuid, adopts it and puts its own
figures, traits and PCI classes on it: one provider a host, never two.

Safe to run from several hosts at once, and beside the compute services
that report their hosts: each provider is made in a transaction of its
own (a uuid or name that exists already fails it), and its inventory is
written only while the provider is at generation 0, as nobody changed it
since it was made. A node whose provider was made but not given its
inventory (a run that stopped between the two) is still to migrate.
"""

import sqlalchemy as sa

from zun_hostcap.common import compute_inventory
from zun_hostcap.common import exception
from zun_hostcap.db.sqlalchemy import api as sa_api
from zun_hostcap.db.sqlalchemy import models
from zun_hostcap.db.sqlalchemy.placement import common
from zun_hostcap.db.sqlalchemy.placement import inventories as inv_db
from zun_hostcap.db.sqlalchemy.placement import resource_providers as rp_db

CN = models.ComputeNode.__table__
INV = models.Inventory.__table__
# The node's own provider (its uuid), and one that has its name.
_OWN = common.RP.alias('own_rp')
_NAMED = common.RP.alias('named_rp')

# Nodes without a provider, or whose provider was made and never written.
_WAITING = sa.or_(
    _OWN.c.id.is_(None),
    sa.and_(_OWN.c.generation == 0,
            ~sa.exists().where(INV.c.resource_provider_id == _OWN.c.id)))
_FROM = CN.outerjoin(_OWN, _OWN.c.uuid == CN.c.uuid)
# Another provider has the node's hostname as name: nothing to adopt.
_NAME_TAKEN = sa.exists().where(_NAMED.c.name == CN.c.hostname,
                                _NAMED.c.uuid != CN.c.uuid)

# How many nodes whose name is taken an error names.
_NAMED_IN_ERROR = 5


class ProviderNameTaken(exception.ZunHostcapException):
    msg_fmt = ('%(count)d compute nodes cannot get their resource provider: '
               'a provider of another uuid has the name of their host '
               '(%(hosts)s). Rename or delete that provider (openstack '
               'resource provider set/delete), then run this again.')


@sa_api.main_context_manager.reader
def _count_waiting(context):
    return context.session.execute(
        sa.select(sa.func.count()).select_from(_FROM).where(
            _WAITING)).scalar()


@sa_api.main_context_manager.reader
def _next_batch(context, max_count):
    return context.session.execute(
        sa.select(CN.c.uuid, CN.c.hostname, CN.c.cpus, CN.c.mem_total,
                  CN.c.disk_total)
        .select_from(_FROM).where(_WAITING, ~_NAME_TAKEN)
        .order_by(CN.c.id).limit(max_count)).all()


@sa_api.main_context_manager.reader
def _hosts_with_taken_names(context):
    return context.session.execute(
        sa.select(CN.c.hostname).select_from(_FROM)
        .where(_WAITING, _NAME_TAKEN).order_by(CN.c.id)).scalars().all()


def _migrate(context, node):
    """Give ``node`` its provider and inventory; whether this run did."""
    try:
        rp_db.create(context, node.uuid, node.hostname)
    except exception.ResourceProviderExists:
        # Made meanwhile by another run or its compute service, or made
        # and not written: the inventory below tells.
        pass
    inventories = compute_inventory.standard_inventory(
        node.cpus, node.mem_total, node.disk_total)
    try:
        inv_db.replace_all(context, node.uuid, 0, inventories)
    except (exception.ResourceProviderConcurrentUpdate,
            exception.ResourceProviderNotFound):
        # Written meanwhile; or its name was another provider's.
        return False
    return True


def create_compute_node_providers(context, max_count, count_only=False):
    """The online data migration; see the module's docstring.

    :returns: (nodes found that need it, nodes migrated), at most
        ``max_count``; with ``count_only``, (nodes still to migrate, 0).
    :raises ProviderNameTaken: only nodes whose name another provider
        has are left.
    """
    if count_only:
        return _count_waiting(context), 0
    batch = _next_batch(context, max_count)
    if not batch:
        taken = _hosts_with_taken_names(context)
        if taken:
            raise ProviderNameTaken(
                count=len(taken),
                hosts=', '.join(taken[:_NAMED_IN_ERROR]) +
                (', ...' if len(taken) > _NAMED_IN_ERROR else ''))
        return 0, 0
    return len(batch), sum(1 for node in batch if _migrate(context, node))
