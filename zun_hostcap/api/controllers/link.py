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

"""Links in response documents."""

import pecan


def url(*parts):
    """Absolute URL of a path of this API, behind any proxy or mount."""
    return '/'.join([pecan.request.application_url.rstrip('/')] +
                    [part.strip('/') for part in parts])


def self_and_bookmark(resource, ident=''):
    """Zun's pair: the versioned URL and the unversioned bookmark."""
    if ident:
        return [{'href': url('v1', resource, ident), 'rel': 'self'},
                {'href': url(resource, ident), 'rel': 'bookmark'}]
    # A collection's links end in a slash, as Zun's do.
    return [{'href': url('v1', resource) + '/', 'rel': 'self'},
            {'href': url(resource) + '/', 'rel': 'bookmark'}]
