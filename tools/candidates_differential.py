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

"""The differential test of GET /allocation_candidates, as long as asked.

Runs the functional test
``zun_hostcap.tests.functional.test_candidates_differential`` (ours,
OpenStack Placement and a brute-force reference, on generated forests
and requests; see its docstring) with ``--examples`` forests instead of
CI's, without the test time-out, then prints its figures: forests,
requests, answers alike, Placement's known differences by kind, time.
With ``--engines``, ours on each engine named in turn (SQLite by
default; MariaDB and PostgreSQL are oslo.db's opportunistic databases).

Usage (with the Python of the functional tox environment, where
openstack-placement's virtualenv was made by ``tools/placement_peer.py
install``)::

    .tox/functional/bin/python tools/candidates_differential.py \\
        --examples 3000 [--seed N | --seed random] \\
        [--engines sqlite,mysql,postgresql]

A difference that is neither of the reference's nor a known one of
Placement's ends the run: hypothesis shrinks it and prints it, with the
forest, the query and the three answers. Exits 1 then.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TEST = 'zun_hostcap.tests.functional.test_candidates_differential'
# The test case of ours on each engine.
CASES = {'sqlite': 'TestCandidatesDifferential',
         'mysql': 'TestCandidatesDifferentialMySQL',
         'postgresql': 'TestCandidatesDifferentialPostgreSQL'}


def engine_list(text):
    engines = [name.strip() for name in text.split(',') if name.strip()]
    unknown = set(engines) - set(CASES)
    if not engines or unknown:
        raise argparse.ArgumentTypeError(
            'of %s, comma-separated' % ', '.join(CASES))
    return engines


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--examples', type=int, default=1000,
                        help='forests to generate (default %(default)s)')
    parser.add_argument('--seed', default='random',
                        help="hypothesis's seed: a number, or 'random' "
                        '(default)')
    parser.add_argument('--progress', type=int, default=100,
                        help='print the figures so far every so many '
                        'forests (default %(default)s; 0: never)')
    parser.add_argument('--engines', type=engine_list, default=['sqlite'],
                        help='ours on each of %s in turn (comma-separated; '
                        'default sqlite)' % ', '.join(CASES))
    args = parser.parse_args(argv)
    if args.seed != 'random':
        int(args.seed)
    failed = False
    for engine in args.engines:
        failed = not _run(engine, args) or failed
    return 1 if failed else 0


def _run(engine, args):
    """The test with ours on ``engine``, its figures printed; passed?"""
    with tempfile.TemporaryDirectory() as tmp:
        summary = os.path.join(tmp, 'figures.json')
        env = dict(os.environ,
                   ZUN_HOSTCAP_TEST_CANDIDATES_EXAMPLES=str(args.examples),
                   ZUN_HOSTCAP_TEST_CANDIDATES_ENGINE_EXAMPLES=str(
                       args.examples),
                   ZUN_HOSTCAP_TEST_CANDIDATES_SEED=args.seed,
                   ZUN_HOSTCAP_TEST_CANDIDATES_SUMMARY=summary,
                   ZUN_HOSTCAP_TEST_CANDIDATES_PROGRESS=str(args.progress),
                   # No time-out of the test: the run is as long as asked.
                   OS_TEST_TIMEOUT='0')
        result = subprocess.run(
            [sys.executable, '-m', 'testtools.run',
             '%s.%s' % (TEST, CASES[engine])], cwd=REPO, env=env)
        if os.path.exists(summary):
            with open(summary) as f:
                figures = json.load(f)
            figures['engine'] = engine
            print(json.dumps(figures, indent=1, sort_keys=True))
    return result.returncode == 0


if __name__ == '__main__':
    sys.exit(main())
