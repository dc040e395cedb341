#!/usr/bin/env python3
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

"""Run OpenStack Placement's own gabbi files against our /placement.

A developer harness, the judge of wire compatibility: the YAML files that
OpenStack Placement ships with its tests are run, unchanged, in-process
against zun-hostcap's Placement-compatible API, each file on a fresh
SQLite database with noauth2, as Placement runs them against itself.

The files name their fixtures (``APIFixture``, ``AllocationFixture``,
...). This module provides fixtures of the same names, which set the same
``$ENVIRON`` values and build the same providers, inventories, traits,
aggregates and allocations, through our API.

What is out of scope is skipped (nothing is, today): whole files
(``SKIPPED_FILES``) and, in the other files, each request to a path of
``SKIPPED_PATHS`` and the requests that use its response.

Usage (with the Python of the py3 tox environment)::

    .tox/py3/bin/python tools/placement_gabbits.py \\
        --gabbits /path/to/site-packages/placement/tests/functional/gabbits
    .tox/py3/bin/python tools/placement_gabbits.py -v inventory traits*

The directory is ``--gabbits``, else ``$PLACEMENT_GABBITS``, else that of
an importable ``placement`` package (openstack-placement). Prints, per
file, the tests, passed, failed and skipped counts, then the totals;
``--verbose`` shows each failure. Exits 1 if anything failed.
"""

import argparse
import fnmatch
import glob
import importlib.util
import io
import json
import logging
import os
import re
import sys
import unittest
import uuid
import warnings

import fixtures
from gabbi import fixture as gabbi_fixture
from gabbi import handlers as gabbi_handlers
from gabbi import suitemaker
from gabbi import utils as gabbi_utils
from oslo_config import fixture as config_fixture
from oslo_middleware import cors
from oslo_policy import opts as policy_opts
from oslo_policy import policy as oslo_policy
from oslo_utils import uuidutils
import webob

from zun_hostcap.common import policy
import zun_hostcap.conf
from zun_hostcap import objects
from zun_hostcap.tests import fixtures as zun_fixtures

CONF = zun_hostcap.conf.CONF

# Files left out whole: features out of scope, or files whose every test
# builds on one.
SKIPPED_FILES = ()

# Requests left out inside the other files.
SKIPPED_PATHS = ()

# Tests that read what a skipped request wrote, without naming it.
SKIPPED_TESTS = {}

# The version of the requests that build fixture data; allocations are
# written at 1.28, as Placement's fixtures write them: no consumer type.
FIXTURE_VERSION = '1.39'
ALLOCATION_VERSION = '1.28'

# Placement's fixtures take the standard classes and traits as they are
# and create custom ones on demand.
CUSTOM = 'CUSTOM_'


# The application under test

_STATE = {'app': None, 'mounted': False}


def _build_app():
    if _STATE['mounted']:
        from zun_hostcap.api import app as api_app
        combined = api_app.setup_app()

        def mounted(environ, start_response):
            path = environ.get('PATH_INFO', '')
            # Not twice: a $LOCATION or a link followed carries it.
            if path != '/placement' and not path.startswith('/placement/'):
                environ['PATH_INFO'] = '/placement' + path
            return combined(environ, start_response)
        return mounted
    from zun_hostcap.api.placement import app as placement_app
    return placement_app.setup_standalone_app()


def application(environ, start_response):
    """Our Placement API, built on the first request of each file.

    The fixtures set the configuration first; each file starts from a
    new application.
    """
    if _STATE['app'] is None:
        _STATE['app'] = _build_app()
    return _STATE['app'](environ, start_response)


def setup_app():
    """gabbi's intercept: asked for before the fixtures run."""
    return application


class FixtureDataError(Exception):
    """The API refused a request that builds fixture data."""


class _Client(object):
    """Requests to the application in-process, as the admin."""

    def request(self, method, path, body=None, version=FIXTURE_VERSION,
                expect=(200, 201, 204)):
        req = webob.Request.blank(path, method=method, headers={
            'X-Auth-Token': 'admin',
            'Accept': 'application/json',
            'OpenStack-API-Version': 'placement %s' % version})
        if body is not None:
            req.body = json.dumps(body).encode()
            req.content_type = 'application/json'
        resp = req.get_response(application)
        if resp.status_int not in expect:
            raise FixtureDataError('%s %s (placement %s) answered %s: %s' % (
                method, path, version, resp.status, resp.text[:500]))
        return resp.json if resp.body else None

    def generation(self, uuid):
        return self.request(
            'GET', '/resource_providers/%s' % uuid)['generation']


class Builder(object):
    """Providers, inventories, traits, aggregates and allocations.

    The operations Placement's fixtures use, each through our API.
    """

    def __init__(self):
        self.client = _Client()
        self.classes = set()
        self.traits = set()

    def provider(self, name, *aggregates, **kwargs):
        """A provider named ``name``; its uuid."""
        body = {'name': name,
                'uuid': kwargs.get('uuid') or uuidutils.generate_uuid()}
        if kwargs.get('parent'):
            body['parent_provider_uuid'] = kwargs['parent']
        self.client.request('POST', '/resource_providers', body)
        if aggregates:
            self.aggregates(body['uuid'], *aggregates)
        return body['uuid']

    def aggregates(self, uuid, *aggregates):
        """Replace the aggregates of provider ``uuid``."""
        self.client.request(
            'PUT', '/resource_providers/%s/aggregates' % uuid,
            {'aggregates': list(aggregates),
             'resource_provider_generation': self.client.generation(uuid)})

    def resource_class(self, name):
        if name.startswith(CUSTOM) and name not in self.classes:
            self.client.request('PUT', '/resource_classes/%s' % name)
        self.classes.add(name)

    def inventory(self, uuid, resource_class, total, **fields):
        """Add one inventory; max_unit defaults to the total."""
        self.resource_class(resource_class)
        fields.setdefault('max_unit', total)
        fields['total'] = total
        fields['resource_class'] = resource_class
        fields['resource_provider_generation'] = self.client.generation(uuid)
        self.client.request(
            'POST', '/resource_providers/%s/inventories' % uuid, fields)

    def set_traits(self, uuid, *names):
        """Replace the traits of provider ``uuid``."""
        for name in names:
            if name.startswith(CUSTOM) and name not in self.traits:
                self.client.request('PUT', '/traits/%s' % name)
                self.traits.add(name)
        self.client.request(
            'PUT', '/resource_providers/%s/traits' % uuid,
            {'traits': list(names),
             'resource_provider_generation': self.client.generation(uuid)})

    def allocate(self, rp_uuid, resources, user_id, project_id,
                 consumer=None):
        """One provider's ``resources`` as all a consumer's allocations.

        Returns the consumer's uuid, a new one by default.
        """
        consumer = consumer or uuidutils.generate_uuid()
        self.client.request(
            'PUT', '/allocations/%s' % consumer,
            {'allocations': {rp_uuid: {'resources': resources}},
             'project_id': project_id, 'user_id': user_id,
             'consumer_generation': None},
            version=ALLOCATION_VERSION)
        return consumer


def _new_uuids(*names):
    for name in names:
        os.environ[name] = uuidutils.generate_uuid()


# The fixtures, by the names the YAML files use

class APIFixture(gabbi_fixture.GabbiFixture):
    """noauth2, a fresh SQLite database, Placement's $ENVIRON values."""

    secure_rbac = False

    def start_fixture(self):
        self.conf_fixture = config_fixture.Config(CONF)
        self.conf_fixture.setUp()
        # No configuration file of this machine is read.
        self.conf_fixture.conf([], default_config_files=[])
        # Registered by the middleware and the enforcer, which do not
        # exist yet.
        policy_opts.set_defaults(CONF)
        CONF.register_opts(cors.CORS_OPTS, 'cors')
        self.conf_fixture.config(group='api', auth_strategy='noauth2')
        self.conf_fixture.config(group='notifications',
                                 notification_format='none')
        self.conf_fixture.config(group='oslo_policy',
                                 enforce_new_defaults=self.secure_rbac)
        objects.register_all()
        policy.reset()
        self.database = zun_fixtures.Database()
        self.database.setUp()
        _STATE['app'] = None

        _new_uuids('RP_UUID', 'RP_NAME', 'RP_UUID1', 'RP_NAME1', 'RP_UUID2',
                   'RP_NAME2', 'PROJECT_ID', 'ADMIN_PROJECT_ID',
                   'SERVICE_PROJECT_ID', 'USER_ID', 'PROJECT_ID_ALT',
                   'USER_ID_ALT', 'INSTANCE_UUID', 'MIGRATION_UUID',
                   'CONSUMER_UUID', 'PARENT_PROVIDER_UUID',
                   'ALT_PARENT_PROVIDER_UUID')
        os.environ['CUSTOM_RES_CLASS'] = 'CUSTOM_IRON_NFV'
        os.environ['CUSTOM_RES_CLASS1'] = 'CUSTOM_IRON_NFV1'
        os.environ['CUSTOM_RES_CLASS2'] = 'CUSTOM_IRON_NFV2'
        self.configure()
        self.populate(Builder())

    def configure(self):
        """Configuration of a subclass, before any request."""

    def populate(self, build):
        """Data of a subclass, through ``build`` (a ``Builder``)."""

    def stop_fixture(self):
        _STATE['app'] = None
        self.database.cleanUp()
        policy.reset()
        self.conf_fixture.cleanUp()


class LegacyRBACPolicyFixture(APIFixture):
    """Placement's deprecated (admin-only) policy defaults."""


class SecureRBACPolicyFixture(APIFixture):
    """Placement's new policy defaults, enforced."""

    secure_rbac = True


class OpenPolicyFixture(APIFixture):
    """Every Placement rule but admin_api allows anyone."""

    def configure(self):
        from zun_hostcap.common.policies import placement as rules
        enforcer = policy.get_enforcer()
        # The registered defaults first: set_rules below keeps them.
        enforcer.load_rules()
        enforcer.set_rules(oslo_policy.Rules.from_dict(
            {rule.name: '@' for rule in rules.list_rules()
             if rule.name != 'admin_api'}), overwrite=False, use_conf=False)


class CORSFixture(APIFixture):
    """CORS for one origin and the microversion header."""

    def configure(self):
        self.conf_fixture.config(group='cors',
                                 allowed_origin=['http://valid.example.com'])
        self.conf_fixture.config(group='cors',
                                 allow_headers=['openstack-api-version'])


class AllocationFixture(APIFixture):
    """One provider (VCPU 10, DISK_GB 2048), three consumers of it.

    Two consumers of USER_ID (DISK_GB 1000: CONSUMER_0; VCPU 6:
    CONSUMER_ID), one of ALT_USER_ID (DISK_GB 20 and VCPU 1:
    ALT_CONSUMER_ID), all in PROJECT_ID. ALT_RP_UUID/ALT_RP_NAME name
    a provider that does not exist.
    """

    def populate(self, build):
        _new_uuids('ALT_USER_ID')
        project = os.environ['PROJECT_ID']
        user = os.environ['USER_ID']
        rp = build.provider(os.environ['RP_NAME'],
                            uuid=os.environ['RP_UUID'])
        build.inventory(rp, 'DISK_GB', 2048, step_size=10, min_unit=10,
                        max_unit=1000)
        build.inventory(rp, 'VCPU', 10, max_unit=10)
        os.environ['CONSUMER_0'] = build.allocate(
            rp, {'DISK_GB': 1000}, user, project)
        os.environ['CONSUMER_ID'] = build.allocate(
            rp, {'VCPU': 6}, user, project)
        os.environ['ALT_CONSUMER_ID'] = build.allocate(
            rp, {'DISK_GB': 20, 'VCPU': 1}, os.environ['ALT_USER_ID'],
            project)
        _new_uuids('ALT_RP_UUID', 'ALT_RP_NAME')


class SharedStorageFixture(APIFixture):
    """Two compute nodes and two sharing storage providers in AGG_UUID.

    cn1 (VCPU 24, MEMORY_MB 128 GiB; traits HW_CPU_X86_SSE/SSE2) and cn2
    (the same plus DISK_GB 2000, reserved 100), each with two NUMA
    children, each of those with a PF child (SRIOV_NET_VF 8); ss and ss2
    (DISK_GB 2000, reserved 100; MISC_SHARES_VIA_AGGREGATE).
    """

    def populate(self, build):
        agg = uuidutils.generate_uuid()
        os.environ['AGG_UUID'] = agg
        made = {}
        for name in ('cn1', 'cn2', 'ss', 'ss2'):
            made[name] = build.provider(name, agg)
        for cn in ('1', '2'):
            for numa in ('1', '2'):
                suffix = '%s_%s' % (cn, numa)
                made['numa' + suffix] = build.provider(
                    'numa' + suffix, parent=made['cn' + cn])
                made['pf' + suffix] = build.provider(
                    'pf' + suffix, parent=made['numa' + suffix])
        for name in ('cn1', 'cn2', 'ss', 'ss2'):
            os.environ['%s_UUID' % name.upper()] = made[name]
        for name in made:
            if name.startswith(('numa', 'pf')):
                os.environ['%s_UUID' % name.upper()] = made[name]
        for cn in ('cn1', 'cn2'):
            build.inventory(made[cn], 'VCPU', 24, allocation_ratio=16.0)
            build.inventory(made[cn], 'MEMORY_MB', 128 * 1024,
                            allocation_ratio=1.5)
        build.set_traits(made['cn1'], 'HW_CPU_X86_SSE', 'HW_CPU_X86_SSE2')
        build.inventory(made['cn2'], 'DISK_GB', 2000, reserved=100,
                        allocation_ratio=1.0)
        for shared in ('ss', 'ss2'):
            build.inventory(made[shared], 'DISK_GB', 2000, reserved=100,
                            allocation_ratio=1.0)
            build.set_traits(made[shared], 'MISC_SHARES_VIA_AGGREGATE')
        for name in made:
            if name.startswith('pf'):
                build.inventory(made[name], 'SRIOV_NET_VF', 8,
                                allocation_ratio=1.0)


class NUMAAggregateFixture(APIFixture):
    """Compute nodes whose NUMA children have the VCPUs.

    cn1 (aggA) and cn2 (aggA, aggB), no inventory themselves, each with
    two NUMA children of VCPU 24 (numa1_1 also in aggC); ss1 (aggA) and
    ss2 (aggC) share DISK_GB 2000 (reserved 100).
    """

    def populate(self, build):
        _new_uuids('AGGA_UUID', 'AGGB_UUID', 'AGGC_UUID')
        agg_a, agg_b, agg_c = (os.environ['AGG%s_UUID' % x] for x in 'ABC')
        made = {'cn1': build.provider('cn1', agg_a),
                'cn2': build.provider('cn2', agg_a, agg_b),
                'ss1': build.provider('ss1', agg_a),
                'ss2': build.provider('ss2', agg_c)}
        made['numa1_1'] = build.provider('numa1_1', agg_c,
                                         parent=made['cn1'])
        made['numa1_2'] = build.provider('numa1_2', parent=made['cn1'])
        made['numa2_1'] = build.provider('numa2_1', parent=made['cn2'])
        made['numa2_2'] = build.provider('numa2_2', parent=made['cn2'])
        for name, rp_uuid in made.items():
            os.environ['%s_UUID' % name.upper()] = rp_uuid
        for name in ('numa1_1', 'numa1_2', 'numa2_1', 'numa2_2'):
            build.inventory(made[name], 'VCPU', 24, allocation_ratio=16.0)
        for name in ('ss1', 'ss2'):
            build.inventory(made[name], 'DISK_GB', 2000, reserved=100,
                            allocation_ratio=1.0)
            build.set_traits(made[name], 'MISC_SHARES_VIA_AGGREGATE')


class NonSharedStorageFixture(APIFixture):
    """cn1, cn2, cn3: VCPU 24, MEMORY_MB 128 GiB, DISK_GB 2000 each."""

    def populate(self, build):
        _new_uuids('AGGA_UUID', 'AGGB_UUID', 'AGGC_UUID')
        for name in ('cn1', 'cn2', 'cn3'):
            uuid = build.provider(name)
            os.environ['%s_UUID' % name.upper()] = uuid
            build.inventory(uuid, 'VCPU', 24)
            build.inventory(uuid, 'MEMORY_MB', 128 * 1024)
            build.inventory(uuid, 'DISK_GB', 2000)


class NUMANetworkFixture(APIFixture):
    """Two compute trees: NUMA nodes, devices, agents and NICs.

    cn1 (aggA; COMPUTE_VOLUME_MULTI_ATTACH) with numa0/numa1 (VCPU 4,
    MEMORY_MB 2048, HW_NUMA_ROOT, numa1 also CUSTOM_FOO), fpga0 and pgpu0
    under numa0, fpga1_0/1 under numa1, an SR-IOV agent (esn1, esn2) and
    an OVS agent (br_int); cn2 (aggA; VCPU 8, MEMORY_MB, DISK_GB;
    CUSTOM_FOO) with nic1..3 and their PFs (CUSTOM_VF); ss1 shares
    DISK_GB in aggA. Two allocations of a numafx user.
    """

    cn1 = cn2 = None

    def populate(self, build):
        self.make_entities(build)

    def make_entities(self, build):
        agg = os.environ['AGGA_UUID'] = uuidutils.generate_uuid()
        ss1 = build.provider('ss1', agg)
        build.set_traits(ss1, 'MISC_SHARES_VIA_AGGREGATE')
        build.inventory(ss1, 'DISK_GB', 2000)
        os.environ['SS1_UUID'] = ss1

        cn1 = self.cn1 or build.provider('cn1', agg)
        build.aggregates(cn1, agg)
        build.set_traits(cn1, 'COMPUTE_VOLUME_MULTI_ATTACH')
        os.environ['CN1_UUID'] = cn1
        numas = []
        for i in (0, 1):
            numa = build.provider('numa%d' % i, parent=cn1)
            build.set_traits(numa, *(['HW_NUMA_ROOT'] +
                                     (['CUSTOM_FOO'] if i else [])))
            build.inventory(numa, 'VCPU', 4)
            numas.append(numa)
            os.environ['NUMA%d_UUID' % i] = numa
        build.inventory(numas[0], 'MEMORY_MB', 2048, min_unit=512,
                        step_size=256)
        build.inventory(numas[1], 'MEMORY_MB', 2048, min_unit=256,
                        max_unit=1024)
        user, project = 'numafx-user', 'numafx-project'
        build.allocate(numas[0], {'VCPU': 2}, user, project)

        fpga = build.provider('fpga0', parent=numas[0])
        build.inventory(fpga, 'FPGA', 1)
        os.environ['FPGA0_UUID'] = fpga
        pgpu = build.provider('pgpu0', parent=numas[0])
        build.inventory(pgpu, 'VGPU', 8)
        os.environ['PGPU0_UUID'] = pgpu
        for i in (0, 1):
            fpga = build.provider('fpga1_%d' % i, parent=numas[1])
            build.inventory(fpga, 'FPGA', 1)
            os.environ['FPGA1_%d_UUID' % i] = fpga

        agent = build.provider('sriov_agent', parent=cn1)
        build.set_traits(agent, 'CUSTOM_VNIC_TYPE_DIRECT')
        os.environ['SRIOV_AGENT_UUID'] = agent
        for i in (1, 2):
            dev = build.provider('esn%d' % i, parent=agent)
            build.set_traits(dev, 'CUSTOM_PHYSNET%d' % i)
            build.inventory(dev, 'NET_BW_EGR_KILOBIT_PER_SEC', 10000 * i)
            os.environ['ESN%d_UUID' % i] = dev
        agent = build.provider('ovs_agent', parent=cn1)
        build.set_traits(agent, 'CUSTOM_VNIC_TYPE_NORMAL')
        os.environ['OVS_AGENT_UUID'] = agent
        dev = build.provider('br_int', parent=agent)
        build.set_traits(dev, 'CUSTOM_PHYSNET0')
        build.inventory(dev, 'NET_BW_EGR_KILOBIT_PER_SEC', 1000)
        os.environ['BR_INT_UUID'] = dev

        cn2 = self.cn2 or build.provider('cn2')
        build.aggregates(cn2, agg)
        build.inventory(cn2, 'VCPU', 8)
        build.allocate(cn2, {'VCPU': 3}, user, project)
        build.inventory(cn2, 'MEMORY_MB', 2048, min_unit=1024,
                        step_size=128)
        build.inventory(cn2, 'DISK_GB', 1000)
        build.set_traits(cn2, 'CUSTOM_FOO')
        os.environ['CN2_UUID'] = cn2
        nics = []
        for i in (1, 2, 3):
            nic = build.provider('nic%d' % i, parent=cn2)
            build.set_traits(nic, 'CUSTOM_HW_NIC_ROOT')
            nics.append(nic)
            os.environ['NIC%d_UUID' % i] = nic
        pfs = [('1_1', nics[0], 1, 4), ('1_2', nics[0], 2, 4)]
        pfs += [('2_%d' % (i + 1), nics[1], (i % 2) + 1, 2)
                for i in range(4)]
        pfs += [('3_1', nics[2], 1, 8)]
        for suffix, nic, physnet, vfs in pfs:
            pf = build.provider('pf' + suffix, parent=nic)
            build.set_traits(pf, 'CUSTOM_PHYSNET%d' % physnet)
            build.inventory(pf, 'CUSTOM_VF', vfs)
            os.environ['PF%s_UUID' % suffix] = pf


class DeepNUMANetworkFixture(NUMANetworkFixture):
    """NUMANetworkFixture under gp1 -> p1 -> cn1 and gp1 -> p2 -> cn2."""

    def make_entities(self, build):
        grandparent = build.provider('gp1')
        self.cn1 = build.provider(
            'cn1', parent=build.provider('p1', parent=grandparent))
        self.cn2 = build.provider(
            'cn2', parent=build.provider('p2', parent=grandparent))
        super().make_entities(build)


class GranularFixture(APIFixture):
    """cn_left, cn_middle, cn_right; shr_disk_1/2 and shr_net sharing.

    Aggregates: AGGA (cn_left, cn_middle, shr_disk_1, shr_disk_2), AGGB
    (cn_middle, cn_right, shr_disk_2), AGGC (cn_right, shr_net).
    """

    def populate(self, build):
        build.resource_class('CUSTOM_NET_MBPS')
        _new_uuids('AGGA', 'AGGB', 'AGGC')
        agg_a, agg_b, agg_c = (os.environ['AGG' + x] for x in 'ABC')
        specs = [
            ('CN_LEFT', 'cn_left', (agg_a,),
             [('VCPU', 8, {}), ('MEMORY_MB', 4096, {}),
              ('DISK_GB', 500, {}), ('VGPU', 8, {}),
              ('SRIOV_NET_VF', 8, {}), ('CUSTOM_NET_MBPS', 4000, {})],
             ['HW_CPU_X86_AVX', 'HW_CPU_X86_AVX2', 'HW_GPU_API_DXVA',
              'HW_NIC_DCB_PFC', 'CUSTOM_FOO']),
            ('CN_MIDDLE', 'cn_middle', (agg_a, agg_b),
             [('VCPU', 8, {}), ('MEMORY_MB', 4096, {}),
              ('SRIOV_NET_VF', 8, {}), ('CUSTOM_NET_MBPS', 4000, {})],
             ['HW_CPU_X86_AVX', 'HW_CPU_X86_AVX2', 'HW_CPU_X86_SSE',
              'HW_NIC_ACCEL_TLS']),
            ('CN_RIGHT', 'cn_right', (agg_b, agg_c),
             [('VCPU', 8, {}), ('MEMORY_MB', 4096, {}),
              ('DISK_GB', 500, {}), ('VGPU', 8, {'max_unit': 2})],
             ['HW_CPU_X86_MMX', 'HW_GPU_API_DXVA', 'CUSTOM_DISK_SSD']),
            ('SHR_DISK_1', 'shr_disk_1', (agg_a,),
             [('DISK_GB', 1000, {})],
             ['MISC_SHARES_VIA_AGGREGATE', 'CUSTOM_DISK_SSD']),
            ('SHR_DISK_2', 'shr_disk_2', (agg_a, agg_b),
             [('DISK_GB', 1000, {})], ['MISC_SHARES_VIA_AGGREGATE']),
            ('SHR_NET', 'shr_net', (agg_c,),
             [('SRIOV_NET_VF', 16, {}), ('CUSTOM_NET_MBPS', 40000, {})],
             ['MISC_SHARES_VIA_AGGREGATE']),
        ]
        for env, name, aggregates, inventories, traits in specs:
            uuid = os.environ[env] = build.provider(name, *aggregates)
            for resource_class, total, fields in inventories:
                build.inventory(uuid, resource_class, total, **fields)
            build.set_traits(uuid, *traits)


class NeutronQoSMultiSegmentFixture(APIFixture):
    """Four computes as Neutron QoS on multi-segment networks shows them.

    Each has an OVS agent (packet rate) over bridges (bandwidth) and an
    SR-IOV agent over PFs (bandwidth). The bridges and PFs of compute0
    are on CUSTOM_PHYSNET_OTHER, of compute1 on CUSTOM_PHYSNET_MSN_S1, of
    compute2 on CUSTOM_PHYSNET_MSN_S2; compute3 has one bridge and one PF
    on each of the two segments, with a tenth of the bandwidth.
    """

    NORMAL = ('CUSTOM_VNIC_TYPE_NORMAL',)
    DIRECT = ('CUSTOM_VNIC_TYPE_DIRECT', 'CUSTOM_VNIC_TYPE_DIRECT_PHYSICAL',
              'CUSTOM_VNIC_TYPE_MACVTAP')
    BANDWIDTH = ('NET_BW_EGR_KILOBIT_PER_SEC', 'NET_BW_IGR_KILOBIT_PER_SEC')

    def populate(self, build):
        computes = [
            # (physnets of the bridges, of the PFs, bandwidth of each)
            (['OTHER'], ['OTHER'], 5000, 10000),
            (['MSN_S1'], ['MSN_S1'], 5000, 10000),
            (['MSN_S2'], ['MSN_S2'], 5000, 10000),
            (['MSN_S1', 'MSN_S2'], ['MSN_S1', 'MSN_S2'], 1000, 1000),
        ]
        for index, (bridges, pfs, bridge_bw, pf_bw) in enumerate(computes):
            name = 'compute%d' % index
            compute = os.environ[name] = build.provider(name)
            for resource_class, total in (('VCPU', 8), ('MEMORY_MB', 4096),
                                          ('DISK_GB', 500)):
                build.inventory(compute, resource_class, total)
            ovs = os.environ[name + ':ovs_agent'] = build.provider(
                name + ':Open vSwitch agent', parent=compute)
            build.inventory(ovs, 'NET_PACKET_RATE_KILOPACKET_PER_SEC', 1000)
            build.set_traits(ovs, *self.NORMAL)
            for number, physnet in enumerate(bridges):
                tag = str(number + 1) if number else ''
                bridge = os.environ[name + ':br_ex' + tag] = build.provider(
                    name + ':Open vSwitch agent:br-ex' + tag, parent=ovs)
                for resource_class in self.BANDWIDTH:
                    build.inventory(bridge, resource_class, bridge_bw)
                build.set_traits(bridge, *(self.NORMAL +
                                           ('CUSTOM_PHYSNET_' + physnet,)))
            sriov = build.provider(name + ':NIC Switch agent',
                                   parent=compute)
            # Placement's fixture names compute2's agent for compute3 too.
            os.environ[name + ':sriov_agent'] = (
                os.environ['compute2:sriov_agent'] if index == 3 else sriov)
            build.set_traits(sriov, *self.DIRECT)
            for number, physnet in enumerate(pfs):
                pf = os.environ[name + ':pf%d' % number] = build.provider(
                    name + ':NIC Switch agent:enp129s0f%d' % number,
                    parent=sriov)
                for resource_class in self.BANDWIDTH:
                    build.inventory(pf, resource_class, pf_bw)
                build.set_traits(pf, *(self.DIRECT +
                                       ('CUSTOM_PHYSNET_' + physnet,)))


# Per-test log capture

_LOG = {'buffer': None}


class CaptureLogs(fixtures.Fixture):
    """The log of one request, kept for the failure report."""

    def _setUp(self):
        stream = _LOG['buffer'] = io.StringIO()
        handler = logging.StreamHandler(stream)
        handler.setFormatter(logging.Formatter(
            '%(levelname)s %(name)s: %(message)s'))
        root = logging.getLogger()
        old_level = root.level
        old_handlers = root.handlers[:]
        root.handlers = [handler]
        root.setLevel(logging.INFO)
        self.addCleanup(setattr, root, 'handlers', old_handlers)
        self.addCleanup(root.setLevel, old_level)


# Selecting and building the tests

def _url_of(test):
    for key, value in test.items():
        if key.isupper() and isinstance(value, str):
            return value
    return test.get('url', '')


_HISTORY = re.compile(r"""\$HISTORY\[(['"])(.+?)\1\]""")
_PRIOR = re.compile(r'\$(RESPONSE|LOCATION|HEADERS|LAST_URL|URL|COOKIE|'
                    r'SCHEME|NETLOC)\b')


def mark_out_of_scope(tests, also=()):
    """Skip requests out of scope and those that use their responses.

    ``also``: names of tests to skip as well.

    Returns the number of tests marked.
    """
    skipped = set()
    previous_skipped = False
    marked = 0
    for test in tests:
        reason = None
        path = urllib_path(_url_of(test))
        if path.startswith(SKIPPED_PATHS):
            reason = 'out of scope: %s' % path
        elif test.get('name') in also:
            reason = 'reads what a skipped test wrote'
        else:
            text = json.dumps(test, default=str)
            names = {match.group(2) for match in _HISTORY.finditer(text)}
            if names & skipped:
                reason = 'uses a skipped test: %s' % sorted(
                    names & skipped)[0]
            elif previous_skipped and _PRIOR.search(_HISTORY.sub('', text)):
                reason = 'uses the skipped test before it'
        if reason and not test.get('skip'):
            test['skip'] = reason
            marked += 1
        previous_skipped = bool(reason)
        if reason:
            skipped.add(test.get('name'))
    return marked


def urllib_path(url):
    return url.split('?', 1)[0]


def file_suite(path, loader, handler_objects):
    """The gabbi suite of one YAML file."""
    suite_dict = gabbi_utils.load_yaml(yaml_file=path)
    name = os.path.splitext(os.path.basename(path))[0]
    mark_out_of_scope(suite_dict.get('tests') or [],
                      SKIPPED_TESTS.get(name, ()))
    return suitemaker.test_suite_from_dict(
        loader, name, suite_dict, os.path.dirname(path),
        # As gabbi's build_tests names an intercepted host.
        str(uuid.uuid4()), 8001,
        sys.modules[__name__], setup_app, handlers=handler_objects,
        test_loader_name='placement_gabbits',
        inner_fixtures=[CaptureLogs])


class FileResult(unittest.TestResult):
    """Outcomes of one file, and its failures with their request logs.

    A test has one outcome, the worst it got: a fixture that fails marks
    the first test as an error and every test as skipped.
    """

    RANK = {'passed': 0, 'skipped': 1, 'failed': 2}

    def __init__(self):
        super().__init__()
        self.problems = []
        self.outcomes = {}

    def _outcome(self, test, outcome):
        key = test.id() if hasattr(test, 'id') else str(test)
        if self.RANK[outcome] >= self.RANK[self.outcomes.get(key,
                                                             'passed')]:
            self.outcomes[key] = outcome

    def _problem(self, test, err, kind):
        self._outcome(test, 'failed')
        log = _LOG['buffer'].getvalue() if _LOG['buffer'] else ''
        if kind == 'FAIL':
            # gabbi's assertion says it all.
            text = str(err[1])
        else:
            text = self._exc_info_to_string(err, test)
        self.problems.append((kind, _test_name(test), text, log))

    def addSuccess(self, test):
        super().addSuccess(test)
        self._outcome(test, 'passed')

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._outcome(test, 'passed')

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._outcome(test, 'skipped')

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._problem(test, err, 'FAIL')

    def addError(self, test, err):
        super().addError(test, err)
        self._problem(test, err, 'ERROR')

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._outcome(test, 'failed')
        self.problems.append(('UNEXPECTED SUCCESS', _test_name(test), '',
                              ''))

    def counts(self):
        counts = {'tests': len(self.outcomes), 'passed': 0, 'failed': 0,
                  'skipped': 0}
        for outcome in self.outcomes.values():
            counts[outcome] += 1
        return counts


def _test_name(test):
    data = getattr(test, 'test_data', None)
    return data['name'] if data else str(test)


def find_gabbits(directory):
    if directory:
        return directory
    if os.environ.get('PLACEMENT_GABBITS'):
        return os.environ['PLACEMENT_GABBITS']
    spec = importlib.util.find_spec('placement')
    if spec and spec.submodule_search_locations:
        found = os.path.join(list(spec.submodule_search_locations)[0],
                             'tests', 'functional', 'gabbits')
        if os.path.isdir(found):
            return found
    raise SystemExit('No gabbits directory: pass --gabbits DIR or set '
                     'PLACEMENT_GABBITS (placement/tests/functional/gabbits '
                     'of an installed openstack-placement).')


def select_files(directory, patterns, include_skipped):
    """(path, reason it is skipped or None) for each YAML file."""
    selected = []
    for path in sorted(glob.glob(os.path.join(directory, '*.yaml'))):
        base = os.path.basename(path)
        stem = base[:-len('.yaml')]
        if patterns and not any(fnmatch.fnmatch(base, p) or
                                fnmatch.fnmatch(stem, p) for p in patterns):
            continue
        reason = None
        if not include_skipped:
            for skip in SKIPPED_FILES:
                if fnmatch.fnmatch(stem, skip):
                    reason = 'out of scope (%s)' % skip
        selected.append((path, reason))
    return selected


def run(directory, patterns=(), verbose=False, include_skipped=False,
        out=sys.stdout):
    """Run the files; their counts.

    {file: counts}, with {'skipped_file': reason} for files left out
    whole, and 'TOTAL'.
    """
    loader = unittest.TestLoader()
    handler_objects = [handler() for handler in
                       gabbi_handlers.RESPONSE_HANDLERS]
    results = {}
    width = max([len(os.path.basename(p)) for p, _r in select_files(
        directory, patterns, include_skipped)] + [10])
    header = '%-*s %6s %6s %6s %7s' % (width, 'file', 'tests', 'passed',
                                       'failed', 'skipped')
    print(header, file=out)
    print('-' * len(header), file=out)
    totals = {'tests': 0, 'passed': 0, 'failed': 0, 'skipped': 0}
    for path, reason in select_files(directory, patterns, include_skipped):
        base = os.path.basename(path)
        if reason:
            results[base] = {'skipped_file': reason}
            print('%-*s  -- %s' % (width, base, reason), file=out)
            continue
        result = FileResult()
        try:
            suite = file_suite(path, loader, handler_objects)
        except Exception as exc:   # a fixture we lack, a YAML error
            result.outcomes[path] = 'failed'
            result.problems.append(('ERROR', '(building the suite)',
                                    '%s: %s' % (type(exc).__name__, exc),
                                    ''))
        else:
            suite.run(result)
        counts = result.counts()
        results[base] = counts
        for key in totals:
            totals[key] += counts[key]
        print('%-*s %6d %6d %6d %7d' % (width, base, counts['tests'],
                                        counts['passed'], counts['failed'],
                                        counts['skipped']), file=out)
        out.flush()
        if verbose:
            for kind, name, text, log in result.problems:
                print('    %s: %s\n%s' % (kind, name, _indent(text)),
                      file=out)
                if log.strip():
                    print('      log:\n%s' % _indent(log, 8), file=out)
    print('-' * len(header), file=out)
    print('%-*s %6d %6d %6d %7d' % (width, 'TOTAL', totals['tests'],
                                    totals['passed'], totals['failed'],
                                    totals['skipped']), file=out)
    results['TOTAL'] = totals
    return results


def _indent(text, spaces=6):
    pad = ' ' * spaces
    return '\n'.join(pad + line for line in text.rstrip().splitlines())


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Run Placement's own gabbi files against our "
                    "Placement-compatible API, in-process.")
    parser.add_argument('patterns', nargs='*', metavar='FILE',
                        help='file names or globs (with or without .yaml); '
                             'all files by default')
    parser.add_argument('-g', '--gabbits', metavar='DIR',
                        help="Placement's gabbits directory")
    parser.add_argument('-v', '--verbose', action='store_true',
                        help='show each failure and its request log')
    parser.add_argument('--mounted', action='store_true',
                        help='run against the combined API at /placement '
                             '(links then carry /placement) instead of '
                             'the standalone application')
    parser.add_argument('--include-out-of-scope', action='store_true',
                        help='run the files skipped as out of scope too')
    parser.add_argument('--json', metavar='PATH',
                        help='also write the counts as JSON to PATH')
    args = parser.parse_args(argv)
    _STATE['mounted'] = args.mounted
    # Deprecated policy defaults and the like: noise here.
    warnings.simplefilter('ignore')
    # Only what the tests capture is shown.
    logging.getLogger().addHandler(logging.NullHandler())
    results = run(find_gabbits(args.gabbits), args.patterns, args.verbose,
                  args.include_out_of_scope)
    if args.json:
        with open(args.json, 'w') as f:
            json.dump(results, f, indent=2, sort_keys=True)
    return 1 if results['TOTAL']['failed'] else 0


if __name__ == '__main__':
    sys.exit(main())
