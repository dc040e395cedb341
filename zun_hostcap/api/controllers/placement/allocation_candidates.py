"""/allocation_candidates (from 1.10): where a request could be placed.

The query names request groups: the unsuffixed one (``resources``,
``required``, ``member_of``, ``in_tree``) and, from 1.25, granular ones
(``resources1``, ``required1``, ...; word suffixes from 1.33), each
served by a single provider; request-wide ``limit``, ``group_policy``,
``root_required`` (1.35) and ``same_subtree`` (1.36). The answer lists
allocation requests, each the body of a PUT /allocations/{consumer} at
the same version, and a summary of every provider they involve.

Parsing follows Placement's order and messages; the search is
``objects.allocation_candidate`` (see db/sqlalchemy/placement/
candidates.py and candidate_search.py).
"""

import json
import re

from zun_hostcap.api.placement import errors
from zun_hostcap.api.placement import filters as query
from zun_hostcap.api.placement import microversion
from zun_hostcap.api.placement import util
from zun_hostcap.api.schemas.placement import allocation_candidates as schema
from zun_hostcap.common import exception
from zun_hostcap.objects import allocation_candidate

_KEY_PATTERNS = {}


def _key_pattern(version):
    """The pattern of a group key (``resources``, ``required_COMPUTE``)."""
    suffix = schema.suffix_pattern(version)
    pattern = _KEY_PATTERNS.get(suffix)
    if pattern is None:
        pattern = _KEY_PATTERNS[suffix] = re.compile(
            '^(%s)(%s)?$' % ('|'.join(schema.GROUP_KEYS), suffix))
    return pattern


class _Group(object):
    """A request group while it is read."""

    def __init__(self, suffix):
        self.suffix = suffix
        self.resources = {}
        self.required = []
        self.forbidden = set()
        self.member_of = []
        self.forbidden_aggs = set()
        self.in_tree = None

    def build(self):
        return allocation_candidate.RequestGroup(
            suffix=self.suffix,
            resources=tuple(self.resources.items()),
            required_traits=tuple(frozenset(any_of)
                                  for any_of in self.required),
            forbidden_traits=frozenset(self.forbidden),
            member_of=tuple(frozenset(aggs) for aggs in self.member_of),
            forbidden_aggs=frozenset(self.forbidden_aggs),
            in_tree=self.in_tree)


def _read_groups(req):
    """{suffix: _Group}, in the order the query names them."""
    pattern = _key_pattern(util.version(req))
    groups = {}
    for key, value in req.GET.items():
        found = pattern.match(key)
        if found is None:
            continue
        prefix, suffix = found.groups()
        suffix = suffix or ''
        group = groups.get(suffix)
        if group is None:
            group = groups[suffix] = _Group(suffix)
        if prefix == 'resources':
            group.resources = query.parse_resources(value)
        elif prefix == 'required':
            group.required, group.forbidden = query.parse_required(
                req, req.GET.getall(key))
        elif prefix == 'member_of':
            group.member_of, group.forbidden_aggs = query.parse_member_of(
                req, req.GET.getall(key), suffix)
        else:
            group.in_tree = query.parse_in_tree(value)
    return groups


def _read_same_subtrees(req):
    same_subtrees = []
    for value in req.GET.getall('same_subtree'):
        suffixes = {part.strip() for part in value.split(',')}
        if '' in suffixes:
            raise errors.error(
                400, 'Empty string (unsuffixed group) can not be specified '
                     'in `same_subtree` ', errors.QUERY_BAD_VALUE)
        same_subtrees.append(frozenset(suffixes))
    return same_subtrees


def _check_groups(req, groups, same_subtrees):
    """Placement's rules on which groups may be given together."""
    if util.at_least(req, microversion.SAME_SUBTREE):
        resourceless = [suffix for suffix, group in groups.items()
                        if not group.resources]
        if len(resourceless) == len(groups):
            raise errors.error(
                400, 'There must be at least one resources or '
                     'resources[$S] parameter.', errors.QUERY_MISSING_VALUE)
        named = set().union(*same_subtrees)
        unnamed = [suffix for suffix in resourceless if suffix not in named]
        if unnamed:
            raise errors.error(
                400, 'Resourceless suffixed group request should be '
                     'specified in `same_subtree` query param: bad group(s) '
                     '- %s.' % unnamed, errors.QUERY_BAD_VALUE)
        unknown = [suffix for suffix in sorted(named)
                   if suffix not in groups]
        if unknown:
            raise errors.error(
                400, 'Real suffixes should be specified in `same_subtree`: '
                     '%s not found in %s.' % (unknown, list(groups)),
                errors.QUERY_BAD_VALUE)
    else:
        orphans = ['required%s' % suffix for suffix, group in groups.items()
                   if group.required and not group.resources]
        if orphans:
            raise errors.error(
                400, 'All traits parameters must be associated with '
                     'resources.  Found the following orphaned traits '
                     'keys: %s' % ', '.join(orphans))
        orphans = ['member_of%s' % suffix
                   for suffix, group in groups.items()
                   if not group.resources and (group.member_of or
                                               group.forbidden_aggs)]
        if orphans:
            raise errors.error(
                400, 'All member_of parameters must be associated with '
                     'resources. Found the following orphaned member_of '
                     'keys: %s' % ', '.join(orphans))
        if not all(group.resources for group in groups.values()):
            raise errors.error(400, 'All request groups must specify '
                                    'resources.')
        if not groups:
            raise errors.error(
                400, 'At least one request group (`resources` or '
                     '`resources{$S}`) is required.')
    if util.at_least(req, microversion.FORBIDDEN_TRAITS):
        conflicts = sorted(
            'required%s: (%s)' % (suffix, ', '.join(sorted(any_of)))
            for suffix, group in groups.items()
            for any_of in group.required
            if all(name in group.forbidden for name in any_of))
        if conflicts:
            raise errors.error(
                400, 'Conflicting required and forbidden traits found in '
                     'the following traits keys: %s' % ', '.join(conflicts))


def read_request(req):
    """The CandidateRequest of a GET /allocation_candidates.

    :raises webob.exc.HTTPBadRequest: with Placement's detail.
    """
    params = util.last_values(req)
    util.check_query(params, schema.get_allocation_candidates(
        util.version(req)))
    limit = req.GET.getall('limit')
    group_policy = req.GET.getall('group_policy')
    root_required = req.GET.getall('root_required')
    required = forbidden = set()
    if root_required:
        if len(root_required) > 1:
            raise errors.error(
                400, "Query parameter 'root_required' may be specified "
                     "only once.", errors.QUERY_DUPLICATE_KEY)
        required, forbidden = query.parse_root_required(req, root_required[0])
    same_subtrees = _read_same_subtrees(req)
    groups = _read_groups(req)
    _check_groups(req, groups, same_subtrees)
    if not group_policy and sum(1 for suffix in groups if suffix) > 1:
        raise errors.error(
            400, 'The "group_policy" parameter is required when specifying '
                 'more than one "resources{N}" parameter.')
    return allocation_candidate.CandidateRequest(
        groups=tuple(group.build() for group in groups.values()),
        # The first of repeated values, as Placement takes them.
        limit=int(limit[0]) if limit else None,
        group_policy=group_policy[0] if group_policy else None,
        root_required=frozenset(required),
        root_forbidden=frozenset(forbidden),
        same_subtrees=tuple(same_subtrees),
        nested_aware=util.at_least(req, microversion.NESTED_CANDIDATES))


class _Renderer(object):
    """The JSON texts of allocation requests, in the request's form.

    An answer may hold many thousands of candidates, each naming the
    provider chosen at each level of the search. The text of a level
    served by a provider is made once and reused by every candidate that
    has it; a candidate's text is then a join of these. Building dicts
    and encoding them would take several times as long, and the objects
    would burden the garbage collector. Classes a provider serves at
    several levels of one candidate are added up.
    """

    def __init__(self, levels, dict_form, with_mappings):
        self.levels = levels
        self.dict_form = dict_form
        self.with_mappings = with_mappings
        self.resourced = [k for k, (_suffix, resources) in enumerate(levels)
                          if resources]
        self.fragments = {}
        # A suffix of one level (a granular group) maps one provider; the
        # unsuffixed group's levels map the providers they chose.
        suffixes = [suffix for suffix, _resources in levels]
        self.single = [k for k, suffix in enumerate(suffixes)
                       if suffixes.count(suffix) == 1]
        self.shared = {}
        for k, suffix in enumerate(suffixes):
            if suffixes.count(suffix) > 1:
                self.shared.setdefault(suffix, []).append(k)
        self.mapping_fragments = {}

    def _resources(self, resources):
        return '{%s}' % ', '.join('%s: %d' % (json.dumps(name), amount)
                                  for name, amount in resources)

    def _allocation(self, uuid, resources):
        if self.dict_form:
            return '%s: {"resources": %s}' % (json.dumps(uuid),
                                              self._resources(resources))
        return '{"resource_provider": {"uuid": %s}, "resources": %s}' % (
            json.dumps(uuid), self._resources(resources))

    def _fragment(self, k, uuid):
        text = self.fragments.get((k, uuid))
        if text is None:
            text = self.fragments[(k, uuid)] = self._allocation(
                uuid, self.levels[k][1])
        return text

    def _mapping(self, k, uuid):
        text = self.mapping_fragments.get((k, uuid))
        if text is None:
            text = self.mapping_fragments[(k, uuid)] = '%s: [%s]' % (
                json.dumps(self.levels[k][0]), json.dumps(uuid))
        return text

    def render(self, candidate):
        uuids = [candidate[k] for k in self.resourced]
        if len(set(uuids)) == len(uuids):
            parts = [self._fragment(k, uuid)
                     for k, uuid in zip(self.resourced, uuids)]
        else:
            by_provider = {}
            for k, uuid in zip(self.resourced, uuids):
                by_provider.setdefault(uuid, []).append(k)
            parts = []
            for uuid, ks in by_provider.items():
                if len(ks) == 1:
                    parts.append(self._fragment(ks[0], uuid))
                else:
                    amounts = {}
                    for k in ks:
                        _add(amounts, self.levels[k][1])
                    parts.append(self._allocation(uuid, amounts.items()))
        if not self.dict_form:
            return '{"allocations": [%s]}' % ', '.join(parts)
        if not self.with_mappings:
            return '{"allocations": {%s}}' % ', '.join(parts)
        mappings = [self._mapping(k, candidate[k]) for k in self.single]
        for suffix, ks in self.shared.items():
            chosen = []
            for k in ks:
                if candidate[k] not in chosen:
                    chosen.append(candidate[k])
            mappings.append('%s: %s' % (json.dumps(suffix),
                                        json.dumps(chosen)))
        return '{"allocations": {%s}, "mappings": {%s}}' % (
            ', '.join(parts), ', '.join(mappings))


def _add(amounts, resources):
    for name, amount in resources:
        amounts[name] = amounts.get(name, 0) + amount


def allocation_requests_text(req, answer):
    """The JSON text of the list of allocation requests."""
    renderer = _Renderer(
        answer.levels, util.at_least(req, microversion.ALLOCATIONS_DICT),
        util.at_least(req, microversion.MAPPINGS))
    return '[%s]' % ', '.join(renderer.render(candidate)
                              for candidate in answer.candidates)


def _provider_summaries(req, answer):
    with_traits = util.at_least(req, microversion.CANDIDATE_TRAITS)
    nested = util.at_least(req, microversion.NESTED_CANDIDATES)
    summaries = {}
    for uuid, summary in answer.provider_summaries.items():
        document = {'resources': {
            name: {'capacity': capacity, 'used': used}
            for name, (capacity, used) in summary['resources'].items()}}
        if with_traits:
            document['traits'] = summary['traits']
        if nested:
            document['parent_provider_uuid'] = summary[
                'parent_provider_uuid']
            document['root_provider_uuid'] = summary['root_provider_uuid']
        summaries[uuid] = document
    return summaries


class AllocationCandidatesController(object):
    """/allocation_candidates."""

    def get(self, req):
        util.require(req, microversion.ALLOCATION_CANDIDATES)
        util.authorize(req, 'placement:allocation_candidates:list')
        request = read_request(req)
        try:
            answer = allocation_candidate.AllocationCandidates.get_by_request(
                req.context, request,
                all_classes=util.at_least(
                    req, microversion.CANDIDATE_ALL_CLASSES),
                with_traits=util.at_least(
                    req, microversion.CANDIDATE_TRAITS))
        except exception.ResourceClassNotFound as exc:
            raise errors.error(400, 'Invalid resource class in resources '
                                    'parameter: %s' % exc)
        except exception.TraitNotFound as exc:
            raise errors.error(400, str(exc))
        resp = util.json_response(req, {})
        resp.body = ('{"allocation_requests": %s, "provider_summaries": %s}'
                     % (allocation_requests_text(req, answer),
                        json.dumps(_provider_summaries(req, answer)))
                     ).encode('utf-8')
        return resp
