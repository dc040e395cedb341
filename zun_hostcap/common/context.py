"""Request context carried through the API, RPC and the database."""

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
