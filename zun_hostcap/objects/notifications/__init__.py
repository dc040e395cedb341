"""Versioned notifications: payload objects and the notifications that
carry them.

Adding a notification takes a payload class with a SCHEMA, a notification
class naming it, a sample in doc/notification_samples/ and one call to
``emit()`` where the change happens.
"""
