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

"""Options of versioned notifications."""

from oslo_config import cfg

notifications_group = cfg.OptGroup(
    'notifications',
    title='Notifications',
    help='What zun-hostcap tells oslo.messaging listeners (billing, '
         'monitoring, search indexes) when a compute node or the resource '
         'provider model (providers, inventories, traits, aggregates, '
         'allocations) changes. As in '
         'every oslo service, nothing is sent unless '
         '[oslo_messaging_notifications] driver names a driver (such as '
         'messagingv2); that section also holds the transport and the '
         'topics of the legacy format.')

notifications_opts = [
    cfg.StrOpt('notification_format',
               default='versioned',
               choices=[
                   ('versioned', 'Versioned notifications only: payloads '
                                 'are versioned objects with a schema.'),
                   ('unversioned', 'The legacy format only: plain '
                                   'dictionaries, sent to '
                                   '[oslo_messaging_notifications] '
                                   'topics.'),
                   ('both', 'Both formats.'),
                   ('none', 'Send nothing.')],
               help='Which notifications to send.'),
    cfg.ListOpt('versioned_notifications_topics',
                default=['versioned_notifications'],
                help='Topics versioned notifications are sent to. '
                     'Listeners subscribe to one of them; add a topic to '
                     'give a new consumer its own copy.'),
    cfg.BoolOpt('placement_notifications',
                default=True,
                help='Send resource_provider.* and allocation.* '
                     'notifications for every change the Placement API '
                     'commits (when notifications are on at all). They '
                     'are queued by the request and sent by a thread of '
                     'their own, in order, so that a slow or stopped '
                     'broker never delays or fails a request; see '
                     '[oslo_messaging_notifications] retry for how long '
                     'a send waits for the broker. False sends none of '
                     'them and leaves compute_node.* notifications as '
                     'they are.'),
    cfg.IntOpt('max_queued_notifications',
               default=10000, min=1,
               help='Notifications an API process holds while the message '
                    'broker is slow or away (those of the Placement API, '
                    'which a request queues rather than waits for). One '
                    'more is dropped, with one warning line each. While '
                    'the broker is away they are held as long as '
                    '[oslo_messaging_notifications] retry lets a send '
                    'wait; forever by default.'),
]


def register_opts(conf):
    conf.register_group(notifications_group)
    conf.register_opts(notifications_opts, group=notifications_group)


def list_opts():
    return {notifications_group: notifications_opts}
