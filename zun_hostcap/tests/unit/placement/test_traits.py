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

"""Traits in the database: the standard sync, lookups, custom traits and
the traits of providers."""

import os_traits
from oslo_utils import uuidutils
import sqlalchemy as sa

from zun_hostcap.common import exception
from zun_hostcap.db.sqlalchemy import models
from zun_hostcap.db.sqlalchemy.placement import common
from zun_hostcap.db.sqlalchemy.placement import resource_providers as rp_db
from zun_hostcap.db.sqlalchemy.placement import traits as trait_db
from zun_hostcap import objects
from zun_hostcap.tests import base
from zun_hostcap.tests import fixtures

TRAIT = models.Trait.__table__
RP_TRAIT = models.ResourceProviderTrait.__table__


class TraitsTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.database = self.useFixture(fixtures.Database())
        self.uuid = uuidutils.generate_uuid()
        rp_db.create(self.context, self.uuid, 'rp')

    def _names(self, rows):
        return [row['name'] for row in rows]

    def test_standard_traits_synchronised_once(self):
        ids = trait_db.ids_for_names(self.context, ['HW_CPU_X86_AVX',
                                                    'COMPUTE_NODE'])
        self.assertEqual({'HW_CPU_X86_AVX', 'COMPUTE_NODE'}, set(ids))
        with self.database.engine.connect() as conn:
            stored = {row[0]: row[1] for row in conn.execute(
                sa.select(TRAIT.c.name, TRAIT.c.created_at))}
        self.assertEqual(set(os_traits.get_traits()), set(stored))
        # No timestamps: Last-Modified of a standard trait is "now".
        self.assertEqual({None}, set(stored.values()))
        writes = self.database.count_writes()
        trait_db.ids_for_names(self.context, ['HW_CPU_X86_SSE'])
        trait_db.ensure_standard(self.context)
        self.assertEqual({ids['COMPUTE_NODE']: 'COMPUTE_NODE'},
                         trait_db.names_for_ids(self.context,
                                                [ids['COMPUTE_NODE']]))
        self.assertEqual([], writes)

    def test_unknown_traits_are_all_named(self):
        exc = self.assertRaises(
            exception.TraitNotFound, trait_db.ids_for_names, self.context,
            ['CUSTOM_B', 'HW_CPU_X86_AVX', 'CUSTOM_A'])
        self.assertEqual('CUSTOM_A, CUSTOM_B', exc.kwargs['names'])
        self.assertEqual(404, exc.code)

    def test_lookup_inside_a_writer(self):
        @common.writer
        def write_then_look_up(context):
            rp_db.create(context, uuidutils.generate_uuid(), 'other')
            return trait_db.ids_for_names(context, ['COMPUTE_NODE'])

        self.assertEqual(['COMPUTE_NODE'],
                         list(write_then_look_up(self.context)))

    def test_create_and_delete(self):
        row, created = trait_db.create(self.context, 'CUSTOM_X')
        self.assertTrue(created)
        self.assertIsNotNone(row['created_at'])
        again, created = trait_db.create(self.context, 'CUSTOM_X')
        self.assertFalse(created)
        self.assertEqual(row['id'], again['id'])
        self.assertEqual({'CUSTOM_X': row['id']},
                         trait_db.ids_for_names(self.context, ['CUSTOM_X']))
        trait_db.delete(self.context, 'CUSTOM_X')
        self.assertRaises(exception.TraitNotFound, trait_db.ids_for_names,
                          self.context, ['CUSTOM_X'])
        self.assertRaises(exception.TraitNotFound, trait_db.get_by_name,
                          self.context, 'CUSTOM_X')

    def test_delete_errors(self):
        self.assertRaises(exception.TraitNotFound, trait_db.delete,
                          self.context, 'CUSTOM_NONE')
        exc = self.assertRaises(exception.TraitCannotDeleteStandard,
                                trait_db.delete, self.context,
                                'HW_CPU_X86_SSE')
        self.assertEqual(400, exc.code)
        trait_db.create(self.context, 'CUSTOM_USED')
        trait_db.set_for_provider(self.context, self.uuid, ['CUSTOM_USED'])
        exc = self.assertRaises(exception.TraitInUse, trait_db.delete,
                                self.context, 'CUSTOM_USED')
        self.assertEqual(409, exc.code)

    def test_filters(self):
        for name in ('CUSTOM_A1', 'CUSTOM_A2', 'CUSTOM_B1'):
            trait_db.create(self.context, name)
        get = trait_db.get_all
        self.assertEqual(len(os_traits.get_traits()) + 3,
                         len(get(self.context)))
        self.assertEqual(['CUSTOM_A1', 'HW_CPU_X86_SSE'], self._names(get(
            self.context, name_in=['HW_CPU_X86_SSE', 'CUSTOM_A1', 'NONE'])))
        self.assertEqual(['CUSTOM_A1', 'CUSTOM_A2'], self._names(get(
            self.context, prefix='CUSTOM_A')))
        self.assertEqual([], get(self.context, prefix='CUSTOM%'))
        self.assertEqual([], get(self.context, prefix='CUSTOM_A_'))
        trait_db.set_for_provider(self.context, self.uuid,
                                  ['CUSTOM_A2', 'COMPUTE_NODE'])
        self.assertEqual(['COMPUTE_NODE', 'CUSTOM_A2'], self._names(get(
            self.context, associated=True)))
        self.assertEqual(['CUSTOM_A1', 'CUSTOM_B1'], self._names(get(
            self.context, prefix='CUSTOM_', associated=False)))
        self.assertEqual(['CUSTOM_A2'], self._names(get(
            self.context, name_in=['CUSTOM_A1', 'CUSTOM_A2'],
            associated=True)))

    def test_provider_traits(self):
        trait_db.create(self.context, 'CUSTOM_T')
        self.assertEqual((0, []),
                         trait_db.get_by_provider(self.context, self.uuid))
        generation, rows = trait_db.set_for_provider(
            self.context, self.uuid, ['CUSTOM_T', 'COMPUTE_NODE',
                                      'CUSTOM_T'], 0)
        self.assertEqual(1, generation)
        self.assertEqual(['COMPUTE_NODE', 'CUSTOM_T'], self._names(rows))
        generation, rows = trait_db.get_by_provider(self.context, self.uuid)
        self.assertEqual((1, ['COMPUTE_NODE', 'CUSTOM_T']),
                         (generation, self._names(rows)))
        writes = self.database.count_writes()
        generation, rows = trait_db.set_for_provider(
            self.context, self.uuid, ['CUSTOM_T', 'HW_CPU_X86_SSE'], 1)
        self.assertEqual(2, generation)
        # One delete, one insert, one generation bump.
        self.assertEqual(['DELETE', 'INSERT', 'UPDATE'],
                         sorted(w.split()[0] for w in writes))
        self.assertEqual((2, ['CUSTOM_T', 'HW_CPU_X86_SSE']),
                         (trait_db.get_by_provider(self.context, self.uuid)[0],
                          self._names(trait_db.get_by_provider(
                              self.context, self.uuid)[1])))
        self.assertEqual((3, []), trait_db.set_for_provider(
            self.context, self.uuid, []))
        self.assertEqual((3, []),
                         trait_db.get_by_provider(self.context, self.uuid))

    def test_provider_trait_errors(self):
        missing = uuidutils.generate_uuid()
        self.assertRaises(exception.ResourceProviderNotFound,
                          trait_db.get_by_provider, self.context, missing)
        self.assertRaises(exception.ResourceProviderNotFound,
                          trait_db.set_for_provider, self.context, missing,
                          [], 0)
        exc = self.assertRaises(exception.ResourceProviderConcurrentUpdate,
                                trait_db.set_for_provider, self.context,
                                self.uuid, ['COMPUTE_NODE'], 7)
        self.assertEqual('placement.concurrent_update', exc.error_code)
        exc = self.assertRaises(exception.TraitNotFound,
                                trait_db.set_for_provider, self.context,
                                self.uuid, ['CUSTOM_NO', 'COMPUTE_NODE'], 0)
        self.assertEqual('CUSTOM_NO', exc.kwargs['names'])
        # Nothing changed.
        self.assertEqual((0, []),
                         trait_db.get_by_provider(self.context, self.uuid))

    def test_objects(self):
        trait, created = objects.Trait.ensure(self.context, 'CUSTOM_OBJ')
        self.assertTrue(created)
        self.assertTrue(trait.is_custom)
        self.assertFalse(objects.Trait.get_by_name(
            self.context, 'COMPUTE_NODE').is_custom)
        generation, traits = objects.TraitList.set_for_provider(
            self.context, self.uuid, ['CUSTOM_OBJ'], 0)
        self.assertEqual(1, generation)
        self.assertEqual(['CUSTOM_OBJ'], [t.name for t in traits])
        generation, traits = objects.TraitList.get_by_provider(
            self.context, self.uuid)
        self.assertEqual((1, ['CUSTOM_OBJ']),
                         (generation, [t.name for t in traits]))
        self.assertEqual(['CUSTOM_OBJ'], [t.name for t in
                                          objects.TraitList.get_all(
                                              self.context,
                                              prefix='CUSTOM_')])
        objects.TraitList.set_for_provider(self.context, self.uuid, [])
        trait.destroy()
        self.assertRaises(exception.TraitNotFound,
                          objects.Trait.get_by_name, self.context,
                          'CUSTOM_OBJ')
