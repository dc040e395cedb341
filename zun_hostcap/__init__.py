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

"""zun-hostcap: host capabilities and resource inventory for OpenStack.

oslo.service must use its threading backend, and it has to be chosen before
the first import of oslo_service.service, which oslo.messaging (and so
oslo.versionedobjects) triggers at import time. Selecting it here, when the
package is first imported, makes that true for every service, script and
test. Nothing is monkey-patched.

A program that imported oslo.messaging before us (oslo-config-generator,
say) has the eventlet default already; that is harmless for it, and every
zun-hostcap service refuses to start in such a process.
"""

import warnings

# futurist imports eventlet whenever it is installed (oslo.service depends
# on it), and eventlet then warns that it is deprecated. We never use it;
# the banner would only mislead an operator reading our logs.
warnings.filterwarnings('ignore', message=r'\s*Eventlet is deprecated')

from oslo_service import backend as _service_backend  # noqa: E402
from oslo_service.backend import exceptions as _backend_exceptions  # noqa

try:
    _service_backend.init_backend(_service_backend.BackendType.THREADING)
except _backend_exceptions.BackendAlreadySelected:
    pass
