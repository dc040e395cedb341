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

"""Run zun-hostcap as a cloud runs it, on 127.0.0.1: a local HA lab.

A 3-node MariaDB Galera cluster, a 3-node RabbitMQ cluster (quorum
queues), HAProxy (API replicas checked on /healthcheck; one database
writer), 2 zun-hostcap-api replicas (each writing to its own Galera
node), 2 conductors, the fleet simulator and one real compute, each on
free ports, apart from the machine's own MariaDB and RabbitMQ.

``up`` prints one JSON line describing the lab, then returns; the
processes keep running. Run again on the same directory, it starts
again what was stopped. ``down`` stops every process by its pid. See
doc/source/admin/high-availability.rst.

Usage (as root: the RabbitMQ nodes run as the rabbitmq user):
  python tools/cloud_lab.py up --dir /tmp/lab
  python tools/cloud_lab.py down --dir /tmp/lab
"""

import argparse
import json
import sys

# First: it selects oslo.service's threading backend.
import zun_hostcap  # noqa: F401,I100

from zun_hostcap.tests.functional import cloud  # noqa: I100


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('action', choices=('up', 'down'))
    parser.add_argument('--dir', required=True,
                        help="the lab's data, configuration, logs and "
                             'state (lab.json)')
    parser.add_argument('--fleet-hosts', type=int, default=cloud.FLEET_HOSTS,
                        help='hosts of the fleet simulator '
                             '(default %(default)s)')
    args = parser.parse_args(argv)
    if args.action == 'up':
        missing = cloud.missing_requirements()
        if missing:
            parser.exit(2, 'cloud_lab: missing: %s (tools/test-setup.sh '
                        'installs the packages)\n' % ', '.join(missing))
        lab = cloud.Lab(args.dir, fleet_hosts=args.fleet_hosts)
        try:
            print(json.dumps(lab.up()), flush=True)
        except (RuntimeError, AssertionError) as err:
            parser.exit(1, 'cloud_lab: up failed: %s\n(logs in %s/log; '
                        '"down --dir %s" stops what started)\n' % (
                            err, lab.dir, args.dir))
    else:
        cloud.Lab(args.dir).down()
    return 0


if __name__ == '__main__':
    sys.exit(main())
