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

"""Query strings and responses of GET /v1/hosts and /v1/hosts/{host_ident}.

Query values arrive as strings; each property says in ``description``
what a valid value is, which is also what a client is told when it sends
another.
"""

from zun_hostcap.api.schemas import common

# Microversion 1.4: the hosts routes appear.
GET_HOSTS_QUERY_v1_4 = {
    'type': 'object',
    'properties': {
        'limit': {
            'type': 'string',
            'pattern': r'^[0-9]*[1-9][0-9]*$',
            'description': 'a positive integer',
        },
        'marker': {
            'type': 'string',
            'format': 'uuid',
            'description': 'the uuid of a host',
        },
        'sort_key': {
            'type': 'string',
            'pattern': r'^[a-z_]+$',
            'description': 'the name of a host field',
        },
        'sort_dir': {
            'type': 'string',
            'enum': ['asc', 'desc'],
            'description': '"asc" or "desc"',
        },
    },
    'additionalProperties': False,
}

# Microversion 1.4: showing a host takes no query.
GET_HOST_QUERY_v1_4 = {
    'type': 'object',
    'properties': {},
    'additionalProperties': False,
}


# Microversion 1.4: the path parameter of GET /v1/hosts/{host_ident}. The
# API does not validate it: a uuid-like ident is looked up by uuid, any
# other string by hostname, and one that names no host gets 404.
HOST_IDENT_v1_4 = {
    'type': 'string',
    'minLength': 1,
    'description': 'the uuid or the hostname of a host',
}

# A NUMA cell of a host: its CPUs, those pinned, and its memory in MiB.
NUMA_TOPOLOGY = {
    'type': ['object', 'null'],
    'properties': {
        'nodes': {
            'type': 'array',
            'items': {
                'type': 'object',
                'properties': {
                    'id': {'type': 'integer'},
                    'cpuset': {'type': 'array',
                               'items': common.NON_NEGATIVE_INTEGER,
                               'uniqueItems': True},
                    'pinned_cpus': {'type': 'array',
                                    'items': common.NON_NEGATIVE_INTEGER,
                                    'uniqueItems': True},
                    'mem_total': {'type': 'integer'},
                    'mem_available': {'type': 'integer'},
                },
                'required': ['id', 'cpuset', 'pinned_cpus', 'mem_total',
                             'mem_available'],
                'additionalProperties': False,
            },
        },
    },
    'required': ['nodes'],
    'additionalProperties': False,
}

# The PCI devices of a host, counted by vendor, product and NUMA node.
PCI_DEVICE_POOLS = {
    'type': ['array', 'null'],
    'items': {
        'type': 'object',
        'properties': {
            'vendor_id': {'type': 'string'},
            'product_id': {'type': 'string'},
            'numa_node': {'type': ['integer', 'null']},
            'count': common.NON_NEGATIVE_INTEGER,
            'tags': {'type': 'object',
                     'additionalProperties': common.NULLABLE_STRING},
        },
        'required': ['vendor_id', 'product_id', 'numa_node', 'count',
                     'tags'],
        'additionalProperties': False,
    },
}


def _described(schema, description):
    return dict(schema, description=description)


def _mib(description):
    return _described(common.NON_NEGATIVE_INTEGER, description + ', MiB')


# Microversion 1.4: a host, as GET /v1/hosts/{host_ident} shows it and
# GET /v1/hosts lists it.
_HOST_PROPERTIES_v1_4 = {
    # Zun's fields.
    'uuid': {'type': 'string', 'format': 'uuid'},
    'hostname': {'type': 'string'},
    'mem_total': _mib('MemTotal of /proc/meminfo'),
    'mem_used': _mib('memory reserved by containers'),
    'cpus': _described(common.NON_NEGATIVE_INTEGER, 'online CPUs'),
    'cpu_used': {'type': 'number', 'minimum': 0,
                 'description': 'CPUs reserved by containers'},
    'total_containers': common.NON_NEGATIVE_INTEGER,
    'architecture': common.NULLABLE_STRING,
    'os_type': common.NULLABLE_STRING,
    'os': common.NULLABLE_STRING,
    'kernel_version': common.NULLABLE_STRING,
    'labels': {'type': ['object', 'null'],
               'additionalProperties': {'type': 'string'}},
    'disk_total': _described(common.NON_NEGATIVE_INTEGER, 'GiB'),
    'disk_used': _described(common.NON_NEGATIVE_INTEGER, 'GiB'),
    'disk_quota_supported': {'type': 'boolean'},
    'runtimes': {'type': ['array', 'null'], 'items': {'type': 'string'}},
    # Beyond Zun: /proc/meminfo and the containers by state.
    'mem_free': _mib('MemFree of /proc/meminfo'),
    'mem_available': _mib('MemAvailable of /proc/meminfo'),
    'mem_buffers': _mib('Buffers of /proc/meminfo'),
    'mem_cached': _mib('Cached of /proc/meminfo'),
    'running_containers': common.NON_NEGATIVE_INTEGER,
    'paused_containers': common.NON_NEGATIVE_INTEGER,
    'stopped_containers': common.NON_NEGATIVE_INTEGER,
    'numa_topology': NUMA_TOPOLOGY,
    'pci_device_pools': PCI_DEVICE_POOLS,
    'links': common.SELF_AND_BOOKMARK_LINKS,
}
HOST_v1_4 = {
    'type': 'object',
    'properties': _HOST_PROPERTIES_v1_4,
    'required': list(_HOST_PROPERTIES_v1_4),
    'additionalProperties': False,
}

# Microversion 1.29: a host says whether it pins CPUs.
_HOST_PROPERTIES_v1_29 = dict(_HOST_PROPERTIES_v1_4,
                              enable_cpu_pinning={'type': 'boolean'})
HOST_v1_29 = dict(HOST_v1_4, properties=_HOST_PROPERTIES_v1_29,
                  required=list(_HOST_PROPERTIES_v1_29))


def _host_list(host):
    return {
        'type': 'object',
        'properties': {
            'hosts': {'type': 'array', 'items': host},
            # Set when the page is full: the same query from the last
            # host of the page on.
            'next': {'type': ['string', 'null'], 'format': 'uri'},
        },
        'required': ['hosts', 'next'],
        'additionalProperties': False,
    }


# Microversion 1.4: a page of hosts and the link to the next one.
GET_HOSTS_RESPONSE_v1_4 = _host_list(HOST_v1_4)

# Microversion 1.29: the hosts have enable_cpu_pinning.
GET_HOSTS_RESPONSE_v1_29 = _host_list(HOST_v1_29)
