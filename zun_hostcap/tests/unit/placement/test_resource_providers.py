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

"""Resource providers in the database, and their objects."""

import fixtures as fixtures_lib
import microversion_parse
from oslo_serialization import jsonutils
from oslo_utils import timeutils
from oslo_utils import uuidutils
import sqlalchemy as sa
import webob

from zun_hostcap.api.controllers.placement import resource_providers as rp_api
from zun_hostcap.api.placement import errors
from zun_hostcap.common import exception
from zun_hostcap.db.sqlalchemy import models
from zun_hostcap.db.sqlalchemy.placement import aggregates as agg_db
from zun_hostcap.db.sqlalchemy.placement import common
from zun_hostcap.db.sqlalchemy.placement import resource_classes
from zun_hostcap.db.sqlalchemy.placement import resource_providers as rp_db
from zun_hostcap.db.sqlalchemy.placement import traits as trait_db
from zun_hostcap import objects
from zun_hostcap.tests import base
from zun_hostcap.tests import fixtures

RP = models.ResourceProvider.__table__
INV = models.Inventory.__table__
ALLOC = models.Allocation.__table__
RPT = models.ResourceProviderTrait.__table__
RPA = models.ResourceProviderAggregate.__table__


@common.writer
def _insert(context, table, **values):
    context.session.execute(table.insert().values(**values))


@common.reader
def _count(context, table, **where):
    query = sa.select(sa.func.count()).select_from(table)
    for name, value in where.items():
        query = query.where(table.c[name] == value)
    return context.session.execute(query).scalar()


class ProviderTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.database = self.useFixture(fixtures.Database())

    def make(self, name, parent=None, uuid=None):
        return rp_db.create(self.context, uuid or uuidutils.generate_uuid(),
                            name, parent)

    def inventory(self, provider, resource_class, total, **values):
        rc_id = resource_classes.id_for_name(self.context, resource_class)
        record = {'reserved': 0, 'min_unit': 1, 'max_unit': total,
                  'step_size': 1, 'allocation_ratio': 1.0}
        record.update(values)
        _insert(self.context, INV, resource_provider_id=provider['id'],
                resource_class_id=rc_id, total=total, **record)

    def allocate(self, provider, resource_class, used):
        rc_id = resource_classes.id_for_name(self.context, resource_class)
        _insert(self.context, ALLOC, resource_provider_id=provider['id'],
                resource_class_id=rc_id, used=used,
                consumer_id=uuidutils.generate_uuid())

    def add_traits(self, provider, *names):
        for name, trait_id in trait_db.ids_for_names(self.context,
                                                     names).items():
            _insert(self.context, RPT, resource_provider_id=provider['id'],
                    trait_id=trait_id)

    def names(self, **filters):
        return sorted(p['name'] for p in
                      rp_db.get_all_by_filters(self.context, filters))


class CreateTestCase(ProviderTestCase):

    def test_root(self):
        rp = self.make('root')
        self.assertEqual('root', rp['name'])
        self.assertEqual(0, rp['generation'])
        self.assertIsNone(rp['parent_provider_uuid'])
        self.assertEqual(rp['uuid'], rp['root_provider_uuid'])
        self.assertIsNotNone(rp['created_at'])
        self.assertEqual(rp, rp_db.get_by_uuid(self.context, rp['uuid']))

    def test_tree(self):
        root = self.make('root')
        child = self.make('child', root['uuid'])
        grandchild = self.make('grandchild', child['uuid'])
        self.assertEqual(child['uuid'], grandchild['parent_provider_uuid'])
        self.assertEqual(root['uuid'], grandchild['root_provider_uuid'])

    def test_duplicate_name(self):
        self.make('dup')
        exc = self.assertRaises(exception.ResourceProviderExists,
                                self.make, 'dup')
        self.assertEqual('Conflicting resource provider name: dup already '
                         'exists.', str(exc))
        self.assertEqual('placement.duplicate_name', exc.error_code)

    def test_duplicate_uuid(self):
        rp = self.make('one')
        exc = self.assertRaises(exception.ResourceProviderExists,
                                self.make, 'two', uuid=rp['uuid'])
        self.assertIn('uuid: %s' % rp['uuid'], str(exc))

    def test_missing_parent(self):
        exc = self.assertRaises(exception.ResourceProviderActionError,
                                self.make, 'orphan',
                                uuidutils.generate_uuid())
        self.assertIn('parent provider UUID does not exist', str(exc))
        self.assertEqual(0, _count(self.context, RP, name='orphan'))

    def test_own_parent(self):
        uuid = uuidutils.generate_uuid()
        exc = self.assertRaises(exception.ResourceProviderActionError,
                                self.make, 'self', uuid, uuid=uuid)
        self.assertIn('parent provider UUID cannot be same as UUID',
                      str(exc))

    def test_not_found(self):
        uuid = uuidutils.generate_uuid()
        exc = self.assertRaises(exception.ResourceProviderNotFound,
                                rp_db.get_by_uuid, self.context, uuid)
        self.assertEqual(404, exc.code)


class UpdateTestCase(ProviderTestCase):

    def setUp(self):
        super().setUp()
        self.root = self.make('root')
        self.child = self.make('child', self.root['uuid'])
        self.grandchild = self.make('grandchild', self.child['uuid'])
        self.other = self.make('other')

    def update(self, rp, name=None, parent=rp_db.UNSET, reparent=True):
        return rp_db.update(self.context, rp['uuid'], name or rp['name'],
                            parent, allow_reparenting=reparent)

    def test_rename(self):
        rp = self.update(self.other, 'renamed')
        self.assertEqual('renamed', rp['name'])
        self.assertEqual(0, rp['generation'])
        self.assertIsNotNone(rp['updated_at'])

    def test_rename_to_taken_name(self):
        self.assertRaises(exception.ResourceProviderExists,
                          self.update, self.other, 'child')

    def test_not_found(self):
        self.assertRaises(exception.ResourceProviderNotFound,
                          rp_db.update, self.context,
                          uuidutils.generate_uuid(), 'x')

    def test_root_gets_parent_before_1_37(self):
        rp = self.update(self.other, parent=self.grandchild['uuid'],
                         reparent=False)
        self.assertEqual(self.grandchild['uuid'],
                         rp['parent_provider_uuid'])
        self.assertEqual(self.root['uuid'], rp['root_provider_uuid'])

    def test_same_parent_before_1_37(self):
        rp = self.update(self.child, parent=self.root['uuid'],
                         reparent=False)
        self.assertEqual(self.root['uuid'], rp['parent_provider_uuid'])

    def test_reparent_before_1_37(self):
        exc = self.assertRaises(
            exception.ResourceProviderActionError, self.update,
            self.child, parent=self.other['uuid'], reparent=False)
        self.assertIn('re-parenting a provider is not currently allowed',
                      str(exc))

    def test_unparent_before_1_37(self):
        exc = self.assertRaises(
            exception.ResourceProviderActionError, self.update,
            self.child, parent=None, reparent=False)
        self.assertIn('un-parenting a provider is not currently allowed',
                      str(exc))

    def test_missing_parent(self):
        exc = self.assertRaises(
            exception.ResourceProviderActionError, self.update,
            self.other, parent=uuidutils.generate_uuid())
        self.assertIn('parent provider UUID does not exist', str(exc))

    def test_loops(self):
        for parent in (self.root, self.child, self.grandchild):
            exc = self.assertRaises(
                exception.ResourceProviderActionError, self.update,
                self.root, parent=parent['uuid'])
            self.assertIn('creating loop in the provider tree is not '
                          'allowed.', str(exc))

    def test_move_subtree(self):
        self.update(self.child, parent=self.other['uuid'])
        grandchild = rp_db.get_by_uuid(self.context,
                                       self.grandchild['uuid'])
        self.assertEqual(self.other['uuid'],
                         grandchild['root_provider_uuid'])
        self.assertEqual(['child', 'grandchild', 'other'],
                         self.names(in_tree=self.other['uuid']))
        self.assertEqual(['root'], self.names(in_tree=self.root['uuid']))

    def test_unparent_subtree(self):
        rp = self.update(self.child, parent=None)
        self.assertIsNone(rp['parent_provider_uuid'])
        self.assertEqual(rp['uuid'], rp['root_provider_uuid'])
        self.assertEqual(['child', 'grandchild'],
                         self.names(in_tree=self.grandchild['uuid']))

    def test_rename_keeps_parent(self):
        rp = self.update(self.child, 'new')
        self.assertEqual(self.root['uuid'], rp['parent_provider_uuid'])


class DestroyTestCase(ProviderTestCase):

    def test_destroy_removes_associations(self):
        rp = self.make('rp')
        keep = self.make('keep')
        self.inventory(rp, 'VCPU', 8)
        self.inventory(keep, 'VCPU', 8)
        self.add_traits(rp, 'HW_CPU_X86_AVX2')
        agg = uuidutils.generate_uuid()
        agg_db.set_for_provider(self.context, rp['uuid'], [agg])
        agg_db.set_for_provider(self.context, keep['uuid'], [agg])
        rp_db.destroy(self.context, rp['uuid'])
        self.assertRaises(exception.ResourceProviderNotFound,
                          rp_db.get_by_uuid, self.context, rp['uuid'])
        for table in (INV, RPT, RPA):
            self.assertEqual(0, _count(self.context, table,
                                       resource_provider_id=rp['id']))
        self.assertEqual(1, _count(self.context, INV,
                                   resource_provider_id=keep['id']))
        self.assertEqual(1, _count(self.context, RPA,
                                   resource_provider_id=keep['id']))

    def test_not_found(self):
        self.assertRaises(exception.ResourceProviderNotFound,
                          rp_db.destroy, self.context,
                          uuidutils.generate_uuid())

    def test_parent(self):
        root = self.make('root')
        self.make('child', root['uuid'])
        exc = self.assertRaises(
            exception.CannotDeleteParentResourceProvider,
            rp_db.destroy, self.context, root['uuid'])
        self.assertEqual(409, exc.code)
        self.assertEqual('placement.resource_provider.cannot_delete_parent',
                         exc.error_code)

    def test_in_use(self):
        rp = self.make('rp')
        self.inventory(rp, 'VCPU', 8)
        self.allocate(rp, 'VCPU', 1)
        exc = self.assertRaises(exception.ResourceProviderInUse,
                                rp_db.destroy, self.context, rp['uuid'])
        self.assertEqual('Unable to delete resource provider %s: Resource '
                         'provider has allocations.' % rp['uuid'], str(exc))
        self.assertEqual('placement.resource_provider.inuse',
                         exc.error_code)
        # Nothing was removed.
        self.assertEqual(1, _count(self.context, INV,
                                   resource_provider_id=rp['id']))

    def test_child_then_parent(self):
        root = self.make('root')
        child = self.make('child', root['uuid'])
        rp_db.destroy(self.context, child['uuid'])
        rp_db.destroy(self.context, root['uuid'])
        self.assertEqual([], self.names())


class FilterTestCase(ProviderTestCase):

    def setUp(self):
        super().setUp()
        self.a = self.make('a')
        self.b = self.make('b', self.a['uuid'])
        self.c = self.make('c')
        self.agg1, self.agg2, self.agg3 = (uuidutils.generate_uuid()
                                           for _ in range(3))
        agg_db.set_for_provider(self.context, self.a['uuid'],
                                [self.agg1, self.agg2])
        agg_db.set_for_provider(self.context, self.c['uuid'], [self.agg2])
        self.add_traits(self.a, 'HW_CPU_X86_AVX2', 'STORAGE_DISK_SSD')
        self.add_traits(self.c, 'STORAGE_DISK_SSD')

    def test_all(self):
        providers = rp_db.get_all_by_filters(self.context)
        self.assertEqual(['a', 'b', 'c'], [p['name'] for p in providers])
        b = providers[1]
        self.assertEqual(self.a['uuid'], b['parent_provider_uuid'])
        self.assertEqual(self.a['uuid'], b['root_provider_uuid'])

    def test_name_and_uuid(self):
        self.assertEqual(['b'], self.names(name='b'))
        self.assertEqual(['c'], self.names(uuid=self.c['uuid']))
        self.assertEqual([], self.names(name='b', uuid=self.c['uuid']))

    def test_in_tree(self):
        self.assertEqual(['a', 'b'], self.names(in_tree=self.b['uuid']))
        self.assertEqual([], self.names(in_tree=uuidutils.generate_uuid()))

    def test_member_of(self):
        self.assertEqual(['a'], self.names(member_of=[{self.agg1}]))
        self.assertEqual(['a', 'c'], self.names(member_of=[{self.agg2}]))
        self.assertEqual(['a'],
                         self.names(member_of=[{self.agg1, self.agg3},
                                               {self.agg2}]))
        self.assertEqual(['a', 'c'],
                         self.names(member_of=[{self.agg1, self.agg2}]))
        self.assertEqual([], self.names(member_of=[{self.agg1},
                                                   {self.agg3}]))
        self.assertEqual([], self.names(member_of=[{self.agg3}]))

    def test_forbidden_aggregates(self):
        self.assertEqual(['b', 'c'], self.names(forbidden_aggs={self.agg1}))
        self.assertEqual(['b'],
                         self.names(forbidden_aggs={self.agg1, self.agg2}))
        self.assertEqual(['c'], self.names(member_of=[{self.agg2}],
                                           forbidden_aggs={self.agg1}))

    def test_required_traits(self):
        self.assertEqual(['a', 'c'],
                         self.names(required_traits=[{'STORAGE_DISK_SSD'}]))
        self.assertEqual(['a'], self.names(
            required_traits=[{'STORAGE_DISK_SSD'}, {'HW_CPU_X86_AVX2'}]))
        self.assertEqual(['a', 'c'], self.names(
            required_traits=[{'HW_CPU_X86_AVX2', 'STORAGE_DISK_SSD'}]))
        self.assertEqual([], self.names(required_traits=[{'HW_CPU_X86_SGX'}]))

    def test_forbidden_traits(self):
        self.assertEqual(['b', 'c'],
                         self.names(forbidden_traits={'HW_CPU_X86_AVX2'}))
        self.assertEqual(['b'], self.names(
            forbidden_traits={'HW_CPU_X86_AVX2', 'STORAGE_DISK_SSD'}))
        self.assertEqual(['c'], self.names(
            required_traits=[{'STORAGE_DISK_SSD'}],
            forbidden_traits={'HW_CPU_X86_AVX2'}))

    def test_unknown_trait(self):
        exc = self.assertRaises(exception.TraitNotFound, self.names,
                                required_traits=[{'BOGUS', 'STORAGE_X'}])
        self.assertEqual('No such trait(s): BOGUS, STORAGE_X.', str(exc))
        self.assertRaises(exception.TraitNotFound, self.names,
                          forbidden_traits={'BOGUS'})

    def test_unknown_resource_class(self):
        exc = self.assertRaises(exception.ResourceClassNotFound, self.names,
                                resources={'CUSTOM_NOPE': 1})
        self.assertIn('CUSTOM_NOPE', str(exc))

    def test_resources_capacity(self):
        # (total - reserved) * ratio - used = (10 - 2) * 1.5 - 4 = 8
        self.inventory(self.a, 'VCPU', 10, reserved=2,
                       allocation_ratio=1.5, max_unit=10)
        self.allocate(self.a, 'VCPU', 4)
        self.assertEqual(['a'], self.names(resources={'VCPU': 8}))
        self.assertEqual([], self.names(resources={'VCPU': 9}))

    def test_resources_usage_is_the_providers_own(self):
        # Another provider's usage of the class does not count.
        self.inventory(self.a, 'VCPU', 4)
        self.inventory(self.c, 'VCPU', 4)
        self.allocate(self.c, 'VCPU', 3)
        self.assertEqual(['a', 'c'], self.names(resources={'VCPU': 1}))
        self.assertEqual(['a'], self.names(resources={'VCPU': 2}))

    def test_resources_units(self):
        self.inventory(self.c, 'DISK_GB', 100, min_unit=10, max_unit=50,
                       step_size=5)
        self.assertEqual(['c'], self.names(resources={'DISK_GB': 10}))
        self.assertEqual(['c'], self.names(resources={'DISK_GB': 50}))
        self.assertEqual([], self.names(resources={'DISK_GB': 5}))
        self.assertEqual([], self.names(resources={'DISK_GB': 55}))
        self.assertEqual([], self.names(resources={'DISK_GB': 12}))

    def test_resources_all_classes(self):
        self.inventory(self.a, 'VCPU', 4)
        self.inventory(self.a, 'MEMORY_MB', 1024)
        self.inventory(self.c, 'VCPU', 4)
        self.assertEqual(['a', 'c'], self.names(resources={'VCPU': 2}))
        self.assertEqual(['a'], self.names(resources={'VCPU': 2,
                                                      'MEMORY_MB': 512}))

    def test_everything_at_once_is_one_query(self):
        self.inventory(self.a, 'VCPU', 4)
        # Warm the name caches.
        self.names(resources={'VCPU': 1}, required_traits=[
            {'STORAGE_DISK_SSD'}])
        statements = []

        def count(conn, cursor, statement, *args):
            statements.append(statement)
        sa.event.listen(self.database.engine, 'before_cursor_execute',
                        count)
        self.addCleanup(sa.event.remove, self.database.engine,
                        'before_cursor_execute', count)
        self.assertEqual(['a'], self.names(
            name='a', in_tree=self.b['uuid'], member_of=[{self.agg1}],
            forbidden_aggs={self.agg3}, resources={'VCPU': 1},
            required_traits=[{'STORAGE_DISK_SSD'}],
            forbidden_traits={'HW_CPU_X86_SGX'}))
        selects = [s for s in statements
                   if s.lstrip().upper().startswith('SELECT')]
        self.assertEqual(1, len(selects), selects)


class ManyProvidersTestCase(ProviderTestCase):

    def test_list_thousand(self):
        now = timeutils.utcnow()

        @common.writer
        def bulk(context):
            context.session.execute(RP.insert(), [
                {'uuid': uuidutils.generate_uuid(), 'name': 'rp-%d' % i,
                 'generation': 0, 'created_at': now}
                for i in range(1000)])
            context.session.execute(RP.update().values(
                root_provider_id=RP.c.id))
        bulk(self.context)
        providers = objects.ResourceProviderList.get_all_by_filters(
            self.context)
        self.assertEqual(1000, len(providers))
        self.assertEqual(providers[0].uuid, providers[0].root_provider_uuid)


class ObjectTestCase(ProviderTestCase):

    def test_create_save_destroy(self):
        parent = objects.ResourceProvider(self.context, name='parent')
        parent.create()
        self.assertTrue(uuidutils.is_uuid_like(parent.uuid))
        self.assertEqual(0, parent.generation)
        self.assertEqual(parent.uuid, parent.root_provider_uuid)
        self.assertIsNone(parent.parent_provider_uuid)
        self.assertEqual(set(), parent.obj_what_changed())

        child = objects.ResourceProvider(
            self.context, uuid=uuidutils.generate_uuid(), name='child',
            parent_provider_uuid=parent.uuid)
        child.create()
        self.assertEqual(parent.uuid, child.root_provider_uuid)

        child.name = 'renamed'
        child.save()
        found = objects.ResourceProvider.get_by_uuid(self.context,
                                                     child.uuid)
        self.assertEqual('renamed', found.name)
        self.assertEqual(parent.uuid, found.parent_provider_uuid)

        found.parent_provider_uuid = None
        self.assertRaises(exception.ResourceProviderActionError, found.save)
        found.save(allow_reparenting=True)
        self.assertEqual(found.uuid, found.root_provider_uuid)

        found.destroy()
        self.assertRaises(exception.ResourceProviderNotFound,
                          objects.ResourceProvider.get_by_uuid,
                          self.context, child.uuid)

    def test_aggregates(self):
        rp = objects.ResourceProvider(self.context, name='rp')
        rp.create()
        agg = uuidutils.generate_uuid()
        rp.set_aggregates([agg])
        self.assertEqual(0, rp.generation)
        rp.set_aggregates([agg], increment_generation=True)
        self.assertEqual(1, rp.generation)
        self.assertEqual([agg], rp.get_aggregates())

    def test_list(self):
        for name in ('x', 'y'):
            objects.ResourceProvider(self.context, name=name).create()
        providers = objects.ResourceProviderList.get_all_by_filters(
            self.context, {'name': 'y'})
        self.assertEqual(['y'], [p.name for p in providers])
        self.assertIsInstance(providers[0], objects.ResourceProvider)


class ListingTests(object):
    """The API's list, rendered by each database.

    ``self.database`` is set up by the test case. The documents are
    compared with what the API's serializer makes of each provider's
    object; the newest change as each database writes
    times as text.
    """

    NAMES = ['plain', 'quote " and \\ and /', 'percent %s %d %% and \'',
             'snowman \u2603 and \U0001f600', 'control \n \t \x01 \x7f',
             'separator \u2028 and <script>', 'x' * 200]

    def request(self, version, script_name='/placement'):
        req = webob.Request.blank('/resource_providers')
        req.script_name = script_name
        req.environ[errors.VERSION_ENVIRON] = microversion_parse.Version(
            *version)
        return req

    def listed(self, req, filters=None):
        text, newest = objects.ResourceProviderList.get_listing_document(
            self.context, filters, rp_api.link_forms(req),
            req.environ[errors.VERSION_ENVIRON] >= (1, 14))
        return jsonutils.loads('[%s]' % text), newest

    def expected(self, req, providers):
        one = rp_api.serializer(req)
        return [one(objects.ResourceProvider.get_by_uuid(
            self.context, provider.uuid)) for provider in providers]

    def make_tree(self):
        made = []
        for name in self.NAMES:
            parent = made[0].uuid if made and name != 'x' * 200 else None
            provider = objects.ResourceProvider(
                self.context, name=name, parent_provider_uuid=parent)
            provider.create()
            made.append(provider)
        return made

    def test_documents_at_every_version_and_prefix(self):
        made = self.make_tree()
        for version in ((1, 0), (1, 1), (1, 6), (1, 11), (1, 13), (1, 14),
                        (1, 39)):
            for script_name in ('', '/placement', '/a%20b"c\\d\u00e9'):
                req = self.request(version, script_name)
                documents, _newest = self.listed(req)
                self.assertEqual(self.expected(req, made), documents)

    def test_documents_in_chunks(self):
        # More providers than a chunk holds, and chunks not all full.
        self.useFixture(fixtures_lib.MockPatchObject(
            rp_db, 'LISTING_CHUNK', 3))
        made = self.make_tree()
        req = self.request((1, 39))
        documents, _newest = self.listed(req)
        self.assertEqual(self.expected(req, made), documents)
        documents, _newest = self.listed(req, {'in_tree': made[0].uuid})
        self.assertEqual(self.expected(req, made[:-1]), documents)

    def test_listing_has_the_newest_change(self):
        made = {}
        for name in ('old', 'new', 'renamed'):
            made[name] = objects.ResourceProvider(self.context, name=name)
            made[name].create()
        made['renamed'].name = 'renamed-again'
        made['renamed'].save()
        stored = {name: objects.ResourceProvider.get_by_uuid(
            self.context, rp.uuid) for name, rp in made.items()}

        req = self.request((1, 39))
        documents, newest = self.listed(req)
        self.assertEqual(['old', 'new', 'renamed-again'],
                         [doc['name'] for doc in documents])
        self.assertEqual(stored['renamed'].updated_at, newest)

        # The newest of those the filters match only.
        _documents, newest = self.listed(req, {'name': 'new'})
        self.assertEqual(stored['new'].created_at, newest)
        documents, newest = self.listed(req, {'name': 'none'})
        self.assertEqual([], documents)
        self.assertIsNone(newest)


class ListingTestCase(ListingTests, ProviderTestCase):
    pass


class SerializeTestCase(base.TestCase):

    def request(self, version, script_name='/placement'):
        req = webob.Request.blank('/resource_providers')
        req.script_name = script_name
        req.environ[errors.VERSION_ENVIRON] = microversion_parse.Version(
            *version)
        return req

    def providers(self):
        now = timeutils.utcnow()
        root = uuidutils.generate_uuid()
        return [objects.ResourceProvider._from_values(
            self.context, id=1, uuid=uuidutils.generate_uuid(),
            name='child', generation=3, parent_provider_uuid=root,
            root_provider_uuid=root, created_at=now, updated_at=None)]

    def test_serialize_versions(self):
        provider = self.providers()[0]
        old = rp_api.serialize(self.request((1, 13)), provider)
        self.assertEqual({'uuid', 'name', 'generation', 'links'}, set(old))
        self.assertEqual(6, len(old['links']))
        new = rp_api.serialize(self.request((1, 14)), provider)
        self.assertEqual(provider.parent_provider_uuid,
                         new['parent_provider_uuid'])
        self.assertEqual(provider.root_provider_uuid,
                         new['root_provider_uuid'])
