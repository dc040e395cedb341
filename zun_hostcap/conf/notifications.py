"""Options of versioned notifications."""

from oslo_config import cfg

notifications_group = cfg.OptGroup(
    'notifications',
    title='Notifications',
    help='What zun-hostcap tells oslo.messaging listeners (billing, '
         'monitoring, search indexes) when a compute node changes. As in '
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
]


def register_opts(conf):
    conf.register_group(notifications_group)
    conf.register_opts(notifications_opts, group=notifications_group)


def list_opts():
    return {notifications_group: notifications_opts}
