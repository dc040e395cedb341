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

"""The least time a candidates request can take on this machine.

``bench_placement.py --candidates a`` times GET /allocation_candidates on
the flat forest of ``candidate_scenarios.FlatPerfload`` (1,000 computes);
``e`` and ``g`` on the shared pools and the mixed set. Whatever this
service does in Python, a request costs at least the sum of two parts,
measured here alone:

* SQL: the statements this service sends for the request, as it sent
  them (their text and values, recorded at the driver by SQLAlchemy's
  ``before_cursor_execute`` in one request of the WSGI application
  called in a process of its own), run again and every row fetched:
  through the driver alone (one connection kept; the transaction ended
  with a ROLLBACK), and through SQLAlchemy with oslo.db's engine as this
  service sets it up (a connection checked out of the pool with its
  ping, the statements as text, rows fetched, the reset ROLLBACK at
  check-in): no statement built, compiled or read into objects;
* HTTP: the same GET, with the benchmark's client and the same
  waitress, to a WSGI application that answers the same bytes and does
  nothing else.

Beside them, what our code takes: the request called in process (the
process that records the statements times it again: its p50 and the
process' CPU time a request, the database's own work not counted), and,
when a server of ours is given, the same GET to it over HTTP (its p50
and the server process' CPU time a request, from /proc).

Figures are medians of single requests, as the benchmark's p50.

Run alone, it loads each scenario's forest (``--scenarios``, of those
that have a floor: a, e, g) into a database of its own on each engine
asked for (through the API, in process) and prints the parts::

    python tools/candidates_floor.py [--engines mysql,postgresql,sqlite]
        [--scenarios aeg] [--mysql-url URL] [--postgresql-url URL]
        [--requests N] [--database-prefix PREFIX]

``bench_placement.py --candidates aeg`` prints them under its table for
each engine, from the database it loaded for our server, with the best
ratio to Placement they leave, how far above them our p50 is, and our
server's CPU a request.
"""

import argparse
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402  (tools/ is no package)
import candidate_scenarios  # noqa: E402

WARM_UP = 20
ROUNDS = 4
DEFAULT_REQUESTS = 200
ENGINE_NAMES = benchlib.ENGINE_NAMES
DRIVERS = {'sqlite': 'sqlite3', 'mysql': 'PyMySQL',
           'postgresql': 'psycopg2'}
# The scenarios whose queries have a floor, by key.
SCENARIOS = {s.key: s for s in candidate_scenarios.SCENARIOS if s.floor}


class Floor(object):
    """The parts of a request's floor, in milliseconds (medians)."""

    def __init__(self, engine, statements, size, dbapi_ms, sqlalchemy_ms,
                 http_ms, in_process=None, served=None):
        """``in_process``, ``served``: (p50 ms, CPU ms a request) of ours."""
        self.engine = engine
        self.statements = statements
        self.size = size
        self.dbapi_ms = dbapi_ms
        self.sqlalchemy_ms = sqlalchemy_ms
        self.http_ms = http_ms
        self.in_process = in_process
        self.served = served

    @property
    def total_ms(self):
        return self.http_ms + self.sqlalchemy_ms

    def report(self, label, theirs_ms=None, ours_ms=None):
        """The lines that show the floor of the query ``label``.

        :param theirs_ms: Placement's p50, to show the best ratio left.
        :param ours_ms: our p50, shown as a multiple of the floor.
        """
        parts = [
            ('HTTP: the GET through waitress to an app that returns the '
             '%s-byte answer' % format(self.size, ','), self.http_ms),
            ('SQL: its %d statements, alone through %s' % (
                self.statements, DRIVERS[self.engine]), self.dbapi_ms),
            ('SQL: the same through SQLAlchemy and oslo.db\'s pool',
             self.sqlalchemy_ms),
            ('together (HTTP + SQL through SQLAlchemy)', self.total_ms),
        ]
        for what, figures in (('in process (the WSGI application called)',
                               self.in_process),
                              ('served over HTTP (the same GET, alone)',
                               self.served)):
            if figures:
                parts += [('ours %s: p50' % what, figures[0]),
                          ('  its process\' CPU a request', figures[1])]
        lines = ['Floor of %s on %s (p50s):' % (
            label, ENGINE_NAMES[self.engine])]
        lines += ['  %-76s %6.2f ms' % part for part in parts]
        if theirs_ms:
            lines.append(
                '  Placement\'s p50 above: %.1f ms; at best %.1fx of it '
                '(5x: %.1f ms)' % (theirs_ms, theirs_ms / self.total_ms,
                                   theirs_ms / 5.0))
        if ours_ms:
            lines.append('  our p50 above: %.1f ms, %.2fx the floor' % (
                ours_ms, ours_ms / self.total_ms))
        return '\n'.join(lines)


def _medians_ms(calls, requests, rounds=ROUNDS):
    """The median ms of each of ``calls``, taken in turn in rounds.

    In turn, so that a change of the machine's load (or the database's
    statistics, just after a load) weighs on each alike.
    """
    for call in calls:
        for _ in range(WARM_UP):
            call()
    times = [[] for _ in calls]
    for _ in range(rounds):
        for call, kept in zip(calls, times):
            for _ in range(max(1, requests // rounds)):
                began = time.perf_counter()
                call()
                kept.append(time.perf_counter() - began)
    return [statistics.median(kept) * 1000.0 for kept in times]


def capture(config, path, out, load=None, requests=0):
    """Record the statements and the answer of GET ``path``, in ``out``.

    In a process of its own (this service's configuration is global),
    with the WSGI application of the configuration file ``config``; the
    request is made twice, recorded the second time (the first warms
    what a server keeps between requests), then timed ``requests``
    times (its 'in_process': p50 ms, the process' CPU ms a request).
    ``load``: the key of a scenario whose forest is loaded through the
    application first.
    """
    result = subprocess.run(
        [sys.executable, os.path.abspath(__file__), '--capture', path,
         out, str(requests)] + (['--load', load] if load else []),
        env=dict(os.environ, ZUN_HOSTCAP_CONFIG_FILE=config),
        capture_output=True, text=True)
    if result.returncode:
        raise RuntimeError('recording %s failed with %d:\n%s' % (
            path, result.returncode,
            _first_error(result.stdout + result.stderr)))
    with open(out, 'rb') as f:
        return pickle.load(f)


def _first_error(text):
    """The first traceback of a log, else its end."""
    start = text.find('Traceback')
    return text[start:start + 3000] if start >= 0 else text[-2000:]


def _capture_main(path, out, requests, load):
    """``capture``'s process."""
    import sqlalchemy as sa
    import webob

    from zun_hostcap.wsgi import placement

    import bench_placement
    application = placement.init_application()
    headers = {'X-Auth-Token': bench_placement.TOKEN,
               'OpenStack-API-Version': bench_placement.MICROVERSION,
               'Accept': 'application/json'}

    class InProcess(object):
        """bench_placement.Client's calls, to the application in process."""

        def call(self, method, path, body=None, expect=(200,), parse=True):
            req = webob.Request.blank(path, method=method, headers=headers)
            if body is not None:
                req.json_body = body
                req.content_type = 'application/json'
            resp = req.get_response(application)
            if resp.status_int not in expect:
                raise RuntimeError('%s %s -> %s %s' % (
                    method, path, resp.status, resp.body[:300]))
            return resp.body

        def close(self):
            pass

    if load:
        candidate_scenarios.load(SCENARIOS[load](),
                                 lambda *args: InProcess())
    client = InProcess()
    client.call('GET', path)
    statements = []

    def record(conn, cursor, statement, parameters, context, executemany):
        statements.append((statement, parameters))
    sa.event.listen(sa.engine.Engine, 'before_cursor_execute', record)
    body = client.call('GET', path)
    sa.event.remove(sa.engine.Engine, 'before_cursor_execute', record)
    in_process = None
    if requests:
        walls, cpus = [], []
        for _ in range(requests):
            began, cpu = time.perf_counter(), time.process_time()
            client.call('GET', path)
            cpus.append(time.process_time() - cpu)
            walls.append(time.perf_counter() - began)
        in_process = (statistics.median(walls) * 1000.0,
                      statistics.mean(cpus) * 1000.0)
    with open(out, 'wb') as f:
        pickle.dump({'statements': statements, 'body': body,
                     'in_process': in_process}, f)


def sql_floor(url, statements, requests=DEFAULT_REQUESTS):
    """(driver alone, through SQLAlchemy): medians of ``statements``, ms."""
    from oslo_db.sqlalchemy import enginefacade

    from zun_hostcap.db.sqlalchemy import api as db_api

    facade = enginefacade.transaction_context()
    facade.configure(connection=url, **db_api.ENGINE_OPTIONS)
    for hook in db_api.ON_ENGINE_CREATE:
        facade.append_on_engine_create(hook)
    engine = facade.reader.get_engine()
    try:
        raw = engine.raw_connection()
        try:
            dbapi = raw.driver_connection

            def by_driver():
                cursor = dbapi.cursor()
                try:
                    for statement, parameters in statements:
                        cursor.execute(statement, parameters)
                        cursor.fetchall()
                finally:
                    cursor.close()
                dbapi.rollback()

            # SQLite's BEGIN (db_api.configure_sqlite) is the engine's
            # own there, as in our server.
            begun = [(statement, parameters)
                     for statement, parameters in statements
                     if statement.strip().upper() != 'BEGIN']

            def by_sqlalchemy():
                with engine.connect() as conn:
                    for statement, parameters in begun:
                        conn.exec_driver_sql(statement,
                                             parameters).fetchall()
            return tuple(_medians_ms([by_driver, by_sqlalchemy], requests))
        finally:
            raw.close()
    finally:
        engine.dispose()


def http_floor(client_class, path, body, requests=DEFAULT_REQUESTS):
    """Median ms of GET ``path`` to an application answering ``body``."""
    workdir = tempfile.mkdtemp(prefix='bench-floor-')
    answer = os.path.join(workdir, 'answer.json')
    with open(answer, 'wb') as f:
        f.write(body)
    server = benchlib.WSGIServer('answer', 'bytes:' + answer, 8,
                                 dict(os.environ),
                                 os.path.join(workdir, 'answer.log'))
    server.start()
    try:
        client = client_class(server.port)
        try:
            return _medians_ms(
                [lambda: client.call('GET', path, parse=False)],
                requests)[0]
        finally:
            client.close()
    finally:
        server.stop()


def served(client_class, port, pid, path, requests=DEFAULT_REQUESTS):
    """(p50 ms, CPU ms a request) of GET ``path`` to our server ``pid``.

    Its CPU time from /proc, over the timed requests (clock ticks of
    10 ms: the mean of at least 20 requests is kept).
    """
    client = client_class(port)
    try:
        for _ in range(WARM_UP):
            client.call('GET', path, parse=False)
        count = max(20, requests)
        times = []
        cpu = benchlib.cpu_seconds(pid)
        for _ in range(count):
            began = time.perf_counter()
            client.call('GET', path, parse=False)
            times.append(time.perf_counter() - began)
        cpu = benchlib.cpu_seconds(pid) - cpu
    finally:
        client.close()
    return statistics.median(times) * 1000.0, cpu * 1000.0 / count


def measure(engine, url, config, path, client_class,
            requests=DEFAULT_REQUESTS, server=None):
    """The Floor of GET ``path`` on the loaded database ``url``.

    :param engine: its engine's name (sqlite, mysql, postgresql).
    :param config: this service's configuration file for that database.
    :param server: (port, pid) of our server on that database, to time
        the GET served too.
    """
    workdir = tempfile.mkdtemp(prefix='bench-floor-')
    recorded = capture(config, path, os.path.join(workdir, 'request'),
                       requests=requests)
    statements = recorded['statements']
    dbapi_ms, sqlalchemy_ms = sql_floor(url, statements, requests)
    http_ms = http_floor(client_class, path, recorded['body'], requests)
    return Floor(engine, len(statements), len(recorded['body']), dbapi_ms,
                 sqlalchemy_ms, http_ms, recorded['in_process'],
                 served(client_class, server[0], server[1], path, requests)
                 if server else None)


def main(argv=None):
    if argv is None and sys.argv[1:2] == ['--capture']:
        return _capture_main(sys.argv[2], sys.argv[3], int(sys.argv[4]),
                             sys.argv[6] if sys.argv[5:6] == ['--load']
                             else None)
    import bench_placement
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--engines', default='mysql,postgresql',
                        type=benchlib.engine_list,
                        help='of %s (comma-separated; default '
                        '%%(default)s)' % ', '.join(ENGINE_NAMES))
    parser.add_argument('--scenarios', default='a',
                        help='the keys of the scenarios, of %s (default '
                        '%%(default)s)' % ''.join(sorted(SCENARIOS)))
    parser.add_argument('--mysql-url',
                        default=bench_placement.DEFAULT_MYSQL_URL,
                        help='an administrator URL of the MariaDB server '
                        '(default %(default)s)')
    parser.add_argument('--postgresql-url',
                        default=bench_placement.DEFAULT_POSTGRESQL_URL,
                        help='an administrator URL of the PostgreSQL server '
                        '(default %(default)s)')
    parser.add_argument('--database-prefix', default='bench_',
                        type=benchlib.database_prefix,
                        help='the database made on each server is PREFIX '
                        '+ floor (default %(default)s)')
    parser.add_argument('--requests', type=benchlib.at_least(1),
                        default=DEFAULT_REQUESTS,
                        help='requests timed in each part (default '
                        '%(default)s)')
    args = parser.parse_args(argv)
    if not args.scenarios or set(args.scenarios) - set(SCENARIOS):
        parser.error('--scenarios: of %s' % ''.join(sorted(SCENARIOS)))
    name = args.database_prefix + 'floor'
    for engine, key in ((e, k) for e in args.engines
                        for k in args.scenarios):
        workdir = tempfile.mkdtemp(prefix='bench-floor-')
        if engine == 'sqlite':
            server = None
            url = 'sqlite:///' + os.path.join(workdir, name + '.sqlite')
        else:
            server = (benchlib.MariaDB(args.mysql_url) if engine == 'mysql'
                      else benchlib.PostgreSQL(args.postgresql_url))
            url = server.fresh(name)
        try:
            config = benchlib.write_config(
                os.path.join(workdir, 'zun-hostcap.conf'),
                bench_placement.Ours().sections(workdir, url))
            bench_placement._run(
                benchlib.console_script('zun-hostcap-db-manage') +
                ['--config-file', config, 'upgrade'])
            queries = SCENARIOS[key]().queries()
            capture(config, queries[0].path,
                    os.path.join(workdir, 'load'), load=key)
            for query in queries:
                floor = measure(engine, url, config, query.path,
                                bench_placement.Client, args.requests)
                print(floor.report(query.label))
        finally:
            if server is not None:
                server.drop(name)


if __name__ == '__main__':
    main()
