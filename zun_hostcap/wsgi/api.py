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

"""``zun_hostcap.wsgi.api:application`` for uwsgi, mod_wsgi and friends.

The configuration is read from the files named, comma-separated, in the
environment variable ZUN_HOSTCAP_CONFIG_FILE, else from oslo.config's
default locations (such as /etc/zun-hostcap/zun-hostcap.conf).
"""

import logging
import os
import threading

from zun_hostcap.api import app
from zun_hostcap.api import auth
from zun_hostcap.api import errors
from zun_hostcap.common import config_check
from zun_hostcap.common import memory
from zun_hostcap.common import metrics
from zun_hostcap import service

CONFIG_FILE_ENV = 'ZUN_HOSTCAP_CONFIG_FILE'

# Not oslo.log's: when the configuration cannot be read, it is not set up.
LOG = logging.getLogger(__name__)

MISCONFIGURED = ('The service is misconfigured and cannot serve requests; '
                 'its log names the option to fix.')


def prepare():
    """Parse and check the configuration, and set logging up.

    :raises SystemExit: a misconfiguration, in one line per mistake.
    """
    files = [path for path in
             os.environ.get(CONFIG_FILE_ENV, '').split(',') if path]
    service.prepare_service(['zun-hostcap-api'],
                            default_config_files=files or None)
    try:
        auth.check_configuration()
        metrics.setup(service.CONF)
    except config_check.StartupError as err:
        raise SystemExit('zun-hostcap-api: %s' % err)


def init_application():
    """The whole API, from the checked configuration.

    :raises SystemExit: a misconfiguration, in one line per mistake.
    """
    prepare()
    return app.setup_app()


def _misconfigured(message, environ, start_response):
    """503 for a client; the reason, in one line, for the operator."""
    LOG.error('%s', message)
    resp = errors.response(503, MISCONFIGURED, errors.SERVICE_UNAVAILABLE)
    return resp(environ, start_response)


class LazyApplication(object):
    """A WSGI callable built on the first request, in the worker serving it.

    Loading lazily keeps database connections out of a server's master
    process, which forks the workers. A misconfiguration answers 503 and
    is tried again at the next request, so fixing the file and reloading
    the server is enough. ``build()`` makes the application or raises
    SystemExit with the reason; ``built`` is the application once made.
    """

    def __init__(self, build):
        self._build = build
        self._lock = threading.Lock()
        self.built = None

    def __call__(self, environ, start_response):
        if self.built is None:
            with self._lock:
                if self.built is None:
                    try:
                        built = self._build()
                    except SystemExit as exc:
                        return _misconfigured(str(exc.code), environ,
                                              start_response)
                    # What the process holds now lives as long as it.
                    memory.freeze_startup_objects()
                    self.built = built
        return self.built(environ, start_response)


application = LazyApplication(init_application)
