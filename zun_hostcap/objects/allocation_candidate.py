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

"""Allocation candidates: the answer to a scheduler's question.

Not a versioned object: the answer is computed for one request and
rendered at once, never stored or sent over RPC (as in Placement). The
request is a zun_hostcap.candidates.request.CandidateRequest, plain
frozen dataclasses the API builds.
"""

from zun_hostcap.candidates import request as candidate_request
import zun_hostcap.conf
from zun_hostcap.db.sqlalchemy.placement import candidates as candidate_db

CONF = zun_hostcap.conf.CONF


class AllocationCandidates(object):

    @staticmethod
    def search_options():
        """The [placement] options of the search, as set now."""
        return candidate_request.SearchOptions(
            randomize=CONF.placement.randomize_allocation_candidates,
            max_candidates=CONF.placement.max_allocation_candidates,
            strategy=(CONF.placement.
                      allocation_candidates_generation_strategy))

    @classmethod
    def get_by_request(cls, context, request, all_classes=True,
                       with_traits=True):
        """The candidates and provider summaries of ``request``.

        :returns: a candidates.Answer.
        :raises ResourceClassNotFound: an unknown class.
        :raises TraitNotFound: unknown traits.
        """
        return candidate_db.get_candidates(
            context, request, cls.search_options(), all_classes=all_classes,
            with_traits=with_traits)
