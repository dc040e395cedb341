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

"""A cloud's topology on one machine: the lab of tools/cloud_lab.py.

A 3-node MariaDB Galera cluster, a 3-node RabbitMQ cluster with quorum
queues, HAProxy in front of the API replicas (health-checked on
``/healthcheck``) and of the database (one writer, two backups), two
``zun-hostcap-api`` replicas, two conductors, the fleet simulator
(tools/fleet_sim.py) and one real compute service. Everything listens on
127.0.0.1, on free ports, apart from the machine's own MariaDB and
RabbitMQ, which are never touched.

API replica N writes to Galera node N (multi-writer); the conductors
write through HAProxy's database frontend (single writer).

Every part is a ``local_servers.Process``. Its pid, start time and
marker are kept in ``DIR/lab.json``, so that another run (``down``, or
``up`` again, which starts what is stopped) finds it by its pid.
"""

import json
import os
import pwd
import re
import secrets
import shutil
import socket
import subprocess
import sys
import threading
import urllib.request

from zun_hostcap.tests.functional import cluster_nodes
from zun_hostcap.tests.functional import local_servers

HOST = cluster_nodes.HOST
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
HAPROXY_SAMPLE = os.path.join(REPO, 'etc', 'haproxy', 'zun-hostcap.cfg')
DATABASE = cluster_nodes.DATABASE
DB_USER = cluster_nodes.DB_USER
NODES = 3
REPLICAS = 2
# Seconds between heartbeats of every compute (the fleet's and the real
# one), and the age of the last one at which a host is shown down: a gap
# above it is what the tests look for.
REPORT_INTERVAL = 2
SERVICE_DOWN_TIME = 20
FLEET_HOSTS = 50


def missing_requirements():
    """What the lab needs and this machine lacks; [] if nothing."""
    missing = [name for name in ('mariadbd', 'mariadb-install-db',
                                 'mariabackup', 'socat', 'rabbitmq-server',
                                 'rabbitmqctl', 'haproxy')
               if not shutil.which(name)]
    if not cluster_nodes.galera_provider():
        missing.append('galera-4 (libgalera_smm.so)')
    try:
        pwd.getpwnam('rabbitmq')
    except KeyError:
        missing.append('the rabbitmq user')
    if os.geteuid() != 0:
        missing.append('root (RabbitMQ nodes run as the rabbitmq user)')
    return missing


# HAProxy

def haproxy_config(sample, binds, servers):
    """HAProxy's configuration: the sample with the lab's addresses.

    ``binds``: {frontend name: address}, and the path of the stats
    socket under "stats socket"; ``servers``: {server name: address}.
    Every "bind" line of a frontend named, the socket, and the address
    of every "server" named, are replaced; the rest is the sample's.
    """
    lines, section = [], None
    for line in sample.splitlines():
        words = line.split()
        if words and not line[0].isspace():
            section = words[1] if len(words) > 1 else words[0]
        if len(words) >= 2 and words[0] == 'bind' and section in binds:
            line = '    bind %s' % binds[section]
        elif len(words) >= 3 and words[0] == 'server':
            if words[1] not in servers:
                continue   # a server of the sample the lab does not run
            line = '    server %s %s %s' % (words[1], servers[words[1]],
                                            ' '.join(words[3:]))
        elif (len(words) >= 3 and words[:2] == ['stats', 'socket'] and
              'stats socket' in binds):
            line = '    stats socket %s %s' % (binds['stats socket'],
                                               ' '.join(words[3:]))
        lines.append(line.rstrip())
    return '\n'.join(lines) + '\n'


# zun-hostcap services

def console_script(name):
    """Our console script beside this Python (a virtualenv's)."""
    script = os.path.join(os.path.dirname(sys.executable), name)
    if os.path.exists(script):
        return [script]
    found = shutil.which(name)
    if not found:
        raise RuntimeError('%s is neither beside %s nor in PATH' % (
            name, sys.executable))
    return [found]


# The lab

class Lab(object):
    """The whole topology, its state in ``DIR/lab.json``.

    ``up()`` starts every part that does not run (all of them the first
    time); ``down()`` stops every part by its pid, in reverse order.
    """

    def __init__(self, directory, fleet_hosts=FLEET_HOSTS):
        self.dir = os.path.abspath(directory)
        self.state_file = os.path.join(self.dir, 'lab.json')
        self.fleet_hosts = fleet_hosts
        os.makedirs(os.path.join(self.dir, 'log'), exist_ok=True)
        # The RabbitMQ nodes run as the rabbitmq user: it must reach
        # their directories.
        os.chmod(self.dir, 0o755)
        try:
            with open(self.state_file) as f:
                self.state = json.load(f)
        except (OSError, ValueError):
            self.state = {'parts': {}}
        self.state.setdefault('db_password', secrets.token_hex(12))
        self.state.setdefault('suffix', secrets.token_hex(4))
        self.state.setdefault('ports', {})
        self._parts = {}
        self.galera = [cluster_nodes.GaleraNode(self, i + 1)
                       for i in range(NODES)]
        for node in self.galera:
            self._parts[node.name] = node
            self._ports(node.name, 'mysql', 'gcomm', 'ist', 'sst')
        self.rabbit = [cluster_nodes.RabbitNode(self, i + 1)
                       for i in range(NODES)]
        for node in self.rabbit:
            self._parts[node.name] = node
            self._ports(node.name, 'amqp', 'dist')
        self._ports('haproxy', 'api', 'db')
        for number in range(1, REPLICAS + 1):
            self._ports('api%d' % number, 'http')
        self.etc = os.path.join(self.dir, 'etc')
        os.makedirs(self.etc, exist_ok=True)
        self.save()

    def _ports(self, name, *kinds):
        ports = self.state['ports'].setdefault(name, {})
        for kind in kinds:
            if kind not in ports:
                ports[kind] = local_servers.free_port(HOST)
        return ports

    def save(self):
        with open(self.state_file + '.tmp', 'w') as f:
            json.dump(self.state, f, indent=1)
        os.replace(self.state_file + '.tmp', self.state_file)

    # Galera

    def up_galera(self):
        first = self.galera[0]
        new = not os.path.exists(os.path.join(first.datadir, 'mysql'))
        if new:
            cluster_nodes.install_galera_datadir(first)
        running = [node for node in self.galera if node.alive()]
        stopped = [node for node in self.galera if not node.alive()]
        if not running:
            leader = self._bootstrap_node()
            leader.start(bootstrap=True)
            leader.wait_synced()
            stopped.remove(leader)
            if new:
                self._galera_users(leader)
        for node in stopped:
            # One joiner at a time: each takes a state transfer.
            node.start()
            node.wait_synced()

    def _bootstrap_node(self):
        """The node that a stopped cluster starts again from.

        The one Galera marked safe to bootstrap (the last one stopped);
        else, after a crash of all, the most advanced one.
        """
        states = [(node, node.grastate()) for node in self.galera]
        for node, state in states:
            if state.get('safe_to_bootstrap') == '1':
                return node
        node = max(states, key=lambda item: int(item[1].get('seqno', -1)))[0]
        path = os.path.join(node.datadir, 'grastate.dat')
        if os.path.exists(path):
            with open(path) as f:
                text = f.read()
            with open(path, 'w') as f:
                f.write(re.sub(r'safe_to_bootstrap:\s*0',
                               'safe_to_bootstrap: 1', text))
        return node

    def _galera_users(self, node):
        password = self.state['db_password']
        for statement in [
                'CREATE DATABASE IF NOT EXISTS %s CHARACTER SET utf8mb4'
                % DATABASE,
                "CREATE USER IF NOT EXISTS '%s'@'%s' IDENTIFIED BY '%s'"
                % (DB_USER, HOST, password),
                "GRANT ALL PRIVILEGES ON *.* TO '%s'@'%s'" % (DB_USER, HOST),
                # HAProxy's mysql-check logs in as this user.
                "CREATE USER IF NOT EXISTS 'haproxy'@'%s'" % HOST]:
            if node.query(statement) is None:
                raise RuntimeError('%s failed on %s' % (statement,
                                                        node.name))

    # RabbitMQ

    def up_rabbit(self):
        stopped = [node for node in self.rabbit if not node.alive()]
        for node in stopped:
            node.start()
        for node in stopped:
            node.wait_started()
        first = self.rabbit[0]
        for node in self.rabbit[1:]:
            status = json.loads(node.ctl('cluster_status', '--formatter',
                                         'json'))
            if first.node in status.get('running_nodes', []):
                continue
            node.ctl('stop_app')
            node.ctl('join_cluster', first.node)
            node.ctl('start_app')

    def transport_url(self):
        return 'rabbit://' + ','.join(
            'guest:guest@%s:%d' % (HOST, node.port)
            for node in self.rabbit) + '/'

    # HAProxy

    def haproxy_url(self):
        return 'http://%s:%d' % (HOST, self.state['ports']['haproxy']['api'])

    def api_url(self, number):
        return 'http://%s:%d' % (
            HOST, self.state['ports']['api%d' % number]['http'])

    def db_url_through_haproxy(self):
        return 'mysql+pymysql://%s:%s@%s:%d/%s?charset=utf8mb4' % (
            DB_USER, self.state['db_password'], HOST,
            self.state['ports']['haproxy']['db'], DATABASE)

    def haproxy_socket(self):
        return os.path.join(self.dir, 'haproxy.sock')

    def haproxy_command(self, command):
        """Run a command of HAProxy's runtime API; its answer."""
        with socket.socket(socket.AF_UNIX) as sock:
            sock.settimeout(10)
            sock.connect(self.haproxy_socket())
            sock.sendall(command.encode() + b'\n')
            chunks = []
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                chunks.append(chunk)
        return b''.join(chunks).decode()

    def api_sessions(self, number):
        """Requests HAProxy has in flight to API replica ``number``."""
        for line in self.haproxy_command('show stat').splitlines():
            fields = line.split(',')
            if fields[:2] == ['zun_hostcap_api_replicas', 'api%d' % number]:
                return int(fields[4])   # scur
        return 0

    def up_haproxy(self):
        part = self.part('haproxy')
        if part.alive():
            return
        with open(HAPROXY_SAMPLE) as f:
            sample = f.read()
        servers = {'api%d' % n: '%s:%d' % (
            HOST, self.state['ports']['api%d' % n]['http'])
            for n in range(1, REPLICAS + 1)}
        servers.update({node.name: '%s:%d' % (HOST, node.port)
                        for node in self.galera})
        ports = self.state['ports']['haproxy']
        text = haproxy_config(sample, {
            'zun_hostcap_api': '%s:%d' % (HOST, ports['api']),
            'zun_hostcap_db': '%s:%d' % (HOST, ports['db']),
            'stats socket': self.haproxy_socket()}, servers)
        path = os.path.join(self.etc, 'haproxy.cfg')
        with open(path, 'w') as f:
            f.write(text)
        check = subprocess.run([shutil.which('haproxy'), '-c', '-f', path],
                               capture_output=True, text=True)
        if check.returncode:
            raise RuntimeError('haproxy -c -f %s: %s%s' % (
                path, check.stdout, check.stderr))
        # -db: in the foreground, so that its pid is the one recorded.
        part.launch([shutil.which('haproxy'), '-db', '-f', path])

    # Services

    def service_config(self, name, database, **sections):
        """Write ``etc/<name>.conf``: what every service shares, and more."""
        config = {
            'DEFAULT': {
                'transport_url': self.transport_url(),
                'control_exchange': 'zun-hostcap-lab',
                'state_path': os.path.join(self.dir, 'state'),
                'report_interval': REPORT_INTERVAL,
                'service_down_time': SERVICE_DOWN_TIME,
                'debug': 'false',
                'host': 'lab-%s' % name,
            },
            'database': {'connection': database,
                         # Reads see the writes that other nodes
                         # certified before them (causality checks).
                         'mysql_wsrep_sync_wait': 1},
            'oslo_messaging_rabbit': {
                'rabbit_quorum_queue': 'true',
                # Another node of the cluster at once, not after a
                # back-off meant for a single broker's restart.
                'rabbit_retry_interval': 1,
                'rabbit_retry_backoff': 0,
                'rabbit_interval_max': 1,
                'heartbeat_timeout_threshold': 15,
            },
            'oslo_messaging_notifications': {'driver': 'messagingv2'},
            'notifications': {'notification_format': 'versioned'},
            'oslo_policy': {'policy_file': os.path.join(self.etc,
                                                        'policy.yaml')},
        }
        for section, options in sections.items():
            config.setdefault(section, {}).update(options)
        os.makedirs(config['DEFAULT']['state_path'], exist_ok=True)
        return local_servers.write_config(
            os.path.join(self.etc, name + '.conf'), config)

    def api_config(self, number):
        return self.service_config(
            'api%d' % number, self.galera[number - 1].url(),
            api={'host': HOST,
                 'port': self.state['ports']['api%d' % number]['http'],
                 'workers': 1, 'threads': 16, 'auth_strategy': 'noauth2'},
            metrics={'enabled': 'true',
                     'directory': os.path.join(self.dir, 'metrics',
                                               'api%d' % number)})

    def conductor_config(self, number):
        return self.service_config('conductor%d' % number,
                                   self.db_url_through_haproxy())

    def compute_config(self):
        from zun_hostcap.os_capability import fake as fake_host
        data_file = os.path.join(self.etc, 'compute-host.json')
        if not os.path.exists(data_file):
            fake_host.write_capabilities(data_file,
                                         fake_host.sample_capabilities())
        # A compute never reaches the database: a URL that cannot work.
        return self.service_config(
            'compute', 'mysql+pymysql://nobody:nothing@127.0.0.1:1/x',
            compute={'os_capability_driver': 'fake',
                     'fake_capabilities_file': data_file,
                     'resource_update_interval': REPORT_INTERVAL})

    @staticmethod
    def command(script, release=None):
        """``script`` of ``release`` (a ``releases.Release``), else ours."""
        if release is None:
            return console_script(script)
        return release.command(script)

    def db_manage(self, *args, release=None):
        """Run zun-hostcap-db-manage of ``release``; its standard output."""
        result = subprocess.run(
            self.command('zun-hostcap-db-manage', release) +
            ['--config-file', self.conductor_config(1)] + list(args),
            capture_output=True, text=True, timeout=300)
        if result.returncode:
            raise RuntimeError('zun-hostcap-db-manage %s failed:\n%s' % (
                ' '.join(args), result.stderr[-3000:]))
        return result.stdout

    def db_sync(self, release=None):
        self.db_manage('upgrade', release=release)

    def start_service(self, name, config, release=None):
        """Start service ``name`` of ``release`` (default: this one)."""
        binary = {'api': 'zun-hostcap-api',
                  'conductor': 'zun-hostcap-conductor',
                  'compute': 'zun-hostcap-compute'}[name.rstrip('0123456789')]
        return self.part(name).launch(self.command(binary, release) +
                                      ['--config-file', config])

    def start_api(self, number, timeout=60, release=None):
        self.start_service('api%d' % number, self.api_config(number),
                           release=release)
        self.wait_api(number, timeout)

    def wait_api(self, number, timeout=60):
        part = self.part('api%d' % number)
        url = self.api_url(number) + '/healthcheck'

        def serving():
            if not part.alive():
                raise RuntimeError('api%d exited:\n%s' % (number,
                                                          part.log_tail()))
            try:
                with urllib.request.urlopen(url, timeout=5) as resp:
                    return resp.status == 200
            except OSError:
                return False
        local_servers.wait_for(serving, timeout, interval=0.2,
                               message='api%d to serve' % number)

    def start_fleet(self):
        config = self.service_config('fleet', self.db_url_through_haproxy())
        work = os.path.join(self.dir, 'fleet')
        os.makedirs(work, exist_ok=True)
        self.part('fleet').launch([
            sys.executable, os.path.join(REPO, 'tools', 'fleet_sim.py'),
            '--config-file', config, '--hosts', str(self.fleet_hosts),
            '--processes', '1', '--threads', '4', '--start-threads', '4',
            '--update-interval', str(REPORT_INTERVAL * 5),
            '--report-interval', str(REPORT_INTERVAL),
            '--prefix', 'lab-sim', '--period', '30',
            # Until "down" stops it.
            '--duration', str(10 * 365 * 86400),
            '--work-dir', work, '--json', os.path.join(work, 'fleet.json')])

    def up_services(self):
        if not any(self.part('api%d' % n).alive()
                   for n in range(1, REPLICAS + 1)):
            self.db_sync()
        for number in range(1, REPLICAS + 1):
            if not self.part('conductor%d' % number).alive():
                self.start_service('conductor%d' % number,
                                   self.conductor_config(number))
        started = []
        for number in range(1, REPLICAS + 1):
            if not self.part('api%d' % number).alive():
                self.start_service('api%d' % number, self.api_config(number))
                started.append(number)
        for number in started:
            self.wait_api(number)
        if not self.part('compute').alive():
            self.start_service('compute', self.compute_config())
        if not self.part('fleet').alive():
            self.start_fleet()

    # The whole lab

    def up(self):
        """Start what does not run; the lab's description (``summary``)."""
        self.up_galera()
        self.up_rabbit()
        self.up_haproxy()
        self.up_services()
        return self.summary()

    def summary(self):
        return {
            'api': [self.api_url(n) for n in range(1, REPLICAS + 1)],
            'haproxy_api': self.haproxy_url(),
            'haproxy_db': '%s:%d' % (HOST,
                                     self.state['ports']['haproxy']['db']),
            'galera': [{'port': node.port, 'pid': node.pid}
                       for node in self.galera],
            'db_user': DB_USER,
            'db_password': self.state['db_password'],
            'database': DATABASE,
            'rabbit': [{'node': node.node, 'port': node.port,
                        'pid': node.vm_pid()} for node in self.rabbit],
            'transport_url': self.transport_url(),
            'conductors': [self.part('conductor%d' % n).pid
                           for n in range(1, REPLICAS + 1)],
            'compute': self.part('compute').pid,
            'fleet': self.part('fleet').pid,
            'haproxy': self.part('haproxy').pid,
            'config_dir': self.etc,
        }

    def down(self):
        """Stop every part by its pid.

        The services first, together; then the RabbitMQ nodes, together;
        then the Galera nodes one by one, node 1 last: Galera marks it
        safe to bootstrap the cluster again.
        """
        names = list(self.state['parts'])
        galera = sorted((name for name in names if name.startswith('galera')),
                        reverse=True)
        rabbit = [name for name in names if name.startswith('rabbit')]
        services = [name for name in names
                    if name not in galera and name not in rabbit]
        for group in (services, rabbit):
            threads = [threading.Thread(target=self.part(name).stop)
                       for name in group]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        for name in galera:
            self.part(name).stop()
        self.save()

    def part(self, name):
        """The part ``name`` (made the first time it is asked for)."""
        if name not in self._parts:
            self._parts[name] = cluster_nodes.Part(self, name)
        return self._parts[name]
