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

"""``zun_hostcap.wsgi.placement:application``: the Placement API alone.

For an operator who runs it as OpenStack Placement runs, behind uwsgi or
mod_wsgi, at the root of its own endpoint. The configuration is found as
for ``zun_hostcap.wsgi.api`` (ZUN_HOSTCAP_CONFIG_FILE, else oslo.config's
default locations).
"""

from zun_hostcap.api.placement import app
from zun_hostcap.wsgi import api as wsgi_api


def init_application():
    wsgi_api.prepare()
    return app.setup_standalone_app()


# Built on the first request, in the worker that serves it.
application = wsgi_api.LazyApplication(init_application)
