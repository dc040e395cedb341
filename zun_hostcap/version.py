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

"""The version of zun-hostcap, as pbr computes it from the package.

The release it leads to is ``version`` in setup.cfg (pbr's
pre-versioning); a build between releases is that version with a
``.devN`` suffix. The module also answers oslo.reports' questions for the
Guru Meditation report's package section (vendor, product, version).
"""

import pbr.version

version_info = pbr.version.VersionInfo('zun-hostcap')

VENDOR = 'OpenStack'
PRODUCT = 'zun-hostcap'


def version_string():
    """The version pip installed, development suffix included.

    pbr's ``version_string()`` is the release the package leads to
    (``2027.1.0`` for ``2027.1.0.dev147``); ``--version`` tells the one
    that runs.
    """
    return version_info.release_string()


def vendor_string():
    """Who makes it, for the Guru Meditation report."""
    return VENDOR


def product_string():
    """What it is, for the Guru Meditation report."""
    return PRODUCT


def version_string_with_package():
    """The version that runs, for the Guru Meditation report.

    No distribution package adds a suffix of its own here.
    """
    return version_string()
