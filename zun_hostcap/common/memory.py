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

"""The garbage collector of a process that serves requests.

CPython's cyclic collector walks every tracked object of the process at
each full collection. Once the API has loaded its modules, configuration,
policy rules and SQLAlchemy metadata it holds some 150,000 objects that
live as long as the process, and a request that builds many objects (the
1,000-provider list builds thousands) triggers collections that walk them
all again: 2 to 10 ms of such a request. ``gc.freeze()`` moves what exists
at start-up out of the collector's reach; what requests allocate is
collected as before.
"""

import gc


def freeze_startup_objects():
    """Collect once, then keep today's objects out of later collections.

    Called when the application is built, in the process that serves.
    """
    gc.collect()
    gc.freeze()
