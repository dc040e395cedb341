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

"""Allocation candidates: what the database says, and the answer's data.

``get_candidates`` answers GET /allocation_candidates in one read
transaction, in a fixed number of set-based statements whatever the
number of providers:

1. the names of the request are resolved (classes, traits: unknown ones
   are an error; aggregates and in_tree providers: unknown ones match
   nothing);
2. for each granular group, the providers that can serve all of it;
   for each class of the unsuffixed group, the providers of a tree that
   can serve that class, with the tree's root as anchor; capacity
   (usage, reserved, allocation ratio), min_unit, max_unit, step_size,
   traits, aggregates and in_tree are checked in the statement;
3. sharing providers (``MISC_SHARES_VIA_AGGREGATE``) among them are
   joined to the trees they share with, through their aggregates;
4. only what the combination needs besides: the room left in classes
   that several groups ask for, the parents of the trees for
   ``same_subtree``, the unsuffixed group's required traits;
5. ``zun_hostcap.candidates.search`` combines the groups, lazily;
6. the provider summaries are read for the trees of the answer alone
   (``provider_summaries``).

What each group may use follows OpenStack Placement (see
doc/source/admin/placement-candidates.rst for the rules and the few
places where this search answers differently, on purpose):

- the unsuffixed group takes each of its classes from one provider of
  the anchor's tree or from a sharing provider of the tree's
  aggregates; member_of is met by the provider or by its tree's root,
  forbidden aggregates by neither; its required traits are met by its
  providers together, its forbidden traits by none of them;
- a granular group is served by one provider, which meets its traits
  and aggregates itself;
- root_required is met by the anchor.
"""

import os_traits
import sqlalchemy as sa

from zun_hostcap.candidates import request as candidate_request
from zun_hostcap.candidates import search
from zun_hostcap.candidates import space as search_space
from zun_hostcap.db.sqlalchemy import models
from zun_hostcap.db.sqlalchemy.placement import common
from zun_hostcap.db.sqlalchemy.placement import inventories as inv_db
from zun_hostcap.db.sqlalchemy.placement import provider_filter as rp_filter
from zun_hostcap.db.sqlalchemy.placement import provider_summaries
from zun_hostcap.db.sqlalchemy.placement import resource_classes
from zun_hostcap.db.sqlalchemy.placement import resource_providers as rp_db
from zun_hostcap.db.sqlalchemy.placement import traits as trait_db

RP = common.RP
INV = models.Inventory.__table__
RPT = models.ResourceProviderTrait.__table__
RPA = models.ResourceProviderAggregate.__table__

SHARES = os_traits.MISC_SHARES_VIA_AGGREGATE

# The anchors of a sharing provider are read as texts of the ids of at
# most this many roots' range (under 50 kB, far below the 16 MiB a
# MariaDB connection may join: db.sqlalchemy.api.configure_mysql).
ANCHOR_CHUNK = 4096

# flat_level's statements, by what they ask (_flat_statement); emptied
# when full: a scheduler asks the same few questions again and again.
FLAT_STATEMENTS_KEPT = 256
_FLAT_STATEMENTS = {}


class Answer(object):
    """The candidates and the provider summaries.

    Kept so that an answer of many thousands of candidates is written
    without building names twice (the API's allocation_candidates
    controller writes it):

    - ``levels``: the search's levels, as (suffix, ((class name, amount),
      ...));
    - ``candidates``: one tuple a candidate, the id of the provider
      chosen at each level;
    - ``uuid_of``: {provider id: uuid} of every provider they name;
    - ``summaries_text``: the provider summaries as the inside of a JSON
      object, in the form the request's version shows.
    """

    def __init__(self, levels=(), candidates=(), uuid_of=None,
                 summaries_text=''):
        self.levels = list(levels)
        self.candidates = list(candidates)
        self.uuid_of = uuid_of or {}
        self.summaries_text = summaries_text


class _Empty(Exception):
    """Nothing can match: a group, or the request, has no option."""


class _Names(object):
    """The ids of a request's classes and traits.

    :raises ResourceClassNotFound: an unknown class (the first, by name).
    :raises TraitNotFound: unknown traits (all named).
    """

    def __init__(self, context, request):
        classes = set()
        traits = set(request.root_required) | set(request.root_forbidden)
        for group in request.groups:
            classes.update(name for name, _amount in group.resources)
            traits.update(group.forbidden_traits)
            for any_of in group.required_traits:
                traits.update(any_of)
        self.class_ids = resource_classes.ids_for_names(context,
                                                        sorted(classes))
        self.trait_ids = trait_db.ids_for_names(context, sorted(traits))

    def resources(self, group):
        return tuple((self.class_ids[name], amount)
                     for name, amount in group.resources)

    def traits(self, names):
        return [self.trait_ids[name] for name in sorted(names)]


def _tree_root(context, uuid):
    """The root id of the tree of provider ``uuid``; _Empty if none."""
    root = context.session.execute(
        sa.select(RP.c.root_provider_id).where(RP.c.uuid == uuid)).scalar()
    if root is None:
        raise _Empty()
    return root


def _own_conditions(context, group, names, resources, flat=False,
                    capacity=True):
    """What a provider must meet itself to serve a group alone.

    Traits and aggregates first: SQLite tries the conditions in their
    order, and these are cheaper than capacity (a sum of allocations)
    and usually leave few providers to try it on. _Empty for an in_tree
    provider that does not exist. ``flat``: for flat_level (on
    PostgreSQL, the capacity of each provider the traits and aggregates
    leave is tested by itself: see provider_filter.has_capacity).
    ``capacity``: False where the statement tests it otherwise
    (provider_filter.with_room_by_rows).
    """
    rp_col = RP.c.id
    conditions = []
    # PostgreSQL: the required traits and aggregates as one condition
    # (see in_every).
    as_one = context.session.connection().dialect.name == 'postgresql'
    provider_sets = []
    for any_of in group.required_traits:
        if as_one:
            provider_sets.append(rp_filter.providers_with_traits(
                names.traits(any_of)))
        else:
            conditions.append(rp_filter.with_traits(rp_col,
                                                    names.traits(any_of)))
    if group.forbidden_traits:
        conditions.append(~rp_filter.with_traits(
            rp_col, names.traits(group.forbidden_traits)))
    if group.member_of:
        if as_one:
            provider_sets.extend(rp_filter.providers_in_aggregates(aggs)
                                 for aggs in group.member_of)
        else:
            conditions.append(rp_filter.in_all_aggregates(rp_col,
                                                          group.member_of))
    if provider_sets:
        conditions.insert(0, rp_filter.in_every(rp_col, provider_sets))
    if group.forbidden_aggs:
        conditions.append(~rp_filter.in_aggregates(rp_col,
                                                   group.forbidden_aggs))
    each = flat and bool(provider_sets)
    # PostgreSQL's semi-joins: the row's tests as one CASE, for the
    # estimate of the rows they keep (see has_capacity).
    opaque = as_one and not each
    if capacity:
        conditions.extend(rp_filter.has_capacity(rp_col, rc_id, amount,
                                                 each, opaque)
                          for rc_id, amount in resources)
    if group.in_tree:
        conditions.append(RP.c.root_provider_id ==
                          _tree_root(context, group.in_tree))
    return conditions


def _rows(context, conditions, first=None, columns=()):
    """The providers meeting ``conditions``.

    Rows of (id, root id, parent id, uuid, and ``columns``); the
    ``first`` (by id) alone if given.
    """
    query = sa.select(RP.c.id, RP.c.root_provider_id,
                      RP.c.parent_provider_id, RP.c.uuid, *columns)
    if conditions:
        query = query.where(*conditions)
    if first is not None:
        query = query.order_by(RP.c.id).limit(first)
    return context.session.execute(query).all()


class _Builder(object):
    """Builds the SearchSpace of a request, then names the answer."""

    def __init__(self, context, request, names,
                 options=candidate_request.SearchOptions(),
                 summary_form=None):
        self.context = context
        self.request = request
        self.names = names
        self.options = options
        self.root_of = {}
        # Sharing providers of the database: a handful in any cloud.
        shares_id = trait_db.CACHE.ids_for_names(context, [SHARES]).get(
            SHARES)
        self.sharing = set()
        if shares_id is not None:
            self.sharing = set(context.session.execute(
                sa.select(RPT.c.resource_provider_id)
                .where(RPT.c.trait_id == shares_id)).scalars())
        self._anchors_of = {}
        # Known to hold no tree of more than one provider (space()).
        self.flat = False
        # (class ids, with traits, nested) of the answer's summaries,
        # read by flat_level with the providers if it can; and the texts
        # read so.
        self.summary_form = summary_form
        self.summary_of = None
        self.parent_of = {}
        self.uuid_of = {}
        self.allowed_anchors = None
        if request.root_required or request.root_forbidden:
            self.allowed_anchors = self._roots_with_traits()
            if not self.allowed_anchors:
                raise _Empty()

    def _roots_with_traits(self):
        conditions = [RP.c.parent_provider_id.is_(None)]
        for name in sorted(self.request.root_required):
            conditions.append(rp_filter.with_traits(
                RP.c.id, self.names.traits([name])))
        if self.request.root_forbidden:
            conditions.append(~rp_filter.with_traits(
                RP.c.id, self.names.traits(self.request.root_forbidden)))
        return set(self.context.session.execute(
            sa.select(RP.c.id).where(*conditions)).scalars())

    def anchors_of(self, sharing_ids):
        """{sharing provider id: {anchor ids}}.

        The anchors of a sharing provider are the roots of the trees any
        provider of which is in one of its aggregates (its own tree's
        root among them). They come joined into a text a sharing
        provider (and a range of ANCHOR_CHUNK root ids): a row an anchor
        was a thousand rows for PyMySQL to decode in Python for each
        pool of the shared pools' forest.
        """
        missing = [rp for rp in sharing_ids if rp not in self._anchors_of]
        if missing:
            mine = RPA.alias('mine')
            theirs = RPA.alias('theirs')
            for rp in missing:
                self._anchors_of[rp] = set()
            for chunk in common.chunks(missing):
                rows = self.context.session.execute(
                    sa.select(mine.c.resource_provider_id,
                              sa.func.aggregate_strings(
                                  sa.cast(RP.c.root_provider_id, sa.String),
                                  ','))
                    .select_from(
                        mine.join(theirs,
                                  theirs.c.aggregate_id ==
                                  mine.c.aggregate_id)
                        .join(RP, RP.c.id == theirs.c.resource_provider_id))
                    .where(mine.c.resource_provider_id.in_(chunk))
                    .group_by(mine.c.resource_provider_id,
                              sa.func.floor(RP.c.root_provider_id /
                                            ANCHOR_CHUNK))).all()
                for rp, anchors in rows:
                    self._anchors_of[rp].update(
                        int(anchor) for anchor in anchors.split(','))
        return {rp: self._anchors_of[rp] for rp in sharing_ids}

    def _remember(self, rp, root, parent, uuid):
        """A provider read: its root, parent and uuid, for the answer."""
        self.root_of[rp] = root
        self.parent_of[rp] = parent
        self.uuid_of[rp] = uuid

    def _pairs(self, conditions, first=None):
        """[(provider id, root id)] of the providers meeting conditions.

        Their roots, parents and uuids are remembered.
        """
        pairs = []
        for rp, root, parent, uuid in _rows(self.context, conditions,
                                            first):
            self._remember(rp, root, parent, uuid)
            pairs.append((rp, root))
        return pairs

    def _allowed(self, anchor):
        return self.allowed_anchors is None or anchor in self.allowed_anchors

    def granular_level(self, group):
        """The Level of a granular group (one provider serves it all)."""
        resources = self.names.resources(group)
        conditions = _own_conditions(self.context, group, self.names,
                                     resources)
        options = {}
        pairs = self._pairs(conditions)
        sharing = [rp for rp, _root in pairs if rp in self.sharing]
        anchors_of = self.anchors_of(sharing) if sharing else {}
        for rp, root in pairs:
            if self._allowed(root):
                options.setdefault(root, []).append(rp)
            for anchor in anchors_of.get(rp, ()):
                if anchor != root and self._allowed(anchor):
                    options.setdefault(anchor, []).append(rp)
        if not options:
            raise _Empty()
        return search_space.Level(group.suffix, True, resources, options)

    def _class_rows(self, group, tree_root, sharing):
        """The providers that can serve each class of the unsuffixed group.

        One statement for all the classes, on their own trees and as
        sharing providers: (provider id, root id, parent id, uuid,
        class ids, own, shared) in provider id order. ``own``: it serves
        its own tree; ``shared``: it serves the trees it shares with
        (one of ``sharing``). A statement a class, twice for the sharing
        providers, took MariaDB a round trip and a scan of the providers
        each (nine statements where three classes are asked for); a
        row a provider, its classes joined, is half the rows for
        PyMySQL to decode in Python.
        """
        names = self.names
        resources = names.resources(group)
        dialect = self.context.session.connection().dialect.name
        if dialect == 'postgresql':
            # The same test as a CASE on the class, for PostgreSQL's
            # estimate: of the OR (each branch's capacity test and
            # ``amount % step_size = 0``, a default selectivity of
            # 0.005) it expected 3 inventory rows of the mixed set's
            # 2,001 on an analyzed database, and joined the 1,201
            # providers with them in a nested loop (2.4 M rows compared,
            # 56 to 69 ms). Of the IN it knows the rows from the
            # statistics, and of a CASE it takes half: the providers
            # are hashed or probed by index, as on an unanalyzed one.
            conditions = [
                INV.c.resource_class_id.in_(
                    [rc_id for rc_id, _amount in resources]),
                sa.case(*[(INV.c.resource_class_id == rc_id,
                           sa.and_(*rp_filter.fits(rc_id, amount)))
                          for rc_id, amount in resources],
                        else_=sa.false())]
        else:
            conditions = [sa.or_(*[
                sa.and_(INV.c.resource_class_id == rc_id,
                        *rp_filter.fits(rc_id, amount))
                for rc_id, amount in resources])]
        if group.forbidden_traits:
            conditions.append(~rp_filter.with_traits(
                RP.c.id, names.traits(group.forbidden_traits)))
        if self._traits_in_rows(group):
            conditions.extend(rp_filter.with_traits(RP.c.id,
                                                    names.traits(any_of))
                              for any_of in group.required_traits)
        if tree_root is not None:
            conditions.append(RP.c.root_provider_id == tree_root)
        # In the tree's own terms: the provider or its root.
        own = []
        if group.member_of:
            own.append(sa.or_(
                rp_filter.in_all_aggregates(RP.c.id, group.member_of),
                rp_filter.in_all_aggregates(RP.c.root_provider_id,
                                            group.member_of)))
        if group.forbidden_aggs:
            own.append(~rp_filter.in_aggregates(RP.c.id,
                                                group.forbidden_aggs))
            own.append(~rp_filter.in_aggregates(RP.c.root_provider_id,
                                                group.forbidden_aggs))
        # A sharing provider meets member_of itself, and is in no
        # forbidden aggregate.
        shared = []
        if group.member_of:
            shared.append(rp_filter.in_all_aggregates(RP.c.id,
                                                      group.member_of))
        if group.forbidden_aggs:
            shared.append(~rp_filter.in_aggregates(RP.c.id,
                                                   group.forbidden_aggs))
        if self.flat:
            # Each provider is its own root, without parent: two values
            # a row fewer for the driver to decode.
            provider = (RP.c.id, RP.c.uuid)
        else:
            provider = (RP.c.id, RP.c.uuid, RP.c.root_provider_id,
                        RP.c.parent_provider_id)
        columns = list(provider) + [sa.func.aggregate_strings(
            sa.cast(INV.c.resource_class_id, sa.String), ',')]
        # Without aggregates in the group both hold of every row (shared
        # of the sharing providers): no column tells them apart.
        flags = bool(own and sharing)
        if flags:
            is_shared = sa.and_(RP.c.id.in_(sorted(sharing)), *shared)
            conditions.append(sa.or_(sa.and_(*own), is_shared))
            columns += [sa.case((sa.and_(*own), 1), else_=0),
                        sa.case((is_shared, 1), else_=0)]
        else:
            conditions.extend(own)
        rows = self.context.session.execute(
            sa.select(*columns)
            .select_from(INV.join(RP, RP.c.id == INV.c.resource_provider_id))
            .where(*conditions).group_by(*provider)
            .order_by(RP.c.id)).all()
        # Few providers' lists of classes differ: each is read once.
        class_lists = {}
        width = len(provider)
        root, parent = None, None
        for row in rows:
            if width == 2:
                rp, uuid, text = row[:3]
                root = rp
            else:
                rp, uuid, root, parent, text = row[:5]
            classes = class_lists.get(text)
            if classes is None:
                classes = class_lists[text] = [
                    int(rc_id) for rc_id in text.split(',')]
            if flags:
                yield (rp, root, parent, uuid, classes, row[width + 1],
                       row[width + 2])
            else:
                yield rp, root, parent, uuid, classes, True, rp in sharing

    def _traits_in_rows(self, group):
        """Whether _class_rows tests the unsuffixed group's required traits.

        Where the group asks for one class, a candidate takes it from one
        provider, which must meet the traits itself: its statement tests
        them, and the search has none left to test (space()). Otherwise
        the group's providers meet them together, and the search tests
        them on the traits read of those providers: for the nested
        shape's 1,000 computes a statement of its own, 4.4 ms on MariaDB
        and 1.9 on PostgreSQL, where the test in the rows costs 0.8.
        """
        return (bool(group.required_traits) and
                len(self.names.resources(group)) == 1)

    def unsuffixed_levels(self, group):
        """The Levels of the unsuffixed group, one a class.

        Each class's options: for a tree, the providers of the tree that
        can serve the class, then the sharing providers of its
        aggregates that can (not within in_tree).
        """
        tree_root = (_tree_root(self.context, group.in_tree)
                     if group.in_tree else None)
        sharing = self.sharing if tree_root is None else frozenset()
        resources = self.names.resources(group)
        allowed = self.allowed_anchors
        # Each class's options as the rows come, in provider id order: a
        # tree's own providers, then (below) the sharing ones.
        own = {rc_id: {} for rc_id, _amount in resources}
        shared = {rc_id: [] for rc_id, _amount in resources}
        for rp, root, parent, uuid, classes, is_own, is_shared in (
                self._class_rows(group, tree_root, sharing)):
            self._remember(rp, root, parent, uuid)
            if is_own and (allowed is None or root in allowed):
                for rc_id in classes:
                    options = own[rc_id]
                    if root in options:
                        options[root].append(rp)
                    else:
                        options[root] = [rp]
            if is_shared:
                for rc_id in classes:
                    shared[rc_id].append((rp, root))
        sharing_options = {rp for pairs in shared.values()
                           for rp, _root in pairs}
        anchors_of = self.anchors_of(sorted(sharing_options))
        # Neither a sharing provider nor the anchor it serves is in a
        # forbidden aggregate.
        bad_roots = None
        if sharing_options and group.forbidden_aggs:
            bad_roots = set(self.context.session.execute(
                sa.select(RP.c.id).where(
                    RP.c.parent_provider_id.is_(None),
                    rp_filter.in_aggregates(
                        RP.c.id, group.forbidden_aggs))).scalars())
        levels = []
        for rc_id, amount in resources:
            options = own[rc_id]
            for rp, root in shared[rc_id]:
                for anchor in anchors_of[rp]:
                    if (anchor != root and self._allowed(anchor) and
                            not (bad_roots and anchor in bad_roots)):
                        options.setdefault(anchor, []).append(rp)
            if not options:
                raise _Empty()
            levels.append(search_space.Level('', False, ((rc_id, amount),),
                                             options))
        return levels

    def room(self, levels):
        """{(provider, class): room} for classes several levels take."""
        shared = search_space.shared_classes(levels)
        if not shared:
            return {}
        providers = set()
        for level in levels:
            if any(rc_id in shared for rc_id, _amount in level.resources):
                for options in level.options.values():
                    providers.update(options)
        room = {}
        used = rp_filter.used(or_zero=True)
        for chunk in common.chunks(providers):
            rows = self.context.session.execute(
                sa.select(INV.c.resource_provider_id,
                          INV.c.resource_class_id, INV.c.total,
                          INV.c.reserved, INV.c.allocation_ratio,
                          INV.c.max_unit, used)
                .where(INV.c.resource_class_id.in_(sorted(shared)),
                       INV.c.resource_provider_id.in_(chunk))).all()
            for rp, rc_id, total, reserved, ratio, max_unit, in_use in rows:
                capacity = inv_db.capacity(total, reserved, ratio)
                room[(rp, rc_id)] = min(capacity - int(in_use), max_unit)
        return room

    def parents(self):
        """{provider: parent} of the options and all their ancestors.

        The options' parents came with them; the ancestors that are no
        option are read a generation at a time (a tree is a few deep).
        """
        parent_of = self.parent_of
        missing = {parent for parent in parent_of.values()
                   if parent is not None and parent not in parent_of}
        while missing:
            for chunk in common.chunks(missing):
                parent_of.update(self.context.session.execute(
                    sa.select(RP.c.id, RP.c.parent_provider_id)
                    .where(RP.c.id.in_(chunk))).all())
            missing = {parent for parent in parent_of.values()
                       if parent is not None and parent not in parent_of}
        return parent_of

    def traits_of(self, trait_ids, providers):
        """{provider: {trait ids it has of ``trait_ids``}}."""
        found = {}
        for chunk in common.chunks(providers):
            for rp, trait_id in self.context.session.execute(
                    sa.select(RPT.c.resource_provider_id, RPT.c.trait_id)
                    .where(RPT.c.trait_id.in_(sorted(trait_ids)),
                           RPT.c.resource_provider_id.in_(chunk))).all():
                found.setdefault(rp, set()).add(trait_id)
        return found

    def has_trees(self):
        """Whether any provider of the database has a parent.

        The highest parent id, which every engine reads from the end of
        the index of parents: the first row with a parent, asked as
        such, was a scan of every provider of a flat cloud on
        PostgreSQL without statistics (7 ms for 25,000).
        """
        return self.context.session.execute(
            sa.select(sa.func.max(RP.c.parent_provider_id))).scalar() \
            is not None

    def _lone_unfiltered(self):
        """Whether flat_level's group is the only one, unfiltered.

        The request's only group, and its providers not filtered after
        the statement (by their roots' traits).
        """
        return (len(self.request.groups) == 1 and
                self.allowed_anchors is None)

    def _each_read_is_a_candidate(self):
        """Whether each provider flat_level reads makes a candidate.

        A lone, unfiltered group's: those the search takes in id order,
        one candidate each, up to the cap, or, shuffled, all of them
        where there is no cap. (Drawn at random with a cap, _read_cap,
        each is one too, but their summaries are not read with them: the
        database would write the summary of each provider that fits
        before drawing.)
        """
        return self._lone_unfiltered() and (
            not self.options.randomize or
            search.cap(self.options, self.request.limit) is None)

    def _read_cap(self):
        """How many providers a lone flat group reads, and how; None: all.

        (cap, shuffled). In order, the search makes a candidate of each
        of the first ``cap`` providers by id: they are all it reads.
        Shuffled, of the first ``cap`` of a shuffle of all those that
        fit: a sample of them, drawn alike by the database (ordered at
        random, with the cap as its limit), which then sends those
        alone. For 1,000 of 50,000 computes PostgreSQL had sent all
        50,000 to be shuffled here: 214 ms a request, 154 so (round 7 of
        the benchmark guide).
        """
        if not self._lone_unfiltered():
            return None
        cap = search.cap(self.options, self.request.limit)
        if cap is None:
            return None
        return cap, self.options.randomize

    def flat_level(self, group):
        """The Level of the unsuffixed group in a flat, unshared cloud.

        Where every tree is one provider and nothing is shared, one
        provider serves the group, and meets its traits and aggregates
        itself: one statement finds them all (with a limit, only the
        first of them, or as many drawn at random where they are
        shuffled). Each provider is its own root, without parent.
        """
        resources = self.names.resources(group)
        form = None
        if (self.summary_form is not None and resources and
                self._each_read_is_a_candidate()):
            # Each provider read is a candidate's: its summary with it.
            connection = self.context.session.connection()
            if connection.dialect.name == 'mysql':
                rp_db.raise_group_concat_limit(connection)
            form = self.summary_form
            self.summary_of = {}
        query = self._flat_statement(group, resources, form)
        options = {}
        for row in self.context.session.execute(query):
            rp, uuid = row[:2]
            self._remember(rp, rp, None, uuid)
            if form is not None:
                self.summary_of[rp] = row[2]
            if self._allowed(rp):
                options[rp] = [rp]
        if not options:
            raise _Empty()
        return search_space.Level('', False, resources, options)

    def _flat_statement(self, group, resources, form):
        """flat_level's statement: (id, uuid[, summary]) of each provider.

        Kept for the same request on the same database (its traits' ids
        and classes' ids in the key): built and given its cache key by
        SQLAlchemy once, not at every request (about a tenth of the
        request's Python on PostgreSQL). Not kept with in_tree, whose
        root is read first.
        """
        read_cap = self._read_cap()
        connection = self.context.session.connection()
        dialect = connection.dialect.name
        key = None
        if not group.in_tree:
            names = self.names
            key = (dialect, group.member_of, group.forbidden_aggs,
                   tuple(tuple(names.traits(any_of))
                         for any_of in group.required_traits),
                   tuple(names.traits(group.forbidden_traits)),
                   resources, read_cap, form and (
                       None if form[0] is None else frozenset(form[0]),
                       form[1], form[2]))
            query = _FLAT_STATEMENTS.get(key)
            if query is not None:
                return query
        by_rows = rp_filter.by_rows(dialect) and bool(resources)
        columns = ()
        if form is not None:
            # None on PostgreSQL with traits: flat_grouping's.
            column = provider_summaries.flat_document(connection, *form,
                                                      joined=by_rows)
            if column is not None:
                columns = (column,)
        query = sa.select(
            RP.c.id,
            rp_filter.GROUP_UUID.label('uuid') if by_rows else RP.c.uuid,
            *columns)
        conditions = _own_conditions(self.context, group, self.names,
                                     resources, flat=True,
                                     capacity=not by_rows)
        if conditions:
            query = query.where(*conditions)
        if by_rows:
            query = rp_filter.with_room_by_rows(query, resources)
        if read_cap is not None:
            cap, shuffled = read_cap
            if not shuffled:
                order = RP.c.id
            elif dialect == 'mysql':
                order = sa.func.rand()
            else:
                order = sa.func.random()
            query = query.order_by(order).limit(cap)
        if form is not None:
            query = provider_summaries.flat_grouping(connection, query,
                                                     form, joined=by_rows)
        if key is not None:
            if len(_FLAT_STATEMENTS) >= FLAT_STATEMENTS_KEPT:
                _FLAT_STATEMENTS.clear()
            _FLAT_STATEMENTS[key] = query
        return query

    def space(self):
        request = self.request
        levels = []
        unsuffixed = None
        for group in request.groups:
            if group.use_same_provider:
                continue
            if not self.has_trees():
                self.flat = True
            if self.flat and not self.sharing:
                levels.append(self.flat_level(group))
            else:
                unsuffixed = group
                levels.extend(self.unsuffixed_levels(group))
        for group in request.groups:
            if group.use_same_provider:
                levels.append(self.granular_level(group))
        anchors = set(levels[0].options)
        for level in levels[1:]:
            anchors.intersection_update(level.options)
        if not anchors:
            raise _Empty()
        anchors = sorted(anchors)
        unsuffixed_required = ()
        traits_of = None
        if (unsuffixed is not None and unsuffixed.required_traits and
                not self._traits_in_rows(unsuffixed)):
            unsuffixed_required = tuple(
                frozenset(self.names.traits(any_of))
                for any_of in unsuffixed.required_traits)
            wanted = set().union(*unsuffixed_required)
            providers = set()
            for level in levels:
                if not level.granular:
                    for options in level.options.values():
                        providers.update(options)
            traits_of = self.traits_of(wanted, providers)
        parent_of = None
        same_subtrees = tuple(request.same_subtrees)
        if same_subtrees:
            parent_of = self.parents()
        return search_space.SearchSpace(
            levels, anchors, self.root_of,
            sharing=frozenset(self.sharing),
            room=self.room(levels), parent_of=parent_of,
            same_subtrees=same_subtrees,
            unsuffixed_required=unsuffixed_required, traits_of=traits_of,
            isolate=request.group_policy == candidate_request.ISOLATE,
            nested_aware=request.nested_aware)


def _answer(context, space, candidates, uuid_of, summaries_text,
            class_names):
    """The Answer: classes named, every candidate provider's uuid."""
    missing = {rp for candidate in candidates for rp in candidate
               if rp not in uuid_of}
    for chunk in common.chunks(missing):
        uuid_of.update(context.session.execute(
            sa.select(RP.c.id, RP.c.uuid).where(RP.c.id.in_(chunk))).all())
    levels = [(level.suffix, tuple((class_names[rc], amount)
                                   for rc, amount in level.resources))
              for level in space.levels]
    return Answer(levels, candidates, uuid_of, summaries_text)


def get_candidates(context, request,
                   options=candidate_request.SearchOptions(),
                   all_classes=True, with_traits=True):
    """The Answer to ``request``, a candidates.request.CandidateRequest.

    :param options: the [placement] options of the search.
    :param all_classes: summaries show every class of a provider (from
        1.27), else only the classes the request names.
    :param with_traits: summaries show traits (from 1.17).
    :raises ResourceClassNotFound: an unknown class.
    :raises TraitNotFound: unknown traits.
    """
    # The standard names are synchronised once, outside the read: inside
    # it, on SQLite, they would be read again at every request.
    resource_classes.ensure_standard(context)
    trait_db.ensure_standard(context)
    return _get_candidates(context, request, options, all_classes,
                           with_traits)


@common.reader
def _get_candidates(context, request, options, all_classes, with_traits):
    names = _Names(context, request)
    class_ids = None if all_classes else set(names.class_ids.values())
    try:
        builder = _Builder(context, request, names, options,
                           (class_ids, with_traits, request.nested_aware))
        space = builder.space()
    except _Empty:
        return Answer()
    candidates = list(search.search(space, options, request.limit))
    if not candidates:
        return Answer()
    # The providers the candidates allocate from: where every level
    # takes resources (always, but for a resourceless granular group),
    # all they name, gathered in C.
    if all(level.resources for level in space.levels):
        allocating = set().union(*candidates)
    else:
        allocating = {rp for candidate in candidates
                      for level, rp in zip(space.levels, candidate)
                      if level.resources}
    # Below 1.29 the summaries are of those providers alone.
    only = None if request.nested_aware else allocating
    roots = {space.root_of[rp] for rp in allocating}
    if only is None and builder.flat:
        # Each tree is its root alone: named as the providers they are,
        # the summaries need no lookup of the trees' members.
        only = roots
    if builder.summary_of is not None:
        # Read with the providers (flat_level): each is its own root.
        summaries = ', '.join(builder.summary_of[rp]
                              for rp in sorted(only))
    else:
        summaries = provider_summaries.text(context, roots, only,
                                            class_ids, with_traits,
                                            request.nested_aware,
                                            flat=builder.flat)
    class_names = {id_: name for name, id_ in names.class_ids.items()}
    return _answer(context, space, candidates, builder.uuid_of, summaries,
                   class_names)
