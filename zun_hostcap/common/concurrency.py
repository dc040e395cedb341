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

"""Proof, at run time, that a service runs on native threads.

oslo.service still installs eventlet and futurist imports it when present,
so the presence of the module proves nothing; what matters is whether
anything was monkey-patched and whether work runs on OS threads.
"""

import socket
import sys
import threading
import time

from oslo_log import log as logging

LOG = logging.getLogger(__name__)

_logged = set()
_logged_lock = threading.Lock()

# Modules eventlet.monkey_patch() replaces.
_PATCHABLE = ('os', 'select', 'socket', 'thread', 'time', 'psycopg',
              'MySQLdb', 'builtins', 'subprocess')


def monkey_patched_modules():
    """Names of the modules eventlet has patched in this process."""
    patched = []
    eventlet_patcher = sys.modules.get('eventlet.patcher')
    if eventlet_patcher is not None:
        patched.extend(name for name in _PATCHABLE
                       if eventlet_patcher.is_monkey_patched(name))
    # Independent of eventlet's own bookkeeping: the stdlib objects must
    # be the C implementations.
    if type(time.sleep).__name__ != 'builtin_function_or_method':
        patched.append('time.sleep')
    if socket.socket.__module__ != 'socket':
        patched.append('socket.socket')
    if threading.get_ident.__module__ not in ('_thread', None):
        patched.append('threading.get_ident')
    return sorted(set(patched))


def running_on_native_thread():
    """True if the caller runs on an OS thread, not in a green thread."""
    current = threading.current_thread()
    if not isinstance(current, threading.Thread):
        return False
    greenlet = sys.modules.get('greenlet')
    if greenlet is not None and greenlet.getcurrent().parent is not None:
        # A greenlet with a parent is a green thread scheduled by a hub.
        return False
    return current.native_id is not None


def describe(where):
    """One log line that says how ``where`` is running."""
    patched = monkey_patched_modules()
    return ('concurrency check: %s runs in thread %r (%s, native=%s); '
            'monkey-patched: %s' % (
                where, threading.current_thread().name,
                type(threading.current_thread()).__name__,
                running_on_native_thread(),
                ', '.join(patched) or 'none'))


def log_once(where):
    """Log ``describe(where)`` the first time ``where`` runs, at INFO.

    Called from the code whose thread matters (an RPC handler, a periodic
    task), so the line tells how that code really runs.
    """
    with _logged_lock:
        if where in _logged:
            return
        _logged.add(where)
    LOG.info(describe(where))
