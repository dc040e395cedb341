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

"""Read the CPU model name and flags from /proc/cpuinfo.

lscpu takes both from the first processor, and so do we. Known
differences from lscpu:

* x86: none known ("model name" and "flags").
* aarch64: /proc/cpuinfo has no model name, only "CPU implementer" and
  "CPU part" ids; lscpu (util-linux >= 2.3x) maps those to names from its
  own table. We map the Arm Ltd parts in ``ARM_PARTS`` only, so for other
  parts (and for older lscpu, which prints no name) the two paths differ.
  The flags are the "Features" line, as lscpu prints them.
* Other architectures (ppc64le "cpu", s390x ...) are not mapped: model
  name None and no flags.
"""

# Arm Ltd (implementer 0x41) part numbers from the Arm technical reference
# manuals, for the cores commonly found in servers and boards.
ARM_IMPLEMENTER = '0x41'
ARM_PARTS = {
    '0xd03': 'Cortex-A53',
    '0xd05': 'Cortex-A55',
    '0xd07': 'Cortex-A57',
    '0xd08': 'Cortex-A72',
    '0xd0b': 'Cortex-A76',
    '0xd0c': 'Neoverse-N1',
    '0xd40': 'Neoverse-V1',
    '0xd49': 'Neoverse-N2',
    '0xd4f': 'Neoverse-V2',
}


def parse_cpuinfo(text):
    """Return ``(model_name, flags)`` from /proc/cpuinfo text.

    ``model_name`` is None when not known; ``flags`` is a sorted tuple.
    """
    # First occurrence of each key: the first processor's block on x86 and
    # current arm64, and also right for old arm64 kernels that printed
    # Features/CPU part once, after a list of "processor" lines.
    first = {}
    for line in text.splitlines():
        key, sep, value = line.partition(':')
        if sep:
            first.setdefault(key.strip(), value.strip())
    model_name = first.get('model name') or None
    if model_name is None and first.get('CPU implementer') == ARM_IMPLEMENTER:
        model_name = ARM_PARTS.get(first.get('CPU part', '').lower())
    flags = first.get('flags', first.get('Features', '')).split()
    return model_name, tuple(sorted(set(flags)))
