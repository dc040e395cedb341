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

"""NUMA topology of a compute node."""

from oslo_versionedobjects import fields

from zun_hostcap.objects import base


@base.ZunHostcapObjectRegistry.register
class NUMANode(base.ZunHostcapObject):
    """One NUMA cell: its CPUs and memory (MiB)."""

    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'id': fields.IntegerField(read_only=True),
        'cpuset': fields.SetOfIntegersField(),
        'pinned_cpus': fields.SetOfIntegersField(),
        'mem_total': fields.IntegerField(),
        'mem_available': fields.IntegerField(),
    }

    @property
    def free_cpus(self):
        return self.cpuset - self.pinned_cpus

    def to_dict(self):
        """Plain data, as stored in the database."""
        return {'id': self.id,
                'cpuset': sorted(self.cpuset),
                'pinned_cpus': sorted(self.pinned_cpus),
                'mem_total': self.mem_total,
                'mem_available': self.mem_available}

    @classmethod
    def from_dict(cls, data):
        """The cell ``to_dict()`` stored, built without coercion.

        Its values are of the fields' types already.
        """
        return cls._from_values(
            None, id=data['id'], cpuset=set(data['cpuset']),
            pinned_cpus=set(data.get('pinned_cpus', ())),
            mem_total=data['mem_total'],
            mem_available=data['mem_available'])


@base.ZunHostcapObjectRegistry.register
class NUMATopology(base.ZunHostcapObject):
    """The NUMA cells of a host, ordered by id."""

    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'nodes': fields.ListOfObjectsField('NUMANode'),
    }

    def obj_what_changed(self):
        # oslo.versionedobjects does not look into lists of objects.
        changed = super().obj_what_changed()
        if self.obj_attr_is_set('nodes') and any(
                node.obj_what_changed() for node in self.nodes):
            changed.add('nodes')
        return changed

    def obj_reset_changes(self, fields=None, recursive=False):
        super().obj_reset_changes(fields, recursive)
        if recursive and self.obj_attr_is_set('nodes'):
            for node in self.nodes:
                node.obj_reset_changes(recursive=True)

    def to_dict(self):
        return {'nodes': [node.to_dict() for node in self.nodes]}

    @staticmethod
    def plain(data):
        """``from_dict(data).to_dict()``, without building the objects."""
        return {'nodes': [{'id': node['id'],
                           'cpuset': sorted(node['cpuset']),
                           'pinned_cpus': sorted(node.get('pinned_cpus', ())),
                           'mem_total': node['mem_total'],
                           'mem_available': node['mem_available']}
                          for node in data.get('nodes', ())]}

    @classmethod
    def from_dict(cls, data):
        """The topology ``to_dict()`` stored, built without coercion."""
        from_dict = NUMANode.from_dict
        return cls._from_values(None, nodes=[
            from_dict(node) for node in data.get('nodes', ())])
