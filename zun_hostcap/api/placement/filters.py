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

"""The filter values of provider queries, as Placement spells them.

GET /resource_providers and GET /allocation_candidates (for each of its
request groups, named by a suffix) take the same values:

- ``resources=VCPU:2,DISK_GB:10``;
- ``required=HW_CPU_X86_AVX,!CUSTOM_SLOW`` (forbidden traits from 1.22),
  ``required=in:A,B`` (any of, from 1.39, when the key may also repeat);
- ``member_of=<uuid>``, ``member_of=in:<uuid>,<uuid>``, repeated from
  1.24, ``!<uuid>`` and ``!in:...`` (none of) from 1.32;
- ``in_tree=<uuid>``.

A malformed value is a 400 whose detail is Placement's.
"""

from oslo_utils import uuidutils

from zun_hostcap.api.placement import errors
from zun_hostcap.api.placement import microversion
from zun_hostcap.api.placement import util
from zun_hostcap.common import placement_codes as codes

_RESOURCES_FORM = ('Badly formed resources parameter. Expected resources '
                   'query string parameter in form: '
                   '?resources=VCPU:2,MEMORY_MB:1024. Got: %s.')


def parse_resources(value):
    """'VCPU:2,DISK_GB:10' as {'VCPU': 2, 'DISK_GB': 10}."""
    if value.strip() == '':
        raise errors.error(400, _RESOURCES_FORM % 'empty string')
    result = {}
    for item in value.split(','):
        try:
            name, amount = item.split(':')
        except ValueError:
            raise errors.error(400, _RESOURCES_FORM % item)
        try:
            amount = int(amount)
        except ValueError:
            raise errors.error(
                400, 'Requested resource %s expected positive integer '
                     'amount. Got: %s.' % (name, amount))
        if amount < 1:
            raise errors.error(
                400, 'Requested resource %s requires amount >= 1. Got: '
                     '%d.' % (name, amount))
        result[name] = amount
    return result


def _parse_member_of(value):
    """One member_of value: (any-of set, forbidden set)."""
    if ',' in value and not value.startswith(('in:', '!in:')):
        raise errors.error(
            400, "Multiple values for 'member_of' must be prefixed with "
                 "the 'in:' or '!in:' keyword using the valid "
                 "microversion. Got: %s" % value)
    required = forbidden = set()
    if value.startswith('!in:'):
        forbidden = set(value[4:].split(','))
    elif value.startswith('!'):
        forbidden = {value[1:]}
    elif value.startswith('in:'):
        required = set(value[3:].split(','))
    else:
        required = {value}
    for agg in sorted(required | forbidden):
        if not uuidutils.is_uuid_like(agg):
            raise errors.error(
                400, "Invalid query string parameters: Expected "
                     "'member_of' parameter to contain valid UUID(s). "
                     "Got: %s" % agg)
    return ({util.canonical_uuid(agg) for agg in required},
            {util.canonical_uuid(agg) for agg in forbidden})


def parse_member_of(req, values, suffix=''):
    """All member_of<suffix> values: ([any-of set, ...], forbidden set)."""
    if len(values) > 1 and not util.at_least(
            req, microversion.MULTIPLE_MEMBER_OF):
        raise errors.error(400, 'Multiple member_of%s parameters are not '
                                'supported' % suffix)
    required, forbidden = [], set()
    for value in values:
        any_of, none_of = _parse_member_of(value)
        if any_of:
            required.append(any_of)
        if none_of:
            if not util.at_least(req, microversion.FORBIDDEN_AGGREGATES):
                raise errors.error(
                    400, 'Forbidden member_of%s parameters are not '
                         'supported in the specified microversion' % suffix)
            forbidden |= none_of
    return required, forbidden


def _parse_required(req, value, allow_any_of=True):
    """One required value: ([any-of set, ...], forbidden set)."""
    allow_forbidden = util.at_least(req, microversion.FORBIDDEN_TRAITS)
    if value.startswith('in:'):
        if not (allow_any_of and
                util.at_least(req, microversion.ANY_TRAITS)):
            raise errors.error(
                400, "Invalid query string parameters: The format "
                     "'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' only supported "
                     "since microversion 1.39. Got: %s" % value)
        any_of = {name.strip() for name in value[3:].split(',')}
        if not all(any_of):
            raise errors.error(
                400, "Invalid query string parameters: Expected "
                     "'required' parameter value of the form: "
                     "in:HW_CPU_X86_VMX,CUSTOM_MAGIC. Got an empty trait "
                     "in: %s" % value)
        if any(name.startswith('!') for name in any_of):
            raise errors.error(
                400, "Invalid query string parameters: The format "
                     "'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' does not support "
                     "forbidden traits. Got: %s" % value)
        return [any_of], set()
    names = [name.strip() for name in value.split(',')]
    forbidden = {name.lstrip('!') for name in names if name.startswith('!')}
    if not all(names) or not all(forbidden):
        form = ('HW_CPU_X86_VMX,!CUSTOM_MAGIC' if allow_forbidden
                else 'HW_CPU_X86_VMX,CUSTOM_MAGIC')
        raise errors.error(
            400, "Invalid query string parameters: Expected 'required' "
                 "parameter value of the form: %s. Got an empty trait in: "
                 "%s" % (form, value))
    if forbidden and not allow_forbidden:
        raise errors.error(
            400, "Invalid query string parameters: Expected 'required' "
                 "parameter value of the form: HW_CPU_X86_VMX,"
                 "CUSTOM_MAGIC. Got: %s" % value)
    return [{name} for name in names if not name.startswith('!')], forbidden


def parse_required(req, values):
    """All required values: ([any-of set, ...], forbidden set).

    Before 1.39 only the last of repeated values counts, as in
    Placement; from 1.39 they are ANDed.
    """
    if not util.at_least(req, microversion.ANY_TRAITS):
        values = values[-1:]
    required, forbidden = [], set()
    for value in values:
        any_of, none_of = _parse_required(req, value)
        required += any_of
        forbidden |= none_of
    return required, forbidden


def parse_root_required(req, value):
    """root_required: (required set, forbidden set), no any-of form."""
    any_of_sets, forbidden = _parse_required(req, value, allow_any_of=False)
    required = set().union(*any_of_sets)
    conflicts = required & forbidden
    if conflicts:
        raise errors.error(
            400, 'Conflicting required and forbidden traits found in '
                 'root_required: %s' % ', '.join(sorted(conflicts)),
            codes.QUERY_BAD_VALUE)
    return required, forbidden


def parse_in_tree(value):
    """in_tree: a provider uuid."""
    uuid = value.strip()
    if not uuidutils.is_uuid_like(uuid):
        raise errors.error(
            400, "Invalid query string parameters: Expected 'in_tree' "
                 "parameter to be a format of uuid. Got: %s" % value)
    return util.canonical_uuid(uuid)
