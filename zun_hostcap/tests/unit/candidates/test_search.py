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

"""The allocation candidate walk, without a database.

The search is checked against a brute-force enumeration of every
combination on many small random spaces, and on the wide trees where
enumerating would explode, for what it produces and how much it tries.
"""

import itertools
import math
import random

from zun_hostcap.candidates import request as rq
from zun_hostcap.candidates import search
from zun_hostcap.candidates import space as sp
from zun_hostcap.tests import base

VCPU, MEM, VF, DISK = 1, 2, 3, 4


def granular(suffix, options, resources=((VF, 1),)):
    return sp.Level(suffix, True, resources, options)


def unsuffixed(rc, amount, options):
    return sp.Level('', False, ((rc, amount),), options)


def found(space, **kwargs):
    options = rq.SearchOptions(**{k: v for k, v in kwargs.items()
                                  if k != 'limit'})
    return list(search.search(space, options, kwargs.get('limit')))


def keys(space, candidates):
    return sorted(sp.candidate_key(space.levels, c) for c in candidates)


def wide_space(computes=2, pfs=8, units=8, groups=8, isolate=True):
    """Computes with PF children of ``units`` CUSTOM_VF each."""
    levels = []
    root_of = {}
    options = {}
    room = {}
    for c in range(computes):
        root = 1000 * (c + 1)
        root_of[root] = root
        children = [root + p + 1 for p in range(pfs)]
        for child in children:
            root_of[child] = root
            room[(child, VF)] = units
        options[root] = children
    for g in range(groups):
        levels.append(granular('G%d' % g, options))
    return sp.SearchSpace(levels, sorted(options), root_of, room=room,
                          isolate=isolate)


class _Counting(object):
    """Counts the options the walk tries (its work)."""

    def __init__(self, test):
        self.tried = 0
        original = search._AnchorWalk._descend
        counter = self

        def descend(walk, k):
            counter.tried += len(walk.options[k])
            return original(walk, k)
        test.patch(search._AnchorWalk, '_descend', descend)


class TestWideTrees(base.TestCase):

    def test_isolate_gives_every_arrangement(self):
        space = wide_space(computes=1, pfs=6, groups=4)
        self.assertEqual(math.perm(6, 4), len(found(space)))
        space = wide_space(computes=2, pfs=8, groups=8)
        candidates = found(space)
        self.assertEqual(2 * math.factorial(8), len(candidates))
        self.assertEqual(len(candidates), len(set(candidates)))
        for candidate in candidates:
            self.assertEqual(8, len(set(candidate)))

    def test_limit_stops_the_walk(self):
        space = wide_space(computes=2, pfs=8, groups=8)
        counter = _Counting(self)
        self.assertEqual(1000, len(found(space, limit=1000)))
        # Each candidate costs a handful of tries, not the 8^8 products
        # of an anchor.
        self.assertLess(counter.tried, 20 * 1000)

    def test_max_candidates_and_limit(self):
        space = wide_space(computes=2, pfs=8, groups=6)
        self.assertEqual(50, len(found(space, max_candidates=50)))
        self.assertEqual(20, len(found(space, max_candidates=50, limit=20)))
        self.assertEqual(0, len(found(space, max_candidates=0)))

    def test_no_answer_is_found_at_once(self):
        # Nine groups, eight PFs: isolate cannot be met; the look ahead
        # sees it before any choice.
        space = wide_space(computes=2, pfs=8, groups=9)
        counter = _Counting(self)
        self.assertEqual([], found(space))
        self.assertEqual(0, counter.tried)
        # One unit each and no isolate: capacity cannot be met either.
        space = wide_space(computes=2, pfs=8, units=1, groups=9,
                           isolate=False)
        self.assertEqual([], found(space))
        self.assertEqual(0, counter.tried)

    def test_capacity_instead_of_isolate(self):
        # One unit per PF and no isolate: the groups still spread.
        space = wide_space(computes=1, pfs=5, units=1, groups=5,
                           isolate=False)
        candidates = found(space)
        self.assertEqual(math.factorial(5), len(candidates))
        # Two units per PF: each PF serves two groups at most.
        space = wide_space(computes=1, pfs=2, units=2, groups=4,
                           isolate=False)
        self.assertEqual(math.comb(4, 2), len(found(space)))

    def test_depth_first_and_breadth_first(self):
        space = wide_space(computes=2, pfs=4, groups=2)
        roots = [space.root_of[c[0]] for c in found(space, limit=4)]
        self.assertEqual([1000] * 4, roots)
        roots = [space.root_of[c[0]] for c in found(
            space, limit=4, strategy=rq.BREADTH_FIRST)]
        self.assertEqual([1000, 2000, 1000, 2000], roots)
        self.assertEqual(
            keys(space, found(space)),
            keys(space, found(space, strategy=rq.BREADTH_FIRST)))

    def test_randomized_samples_across_roots(self):
        space = wide_space(computes=4, pfs=4, groups=2)
        everything = set(found(space))
        for _ in range(10):
            sample = found(space, limit=4, randomize=True)
            self.assertEqual(4, len(set(sample)))
            self.assertLessEqual(set(sample), everything)
            # One candidate from each root in turn.
            self.assertEqual({1000, 2000, 3000, 4000},
                             {space.root_of[c[0]] for c in sample})
        self.assertEqual(everything, set(found(space, randomize=True)))


class TestRules(base.TestCase):

    def test_several_groups_share_a_providers_capacity(self):
        # One provider with room for 3 of VCPU; the unsuffixed group takes
        # 2, a granular group 1 or 2.
        options = {1: [1]}
        root_of = {1: 1}
        space = sp.SearchSpace(
            [unsuffixed(VCPU, 2, options),
             granular('1', options, ((VCPU, 1),))],
            [1], root_of, room={(1, VCPU): 3})
        self.assertEqual([(1, 1)], found(space))
        self.assertEqual({1: {VCPU: 3}},
                         sp.allocations(space.levels, (1, 1)))
        space = sp.SearchSpace(
            [unsuffixed(VCPU, 2, options),
             granular('1', options, ((VCPU, 2),))],
            [1], root_of, room={(1, VCPU): 3})
        self.assertEqual([], found(space))

    def test_same_subtree(self):
        # root 1 -> numa 2 -> (fpga 4, gpu 5); root 1 -> numa 3 -> fpga 6
        parent_of = {1: None, 2: 1, 3: 1, 4: 2, 5: 2, 6: 3}
        root_of = {rp: 1 for rp in parent_of}
        levels = [granular('_NUMA', {1: [2, 3]}, ((VCPU, 1),)),
                  granular('_FPGA', {1: [4, 6]}, ((VF, 1),))]
        space = sp.SearchSpace(
            levels, [1], root_of, parent_of=parent_of,
            same_subtrees=(frozenset(['_NUMA', '_FPGA']),))
        self.assertEqual([(2, 4), (3, 6)], found(space))
        # A resourceless group above them names the NUMA node.
        levels.append(sp.Level('_ROOT', True, (), {1: [2, 3]}))
        space = sp.SearchSpace(
            levels, [1], root_of, parent_of=parent_of,
            same_subtrees=(frozenset(['_NUMA', '_FPGA', '_ROOT']),))
        self.assertEqual([(2, 4, 2), (3, 6, 3)], found(space))
        self.assertEqual({2: {VCPU: 1}, 4: {VF: 1}},
                         sp.allocations(space.levels, (2, 4, 2)))
        self.assertEqual({'_NUMA': [2], '_FPGA': [4], '_ROOT': [2]},
                         sp.mappings(space.levels, (2, 4, 2)))

    def test_unsuffixed_traits_are_met_together(self):
        # VCPU from 1 (trait 10) or 2 (none); DISK from 3 (trait 20).
        levels = [unsuffixed(VCPU, 1, {1: [1, 2]}),
                  unsuffixed(DISK, 1, {1: [3]})]
        space = sp.SearchSpace(
            levels, [1], {1: 1, 2: 1, 3: 1},
            unsuffixed_required=(frozenset([10]), frozenset([20])),
            traits_of={1: {10}, 3: {20}})
        self.assertEqual([(1, 3)], found(space))
        space.unsuffixed_required = (frozenset([30]),)
        self.assertEqual([], found(space))

    def test_below_1_29_one_provider_a_tree(self):
        levels = [unsuffixed(VCPU, 1, {1: [1, 2]}),
                  unsuffixed(MEM, 1, {1: [1, 2]})]
        space = sp.SearchSpace(levels, [1], {1: 1, 2: 1},
                               nested_aware=False)
        self.assertEqual([(1, 1), (2, 2)], found(space))
        space.nested_aware = True
        self.assertEqual(4, len(found(space)))

    def test_sharing_candidates_come_once(self):
        # Sharing provider 9 (its own root) shares DISK with roots 1 and
        # 2: a DISK-only request is 9 alone, whatever the anchor.
        options = {1: [9], 2: [9], 9: [9]}
        space = sp.SearchSpace([unsuffixed(DISK, 10, options)], [1, 2, 9],
                               {9: 9}, sharing=frozenset([9]))
        self.assertEqual([(9,)], found(space))
        self.assertEqual([(9,)], found(space, strategy=rq.BREADTH_FIRST))


def _brute_force(space):
    """Every candidate of ``space``, by trying every combination."""
    result = set()
    shared = space.shared_classes
    for anchor in space.anchors:
        lists = [level.options.get(anchor, []) for level in space.levels]
        for combo in itertools.product(*lists):
            load = {}
            fits = True
            for level, rp in zip(space.levels, combo):
                for rc, amount in level.resources:
                    if rc in shared:
                        load[(rp, rc)] = load.get((rp, rc), 0) + amount
                        if load[(rp, rc)] > space.room.get((rp, rc), 0):
                            fits = False
            if not fits:
                continue
            granular_rps = [rp for level, rp in zip(space.levels, combo)
                            if level.granular]
            if space.isolate and len(set(granular_rps)) != len(
                    granular_rps):
                continue
            if not space.nested_aware:
                roots = {}
                if any(roots.setdefault(space.root_of[rp], rp) != rp
                       for rp in combo):
                    continue
            ok = True
            for suffixes in space.same_subtrees:
                members = {rp for level, rp in zip(space.levels, combo)
                           if level.suffix in suffixes}

                def ancestors(rp):
                    while rp is not None:
                        yield rp
                        rp = space.parent_of.get(rp)
                if not any(all(top in set(ancestors(rp)) for rp in members)
                           for top in members):
                    ok = False
            if space.unsuffixed_required:
                offered = set()
                for level, rp in zip(space.levels, combo):
                    if not level.granular:
                        offered |= space.traits_of.get(rp, set())
                if not all(any_of & offered
                           for any_of in space.unsuffixed_required):
                    ok = False
            if ok:
                result.add(sp.candidate_key(space.levels, combo))
    return result


def _random_space(rng):
    """A small random forest and request, as the SQL side would load it."""
    parent_of = {}
    root_of = {}
    roots = []
    next_id = 1
    for _ in range(rng.randint(1, 3)):
        root = next_id
        next_id += 1
        roots.append(root)
        parent_of[root], root_of[root] = None, root
        frontier = [root]
        for _ in range(rng.randint(0, 5)):
            child = next_id
            next_id += 1
            parent = rng.choice(frontier)
            parent_of[child], root_of[child] = parent, root
            frontier.append(child)
    providers = sorted(parent_of)
    classes = [VCPU, MEM, VF]
    room = {(rp, rc): rng.randint(1, 4)
            for rp in providers for rc in classes}
    traits_of = {rp: set(rng.sample([10, 20, 30], rng.randint(0, 2)))
                 for rp in providers}

    def options(rc, amount):
        chosen = {}
        for rp in providers:
            if room[(rp, rc)] >= amount and rng.random() < 0.7:
                chosen.setdefault(root_of[rp], []).append(rp)
        return chosen
    levels = []
    for rc in rng.sample(classes, rng.randint(0, 2)):
        amount = rng.randint(1, 2)
        levels.append(unsuffixed(rc, amount, options(rc, amount)))
    for g in range(rng.randint(0 if levels else 1, 3)):
        rc = rng.choice(classes)
        amount = rng.randint(1, 2)
        levels.append(granular('G%d' % g, options(rc, amount),
                               ((rc, amount),)))
    suffixes = [level.suffix for level in levels if level.granular]
    same_subtrees = ()
    if len(suffixes) >= 2 and rng.random() < 0.4:
        same_subtrees = (frozenset(rng.sample(suffixes, 2)),)
    required = ()
    if any(not level.granular for level in levels) and rng.random() < 0.4:
        required = (frozenset(rng.sample([10, 20, 30], 1)),)
    anchors = sorted(set.intersection(*[set(level.options)
                                        for level in levels]))
    return sp.SearchSpace(
        levels, anchors, root_of, room=room, parent_of=parent_of,
        same_subtrees=same_subtrees, unsuffixed_required=required,
        traits_of=traits_of, isolate=rng.random() < 0.5,
        nested_aware=rng.random() < 0.8)


class TestAgainstBruteForce(base.TestCase):

    def test_random_spaces(self):
        rng = random.Random(23)
        for _ in range(400):
            space = _random_space(rng)
            candidates = found(space)
            self.assertEqual(len(candidates), len(set(candidates)))
            self.assertEqual(_brute_force(space),
                             set(keys(space, candidates)))
            limited = found(space, limit=2, randomize=True)
            self.assertLessEqual(len(limited), 2)
            self.assertLessEqual(set(limited), set(candidates))


def _repeated_space(rng):
    """Copies of one random tree, some of them changed in one respect.

    What a cloud of alike computes looks like to the walk, with the
    differences each of which must tell two trees' shapes apart: an
    option gone, another room in a class several levels take, other
    traits, another parent, another root.
    """
    template = _random_space(rng)
    while len(template.anchors) != 1 or len(template.levels) < 2:
        template = _random_space(rng)
    copies = rng.randint(2, 30)
    step = 100
    levels = [sp.Level(level.suffix, level.granular, level.resources, {})
              for level in template.levels]
    root_of, parent_of, room, traits_of = {}, {}, {}, {}
    anchors = []
    for copy in range(copies):
        base = copy * step

        def moved(rp):
            return None if rp is None else rp + base
        for rp, root in template.root_of.items():
            root_of[moved(rp)] = moved(root)
            parent_of[moved(rp)] = moved(template.parent_of.get(rp))
            traits_of[moved(rp)] = set(template.traits_of.get(rp, ()))
        for (rp, rc), value in template.room.items():
            room[(moved(rp), rc)] = value
        anchor = moved(template.anchors[0])
        anchors.append(anchor)
        for level, original in zip(levels, template.levels):
            level.options[anchor] = [
                moved(rp) for rp in original.options[template.anchors[0]]]
        if rng.random() < 0.4:
            change = rng.choice(['option', 'room', 'traits', 'parent',
                                 'root'])
            providers = [rp for rp in root_of if root_of[rp] == anchor]
            rp = rng.choice(providers)
            if change == 'option':
                level = rng.choice(levels)
                if len(level.options[anchor]) > 1:
                    level.options[anchor].pop(
                        rng.randrange(len(level.options[anchor])))
            elif change == 'room':
                for rc in (VCPU, MEM, VF):
                    room[(rp, rc)] = rng.randint(1, 4)
            elif change == 'traits':
                traits_of[rp] = set(rng.sample([10, 20, 30],
                                               rng.randint(0, 2)))
            elif change == 'root':
                # A tree of its own, as a sharing provider is.
                leaves = [other for other in providers
                          if other != anchor and other not in
                          parent_of.values()]
                if leaves:
                    rp = rng.choice(leaves)
                    parent_of[rp], root_of[rp] = None, rp
            elif rp != anchor:
                # Under another provider of its tree, not one below it.
                above = [other for other in providers if other != rp and
                         not _is_below(parent_of, other, rp)]
                parent_of[rp] = rng.choice(above)
    return sp.SearchSpace(
        levels, anchors, root_of, room=room, parent_of=parent_of,
        same_subtrees=template.same_subtrees,
        unsuffixed_required=template.unsuffixed_required,
        traits_of=traits_of, isolate=template.isolate,
        nested_aware=template.nested_aware)


def _is_below(parent_of, rp, top):
    while rp is not None:
        if rp == top:
            return True
        rp = parent_of.get(rp)
    return False


class TestAlikeTrees(base.TestCase):
    """Anchors of one shape share one walk (search._walks_by_shape)."""

    def test_alike_trees_are_walked_once(self):
        space = wide_space(computes=50, pfs=4, groups=3)
        counter = _Counting(self)
        candidates = found(space)
        self.assertEqual(50 * math.perm(4, 3), len(candidates))
        tried_for_all = counter.tried
        found(wide_space(computes=1, pfs=4, groups=3))
        self.assertEqual(tried_for_all, counter.tried - tried_for_all)
        self.assertEqual(set(range(1000, 51000, 1000)),
                         {space.root_of[c[0]] for c in candidates})

    def test_the_same_candidates_in_the_same_order(self):
        rng = random.Random(31)
        # The walks as they were before shapes: one an anchor.
        ways = (search._walks_by_shape, search._walks_one_by_one)
        for _ in range(200):
            space = _repeated_space(rng)
            by_shape, one_by_one = [], []
            for walks, answers in zip(ways, (by_shape, one_by_one)):
                self.patch(search, '_walks_by_shape', walks)
                answers.extend([
                    found(space), found(space, limit=3),
                    found(space, strategy=rq.BREADTH_FIRST),
                    found(space, strategy=rq.BREADTH_FIRST, limit=5)])
            self.assertEqual(one_by_one, by_shape)
            self.assertEqual(_brute_force(space),
                             set(keys(space, by_shape[0])))

    def test_many_shapes_are_walked_one_by_one(self):
        # Every tree its own room: as many shapes as trees.
        space = wide_space(computes=200, pfs=3, groups=2, isolate=False)
        for c in range(200):
            space.room[(1000 * (c + 1) + 1, VF)] = 2 + c
        shapes = []
        original = search._Plan.shape

        def shape(plan, anchor):
            shapes.append(anchor)
            return original(plan, anchor)
        self.patch(search._Plan, 'shape', shape)
        self.assertEqual(200 * 9, len(found(space)))
        self.assertEqual(search._SHAPES_TRIED, len(shapes))
