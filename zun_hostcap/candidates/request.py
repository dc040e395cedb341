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

"""What GET /allocation_candidates asks, and the options of the search.

Plain frozen dataclasses, built by the API from the query string and
by the [placement] options; the search and the database read them.
"""

import dataclasses

# group_policy values.
ISOLATE = 'isolate'
NONE = 'none'

# allocation_candidates_generation_strategy values.
DEPTH_FIRST = 'depth-first'
BREADTH_FIRST = 'breadth-first'


@dataclasses.dataclass(frozen=True)
class RequestGroup:
    """One group of a request, as parsed from the query string.

    ``suffix`` is '' for the unsuffixed group, whose resources may come
    from several providers of a tree and from sharing providers; a
    granular group (any other suffix) is served by one provider.
    ``required_traits`` and ``member_of`` are tuples of any-of sets,
    all of which must be met; ``forbidden_traits`` and
    ``forbidden_aggs`` sets of which none may be.
    """
    suffix: str = ''
    resources: tuple = ()            # ((class name, amount), ...)
    required_traits: tuple = ()      # (frozenset of names, ...)
    forbidden_traits: frozenset = frozenset()
    member_of: tuple = ()            # (frozenset of aggregate uuids, ...)
    forbidden_aggs: frozenset = frozenset()
    in_tree: str = None

    @property
    def use_same_provider(self):
        return bool(self.suffix)


@dataclasses.dataclass(frozen=True)
class CandidateRequest:
    """A whole GET /allocation_candidates request."""
    groups: tuple                    # (RequestGroup, ...), query order
    limit: int = None
    group_policy: str = None
    root_required: frozenset = frozenset()
    root_forbidden: frozenset = frozenset()
    same_subtrees: tuple = ()        # (frozenset of suffixes, ...)
    nested_aware: bool = True        # microversion 1.29 and later


@dataclasses.dataclass(frozen=True)
class SearchOptions:
    """The [placement] options of the search."""
    randomize: bool = False
    max_candidates: int = -1
    strategy: str = DEPTH_FIRST
