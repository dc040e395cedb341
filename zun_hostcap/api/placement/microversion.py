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

"""Microversions of the Placement-compatible API.

A request names its version in ``OpenStack-API-Version: placement X.Y``
(or ``placement latest``); without one it gets 1.0, as with Placement. A
version outside the range is a 406, a malformed one a 400. Routes and
fields appear at the version where Placement added them; the constants
below name those versions, so that a handler reads
``util.version(req) >= microversion.CONSUMER_GENERATION``.
"""

import microversion_parse

SERVICE_TYPE = 'placement'
# Spelled as Placement sends it (microversion_parse's STANDARD_HEADER):
# clients match Vary case-sensitively.
HEADER = microversion_parse.STANDARD_HEADER

# What each version changed; the range is OpenStack Placement's.
VERSION_HISTORY = """
* 1.0 - Resource providers, inventories, allocations, usages.
* 1.1 - Provider aggregates.
* 1.2 - /resource_classes.
* 1.3 - member_of on GET /resource_providers.
* 1.4 - resources on GET /resource_providers.
* 1.5 - DELETE /resource_providers/{uuid}/inventories.
* 1.6 - /traits and provider traits.
* 1.7 - PUT /resource_classes/{name} creates, without a body.
* 1.8 - project_id and user_id required in PUT /allocations/{consumer}.
* 1.9 - GET /usages.
* 1.10 - GET /allocation_candidates.
* 1.11 - Providers link to their allocations.
* 1.12 - Allocations as a dict keyed by provider in PUT and GET.
* 1.13 - POST /allocations.
* 1.14 - Nested providers: parent and root uuid, in_tree.
* 1.15 - Last-Modified and Cache-Control on GET responses.
* 1.16 - limit on GET /allocation_candidates.
* 1.17 - required traits on GET /allocation_candidates; traits in its
  provider summaries.
* 1.18 - required traits on GET /resource_providers.
* 1.19 - Provider aggregates with generation.
* 1.20 - POST /resource_providers answers 200 with the provider.
* 1.21 - member_of on GET /allocation_candidates.
* 1.22 - Forbidden traits (!TRAIT) in required.
* 1.23 - Error codes in error documents.
* 1.24 - Several member_of parameters.
* 1.25 - Granular request groups (resourcesN, requiredN, member_ofN) and
  group_policy on GET /allocation_candidates.
* 1.26 - Inventory with reserved equal to total.
* 1.27 - Every class of a provider in the candidates' provider summaries.
* 1.28 - Consumer generations.
* 1.29 - Nested providers in allocation candidates; parent and root
  uuids in provider summaries.
* 1.30 - POST /reshaper.
* 1.31 - in_tree and in_treeN on GET /allocation_candidates.
* 1.32 - Negative member_of (!).
* 1.33 - Request group suffixes may be words.
* 1.34 - mappings of request groups to providers in allocation requests.
* 1.35 - root_required on GET /allocation_candidates.
* 1.36 - same_subtree and resourceless request groups.
* 1.37 - Providers may be re-parented and un-parented.
* 1.38 - consumer_type in allocations and usages.
* 1.39 - in: in required, and required repeated, on GET /resource_providers
  and /allocation_candidates.
"""

MIN_VERSION = microversion_parse.Version(1, 0)
MAX_VERSION = microversion_parse.Version(1, 39)

# Every version of the range, in order, as microversion_parse wants them.
VERSIONS = ['1.%d' % minor for minor in range(MAX_VERSION.minor + 1)]

AGGREGATES = (1, 1)
RESOURCE_CLASSES = (1, 2)
MEMBER_OF = (1, 3)
RESOURCES_FILTER = (1, 4)
DELETE_ALL_INVENTORIES = (1, 5)
TRAITS = (1, 6)
RESOURCE_CLASS_PUT_CREATES = (1, 7)
ALLOCATION_PROJECT_USER_REQUIRED = (1, 8)
USAGES = (1, 9)
ALLOCATION_CANDIDATES = (1, 10)
PROVIDER_ALLOCATIONS_LINK = (1, 11)
ALLOCATIONS_DICT = (1, 12)
POST_ALLOCATIONS = (1, 13)
NESTED_PROVIDERS = (1, 14)
LAST_MODIFIED = (1, 15)
CANDIDATE_TRAITS = (1, 17)
REQUIRED_TRAITS = (1, 18)
AGGREGATE_GENERATION = (1, 19)
PROVIDER_CREATE_RETURNS_BODY = (1, 20)
FORBIDDEN_TRAITS = (1, 22)
ERROR_CODES = (1, 23)
MULTIPLE_MEMBER_OF = (1, 24)
RESERVED_EQUALS_TOTAL = (1, 26)
CANDIDATE_ALL_CLASSES = (1, 27)
CONSUMER_GENERATION = (1, 28)
NESTED_CANDIDATES = (1, 29)
RESHAPER = (1, 30)
FORBIDDEN_AGGREGATES = (1, 32)
MAPPINGS = (1, 34)
SAME_SUBTREE = (1, 36)
REPARENT = (1, 37)
CONSUMER_TYPE = (1, 38)
ANY_TRAITS = (1, 39)


class InvalidVersion(ValueError):
    """The header is there but says no version of ours.

    ``status`` is the answer: 406 for a version outside the range, 400
    for a header that is not a version at all.
    """

    def __init__(self, status, detail):
        super().__init__(detail)
        self.status = status
        self.detail = detail


# Versions already parsed, by the header's text: clients send a handful
# of values, and parsing one costs more than the rest of the middleware.
_PARSED = {}
_PARSED_MAX = 256


def version_from_environ(environ):
    """``extract_version`` of a WSGI request, parsed once per header text.

    The Version is shared between requests: read it, do not change it.

    :raises InvalidVersion: a malformed or unsupported version.
    """
    text = environ.get('HTTP_OPENSTACK_API_VERSION')
    version = _PARSED.get(text)
    if version is None:
        version = extract_version(
            {} if text is None else {HEADER: text})
        if len(_PARSED) < _PARSED_MAX:
            _PARSED[text] = version
    return version


def extract_version(headers):
    """The version a request asks for, as a ``microversion_parse.Version``.

    :raises InvalidVersion: a malformed or unsupported version.
    """
    try:
        return microversion_parse.extract_version(headers, SERVICE_TYPE,
                                                  VERSIONS)
    except ValueError as exc:
        raise InvalidVersion(406, 'Invalid microversion: %s' % exc)
    except TypeError as exc:
        raise InvalidVersion(400, 'Invalid microversion: %s' % exc)


def header_value(version):
    return '%s %s' % (SERVICE_TYPE, version)
