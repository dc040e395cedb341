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

"""Entry points for oslo-config-generator.

oslo.messaging's options are listed here, in our namespace, rather than
by the generator loading the ``oslo.messaging`` namespace itself: that
imports oslo_messaging before any module of ours, and oslo.messaging
imports oslo_service.service, which then picks oslo.service's eventlet
backend, and eventlet warns that it is deprecated. Loaded through us,
the threading backend is chosen first (``zun_hostcap/__init__.py``).
"""

from oslo_messaging import opts as messaging_opts
from oslo_service import service as oslo_service

from zun_hostcap.conf import api
from zun_hostcap.conf import compute
from zun_hostcap.conf import conductor
from zun_hostcap.conf import database
from zun_hostcap.conf import docker
from zun_hostcap.conf import metrics
from zun_hostcap.conf import notifications
from zun_hostcap.conf import pci
from zun_hostcap.conf import placement
from zun_hostcap.conf import service
from zun_hostcap.conf import upgrade_levels

_MODULES = (service, api, compute, conductor, database, docker,
            metrics, notifications, pci, placement, upgrade_levels)


# oslo.service's options that zun-hostcap honours (see
# zun_hostcap.service.serve); its backdoor ones do nothing with the
# threading backend, so its namespace is not in the sample.
_SERVICE_OPTS = ('log_options', 'graceful_shutdown_timeout')


def _service_opts():
    return [opt for _group, opts in oslo_service.list_opts()
            for opt in opts if opt.dest in _SERVICE_OPTS]


def list_opts():
    """Return [(group, [opts])] for every option zun-hostcap defines."""
    merged = {}
    for module in _MODULES:
        for group, opts in module.list_opts().items():
            merged.setdefault(group, []).extend(opts)
    merged['DEFAULT'].extend(_service_opts())
    result = [(group, opts) for group, opts in merged.items()]
    # oslo.messaging's groups apart from ours, as from a namespace of
    # their own; its None is [DEFAULT].
    result.extend((group or 'DEFAULT', list(opts))
                  for group, opts in messaging_opts.list_opts())
    return result


def set_lib_defaults():
    """Our defaults for options that libraries own, for the generator."""
    database.set_defaults()
    api.set_middleware_defaults()
