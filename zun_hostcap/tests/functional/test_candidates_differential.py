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

"""GET /allocation_candidates: ours, OpenStack Placement and a reference.

hypothesis generates small provider forests (flat ones; trees nested to
depth 3; sharing providers, MISC_SHARES_VIA_AGGREGATE roots in
aggregates with computes; traits; aggregates; existing allocations;
reserved, allocation_ratio, min_unit, max_unit, step_size) and, for
each, a few requests (an unsuffixed group and up to three granular
ones, both group policies, required, forbidden and any-of traits,
member_of with ``in:`` and ``!``, in_tree, root_required, same_subtree
with resourceless groups) at microversions 1.10, 1.17, 1.25, 1.29,
1.33, 1.36 and 1.39, each using only what its version allows.

Each forest is loaded, under uuids of its own, through the HTTP API of
both services: zun-hostcap-api and OpenStack Placement 16.0.0
(``tools/placement_peer.py serve``, SQLite). Ours runs on SQLite, and
again on MariaDB and on PostgreSQL (the opportunistic databases of
oslo.db, as the other functional tests use them): several of its
statements are written for each engine. Each request is asked of
both, without ``limit``, and of ``Reference``: a brute-force oracle of
the semantics that tries every combination of providers on the tiny
forest. Answers are compared order aside: allocation requests as a
multiset of canonical forms (mappings as sets), provider summaries by
provider (traits as sets).

- Ours must be the reference's answer, always.
- Placement's must be ours, except where Placement is known to be
  wrong (``KNOWN_DIFFERENCES``, also in
  doc/source/admin/placement-candidates.rst): a request of such a case
  is recognized, and Placement's answer must then be what the reference
  predicts of Placement's mistake (where the mistake depends on the
  order of Python sets in Placement: any 200 for one, a part of ours for
  the other). Any other difference fails the test with a reproducer:
  the forest, the query and the three answers, named.

Between forests, the rows of both databases are deleted (classes and
traits are kept: they are created once). Knobs, for a long run by hand
(``tools/candidates_differential.py --examples N`` sets them)::

    ZUN_HOSTCAP_TEST_CANDIDATES_EXAMPLES  forests (default 150)
    ZUN_HOSTCAP_TEST_CANDIDATES_ENGINE_EXAMPLES
                                          forests with ours on MariaDB,
                                          and on PostgreSQL (default
                                          50 each)
    ZUN_HOSTCAP_TEST_CANDIDATES_SEED      hypothesis's seed (default
                                          fixed, so CI is reproducible;
                                          "random" for a new one, shown
                                          in the figures)
    ZUN_HOSTCAP_TEST_CANDIDATES_SUMMARY   a file to write the figures of
                                          the run into (JSON)
    ZUN_HOSTCAP_TEST_CANDIDATES_PROGRESS  print the figures so far every
                                          so many forests

Before the generated ones, one forest and request of each known
difference (``KNOWN_CASES``) shows it: ours is the reference's answer,
Placement's is the mistake predicted.
"""

import collections
import concurrent.futures
import dataclasses
import http.client
import itertools
import json
import os
import random
import sqlite3
import subprocess
import sys
import time
import urllib.parse
import uuid

import fixtures
import hypothesis
from hypothesis import strategies as st
from oslo_db.sqlalchemy import enginefacade
from oslo_db.sqlalchemy import test_fixtures
from oslotest import base
from testtools import content as testtools_content

from zun_hostcap.tests.functional import base as functional_base

TOOLS = functional_base.TOOLS

EXAMPLES = int(os.environ.get('ZUN_HOSTCAP_TEST_CANDIDATES_EXAMPLES', 150))
# Ours on MariaDB and on PostgreSQL: each a forest and its requests.
ENGINE_EXAMPLES = int(os.environ.get(
    'ZUN_HOSTCAP_TEST_CANDIDATES_ENGINE_EXAMPLES', 50))
SEED = os.environ.get('ZUN_HOSTCAP_TEST_CANDIDATES_SEED', '20230')
SUMMARY = os.environ.get('ZUN_HOSTCAP_TEST_CANDIDATES_SUMMARY')
# Print the figures every so many forests (the long run's progress).
PROGRESS = int(os.environ.get('ZUN_HOSTCAP_TEST_CANDIDATES_PROGRESS') or 0)
# The CI run takes ~75 s alone here; beside the other functional tests,
# on two CPUs, it may take twice that: more than tox's OS_TEST_TIMEOUT.
TIME_OUT = 300

# What the forests are made of. Few names, so that requests meet them.
CLASSES = ('VCPU', 'MEMORY_MB', 'DISK_GB', 'SRIOV_NET_VF', 'CUSTOM_MAGIC')
TRAITS = ('HW_CPU_X86_AVX2', 'STORAGE_DISK_SSD', 'CUSTOM_GOLD',
          'CUSTOM_SILVER')
SHARES = 'MISC_SHARES_VIA_AGGREGATE'
AGGREGATES = ('agg0', 'agg1', 'agg2')
# Names a request may use that the services do not know: never created.
UNKNOWN_CLASS = 'CUSTOM_NOWHERE'
UNKNOWN_TRAIT = 'CUSTOM_NOBODY_HAS_IT'
# An aggregate and a provider (in_tree) that no forest has.
UNKNOWN_AGG = 'agg-unknown'
UNKNOWN_PROVIDER = 'rp-unknown'
CUSTOM_CLASSES = tuple(rc for rc in CLASSES if rc.startswith('CUSTOM_'))
CUSTOM_TRAITS = tuple(t for t in TRAITS if t.startswith('CUSTOM_'))

VERSIONS = ((1, 10), (1, 17), (1, 25), (1, 29), (1, 33), (1, 36), (1, 39))
# The version the forests are loaded at.
LOAD_VERSION = '1.39'
PROJECT = str(uuid.uuid4())
USER = str(uuid.uuid4())

SHM = '/dev/shm'
# The tables of a forest's data, in both schemas (the same names).
FOREST_TABLES = ('allocations', 'consumers', 'projects', 'users',
                 'inventories', 'resource_provider_traits',
                 'resource_provider_aggregates', 'placement_aggregates',
                 'resource_providers')


def at_least(version, wanted):
    return version >= wanted


def version_text(version):
    return '%d.%d' % version


# The forest

@dataclasses.dataclass(frozen=True)
class Inventory:
    total: int
    reserved: int = 0
    min_unit: int = 1
    max_unit: int = 8
    step_size: int = 1
    allocation_ratio: float = 1.0

    @property
    def capacity(self):
        # As both services compute it for the summaries.
        return int((self.total - self.reserved) * self.allocation_ratio)

    def body(self):
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class Provider:
    name: str
    parent: str = None
    inventories: tuple = ()       # ((class, Inventory), ...)
    traits: frozenset = frozenset()
    aggregates: frozenset = frozenset()

    @property
    def inventory(self):
        return dict(self.inventories)


class Forest(object):
    """Providers (parents first) and allocations of consumers.

    ``allocations``: ((provider name, ((class, amount), ...)), ...), one
    consumer each.
    """

    def __init__(self, providers, allocations=()):
        self.providers = collections.OrderedDict(
            (p.name, p) for p in providers)
        self.allocations = tuple(allocations)
        self.root = {}
        for p in providers:
            self.root[p.name] = (p.name if p.parent is None
                                 else self.root[p.parent])
        self.roots = [p.name for p in providers if p.parent is None]
        self.used = collections.Counter()
        for name, resources in self.allocations:
            for rc, amount in resources:
                self.used[(name, rc)] += amount
        self.sharing = {p.name for p in providers if SHARES in p.traits}

    def ancestors(self, name):
        """The provider and its ancestors."""
        found = []
        while name is not None:
            found.append(name)
            name = self.providers[name].parent
        return found

    def fits(self, name, rc, amount):
        """The provider can take ``amount`` of ``rc`` more, alone."""
        inv = self.providers[name].inventory.get(rc)
        if inv is None:
            return False
        return (inv.min_unit <= amount <= inv.max_unit and
                amount % inv.step_size == 0 and
                self.used[(name, rc)] + amount <=
                (inv.total - inv.reserved) * inv.allocation_ratio)

    def room(self, name, rc):
        """The most all groups together may take of ``rc`` there."""
        inv = self.providers[name].inventory[rc]
        return min(inv.capacity - self.used[(name, rc)], inv.max_unit)

    def anchors_of(self, name):
        """The roots of the trees the provider can serve.

        Its own; and for a sharing provider, those of every provider in
        one of its aggregates.
        """
        anchors = {self.root[name]}
        if name in self.sharing:
            mine = self.providers[name].aggregates
            anchors.update(self.root[p.name]
                           for p in self.providers.values()
                           if p.aggregates & mine)
        return anchors

    def describe(self):
        """The forest as text, for a reproducer."""
        lines = []
        for p in self.providers.values():
            parts = [p.name]
            if p.parent:
                parts.append('parent=%s' % p.parent)
            for rc, inv in p.inventories:
                fields = ['total=%d' % inv.total]
                for field, default in (('reserved', 0), ('min_unit', 1),
                                       ('max_unit', None), ('step_size', 1),
                                       ('allocation_ratio', 1.0)):
                    value = getattr(inv, field)
                    if value != default:
                        fields.append('%s=%s' % (field, value))
                parts.append('%s(%s)' % (rc, ','.join(fields)))
            if p.traits:
                parts.append('traits=%s' % ','.join(sorted(p.traits)))
            if p.aggregates:
                parts.append('aggs=%s' % ','.join(sorted(p.aggregates)))
            lines.append('  ' + ' '.join(parts))
        for name, resources in self.allocations:
            lines.append('  used on %s: %s' % (name, ', '.join(
                '%s=%d' % item for item in resources)))
        return '\n'.join(lines)


# The request

@dataclasses.dataclass(frozen=True)
class Group:
    suffix: str = ''
    resources: tuple = ()         # ((class, amount), ...)
    required: tuple = ()          # (frozenset of traits: any of, ...)
    forbidden: frozenset = frozenset()
    member_of: tuple = ()         # (frozenset of aggregates: any of, ...)
    forbidden_aggs: frozenset = frozenset()
    in_tree: str = None           # a provider's name

    @property
    def granular(self):
        return bool(self.suffix)

    def names(self):
        """(classes, traits) the group names."""
        traits = set(self.forbidden).union(*self.required)
        return {rc for rc, _amount in self.resources}, traits


@dataclasses.dataclass(frozen=True)
class Request:
    version: tuple
    groups: tuple                 # (Group, ...), in query order
    group_policy: str = None
    root_required: frozenset = frozenset()
    root_forbidden: frozenset = frozenset()
    same_subtrees: tuple = ()     # (tuple of suffixes, ...)

    @property
    def unsuffixed(self):
        return next((g for g in self.groups if not g.granular), None)

    @property
    def granular(self):
        return [g for g in self.groups if g.granular]

    def classes(self):
        return set().union(*(g.names()[0] for g in self.groups))

    def traits(self):
        return set(self.root_required | self.root_forbidden).union(
            *(g.names()[1] for g in self.groups))

    def pairs(self, uuid_of):
        """The query string's (key, value) pairs, uuids for names."""
        pairs = []
        v = self.version
        for group in self.groups:
            s = group.suffix
            if group.resources:
                pairs.append(('resources' + s, ','.join(
                    '%s:%d' % item for item in group.resources)))
            singles = sorted(t for any_of in group.required
                             if len(any_of) == 1 for t in any_of)
            forbidden = ['!' + t for t in sorted(group.forbidden)]
            any_ofs = [any_of for any_of in group.required
                       if len(any_of) > 1]
            if at_least(v, (1, 39)):
                # Repeated: the plain ones in one, each any-of in its own.
                if singles or forbidden:
                    pairs.append(('required' + s,
                                  ','.join(singles + forbidden)))
                for any_of in any_ofs:
                    pairs.append(('required' + s,
                                  'in:' + ','.join(sorted(any_of))))
            elif singles or forbidden:
                # (Any-of sets are generated from 1.39 only.)
                pairs.append(('required' + s, ','.join(singles + forbidden)))
            for any_of in group.member_of:
                aggs = sorted(uuid_of[a] for a in any_of)
                pairs.append(('member_of' + s, (
                    'in:' if len(aggs) > 1 else '') + ','.join(aggs)))
            if group.forbidden_aggs:
                aggs = sorted(uuid_of[a] for a in group.forbidden_aggs)
                pairs.append(('member_of' + s, (
                    '!in:' if len(aggs) > 1 else '!') + ','.join(aggs)))
            if group.in_tree:
                pairs.append(('in_tree' + s, uuid_of[group.in_tree]))
        if self.group_policy:
            pairs.append(('group_policy', self.group_policy))
        if self.root_required or self.root_forbidden:
            pairs.append(('root_required', ','.join(
                sorted(self.root_required) +
                ['!' + t for t in sorted(self.root_forbidden)])))
        for suffixes in self.same_subtrees:
            pairs.append(('same_subtree', ','.join(suffixes)))
        return pairs

    def query(self, uuid_of):
        return urllib.parse.urlencode(self.pairs(uuid_of), safe=',:!')

    def describe(self):
        """The query, with names for uuids, for a reproducer."""
        text = urllib.parse.unquote(self.query(_Names()))
        return 'placement %s: GET /allocation_candidates?%s' % (
            version_text(self.version), text)


class _Names(dict):
    """uuid_of for a description: every name is its own uuid."""

    def __missing__(self, key):
        return key


# The reference

# Placement's known mistakes (see KNOWN_DIFFERENCES).
SUMMED_IN_PLACE = 'summed-in-place'
RESOURCELESS_MATCHES_NOTHING = 'resourceless-matches-nothing'
RESOURCELESS_IN_TREE_IGNORED = 'resourceless-in-tree-ignored'
UNKNOWN_NAME_AFTER_EMPTY_GROUP = 'unknown-name-after-empty-group'
SHARING_ANCHOR_DROPPED = 'sharing-anchor-dropped'
# Placement's answer is ours.
SAME = 'same'
# Those whose outcome depends on the order of Python sets in Placement:
# not predicted.
UNPREDICTABLE = frozenset([SUMMED_IN_PLACE, SHARING_ANCHOR_DROPPED])

KNOWN_DIFFERENCES = {
    SUMMED_IN_PLACE:
        'a class in the unsuffixed group and in a granular group, on a '
        'provider that can serve both, with group_policy=isolate or no '
        'group_policy: Placement sums the amounts into objects that other '
        'candidates share, in place; which candidates survive depends on '
        "the process's hash seed",
    RESOURCELESS_MATCHES_NOTHING:
        'a resourceless granular group with neither required traits nor '
        'member_of: Placement finds no provider for it, so no candidate',
    RESOURCELESS_IN_TREE_IGNORED:
        'in_tree on a resourceless granular group: Placement ignores it',
    UNKNOWN_NAME_AFTER_EMPTY_GROUP:
        'an unknown class or trait in a group after one that has no '
        'candidate (or with root_required met by no root): Placement '
        'stops at the empty group and answers 200 with nothing',
    SHARING_ANCHOR_DROPPED:
        'the unsuffixed group served by sharing providers alone, the same '
        'way for several trees, with granular groups: Placement keeps that '
        'way for one of the trees only (its set of the group\'s '
        'candidates takes them for equal whatever their anchor), and '
        'loses the candidates the granular groups had in the others',
}


class Answer(object):
    """An answer in canonical form, providers by name.

    ``requests``: Counter of (allocations, mappings), allocations as
    frozenset((provider, frozenset((class, amount)))), mappings as
    frozenset((suffix, frozenset(providers))) or None below 1.34.
    ``summaries``: {provider: {'resources': frozenset((class, capacity,
    used)), 'traits': frozenset, 'parent': name, 'root': name}} with the
    keys the version shows.
    """

    def __init__(self, status, requests=(), summaries=None):
        self.status = status
        self.requests = collections.Counter(requests)
        self.summaries = summaries or {}

    def __eq__(self, other):
        return (self.status == other.status and
                self.requests == other.requests and
                self.summaries == other.summaries)

    def describe(self):
        if self.status != 200:
            return 'status %s' % self.status
        lines = ['status 200, %d allocation requests' % sum(
            self.requests.values())]
        for (allocations, mappings), count in sorted(
                self.requests.items(), key=repr):
            text = '; '.join('%s: %s' % (rp, ', '.join(
                '%s=%d' % item for item in sorted(res)))
                for rp, res in sorted(allocations))
            if mappings is not None:
                text += '  mappings ' + '; '.join(
                    '%r: %s' % (suffix, ','.join(sorted(rps)))
                    for suffix, rps in sorted(mappings))
            lines.append('  %s%s' % ('%dx ' % count if count > 1 else '',
                                     text))
        for name, summary in sorted(self.summaries.items()):
            lines.append('  summary %s: %s' % (name, ', '.join(
                '%s=%s' % (key, sorted(value) if isinstance(
                    value, frozenset) else value)
                for key, value in sorted(summary.items()))))
        return '\n'.join(lines)


def _meets(names, any_ofs):
    """``names`` meet every any-of set."""
    return all(any_of & names for any_of in any_ofs)


class Reference(object):
    """The semantics of GET /allocation_candidates, by brute force.

    Written from the API reference and the rules stated in the
    docstring of zun_hostcap/db/sqlalchemy/placement/candidates.py, not
    from either implementation: for each root allowed as anchor, every
    combination of one provider for each class of the unsuffixed group
    and one for each granular group is tried against every rule.

    ``quirks``: Placement's deterministic mistakes to reproduce (its
    names in KNOWN_DIFFERENCES), to predict its answer.
    """

    def __init__(self, forest):
        self.forest = forest

    # What one provider can do.

    def _in_all(self, name, member_of):
        return _meets(self.forest.providers[name].aggregates, member_of)

    def _in_any(self, name, aggs):
        return bool(self.forest.providers[name].aggregates & aggs)

    def _in_tree(self, group):
        """The root of the group's in_tree; None if it has none."""
        if group.in_tree is None:
            return None
        return self.forest.root.get(group.in_tree, UNKNOWN_PROVIDER)

    def serves_granular(self, group, name, anchor, quirks=frozenset()):
        """``name`` serves the granular group, anchored at ``anchor``."""
        forest = self.forest
        p = forest.providers[name]
        if anchor not in forest.anchors_of(name):
            return False
        if (RESOURCELESS_MATCHES_NOTHING in quirks and
                not group.resources and not group.required and
                not group.member_of):
            return False
        in_tree = self._in_tree(group)
        if in_tree == UNKNOWN_PROVIDER:
            return False
        if in_tree is not None and not (
                RESOURCELESS_IN_TREE_IGNORED in quirks and
                not group.resources):
            if forest.root[name] != in_tree:
                return False
        return (all(forest.fits(name, rc, amount)
                    for rc, amount in group.resources) and
                _meets(p.traits, group.required) and
                not p.traits & group.forbidden and
                self._in_all(name, group.member_of) and
                not self._in_any(name, group.forbidden_aggs))

    def serves_unsuffixed(self, group, rc, amount, name, anchor):
        """``name`` gives ``amount`` of ``rc`` to the unsuffixed group.

        From the anchor's own tree: member_of met by the provider or by
        its root, forbidden aggregates by neither. From a sharing
        provider of another tree: member_of met by the provider itself,
        forbidden aggregates by neither it nor the anchor; not with
        in_tree.
        """
        forest = self.forest
        p = forest.providers[name]
        if not forest.fits(name, rc, amount) or p.traits & group.forbidden:
            return False
        root = forest.root[name]
        if root == anchor:
            in_tree = self._in_tree(group)
            if in_tree is not None and root != in_tree:
                return False
            return ((self._in_all(name, group.member_of) or
                     self._in_all(root, group.member_of)) and
                    not self._in_any(name, group.forbidden_aggs) and
                    not self._in_any(root, group.forbidden_aggs))
        if group.in_tree is not None or name not in forest.sharing:
            return False
        return (anchor in forest.anchors_of(name) and
                self._in_all(name, group.member_of) and
                not self._in_any(name, group.forbidden_aggs) and
                not self._in_any(anchor, group.forbidden_aggs))

    def anchors(self, request):
        return [root for root in self.forest.roots
                if request.root_required <=
                self.forest.providers[root].traits and
                not request.root_forbidden &
                self.forest.providers[root].traits]

    # The request.

    def levels(self, request):
        """[(group, ((class, amount), ...))]: unsuffixed classes first."""
        levels = []
        for group in request.groups:
            if group.granular:
                levels.append((group, group.resources))
            else:
                levels.extend((group, (item,)) for item in group.resources)
        return levels

    def options(self, request, level, anchor, quirks=frozenset()):
        group, resources = level
        if group.granular:
            return [name for name in self.forest.providers
                    if self.serves_granular(group, name, anchor, quirks)]
        ((rc, amount),) = resources
        return [name for name in self.forest.providers
                if self.serves_unsuffixed(group, rc, amount, name, anchor)]

    def _valid(self, request, levels, combination):
        forest = self.forest
        load = collections.Counter()
        for (group, resources), name in zip(levels, combination):
            for rc, amount in resources:
                load[(name, rc)] += amount
        if any(amount > forest.room(name, rc)
               for (name, rc), amount in load.items()):
            return False
        granular = [name for (group, _res), name in zip(levels, combination)
                    if group.granular]
        if (request.group_policy == 'isolate' and
                len(set(granular)) != len(granular)):
            return False
        for suffixes in request.same_subtrees:
            chosen = {name for (group, _res), name in zip(levels,
                                                          combination)
                      if group.suffix in suffixes}
            if not any(all(top in forest.ancestors(other)
                           for other in chosen) for top in chosen):
                return False
        unsuffixed = request.unsuffixed
        if unsuffixed is not None and unsuffixed.required:
            traits = set().union(*(
                forest.providers[name].traits
                for (group, _res), name in zip(levels, combination)
                if not group.granular))
            if not _meets(traits, unsuffixed.required):
                return False
        if not at_least(request.version, (1, 29)):
            # One provider of a tree at most, among those allocated from.
            used = {name for (_group, res), name in zip(levels, combination)
                    if res}
            if len({forest.root[name] for name in used}) != len(used):
                return False
        return True

    @staticmethod
    def _key(request, levels, combination):
        allocations = collections.defaultdict(collections.Counter)
        mappings = collections.defaultdict(set)
        for (group, resources), name in zip(levels, combination):
            for rc, amount in resources:
                allocations[name][rc] += amount
            mappings[group.suffix].add(name)
        allocations = frozenset(
            (name, frozenset(res.items()))
            for name, res in allocations.items())
        return allocations, frozenset(
            (suffix, frozenset(names)) for suffix, names in mappings.items())

    def candidates(self, request, quirks=frozenset(), anchors=None):
        """The set of (allocations, mappings) (see ``Answer``)."""
        levels = self.levels(request)
        found = set()
        for anchor in (self.anchors(request) if anchors is None
                       else anchors):
            options = [self.options(request, level, anchor, quirks)
                       for level in levels]
            if not all(options):
                continue
            for combination in itertools.product(*options):
                if self._valid(request, levels, combination):
                    found.add(self._key(request, levels, combination))
        return found

    def summaries(self, request, keys):
        forest = self.forest
        used = {name for allocations, _mappings in keys
                for name, _res in allocations}
        v = request.version
        if at_least(v, (1, 29)):
            roots = {forest.root[name] for name in used}
            shown = [name for name in forest.providers
                     if forest.root[name] in roots]
        else:
            shown = sorted(used)
        classes = request.classes()
        summaries = {}
        for name in shown:
            p = forest.providers[name]
            summary = {'resources': frozenset(
                (rc, inv.capacity, forest.used[(name, rc)])
                for rc, inv in p.inventories
                if at_least(v, (1, 27)) or rc in classes)}
            if at_least(v, (1, 17)):
                summary['traits'] = p.traits
            if at_least(v, (1, 29)):
                summary['parent'] = p.parent
                summary['root'] = forest.root[name]
            summaries[name] = summary
        return summaries

    # The answer.

    @staticmethod
    def bad_request(request):
        """The request is refused before any search (a conflict)."""
        for group in request.groups:
            if any(any_of <= group.forbidden for any_of in group.required):
                return True
        return bool(request.root_required & request.root_forbidden)

    def unknown(self, classes=(), traits=()):
        return (any(rc not in CLASSES for rc in classes) or
                any(t not in TRAITS and t != SHARES for t in traits))

    def answer(self, request, quirks=frozenset()):
        """The Answer: ours, or Placement's with ``quirks``."""
        if self.bad_request(request):
            return Answer(400)
        if UNKNOWN_NAME_AFTER_EMPTY_GROUP in quirks:
            stop = self.placement_stop(request, quirks)
            if stop is not None:
                return Answer(stop)
        elif self.unknown(request.classes(), request.traits()):
            return Answer(400)
        keys = self.candidates(request, quirks)
        # Two candidates that differ in their mappings alone are two
        # allocation requests, even where the mappings are not shown.
        shown = (keys if at_least(request.version, (1, 34)) else
                 [(allocations, None) for allocations, _mappings in keys])
        return Answer(200, shown, self.summaries(request, keys))

    def placement_stop(self, request, quirks):
        """Where Placement stops before combining the groups, if it does.

        It reads the request's names group by group, in query order, and
        gives up on the request (200, nothing) at the first group that
        has no candidate of its own, before it reads the next group's
        names: an unknown name after that is never seen. 400 for an
        unknown name it reads; None if it reads every group.
        """
        if request.root_required or request.root_forbidden:
            if self.unknown(traits=request.root_required |
                            request.root_forbidden):
                return 400
            if not self.anchors(request):
                return 200
        for group in request.groups:
            classes, _traits = group.names()
            if self.unknown(classes=classes):
                return 400
            if group.member_of and not any(
                    self._in_all(name, group.member_of)
                    for name in self.forest.providers):
                return 200
            if self.unknown(traits=set().union(*group.required)):
                return 400
            if self.unknown(traits=group.forbidden):
                return 400
            alone = dataclasses.replace(
                request, groups=(group,), group_policy=None,
                same_subtrees=(), version=max(request.version, (1, 29)))
            if not self.candidates(alone, quirks):
                return 200
        return None

    def sums_in_place(self, request):
        """The request is one Placement sums amounts in place for.

        A class in the unsuffixed group and in a granular group, a
        provider that can serve it in both at one anchor, and a
        group_policy other than none.
        """
        unsuffixed = request.unsuffixed
        if unsuffixed is None or request.group_policy == 'none':
            return False
        levels = self.levels(request)
        for anchor in self.anchors(request):
            for level in levels:
                group, resources = level
                if not group.granular:
                    continue
                classes = {rc for rc, _amount in resources}
                mine = None
                for rc, amount in unsuffixed.resources:
                    if rc not in classes:
                        continue
                    if mine is None:
                        mine = set(self.options(request, level, anchor))
                    if any(self.serves_unsuffixed(unsuffixed, rc, amount,
                                                  name, anchor)
                           for name in mine):
                        return True
        return False

    def drops_sharing_anchors(self, request):
        """The request is one Placement loses candidates of by anchor.

        An unsuffixed group, granular groups, and a way to serve the
        unsuffixed group alone that is the same at two anchors (sharing
        providers only).
        """
        unsuffixed = request.unsuffixed
        if unsuffixed is None or not request.granular:
            return False
        alone = dataclasses.replace(
            request, groups=(unsuffixed,), group_policy=None,
            same_subtrees=(), version=max(request.version, (1, 29)))
        seen = set()
        for anchor in self.anchors(request):
            found = self.candidates(alone, anchors=[anchor])
            if seen & found:
                return True
            seen |= found
        return False

    def known_differences(self, request):
        """The KNOWN_DIFFERENCES the request is a case of."""
        kinds = set()
        if self.sums_in_place(request):
            kinds.add(SUMMED_IN_PLACE)
        if self.drops_sharing_anchors(request):
            kinds.add(SHARING_ANCHOR_DROPPED)
        for group in request.granular:
            if group.resources:
                continue
            if not group.required and not group.member_of:
                kinds.add(RESOURCELESS_MATCHES_NOTHING)
            if group.in_tree is not None:
                kinds.add(RESOURCELESS_IN_TREE_IGNORED)
        if self.unknown(request.classes(), request.traits()):
            kinds.add(UNKNOWN_NAME_AFTER_EMPTY_GROUP)
        return kinds


# What the services answer, in canonical form.

def canonical(version, status, body, name_of):
    """The Answer of an HTTP answer; providers named by ``name_of``."""
    if status != 200:
        return Answer(status)
    requests = []
    for request in body['allocation_requests']:
        if at_least(version, (1, 12)):
            allocations = {rp: value['resources'] for rp, value in
                           request['allocations'].items()}
        else:
            allocations = {item['resource_provider']['uuid']:
                           item['resources']
                           for item in request['allocations']}
        key = frozenset((name_of(rp), frozenset(res.items()))
                        for rp, res in allocations.items())
        mappings = None
        if at_least(version, (1, 34)):
            mappings = frozenset(
                (suffix, frozenset(name_of(rp) for rp in rps))
                for suffix, rps in request.get('mappings', {}).items())
        requests.append((key, mappings))
    summaries = {}
    for rp, summary in body['provider_summaries'].items():
        canon = {'resources': frozenset(
            (rc, value['capacity'], value['used'])
            for rc, value in summary['resources'].items())}
        if 'traits' in summary:
            canon['traits'] = frozenset(summary['traits'])
        if 'parent_provider_uuid' in summary:
            parent = summary['parent_provider_uuid']
            canon['parent'] = parent and name_of(parent)
        if 'root_provider_uuid' in summary:
            canon['root'] = name_of(summary['root_provider_uuid'])
        summaries[name_of(rp)] = canon
    return Answer(status, requests, summaries)


# Generated forests and requests
#
# The strategies draw small integers and pick from sequences with them:
# hypothesis builds (and checks) a strategy object for each
# ``sampled_from`` of a new list, which made the drawing cost more than
# asking both services.

_INDEXES = {}


def _pick(draw, items):
    """One of ``items`` (the first when shrunk)."""
    items = tuple(items)
    count = len(items)
    strategy = _INDEXES.get(count)
    if strategy is None:
        strategy = _INDEXES[count] = st.integers(0, count - 1)
    return items[draw(strategy)]


def _some(draw, items, most=1, least=0):
    """``least`` to ``most`` distinct items of ``items``, as a frozenset."""
    left = sorted(items)
    count = _pick(draw, range(least, min(most, len(left)) + 1)) \
        if len(left) >= least else 0
    chosen = []
    for _index in range(count):
        chosen.append(left.pop(_pick(draw, range(len(left)))))
    return frozenset(chosen)


_SELDOM = st.sampled_from((False, False, False, True))
_SOMETIMES = st.sampled_from((False, False, True))
_RARELY = st.sampled_from((False,) * 7 + (True,))
_AMOUNTS = (1, 1, 2, 2, 3, 4)


def _inventory(draw):
    total = _pick(draw, range(1, 13))
    reserved = min(total, _pick(draw, (0, 0, 0, 0, 1, 12)))
    min_unit = _pick(draw, (1, 1, 1, 1, 2))
    max_unit = max(min_unit, _pick(draw, (
        total, total, _pick(draw, range(1, total + 2)))))
    return Inventory(
        total=total, reserved=reserved, min_unit=min_unit,
        max_unit=max_unit, step_size=_pick(draw, (1, 1, 1, 1, 2)),
        allocation_ratio=_pick(draw, (1.0, 1.0, 1.0, 1.5, 2.0, 0.5)))


def _inventories(draw, classes, least=0):
    return tuple((rc, _inventory(draw))
                 for rc in sorted(_some(draw, classes, 3, least)))


@st.composite
def forests(draw):
    """A forest: compute trees and sharing providers.

    1 to 3 compute trees (flat, or nested to depth 3) and 0 to 2 sharing
    providers, with traits, aggregates and allocations.
    """
    flat = draw(st.booleans())
    providers = []
    for tree in range(_pick(draw, (1, 2, 3))):
        depth = {}
        size = 1 if flat else _pick(draw, range(1, 6))
        for index in range(size):
            name = 'cn%d' % tree if not index else 'cn%d.%d' % (tree, index)
            parent = None
            if index:
                parent = _pick(draw, [n for n in depth if depth[n] < 2])
            depth[name] = 0 if parent is None else depth[parent] + 1
            providers.append(Provider(
                name, parent, _inventories(draw, CLASSES),
                _some(draw, TRAITS, 2), _some(draw, AGGREGATES, 2)))
    for index in range(_pick(draw, (0, 1, 2))):
        providers.append(Provider(
            'ss%d' % index, None,
            _inventories(draw, ('DISK_GB', 'CUSTOM_MAGIC', 'MEMORY_MB'), 1),
            frozenset([SHARES]) | _some(draw, TRAITS, 1),
            _some(draw, AGGREGATES, 2, 1)))
    allocations = []
    for p in providers:
        taken = []
        for rc, inv in p.inventories:
            amounts = [a for a in range(inv.min_unit, min(
                inv.max_unit, inv.capacity) + 1) if a % inv.step_size == 0]
            if amounts and draw(_SELDOM):
                taken.append((rc, _pick(draw, amounts)))
        if taken:
            allocations.append((p.name, tuple(taken)))
    return Forest(providers, allocations)


def _group(draw, forest, version, suffix, resourceless, anchor):
    """A request group; without resources if ``resourceless``.

    Most groups aim at a provider (a granular group) or a tree with its
    sharing providers (the unsuffixed group) of the forest, mostly of
    the tree of ``anchor``: classes it has room in, amounts it can take,
    traits and aggregates it has, forbidden ones it has not. The others
    (``wild``) take their names from every name of the forest, for the
    requests nothing can serve.
    """
    wild = draw(_RARELY)
    near = sorted(name for name in forest.providers
                  if anchor in forest.anchors_of(name))
    if not resourceless:
        # Providers with room for something, near if any.
        roomy = [name for name in sorted(forest.providers) if any(
            forest.fits(name, rc, a) for rc, _inv in
            forest.providers[name].inventories for a in (1, 2, 3, 4))]
        near = [name for name in near if name in roomy] or roomy or near
    target = _pick(draw, near if not draw(_SELDOM) else
                   sorted(forest.providers))
    root = forest.root[target]
    if suffix:
        offering = [target]
        aggregates = forest.providers[target].aggregates
    else:
        offering = [name for name in forest.providers
                    if forest.root[name] == root or
                    root in forest.anchors_of(name)]
        aggregates = (forest.providers[target].aggregates |
                      forest.providers[root].aggregates)
    has = {}
    for name in offering:
        for rc, _inv in forest.providers[name].inventories:
            if any(forest.fits(name, rc, a) for a in (1, 2, 3, 4)):
                has.setdefault(rc, []).append(name)
    traits = set().union(*(forest.providers[name].traits
                           for name in offering))
    if wild or not has:
        has = {rc: [] for rc in CLASSES}
    if wild:
        traits, aggregates = set(TRAITS), set(AGGREGATES)
    most = 3 if not suffix else 1 + draw(_SELDOM)
    resources = []
    for rc in sorted(_some(draw, has, most, 1) if not resourceless
                     else ()):
        amounts = _AMOUNTS
        if has[rc] and not wild:
            taker = _pick(draw, has[rc])
            amounts = [a for a in _AMOUNTS
                       if forest.fits(taker, rc, a)] or _AMOUNTS
        resources.append((rc, _pick(draw, amounts)))
    required = ()
    forbidden = frozenset()
    member_of = ()
    forbidden_aggs = frozenset()
    in_tree = None
    if at_least(version, (1, 17)) and traits and (
            resourceless and not draw(_SELDOM) or draw(_SOMETIMES)):
        widest = 2 if at_least(version, (1, 39)) else 1
        if draw(_SELDOM):
            traits = traits | {SHARES}
        required = tuple(_some(draw, traits, widest, 1)
                         for _index in range(1 + draw(_SELDOM)))
    if at_least(version, (1, 22)) and draw(_SELDOM):
        forbidden = _some(draw, set(TRAITS) - traits if not wild
                          else TRAITS)
    if at_least(version, (1, 21)) and aggregates and (
            resourceless and not draw(_SELDOM) or draw(_SOMETIMES)):
        pool = set(aggregates) | ({UNKNOWN_AGG} if wild else set())
        several = at_least(version, (1, 24)) and draw(_SELDOM)
        member_of = tuple(_some(draw, pool, 2, 1)
                          for _index in range(1 + several))
    if at_least(version, (1, 32)) and draw(_SELDOM):
        forbidden_aggs = _some(draw, set(AGGREGATES) - aggregates
                               if not wild else AGGREGATES, 2)
    if at_least(version, (1, 31)) and draw(_SELDOM):
        tree = [name for name in forest.providers
                if forest.root[name] == root]
        in_tree = _pick(draw, tree if not wild else
                        list(forest.providers) + [UNKNOWN_PROVIDER])
    if resourceless and not (required or forbidden or member_of or
                             forbidden_aggs or in_tree):
        # Something of it in the query string.
        if draw(_SELDOM):
            forbidden = frozenset([_pick(draw, TRAITS)])
        else:
            required = (frozenset([_pick(draw, sorted(traits) or TRAITS)]),)
    return Group(suffix, tuple(resources), required, forbidden, member_of,
                 forbidden_aggs, in_tree)


def _with_unknown(draw, request):
    """The request with one unknown class or trait somewhere."""
    index = _pick(draw, range(len(request.groups)))
    group = request.groups[index]
    if group.resources and draw(st.booleans()):
        resources = group.resources[:-1] + (
            (UNKNOWN_CLASS, group.resources[-1][1]),)
        group = dataclasses.replace(group, resources=resources)
    elif draw(st.booleans()) or not at_least(request.version, (1, 22)):
        if not at_least(request.version, (1, 17)):
            return request
        group = dataclasses.replace(group, required=group.required + (
            frozenset([UNKNOWN_TRAIT]),))
    else:
        group = dataclasses.replace(
            group, forbidden=group.forbidden | {UNKNOWN_TRAIT})
    groups = list(request.groups)
    groups[index] = group
    return dataclasses.replace(request, groups=tuple(groups))


def _request(draw, forest):
    # The later versions, with more to try, more often.
    version = _pick(draw, VERSIONS + VERSIONS[2:] + VERSIONS[-2:])
    granular = at_least(version, (1, 25))
    unsuffixed = not granular or _pick(draw, (True, True, False))
    count = _pick(draw, range(0 if unsuffixed else 1, 4)) if granular else 0
    if at_least(version, (1, 33)):
        pool = ['_NET', '_ACCEL', '1', '_X']
        suffixes = [pool.pop(_pick(draw, range(len(pool))))
                    for _index in range(count)]
    else:
        suffixes = ['1', '2', '3'][:count]
    same_subtrees = []
    if at_least(version, (1, 36)) and suffixes:
        for _index in range(_pick(draw, (0, 0, 1, 2))):
            same_subtrees.append(tuple(
                sorted(_some(draw, suffixes, 3, 1))))
    named = set().union(*same_subtrees)
    anchor = _pick(draw, forest.roots)
    chosen = []
    if unsuffixed:
        chosen.append(_group(draw, forest, version, '', False, anchor))
    for suffix in suffixes:
        # A resourceless group must be in a same_subtree.
        resourceless = suffix in named and draw(st.booleans())
        chosen.append(_group(draw, forest, version, suffix, resourceless,
                             anchor))
    if not any(g.resources for g in chosen):
        # One group at least has resources.
        chosen[-1] = _group(draw, forest, version, chosen[-1].suffix, False,
                            anchor)
    policy = None
    if count > 1:
        policy = _pick(draw, ('none', 'isolate'))
    elif granular:
        policy = _pick(draw, (None, 'none', 'isolate'))
    root_required = root_forbidden = frozenset()
    if at_least(version, (1, 35)) and draw(_SELDOM):
        roots = TRAITS + (SHARES,)
        root_required = _some(draw, roots)
        root_forbidden = _some(draw, roots)
    request = Request(version, tuple(chosen), policy, root_required,
                      root_forbidden, tuple(same_subtrees))
    if _pick(draw, range(10)) == 9:
        request = _with_unknown(draw, request)
    return request


@st.composite
def scenarios(draw):
    """A forest and the requests to ask of it."""
    forest = draw(forests())
    return forest, [_request(draw, forest)
                    for _index in range(_pick(draw, range(1, 9)))]


# One case of each known difference, as a forest and a request, with
# the verdicts Placement's answer may get: where its mistake depends on
# the hash seed of its process, it may also answer right.

def _inventory_of(total):
    return Inventory(total=total, max_unit=total)


KNOWN_CASES = [
    # DISK_GB of the unsuffixed group and of group 1 from one provider.
    (Forest([
        Provider('cn0', None, (('DISK_GB', _inventory_of(10)),)),
        Provider('cn1', None, (('DISK_GB', _inventory_of(10)),)),
        Provider('cn1.1', 'cn1', (('DISK_GB', _inventory_of(10)),))]),
     Request((1, 36), (Group('', (('DISK_GB', 3),)),
                       Group('1', (('DISK_GB', 2),))), 'isolate'),
     (SUMMED_IN_PLACE, SAME)),
    # Group 2 without resources, and only a forbidden trait.
    (Forest([
        Provider('cn0', None, (('VCPU', _inventory_of(4)),)),
        Provider('cn0.1', 'cn0', (), frozenset(['CUSTOM_GOLD']))]),
     Request((1, 36), (Group('1', (('VCPU', 1),)),
                       Group('2', forbidden=frozenset(['CUSTOM_SILVER']))),
             'none', same_subtrees=(('1', '2'),)),
     (RESOURCELESS_MATCHES_NOTHING,)),
    # Group 2 without resources, in the tree of cn1.
    (Forest([
        Provider('cn0', None, (('VCPU', _inventory_of(4)),)),
        Provider('cn0.1', 'cn0', (), frozenset(['CUSTOM_GOLD'])),
        Provider('cn1', None, (('VCPU', _inventory_of(4)),)),
        Provider('cn1.1', 'cn1', (), frozenset(['CUSTOM_GOLD']))]),
     Request((1, 36), (Group('1', (('VCPU', 1),)),
                       Group('2', required=(frozenset(['CUSTOM_GOLD']),),
                             in_tree='cn1')),
             'none', same_subtrees=(('1', '2'),)),
     (RESOURCELESS_IN_TREE_IGNORED,)),
    # The unsuffixed group has no candidate; group 1 names an unknown
    # class.
    (Forest([Provider('cn0', None, (('VCPU', _inventory_of(4)),))]),
     Request((1, 25), (Group('', (('VCPU', 8),)),
                       Group('1', ((UNKNOWN_CLASS, 1),)))),
     (UNKNOWN_NAME_AFTER_EMPTY_GROUP,)),
    # DISK_GB from ss0 alone, for cn0's tree (and for its own).
    (Forest([
        Provider('cn0', None, (), frozenset(), frozenset(['agg0'])),
        Provider('cn0.1', 'cn0', (('VCPU', _inventory_of(8)),)),
        Provider('ss0', None, (('DISK_GB', _inventory_of(10)),),
                 frozenset([SHARES]), frozenset(['agg0']))]),
     Request((1, 39), (Group('', (('DISK_GB', 1),)),
                       Group('_NET', (('VCPU', 1),))), 'none'),
     (SHARING_ANCHOR_DROPPED,)),
]


# The services

def sqlite_deleter(path):
    """A forest's rows deleted from the SQLite file ``path``."""
    def delete_rows():
        conn = sqlite3.connect(path, timeout=30)
        try:
            with conn:
                for table in FOREST_TABLES:
                    conn.execute('DELETE FROM %s' % table)
        finally:
            conn.close()
    return delete_rows


def engine_deleter(engine):
    """A forest's rows deleted through the SQLAlchemy ``engine``."""
    def delete_rows():
        with engine.begin() as conn:
            mysql = conn.dialect.name == 'mysql'
            if mysql:
                # A provider's parent and root are rows of its own table,
                # and InnoDB checks each row as it deletes it: a DELETE of
                # them all may meet a parent before its children
                # (PostgreSQL checks at the end of the statement).
                conn.exec_driver_sql('SET foreign_key_checks = 0')
            try:
                for table in FOREST_TABLES:
                    conn.exec_driver_sql('DELETE FROM %s' % table)
            finally:
                if mysql:
                    conn.exec_driver_sql('SET foreign_key_checks = 1')
    return delete_rows


class Service(object):
    """One Placement API over HTTP: one keep-alive connection.

    :param prefix: the path of the Placement API on the server.
    :param delete_rows: deletes the rows of a forest from its database
        (``sqlite_deleter``, ``engine_deleter``).
    """

    def __init__(self, name, port, prefix, delete_rows):
        self.name = name
        self.port = port
        self.prefix = prefix
        self.delete_rows = delete_rows
        self.conn = None
        self.requests = 0

    def call(self, method, path, body=None, version=LOAD_VERSION,
             expect=None):
        """(status, decoded JSON body or None)."""
        headers = {'X-Auth-Token': 'admin', 'Accept': 'application/json',
                   'OpenStack-API-Version': 'placement %s' % version}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers['Content-Type'] = 'application/json'
        for attempt in (1, 2):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(
                    '127.0.0.1', self.port, timeout=120)
            try:
                self.conn.request(method, self.prefix + path, body=data,
                                  headers=headers)
                resp = self.conn.getresponse()
                payload = resp.read()
                break
            except (http.client.RemoteDisconnected, BrokenPipeError,
                    ConnectionResetError):
                # The server closed the kept-alive connection.
                self.conn.close()
                self.conn = None
                if attempt == 2:
                    raise
        self.requests += 1
        decoded = json.loads(payload) if payload else None
        if expect is not None and resp.status != expect:
            raise AssertionError('%s: %s %s -> %d, not %d: %s' % (
                self.name, method, path, resp.status, expect,
                payload[:500].decode('utf-8', 'replace')))
        return resp.status, decoded

    def prepare(self):
        """The custom classes and traits the forests use."""
        for rc in CUSTOM_CLASSES:
            status, _body = self.call('PUT', '/resource_classes/%s' % rc)
            assert status in (201, 204), (self.name, rc, status)
        for trait in CUSTOM_TRAITS:
            status, _body = self.call('PUT', '/traits/%s' % trait)
            assert status in (201, 204), (self.name, trait, status)

    def load(self, forest, uuid_of):
        """The forest through the API, as a client would make it."""
        for p in forest.providers.values():
            rp = uuid_of[p.name]
            body = {'uuid': rp, 'name': rp}
            if p.parent:
                body['parent_provider_uuid'] = uuid_of[p.parent]
            _status, created = self.call('POST', '/resource_providers',
                                         body, expect=200)
            generation = created['generation']
            if p.inventories:
                _status, done = self.call(
                    'PUT', '/resource_providers/%s/inventories' % rp,
                    {'resource_provider_generation': generation,
                     'inventories': {rc: inv.body()
                                     for rc, inv in p.inventories}},
                    expect=200)
                generation = done['resource_provider_generation']
            if p.traits:
                _status, done = self.call(
                    'PUT', '/resource_providers/%s/traits' % rp,
                    {'resource_provider_generation': generation,
                     'traits': sorted(p.traits)}, expect=200)
                generation = done['resource_provider_generation']
            if p.aggregates:
                self.call('PUT', '/resource_providers/%s/aggregates' % rp,
                          {'resource_provider_generation': generation,
                           'aggregates': sorted(uuid_of[a]
                                                for a in p.aggregates)},
                          expect=200)
        if forest.allocations:
            self.call('POST', '/allocations', {
                str(uuid.uuid4()): {
                    'allocations': {uuid_of[name]: {
                        'resources': dict(resources)}},
                    'project_id': PROJECT, 'user_id': USER,
                    'consumer_generation': None,
                    'consumer_type': 'INSTANCE'}
                for name, resources in forest.allocations}, expect=204)

    def reset(self):
        """Delete the rows of the forest (classes and traits stay)."""
        self.delete_rows()

    def candidates(self, request, uuid_of):
        return self.call('GET', '/allocation_candidates?' +
                         request.query(uuid_of),
                         version=version_text(request.version))

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None


class Tally(object):
    """The figures of a run."""

    def __init__(self):
        self.started = time.monotonic()
        self.forests = 0
        self.providers = 0
        self.requests = 0
        self.same = 0
        self.known = collections.Counter()
        self.by_version = collections.Counter()
        self.statuses = collections.Counter()
        self.nonempty = 0

    def as_dict(self):
        return {'forests': self.forests, 'providers': self.providers,
                'requests': self.requests,
                'placement_same_as_ours': self.same,
                'known_differences': dict(self.known),
                'requests_by_version': {
                    version_text(v): n
                    for v, n in sorted(self.by_version.items())},
                'our_statuses': dict(self.statuses),
                'with_candidates': self.nonempty,
                'seconds': round(time.monotonic() - self.started, 1)}


class Differential(object):
    """Asks both services and the reference; judges the answers."""

    def __init__(self, ours, theirs):
        self.ours = ours
        self.theirs = theirs
        self.pool = concurrent.futures.ThreadPoolExecutor(2)
        self.tally = Tally()

    def both(self, method, *args):
        futures = [self.pool.submit(getattr(service, method), *args)
                   for service in (self.ours, self.theirs)]
        return [future.result() for future in futures]

    def run(self, forest, requests):
        """Load the forest into both; ask, judge: [verdict a request]."""
        uuid_of = {name: str(uuid.uuid4()) for name in
                   list(forest.providers) + list(AGGREGATES) +
                   [UNKNOWN_AGG, UNKNOWN_PROVIDER]}
        name_of = {rp: name for name, rp in uuid_of.items()}.get
        self.both('reset')
        self.both('load', forest, uuid_of)
        self.tally.forests += 1
        self.tally.providers += len(forest.providers)
        reference = Reference(forest)
        verdicts = []
        for request in requests:
            futures = [self.pool.submit(service.candidates, request, uuid_of)
                       for service in (self.ours, self.theirs)]
            expected = reference.answer(request)
            ours, theirs = [
                canonical(request.version, *future.result(),
                          lambda rp: name_of(rp, rp))
                for future in futures]
            verdicts.append(self.judge(forest, request, reference, expected,
                                       ours, theirs))
        if PROGRESS and not self.tally.forests % PROGRESS:
            sys.stderr.write('%s\n' % json.dumps(self.tally.as_dict()))
            sys.stderr.flush()
        return verdicts

    def judge(self, forest, request, reference, expected, ours, theirs):
        """SAME, or the known difference Placement's answer is of.

        :raises AssertionError: ours is not the reference's answer, or
            Placement's differs from ours otherwise.
        """
        tally = self.tally
        tally.requests += 1
        tally.by_version[request.version] += 1
        tally.statuses[ours.status] += 1
        if ours.requests:
            tally.nonempty += 1

        def fail(why):
            raise AssertionError('\n'.join([
                why, 'forest:', forest.describe(), request.describe(),
                'ours: ' + ours.describe(),
                'placement: ' + theirs.describe(),
                'reference: ' + expected.describe()]))

        if ours != expected:
            fail('Our answer is not the reference\'s.')
        if theirs == ours:
            tally.same += 1
            return SAME
        kinds = reference.known_differences(request)
        if SUMMED_IN_PLACE in kinds and theirs.status == 200:
            tally.known[SUMMED_IN_PLACE] += 1
            return SUMMED_IN_PLACE
        if (SHARING_ANCHOR_DROPPED in kinds and theirs.status == 200 and
                not theirs.requests - ours.requests and
                all(ours.summaries.get(name) == summary
                    for name, summary in theirs.summaries.items())):
            # Some of ours, no other.
            tally.known[SHARING_ANCHOR_DROPPED] += 1
            return SHARING_ANCHOR_DROPPED
        kinds -= UNPREDICTABLE
        if kinds and theirs == reference.answer(request, frozenset(kinds)):
            # Attributed to the mistakes that alone explain it, if any.
            alone = [kind for kind in sorted(kinds)
                     if theirs == reference.answer(request, {kind})]
            verdict = ' + '.join(alone or sorted(kinds))
            tally.known[verdict] += 1
            return verdict
        fail('Placement answers differently, and not as one of its known '
             'mistakes predicts. Those the request is a case of: %s' % (
                 ''.join('\n- %s: %s' % (kind, KNOWN_DIFFERENCES[kind])
                         for kind in sorted(kinds)) or 'none'))

    def close(self):
        self.pool.shutdown()
        self.ours.close()
        self.theirs.close()


class TestCandidatesDifferential(base.BaseTestCase):
    """Ours == reference; Placement == ours but for its known mistakes."""

    # Forests of this test; the engines' variants take fewer.
    examples = EXAMPLES

    def start_ours(self, tmp):
        database = os.path.join(tmp, 'ours.sqlite')
        return self.serve_ours(tmp, 'sqlite:///' + database,
                               sqlite_deleter(database))

    def serve_ours(self, tmp, url, delete_rows):
        """Ours on the database ``url``, its schema made: the Service."""
        port = functional_base.free_port()
        config = functional_base.write_config(
            os.path.join(tmp, 'api.conf'), {
                'DEFAULT': {'state_path': tmp},
                'api': {'host': '127.0.0.1', 'port': port, 'workers': 1,
                        'auth_strategy': 'noauth2'},
                'database': {'connection': url}})
        subprocess.run(functional_base.console_script(
            'zun-hostcap-db-manage') + ['--config-file', config, 'upgrade'],
            check=True, capture_output=True)
        api = self.useFixture(functional_base.ServiceProcess(
            'zun-hostcap-api', config, tmp))
        functional_base.wait_until_serving(
            self, api, 'http://127.0.0.1:%d/placement' % port)
        return Service('ours', port, '/placement', delete_rows)

    def start_theirs(self, tmp):
        script = os.path.join(TOOLS, 'placement_peer.py')
        functional_base.require(
            self, functional_base.tool_module(
                'placement_peer').installed_python() is not None,
            'openstack-placement is not installed (run %s install)' % script)
        port = functional_base.free_port()
        state = os.path.join(tmp, 'placement')
        os.makedirs(state)
        # The script makes the schema, then execs the server: this pid.
        peer = self.useFixture(functional_base.Process(
            'placement', [sys.executable, script, 'serve', '--port',
                          str(port), '--state-dir', state],
            os.path.join(tmp, 'placement.log')))
        functional_base.wait_until_serving(
            self, peer, 'http://127.0.0.1:%d/' % port, timeout=60)
        return Service('placement', port, '', sqlite_deleter(
            os.path.join(state, 'placement.sqlite')))

    def setUp(self):
        super().setUp()
        time_out = int(os.environ.get('OS_TEST_TIMEOUT') or 0)
        if time_out > 0:
            self.useFixture(fixtures.Timeout(max(time_out, TIME_OUT),
                                             gentle=True))

    def test_same_answers(self):
        # The databases in memory where the machine has a tmpfs: on disk,
        # each of Placement's commits waits ~40 ms for its fsync here.
        tmp = self.useFixture(fixtures.TempDir(
            rootdir=SHM if os.path.isdir(SHM) else None)).path
        differential = Differential(self.start_ours(tmp),
                                    self.start_theirs(tmp))
        self.addCleanup(differential.close)
        differential.both('prepare')

        # Each known difference, shown.
        for forest, request, verdicts in KNOWN_CASES:
            (verdict,) = differential.run(forest, [request])
            self.assertIn(verdict, verdicts, request.describe())

        settings = hypothesis.settings(
            max_examples=self.examples, deadline=None, database=None,
            print_blob=True, report_multiple_bugs=False,
            suppress_health_check=list(hypothesis.HealthCheck))

        @settings
        @hypothesis.given(scenarios())
        def check(scenario):
            differential.run(*scenario)

        # A random seed is drawn here, to be shown for a replay.
        seed = (random.randrange(2 ** 32) if SEED == 'random'
                else int(SEED))
        check = hypothesis.seed(seed)(check)
        try:
            check()
        finally:
            figures = differential.tally.as_dict()
            figures['seed'] = seed
            text = json.dumps(figures, indent=1, sort_keys=True)
            self.addDetail('figures', testtools_content.text_content(text))
            if SUMMARY:
                with open(SUMMARY, 'w') as f:
                    f.write(text + '\n')


class _OnEngine(test_fixtures.OpportunisticDBTestMixin):
    """Ours on MariaDB or PostgreSQL (Placement as above, on SQLite).

    Several of our statements are written for the engine (the summaries
    as its own text, the flat providers' statement, the DELETE of a
    consumer): the same oracle judges them.
    """

    SKIP_ON_UNAVAILABLE_DB = not functional_base.CI
    examples = ENGINE_EXAMPLES

    def start_ours(self, tmp):
        engine = enginefacade.writer.get_engine()
        return self.serve_ours(
            tmp, engine.url.render_as_string(hide_password=False),
            engine_deleter(engine))


class TestCandidatesDifferentialMySQL(_OnEngine, TestCandidatesDifferential):
    FIXTURE = test_fixtures.MySQLOpportunisticFixture


class TestCandidatesDifferentialPostgreSQL(_OnEngine,
                                           TestCandidatesDifferential):
    FIXTURE = test_fixtures.PostgresqlOpportunisticFixture
