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

"""The nodes of the HA lab's clusters: MariaDB Galera and RabbitMQ.

Each node is a ``Part`` of the lab (``cloud.Lab``): a
``local_servers.Process`` whose pid, start time and marker are kept in
the lab's state file, so that another run finds and stops it by its
pid. A Galera node has its own datadir, socket and ports (client, gcomm,
IST, SST); a RabbitMQ node its own node name, ports, configuration file
and directories, owned by the rabbitmq user.
"""

import os
import pwd
import re
import shutil
import signal
import subprocess

import psutil
import pymysql

from zun_hostcap.tests.functional import local_servers

HOST = '127.0.0.1'
GALERA_PROVIDERS = ('/usr/lib/galera/libgalera_smm.so',
                    '/usr/lib/galera-4/libgalera_smm.so',
                    '/usr/lib64/galera-4/libgalera_smm.so')
DATABASE = 'zun_hostcap'
DB_USER = 'zun_hostcap'


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

    def status(self, name, timeout=5):
        """A wsrep status variable of the node; None if it cannot say."""
        rows = self.query("SHOW GLOBAL STATUS LIKE '%s'" % name,
                          timeout=timeout)
        return rows[0][1] if rows else None

    def connect(self, timeout=5, **kwargs):
        """A PyMySQL connection as root, over the node's socket."""
        return pymysql.connect(unix_socket=self.socket, user='root',
                               connect_timeout=timeout,
                               read_timeout=timeout, **kwargs)

    def query(self, statement, timeout=5):
        """Rows of ``statement`` as root; None if the node cannot answer.

        A plain connection, closed without COMMIT or ROLLBACK, which a
        node that refuses queries refuses: the statements run here are
        reads, SET GLOBAL and DDL, which MariaDB commits by itself.
        """
        try:
            conn = self.connect(timeout)
        except pymysql.MySQLError:
            return None
        try:
            with conn.cursor() as cursor:
                cursor.execute(statement)
                return list(cursor.fetchall())
        except pymysql.MySQLError:
            return None
        finally:
            conn.close()

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
