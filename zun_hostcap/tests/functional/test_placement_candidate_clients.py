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

"""Allocation candidates through Placement's clients, ours beside Placement.

The same providers (same uuids) are loaded into this project's
/placement (zun-hostcap-api, SQLite) and into OpenStack Placement from
PyPI (``tools/placement_peer.py``); then osc-placement's ``openstack
allocation candidate list`` and openstacksdk's
``placement.allocation_candidates()`` ask both the same questions. The
answers must be the same candidates, in any order: the command's rows
grouped by candidate, each row's classes and traits sorted.

The CLI is run at the version it negotiates (1.29, its highest without a
gap: --resource, --required, --forbidden, --member-of, --aggregate-uuid,
--group, --group-policy, --limit) and pinned to 1.10 (allocations as a
list, no traits), 1.24 (--member-of repeated, --forbidden), 1.25
(--group, one provider a tree) and 1.39 (--required A,B: any of; a word
suffix). With --limit the providers chosen may differ: both answer as
many candidates, each one of the unlimited answer.
"""

import concurrent.futures
import json
import os
import subprocess
import sys

import fixtures
from keystoneauth1 import session as ks_session
from keystoneauth1 import token_endpoint
from openstack import connection
from oslotest import base

from zun_hostcap.tests.functional import base as functional_base
from zun_hostcap.tests.functional import test_placement_peers as peers

LATEST = '1.39'
VERSION = 'placement %s' % LATEST

# Trees: two computes with SR-IOV physical functions (CUSTOM_VF), a
# third with local disk, a storage pool shared through aggregate A.
CN1 = 'c0a80001-0000-4000-8000-000000000001'
CN1_PF1 = 'c0a80001-0000-4000-8000-000000000011'
CN1_PF2 = 'c0a80001-0000-4000-8000-000000000012'
CN2 = 'c0a80001-0000-4000-8000-000000000002'
CN2_PF1 = 'c0a80001-0000-4000-8000-000000000021'
CN3 = 'c0a80001-0000-4000-8000-000000000003'
POOL = 'c0a80001-0000-4000-8000-0000000000f0'
AGG_A = 'a99a0001-0000-4000-8000-00000000000a'
AGG_B = 'a99a0001-0000-4000-8000-00000000000b'
CONSUMER = 'c0c0c0c0-0000-4000-8000-000000000001'

PROVIDERS = (
    # uuid, parent, inventories, traits, aggregates
    (CN1, None, {'VCPU': {'total': 16},
                 'MEMORY_MB': {'total': 8192, 'reserved': 512}},
     ['HW_CPU_X86_AVX2', 'CUSTOM_GOLD'], [AGG_A]),
    (CN1_PF1, CN1, {'CUSTOM_VF': {'total': 4}}, ['CUSTOM_PHYSNET_A'], []),
    (CN1_PF2, CN1, {'CUSTOM_VF': {'total': 4}}, ['CUSTOM_PHYSNET_B'], []),
    (CN2, None, {'VCPU': {'total': 8, 'allocation_ratio': 2.0},
                 'MEMORY_MB': {'total': 4096},
                 'DISK_GB': {'total': 200}},
     ['HW_CPU_X86_SSE42'], [AGG_B]),
    (CN2_PF1, CN2, {'CUSTOM_VF': {'total': 2}}, ['CUSTOM_PHYSNET_A'], []),
    (CN3, None, {'VCPU': {'total': 32}, 'MEMORY_MB': {'total': 16384},
                 'DISK_GB': {'total': 50}},
     ['HW_CPU_X86_AVX2', 'COMPUTE_VOLUME_MULTI_ATTACH'], [AGG_A, AGG_B]),
    (POOL, None, {'DISK_GB': {'total': 1000, 'reserved': 100,
                              'min_unit': 10, 'step_size': 10}},
     ['MISC_SHARES_VIA_AGGREGATE'], [AGG_A]),
)
# What is used already: CN2 has 3 of its 16 VCPU left.
ALLOCATIONS = {CN2: {'resources': {'VCPU': 13, 'MEMORY_MB': 1024}},
               CN2_PF1: {'resources': {'CUSTOM_VF': 1}}}

# (CLI arguments, microversion or None to negotiate). Each case runs on
# both servers. A --limit case is checked against the case with the
# same arguments but the limit, at the same version.
CLI_CASES = (
    (['--resource', 'VCPU=1', '--resource', 'MEMORY_MB=512'], None),
    (['--resource', 'VCPU=1', '--resource', 'MEMORY_MB=512', '--limit',
      '2'], None),
    # Disk of the compute or of the pool it shares.
    (['--resource', 'VCPU=2', '--resource', 'DISK_GB=20',
      '--aggregate-uuid', AGG_A], None),
    (['--resource', 'VCPU=1', '--required', 'HW_CPU_X86_AVX2',
      '--forbidden', 'CUSTOM_GOLD', '--member-of', '%s,%s' % (AGG_A, AGG_B),
      '--member-of', AGG_B], None),
    # One VF of physnet A and one more, from another PF.
    (['--resource', 'VCPU=1', '--group', '1', '--resource', 'CUSTOM_VF=1',
      '--required', 'CUSTOM_PHYSNET_A', '--group', '2', '--resource',
      'CUSTOM_VF=1', '--group-policy', 'isolate'], None),
    (['--resource', 'VCPU=1', '--resource', 'DISK_GB=10'], '1.10'),
    (['--resource', 'DISK_GB=10', '--member-of', AGG_A, '--member-of',
      '%s,%s' % (AGG_A, AGG_B), '--forbidden', 'HW_CPU_X86_SSE42'],
     '1.24'),
    # Below 1.29 a tree gives one provider: its root here.
    (['--group', '1', '--resource', 'VCPU=1', '--group', '2', '--resource',
      'MEMORY_MB=512', '--group-policy', 'none'], '1.25'),
    # Any of two traits (1.39); a word for a suffix (1.33): osc-placement
    # takes one character (its --group unpacks the value).
    (['--resource', 'VCPU=1', '--required',
      'HW_CPU_X86_AVX2,HW_CPU_X86_SSE42', '--group', 'N', '--resource',
      'CUSTOM_VF=1', '--required', 'CUSTOM_PHYSNET_A,CUSTOM_PHYSNET_B',
      '--group-policy', 'none'], '1.39'),
)

# Refused: an unknown trait by the server (Placement's 400), a forbidden
# trait below 1.22 by osc-placement itself.
REFUSED_CLI_CASES = (
    (['--resource', 'VCPU=1', '--required', 'CUSTOM_NOBODY'], '1.17'),
    (['--resource', 'VCPU=1', '--forbidden', 'CUSTOM_GOLD'], '1.21'),
)

# The same questions through openstacksdk (query parameters).
SDK_CASES = (
    {'resources': 'VCPU:1,MEMORY_MB:512'},
    {'resources': 'VCPU:2,DISK_GB:20', 'member_of': 'in:%s,%s'
     % (AGG_A, AGG_B)},
    {'resources': 'VCPU:1', 'required': 'HW_CPU_X86_AVX2,!CUSTOM_GOLD'},
    {'resources': 'VCPU:1', 'resources_NIC': 'CUSTOM_VF:1',
     'required_NIC': 'CUSTOM_PHYSNET_A', 'resources_NIC2': 'CUSTOM_VF:1',
     'group_policy': 'isolate'},
    {'resources': 'VCPU:1', 'limit': 1},
)


def _session():
    return ks_session.Session(auth=token_endpoint.Token(None, 'admin'))


def load(url):
    """PROVIDERS and ALLOCATIONS into the Placement at ``url``."""
    sess = _session()

    def send(method, path, body=None):
        return sess.request(url + path, method, json=body,
                            headers={'OpenStack-API-Version': VERSION},
                            raise_exc=True)

    for name in ('CUSTOM_GOLD', 'CUSTOM_PHYSNET_A', 'CUSTOM_PHYSNET_B'):
        send('PUT', '/traits/' + name)
    send('PUT', '/resource_classes/CUSTOM_VF')
    for uuid, parent, inventories, traits, aggregates in PROVIDERS:
        path = '/resource_providers/' + uuid
        generation = send('POST', '/resource_providers', {
            'uuid': uuid, 'name': 'rp-' + uuid[-4:],
            'parent_provider_uuid': parent}).json()['generation']
        generation = send('PUT', path + '/inventories', {
            'resource_provider_generation': generation,
            'inventories': inventories}).json()[
                'resource_provider_generation']
        generation = send('PUT', path + '/traits', {
            'resource_provider_generation': generation,
            'traits': traits}).json()['resource_provider_generation']
        if aggregates:
            send('PUT', path + '/aggregates', {
                'resource_provider_generation': generation,
                'aggregates': aggregates})
    send('PUT', '/allocations/' + CONSUMER, {
        'allocations': ALLOCATIONS, 'consumer_generation': None,
        'project_id': CONSUMER, 'user_id': CONSUMER,
        'consumer_type': 'INSTANCE'})


# Runs osc's console script entry point (openstackclient.shell.main)
# for each argv of the JSON list on stdin, in this one process: the
# commands are the real CLI, without a second of start-up each. osc
# keeps each plugin's client (its endpoint and microversion) in an
# attribute of its ClientManager class for the life of the process: it
# is forgotten before each command, as a new process would start.
_OPENSTACK_COMMANDS = """
import contextlib, io, json, sys
from openstackclient.common import clientmanager
from openstackclient import shell
from osc_lib import clientmanager as osc_lib_clientmanager
results = []
for argv in json.load(sys.stdin):
    for klass in clientmanager.ClientManager.__mro__:
        for attr in vars(klass).values():
            if isinstance(attr, osc_lib_clientmanager.ClientCache):
                attr._handle = None
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = shell.main(argv)
    results.append((status, out.getvalue(), err.getvalue()))
json.dump(results, sys.__stdout__)
"""


def cli_argv(endpoint, args, version):
    """The argv of ``openstack allocation candidate list args``."""
    argv = ['--os-auth-type', 'admin_token', '--os-token', 'admin',
            '--os-endpoint', endpoint]
    if version:
        argv += ['--os-placement-api-version', version]
    return argv + ['allocation', 'candidate', 'list'] + list(args) + [
        '-f', 'json']


def openstack_commands(home, argvs):
    """[(exit status, stdout, stderr)] of ``openstack argv``, each."""
    env = {name: value for name, value in os.environ.items()
           if not name.startswith('OS_')}
    env['HOME'] = home
    result = subprocess.run(
        [sys.executable, '-c', _OPENSTACK_COMMANDS], input=json.dumps(argvs),
        capture_output=True, text=True, env=env, timeout=300)
    if result.returncode:
        raise AssertionError('the openstack commands failed (%d):\n%s' % (
            result.returncode, result.stderr[-3000:]))
    return json.loads(result.stdout)


def _sorted_list(text):
    return ','.join(sorted(text.split(','))) if text else ''


def cli_candidates(rows):
    """The rows of the command as candidates, in no order.

    A candidate: its rows (allocation, provider, usage, traits), each
    list of the row sorted; the candidates sorted.
    """
    by_number = {}
    for row in rows:
        by_number.setdefault(row['#'], []).append(tuple(
            _sorted_list(value) if name != 'resource provider' else value
            for name, value in sorted(row.items()) if name != '#'))
    return sorted(sorted(rows) for rows in by_number.values())


def sdk_candidates(candidates):
    """openstacksdk's AllocationCandidates as JSON texts, sorted.

    The providers of a group's mapping are sorted too: Placement lists
    them in the order of a set.
    """
    return sorted(json.dumps({
        'allocations': candidate.allocations,
        'mappings': {suffix: sorted(providers) for suffix, providers
                     in candidate.mappings.items()},
        'provider_summaries': {
            uuid: dict(summary, traits=sorted(summary.get('traits', ())))
            for uuid, summary in candidate.provider_summaries.items()}},
        sort_keys=True) for candidate in candidates)


class TestCandidateClients(base.BaseTestCase):
    """osc-placement and openstacksdk: ours answers as Placement."""

    def setUp(self):
        super().setUp()
        self.tmp = self.useFixture(fixtures.TempDir()).path
        # Both servers start together; each is a process of its own.
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            ours = pool.submit(peers.start_our_placement, self)
            theirs = pool.submit(peers.start_openstack_placement, self)
            self.ours, self.theirs = ours.result(), theirs.result()
            for loaded in [pool.submit(load, self.ours),
                           pool.submit(load, self.theirs)]:
                loaded.result()

    def test_openstack_allocation_candidate_list(self):
        runs = [(tuple(args), version, endpoint)
                for args, version in CLI_CASES + REFUSED_CLI_CASES
                for endpoint in (self.ours, self.theirs)]
        # The last command asks a port nobody serves: each command of the
        # batch reaches the endpoint it names.
        nobody = 'http://127.0.0.1:%d' % functional_base.free_port()
        runs.append((tuple(CLI_CASES[0][0]), None, nobody))
        answers = dict(zip(runs, openstack_commands(
            self.tmp, [cli_argv(endpoint, args, version)
                       for args, version, endpoint in runs])))
        status, _out, err = answers[runs[-1]]
        self.assertEqual(1, status)
        self.assertIn('Connection refused', err)
        differences = []
        for args, version in CLI_CASES:
            key = (tuple(args), version)
            (ours_status, ours, ours_err), (theirs_status, theirs,
                                            theirs_err) = (
                answers[key + (self.ours,)], answers[key + (self.theirs,)])
            shown = 'openstack allocation candidate list %s (%s)' % (
                ' '.join(args), version or 'negotiated')
            if (ours_status, theirs_status) != (0, 0):
                differences.append('%s: ours %s %s, Placement %s %s' % (
                    shown, ours_status, ours_err, theirs_status,
                    theirs_err))
                continue
            ours = cli_candidates(json.loads(ours))
            theirs = cli_candidates(json.loads(theirs))
            if not theirs:
                differences.append('%s: Placement has no candidate; the '
                                   'case tests nothing' % shown)
            if '--limit' in args:
                limit = args[args.index('--limit') + 1]
                unlimited = cli_candidates(json.loads(answers[(tuple(
                    arg for arg in args if arg not in ('--limit', limit)),
                    version, self.theirs)][1]))
                if not (len(ours) == len(theirs) == int(limit) and all(
                        candidate in unlimited for candidate in ours)):
                    differences.append(
                        '%s: ours %s, Placement %s, of %s' % (
                            shown, ours, theirs, unlimited))
            elif ours != theirs:
                differences.append('%s:\n  ours      %s\n  Placement %s' % (
                    shown, ours, theirs))
        self.assertEqual([], differences, '\n'.join(differences))

        for (args, version), expected in zip(REFUSED_CLI_CASES, (
                ['HTTP 400', 'No such trait(s): CUSTOM_NOBODY'],
                ['requires at least version 1.22'])):
            for endpoint in (self.ours, self.theirs):
                status, out, err = answers[(tuple(args), version, endpoint)]
                self.assertEqual(1, status, out + err)
                for text in expected:
                    self.assertIn(text, err)
                self.assertNotIn('Traceback', err)

    def test_openstacksdk_allocation_candidates(self):
        def placement(endpoint):
            conn = connection.Connection(
                auth_type='admin_token',
                auth={'endpoint': endpoint, 'token': 'admin'},
                placement_endpoint_override=endpoint,
                placement_api_version=LATEST)
            self.addCleanup(conn.close)
            return conn.placement

        ours, theirs = placement(self.ours), placement(self.theirs)
        for query in SDK_CASES:
            mine = list(ours.allocation_candidates(**query))
            placements = list(theirs.allocation_candidates(**query))
            self.assertTrue(placements, query)
            if 'limit' in query:
                self.assertEqual(len(placements), len(mine), query)
                continue
            self.assertEqual(sdk_candidates(placements),
                             sdk_candidates(mine), query)
        # openstacksdk asks at 1.34 at most: mappings are there.
        candidate = next(iter(ours.allocation_candidates(
            resources_NIC='CUSTOM_VF:1', required_NIC='CUSTOM_PHYSNET_B')))
        self.assertEqual({CN1_PF2: {'resources': {'CUSTOM_VF': 1}}},
                         candidate.allocations)
        self.assertEqual({'_NIC': [CN1_PF2]}, candidate.mappings)
        self.assertEqual({'CUSTOM_VF': {'capacity': 4, 'used': 0}},
                         candidate.provider_summaries[CN1_PF2]['resources'])
