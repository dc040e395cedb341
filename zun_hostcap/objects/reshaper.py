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

"""The reshaper: inventories and allocations replaced in one write.

See ``zun_hostcap.db.sqlalchemy.placement.reshaper``. Once the write is
committed it is announced as the writes of inventories and allocations
are: resource_provider.inventory.update for each provider whose
inventory changed (with its generation after the reshape), and
allocation.* for each consumer whose allocations changed. Nothing is
sent for a reshape that failed.
"""

from zun_hostcap.db.sqlalchemy.placement import reshaper as reshaper_db
from zun_hostcap.objects import allocation as alloc_obj
from zun_hostcap.objects.notifications import base as notification_base
from zun_hostcap.objects.notifications import resource_provider as \
    rp_notifications


def reshape(context, inventories, allocations):
    """Replace inventories and allocations in one transaction.

    See ``reshaper_db.reshape`` for the arguments and what it raises.
    """
    report = notification_base.write_report()
    reshaper_db.reshape(context, inventories, allocations, report=report)
    if report is None:
        return
    for uuid, change in report.state['inventories'].items():
        if change.changed:
            rp_notifications.inventory_changed(
                context, uuid, change.generation, change.records)
    held = report.state['allocations']
    for uuid, request in allocations.items():
        alloc_obj.announce_consumer(context, uuid, held.get(uuid), request)
