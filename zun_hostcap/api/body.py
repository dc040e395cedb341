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

"""Request bodies: decoded only by a route that takes one, with limits.

Pecan never sees a body (see ``middleware.BodyGuard``). A route that takes
a JSON document calls ``read_json()``, which answers 415 for another media
type or charset, 400 for bytes that are not UTF-8, JSON that does not
parse, nests deeper than ``MAX_DEPTH`` or does not match the route's
schema. The size is bounded before (oslo.middleware's sizelimit, 413).

``parse_json()`` is those steps but the schema, for every API of the
service: each says a refusal in its own words (``Refusals``), as the
Placement API does in Placement's (``api/placement/util.read_json``).
"""

import json

import jsonschema
import webob.exc

from zun_hostcap.api import errors
from zun_hostcap.api import middleware

JSON_TYPE = 'application/json'

# Deeper than any document of this API will ever be, and far below what
# would exhaust the parser's recursion.
MAX_DEPTH = 32

_FORMAT_CHECKER = jsonschema.FormatChecker()


def _bad(detail):
    return webob.exc.HTTPBadRequest(detail, comment=errors.BAD_REQUEST)


def _unsupported(detail):
    return webob.exc.HTTPUnsupportedMediaType(
        detail, comment=errors.code_for_status(415))


def _depth(text):
    """How deep arrays and objects nest in JSON ``text``, without parsing."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == '\\':
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in '[{':
            depth += 1
            deepest = max(deepest, depth)
        elif char in ']}':
            depth -= 1
    return deepest


def lone_surrogate(document, path=()):
    """Where ``document`` holds a string that is not Unicode text.

    A JSON escape may name one half of a UTF-16 surrogate pair
    (``"\\ud800"``): the parser makes a str of it that no encoder, and
    so no database, takes.

    :returns: None, or (path, value): the keys and indexes leading to the
        first such string (a key is named by its own path), and it.
    """
    if isinstance(document, str):
        try:
            document.encode('utf-8')
        except UnicodeEncodeError:
            return path, document
    elif isinstance(document, dict):
        for key, value in document.items():
            found = (lone_surrogate(key, path + (key,)) or
                     lone_surrogate(value, path + (key,)))
            if found is not None:
                return found
    elif isinstance(document, list):
        for index, value in enumerate(document):
            found = lone_surrogate(value, path + (index,))
            if found is not None:
                return found
    return None


def surrogate_problem(document):
    """What to tell of ``document``'s lone surrogate; None without one."""
    found = lone_surrogate(document)
    if found is None:
        return None
    path, value = found
    where = '/'.join(str(part) for part in path).encode(
        'utf-8', 'backslashreplace').decode('utf-8')
    return ('%s holds %s, a lone UTF-16 surrogate, which is not Unicode '
            'text' % ("'%s'" % where if where else 'the document',
                      ascii(value)))


class Refusals(object):
    """The exceptions ``parse_json()`` raises, in one API's words.

    These are the Zun-compatible API's; the Placement API has its own.
    """

    def media_type(self, content_type, length):
        """Not application/json (``content_type`` None: no header)."""
        return _unsupported('This request takes a body of type %s; it '
                            'came with %r.' % (JSON_TYPE,
                                               content_type or 'none'))

    def charset(self, charset):
        return _unsupported('JSON bodies must be UTF-8; the request names '
                            'the charset %r.' % charset)

    def not_utf8(self):
        return _bad('The request body is not valid UTF-8.')

    def too_deep(self):
        return _bad('The request body nests arrays or objects deeper than '
                    '%d levels.' % MAX_DEPTH)

    def malformed(self, error):
        return _bad('The request body is not valid JSON: %s.' % error)

    def surrogate(self, problem):
        return _bad('Invalid request body: %s.' % problem)


_REFUSALS = Refusals()


def parse_json(request, refusals):
    """The request's JSON document, not yet checked against a schema.

    The media type must be application/json, the charset (if named)
    UTF-8, the bytes UTF-8, the nesting at most ``MAX_DEPTH``, the text
    JSON; the first that is not raises what ``refusals`` makes of it.
    """
    content_type, body_file, length = middleware.raw_body(request)
    media_type, _sep, params = (content_type or '').partition(';')
    if media_type.strip().lower() != JSON_TYPE:
        raise refusals.media_type(content_type, length)
    charset = dict(
        (name.strip().lower(), value.strip().strip('"').lower())
        for name, _eq, value in (part.partition('=')
                                 for part in params.split(';') if part))
    if charset.get('charset', 'utf-8') not in ('utf-8', 'utf8'):
        raise refusals.charset(charset['charset'])
    raw = body_file.read(length) if length else b''
    try:
        text = raw.decode('utf-8')
    except UnicodeDecodeError:
        raise refusals.not_utf8()
    # No text nests deeper than it has brackets: most bodies need no
    # scan, character by character.
    if (text.count('[') + text.count('{') > MAX_DEPTH and
            _depth(text) > MAX_DEPTH):
        raise refusals.too_deep()
    try:
        document = json.loads(text)
    except ValueError as err:
        raise refusals.malformed(err)
    # Before any schema: jsonschema would quote the string back, and no
    # database takes it. UTF-8 text holds no surrogate: only a \u escape
    # makes one.
    problem = surrogate_problem(document) if '\\u' in text else None
    if problem is not None:
        raise refusals.surrogate(problem)
    return document


def read_json(request, schema):
    """The request's JSON document, valid for ``schema``.

    :raises webob.exc.HTTPUnsupportedMediaType: not application/json, or
        a charset other than UTF-8.
    :raises webob.exc.HTTPBadRequest: what is wrong with the document.
    """
    document = parse_json(request, _REFUSALS)
    validator = jsonschema.Draft202012Validator(
        schema, format_checker=_FORMAT_CHECKER)
    error = jsonschema.exceptions.best_match(validator.iter_errors(document))
    if error is not None:
        where = '/'.join(str(part) for part in error.absolute_path)
        raise _bad('Invalid request body%s: %s.' % (
            ' at %s' % where if where else '', error.message))
    return document
