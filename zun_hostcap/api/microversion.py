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

"""Microversions of the Zun-compatible API.

A request names its version in ``OpenStack-API-Version: container X.Y``
(or ``container latest``); without one it gets the minimum, as in Zun.
The range is Zun's, so python-zunclient negotiates the version it knows.
"""

import microversion_parse
import webob.exc

from zun_hostcap.api import errors

SERVICE_TYPE = 'container'
HEADER = 'OpenStack-API-Version'
MIN_HEADER = 'OpenStack-API-Minimum-Version'
MAX_HEADER = 'OpenStack-API-Maximum-Version'

# What each version changed, for this service's routes. Versions that
# only changed Zun's container routes exist so that clients can ask for
# them; they change nothing here.
VERSION_HISTORY = """
* 1.1 - Initial version; version documents and /v1/services.
* 1.4 - /v1/hosts and /v1/hosts/{host_ident}.
* 1.29 - Hosts show enable_cpu_pinning.
* 1.40 - The latest version of Zun 18.0; nothing changes here.
"""

MIN_VERSION = microversion_parse.Version(1, 1)
MAX_VERSION = microversion_parse.Version(1, 40)

HOSTS = microversion_parse.Version(1, 4)
HOST_CPU_PINNING = microversion_parse.Version(1, 29)


def _version(major, minor):
    version = microversion_parse.Version(major, minor)
    version.min_version = MIN_VERSION
    version.max_version = MAX_VERSION
    return version


def range_headers():
    """The headers every response carries to announce the range."""
    return [(MIN_HEADER, '%s %s' % (SERVICE_TYPE, MIN_VERSION)),
            (MAX_HEADER, '%s %s' % (SERVICE_TYPE, MAX_VERSION))]


def _not_acceptable(detail):
    return webob.exc.HTTPNotAcceptable(
        detail, headers=range_headers(),
        comment=errors.NOT_ACCEPTABLE_VERSION)


def extract_version(headers):
    """The version a request asks for, checked against the range.

    :raises webob.exc.HTTPNotAcceptable: a malformed or unsupported
        version, as Zun answers both.
    """
    requested = microversion_parse.get_version(headers, SERVICE_TYPE)
    if requested is None:
        return _version(*MIN_VERSION)
    if requested.strip().lower() == 'latest':
        return _version(*MAX_VERSION)
    try:
        version = microversion_parse.parse_version_string(requested)
    except TypeError:
        raise _not_acceptable(
            'Invalid value %r for the %s header; expected "%s X.Y" or '
            '"%s latest".' % (requested, HEADER, SERVICE_TYPE,
                              SERVICE_TYPE))
    version = _version(*version)
    if not version.matches():
        raise _not_acceptable(
            'Version %s is not supported by the API. The minimum version '
            'is %s and the maximum is %s.' % (version, MIN_VERSION,
                                              MAX_VERSION))
    return version


def require(request, minimum):
    """Answer 406 when ``request`` negotiated a version below ``minimum``.

    Zun's answer for a route that does not exist yet at the version.
    """
    if request.version < minimum:
        raise _not_acceptable(
            'This resource needs version %s or later of the API; the '
            'request asked for %s. Send "%s: %s %s" (or "latest").'
            % (minimum, request.version, HEADER, SERVICE_TYPE, minimum))
