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

"""Versioned objects. Import a class as ``zun_hostcap.objects.<Name>``."""


def register_all():
    """Import every object module so the registry knows each class."""
    # The imports register the classes as zun_hostcap.objects.<Name>.
    from zun_hostcap.objects import allocation  # noqa: F401
    from zun_hostcap.objects import compute_node  # noqa: F401
    from zun_hostcap.objects import consumer  # noqa: F401
    from zun_hostcap.objects import inventory  # noqa: F401
    from zun_hostcap.objects.notifications import (  # noqa: F401
        compute_node as compute_node_notifications)
    from zun_hostcap.objects import numa  # noqa: F401
    from zun_hostcap.objects import pci_device_pool  # noqa: F401
    from zun_hostcap.objects import resource_class  # noqa: F401
    from zun_hostcap.objects import resource_provider  # noqa: F401
    from zun_hostcap.objects import service  # noqa: F401
    from zun_hostcap.objects import trait  # noqa: F401
    from zun_hostcap.objects import usage  # noqa: F401
