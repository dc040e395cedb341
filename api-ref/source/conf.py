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

# Sphinx configuration of the zun-hostcap API reference (os-api-ref).
#
# Build it with "tox -e api-ref"; the pages are in api-ref/build/html.

extensions = [
    'os_api_ref',
    'openstackdocstheme',
]

project = 'zun-hostcap API Reference'
copyright = '2026, zun-hostcap developers'
master_doc = 'index'
source_suffix = '.rst'
exclude_patterns = []
pygments_style = 'native'

html_theme = 'openstackdocs'
html_theme_options = {
    'sidebar_mode': 'toc',
}

# openstackdocstheme: keep the project name above instead of the one of
# setup.cfg; the API reference is not versioned with the package.
openstackdocs_repo_name = 'openstack/zun-hostcap'
openstackdocs_bug_project = 'zun-hostcap'
openstackdocs_bug_tag = 'api-ref'
openstackdocs_use_storyboard = False
openstackdocs_auto_name = False

# os-api-ref: the microversion selector at the top of each page.
os_api_ref_min_microversion = '1.1'
os_api_ref_max_microversion = '1.40'


def _reset_path_params(app, docname, source):
    # os-api-ref keeps the path parameters of the last rest_method on the
    # build environment; give every page a fresh list, so that a page with
    # parameter tables but no rest_method (errors, microversions) builds.
    app.env.path_params = []


def setup(app):
    app.connect('source-read', _reset_path_params)
