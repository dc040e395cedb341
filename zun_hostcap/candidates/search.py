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

"""The allocation candidate search: request groups combined, tree by tree.

The database side (``db/sqlalchemy/placement/candidates.py``) works out
in SQL, set-based, which providers can serve each request group (or,
for the unsuffixed group, each of its resource classes) on their own:
capacity, min_unit, max_unit and step_size, traits, aggregates and tree
membership are all checked there, and loaded into a ``SearchSpace``.
What is left is the combination, done here without the database:

- An *anchor* is the root of a tree. A group's options under an anchor
  are the providers of that tree that can serve it, and the sharing
  providers (``MISC_SHARES_VIA_AGGREGATE``) that share with the tree
  through an aggregate.
- Each anchor is walked depth first, one *level* a step: one level for
  each resource class of the unsuffixed group (its classes may come from
  different providers), one for each granular group (all of its classes
  from one provider). A partial combination is abandoned as soon as it
  breaks a rule, before any level below it is tried:

  - capacity: what several groups take from one provider's class must
    fit its capacity and max_unit together;
  - ``group_policy=isolate``: the granular groups use different
    providers;
  - ``same_subtree``: one provider of the named groups is an ancestor
    (or itself) of all the others;
  - the unsuffixed group's required traits, on the providers it uses
    taken together;
  - below microversion 1.29: at most one provider of a tree.

  A look ahead also gives up on a partial combination that leaves
  (isolate) a later granular group without a free provider, or fewer
  free providers than granular groups still to place, or (capacity)
  less room in a class than the later levels still ask for.
- Candidates come out lazily: ``limit`` and ``max_allocation_candidates``
  stop the walk, and the memory held is the answer plus one path per
  anchor. No option has to be tuned to stay alive.

Providers and classes are internal ids here; the caller names them.
"""

import itertools
import random

from zun_hostcap.candidates import request as candidate_request
from zun_hostcap.candidates import space as search_space

_NO_TRAITS = frozenset()


class _Plan(object):
    """What the walks of one search share: the levels in walk order.

    The unsuffixed levels come first (their trait check ends them), then
    the granular ones, those with fewest options first: a dead end shows
    sooner.
    """

    def __init__(self, space):
        self.space = space
        levels = space.levels
        order = [i for i, level in enumerate(levels) if not level.granular]
        # Only the granular levels are ordered by their size.
        sizes = {i: sum(len(options) for options in level.options.values())
                 for i, level in enumerate(levels) if level.granular}
        order += sorted(sizes, key=lambda i: sizes[i])
        self.order = order
        self.levels = [levels[i] for i in order]
        depth = len(self.levels)
        # Where each level of the space is in the walk's order.
        self.place = [order.index(i) for i in range(depth)]
        self.in_order = order == list(range(depth))
        self.last_unsuffixed = max(
            (k for k, level in enumerate(self.levels) if not level.granular),
            default=-1)
        # Classes that several levels take: only those can overflow.
        self.shared_classes = space.shared_classes
        self.checked = [tuple((rc, amount) for rc, amount in level.resources
                              if rc in self.shared_classes)
                        for level in self.levels]
        self.demand_after = []
        for k in range(depth):
            demand = {}
            for checked in self.checked[k + 1:]:
                for rc, amount in checked:
                    demand[rc] = demand.get(rc, 0) + amount
            self.demand_after.append(demand)
        self.demand = {}
        for checked in self.checked:
            for rc, amount in checked:
                self.demand[rc] = self.demand.get(rc, 0) + amount
        # same_subtree: for each constraint its levels, and for each level
        # the constraints it is part of.
        self.subtree_sets = []
        for suffixes in space.same_subtrees:
            members = [k for k, level in enumerate(self.levels)
                       if level.suffix in suffixes]
            if members:
                self.subtree_sets.append(members)
        self.subtrees_of = [[] for _level in self.levels]
        for index, members in enumerate(self.subtree_sets):
            for k in members:
                self.subtrees_of[k].append(index)
        self.granular = [k for k, level in enumerate(self.levels)
                         if level.granular]
        self.later_granular = [[j for j in self.granular if j > k]
                               for k in range(depth)]
        self._ancestors = {}
        self.shared_order = sorted(self.shared_classes)

    def shape(self, anchor):
        """(shape, providers): what the walk of ``anchor`` reads, named.

        The providers the walk may meet (the options, then their
        ancestors and roots) are numbered in the order it meets them;
        ``providers`` lists them by number. ``shape`` is every level's
        options and what the walk reads of each option, in those
        numbers: its ancestors (same_subtree), its room in the classes
        several levels take, its traits among the unsuffixed group's
        (which it tests), its root (below 1.29). Two anchors of one shape
        have the same candidates but for the providers' names.
        """
        number = {}
        providers = []
        options = []
        for level in self.levels:
            numbers = []
            for rp in level.options.get(anchor, ()):
                found = number.get(rp)
                if found is None:
                    found = number[rp] = len(providers)
                    providers.append(rp)
                numbers.append(found)
            options.append(tuple(numbers))
        space = self.space
        with_chain = bool(self.subtree_sets)
        with_root = not space.nested_aware
        room = space.room if self.shared_classes else None
        traits_of = (space.traits_of if space.unsuffixed_required
                     else None)
        facts = []
        for rp in list(providers):   # the options; their ancestors follow
            above = self.ancestors(rp)[1:] if with_chain else ()
            if with_root:
                above += (space.root_of[rp],)
            fact = []
            for ancestor in above:
                found = number.get(ancestor)
                if found is None:
                    found = number[ancestor] = len(providers)
                    providers.append(ancestor)
                fact.append(found)
            if room is not None:
                fact.extend(room.get((rp, rc), 0)
                            for rc in self.shared_order)
            if traits_of is not None:
                fact.append(frozenset(traits_of.get(rp, _NO_TRAITS)))
            facts.append(tuple(fact))
        return (tuple(options), tuple(facts)), providers

    def ancestors(self, rp):
        """The provider and its ancestors, as a tuple from it upwards."""
        chain = self._ancestors.get(rp)
        if chain is None:
            parent_of = self.space.parent_of
            found = []
            current = rp
            while current is not None:
                found.append(current)
                current = parent_of.get(current)
            chain = self._ancestors[rp] = tuple(found)
        return chain

    def lca(self, a, b):
        """The lowest common ancestor of providers a and b, or None."""
        above_a = self.ancestors(a)
        for rp in self.ancestors(b):
            if rp in above_a:
                return rp
        return None


class _AnchorWalk(object):
    """The depth-first walk of one anchor's combinations."""

    def __init__(self, plan, anchor, rng):
        self.plan = plan
        space = self.space = plan.space
        self.anchor = anchor
        self.levels = plan.levels
        self.place = plan.place
        self.last_unsuffixed = plan.last_unsuffixed
        self.shared_classes = plan.shared_classes
        self.checked = plan.checked
        self.subtree_sets = plan.subtree_sets
        self.subtrees_of = plan.subtrees_of
        self.later_granular = plan.later_granular
        self.demand_after = plan.demand_after
        self.options = [level.options.get(anchor, ()) for level in
                        self.levels]
        if rng is not None:
            self.options = [list(options) for options in self.options]
            for options in self.options:
                rng.shuffle(options)
        if plan.subtree_sets:
            self.option_sets = [frozenset(opts) for opts in self.options]

        # isolate: a bit per option provider of the granular levels.
        self.isolate = space.isolate
        self.bits = {}
        self.masks = []
        if self.isolate:
            for k, level in enumerate(self.levels):
                mask = 0
                if level.granular:
                    for rp in self.options[k]:
                        bit = self.bits.get(rp)
                        if bit is None:
                            bit = self.bits[rp] = 1 << len(self.bits)
                        mask |= bit
                self.masks.append(mask)

        # capacity look ahead: what later levels still ask of each class
        # that several levels take, against the room left in the tree.
        self.room_left = {}
        if self.shared_classes:
            room = space.room
            for rc in plan.demand:
                self.room_left[rc] = 0
            seen = set()
            for k, checked in enumerate(self.checked):
                for rc, _amount in checked:
                    for rp in self.options[k]:
                        if (rp, rc) not in seen:
                            seen.add((rp, rc))
                            self.room_left[rc] += room.get((rp, rc), 0)

    def viable(self):
        """A cheap check of the anchor as a whole, before walking it."""
        if not all(self.options):
            return False
        space = self.space
        if space.unsuffixed_required and self.last_unsuffixed >= 0:
            offered = set()
            for k in range(self.last_unsuffixed + 1):
                for rp in self.options[k]:
                    offered |= space.traits_of.get(rp, _NO_TRAITS)
            if not all(any_of & offered
                       for any_of in space.unsuffixed_required):
                return False
        if self.shared_classes:
            if any(amount > self.room_left[rc]
                   for rc, amount in self.plan.demand.items()):
                return False
        if self.isolate and not self._hall(-1, 0):
            return False
        return True

    def _hall(self, k, used):
        """The isolate look ahead after level ``k``.

        Each later granular level must have a free provider, and together
        at least as many free providers as they are levels.
        """
        later = (self.later_granular[k] if k >= 0 else
                 self.plan.granular)
        union = 0
        for j in later:
            free = self.masks[j] & ~used
            if not free:
                return False
            union |= free
        return len(later) < 2 or bin(union).count('1') >= len(later)

    def walk(self):
        """Yield the anchor's candidates (see ``search``)."""
        self.chosen = [None] * len(self.levels)
        self.used_mask = 0
        self.load = {}
        self.room_left = dict(self.room_left)
        self.tree_owner = {}     # below 1.29: root -> [provider, count]
        # The lowest common ancestor of each same_subtree set's choices so
        # far (None: none chosen yet).
        self.lcas = [None] * len(self.subtree_sets)
        return self._descend(0)

    def _descend(self, k):
        """The candidates below the choices of the levels before ``k``."""
        space = self.space
        level = self.levels[k]
        checked = self.checked[k]
        room = space.room
        load = self.load
        chosen = self.chosen
        bits = self.bits if self.isolate and level.granular else None
        one_a_tree = not space.nested_aware
        root_of = space.root_of
        subtrees = self.subtrees_of[k]
        traits_check = (k == self.last_unsuffixed and
                        space.unsuffixed_required)
        last = k == len(self.levels) - 1
        for rp in self.options[k]:
            if bits is not None and bits[rp] & self.used_mask:
                continue
            # Capacity of the classes other levels take too.
            if checked and any(
                    load.get((rp, rc), 0) + amount > room.get((rp, rc), 0)
                    for rc, amount in checked):
                continue
            if one_a_tree:
                owner = self.tree_owner.get(root_of[rp])
                if owner is not None and owner[0] != rp:
                    continue
            lcas = self.lcas
            if subtrees:
                lcas = self._closing_lcas(k, rp, subtrees)
                if lcas is None:
                    continue
            if traits_check and not self._traits_met(k, rp):
                continue

            # Take it; on to the next level; leave it.
            chosen[k] = rp
            saved = (self.used_mask, self.lcas)
            for rc, amount in checked:
                load[(rp, rc)] = load.get((rp, rc), 0) + amount
                self.room_left[rc] -= amount
            if one_a_tree:
                self.tree_owner.setdefault(root_of[rp], [rp, 0])[1] += 1
            if bits is not None:
                self.used_mask |= bits[rp]
            self.lcas = lcas
            if last:
                yield tuple([chosen[j] for j in self.place])
            elif self._ahead(k):
                yield from self._descend(k + 1)
            self.used_mask, self.lcas = saved
            for rc, amount in checked:
                load[(rp, rc)] -= amount
                self.room_left[rc] += amount
            if one_a_tree:
                owner = self.tree_owner[root_of[rp]]
                owner[1] -= 1
                if not owner[1]:
                    del self.tree_owner[root_of[rp]]
        chosen[k] = None

    def _closing_lcas(self, k, rp, subtrees):
        """The same_subtree sets' ancestors with ``rp`` chosen at ``k``.

        None if a set can no longer be closed.
        """
        lcas = list(self.lcas)
        for index in subtrees:
            current = lcas[index]
            if current is None or current == rp:
                # rp is the set's ancestor itself: the set is closed.
                lcas[index] = rp
                continue
            lca = self.plan.lca(current, rp)
            if lca is None or (lca != rp and not self._subtree_can_close(
                    index, k, lca, self.chosen)):
                return None
            lcas[index] = lca
        return lcas

    def _traits_met(self, k, rp):
        """The unsuffixed group's required traits, by its providers."""
        traits_of = self.space.traits_of
        offered = set(traits_of.get(rp, _NO_TRAITS))
        for j in range(k):
            offered |= traits_of.get(self.chosen[j], _NO_TRAITS)
        return all(any_of & offered
                   for any_of in self.space.unsuffixed_required)

    def _ahead(self, k):
        """The look ahead after level ``k``'s choice."""
        if self.isolate and not self._hall(k, self.used_mask):
            return False
        if self.shared_classes:
            room_left = self.room_left
            for rc, amount in self.demand_after[k].items():
                if amount > room_left[rc]:
                    return False
        return True

    def _subtree_can_close(self, index, k, lca, chosen):
        """Whether a same_subtree set can still be closed.

        A provider was chosen at level ``k``, not ``lca``. Some provider
        of the set must be an ancestor (or itself) of all of them: that
        is their lowest common ancestor ``lca``. It is either one chosen
        before, or one a later level of the set can still choose.
        """
        members = self.subtree_sets[index]
        if any(chosen[j] == lca for j in members if j < k):
            return True
        later = [j for j in members if j > k]
        if not later:
            return False
        ancestors = self.plan.ancestors(lca)
        return any(anc in self.option_sets[j]
                   for j in later for anc in ancestors)


class _Recording(object):
    """The candidates of one walk, in the numbers of its anchor's shape.

    Recorded as the walk makes them, and replayed for each anchor of
    the shape with its own providers; the walk goes on only as far as
    the furthest replay has asked (a ``limit`` stops them all).
    """

    def __init__(self, walk, number):
        self.walk = walk
        self.number = number
        self.made = []

    def replay(self, providers):
        made = self.made
        at = 0
        while True:
            if at == len(made):
                if self.walk is None:
                    return
                candidate = next(self.walk, None)
                if candidate is None:
                    self.walk = None
                    return
                made.append(tuple([self.number[rp] for rp in candidate]))
            yield tuple([providers[n] for n in made[at]])
            at += 1


# After this many anchors, shapes are given up where each has served
# fewer than this many anchors on average.
_SHAPES_TRIED = 64
_ANCHORS_A_SHAPE = 2


def _walks_by_shape(plan, anchors):
    """The walk of each anchor, one walk for anchors of one shape.

    Most trees of a cloud are alike: the same providers under the same
    parents, offering the same groups. Their anchors have one shape
    (_Plan.shape), and one walk makes the candidates of all of them:
    the nested shape's 1,000 trees took 20 to 34 ms to walk one by one,
    8 to 10 ms so (one run, alternately, on a noisy machine). Where
    the first anchors show few anchors a shape, the rest are walked one
    by one: a shape costs some of a walk.
    """
    recordings = {}
    for seen, anchor in enumerate(anchors):
        if (seen == _SHAPES_TRIED and
                len(recordings) * _ANCHORS_A_SHAPE > seen):
            break
        shape, providers = plan.shape(anchor)
        recording = recordings.get(shape)
        if recording is None:
            walk = _AnchorWalk(plan, anchor, None)
            number = {rp: n for n, rp in enumerate(providers)}
            recording = recordings[shape] = _Recording(
                walk.walk() if walk.viable() else None, number)
        yield recording.replay(providers)
    else:
        return
    yield from _walks_one_by_one(plan, anchors[seen:])


def _walks_one_by_one(plan, anchors, rng=None):
    """The walk of each viable anchor, each its own."""
    for anchor in anchors:
        walk = _AnchorWalk(plan, anchor, rng)
        if walk.viable():
            yield walk.walk()


def _options(space, anchor, rng):
    """The candidates of a space of one level: its options."""
    options = space.levels[0].options[anchor]
    if rng is not None:
        options = list(options)
        rng.shuffle(options)
    required = space.unsuffixed_required
    traits_of = space.traits_of
    for rp in options:
        if required:
            offered = traits_of.get(rp, _NO_TRAITS)
            if not all(any_of & offered for any_of in required):
                continue
        yield (rp,)


def _unchecked(plan):
    """Whether every combination of an anchor's options is a candidate.

    No class taken by several levels, no isolate, no same_subtree, no
    required traits of the unsuffixed group, one provider a tree
    allowed: nothing the walk checks between levels applies.
    """
    space = plan.space
    return not (plan.shared_classes or space.isolate or plan.subtree_sets or
                space.unsuffixed_required or not space.nested_aware)


def _products(plan, anchor, rng):
    """An unchecked anchor's candidates, as the walk would yield them.

    The product of its levels' options in the walk's order (the first
    level varying slowest, as the depth-first walk takes them), each put
    back in the space's order: no walk object or generator a level for
    the many anchors of a flat or shared-pool cloud.
    """
    options = [level.options.get(anchor, ()) for level in plan.levels]
    if rng is not None:
        options = [list(opts) for opts in options]
        for opts in options:
            rng.shuffle(opts)
    place = plan.place
    if plan.in_order:
        # The walk's order is the space's: each combination is one.
        yield from itertools.product(*options)
        return
    for combination in itertools.product(*options):
        yield tuple([combination[j] for j in place])


def _one_option_each(space):
    """Whether each anchor has one candidate: its lone option.

    A space of one level without required traits to check, where no
    anchor has several options, as in a flat cloud.
    """
    if len(space.levels) != 1 or space.unsuffixed_required:
        return False
    return all(len(options) == 1
               for options in space.levels[0].options.values())


def _round_robin(generators):
    """One item of each generator in turn, dropping the exhausted.

    ``generators`` is consumed as the first round goes: with a limit
    reached in the first round, the later generators are never made.
    """
    active = []
    for generator in generators:
        for item in generator:
            yield item
            active.append(generator)
            break
    while active:
        still = []
        for generator in active:
            for item in generator:
                yield item
                still.append(generator)
                break
        active = still


def cap(options, limit):
    """The most candidates to make; None for no cap.

    The smaller of ``limit`` (None: no limit) and
    ``options.max_candidates`` (-1: none).
    """
    caps = [n for n in (limit, options.max_candidates)
            if n is not None and n >= 0]
    return min(caps) if caps else None


def search(space, options=candidate_request.SearchOptions(), limit=None):
    """The candidates of ``space``, lazily.

    A candidate is a tuple: the provider chosen at each level of
    ``space.levels``, in their order (read by the ``allocations`` and
    ``mappings`` of zun_hostcap.candidates.space).

    Depth first: every candidate of the first anchor, then of the next.
    Breadth first (or randomized): one candidate of each anchor in turn.
    Randomized, the anchors and each level's options are shuffled, so
    that a ``limit`` samples across roots without the rest being made.

    :param limit: stop after this many (None: no limit); with
        ``options.max_candidates`` (-1: none) the smaller counts.
    """
    rng = random.Random() if options.randomize else None
    anchors = list(space.anchors)
    if rng is not None:
        rng.shuffle(anchors)
    most = cap(options, limit)
    if most == 0:
        return

    def walks():
        if len(space.levels) == 1:
            # Nothing to combine: each option is a candidate.
            for anchor in anchors:
                yield _options(space, anchor, rng)
            return
        plan = _Plan(space)
        if _unchecked(plan):
            for anchor in anchors:
                yield _products(plan, anchor, rng)
            return
        if rng is not None:
            # Each walk shuffles its own options.
            yield from _walks_one_by_one(plan, anchors, rng)
            return
        yield from _walks_by_shape(plan, anchors)

    if _one_option_each(space):
        # Each anchor's candidate is its option, in the anchors' order, as
        # either walk takes them: no generator an anchor (10,000 shuffled
        # computes: 40 ms by the walks).
        level_options = space.levels[0].options
        produced = ((level_options[anchor][0],) for anchor in anchors)
    elif (options.strategy == candidate_request.BREADTH_FIRST or
            rng is not None):
        produced = _round_robin(walks())
    else:
        produced = itertools.chain.from_iterable(walks())

    # The same candidate comes from several anchors only when it uses
    # sharing providers alone.
    sharing = space.sharing
    levels = space.levels
    seen = set()
    count = 0
    for candidate in produced:
        if sharing and all(rp in sharing for rp in candidate):
            key = search_space.candidate_key(levels, candidate)
            if key in seen:
                continue
            seen.add(key)
        yield candidate
        count += 1
        if most is not None and count >= most:
            return
