# Sphinx configuration of the zun-hostcap documentation.

import os
import sys

sys.path.insert(0, os.path.abspath('../ext'))

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
