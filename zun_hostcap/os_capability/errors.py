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

"""Exceptions raised by host capability discovery."""


class CapabilityError(Exception):
    """A host capability source was missing, unreadable or malformed.

    ``source`` names where the data came from (a file such as
    ``/proc/meminfo`` or a command such as ``lscpu``) and ``reason`` says
    what was wrong with it, so ``str(exc)`` reads like
    ``"/proc/meminfo: no MemTotal line"``. ``parameter`` names the driver
    argument that chose the source (``'disk_path'``, ``'cpu_source'``), or
    is None, so a caller can point at the setting to fix.
    """

    def __init__(self, source, reason, parameter=None):
        # Pass source and reason to Exception so the error pickles and
        # copies cleanly; parameter travels in __dict__.
        super().__init__(source, reason)
        self.source = source
        self.reason = reason
        self.parameter = parameter

    def __str__(self):
        return '%s: %s' % (self.source, self.reason)
