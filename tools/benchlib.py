"""What the benchmark tools of tools/ share.

The tools are scripts, not a package: each puts this directory first on
``sys.path`` and imports this module. It holds the helpers that are the
same for all of them: the configuration files, the console scripts, a
free port, versions of installed distributions, and a WSGI application
served by waitress in a process of its own, stopped by its own pid, a
MariaDB database made and dropped, a profile printed.
"""

import http.client
import importlib.metadata
import os
import pstats
import shutil
import signal
import socket
import subprocess
import sys
import time

HOST = '127.0.0.1'

# Run with a Python of its own: waitress serving the WSGI application
# named module:attribute ("hello" for a hello-world one), optionally
# profiled request by request (cProfile in the thread that serves the
# request, merged in one file written on SIGTERM). The same code for
# every server a tool compares, so the server is the same.
SERVE = r'''
import cProfile, importlib, os, pstats, signal, sys, threading
import waitress
target, port, threads, profile = sys.argv[1:5]
if target == 'hello':
    def application(environ, start_response):
        start_response('200 OK', [('Content-Type', 'application/json'),
                                  ('Content-Length', '2')])
        return [b'{}']
else:
    module, _, attribute = target.partition(':')
    application = getattr(importlib.import_module(module), attribute)
if profile:
    inner, lock, merged = application, threading.Lock(), []
    def application(environ, start_response):
        prof = cProfile.Profile()
        prof.enable()
        try:
            body = inner(environ, start_response)
            try:
                data = list(body)
            finally:
                close = getattr(body, 'close', None)
                if close:
                    close()
        finally:
            prof.disable()
        with lock:
            if merged:
                merged[0].add(prof)
            else:
                merged.append(pstats.Stats(prof))
        return data
def stop(signo, frame):
    if profile:
        with lock:
            if merged:
                merged[0].dump_stats(profile)
    os._exit(0)
signal.signal(signal.SIGTERM, stop)
waitress.serve(application, host='127.0.0.1', port=int(port),
               threads=int(threads), ident='bench', _quiet=True)
'''


def version(dist, python=None):
    """The version of ``dist`` installed for ``python``; None if absent."""
    if python is None:
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            return None
    result = subprocess.run(
        [python, '-c', 'import importlib.metadata as m, sys; '
         'print(m.version(sys.argv[1]))', dist],
        capture_output=True, text=True)
    return result.stdout.strip() if result.returncode == 0 else None


def write_config(path, sections):
    """An INI file of {section: {option: value}} at ``path``; the path."""
    with open(path, 'w') as f:
        for section, options in sections.items():
            f.write('[%s]\n' % section)
            for name, value in options.items():
                f.write('%s = %s\n' % (name, value))
            f.write('\n')
    return path


def console_script(name, python=None):
    """The command of console script ``name`` installed beside ``python``.

    This Python's by default; else the one in PATH.
    """
    python = python or sys.executable
    script = os.path.join(os.path.dirname(python), name)
    if os.path.exists(script):
        return [script]
    found = shutil.which(name)
    if found:
        return [found]
    raise SystemExit('%s not found beside %s nor in PATH' % (name, python))


def free_port():
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


class Process(object):
    """A command in a process of its own, stopped by its own pid."""

    def __init__(self, label, argv, log_path, env=None):
        self.label = label
        self.argv = argv
        self.log_path = log_path
        self.env = env
        self.process = None

    def start(self):
        with open(self.log_path, 'w') as log:
            self.process = subprocess.Popen(
                self.argv, env=self.env, stdout=log,
                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True)

    def stop(self, timeout=15):
        """SIGTERM to its pid; SIGKILL if it outlives ``timeout`` s."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def log_tail(self, lines=30):
        try:
            with open(self.log_path, errors='replace') as f:
                return ''.join(f.readlines()[-lines:])
        except OSError as err:
            return str(err)


class WSGIServer(Process):
    """``SERVE`` in a process of its own, stopped by its own pid.

    :param target: module:attribute of the WSGI application, or "hello".
    :param python: the Python that serves it (this one by default).
    :param env: its environment (its configuration is found through it).
    :param profile: a file to write the merged profile into on stop.
    """

    def __init__(self, label, target, threads, env, log_path, python=None,
                 profile=None):
        self.port = free_port()
        super().__init__(
            label, [python or sys.executable, '-c', SERVE, target,
                    str(self.port), str(threads), profile or ''],
            log_path, env)

    def start(self, timeout=90):
        """Start it; return once ``GET /`` answers 200."""
        super().start()
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise RuntimeError('%s exited with %s:\n%s' % (
                    self.label, self.process.returncode, self.log_tail()))
            try:
                conn = http.client.HTTPConnection(HOST, self.port, timeout=30)
                conn.request('GET', '/', headers={'Accept':
                                                  'application/json'})
                status = conn.getresponse().status
                conn.close()
                if status == 200:
                    return
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError('%s did not answer in %ss:\n%s' % (
                    self.label, timeout, self.log_tail()))
            time.sleep(0.2)


class MariaDB(object):
    """A MariaDB/MySQL server reached with an administrator URL."""

    def __init__(self, admin_url):
        self.admin_url = admin_url.rstrip('/') + '/'

    def execute(self, statement):
        """Run ``statement``; its rows, or None if it returns none."""
        import sqlalchemy as sa
        engine = sa.create_engine(self.admin_url,
                                  poolclass=sa.pool.NullPool)
        try:
            with engine.connect() as conn:
                result = conn.execute(sa.text(statement))
                return result.fetchall() if result.returns_rows else None
        finally:
            engine.dispose()

    def version(self):
        return 'MariaDB/MySQL %s' % self.execute('SELECT VERSION()')[0][0]

    def fresh(self, name):
        """The URL of an empty database ``name``, made again if it was."""
        self.drop(name)
        self.execute('CREATE DATABASE %s CHARACTER SET utf8mb4' % name)
        return self.admin_url + name + '?charset=utf8mb4'

    def drop(self, name):
        self.execute('DROP DATABASE IF EXISTS %s' % name)


def print_profile(path, title, limit=35):
    """The profile in ``path`` by cumulative then own time.

    Nothing without a path (no profile asked for).
    """
    if not path:
        return
    if not os.path.exists(path):
        print('no profile was written into %s' % path)
        return
    print('\nProfile of %s (%s), by cumulative time:' % (title, path))
    stats = pstats.Stats(path)
    stats.sort_stats('cumulative').print_stats(limit)
    print('By own time:')
    stats.sort_stats('tottime').print_stats(limit)
