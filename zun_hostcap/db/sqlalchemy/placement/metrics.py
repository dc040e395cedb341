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
``CHUNK`` inventories of one class into one text of numbers, the usages
of the class (summed by a scan of the allocations grouped by provider
and class, not a subquery an inventory, which took MariaDB 1.7 times as
long here) into another, and the names of up to ``CHUNK`` providers into
one JSON array: a few values of one statement come instead of 30,000
rows, and the numbers reach the exposition as the database wrote them.

Whatever the engine, the inventories come back as columns (``Capacity``),
not rows: the exposition places each column's values into its lines by
slices of one list, without a Python step an inventory.
"""

import collections
import itertools
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
CHUNK_BITS = 12
CHUNK = 1 << CHUNK_BITS
_FIGURES, _USAGES, _NAMES = 'figures', 'usages', 'names'

Capacity = collections.namedtuple(
    'Capacity', ['hostnames', 'classes', 'totals', 'reserved', 'ratios',
                 'used'])
Capacity.__doc__ = """Every inventory, as parallel columns.

Its provider's name, its class's name, the decimal texts of its total,
reserved amount and the sum of its allocations, and its allocation
ratio (a number, or the database's text of it).
"""
NO_INVENTORIES = Capacity((), (), (), (), (), ())


def _joined(kind, values, separator, chunk, source, chunk_bits,
            class_id=None):
    # Chunks by an integer shift of the id: MariaDB sorts the rows for
    # the grouping, and an integer key sorted faster than floor(id /
    # CHUNK)'s decimal one (16 against 23 ms for 30,000 inventories).
    groups = [chunk.op('>>')(sa.literal_column(str(chunk_bits)))]
    if class_id is None:
        class_id = sa.null()
    else:
        groups.insert(0, class_id)
    return (sa.select(sa.literal(kind), class_id,
                      sa.func.aggregate_strings(values, separator))
            .select_from(source).group_by(*groups))


def _joined_capacity(chunk_bits=CHUNK_BITS):
    """MariaDB's statement: (kind, class id, text) rows.

    Figures and usages are joined a class at a time, so that a usage is
    found by its provider's id alone. A figures text has the provider
    id, total, reserved and allocation ratio of each of its class's
    inventories, a usages text the provider id and sum of the
    allocations of each provider that has some of its class, all
    separated by spaces; a names text (no class) is the inside of a
    JSON array of provider id (as a text), name pairs.

    The parts come in the order of ``_from_joined``'s work: the names,
    which a figures text needs, then the figures, then the usages, the
    longest part for the server, while the figures are read.
    """
    used = (sa.select(ALLOC.c.resource_provider_id,
                      ALLOC.c.resource_class_id,
                      sa.func.sum(ALLOC.c.used).label('used'))
            .group_by(ALLOC.c.resource_provider_id,
                      ALLOC.c.resource_class_id)
            .subquery())
    return sa.union_all(
        _joined(_NAMES, sa.func.concat(
            '"', RP.c.id, '",', sa.func.json_quote(RP.c.name)), ',',
            RP.c.id, RP, chunk_bits),
        _joined(_FIGURES, sa.func.concat_ws(
            ' ', INV.c.resource_provider_id, INV.c.total, INV.c.reserved,
            INV.c.allocation_ratio), ' ', INV.c.id, INV, chunk_bits,
            INV.c.resource_class_id),
        _joined(_USAGES, sa.func.concat_ws(
            ' ', used.c.resource_provider_id, used.c.used), ' ',
            used.c.resource_provider_id, used, chunk_bits,
            used.c.resource_class_id))


_JOINED_CAPACITY = _joined_capacity()


class _Figures(object):
    """The inventories of one figures text, as columns.

    ``hostnames`` is None where a provider's name had not come yet with
    the text: they are looked up once all have come.
    """

    def __init__(self, class_id, text, names):
        values = text.split(' ')
        self.class_id = class_id
        self.provider_ids = values[0::4]
        self.totals = values[1::4]
        self.reserved = values[2::4]
        self.ratios = values[3::4]
        self.hostnames = self.named(names)

    def named(self, names):
        hostnames = list(map(names.get, self.provider_ids))
        return None if None in hostnames else hostnames


def _from_joined(context, rows):
    """``Capacity`` from MariaDB's joined texts, read as they come.

    Totals, reserved amounts and usages are the decimal texts the
    database wrote, the allocation ratio its text of the number: what
    the exposition prints of them is the same as of the numbers. Each
    step is one call over a whole column of a text, made while the
    server writes the next texts.
    """
    names = {}
    used = collections.defaultdict(dict)
    figures = []
    for kind, class_id, text in rows:
        if kind == _NAMES:
            pairs = json.loads('[%s]' % text)
            # Keyed by the id's text, as the figures hold it.
            names.update(zip(pairs[::2], pairs[1::2]))
        elif kind == _USAGES:
            values = text.split(' ')
            used[class_id].update(zip(values[0::2], values[1::2]))
        else:
            figures.append(_Figures(class_id, text, names))
    class_names = rc_db.names_for_ids(
        context, {part.class_id for part in figures})
    inventories = Capacity([], [], [], [], [], [])
    for part in figures:
        count = len(part.provider_ids)
        # Names that came after these figures: not in the statement's
        # order, but not wrong.
        inventories.hostnames.extend(part.hostnames or map(
            names.__getitem__, part.provider_ids))
        inventories.classes.extend([class_names[part.class_id]] * count)
        inventories.totals.extend(part.totals)
        inventories.reserved.extend(part.reserved)
        inventories.ratios.extend(part.ratios)
        # No allocations: 0, as Placement's usages show it.
        inventories.used.extend(map(used[part.class_id].get,
                                    part.provider_ids,
                                    itertools.repeat('0')))
    return inventories


def _from_rows(rows):
    """``Capacity`` from the rows of ``_CAPACITY``."""
    if not rows:
        return NO_INVENTORIES
    names, classes, totals, reserved, ratios, used = zip(*rows)
    return Capacity(list(names), list(classes), list(map(str, totals)),
                    list(map(str, reserved)), list(ratios),
                    list(map(str, used)))


@common.reader
def capacity(context):
    """Every inventory, in one statement: a ``Capacity``."""
    session = context.session
    if session.get_bind().dialect.name != 'mysql':
        return _from_rows(session.execute(_CAPACITY).all())
    # Read as they come (an unbuffered cursor, a row at a time): the
    # texts the server wrote first are read while it writes the next.
    return _from_joined(context, session.execute(
        _JOINED_CAPACITY, execution_options={'stream_results': True,
                                             'max_row_buffer': 1}))
