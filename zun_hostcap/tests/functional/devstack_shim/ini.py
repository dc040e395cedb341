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

"""The ini helpers of the DevStack test shim: set, get, delete an option.

DevStack's own (``iniset`` and friends in its functions) edit the file in
place with sed; these do the same edits, line by line, leaving every
other line, comment and order as it was::

    python ini.py set FILE SECTION OPTION VALUE   # file made if missing
    python ini.py get FILE SECTION OPTION         # prints the value
    python ini.py delete FILE SECTION OPTION
"""

import os
import re
import sys

SECTION = re.compile(r'^\s*\[([^\]]+)\]\s*$')


def _option(line):
    """The option a line sets, or None (comment, blank, section)."""
    if line.lstrip().startswith(('#', ';')) or SECTION.match(line):
        return None
    name, sep, _value = line.partition('=')
    return name.strip() if sep else None


def _find(lines, section, option):
    """(index of the section header or None, index of the option or None)."""
    header = found = None
    current = None
    for index, line in enumerate(lines):
        match = SECTION.match(line)
        if match:
            current = match.group(1).strip()
            if current == section and header is None:
                header = index
            continue
        if current == section and _option(line) == option:
            found = index
    return header, found


def _section_end(lines, header):
    end = header + 1
    for index in range(header + 1, len(lines)):
        if SECTION.match(lines[index]):
            break
        if lines[index].strip():
            end = index + 1
    return end


def main(argv):
    command, path, section, option = argv[:4]
    lines = []
    if os.path.exists(path):
        with open(path) as f:
            lines = f.read().splitlines()
    header, found = _find(lines, section, option)
    if command == 'get':
        if found is not None:
            print(lines[found].partition('=')[2].strip())
        return 0
    if command == 'delete':
        if found is not None:
            del lines[found]
    elif command == 'set':
        line = '%s = %s' % (option, argv[4])
        if found is not None:
            lines[found] = line
        elif header is not None:
            lines.insert(_section_end(lines, header), line)
        else:
            if lines and lines[-1].strip():
                lines.append('')
            lines += ['[%s]' % section, line]
    else:
        print('unknown command %r' % command, file=sys.stderr)
        return 2
    with open(path, 'w') as f:
        f.write('\n'.join(lines) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
