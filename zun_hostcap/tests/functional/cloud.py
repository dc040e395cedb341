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
import signal
import socket
import subprocess
import sys
import urllib.request

import psutil
import sqlalchemy as sa

from zun_hostcap.tests.functional import local_servers

HOST = '127.0.0.1'
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
HAPROXY_SAMPLE = os.path.join(REPO, 'etc', 'haproxy', 'zun-hostcap.cfg')
GALERA_PROVIDERS = ('/usr/lib/galera/libgalera_smm.so',
                    '/usr/lib/galera-4/libgalera_smm.so',
                    '/usr/lib64/galera-4/libgalera_smm.so')
DATABASE = 'zun_hostcap'
DB_USER = 'zun_hostcap'
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
    if not galera_provider():
        missing.append('galera-4 (libgalera_smm.so)')
    try:
        pwd.getpwnam('rabbitmq')
    except KeyError:
        missing.append('the rabbitmq user')
    if os.geteuid() != 0:
        missing.append('root (RabbitMQ nodes run as the rabbitmq user)')
    return missing


def galera_provider():
    return next((path for path in GALERA_PROVIDERS if os.path.exists(path)),
                None)


def _alive(record):
    """Whether the process of a ``Part`` record runs still."""
    if not record or not record.get('pid'):
        return False
    try:
        proc = psutil.Process(record['pid'])
        return (proc.create_time() == record['created'] and
                proc.status() != psutil.STATUS_ZOMBIE)
    except psutil.NoSuchProcess:
        return False


def _stop_pid(record, timeout=local_servers.STOP_TIMEOUT,
              signo=signal.SIGTERM):
    """Stop the process of a record by its pid, then what it started."""
    if _alive(record):
        proc = psutil.Process(record['pid'])
        try:
            proc.send_signal(signo)
            proc.wait(timeout)
        except psutil.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        except psutil.NoSuchProcess:
            pass
    local_servers.kill_family(record['pid'], record['marker'],
                              record['created'])


class Part(object):
    """One process of the lab, found again by pid from ``lab.json``.

    ``process`` is the ``local_servers.Process`` this run started, or
    None when another run did; either way ``record`` has its pid, start
    time and marker.
    """

    def __init__(self, lab, name):
        self.lab = lab
        self.name = name
        self.process = None

    @property
    def record(self):
        return self.lab.state['parts'].get(self.name)

    @property
    def pid(self):
        return (self.record or {}).get('pid')

    def alive(self):
        return _alive(self.record)

    def log_file(self):
        return os.path.join(self.lab.dir, 'log', self.name + '.log')

    def launch(self, command, env=None):
        """Start ``command`` and record its pid; the log is appended to."""
        if self.process is None or self.process.command != list(command):
            self.process = local_servers.Process(
                self.name, command, self.log_file(), env, append=True)
        self._start()
        return self.process

    def _start(self):
        proc = self.process
        proc.start()
        self.lab.state['parts'][self.name] = {
            'pid': proc.pid, 'created': proc._created, 'marker': proc.marker}
        self.lab.save()

    def stop(self, signo=signal.SIGTERM):
        """Stop it by its pid (SIGTERM, or ``signo``); then its leftovers."""
        record = self.record
        if not record:
            return
        if self.process is not None and self.process.pid == record['pid']:
            if signo == signal.SIGKILL:
                self.process.kill()
            else:
                self.process.stop()
        else:
            _stop_pid(record, signo=signo)

    def kill(self):
        """SIGKILL, as the OOM killer would."""
        self.stop(signal.SIGKILL)

    def log_tail(self, lines=30):
        try:
            with open(self.log_file(), errors='replace') as f:
                return ''.join(f.readlines()[-lines:])
        except OSError as err:
            return '(%s)' % err


# MariaDB Galera

class GaleraNode(Part):
    """One mariadbd of the cluster, with its datadir and four ports.

    The client port, gcomm (group communication), IST (incremental state
    transfer) and SST (full state transfer, by mariabackup: rsync
    between two datadirs of one host fails) are its own.
    """

    def __init__(self, lab, number):
        super().__init__(lab, 'galera%d' % number)
        self.number = number
        self.home = os.path.join(lab.dir, self.name)
        self.datadir = os.path.join(self.home, 'data')
        self.socket = os.path.join(self.home, 'mysqld.sock')
        self.config_file = os.path.join(self.home, 'my.cnf')

    @property
    def ports(self):
        return self.lab.state['ports'][self.name]

    @property
    def port(self):
        return self.ports['mysql']

    def write_config(self):
        nodes = [self.lab.galera[i].ports['gcomm']
                 for i in range(len(self.lab.galera))]
        options = {
            'datadir': self.datadir,
            'port': self.port,
            'bind-address': HOST,
            'socket': self.socket,
            'pid-file': os.path.join(self.home, 'mysqld.pid'),
            'user': pwd.getpwuid(os.geteuid()).pw_name,
            'skip-name-resolve': 'ON',
            'max_connections': 400,
            # A small, short-lived server.
            'innodb_buffer_pool_size': '64M',
            'innodb_log_file_size': '32M',
            # What Galera needs.
            'binlog_format': 'ROW',
            'default_storage_engine': 'InnoDB',
            'innodb_autoinc_lock_mode': 2,
            # Durability comes from the other nodes (Galera's usual
            # setting); a local fsync per commit is not needed.
            'innodb_flush_log_at_trx_commit': 2,
            'wsrep_on': 'ON',
            'wsrep_provider': galera_provider(),
            'wsrep_cluster_name': 'zun-hostcap-lab',
            'wsrep_cluster_address': 'gcomm://' + ','.join(
                '%s:%d' % (HOST, port) for port in nodes),
            'wsrep_node_name': self.name,
            'wsrep_node_address': '%s:%d' % (HOST, self.ports['gcomm']),
            'wsrep_provider_options': '"gmcast.listen_addr=tcp://%s:%d;'
                                      'ist.recv_addr=%s:%d;'
                                      'gcache.size=128M"' % (
                                          HOST, self.ports['gcomm'],
                                          HOST, self.ports['ist']),
            'wsrep_sst_method': 'mariabackup',
            'wsrep_sst_receive_address': '%s:%d' % (HOST,
                                                    self.ports['sst']),
            'wsrep_sst_auth': 'root:',
        }
        with open(self.config_file, 'w') as f:
            f.write('[mysqld]\n')
            for name, value in options.items():
                f.write('%s = %s\n' % (name, value))
            f.write('\n[sst]\nsockopt = ",reuseaddr"\n')

    def grastate(self):
        """{uuid, seqno, safe_to_bootstrap} of grastate.dat; {} if none."""
        state = {}
        try:
            with open(os.path.join(self.datadir, 'grastate.dat')) as f:
                for line in f:
                    key, _, value = line.partition(':')
                    state[key.strip()] = value.strip()
        except OSError:
            pass
        return state

    def start(self, bootstrap=False):
        """Start mariadbd; ``bootstrap`` makes a new cluster of it."""
        os.makedirs(self.datadir, exist_ok=True)
        self.write_config()
        command = [shutil.which('mariadbd'),
                   '--defaults-file=' + self.config_file]
        position = self.recovered_position()
        if position:
            command.append('--wsrep_start_position=' + position)
        if bootstrap:
            command.append('--wsrep-new-cluster')
        self.launch(command)

    def recovered_position(self):
        """After a crash, the last transaction the datadir holds.

        A node that was killed leaves seqno -1 in grastate.dat: without
        its position it would ask for a full state transfer (SST) where
        the missing transactions (IST) would do. ``--wsrep-recover``
        reads it from InnoDB, as the systemd unit's galera_recovery does.
        None when grastate.dat has it (a clean stop) or there is no data.
        """
        state = self.grastate()
        if not state or state.get('seqno') != '-1' or not os.path.isdir(
                os.path.join(self.datadir, 'mysql')):
            return None
        log = os.path.join(self.home, 'wsrep-recover.log')
        subprocess.run([shutil.which('mariadbd'),
                        '--defaults-file=' + self.config_file,
                        '--wsrep-recover', '--log-error=' + log],
                       capture_output=True, timeout=120)
        try:
            with open(log, errors='replace') as f:
                found = re.findall(r'WSREP: Recovered position: (\S+)',
                                   f.read())
        except OSError:
            return None
        return found[-1] if found and not found[-1].endswith(':-1') \
            else None

    def admin_url(self):
        return 'mysql+pymysql://root@/?unix_socket=%s' % self.socket

    def status(self, name, timeout=5):
        """A wsrep status variable of the node; None if it cannot say."""
        rows = self.query("SHOW GLOBAL STATUS LIKE '%s'" % name,
                          timeout=timeout)
        return rows[0][1] if rows else None

    def query(self, statement, timeout=5):
        """Rows of ``statement`` as root; None if the node cannot answer."""
        engine = sa.create_engine(
            self.admin_url(), poolclass=sa.pool.NullPool,
            connect_args={'connect_timeout': timeout,
                          'read_timeout': timeout})
        try:
            with engine.connect() as conn:
                result = conn.execute(sa.text(statement))
                rows = result.fetchall() if result.returns_rows else []
                conn.commit()
                return rows
        except sa.exc.DBAPIError:
            return None
        finally:
            engine.dispose()

    def synced(self):
        return (self.alive() and
                self.status('wsrep_local_state_comment') == 'Synced')

    def wait_synced(self, timeout=180):
        def synced():
            if self.process is not None and not self.alive():
                raise RuntimeError('%s exited:\n%s' % (self.name,
                                                       self.log_tail()))
            return self.synced()
        local_servers.wait_for(synced, timeout, interval=0.5,
                               message='%s to be Synced' % self.name)

    def url(self):
        """The service's database URL on this node."""
        return 'mysql+pymysql://%s:%s@%s:%d/%s?charset=utf8mb4' % (
            DB_USER, self.lab.state['db_password'], HOST, self.port,
            DATABASE)


def install_galera_datadir(node):
    """The system tables of a new cluster, in the first node's datadir."""
    result = subprocess.run(
        [shutil.which('mariadb-install-db'), '--no-defaults',
         '--datadir=' + node.datadir,
         '--user=' + pwd.getpwuid(os.geteuid()).pw_name,
         '--auth-root-authentication-method=normal', '--skip-test-db',
         '--skip-name-resolve'],
        capture_output=True, text=True, timeout=180)
    if result.returncode:
        raise RuntimeError('mariadb-install-db failed with %d:\n%s%s' % (
            result.returncode, result.stdout, result.stderr))


# RabbitMQ

class RabbitNode(Part):
    """One RabbitMQ node of the cluster, run as the rabbitmq user.

    Its own node name, AMQP and distribution ports, configuration file
    (the machine's pins the shared node's listener) and mnesia and log
    directories, owned by the rabbitmq user. The nodes share the rabbitmq
    user's Erlang cookie, so they can cluster; their names keep clear of
    the machine's node.
    """

    def __init__(self, lab, number):
        super().__init__(lab, 'rabbit%d' % number)
        self.number = number
        self.home = os.path.join(lab.dir, self.name)
        self.pid_file = os.path.join(self.home, 'rabbitmq.pid')
        self.node = 'zhclab%s%d@localhost' % (lab.state['suffix'], number)

    @property
    def port(self):
        return self.lab.state['ports'][self.name]['amqp']

    def vm_pid(self):
        """The Erlang VM's pid (from its pid file); None if it is gone."""
        try:
            with open(self.pid_file) as f:
                pid = int(f.read().strip())
            return pid if psutil.pid_exists(pid) else None
        except (OSError, ValueError):
            return None

    def alive(self):
        return super().alive() and self.vm_pid() is not None

    def start(self):
        """Start the node (not waiting: see ``wait_started``)."""
        owner = pwd.getpwnam('rabbitmq')
        os.makedirs(self.home, exist_ok=True)
        files = {
            'rabbitmq.conf':
                'listeners.tcp.default = %s:%d\n' % (HOST, self.port),
            'rabbitmq-env.conf':
                'ERL_EPMD_ADDRESS=%s\n'
                'SERVER_ADDITIONAL_ERL_ARGS="-kernel '
                'inet_dist_use_interface {127,0,0,1}"\n' % HOST,
            'enabled_plugins': '[].\n',
        }
        for name, text in files.items():
            with open(os.path.join(self.home, name), 'w') as f:
                f.write(text)
        for path in [self.home] + [os.path.join(self.home, name)
                                   for name in files]:
            os.chown(path, owner.pw_uid, owner.pw_gid)
        if os.path.exists(self.pid_file):
            os.unlink(self.pid_file)
        env = {
            'RABBITMQ_NODENAME': self.node,
            'RABBITMQ_NODE_PORT': str(self.port),
            'RABBITMQ_DIST_PORT': str(
                self.lab.state['ports'][self.name]['dist']),
            'RABBITMQ_MNESIA_BASE': os.path.join(self.home, 'mnesia'),
            'RABBITMQ_LOG_BASE': os.path.join(self.home, 'log'),
            'RABBITMQ_PID_FILE': self.pid_file,
            'RABBITMQ_ENABLED_PLUGINS_FILE': os.path.join(
                self.home, 'enabled_plugins'),
            'RABBITMQ_CONFIG_FILE': os.path.join(self.home, 'rabbitmq.conf'),
            'RABBITMQ_CONF_ENV_FILE': os.path.join(self.home,
                                                   'rabbitmq-env.conf'),
        }
        # Run as root, the script switches to the rabbitmq user.
        self.launch([shutil.which('rabbitmq-server')], env)

    def wait_started(self, timeout=90):
        try:
            # "wait" follows the pid file; await_startup would fail until
            # the node registers with epmd.
            local_servers.rabbitmqctl('wait', self.pid_file, '--timeout',
                                      str(timeout), node=self.node,
                                      timeout=timeout + 30)
        except Exception as err:
            raise RuntimeError('RabbitMQ node %s did not start: %s\n%s' % (
                self.node, err, self.log_tail()))
        self.lab.state['parts'][self.name]['vm_pid'] = self.vm_pid()
        self.lab.save()

    def ctl(self, *args, **kwargs):
        return local_servers.rabbitmqctl(*args, node=self.node, **kwargs)

    def stop(self, signo=signal.SIGTERM):
        """``signo`` to the VM's own pid, then to the script."""
        pid = self.vm_pid()
        if pid is not None and self.record and (
                self.record.get('vm_pid') in (None, pid)):
            try:
                os.kill(pid, signo)
            except ProcessLookupError:
                pass
            try:
                psutil.Process(pid).wait(local_servers.STOP_TIMEOUT)
            except (psutil.NoSuchProcess, psutil.TimeoutExpired):
                pass
        super().stop(signal.SIGTERM)


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
        self.galera = [GaleraNode(self, i + 1) for i in range(NODES)]
        for node in self.galera:
            self._parts[node.name] = node
            self._ports(node.name, 'mysql', 'gcomm', 'ist', 'sst')
        self.rabbit = [RabbitNode(self, i + 1) for i in range(NODES)]
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
            install_galera_datadir(first)
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

    def db_sync(self):
        result = subprocess.run(
            console_script('zun-hostcap-db-manage') +
            ['--config-file', self.conductor_config(1), 'upgrade'],
            capture_output=True, text=True, timeout=300)
        if result.returncode:
            raise RuntimeError('zun-hostcap-db-manage upgrade failed:\n%s'
                               % result.stderr[-3000:])

    def start_service(self, name, config):
        binary = {'api': 'zun-hostcap-api',
                  'conductor': 'zun-hostcap-conductor',
                  'compute': 'zun-hostcap-compute'}[name.rstrip('0123456789')]
        return self.part(name).launch(console_script(binary) +
                                      ['--config-file', config])

    def start_api(self, number, timeout=60):
        self.start_service('api%d' % number, self.api_config(number))
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
        """Stop every part by its pid, the last started first.

        The Galera nodes stop last, node 1 last of all: Galera marks it
        safe to bootstrap the cluster again.
        """
        order = sorted(self.state['parts'], key=lambda name: (
            name.startswith('galera'), name.startswith('rabbit'),
            -int(name[-1]) if name[-1].isdigit() else 0))
        for name in order:
            self.part(name).stop()
        self.save()

    def part(self, name):
        """The part ``name`` (made the first time it is asked for)."""
        if name not in self._parts:
            self._parts[name] = Part(self, name)
        return self._parts[name]
