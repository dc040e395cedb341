# Sphinx configuration of the zun-hostcap documentation.

extensions = [
    'openstackdocstheme',
    'oslo_config.sphinxext',
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
