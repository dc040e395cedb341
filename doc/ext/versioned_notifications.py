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

"""Sphinx directive ``versioned_notifications``.

Lists every notification zun-hostcap sends, straight from the registered
objects: event type, notification and payload classes with their versions,
each payload field with its type and where it comes from, and the sample.
"""

import json
import os

from docutils import nodes
from docutils.parsers.rst import Directive

from zun_hostcap import objects
from zun_hostcap.objects import base
from zun_hostcap.objects.notifications import base as notification

SAMPLES_DIR = os.path.join(os.path.dirname(__file__), '..',
                           'notification_samples')


def _field_type(field):
    return type(field).__name__.replace('Field', '') + (
        ', nullable' if field.nullable else '')


def _table(rows, header):
    table = nodes.table()
    group = nodes.tgroup(cols=len(header))
    table += group
    for _ in header:
        group += nodes.colspec(colwidth=1)
    head = nodes.thead()
    group += head
    body = nodes.tbody()
    group += body
    for target, cells in ((head, [header]), (body, rows)):
        for cells_of_row in cells:
            row = nodes.row()
            for cell in cells_of_row:
                entry = nodes.entry()
                entry += nodes.paragraph(text=str(cell))
                row += entry
            target += row
    return table


class VersionedNotificationsDirective(Directive):

    def run(self):
        objects.register_all()
        result = []
        for name, classes in sorted(
                base.ZunHostcapObjectRegistry.obj_classes().items()):
            cls = classes[0]
            if not issubclass(cls, notification.NotificationBase):
                continue
            for sample_file in getattr(cls, 'samples', ()):
                result.extend(self._notification(cls, sample_file))
        return result

    def _notification(self, cls, sample_file):
        with open(os.path.join(SAMPLES_DIR, sample_file)) as f:
            sample = json.load(f)
        payload_name = sample['payload']['zun_hostcap_object.name']
        payload_cls = base.ZunHostcapObjectRegistry.obj_classes()[
            payload_name][0]
        section = nodes.section(ids=[sample['event_type']])
        section += nodes.title(text=sample['event_type'])
        section += nodes.paragraph(text=(
            'Notification %s %s, payload %s %s, priority %s. %s' % (
                cls.obj_name(), cls.VERSION, payload_name,
                payload_cls.VERSION, sample['priority'],
                (payload_cls.__doc__ or '').strip())))
        rows = []
        for field_name, field in sorted(payload_cls.fields.items()):
            source = payload_cls.SCHEMA.get(field_name)
            rows.append((field_name, _field_type(field),
                         '%s.%s' % source if source else 'computed'))
        section += _table(rows, ('Field', 'Type', 'Source'))
        text = json.dumps(sample, indent=4, sort_keys=True)
        block = nodes.literal_block(text, text)
        block['language'] = 'json'
        section += block
        return [section]


def setup(app):
    app.add_directive('versioned_notifications',
                      VersionedNotificationsDirective)
    return {'parallel_read_safe': True}
