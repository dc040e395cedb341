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

"""Request context carried through the API, RPC and the database."""

import contextlib

from oslo_context import context
from oslo_db.sqlalchemy import enginefacade

from zun_hostcap.common import log_safety


@enginefacade.transaction_context_provider
class RequestContext(context.RequestContext):
    """The security context of one request or one periodic job."""

    def to_dict(self):
        values = super().to_dict()
        # Roles travel so that an RPC peer rebuilds the same admin flag.
        values['roles'] = list(self.roles)
        return values

    def get_logging_values(self):
        """What oslo.log shows of the context, on one line whatever it is.

        Ids, user and project names may come from a client (noauth2's
        token is its user id), so their control characters are escaped.
        """
        return {key: log_safety.escape(value) if isinstance(value, str)
                else value
                for key, value in super().get_logging_values().items()}

    @classmethod
    def from_dict(cls, values, **kwargs):
        kwargs.setdefault('roles', values.get('roles', []))
        return super().from_dict(values, **kwargs)


def get_admin_context():
    """A context for work the service does on its own behalf."""
    return RequestContext(is_admin=True, roles=['admin'], overwrite=False)


def clear_thread_context():
    """The calling thread's log lines name no request from here on.

    oslo.log names the context oslo.context keeps for the thread, the
    last one made with ``overwrite=True`` on it; start-up and stop lines
    belong to no request and must not name the last one the thread
    served. oslo.context has no public call that empties its store.
    """
    context._request_store.context = None


@contextlib.contextmanager
def thread_context_kept():
    """Restores the thread's context (or none) after the block.

    For work of another request run in the caller's thread, such as the
    all-in-one's conductor calls made without a transport.
    """
    previous = context.get_current()
    try:
        yield
    finally:
        if previous is None:
            clear_thread_context()
        else:
            previous.update_store()
