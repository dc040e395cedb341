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

"""/allocation_candidates (from 1.10): where a request could be placed.

The query names request groups: the unsuffixed one (``resources``,
``required``, ``member_of``, ``in_tree``) and, from 1.25, granular ones
(``resources1``, ``required1``, ...; word suffixes from 1.33), each
served by a single provider; request-wide ``limit``, ``group_policy``,
``root_required`` (1.35) and ``same_subtree`` (1.36). The answer lists
allocation requests, each the body of a PUT /allocations/{consumer} at
the same version, and a summary of every provider they involve.

Parsing follows Placement's order and messages, into the request types
of ``zun_hostcap.candidates.request``; the search is
``objects.allocation_candidate`` (see zun_hostcap/candidates/ and
db/sqlalchemy/placement/candidates.py).
"""

import json
import re

from zun_hostcap.api.placement import errors
from zun_hostcap.api.placement import filters as query
from zun_hostcap.api.placement import microversion
from zun_hostcap.api.placement import util
from zun_hostcap.api.schemas.placement import allocation_candidates as schema
from zun_hostcap.candidates import request as candidate_request
from zun_hostcap.common import exception
from zun_hostcap.common import placement_codes as codes
from zun_hostcap.objects import allocation_candidate

_KEY_PATTERNS = {}

# More candidates than a limit of this many digits could never be made.
_LIMIT_DIGITS = 18

# The conditions one request group may name (resource classes, required
# and member_of values): each is a condition of one SQL statement, and
# SQLite refuses an expression nested 1,000 deep. Far above any real
# request; Placement has no limit and takes seconds at a few hundred.
MAX_GROUP_CONDITIONS = 500


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
        return candidate_request.RequestGroup(
            suffix=self.suffix,
            resources=tuple(self.resources.items()),
            # A set given twice is one condition, not two.
            required_traits=tuple(dict.fromkeys(
                frozenset(any_of) for any_of in self.required)),
            forbidden_traits=frozenset(self.forbidden),
            member_of=tuple(dict.fromkeys(
                frozenset(aggs) for aggs in self.member_of)),
            forbidden_aggs=frozenset(self.forbidden_aggs),
            in_tree=self.in_tree)


def _read_groups(req):
    """{suffix: _Group}, in the order the query names them."""
    pattern = _key_pattern(util.version(req))
    groups = {}
    # required and member_of are read with all their values at once: a
    # key repeated N times is read once, not N times (N * N values).
    read = set()
    for key, value in req.GET.items():
        found = pattern.match(key)
        if found is None or key in read:
            continue
        prefix, suffix = found.groups()
        suffix = suffix or ''
        group = groups.get(suffix)
        if group is None:
            group = groups[suffix] = _Group(suffix)
        if prefix == 'resources':
            group.resources = query.parse_resources(value)
        elif prefix == 'required':
            read.add(key)
            group.required, group.forbidden = query.parse_required(
                req, req.GET.getall(key))
        elif prefix == 'member_of':
            read.add(key)
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
                     'in `same_subtree` ', codes.QUERY_BAD_VALUE)
        same_subtrees.append(frozenset(suffixes))
    return same_subtrees


def _check_sizes(groups, root_required):
    """400 for a group that names more than MAX_GROUP_CONDITIONS."""
    for suffix, group in groups.items():
        conditions = (len(group.resources) +
                      len(set(map(frozenset, group.required))) +
                      len(set(map(frozenset, group.member_of))))
        if conditions > MAX_GROUP_CONDITIONS:
            raise errors.error(
                400, 'The request group %r names %d resource classes, '
                     'required and member_of values; at most %d are '
                     'allowed.' % (suffix, conditions, MAX_GROUP_CONDITIONS),
                codes.QUERY_BAD_VALUE)
    if len(root_required) > MAX_GROUP_CONDITIONS:
        raise errors.error(
            400, 'root_required names %d traits; at most %d are allowed.'
                 % (len(root_required), MAX_GROUP_CONDITIONS),
            codes.QUERY_BAD_VALUE)


def _check_groups(req, groups, same_subtrees):
    """Placement's rules on which groups may be given together."""
    if util.at_least(req, microversion.SAME_SUBTREE):
        resourceless = [suffix for suffix, group in groups.items()
                        if not group.resources]
        if len(resourceless) == len(groups):
            raise errors.error(
                400, 'There must be at least one resources or '
                     'resources[$S] parameter.', codes.QUERY_MISSING_VALUE)
        named = set().union(*same_subtrees)
        unnamed = [suffix for suffix in resourceless if suffix not in named]
        if unnamed:
            raise errors.error(
                400, 'Resourceless suffixed group request should be '
                     'specified in `same_subtree` query param: bad group(s) '
                     '- %s.' % unnamed, codes.QUERY_BAD_VALUE)
        unknown = [suffix for suffix in sorted(named)
                   if suffix not in groups]
        if unknown:
            raise errors.error(
                400, 'Real suffixes should be specified in `same_subtree`: '
                     '%s not found in %s.' % (unknown, list(groups)),
                codes.QUERY_BAD_VALUE)
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


def _first_values(req):
    seen = set()
    for key, value in req.GET.items():
        if key not in seen:
            seen.add(key)
            yield key, value


def _limit(digits):
    """The limit of ``digits`` (the schema checked them); None for none.

    A limit longer than int() reads (4,300 digits), or than any answer,
    is no limit.
    """
    return int(digits) if len(digits) <= _LIMIT_DIGITS else None


def read_request(req):
    """The CandidateRequest of a GET /allocation_candidates.

    :raises webob.exc.HTTPBadRequest: with Placement's detail.
    """
    query_schema = schema.get_allocation_candidates(util.version(req))
    util.check_query(util.last_values(req), query_schema)
    limit = req.GET.getall('limit')
    group_policy = req.GET.getall('group_policy')
    # Placement checks the last of repeated values and uses the first:
    # the first is checked too, so that it is never a 500 or an unknown
    # policy.
    util.check_query(dict(_first_values(req)), query_schema)
    root_required = req.GET.getall('root_required')
    required = forbidden = set()
    if root_required:
        if len(root_required) > 1:
            raise errors.error(
                400, "Query parameter 'root_required' may be specified "
                     "only once.", codes.QUERY_DUPLICATE_KEY)
        required, forbidden = query.parse_root_required(req, root_required[0])
    same_subtrees = _read_same_subtrees(req)
    groups = _read_groups(req)
    _check_groups(req, groups, same_subtrees)
    _check_sizes(groups, required)
    if not group_policy and sum(1 for suffix in groups if suffix) > 1:
        raise errors.error(
            400, 'The "group_policy" parameter is required when specifying '
                 'more than one "resources{N}" parameter.')
    return candidate_request.CandidateRequest(
        groups=tuple(group.build() for group in groups.values()),
        # The first of repeated values, as Placement takes them.
        limit=_limit(limit[0]) if limit else None,
        group_policy=group_policy[0] if group_policy else None,
        root_required=frozenset(required),
        root_forbidden=frozenset(forbidden),
        same_subtrees=tuple(same_subtrees),
        nested_aware=util.at_least(req, microversion.NESTED_CANDIDATES))


# What a provider's uuid may hold to be written between quotes as it is.
_PLAIN = re.compile(r'[0-9A-Za-z_-]*\Z').match


class _Quoted(dict):
    """JSON string literals, each made once a request."""

    def __missing__(self, text):
        if text is None:
            quoted = 'null'
        elif _PLAIN(text):
            quoted = '"%s"' % text
        else:
            quoted = json.dumps(text)
        self[text] = quoted
        return quoted


class _Renderer(object):
    """The JSON text of an answer's allocation requests.

    An answer may hold many thousands of candidates. They are written as
    text: each provider's uuid and each level's resources once, then
    joined candidate by candidate (the summaries come as text from the
    database). Building dicts and encoding
    them would take several times as long, and the objects would burden
    the garbage collector. Classes a provider serves at several levels of
    one candidate are added up.
    """

    def __init__(self, answer, version):
        self.answer = answer
        self.dict_form = version >= microversion.ALLOCATIONS_DICT
        self.with_mappings = version >= microversion.MAPPINGS
        self.quoted = _Quoted()
        uuid_of = answer.uuid_of
        quoted = self.quoted

        class Providers(dict):
            def __missing__(self, rp):
                text = self[rp] = quoted[uuid_of.get(rp)]
                return text
        self.providers = Providers()
        levels = answer.levels
        self.resourced = [k for k, (_suffix, resources) in enumerate(levels)
                          if resources]
        self.resources = [self._resources(resources)
                          for _suffix, resources in levels]
        # {levels: their resources added up}, the single ones first.
        self.added_up = {(k,): text for k, text in enumerate(self.resources)}
        # A suffix of one level (a granular group) maps one provider; the
        # unsuffixed group's levels map the providers they chose.
        suffixes = [suffix for suffix, _resources in levels]
        self.single = [(k, quoted[suffix]) for k, suffix in
                       enumerate(suffixes) if suffixes.count(suffix) == 1]
        self.shared = {}
        for k, suffix in enumerate(suffixes):
            if suffixes.count(suffix) > 1:
                self.shared.setdefault(quoted[suffix], []).append(k)
        # {pattern: template} (candidate()).
        self.templates = {}
        self.identity = tuple(range(len(levels)))

    def _resources(self, resources):
        return '{%s}' % ', '.join('%s: %d' % (self.quoted[name], amount)
                                  for name, amount in resources)

    def _added_up(self, ks):
        """The resources of the levels ``ks`` together, as text.

        Made once a request for each set of levels: where sharing
        providers serve some classes, most candidates take several
        classes from one provider, the same levels each time.
        """
        text = self.added_up.get(ks)
        if text is None:
            amounts = {}
            for k in ks:
                for name, amount in self.answer.levels[k][1]:
                    amounts[name] = amounts.get(name, 0) + amount
            text = self.added_up[ks] = self._resources(amounts.items())
        return text

    def _allocation(self, provider, resources_text):
        if self.dict_form:
            return '%s: {"resources": %s}' % (provider, resources_text)
        return '{"resource_provider": {"uuid": %s}, "resources": %s}' % (
            provider, resources_text)

    def _text(self, candidate, providers):
        """A candidate's text, ``providers`` {provider: its quoted uuid}."""
        rps = [candidate[k] for k in self.resourced]
        if len(set(rps)) == len(rps):
            parts = [self._allocation(providers[rp], self.resources[k])
                     for k, rp in zip(self.resourced, rps)]
        else:
            by_provider = {}
            for k, rp in zip(self.resourced, rps):
                by_provider.setdefault(rp, []).append(k)
            parts = [self._allocation(providers[rp], self._added_up(tuple(ks)))
                     for rp, ks in by_provider.items()]
        if not self.dict_form:
            return '{"allocations": [%s]}' % ', '.join(parts)
        if not self.with_mappings:
            return '{"allocations": {%s}}' % ', '.join(parts)
        mappings = ['%s: [%s]' % (suffix, providers[candidate[k]])
                    for k, suffix in self.single]
        for suffix, ks in self.shared.items():
            chosen = []
            for k in ks:
                if candidate[k] not in chosen:
                    chosen.append(candidate[k])
            mappings.append('%s: [%s]' % (suffix, ', '.join(
                providers[rp] for rp in chosen)))
        return '{"allocations": {%s}, "mappings": {%s}}' % (
            ', '.join(parts), ', '.join(mappings))

    def _template(self, pattern):
        """The text of the candidates of ``pattern``, for str.format.

        ``pattern`` says which level took which of a candidate's
        distinct providers (numbered in order of first appearance): the
        text is the same for all its candidates but for their uuids, so
        it is written once, with a field for each uuid.
        """
        slots = {index: '\x00%d\x00' % index for index in set(pattern)}
        text = self._text(pattern, slots)
        text = text.replace('{', '{{').replace('}', '}}')
        return re.sub('\x00([0-9]+)\x00', r'{\1}', text)

    def allocation_requests(self):
        """The JSON text of the list of allocation requests.

        A candidate's distinct providers in order of first appearance
        name its pattern; where none repeats (most candidates), the
        pattern is 0, 1, ... Its text is its pattern's template with
        their uuids.
        """
        templates = self.templates
        identity = self.identity
        uuid_text = self.providers.__getitem__
        distinct_of = dict.fromkeys
        texts = []
        for candidate in self.answer.candidates:
            distinct = list(distinct_of(candidate))
            if len(distinct) == len(candidate):
                pattern = identity
            else:
                pattern = tuple(map(distinct.index, candidate))
            template = templates.get(pattern)
            if template is None:
                template = templates[pattern] = self._template(pattern)
            texts.append(template.format(*map(uuid_text, distinct)))
        return '[%s]' % ', '.join(texts)


def answer_text(answer, version):
    """The JSON text of the whole answer, as ``version`` shows it.

    :param answer: a candidates.Answer.
    :param version: the request's microversion, a (major, minor).
    """
    renderer = _Renderer(answer, version)
    return ('{"allocation_requests": %s, "provider_summaries": {%s}}' % (
        renderer.allocation_requests(), answer.summaries_text))


class AllocationCandidatesController(object):
    """/allocation_candidates."""

    @errors.answers({
        exception.ResourceClassNotFound: errors.INVALID_RESOURCE_CLASS,
        exception.TraitNotFound: errors.Fault(400),
    })
    def get(self, req):
        util.require(req, microversion.ALLOCATION_CANDIDATES)
        util.authorize(req, 'placement:allocation_candidates:list')
        request = read_request(req)
        answer = allocation_candidate.AllocationCandidates.get_by_request(
            req.context, request,
            all_classes=util.at_least(req, microversion.CANDIDATE_ALL_CLASSES),
            with_traits=util.at_least(req, microversion.CANDIDATE_TRAITS))
        resp = util.json_response(req, {})
        resp.body = answer_text(answer, util.version(req)).encode('utf-8')
        return resp
