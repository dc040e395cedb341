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

"""Checks a request's query string against a JSON schema."""

import jsonschema
import webob.exc

from zun_hostcap.api import errors

_FORMAT_CHECKER = jsonschema.FormatChecker()


def _bad_query(detail):
    return webob.exc.HTTPBadRequest(detail, comment=errors.INVALID_QUERY)


def validate_query(request, schema):
    """The query parameters as a dict of strings, valid for ``schema``.

    :raises webob.exc.HTTPBadRequest: a parameter given twice, unknown, or
        with a value the schema does not allow; the message says which.
    """
    query = request.GET.dict_of_lists()
    repeated = sorted(name for name, values in query.items()
                      if len(values) > 1)
    if repeated:
        raise _bad_query('Query parameter(s) given more than once: %s.'
                         % ', '.join(repeated))
    query = {name: values[0] for name, values in query.items()}
    allowed = schema.get('properties', {})
    unknown = sorted(set(query) - set(allowed))
    if unknown and schema.get('additionalProperties') is False:
        raise _bad_query(
            'Unknown query parameter(s): %s. This request takes: %s.'
            % (', '.join(unknown), ', '.join(sorted(allowed)) or 'none'))
    validator = jsonschema.Draft202012Validator(
        schema, format_checker=_FORMAT_CHECKER)
    error = jsonschema.exceptions.best_match(validator.iter_errors(query))
    if error is not None:
        name = error.path[0] if error.path else None
        if name in allowed:
            raise _bad_query(
                'Invalid value %r for query parameter %s: it must be %s.'
                % (query[name], name, allowed[name].get('description',
                                                        'valid')))
        raise _bad_query('Invalid query string: %s' % error.message)
    return query


def capped_integer(digits, cap):
    """``int(digits)``, but at most ``cap``, however many digits it has.

    A limit of thousands of digits (which int() refuses) means "as many
    as you give", as any limit above ``cap`` does.
    """
    significant = digits.lstrip('0') or '0'
    if len(significant) > len(str(cap)):
        return cap
    return min(int(significant), cap)
