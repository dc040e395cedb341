"""``zun_hostcap.wsgi.api:application`` for uwsgi, mod_wsgi and friends.

The configuration is read from the files named, comma-separated, in the
environment variable ZUN_HOSTCAP_CONFIG_FILE, else from oslo.config's
default locations (such as /etc/zun-hostcap/zun-hostcap.conf).
"""

import os
import threading

from zun_hostcap.api import app
from zun_hostcap.common import service

CONFIG_FILE_ENV = 'ZUN_HOSTCAP_CONFIG_FILE'

_application = None
_lock = threading.Lock()


def init_application():
    """Parse the configuration and build the application."""
    files = [path for path in
             os.environ.get(CONFIG_FILE_ENV, '').split(',') if path]
    service.prepare_service(['zun-hostcap-api'],
                            default_config_files=files or None)
    return app.setup_app()


def application(environ, start_response):
    """Built on the first request, in the worker that serves it.

    Loading lazily keeps database connections out of a server's master
    process, which forks the workers.
    """
    global _application
    if _application is None:
        with _lock:
            if _application is None:
                _application = init_application()
    return _application(environ, start_response)
