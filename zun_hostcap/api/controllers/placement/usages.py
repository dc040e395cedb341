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

"""/usages (from 1.9) and /resource_providers/{uuid}/usages.

Usages are computed, not stored: Last-Modified is now (from 1.15).
"""


from zun_hostcap.api.placement import errors
from zun_hostcap.api.placement import microversion
from zun_hostcap.api.placement import util
from zun_hostcap.api.schemas.placement import usages as schema
from zun_hostcap.common import exception
from zun_hostcap import objects


class UsagesController(object):
    """/usages: a project's (or a project's user's) usages."""

    def get(self, req):
        util.require(req, microversion.USAGES)
        # One value a key, the last one given, as Placement reads them.
        params = dict(req.GET.items())
        util.authorize(req, 'placement:usages',
                       {'project_id': params.get('project_id')})
        by_type = util.at_least(req, microversion.CONSUMER_TYPE)
        problem = util.schema_problem(
            schema.GET_USAGES_V1_38 if by_type else schema.GET_USAGES_V1_9,
            params)
        if problem is not None:
            raise errors.error(400, 'Invalid query string parameters: %s'
                               % problem)
        project_id = params['project_id']
        user_id = params.get('user_id')
        if by_type:
            usages = {}
            for usage in objects.Usage.get_by_consumer_type(
                    req.context, project_id, user_id,
                    params.get('consumer_type')):
                entry = usages.setdefault(usage.consumer_type, {})
                entry[usage.resource_class] = usage.usage
                entry['consumer_count'] = usage.consumer_count
        else:
            usages = {usage.resource_class: usage.usage
                      for usage in objects.Usage.get_all_by_project_user(
                          req.context, project_id, user_id)}
        return util.json_response(req, {'usages': usages})


class ProviderUsagesController(object):
    """/resource_providers/{uuid}/usages: a class per inventory."""

    def __init__(self, provider_uuid):
        self.provider_uuid = provider_uuid

    @errors.answers({exception.ResourceProviderNotFound: errors.Fault(
        404, 'No resource provider with uuid {provider_uuid} found: '
             '{message}')})
    def get(self, req):
        util.authorize(req, 'placement:resource_providers:usages')
        generation, usages = (
            objects.Usage.get_all_by_resource_provider_uuid(
                req.context, self.provider_uuid))
        return util.json_response(req, {
            'resource_provider_generation': generation,
            'usages': {usage.resource_class: usage.usage
                       for usage in usages}})
