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

"""Gabbi fixtures: configuration and data behind the API tests.

The YAML files under ``tests/gabbits`` name these fixtures. Unit tests
run them against the application in-process; the functional tests run
the same files against a live zun-hostcap-api (see
``tests/functional/api_fixtures.py``), with the same data.
"""

import datetime
import os

from oslo_utils import uuidutils

from gabbi import fixture as gabbi_fixture
from keystonemiddleware import auth_token
from keystonemiddleware import fixture as ksm_fixture
from oslo_config import fixture as config_fixture
from oslo_utils import timeutils

from zun_hostcap.api import app
from zun_hostcap.common import context
from zun_hostcap.common import policy
import zun_hostcap.conf
from zun_hostcap import objects
from zun_hostcap.tests import fixtures as zun_fixtures

CONF = zun_hostcap.conf.CONF

# Tokens the keystone fixture knows.
KEYSTONE_ADMIN_TOKEN = 'keystone-admin-token'
KEYSTONE_MEMBER_TOKEN = 'keystone-member-token'

# What the fixtures configure, for a live server to be given the same.
CONFIG = {
    'api': {'auth_strategy': 'noauth2'},
    'notifications': {'notification_format': 'none'},
    'cors': {'allowed_origin': 'https://dashboard.example.com'},
    'oslo_middleware': {
        # Small, so that a test can cross it with a short body.
        'max_request_body_size': 256,
        # As behind a TLS-terminating proxy.
        'enable_proxy_headers_parsing': True,
    },
}


def setup_app():
    """The application under test, for gabbi's intercept.

    gabbi asks for it before the fixtures run; it is built on the first
    request, from the configuration the fixtures set.
    """
    built = []

    def application(environ, start_response):
        if not built:
            built.append(app.setup_app())
        return built[0](environ, start_response)
    return application


def _node(ctx, hostname, **overrides):
    values = dict(
        hostname=hostname, cpus=4, cpu_used=0.0, mem_total=16000,
        mem_free=8000, mem_available=12000, mem_buffers=100,
        mem_cached=3000, mem_used=0, total_containers=0,
        running_containers=0, paused_containers=0, stopped_containers=0,
        architecture='x86_64', os_type='linux', os='Debian GNU/Linux 12',
        kernel_version='6.1.0-18-amd64', labels={}, disk_total=100,
        disk_used=10, disk_quota_supported=False, enable_cpu_pinning=False,
        runtimes=['runc'], numa_topology=None, pci_device_pools=None)
    values.update(overrides)
    node = objects.ComputeNode(ctx, **values)
    node.create()
    return node


def populate(ctx):
    """Three hosts and three services; uuids exported for the YAML.

    ``$ENVIRON['HOST_A_UUID']`` and so on name the hosts in tests.
    """
    host_a = _node(
        ctx, 'host-a.example.com', cpus=8, cpu_used=1.5, mem_total=32000,
        mem_used=2048, total_containers=3, running_containers=2,
        stopped_containers=1, labels={'rack': 'r1'},
        enable_cpu_pinning=True, runtimes=['runc', 'kata-runtime'],
        numa_topology=objects.NUMATopology(nodes=[
            objects.NUMANode(id=0, cpuset={0, 1, 2, 3}, pinned_cpus={1},
                             mem_total=16000, mem_available=9000),
            objects.NUMANode(id=1, cpuset={4, 5, 6, 7}, pinned_cpus=set(),
                             mem_total=16000, mem_available=12000)]),
        pci_device_pools=objects.PciDevicePoolList(objects=[
            objects.PciDevicePool(vendor_id='8086', product_id='1572',
                                  numa_node=0, count=2,
                                  tags={'class_code': '020000'})]))
    host_b = _node(ctx, 'host-b', cpus=2, architecture='aarch64',
                   disk_total=50)
    host_c = _node(ctx, 'host-c', cpus=16, os_type=None, os=None,
                   kernel_version=None, runtimes=None)
    for name, node in (('A', host_a), ('B', host_b), ('C', host_c)):
        os.environ['HOST_%s_UUID' % name] = node.uuid

    now = timeutils.utcnow(with_timezone=True)
    services = [
        ('zun-hostcap-conductor', 'host-a.example.com', now, False),
        # Silent for an hour: down.
        ('zun-hostcap-compute', 'host-b', now - datetime.timedelta(hours=1),
         False),
        # Recent heartbeat, but an operator forced it down.
        ('zun-hostcap-compute', 'host-c', now, True),
    ]
    for binary, host, last_seen_up, forced_down in services:
        objects.Service(ctx, binary=binary, host=host, topic=None,
                        last_seen_up=last_seen_up, report_count=7,
                        forced_down=forced_down).create()


class APIFixture(gabbi_fixture.GabbiFixture):
    """noauth2, a fresh SQLite database and the data of ``populate``."""

    # The configuration: CONFIG, with these groups' options on top.
    config_overrides = {}

    @classmethod
    def config(cls):
        sections = {group: dict(options)
                    for group, options in CONFIG.items()}
        for group, options in cls.config_overrides.items():
            sections.setdefault(group, {}).update(options)
        return sections

    def start_fixture(self):
        self.conf_fixture = config_fixture.Config(CONF)
        self.conf_fixture.setUp()
        # No config file of the machine running the tests is read.
        self.conf_fixture.conf([], default_config_files=[])
        for group, options in self.config().items():
            for name, value in options.items():
                self.conf_fixture.config(group=group, **{name: value})
        objects.register_all()
        policy.reset()
        self.database = zun_fixtures.Database(self.connection())
        self.database.setUp()
        populate(context.get_admin_context())

    def connection(self):
        """The database URL to build and use; None: a new SQLite file."""
        return None

    def stop_fixture(self):
        self.database.cleanUp()
        policy.reset()
        self.conf_fixture.cleanUp()


# What the Placement YAML files (tests/gabbits/placement) may name as
# $ENVIRON[...]: fresh values for every file.
PLACEMENT_ENVIRON_UUIDS = (
    'RP_UUID', 'ALT_RP_UUID', 'PARENT_PROVIDER_UUID', 'CHILD_RP_UUID',
    'CONSUMER_UUID', 'ALT_CONSUMER_UUID', 'CONSUMER_0', 'CONSUMER_1',
    'AGGA_UUID', 'AGGB_UUID', 'AGGC_UUID', 'PROJECT_ID', 'ALT_PROJECT_ID',
    'USER_ID', 'ALT_USER_ID', 'INSTANCE_UUID', 'MIGRATION_UUID')


def placement_environ():
    """Set the $ENVIRON values of the Placement YAML files."""
    for name in PLACEMENT_ENVIRON_UUIDS:
        os.environ[name] = uuidutils.generate_uuid()
    os.environ['RP_NAME'] = 'rp-' + os.environ['RP_UUID'][:8]
    os.environ['ALT_RP_NAME'] = 'rp-' + os.environ['ALT_RP_UUID'][:8]
    os.environ['CUSTOM_RES_CLASS'] = 'CUSTOM_IRON_NFV'
    # The same uuids in upper case (Placement on MySQL takes them as the
    # same; ours does on every engine).
    for name in ('RP_UUID', 'AGGA_UUID', 'CONSUMER_UUID'):
        os.environ[name + '_UPPER'] = os.environ[name].upper()


class PlacementFixture(APIFixture):
    """An empty resource provider model, noauth2, fresh $ENVIRON values.

    The Placement YAML files create what they test through the API; the
    hosts of ``populate`` are there too, and do no harm.
    """

    # Small, so that a test can cross it with a short body (Placement's
    # own limit, [placement] max_request_body_size, not the rest's).
    config_overrides = {'placement': {'max_request_body_size': 65536}}

    def start_fixture(self):
        placement_environ()
        super().start_fixture()


def use(test, fixture_class=APIFixture):
    """Start a gabbi fixture for a plain test; it stops at its cleanup."""
    fixture = fixture_class()
    fixture.start_fixture()
    test.addCleanup(fixture.stop_fixture)
    return fixture


class KeystoneAPIFixture(APIFixture):
    """keystonemiddleware validates tokens; keystone itself is faked.

    AuthTokenFixture answers token validation in place of a keystone
    server: the two tokens above are valid, any other is not.
    """

    WWW_AUTHENTICATE_URI = 'https://keystone.example.com/identity'

    def start_fixture(self):
        super().start_fixture()
        self.conf_fixture.config(group='api', auth_strategy='keystone')
        # What a deployment sets in [keystone_authtoken]; 401 responses
        # tell clients where to authenticate.
        for group, options in auth_token.list_opts():
            self.conf_fixture.register_opts(options, group=group)
        self.conf_fixture.config(
            group='keystone_authtoken',
            www_authenticate_uri=self.WWW_AUTHENTICATE_URI)
        self.auth_fixture = ksm_fixture.AuthTokenFixture()
        self.auth_fixture.setUp()
        self.auth_fixture.add_token_data(
            token_id=KEYSTONE_ADMIN_TOKEN, user_id='admin-user',
            project_id='admin-project', role_list=['admin', 'member'])
        self.auth_fixture.add_token_data(
            token_id=KEYSTONE_MEMBER_TOKEN, user_id='demo-user',
            project_id='demo-project', role_list=['member', 'reader'])

    def stop_fixture(self):
        self.auth_fixture.cleanUp()
        super().stop_fixture()
