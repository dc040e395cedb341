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

"""Give stestr an estimated duration for each test it has never timed.

stestr shares the tests between its workers by their durations in its
repository (``.stestr``): the longest groups first, each to the worker with
the least work (``stestr.scheduler.partition_tests``). A test it has never
timed is dealt in turn, worker by worker, in the order of the test list: on
a fresh clone (CI) the functional tests are all untimed, and the slow
classes (a Galera cluster, Keystone, the upgrade) fell where the alphabet
put them: one worker ran 20 minutes, the other 12.

This script finds the test methods under ``--test-path`` (reading the
source, without importing it: a second), asks the repository which it has
timed, and loads a run of estimates for the others (``stestr load``): a
duration by name pattern, ``ESTIMATES`` below, first match wins. Tests
made at load time (gabbi's, one per YAML step) are left untimed: they take
milliseconds, and stestr keeps each YAML file on one worker. The real
durations replace the estimates as soon as a run records them, so a
developer's repository keeps its own. A new slow test
module gets its line in ``ESTIMATES``; its name is enough.

    python tools/stestr_timing_hint.py \
        --test-path ./zun_hostcap/tests/functional
"""

import argparse
import ast
import datetime
import io
import os
import re
import subprocess
import sys

# (pattern of a test id, estimated seconds per test). The order matters:
# the first match wins. Measured on 2 cores, rounded up.
ESTIMATES = (
    # Clusters and whole deployments: minutes each.
    (r'\.test_devstack_plugin\.', 200),
    (r'\.test_keystone_roles\.', 130),
    (r'\.test_candidates_differential\..*(MySQL|PostgreSQL)\.', 60),
    (r'\.test_candidates_differential\.', 150),
    (r'\.test_upgrade\.', 120),
    (r'\.test_cloud\.', 60),
    (r'\.test_fleet\.TestFleetSimulator\.', 140),
    (r'\.test_fleet\.', 25),
    (r'\.test_bench_', 75),
    # A Keystone or a dashboard of their own, per test.
    (r'\.test_keystone\.', 15),
    (r'\.test_dashboard\.', 15),
    # Processes of ours, started per test.
    (r'\.test_placement_peers\.', 20),
    (r'\.test_placement_echoes\.', 25),
    (r'\.test_log_injection\.', 25),
    (r'\.test_placement_clients\.', 15),
    (r'\.test_placement_notifications\.', 20),
    (r'\.test_compute_conductor\.', 20),
    (r'\.test_faults\.', 30),
    (r'\.test_schemathesis\.', 60),
    # One request each, in files that share a server.
    (r'\.test_gabbits\.|\.test_placement_backends_gabbits\.', 0.1),
    (r'\.test_placement_backends\.', 2),
)
# Any other functional test: a process or two of its own.
DEFAULT_ESTIMATE = 10


def estimate(test_id):
    """Estimated seconds of ``test_id``."""
    for pattern, seconds in ESTIMATES:
        if re.search(pattern, test_id):
            return seconds
    return DEFAULT_ESTIMATE


def _methods(classes, name, seen=()):
    """Test methods of class ``name``, with those of its bases here."""
    node = classes.get(name)
    if node is None or name in seen:
        return set()
    found = {item.name for item in node.body
             if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
             and item.name.startswith('test')}
    for base in node.bases:
        if isinstance(base, ast.Name):
            found |= _methods(classes, base.id, seen + (name,))
    return found


def test_ids(test_path):
    """unittest's ids of the test methods under ``test_path``."""
    ids = []
    top = os.path.abspath('.')
    for root, _dirs, files in os.walk(test_path):
        for filename in sorted(files):
            if not (filename.startswith('test') and
                    filename.endswith('.py')):
                continue
            path = os.path.join(root, filename)
            module = os.path.relpath(path, top)[:-3].replace(os.sep, '.')
            with open(path) as f:
                tree = ast.parse(f.read(), path)
            classes = {node.name: node for node in tree.body
                       if isinstance(node, ast.ClassDef)}
            # The test classes (mixins are named otherwise).
            for name in (name for name in classes
                         if name.startswith('Test')):
                ids.extend('%s.%s.%s' % (module, name, method)
                           for method in sorted(_methods(classes, name)))
    return ids


def _stestr(*args, **kwargs):
    return subprocess.run([sys.executable, '-m', 'stestr'] + list(args),
                          check=True, **kwargs)


def untimed(test_ids, top_dir='.'):
    """The tests of ``test_ids`` the repository has no duration for."""
    from stestr.repository import util
    try:
        repo = util.get_repo_open(repo_url=top_dir)
    except Exception:
        # No repository yet: nothing is timed.
        return list(test_ids)
    return sorted(repo.get_test_times(test_ids)['unknown'])


def estimates_stream(test_ids):
    """A subunit v2 stream: each test a success of its estimated time."""
    import subunit
    output = io.BytesIO()
    stream = subunit.StreamResultToBytes(output)
    start = datetime.datetime(2000, 1, 1, tzinfo=datetime.timezone.utc)
    for test_id in test_ids:
        stream.status(test_id=test_id, test_status='inprogress',
                      timestamp=start)
        stream.status(test_id=test_id, test_status='success',
                      timestamp=start + datetime.timedelta(
                          seconds=estimate(test_id)))
    return output.getvalue()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--test-path', required=True)
    args = parser.parse_args(argv)
    listed = test_ids(args.test_path)
    missing = untimed(listed)
    if not missing:
        print('stestr knows the duration of all %d tests' % len(listed))
        return 0
    _stestr('load', '--force-init',
            input=estimates_stream(missing), capture_output=True)
    print('stestr: estimated durations for %d of %d tests (%d s in all)'
          % (len(missing), len(listed),
             sum(estimate(test_id) for test_id in missing)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
