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

"""Object versions, fingerprints and compatibility rules."""

from oslo_versionedobjects import base as ovo_base
from oslo_versionedobjects import fixture

from zun_hostcap.objects import base
from zun_hostcap.tests import base as test_base

# Change a fingerprint only together with the object's VERSION, a comment
# line for the new version and obj_make_compatible for the old one.
EXPECTED_OBJECT_FINGERPRINTS = {
    'Allocation': '1.0-1d482e5d5cdd02d2f34a4418e6eab3a3',
    'AllocationNotification': '1.0-a73147b93b520ff0061865849d3dfa56',
    'AllocationPayload': '1.0-a15861b5166cc7034dfa8dfa52b68369',
    'ComputeNode': '1.1-c7249784708344bc42c0d4abc530f070',
    'ComputeNodeDeleteNotification': '1.0-a73147b93b520ff0061865849d3dfa56',
    'ComputeNodeDeletePayload': '1.0-a4eec6990d3265a9323d22035371f4af',
    'ComputeNodeList': '1.0-4bc44e4129334c9eb80efff7ec0c2cff',
    'ComputeNodeNotification': '1.0-a73147b93b520ff0061865849d3dfa56',
    'ComputeNodePayload': '1.0-f78992d4a60f75639c76ef317d695c25',
    'Consumer': '1.0-9f241c4166938fa34fe0cbf1005256de',
    'EventType': '1.0-00fb1d42b557d80318fff0796b1968cf',
    'Inventory': '1.0-783d66e09407504365fd6b709e1fdc98',
    'InventoryList': '1.0-7d71fca414c71ad2230d2fcbf881c6b1',
    'InventoryPayload': '1.0-60dea09db2180b752d6ffbc47973876c',
    'NUMANode': '1.0-f6f5568bf22d5698573c03d913c14428',
    'NUMANodePayload': '1.0-f6f5568bf22d5698573c03d913c14428',
    'NUMATopology': '1.0-b54086eda7e4b2e6145ecb6ee2c925ab',
    'NotificationPublisher': '1.0-578ee5fea2922ff32e8917621f140857',
    'PciDevicePool': '1.0-4ff40d0d7b017470df447a3124dd0a9a',
    'PciDevicePoolList': '1.0-15ecf022a68ddbb8c2a6739cfc9f8f5e',
    'ResourceClass': '1.0-6e7be3ba8dd9fa529f944bcf9612b287',
    'ResourceClassList': '1.0-15ecf022a68ddbb8c2a6739cfc9f8f5e',
    'ResourceProvider': '1.0-5dbb96fc693074f5391939bfd8ee5f9b',
    'ResourceProviderAggregatesNotification':
        '1.0-a73147b93b520ff0061865849d3dfa56',
    'ResourceProviderAggregatesPayload':
        '1.0-3e603765de2b4c2c3bd3193f53d66ef3',
    'ResourceProviderInventoryNotification':
        '1.0-a73147b93b520ff0061865849d3dfa56',
    'ResourceProviderInventoryPayload': '1.0-0fbefd1d9df0cd3a9f2095f6a6623e49',
    'ResourceProviderList': '1.0-15ecf022a68ddbb8c2a6739cfc9f8f5e',
    'ResourceProviderNotification': '1.0-a73147b93b520ff0061865849d3dfa56',
    'ResourceProviderPayload': '1.0-9f37c19ee899a374feec3fbb2e8e0ad5',
    'ResourceProviderTraitsNotification':
        '1.0-a73147b93b520ff0061865849d3dfa56',
    'ResourceProviderTraitsPayload': '1.0-75e7d6c2524515c59e7025bd2acfc935',
    'Service': '1.1-ce372a49c7866d0f9dbd016519fbbd88',
    'ServiceList': '1.0-b53ab8a253f68874bb9072ba1c78d54f',
    'Trait': '1.0-6e7be3ba8dd9fa529f944bcf9612b287',
    'TraitList': '1.0-15ecf022a68ddbb8c2a6739cfc9f8f5e',
    'Usage': '1.0-96fe492ec0a4b5cfd5b5db75344e57c6',
}


class TestObjectVersions(test_base.TestCase):

    def _classes(self):
        return base.ZunHostcapObjectRegistry.obj_classes()

    def test_versions(self):
        checker = fixture.ObjectVersionChecker(self._classes())
        expected, actual = checker.test_hashes(EXPECTED_OBJECT_FINGERPRINTS)
        self.assertEqual(expected, actual,
                         'Fields or remotable methods changed: bump the '
                         'version, then update the fingerprint here.')

    def test_every_bumped_object_makes_itself_compatible(self):
        # A version after 1.0 means an older peer exists to backport to.
        for name, classes in self._classes().items():
            for cls in classes:
                if cls.VERSION == '1.0' or issubclass(
                        cls, ovo_base.ObjectListBase):
                    continue
                self.assertIsNot(
                    ovo_base.VersionedObject.obj_make_compatible,
                    cls.obj_make_compatible,
                    '%s %s has no obj_make_compatible' % (name,
                                                          cls.VERSION))

    def test_relationships(self):
        # Child versions each parent version contains, for backports.
        checker = fixture.ObjectVersionChecker(self._classes())
        tree = checker.get_dependency_tree()
        self.assertEqual({'NUMATopology': '1.0',
                          'PciDevicePoolList': '1.0'},
                         tree['ComputeNode'])

    def test_objects_are_importable_by_name(self):
        from zun_hostcap import objects
        for name in EXPECTED_OBJECT_FINGERPRINTS:
            self.assertTrue(hasattr(objects, name), name)
