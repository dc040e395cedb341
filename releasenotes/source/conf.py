# Sphinx configuration of the zun-hostcap release notes.

extensions = [
    'openstackdocstheme',
    'reno.sphinxext',
]

openstackdocs_repo_name = 'openstack/zun-hostcap'
openstackdocs_use_storyboard = False
openstackdocs_auto_name = False

templates_path = ['_templates']
source_suffix = '.rst'
master_doc = 'index'
project = 'zun-hostcap Release Notes'
copyright = '2026, zun-hostcap developers'
version = ''
release = ''
exclude_patterns = []
pygments_style = 'native'
html_theme = 'openstackdocs'
html_static_path = ['_static']
