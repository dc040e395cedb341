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

"""The Placement figures of /metrics, for every provider in one statement.

openstack-exporter asks Placement for the providers, then for each one
its inventories and its usages: two requests a provider. Here one
statement reads, for every inventory, its provider's name, its class,
total, reserved, allocation ratio and the sum of its allocations,
whatever the number of providers.

The sum is a correlated subquery: measured against the alternatives on
MariaDB with 10,000 providers, a join of the allocations with ``GROUP
BY`` took the server three times as long.

On MariaDB and MySQL the rows are not sent one by one: PyMySQL decodes
each value of each row in Python, and 30,000 rows of six values were
most of a scrape's time. The database joins the figures of up to
``CHUNK`` inventories into one text of numbers, the usages (summed by a
scan of the allocations grouped by provider and class, not a subquery
an inventory, which took MariaDB 1.7 times as long here) into another,
and the names of up to ``CHUNK`` providers into one JSON array: a few
values of one statement come instead of 30,000 rows, and the numbers
reach the exposition as the database wrote them.
"""

import json

import sqlalchemy as sa

from zun_hostcap.db.sqlalchemy import models
from zun_hostcap.db.sqlalchemy.placement import common
from zun_hostcap.db.sqlalchemy.placement import provider_filter
from zun_hostcap.db.sqlalchemy.placement import resource_classes as rc_db

RP = common.RP
INV = models.Inventory.__table__
ALLOC = models.Allocation.__table__
RC = models.ResourceClass.__table__

# The sum of an inventory's allocations, from the index on
# (provider, class, used) alone; 0 without any. An integer: MariaDB's SUM
# is a DECIMAL, which PyMySQL decodes several times slower.
_USED = sa.cast(provider_filter.used(or_zero=True), sa.BigInteger)

# Built once; in no particular order, which Prometheus does not need.
_CAPACITY = (
    sa.select(RP.c.name, RC.c.name, INV.c.total, INV.c.reserved,
              INV.c.allocation_ratio, _USED)
    .select_from(INV.join(RP, INV.c.resource_provider_id == RP.c.id)
                 .join(RC, INV.c.resource_class_id == RC.c.id)))

# Inventories (or providers) joined into one value on MariaDB: a value
# of numbers is under 0.4 MB, one of names (200 characters at most,
# quoted as JSON) under 5 MB, below the 16 MiB the connections allow
# (zun_hostcap.db.sqlalchemy.api.configure_mysql).
CHUNK = 4096
_FIGURES, _USAGES, _NAMES = 'figures', 'usages', 'names'


def _joined(kind, values, separator, chunk, source):
    return (sa.select(sa.literal(kind),
                      sa.func.aggregate_strings(values, separator))
            .select_from(source).group_by(sa.func.floor(chunk / CHUNK)))


def _joined_capacity():
    """MariaDB's statement: (kind, text) rows.

    A figures text has the provider id, class id, total, reserved and
    allocation ratio of each of its inventories, a usages text the
    provider id, class id and sum of the allocations of each provider
    and class that has some, all separated by spaces; a names text is
    the inside of a JSON array of provider id, name pairs.
    """
    used = (sa.select(ALLOC.c.resource_provider_id,
                      ALLOC.c.resource_class_id,
                      sa.func.sum(ALLOC.c.used).label('used'))
            .group_by(ALLOC.c.resource_provider_id,
                      ALLOC.c.resource_class_id)
            .subquery())
    return sa.union_all(
        _joined(_FIGURES, sa.func.concat_ws(
            ' ', INV.c.resource_provider_id, INV.c.resource_class_id,
            INV.c.total, INV.c.reserved, INV.c.allocation_ratio),
            ' ', INV.c.id, INV),
        _joined(_USAGES, sa.func.concat_ws(
            ' ', used.c.resource_provider_id, used.c.resource_class_id,
            used.c.used), ' ', used.c.resource_provider_id, used),
        _joined(_NAMES, sa.func.concat(
            RP.c.id, ',', sa.func.json_quote(RP.c.name)), ',', RP.c.id,
            RP))


_JOINED_CAPACITY = _joined_capacity()


def _from_joined(context, rows):
    """``capacity``'s rows from MariaDB's joined texts.

    Totals, reserved amounts and usages are the decimal texts the
    database wrote, the allocation ratio its text of the number: what
    the exposition prints of them is the same as of the numbers.
    """
    names = {}
    figures = []
    usages = []
    for kind, text in rows:
        if kind == _NAMES:
            pairs = json.loads('[%s]' % text)
            # Keyed by the id's text, as the figures hold it.
            names.update(zip(map(str, pairs[::2]), pairs[1::2]))
        elif kind == _USAGES:
            usages.extend(text.split(' '))
        else:
            figures.extend(text.split(' '))
    used = {(rp_id, class_id): amount for rp_id, class_id, amount in zip(
        *[iter(usages)] * 3)}
    class_ids = set(figures[1::5])
    class_names = rc_db.names_for_ids(context, {int(i) for i in class_ids})
    by_text = {text: class_names[int(text)] for text in class_ids}
    return [(names[rp_id], by_text[class_id], total, reserved, ratio,
             used.get((rp_id, class_id), '0'))
            for rp_id, class_id, total, reserved, ratio in zip(
                *[iter(figures)] * 5)]


@common.reader
def capacity(context):
    """Every inventory, in one statement.

    :returns: [(provider name, class name, total, reserved, allocation
        ratio, used)]; on MariaDB and MySQL the numbers are their decimal
        texts.
    """
    session = context.session
    if session.get_bind().dialect.name != 'mysql':
        return session.execute(_CAPACITY).all()
    return _from_joined(context, session.execute(_JOINED_CAPACITY).all())
