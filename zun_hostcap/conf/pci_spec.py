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

"""``[pci] device_spec``: the PCI devices of a host offered as inventory.

The option has Nova's name and format, so that an operator's Nova
configuration carries over: each value is a JSON object, or a JSON list
of them, and a device is offered when a spec matches it; the first spec
that matches it says how. A spec matches by

- ``vendor_id``, ``product_id``: four hex digits, or ``*`` (any);
- ``address``: a string ``[[domain:]bus:]slot[.function]`` whose parts
  are hex or ``*``, a part left out being any (``*:0a:00.*``,
  ``0000:af:00.1``); or an object of regular expressions, each matched
  against the whole of that part (``{"bus": "0[23]", "function":
  "[0-3]"}``);
- ``devname``: the name of a network interface of the device (not with
  ``address``).

A spec with none of them matches every device. ``resource_class``
names the class of the devices it matches (``CUSTOM_`` is added to a
name that is not a standard class; the default is
``CUSTOM_PCI_<VENDOR>_<PRODUCT>``) and ``traits``, a comma-separated
string, the traits they bring (``CUSTOM_`` is added likewise). Nova's
other keys (``physical_network``...) say how a guest uses a device and
are accepted and ignored; any other key is an error.

With no spec, the default, no device is offered. Everything here is
plain data: the option's type refuses a bad spec when the configuration
is read, in one line.
"""

import collections
import json
import re

import os_resource_classes
import os_traits
from oslo_config import types

MATCH_KEYS = ('vendor_id', 'product_id', 'address', 'devname')
PLACEMENT_KEYS = ('resource_class', 'traits')
# Nova's keys for a guest's use of a device: meaningless for a
# container host, accepted so that Nova's specs carry over.
IGNORED_KEYS = ('physical_network', 'remote_managed', 'trusted', 'managed',
                'live_migratable', 'one_time_use')
# The classes of the host's own CPUs, memory and disk.
HOST_CLASSES = ('VCPU', 'MEMORY_MB', 'DISK_GB')

ANY = '*'
_HEX = re.compile(r'^[0-9a-fA-F]+$')
# Part of a PCI address -> the largest value it can have.
_ADDRESS_PARTS = (('domain', 0xFFFF), ('bus', 0xFF), ('slot', 0x1F),
                  ('function', 0x7))
_DEVICE_ADDRESS = re.compile(
    r'^(?P<domain>[0-9a-f]{4,8}):(?P<bus>[0-9a-f]{2}):(?P<slot>[0-9a-f]{2})'
    r'\.(?P<function>[0-7])$')
_NAME_INVALID = re.compile(r'[^A-Z0-9_]')
_NAME_MAX = 255


class SpecError(ValueError):
    """A spec that cannot be used; the message says which part and why."""


def pci_class(vendor_id, product_id):
    """The custom resource class of a PCI device of that vendor, product."""
    return 'CUSTOM_PCI_%s_%s' % (vendor_id.upper(), product_id.upper())


def _custom_name(name, standard, what):
    """``name`` as Placement takes it: a standard one, or CUSTOM_..."""
    if not isinstance(name, str) or not name.strip():
        raise SpecError('%s %s is not a name' % (what, json.dumps(name)))
    upper = name.strip().upper()
    if upper in standard:
        return upper
    upper = _NAME_INVALID.sub('_', upper)
    if not upper.startswith('CUSTOM_'):
        upper = 'CUSTOM_' + upper
    if len(upper) > _NAME_MAX:
        raise SpecError('%s %s is longer than %d characters' % (
            what, json.dumps(name), _NAME_MAX))
    return upper


def _hex_id(spec, key):
    value = spec.get(key, ANY)
    if not isinstance(value, str):
        raise SpecError('%s %s is not a string' % (key, json.dumps(value)))
    value = value.strip()
    if value == ANY:
        return None
    if not _HEX.match(value) or int(value, 16) > 0xFFFF:
        raise SpecError('%s %s is not four hex digits or "*"' % (
            key, json.dumps(value)))
    return int(value, 16)


def _glob_address(text):
    """{part: int or None (any)} of a string address."""
    head, dot, function = text.strip().partition('.')
    parts = head.split(':')
    if len(parts) > 3 or (dot and '.' in function):
        raise SpecError('address %s is not [[domain:]bus:]slot[.function]'
                        % json.dumps(text))
    parts = [ANY] * (3 - len(parts)) + parts + [function if dot else ANY]
    values = {}
    for (name, largest), value in zip(_ADDRESS_PARTS, parts):
        value = value.strip()
        if value in ('', ANY):
            values[name] = None
            continue
        if not _HEX.match(value) or int(value, 16) > largest:
            raise SpecError('address %s: %s %s is not hex up to %x or "*"'
                            % (json.dumps(text), name, json.dumps(value),
                               largest))
        values[name] = int(value, 16)
    return values


def _regex_address(address):
    """{part: compiled regex} of an address object."""
    names = [name for name, _largest in _ADDRESS_PARTS]
    unknown = sorted(set(address) - set(names))
    if unknown:
        raise SpecError('address has %s; expected only %s' % (
            ', '.join(unknown), ', '.join(names)))
    patterns = {}
    for name in names:
        pattern = address.get(name, '.*')
        if not isinstance(pattern, str):
            raise SpecError('address %s %s is not a string' % (
                name, json.dumps(pattern)))
        try:
            patterns[name] = re.compile(pattern)
        except re.error as err:
            raise SpecError('address %s %s is not a regular expression: %s'
                            % (name, json.dumps(pattern), err))
    return patterns


def _device_address(address):
    """{part: text} of a device's address; None if it is not one."""
    match = _DEVICE_ADDRESS.match((address or '').lower())
    return match.groupdict() if match else None


class DeviceSpec(object):
    """One spec of ``[pci] device_spec``: which devices, and as what."""

    def __init__(self, spec):
        """:raises SpecError: naming the key at fault and why."""
        if not isinstance(spec, dict):
            raise SpecError('%s is not a JSON object' % json.dumps(spec))
        known = MATCH_KEYS + PLACEMENT_KEYS + IGNORED_KEYS
        unknown = sorted(set(spec) - set(known))
        if unknown:
            raise SpecError('unknown key %s; expected %s' % (
                ', '.join(json.dumps(key) for key in unknown),
                ', '.join(MATCH_KEYS + PLACEMENT_KEYS)))
        if 'address' in spec and 'devname' in spec:
            raise SpecError('address and devname cannot both be given')
        self.vendor_id = _hex_id(spec, 'vendor_id')
        self.product_id = _hex_id(spec, 'product_id')
        self._glob = self._regex = None
        address = spec.get('address')
        if isinstance(address, str):
            self._glob = _glob_address(address)
        elif isinstance(address, dict):
            self._regex = _regex_address(address)
        elif address is not None:
            raise SpecError('address %s is not a string or an object'
                            % json.dumps(address))
        self.devname = spec.get('devname')
        if self.devname is not None and (
                not isinstance(self.devname, str) or not self.devname):
            raise SpecError('devname %s is not an interface name'
                            % json.dumps(self.devname))
        self.resource_class = None
        if 'resource_class' in spec:
            self.resource_class = _custom_name(
                spec['resource_class'], os_resource_classes.STANDARDS,
                'resource_class')
            if self.resource_class in HOST_CLASSES:
                raise SpecError('resource_class %s is the host\'s own; '
                                'expected a class of PCI devices'
                                % self.resource_class)
        traits = spec.get('traits', '')
        if not isinstance(traits, str):
            raise SpecError('traits %s is not a comma-separated string'
                            % json.dumps(traits))
        standard = set(os_traits.get_traits())
        self.traits = frozenset(
            _custom_name(name, standard, 'trait')
            for name in traits.split(',') if name.strip())
        self.source = spec

    def __repr__(self):
        return json.dumps(self.source, sort_keys=True)

    def __eq__(self, other):
        return (isinstance(other, DeviceSpec) and
                self.source == other.source)

    def __hash__(self):
        return hash(repr(self))

    def matches(self, device):
        """Whether ``device`` (address, vendor_id, product_id, netdevs)."""
        for wanted, have in ((self.vendor_id, device.vendor_id),
                             (self.product_id, device.product_id)):
            if wanted is not None and (
                    not _HEX.match(have or '') or int(have, 16) != wanted):
                return False
        if self.devname is not None and self.devname not in getattr(
                device, 'netdevs', ()):
            return False
        if self._glob is None and self._regex is None:
            return True
        parts = _device_address(device.address)
        if parts is None:
            return False
        if self._glob is not None:
            return all(wanted is None or int(parts[name], 16) == wanted
                       for name, wanted in self._glob.items())
        return all(pattern.fullmatch(parts[name])
                   for name, pattern in self._regex.items())

    def resource_class_of(self, device):
        """The resource class ``device`` is offered as."""
        return self.resource_class or pci_class(device.vendor_id,
                                                device.product_id)


def parse(text):
    """The DeviceSpecs of one value of the option (object or list)."""
    try:
        data = json.loads(text)
    except ValueError as err:
        raise SpecError('not JSON: %s' % err)
    items = data if isinstance(data, list) else [data]
    if not items:
        raise SpecError('an empty list; expected a JSON object or a list '
                        'of them')
    return tuple(DeviceSpec(item) for item in items)


class DeviceSpecType(types.ConfigType):
    """The oslo.config type of one value of ``[pci] device_spec``."""

    def __init__(self):
        super().__init__('JSON device spec')

    def __call__(self, value):
        if isinstance(value, list):
            # The whole option's value (oslo.config checks the default so).
            return [self(item) for item in value]
        if isinstance(value, tuple) and all(
                isinstance(spec, DeviceSpec) for spec in value):
            return value
        return parse(value)

    def _formatter(self, value):
        if isinstance(value, str):
            return value
        return json.dumps([spec.source for spec in value])

    def __eq__(self, other):
        return isinstance(other, DeviceSpecType)


def flatten(values):
    """The DeviceSpecs of the option's values, in their order."""
    return [spec for specs in values or () for spec in specs]


def offered(devices, specs):
    """What ``specs`` offer of ``devices``.

    :returns: ({resource class: number of devices}, {trait}), the traits
        those of the specs that matched a device.
    """
    counts = collections.Counter()
    traits = set()
    for device in devices:
        for spec in specs:
            if spec.matches(device):
                counts[spec.resource_class_of(device)] += 1
                traits |= spec.traits
                break
    return dict(counts), traits


def owned_traits(specs):
    """Every trait the specs may give: the reporter's to add or remove."""
    return set().union(*(spec.traits for spec in specs))
