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
