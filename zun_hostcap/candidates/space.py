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

"""The search space: what the database side loads for the walk.

``db/sqlalchemy/placement/candidates.py`` works out in SQL, set-based,
which providers can serve each request group (or, for the unsuffixed
group, each of its resource classes) on their own, and fills a
``SearchSpace`` of ``Level``s with them; ``search`` combines them.
A candidate is a tuple, the provider chosen at each level:
``allocations`` and ``mappings`` read it. Providers and classes are
internal ids here; the caller names them.
"""


class Level(object):
    """One step of the walk: a granular group, or an unsuffixed class.

    ``resources``: ((class id, amount), ...) taken from the provider
    chosen at this level. ``options``: {anchor id: [provider id, ...]}.
    """

    __slots__ = ('suffix', 'granular', 'resources', 'options')

    def __init__(self, suffix, granular, resources, options):
        self.suffix = suffix
        self.granular = granular
        self.resources = tuple(resources)
        self.options = options


def shared_classes(levels):
    """The classes more than one level asks for."""
    seen, shared = set(), set()
    for level in levels:
        for rc, _amount in level.resources:
            if rc in seen:
                shared.add(rc)
            seen.add(rc)
    return frozenset(shared)


class SearchSpace(object):
    """What the walk needs to know, loaded by the SQL side.

    :param levels: the Levels, unsuffixed ones first.
    :param anchors: the anchor ids to walk, in the order to walk them.
    :param root_of: {provider id: root id} of every option provider.
    :param sharing: ids of the sharing providers among the options.
    :param room: {(provider id, class id): the most all levels together
        may take} for the classes asked for by more than one level
        (``shared_classes(levels)``): capacity less usage, and max_unit.
    :param parent_of: {provider id: parent id or None} of the trees
        involved, when ``same_subtrees`` is given.
    :param same_subtrees: (frozenset of suffixes, ...).
    :param unsuffixed_required: the unsuffixed group's required traits,
        (frozenset of trait ids, ...), met by its providers together.
    :param traits_of: {provider id: set of trait ids} of the unsuffixed
        group's options, restricted to the ids it requires.
    :param isolate: group_policy is isolate.
    :param nested_aware: False below 1.29: one provider a tree.
    """

    def __init__(self, levels, anchors, root_of, sharing=frozenset(),
                 room=None, parent_of=None, same_subtrees=(),
                 unsuffixed_required=(), traits_of=None, isolate=False,
                 nested_aware=True):
        self.levels = levels
        self.anchors = anchors
        self.root_of = root_of
        self.sharing = sharing
        self.room = room or {}
        self.shared_classes = shared_classes(levels)
        self.parent_of = parent_of or {}
        self.same_subtrees = same_subtrees
        self.unsuffixed_required = unsuffixed_required
        self.traits_of = traits_of or {}
        self.isolate = isolate
        self.nested_aware = nested_aware


def allocations(levels, providers):
    """{provider: {class: amount}} of a candidate.

    ``providers`` is a candidate as the search yields it: the provider
    chosen at each of ``levels``, in their order. A resourceless group's
    provider is in the mappings only.
    """
    found = {}
    for level, rp in zip(levels, providers):
        if level.resources:
            resources = found.setdefault(rp, {})
            for rc, amount in level.resources:
                resources[rc] = resources.get(rc, 0) + amount
    return found


def mappings(levels, providers):
    """{suffix: [providers]} of a candidate, each provider once."""
    found = {}
    for level, rp in zip(levels, providers):
        chosen = found.setdefault(level.suffix, [])
        if rp not in chosen:
            chosen.append(rp)
    return found


def candidate_key(levels, providers):
    """What makes two candidates the same answer."""
    return (tuple(sorted((rp, tuple(sorted(res.items()))) for rp, res in
                         allocations(levels, providers).items())),
            tuple(sorted((suffix, tuple(sorted(rps))) for suffix, rps in
                         mappings(levels, providers).items())))
