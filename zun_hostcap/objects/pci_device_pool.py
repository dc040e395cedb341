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

"""PCI devices of a compute node, pooled by kind and NUMA node."""

from oslo_versionedobjects import fields

from zun_hostcap.objects import base


@base.ZunHostcapObjectRegistry.register
class PciDevicePool(base.ZunHostcapObject):
    """``count`` devices of one vendor/product on one NUMA node."""

    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'vendor_id': fields.StringField(),
        'product_id': fields.StringField(),
        'numa_node': fields.IntegerField(nullable=True),
        'count': fields.NonNegativeIntegerField(),
        'tags': fields.DictOfNullableStringsField(),
    }

    def to_dict(self):
        return {'vendor_id': self.vendor_id,
                'product_id': self.product_id,
                'numa_node': self.numa_node,
                'count': self.count,
                'tags': dict(self.tags)}

    @classmethod
    def from_dict(cls, data):
        """The pool ``to_dict()`` stored, built without coercion."""
        return cls._from_values(None, vendor_id=data['vendor_id'],
                                product_id=data['product_id'],
                                numa_node=data.get('numa_node'),
                                count=data['count'],
                                tags=dict(data.get('tags') or {}))


@base.ZunHostcapObjectRegistry.register
class PciDevicePoolList(base.ObjectListBase, base.ZunHostcapObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('PciDevicePool'),
    }

    def to_list(self):
        return [pool.to_dict() for pool in self.objects]

    @staticmethod
    def plain(data):
        """``from_list(data).to_list()``, without building the objects."""
        return [{'vendor_id': pool['vendor_id'],
                 'product_id': pool['product_id'],
                 'numa_node': pool.get('numa_node'),
                 'count': pool['count'],
                 'tags': dict(pool.get('tags') or {})}
                for pool in data or ()]

    @classmethod
    def from_list(cls, data):
        """The pools ``to_list()`` stored, built without coercion."""
        from_dict = PciDevicePool.from_dict
        return cls._from_values(None, objects=[from_dict(pool)
                                               for pool in data or ()])
