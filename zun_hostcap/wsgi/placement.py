"""``zun_hostcap.wsgi.placement:application``: the Placement API alone.

For an operator who runs it as OpenStack Placement runs, behind uwsgi or
mod_wsgi, at the root of its own endpoint. The configuration is found as
for ``zun_hostcap.wsgi.api`` (ZUN_HOSTCAP_CONFIG_FILE, else oslo.config's
default locations).
"""

import threading

from zun_hostcap.api.placement import app
from zun_hostcap.common import memory
from zun_hostcap.wsgi import api as wsgi_api

_application = None
_lock = threading.Lock()


def init_application():
    wsgi_api.prepare()
    application = app.setup_standalone_app()
    memory.freeze_startup_objects()
    return application


def application(environ, start_response):
    """Built on the first request, in the worker that serves it."""
    global _application
    if _application is None:
        with _lock:
            if _application is None:
                try:
                    _application = init_application()
                except SystemExit as exc:
                    return wsgi_api._misconfigured(str(exc.code), environ,
                                                   start_response)
    return _application(environ, start_response)
