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

# Sphinx configuration of the zun-hostcap documentation.

import configparser
import os
import sys

sys.path.insert(0, os.path.abspath('../ext'))

# The release before this one, as the upgrade test reads it.
_previous = configparser.ConfigParser()
_previous.read(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            '..', '..', 'tools', 'previous-release.ini'))
rst_epilog = '''
.. |previous_release| replace:: %s
.. |previous_release_commit| replace:: ``%s``
''' % (_previous['previous_release']['name'],
       _previous['previous_release']['commit'][:10])

extensions = [
    'openstackdocstheme',
    'oslo_config.sphinxext',
    'versioned_notifications',
]

openstackdocs_repo_name = 'openstack/zun-hostcap'
openstackdocs_use_storyboard = False
openstackdocs_auto_name = False

config_generator_config_file = (
    '../../etc/zun-hostcap/zun-hostcap-config-generator.conf')

source_suffix = '.rst'
master_doc = 'index'
project = 'zun-hostcap'
copyright = '2026, zun-hostcap developers'
exclude_patterns = []
pygments_style = 'native'
html_theme = 'openstackdocs'
