#!/usr/bin/env python3
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

"""Write the role matrix of the docs from the test's data.

The table of who may call which route (doc/source/admin/role-matrix.inc)
is generated from ``zun_hostcap/tests/role_matrix.py``, the data the
functional test checks with real Keystone tokens against this service
and openstack-placement::

    python tools/role_matrix_doc.py           # write the file
    python tools/role_matrix_doc.py --check   # exit 1 if it is stale

A unit test runs the same check.
"""

import argparse
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
from zun_hostcap.tests import role_matrix  # noqa: E402

DOC = os.path.join(REPO, 'doc', 'source', 'admin', 'role-matrix.inc')


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--check', action='store_true',
                        help='only check that the file is up to date')
    args = parser.parse_args(argv)
    text = role_matrix.render()
    if args.check:
        try:
            with open(DOC) as f:
                current = f.read()
        except FileNotFoundError:
            current = None
        if current != text:
            print('%s is not up to date: run %s' % (
                os.path.relpath(DOC, REPO), os.path.relpath(__file__, REPO)))
            return 1
        return 0
    with open(DOC, 'w') as f:
        f.write(text)
    print('wrote %s' % os.path.relpath(DOC, REPO))
    return 0


if __name__ == '__main__':
    sys.exit(main())
