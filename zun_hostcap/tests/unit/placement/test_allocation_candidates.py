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

"""Allocation candidates from the database: what each group may use.

``CandidateTests`` run here on SQLite and, in the functional tests, on
MariaDB and PostgreSQL.
"""

import json

from oslo_utils import uuidutils
import sqlalchemy as sa

from zun_hostcap.api.controllers.placement import allocation_candidates
from zun_hostcap.api.placement import microversion
from zun_hostcap.candidates import request as rq
from zun_hostcap.common import exception
from zun_hostcap.db.sqlalchemy.placement import aggregates as agg_db
from zun_hostcap.db.sqlalchemy.placement import allocations as alloc_db
from zun_hostcap.db.sqlalchemy.placement import candidates as cand_db
from zun_hostcap.db.sqlalchemy.placement import common
from zun_hostcap.db.sqlalchemy.placement import inventories as inv_db
from zun_hostcap.db.sqlalchemy.placement import resource_classes
from zun_hostcap.db.sqlalchemy.placement import resource_providers as rp_db
from zun_hostcap.db.sqlalchemy.placement import traits as trait_db
from zun_hostcap.tests import base
from zun_hostcap.tests import fixtures

AGG1 = '11111111-1111-4111-8111-111111111111'
AGG2 = '22222222-2222-4222-8222-222222222222'


def group(suffix='', required=(), forbidden=(), member_of=(),
          forbidden_aggs=(), in_tree=None, **resources):
    return rq.RequestGroup(
        suffix=suffix, resources=tuple(resources.items()),
        required_traits=tuple(frozenset([name]) for name in required),
        forbidden_traits=frozenset(forbidden),
        member_of=tuple(frozenset(aggs) for aggs in member_of),
        forbidden_aggs=frozenset(forbidden_aggs), in_tree=in_tree)


def rendered(answer):
    """``answer`` as the JSON body clients receive (latest version)."""
    return json.loads(allocation_candidates.answer_text(
        answer, microversion.MAX_VERSION))


def mappings(body):
    """The mappings of each allocation request of a body."""
    return [request['mappings'] for request in body['allocation_requests']]


class CandidateTests(object):
    """Needs ``self.context`` on a migrated, empty database."""

    def provider(self, name, parent=None, traits=(), aggregates=(),
                 **inventory):
        uuid = uuidutils.generate_uuid()
        rp_db.create(self.context, uuid, name,
                     parent and self.uuids[parent])
        self.uuids[name] = uuid
        self.names[uuid] = name
        if inventory:
            inv_db.replace_all(self.context, uuid, 0, {
                rc: dict(value) if isinstance(value, dict) else
                {'total': value} for rc, value in inventory.items()})
        if traits:
            trait_db.set_for_provider(self.context, uuid, list(traits))
        if aggregates:
            agg_db.set_for_provider(self.context, uuid, list(aggregates))
        return uuid

    def allocate(self, name, **resources):
        alloc_db.replace_all(self.context, {uuidutils.generate_uuid(): {
            'allocations': {self.uuids[name]: resources},
            'project_id': 'p', 'user_id': 'u',
            'consumer_generation': None, 'consumer_type': None}})

    def setUp(self):
        super().setUp()
        self.uuids = {}
        self.names = {}

    def answer(self, *groups, **request):
        """The body a client receives, at the latest microversion."""
        options = rq.SearchOptions(**request.pop('options', {}))
        return rendered(cand_db.get_candidates(
            self.context, rq.CandidateRequest(groups=groups, **request),
            options))

    def candidates(self, *groups, **request):
        """Each candidate as {provider name: {class: amount}}."""
        answer = self.answer(*groups, **request)
        return sorted(
            sorted((self.names[uuid], sorted(allocation['resources'].items()))
                   for uuid, allocation in request['allocations'].items())
            for request in answer['allocation_requests'])

    def test_flat_and_summaries(self):
        self.provider('cn1', VCPU=4, MEMORY_MB={'total': 2048,
                                                'reserved': 512},
                      traits=['HW_CPU_X86_AVX2'])
        self.provider('cn2', VCPU={'total': 4, 'allocation_ratio': 2.0})
        self.allocate('cn2', VCPU=5)
        # cn2: (4 - 0) * 2.0 = 8, 5 used.
        self.assertEqual([[('cn1', [('VCPU', 3)])], [('cn2', [('VCPU', 3)])]],
                         self.candidates(group(VCPU=3)))
        self.assertEqual([[('cn1', [('VCPU', 4)])]],
                         self.candidates(group(VCPU=4)))
        answer = self.answer(group(VCPU=1))
        summary = answer['provider_summaries'][self.uuids['cn1']]
        self.assertEqual({'VCPU': {'capacity': 4, 'used': 0},
                          'MEMORY_MB': {'capacity': 1536, 'used': 0}},
                         summary['resources'])
        self.assertEqual(['HW_CPU_X86_AVX2'], summary['traits'])
        self.assertIsNone(summary['parent_provider_uuid'])
        self.assertEqual(self.uuids['cn1'], summary['root_provider_uuid'])
        self.assertEqual(
            {'VCPU': {'capacity': 8, 'used': 5}},
            answer['provider_summaries'][self.uuids['cn2']]['resources'])
        # Below 1.27, the requested classes only.
        answer = rendered(cand_db.get_candidates(
            self.context, rq.CandidateRequest(groups=(group(VCPU=1),)),
            all_classes=False))
        self.assertEqual(
            {'VCPU': {'capacity': 4, 'used': 0}},
            answer['provider_summaries'][self.uuids['cn1']]['resources'])

    def test_unknown_names(self):
        self.provider('cn1', VCPU=4)
        self.assertRaises(exception.ResourceClassNotFound, self.answer,
                          group(CUSTOM_NOPE=1))
        exc = self.assertRaises(exception.TraitNotFound, self.answer,
                                group(VCPU=1, required=['CUSTOM_NOPE']),
                                group('1', forbidden=['CUSTOM_NADA'],
                                      VCPU=1))
        self.assertIn('CUSTOM_NADA, CUSTOM_NOPE', str(exc))
        # An unknown aggregate or in_tree provider matches nothing.
        self.assertEqual([], self.candidates(group(VCPU=1,
                                                   member_of=[[AGG1]])))
        self.assertEqual([], self.candidates(
            group(VCPU=1, in_tree=uuidutils.generate_uuid())))

    def nested(self):
        self.provider('cn', DISK_GB=100, traits=['STORAGE_DISK_SSD'])
        self.provider('numa0', 'cn', VCPU=4, MEMORY_MB=1024,
                      traits=['HW_NUMA_ROOT'])
        self.provider('numa1', 'cn', VCPU=4, MEMORY_MB=1024,
                      traits=['HW_NUMA_ROOT', 'HW_CPU_X86_AVX2'])
        self.provider('fpga1', 'numa1', FPGA=1)

    def test_unsuffixed_spreads_across_the_tree(self):
        self.nested()
        found = self.candidates(group(VCPU=1, DISK_GB=10))
        self.assertEqual([
            [('cn', [('DISK_GB', 10)]), ('numa0', [('VCPU', 1)])],
            [('cn', [('DISK_GB', 10)]), ('numa1', [('VCPU', 1)])]], found)
        # Each class from one provider; several classes from one.
        found = self.candidates(group(VCPU=1, MEMORY_MB=512))
        self.assertEqual(4, len(found))
        self.assertIn([('numa0', [('MEMORY_MB', 512), ('VCPU', 1)])],
                      found)
        # Required traits by the providers together.
        self.assertEqual(
            [[('cn', [('DISK_GB', 10)]), ('numa1', [('VCPU', 1)])]],
            self.candidates(group(VCPU=1, DISK_GB=10,
                                  required=['STORAGE_DISK_SSD',
                                            'HW_CPU_X86_AVX2'])))
        # Forbidden traits by none of them.
        self.assertEqual(
            [[('cn', [('DISK_GB', 10)]), ('numa0', [('VCPU', 1)])]],
            self.candidates(group(VCPU=1, DISK_GB=10,
                                  forbidden=['HW_CPU_X86_AVX2'])))
        # The summaries are of the whole tree.
        answer = self.answer(group(FPGA=1))
        self.assertEqual({'cn', 'numa0', 'numa1', 'fpga1'},
                         {self.names[u] for u in answer['provider_summaries']})
        fpga = answer['provider_summaries'][self.uuids['fpga1']]
        self.assertEqual(self.uuids['numa1'], fpga['parent_provider_uuid'])
        self.assertEqual(self.uuids['cn'], fpga['root_provider_uuid'])

    def test_one_unsuffixed_class_meets_the_traits_itself(self):
        # With one class, the one provider that serves it has the
        # required traits; with several, the providers together (above).
        self.nested()
        self.assertEqual([], self.candidates(
            group(VCPU=1, required=['STORAGE_DISK_SSD'])))
        self.assertEqual([[('numa1', [('VCPU', 1)])]], self.candidates(
            group(VCPU=1, required=['HW_CPU_X86_AVX2'])))
        any_of = rq.RequestGroup(
            resources=(('VCPU', 1),),
            required_traits=(frozenset(['HW_CPU_X86_AVX2',
                                        'STORAGE_DISK_SSD']),
                             frozenset(['HW_NUMA_ROOT'])))
        self.assertEqual([[('numa1', [('VCPU', 1)])]],
                         self.candidates(any_of))
        self.assertEqual([[('cn', [('DISK_GB', 10)])]], self.candidates(
            group(DISK_GB=10, required=['STORAGE_DISK_SSD'])))

    def test_below_1_29_one_provider_a_tree(self):
        self.nested()
        self.assertEqual([], self.candidates(group(VCPU=1, DISK_GB=10),
                                             nested_aware=False))
        answer = self.answer(group(VCPU=1, MEMORY_MB=1), nested_aware=False)
        self.assertEqual({'numa0', 'numa1'},
                         {self.names[u] for u in answer['provider_summaries']})

    def test_granular_groups(self):
        self.nested()
        request = (group(DISK_GB=10),
                   group('_A', VCPU=1, required=['HW_NUMA_ROOT']),
                   group('_B', VCPU=1))
        found = self.candidates(*request, group_policy='none')
        # _B may share _A's NUMA node: 2 x 2.
        self.assertEqual(4, len(found))
        self.assertIn([('cn', [('DISK_GB', 10)]),
                       ('numa0', [('VCPU', 2)])], found)
        found = self.candidates(*request, group_policy='isolate')
        self.assertEqual(2, len(found))
        # same_subtree: the FPGA below the NUMA node of _A.
        found = self.candidates(
            group('_A', VCPU=1), group('_F', FPGA=1), group_policy='none',
            same_subtrees=(frozenset(['_A', '_F']),))
        self.assertEqual([[('fpga1', [('FPGA', 1)]),
                           ('numa1', [('VCPU', 1)])]], found)
        answer = self.answer(group('_A', VCPU=1), group('_F', FPGA=1),
                             group_policy='none',
                             same_subtrees=(frozenset(['_A', '_F']),))
        self.assertEqual([{'_A': [self.uuids['numa1']],
                           '_F': [self.uuids['fpga1']]}],
                         [request['mappings'] for request in
                          answer['allocation_requests']])

    def test_capacity_is_shared_by_the_groups(self):
        self.provider('cn', VCPU={'total': 4, 'max_unit': 3})
        self.assertEqual(
            [[('cn', [('VCPU', 3)])]],
            self.candidates(group(VCPU=2), group('1', VCPU=1)))
        # max_unit holds for what the groups take together.
        self.assertEqual(
            [], self.candidates(group(VCPU=2), group('1', VCPU=2)))

    def test_resourceless_groups(self):
        self.nested()
        # Any provider without the trait, in the same subtree.
        found = self.answer(
            group('_A', VCPU=1), group('_R', forbidden=['HW_CPU_X86_AVX2']),
            group_policy='none', same_subtrees=(frozenset(['_A', '_R']),))
        self.assertEqual(
            sorted([('numa0', 'cn'), ('numa0', 'numa0'), ('numa1', 'cn'),
                    ('numa1', 'fpga1')]),
            sorted((self.names[m['_A'][0]], self.names[m['_R'][0]])
                   for m in mappings(found)))
        self.provider('other', VCPU=4, traits=['HW_NUMA_ROOT'])
        found = self.answer(
            group('_A', VCPU=1),
            group('_R', required=['HW_NUMA_ROOT'],
                  in_tree=self.uuids['cn']),
            group_policy='none', same_subtrees=(frozenset(['_A', '_R']),))
        self.assertEqual(
            sorted([('numa0', 'numa0'), ('numa1', 'numa1')]),
            sorted((self.names[m['_A'][0]], self.names[m['_R'][0]])
                   for m in mappings(found)))

    def test_member_of(self):
        self.provider('cn1', aggregates=[AGG1])
        self.provider('numa1', 'cn1', VCPU=4)
        self.provider('cn2', VCPU=4, aggregates=[AGG2])
        # Unsuffixed: the provider or its tree's root is in it.
        self.assertEqual([[('numa1', [('VCPU', 1)])]], self.candidates(
            group(VCPU=1, member_of=[[AGG1]])))
        self.assertEqual(2, len(self.candidates(
            group(VCPU=1, member_of=[[AGG1, AGG2]]))))
        self.assertEqual([[('cn2', [('VCPU', 1)])]], self.candidates(
            group(VCPU=1, forbidden_aggs=[AGG1])))
        # Granular: the provider itself.
        self.assertEqual([], self.candidates(
            group('1', VCPU=1, member_of=[[AGG1]])))
        self.assertEqual([[('cn2', [('VCPU', 1)])]], self.candidates(
            group('1', VCPU=1, member_of=[[AGG2]])))

    def sharing(self):
        self.provider('cn1', VCPU=4, aggregates=[AGG1])
        self.provider('cn2', VCPU=4, aggregates=[AGG1])
        self.provider('cn3', VCPU=4, DISK_GB=10)
        self.provider('ss', DISK_GB=1000, aggregates=[AGG1],
                      traits=['MISC_SHARES_VIA_AGGREGATE'])

    def test_sharing_providers(self):
        self.sharing()
        found = self.candidates(group(VCPU=1, DISK_GB=10))
        self.assertEqual([
            [('cn1', [('VCPU', 1)]), ('ss', [('DISK_GB', 10)])],
            [('cn2', [('VCPU', 1)]), ('ss', [('DISK_GB', 10)])],
            [('cn3', [('DISK_GB', 10), ('VCPU', 1)])]], found)
        # The pool alone, once, whatever tree it is anchored to.
        self.assertEqual([[('cn3', [('DISK_GB', 10)])],
                          [('ss', [('DISK_GB', 10)])]],
                         self.candidates(group(DISK_GB=10)))
        answer = self.answer(group(VCPU=1, DISK_GB=10), limit=1)
        self.assertEqual({'cn1', 'ss'},
                         {self.names[u] for u in answer['provider_summaries']})
        # A granular group may be served by the pool of the tree.
        found = self.candidates(group(VCPU=1), group('1', DISK_GB=10))
        self.assertEqual(3, len(found))
        # Not within in_tree.
        self.assertEqual([], self.candidates(
            group(VCPU=1, DISK_GB=10, in_tree=self.uuids['cn1'])))
        # root_required is met by the anchor: the compute, not the pool.
        trait_db.set_for_provider(self.context, self.uuids['cn2'],
                                  ['COMPUTE_VOLUME_MULTI_ATTACH'])
        self.assertEqual(
            [[('cn2', [('VCPU', 1)]), ('ss', [('DISK_GB', 10)])]],
            self.candidates(group(VCPU=1, DISK_GB=10),
                            root_required=frozenset(
                                ['COMPUTE_VOLUME_MULTI_ATTACH'])))
        self.assertEqual(2, len(self.candidates(
            group(VCPU=1, DISK_GB=10),
            root_forbidden=frozenset(['COMPUTE_VOLUME_MULTI_ATTACH']))))

    def test_sharing_providers_and_aggregates(self):
        # A sharing provider below a root: member_of is met through the
        # root for the tree itself, by the provider alone for the trees
        # it shares with; a forbidden aggregate of the root keeps it out
        # of its own tree only.
        agg3 = '33333333-3333-4333-8333-333333333333'
        self.provider('host', VCPU=4, aggregates=[AGG2, agg3])
        self.provider('pool', 'host', DISK_GB=1000, aggregates=[AGG1],
                      traits=['MISC_SHARES_VIA_AGGREGATE'])
        self.provider('both', VCPU=4, aggregates=[AGG1, AGG2])
        self.assertEqual(
            [[('host', [('VCPU', 1)]), ('pool', [('DISK_GB', 10)])]],
            self.candidates(group(VCPU=1, DISK_GB=10, member_of=[[AGG2]])))
        self.assertEqual(
            [[('both', [('VCPU', 1)]), ('pool', [('DISK_GB', 10)])]],
            self.candidates(group(VCPU=1, DISK_GB=10,
                                  forbidden_aggs=[agg3])))
        # The host is not in AGG1 itself: its VCPU does not serve.
        self.assertEqual(
            [[('both', [('VCPU', 1)]), ('pool', [('DISK_GB', 10)])]],
            self.candidates(group(VCPU=1, DISK_GB=10,
                                  member_of=[[AGG1]])))

    def test_a_limit_in_a_flat_cloud(self):
        for index in range(6):
            self.provider('cn%d' % index, VCPU=2)
        self.allocate('cn1', VCPU=2)
        self.provider('small', VCPU=1)
        # The first by id that fit, whichever of limit and
        # max_allocation_candidates is the smaller.
        self.assertEqual(
            [[('cn0', [('VCPU', 2)])], [('cn2', [('VCPU', 2)])]],
            self.candidates(group(VCPU=2), limit=2))
        self.assertEqual(
            [[('cn0', [('VCPU', 2)])], [('cn2', [('VCPU', 2)])],
             [('cn3', [('VCPU', 2)])]],
            self.candidates(group(VCPU=2), limit=5,
                            options={'max_candidates': 3}))
        # Shuffled (drawn by the database): any of them, still as many,
        # each with its summary alone.
        names = set()
        for _attempt in range(20):
            answer = self.answer(group(VCPU=2), limit=2,
                                 options={'randomize': True})
            found = {self.names[uuid]
                     for request in answer['allocation_requests']
                     for uuid in request['allocations']}
            self.assertEqual(2, len(found))
            self.assertEqual(found, {self.names[uuid] for uuid in
                                     answer['provider_summaries']})
            names.update(found)
        self.assertLess({'cn0', 'cn2'}, names)
        self.assertLessEqual(names, {'cn0', 'cn2', 'cn3', 'cn4', 'cn5'})
        for _attempt in range(5):
            self.assertEqual(3, len(self.candidates(
                group(VCPU=2), limit=5,
                options={'randomize': True, 'max_candidates': 3})))

    def test_each_capacity_rule_in_a_flat_cloud(self):
        # A lone flat group's providers are read with their summaries
        # (in id order, or shuffled without a cap), else apart: each
        # rule of capacity leaves the same providers out, and each
        # provider found has the same summary.
        self.provider('fits', VCPU=4, DISK_GB=100, traits=['HW_CPU_X86_AVX2'],
                      MEMORY_MB={'total': 2048, 'reserved': 512})
        self.provider('used', VCPU=4, MEMORY_MB=2048)
        self.allocate('used', VCPU=3, MEMORY_MB=100)
        self.provider('min_unit', VCPU={'total': 4, 'min_unit': 3},
                      MEMORY_MB=2048)
        self.provider('max_unit', VCPU={'total': 4, 'max_unit': 1},
                      MEMORY_MB=2048)
        self.provider('step_size', VCPU={'total': 4, 'step_size': 3},
                      MEMORY_MB=2048)
        self.provider('no_memory', VCPU=4, DISK_GB=100)
        self.provider('reserved', VCPU=4,
                      MEMORY_MB={'total': 2048, 'reserved': 1500})
        self.provider('ratio', VCPU=4,
                      MEMORY_MB={'total': 512, 'allocation_ratio': 2.0})
        self.allocate('ratio', MEMORY_MB=24)
        self.provider('empty')
        request = group(VCPU=2, MEMORY_MB=1000)
        found = [[('fits', [('MEMORY_MB', 1000), ('VCPU', 2)])],
                 [('ratio', [('MEMORY_MB', 1000), ('VCPU', 2)])]]
        for options in ({}, {'randomize': True},
                        {'randomize': True, 'max_candidates': 10}):
            self.assertEqual(found, self.candidates(request,
                                                    options=options))
            summaries = self.answer(request,
                                    options=options)['provider_summaries']
            self.assertEqual({
                self.uuids['fits']: {
                    'resources': {'VCPU': {'capacity': 4, 'used': 0},
                                  'MEMORY_MB': {'capacity': 1536,
                                                'used': 0},
                                  'DISK_GB': {'capacity': 100,
                                              'used': 0}},
                    'traits': ['HW_CPU_X86_AVX2'],
                    'parent_provider_uuid': None,
                    'root_provider_uuid': self.uuids['fits']},
                self.uuids['ratio']: {
                    'resources': {'VCPU': {'capacity': 4, 'used': 0},
                                  'MEMORY_MB': {'capacity': 1024,
                                                'used': 24}},
                    'traits': [],
                    'parent_provider_uuid': None,
                    'root_provider_uuid': self.uuids['ratio']}},
                summaries)
        # One unit more than ratio's room.
        self.assertEqual([[('fits', [('MEMORY_MB', 1001), ('VCPU', 2)])]],
                         self.candidates(group(VCPU=2, MEMORY_MB=1001)))
        # Below 1.27, the requested classes only.
        answer = rendered(cand_db.get_candidates(
            self.context, rq.CandidateRequest(groups=(request,)),
            all_classes=False))
        self.assertEqual(
            {'VCPU': {'capacity': 4, 'used': 0},
             'MEMORY_MB': {'capacity': 1536, 'used': 0}},
            answer['provider_summaries'][self.uuids['fits']]['resources'])

    def test_summaries_name_every_class(self):
        # Standard classes are named by their index in os-resource-classes
        # (the first and the last here), custom ones looked up: in a flat
        # cloud, then in a tree, with every class and with those asked.
        last = resource_classes.STANDARDS[-1]
        resource_classes.create(self.context, 'CUSTOM_MAGIC')
        self.provider('cn', VCPU=4, CUSTOM_MAGIC=2, **{last: 8})
        self.allocate('cn', CUSTOM_MAGIC=1)
        expected = {'VCPU': {'capacity': 4, 'used': 0},
                    last: {'capacity': 8, 'used': 0},
                    'CUSTOM_MAGIC': {'capacity': 2, 'used': 1}}

        def summary(name, *groups, **kwargs):
            answer = rendered(cand_db.get_candidates(
                self.context, rq.CandidateRequest(groups=groups), **kwargs))
            return answer['provider_summaries'][self.uuids[name]][
                'resources']
        for flat in (True, False):
            self.assertEqual(expected, summary('cn', group(VCPU=1)))
            self.assertEqual(
                {'CUSTOM_MAGIC': expected['CUSTOM_MAGIC']},
                summary('cn', group(CUSTOM_MAGIC=1), all_classes=False))
            if flat:
                self.provider('numa', 'cn', CUSTOM_MAGIC=3)
        self.assertEqual({'CUSTOM_MAGIC': {'capacity': 3, 'used': 0}},
                         summary('numa', group(VCPU=1)))

    def test_summaries_of_most_providers_and_of_a_few(self):
        # The summaries are of the candidates' providers alone, whether
        # they are a whole range of ids, most of one (read as the range
        # less the others) or a few of them.
        self.provider('pool', DISK_GB=1000, aggregates=[AGG1],
                      traits=['MISC_SHARES_VIA_AGGREGATE'])
        for index in range(8):
            self.provider('cn%d' % index, VCPU=4, aggregates=[AGG1])
        self.provider('other', DISK_GB=10)
        request = group(VCPU=1, DISK_GB=10)
        summaries = self.answer(request)['provider_summaries']
        self.assertEqual({'pool'} | {'cn%d' % index for index in range(8)},
                         {self.names[uuid] for uuid in summaries})
        self.allocate('cn3', VCPU=4)
        self.allocate('cn6', VCPU=4)
        summaries = self.answer(request)['provider_summaries']
        self.assertEqual({'pool', 'cn0', 'cn1', 'cn2', 'cn4', 'cn5', 'cn7'},
                         {self.names[uuid] for uuid in summaries})
        self.assertEqual(
            {'VCPU': {'capacity': 4, 'used': 0}},
            summaries[self.uuids['cn7']]['resources'])
        for name in ('cn1', 'cn2', 'cn4', 'cn5'):
            self.allocate(name, VCPU=4)
        summaries = self.answer(request)['provider_summaries']
        self.assertEqual({'pool', 'cn0', 'cn7'},
                         {self.names[uuid] for uuid in summaries})

    def test_summaries_of_trees_that_are_most_of_a_range(self):
        # Each tree's summaries are of its every provider; the trees
        # asked for are named by their roots, read as the range of root
        # ids less the others where they are most of it (all, then all
        # but one here), else one by one.
        for index in range(6):
            self.provider('cn%d' % index, DISK_GB=100)
        for index in range(6):
            self.provider('numa%d' % index, 'cn%d' % index, VCPU=4)
        self.provider('other', DISK_GB=100)
        request = group(VCPU=1, DISK_GB=10)

        def trees():
            summaries = self.answer(request)['provider_summaries']
            named = {self.names[uuid]: summary
                     for uuid, summary in summaries.items()}
            for name, summary in named.items():
                root = 'cn' + name[-1]
                self.assertEqual(self.uuids[root],
                                 summary['root_provider_uuid'], name)
            return sorted(named)
        everything = sorted('%s%d' % (kind, index) for index in range(6)
                            for kind in ('cn', 'numa'))
        self.assertEqual(everything, trees())
        self.allocate('numa2', VCPU=4)
        self.assertEqual([name for name in everything
                          if not name.endswith('2')], trees())
        for index in (0, 1, 3, 4):
            self.allocate('numa%d' % index, VCPU=4)
        self.assertEqual(['cn5', 'numa5'], trees())
        self.assertEqual(
            {'DISK_GB': {'capacity': 100, 'used': 0}},
            self.answer(request)['provider_summaries'][self.uuids['cn5']][
                'resources'])

    def test_a_flat_request_asked_again(self):
        # The statement of a lone flat group is kept between requests:
        # the answer still follows the database, and requests that differ
        # in any value get their own.
        self.provider('cn1', VCPU=4, traits=['HW_CPU_X86_AVX2'],
                      aggregates=[AGG1])
        self.provider('cn2', VCPU=4, aggregates=[AGG2])

        def each(amount, *names):
            return [[(name, [('VCPU', amount)])] for name in names]
        for _again in range(2):
            self.assertEqual(each(2, 'cn1', 'cn2'),
                             self.candidates(group(VCPU=2)))
        self.allocate('cn1', VCPU=3)
        self.assertEqual(each(2, 'cn2'), self.candidates(group(VCPU=2)))
        self.assertEqual(each(1, 'cn1', 'cn2'),
                         self.candidates(group(VCPU=1)))
        self.assertEqual(each(1, 'cn1'),
                         self.candidates(group(VCPU=1), limit=1))
        self.assertEqual(each(1, 'cn2'),
                         self.candidates(group(VCPU=1, member_of=[[AGG2]]),
                                         limit=1))
        self.assertEqual([], self.candidates(
            group(VCPU=2, required=['HW_CPU_X86_AVX2'])))
        trait_db.set_for_provider(self.context, self.uuids['cn2'],
                                  ['HW_CPU_X86_AVX2'])
        self.assertEqual(each(2, 'cn2'), self.candidates(
            group(VCPU=2, required=['HW_CPU_X86_AVX2'])))
        self.assertEqual([], self.candidates(
            group(VCPU=1, forbidden=['HW_CPU_X86_AVX2'])))
        summary = self.answer(group(VCPU=1))['provider_summaries']
        self.assertEqual(['HW_CPU_X86_AVX2'],
                         summary[self.uuids['cn2']]['traits'])

    def test_statements_do_not_grow_with_providers(self):
        statements = []

        def count(conn, cursor, statement, *args):
            statements.append(statement)
        engine = self.database.engine
        sa.event.listen(engine, 'before_cursor_execute', count)
        self.addCleanup(sa.event.remove, engine, 'before_cursor_execute',
                        count)
        request = (group(DISK_GB=10, member_of=[[AGG1]]),
                   group('_A', VCPU=1), group('_F', FPGA=1))
        counts = []
        for n in range(3):
            for index in range(1 + 10 * n):
                prefix = 'n%d-%d' % (n, index)
                self.provider(prefix, DISK_GB=100, aggregates=[AGG1])
                self.provider(prefix + 'numa', prefix, VCPU=4)
                self.provider(prefix + 'fpga', prefix + 'numa', FPGA=1)
            self.answer(*request, group_policy='none',
                        same_subtrees=(frozenset(['_A', '_F']),))
            del statements[:]
            answer = self.answer(*request, group_policy='none',
                                 same_subtrees=(frozenset(['_A', '_F']),))
            self.assertEqual(sum(1 + 10 * i for i in range(n + 1)),
                             len(answer['allocation_requests']))
            counts.append(len(statements))
        self.assertEqual(1, len(set(counts)), counts)


class CandidatesTestCase(CandidateTests, base.TestCase):

    def setUp(self):
        super().setUp()
        self.database = self.useFixture(fixtures.Database())


class IdRangeTestCase(base.TestCase):
    """common.id_range: the ids asked for as a range less its holes."""

    def test_most_of_a_range(self):
        self.assertEqual((1, 5, []), common.id_range([1, 2, 3, 4, 5]))
        self.assertEqual((3, 9, [5, 8]),
                         common.id_range([3, 4, 6, 7, 9]))

    def test_not_most_of_a_range(self):
        # Half of the range or less, or too few to matter: one by one.
        self.assertIsNone(common.id_range([1, 3, 5, 8]))
        self.assertIsNone(common.id_range([1, 1000, 2000]))
        self.assertIsNone(common.id_range([4, 5]))
        self.assertIsNone(common.id_range([]))
