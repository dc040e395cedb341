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

"""What the Placement controllers are written with.

- ``version(req)``: the negotiated microversion.
- ``require(req, minimum)``: a route or method that does not exist below
  a version answers 404 (route) or 405 (method), as in Placement.
- ``read_json(req, schema)``: the body, valid for ``schema`` (400/415).
- ``query(req, schema)``: the query string, one value per key, valid
  for ``schema``; repeated keys are refused unless listed as repeatable.
- ``last_values(req)`` and ``check_query(params, schema)``: the query
  string read as Placement reads it where keys may repeat (the last
  value counts), and checked.
- ``json_response(req, data, ...)``: the 200/201 document, with
  Last-Modified and Cache-Control from 1.15.
- ``no_content(req)``: a 204.
- ``authorize(req, rule)``: the policy check (403).
"""

import datetime

import jsonschema
from oslo_policy import policy as oslo_policy
from oslo_serialization import jsonutils
from oslo_utils import timeutils
from oslo_utils import uuidutils
import webob

from zun_hostcap.api import body as api_body
from zun_hostcap.api import middleware
from zun_hostcap.api.placement import errors
from zun_hostcap.api.placement import microversion
from zun_hostcap.common import placement_codes as codes
from zun_hostcap.common import policy

_FORMAT_CHECKER = jsonschema.FormatChecker()

# Bodies take uuids as Placement does, with or without dashes; query
# strings keep jsonschema's stricter check, as Placement's do.
_BODY_FORMAT_CHECKER = jsonschema.FormatChecker()


@_BODY_FORMAT_CHECKER.checks('uuid')
def _uuid_like(value):
    return not isinstance(value, str) or uuidutils.is_uuid_like(value)


_VALIDATORS = {}


def _validator(schema, format_checker):
    """A validator for ``schema``, made (and the schema checked) once.

    jsonschema.validate() checks the schema itself at every call, which
    costs more than validating a small document.
    """
    key = (id(schema), id(format_checker))
    validator = _VALIDATORS.get(key)
    if validator is None:
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        validator = cls(schema, format_checker=format_checker)
        # The schema is kept alive with it, so its id stays its own.
        _VALIDATORS[key] = validator
    return validator


def schema_problem(schema, data, format_checker=_FORMAT_CHECKER):
    """The most relevant way ``data`` fails ``schema``; None if it fits."""
    return jsonschema.exceptions.best_match(
        _validator(schema, format_checker).iter_errors(data))


def canonical_uuid(value):
    """A uuid in lower case, in the form it was sent; others unchanged.

    Placement keeps uuids as clients send them (an aggregate of 32 hex
    digits is answered so; a provider's own uuid, dashed, is made so at
    creation) and compares them as its database does: MySQL's collation
    ignores case, PostgreSQL's and SQLite's do not. Here an upper-case
    uuid of a provider, aggregate or consumer is that one on every
    engine, and the dashes are left as they came, so that a client is
    answered the form it sent.
    """
    if isinstance(value, str) and uuidutils.is_uuid_like(value):
        return value.lower()
    return value


def version(req):
    return req.environ[errors.VERSION_ENVIRON]


def at_least(req, minimum):
    """Whether the request negotiated ``minimum`` (a (major, minor))."""
    return req.environ[errors.VERSION_ENVIRON] >= minimum


def require(req, minimum, status=404):
    """Refuse a route (404) or method (405) newer than the request."""
    if not at_least(req, minimum):
        if status == 405:
            raise errors.error(405, 'The method specified is not allowed '
                                    'for this resource at microversion %s.'
                               % str(version(req)))
        raise errors.error(404, 'The resource could not be found at '
                                'microversion %s.' % str(version(req)))


def authorize(req, rule, target=None):
    """Check ``rule`` for the request's context (403 when refused).

    The detail is Placement's, for a scope mismatch too.
    """
    ctx = req.context
    target = target or {'project_id': ctx.project_id,
                        'user_id': ctx.user_id}
    try:
        policy.authorize(ctx, rule, target)
    except (oslo_policy.PolicyNotAuthorized, oslo_policy.InvalidScope):
        raise errors.error(403, 'Policy does not allow %s to be performed.'
                           % rule)


def require_json_content(req):
    """415 unless the body is declared JSON, before anything else.

    Placement's handlers that take a body check its media type first,
    before looking up what the path names.
    """
    content_type = (middleware.raw_body(req)[0] or '').partition(';')[0]
    if content_type.strip().lower() != 'application/json':
        raise errors.error(415, 'The media type %s is not supported, use '
                                'application/json' % (content_type or None))


class _Refusals(api_body.Refusals):
    """A body ``api_body.parse_json()`` refuses, in Placement's words."""

    def media_type(self, content_type, length):
        if length and not content_type:
            return errors.error(400, 'content-type header required when '
                                     'content-length > 0')
        return errors.error(415, 'The media type %s is not supported, use '
                                 'application/json' % (content_type or None))

    def charset(self, charset):
        return errors.error(415, 'JSON bodies must be UTF-8.')

    def not_utf8(self):
        return errors.error(400, 'Malformed JSON: the body is not UTF-8.')

    def too_deep(self):
        return errors.error(400, 'Malformed JSON: arrays or objects nest '
                                 'deeper than %d levels.'
                            % api_body.MAX_DEPTH)

    def malformed(self, error):
        return errors.error(400, 'Malformed JSON: %s' % error)

    def surrogate(self, problem):
        # Placement answers 500: no database takes such a string.
        return errors.error(400, 'JSON does not validate: %s.' % problem)


_REFUSALS = _Refusals()


def read_json(req, schema=None):
    """The JSON body, valid for ``schema``, with Placement's messages.

    ``schema`` None: any JSON (the caller validates it). A schema is a
    module constant: its validator is cached by its id, so a dict made
    per call would add a validator to the cache at every request.

    415 for a body that is not application/json (or not UTF-8), 400 for
    a body without a Content-Type, JSON that does not parse ("Malformed
    JSON: ...") or does not match ("JSON does not validate: ...", with
    jsonschema's account of the failure, as Placement answers).
    """
    data = api_body.parse_json(req, _REFUSALS)
    if schema is not None:
        problem = schema_problem(schema, data, _BODY_FORMAT_CHECKER)
        if problem is not None:
            raise errors.error(400, 'JSON does not validate: %s' % problem)
    return data


def last_values(req):
    """{key: the last value given}, as Placement reads its query."""
    try:
        return dict(req.GET.items())
    except UnicodeDecodeError:
        raise errors.error(400, 'Invalid query string parameters: the '
                                'query string is not valid UTF-8.')


def check_query(params, query_schema):
    """400 unless ``params`` fit; uuids need their dashes, as Placement's.

    The detail is Placement's: jsonschema's account of the failure.
    """
    problem = schema_problem(query_schema, params)
    if problem is not None:
        raise errors.error(400, 'Invalid query string parameters: %s'
                                % problem)


def query(req, schema=None, repeatable=()):
    """The query string as {key: value}, or {key: [values]} if repeatable.

    :raises webob.exc.HTTPBadRequest: a key given twice that may not be,
        or values ``schema`` refuses; the detail names the parameter.
    """
    params = {}
    for key, value in req.GET.items():
        if key in repeatable:
            params.setdefault(key, []).append(value)
        elif key in params:
            raise errors.error(
                400, 'Query parameter %r may be given only once.' % key,
                codes.QUERY_DUPLICATE_KEY)
        else:
            params[key] = value
    if schema is not None:
        problem = schema_problem(schema, params)
        if problem is not None:
            where = '/'.join(str(part) for part in problem.absolute_path)
            raise errors.error(
                400, 'Invalid query string parameters%s: %s.' % (
                    ' (%s)' % where if where else '', problem.message),
                codes.QUERY_BAD_VALUE)
    return params


def _http_date(value):
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=datetime.timezone.utc)
    return value


def newest(*times):
    """The newest of ``times`` (None ignored); now when there is none."""
    known = [t for t in times if t is not None]
    return max(known) if known else timeutils.utcnow()


def json_response(req, data, status=200, last_modified=None,
                  headers=None, cache_headers=True):
    """A JSON document; from 1.15 with Last-Modified and Cache-Control.

    ``last_modified`` is the newest updated_at (or created_at) of what
    the document shows; None means now, as Placement answers for
    documents that are computed rather than stored.
    """
    resp = webob.Response(status=status, content_type='application/json',
                          charset='utf-8')
    for name, value in headers or ():
        resp.headers.add(name, value)
    resp.body = jsonutils.dump_as_bytes(data)
    if cache_headers and at_least(req, microversion.LAST_MODIFIED):
        resp.cache_control = 'no-cache'
        resp.last_modified = _http_date(last_modified or timeutils.utcnow())
    return resp


def no_content(req, headers=None):
    """A 204 without a body (and without a Content-Type)."""
    resp = webob.Response(status=204, headerlist=list(headers or ()))
    del resp.content_type
    return resp


def created(req, location, data=None, last_modified=None):
    """A 201 with a Location, and ``data`` as its body if given."""
    headers = [('Location', location)]
    if data is None:
        resp = webob.Response(status=201, headerlist=headers)
        del resp.content_type
        return resp
    return json_response(req, data, 201, last_modified, headers)


def url(req, path):
    """``path`` under the API's prefix (``/placement`` or none)."""
    return req.script_name + path


def provider_links(req, uuid):
    """The links of a provider's document at the request's version."""
    base = url(req, '/resource_providers/%s' % uuid)
    links = [{'rel': 'self', 'href': base},
             {'rel': 'inventories', 'href': base + '/inventories'},
             {'rel': 'usages', 'href': base + '/usages'}]
    if at_least(req, microversion.AGGREGATES):
        links.append({'rel': 'aggregates', 'href': base + '/aggregates'})
    if at_least(req, microversion.TRAITS):
        links.append({'rel': 'traits', 'href': base + '/traits'})
    if at_least(req, microversion.PROVIDER_ALLOCATIONS_LINK):
        links.append({'rel': 'allocations', 'href': base + '/allocations'})
    return links
