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

"""The error codes of the Placement-compatible API's error documents.

Placement's own codes (``placement.*``, from microversion 1.23), each
written once: the exceptions of the resource provider model carry them,
the API's handlers name them, and the compute's report client reads them
in the answers of a Placement service.
"""

UNDEFINED = 'placement.undefined_code'
CONCURRENT_UPDATE = 'placement.concurrent_update'
DUPLICATE_NAME = 'placement.duplicate_name'
INVENTORY_INUSE = 'placement.inventory.inuse'
PROVIDER_IN_USE = 'placement.resource_provider.inuse'
PROVIDER_CANNOT_DELETE_PARENT = (
    'placement.resource_provider.cannot_delete_parent')
PROVIDER_NOT_FOUND = 'placement.resource_provider.not_found'
QUERY_DUPLICATE_KEY = 'placement.query.duplicate_key'
QUERY_BAD_VALUE = 'placement.query.bad_value'
QUERY_MISSING_VALUE = 'placement.query.missing_value'
