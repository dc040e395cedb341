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

"""/resource_classes and /resource_classes/{name} (from 1.2).

As Placement:

- GET /resource_classes: {"resource_classes": [{"name", "links"}]}.
- POST /resource_classes {"name": "CUSTOM_..."}: 201, Location, no body.
- GET /resource_classes/{name}: {"name", "links"}.
- PUT /resource_classes/{name}: before 1.7 a rename, {"name": new}, 200
  with the class; from 1.7 no body: 201 if created now, 204 if it
  existed, Location both times.
- DELETE /resource_classes/{name}: 204; 400 for a standard class, 409
  while an inventory or allocation uses it.

Standard classes have no timestamps: their Last-Modified (1.15) is now.
"""

import re


from zun_hostcap.api.placement import errors
from zun_hostcap.api.placement import microversion
from zun_hostcap.api.placement import util
from zun_hostcap.api.schemas.placement import resource_classes as schema
from zun_hostcap.common import exception
from zun_hostcap.objects import resource_class as rc_obj

POLICY = 'placement:resource_classes:%s'

_NAME = re.compile(schema.PATTERN.rstrip('$'))


def _require_route(req):
    util.require(req, microversion.RESOURCE_CLASSES)


def _check_name(name):
    """400 unless ``name`` is a valid custom class name (schema NAME).

    The schema's ``$`` lets a trailing newline through; this does not.
    """
    if len(name) > schema.MAX_LENGTH:
        raise errors.error(
            400, "JSON does not validate: %r is too long. Failed "
                 "validating 'maxLength' in schema['properties']['name']."
                 % name)
    if not _NAME.fullmatch(name):
        raise errors.error(
            400, "JSON does not validate: %r does not match %r. Failed "
                 "validating 'pattern' in schema['properties']['name']."
                 % (name, schema.PATTERN))


def _url(req, name):
    return util.url(req, '/resource_classes/%s' % name)


def _serialize(req, rc):
    return {'name': rc.name,
            'links': [{'rel': 'self', 'href': _url(req, rc.name)}]}


def _modified(rc):
    """When it last changed; None (now) for a standard class."""
    return rc.updated_at or rc.created_at


def _newest(classes):
    """Placement's Last-Modified of a list: now if any is standard."""
    times = [_modified(rc) for rc in classes]
    if not times or None in times:
        return None
    return max(times)


# A resource class the client may not, or cannot yet, delete.
_DELETE_FAILED = 'Error in delete resource class: {message}'


class ResourceClassController(object):
    """/resource_classes/{name}."""

    def __init__(self, name):
        self.name = name

    def get(self, req):
        _require_route(req)
        util.authorize(req, POLICY % 'show')
        rc = rc_obj.ResourceClass.get_by_name(req.context, self.name)
        return util.json_response(req, _serialize(req, rc),
                                  last_modified=_modified(rc))

    def put(self, req):
        _require_route(req)
        if not util.at_least(req, microversion.RESOURCE_CLASS_PUT_CREATES):
            return self._rename(req)
        util.authorize(req, POLICY % 'update')
        _check_name(self.name)
        location = [('Location', _url(req, self.name))]
        try:
            rc_obj.ResourceClass.get_by_name(req.context, self.name)
        except exception.ResourceClassNotFound:
            try:
                rc_obj.ResourceClass(req.context, name=self.name).create()
            except exception.ResourceClassExists:
                # Created by someone else in the meantime: it exists.
                return util.no_content(req, location)
            return util.created(req, location[0][1])
        return util.no_content(req, location)

    @errors.answers({
        exception.ResourceClassExists: errors.Fault(
            409, 'Resource class already exists: {name}'),
        exception.ResourceClassCannotUpdateStandard: errors.Fault(
            400, 'Cannot update standard resource class {name}'),
    })
    def _rename(self, req):
        """PUT before 1.7: {"name": new name}."""
        util.authorize(req, POLICY % 'update')
        data = util.read_json(req, schema.PUT_RESOURCE_CLASS_v1_2)
        _check_name(data['name'])
        rc = rc_obj.ResourceClass.get_by_name(req.context, self.name)
        rc.name = data['name']
        rc.rename(self.name)
        return util.json_response(req, _serialize(req, rc),
                                  cache_headers=False)

    @errors.answers({
        exception.ResourceClassCannotDeleteStandard: errors.Fault(
            400, _DELETE_FAILED),
        exception.ResourceClassInUse: errors.Fault(409, _DELETE_FAILED),
    })
    def delete(self, req):
        _require_route(req)
        util.authorize(req, POLICY % 'delete')
        rc_obj.ResourceClass._from_values(req.context,
                                          name=self.name).destroy()
        return util.no_content(req)


class ResourceClassesController(object):
    """/resource_classes."""

    def get(self, req):
        _require_route(req)
        util.authorize(req, POLICY % 'list')
        classes = rc_obj.ResourceClassList.get_all(req.context)
        return util.json_response(
            req, {'resource_classes': [_serialize(req, rc)
                                       for rc in classes]},
            last_modified=_newest(classes))

    def post(self, req):
        _require_route(req)
        util.authorize(req, POLICY % 'create')
        data = util.read_json(req, schema.POST_RESOURCE_CLASS_v1_2)
        _check_name(data['name'])
        # A name taken is the exception's own 409.
        rc_obj.ResourceClass(req.context, name=data['name']).create()
        return util.created(req, _url(req, data['name']))
