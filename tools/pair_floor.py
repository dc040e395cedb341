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

"""The least time an allocation pair can take on this machine.

``bench_placement.py`` times allocation pairs (PUT then DELETE of one
consumer's allocations) through waitress. Whatever implements the API,
a pair costs at least the sum of two parts, measured here alone:

* HTTP: the same two requests, with the same client and the same
  waitress, to a WSGI application that only answers ``{}``: no
  middleware, no body parsed, no database;
* SQL: what a pair must do in the database, through the libraries this
  project is bound to (oslo.db's enginefacade and SQLAlchemy Core, with
  compiled statements cached), on minimal tables of its own: in one
  transaction read the provider's generation and usage and the
  consumer, insert the consumer and its three allocations, bump the
  provider's generation; in a second one delete the allocations and the
  consumer. Placement's schema and checks need more than this.

The SQL part is measured on SQLite (a file in WAL mode, set up as
zun-hostcap sets up its own), MariaDB or PostgreSQL. Run alone, it
prints both parts for each engine asked, and a third figure: the same
pairs through waitress to an application that runs the SQL part's
statements and nothing else (``served_floor``). Their sum is measured
in two warm loops; served, the SQL runs in a waitress thread that each
request wakes, as a real server's does, and costs more::

    python tools/pair_floor.py [--engines mysql,postgresql,sqlite]
        [--mysql-url URL] [--postgresql-url URL] [--pairs N]
        [--database-prefix PREFIX]

``bench_placement.py`` prints them under its table for each engine it
measured, with the best ratio to Placement's pairs they leave and how
far above the floor our pairs are.
"""

import argparse
import os
import sys
import tempfile
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402  (tools/ is no package)

DATABASE = 'bench_floor'
WARM_UP = 100
DEFAULT_MYSQL_URL = 'mysql+pymysql://root@127.0.0.1:3306/'
DEFAULT_POSTGRESQL_URL = 'postgresql+psycopg2://postgres@127.0.0.1:5432/'
ENGINE_NAMES = benchlib.ENGINE_NAMES


class SQLiteFiles(object):
    """SQLite files in a directory of their own, as a database server."""

    def __init__(self):
        self.directory = tempfile.mkdtemp(prefix='bench-floor-')

    def fresh(self, name):
        self.drop(name)
        return 'sqlite:///' + os.path.join(self.directory, name + '.sqlite')

    def drop(self, name):
        for suffix in ('', '-wal', '-shm'):
            path = os.path.join(self.directory, name + '.sqlite' + suffix)
            if os.path.exists(path):
                os.unlink(path)


def database_server(engine, mysql_url=DEFAULT_MYSQL_URL,
                    postgresql_url=DEFAULT_POSTGRESQL_URL):
    """Where the SQL part of ``engine`` (sqlite, mysql...) is measured."""
    if engine == 'mysql':
        return benchlib.MariaDB(mysql_url)
    if engine == 'postgresql':
        return benchlib.PostgreSQL(postgresql_url)
    return SQLiteFiles()


def http_floor(client_class, body, pairs):
    """Milliseconds a pair of requests takes to a hello-world app."""
    workdir = tempfile.mkdtemp(prefix='bench-floor-')
    server = benchlib.WSGIServer('hello', 'hello', 8, dict(os.environ),
                                 os.path.join(workdir, 'hello.log'))
    server.start()
    try:
        client = client_class(server.port)
        path = '/allocations/%s' % uuid.uuid4()

        def pair():
            client.call('PUT', path, body)
            client.call('DELETE', path)
        return _per_pair(pair, pairs)
    finally:
        server.stop()


def sql_pair(url):
    """(put, delete, engine): a pair's SQL on a fresh database ``url``.

    ``put(consumer_uuid)`` and ``delete(consumer_uuid)`` each run one
    transaction through oslo.db's enginefacade and SQLAlchemy Core.
    """
    from oslo_db.sqlalchemy import enginefacade
    import sqlalchemy as sa

    from zun_hostcap.db.sqlalchemy import api as db_api

    facade = enginefacade.transaction_context()
    # As zun-hostcap configures its engines: no sleep(0) at each
    # check-in; a SQLite file in WAL mode, its pool kept, its writes
    # taking the lock at BEGIN.
    facade.configure(connection=url, **db_api.ENGINE_OPTIONS)
    facade.append_on_engine_create(db_api.configure_sqlite)
    meta = sa.MetaData()
    rp = sa.Table('rp', meta,
                  sa.Column('id', sa.Integer, primary_key=True),
                  sa.Column('generation', sa.Integer))
    consumer = sa.Table('consumer', meta,
                        sa.Column('id', sa.Integer, primary_key=True),
                        sa.Column('uuid', sa.String(36), unique=True),
                        sa.Column('generation', sa.Integer))
    alloc = sa.Table('alloc', meta,
                     sa.Column('id', sa.Integer, primary_key=True),
                     sa.Column('rp_id', sa.Integer),
                     sa.Column('consumer', sa.String(36), index=True),
                     sa.Column('rc', sa.Integer),
                     sa.Column('used', sa.Integer),
                     sa.Index('alloc_rp_rc', 'rp_id', 'rc'))
    engine = facade.writer.get_engine()
    meta.create_all(engine)
    with engine.begin() as conn:
        conn.execute(rp.insert().values(id=1, generation=0))

    read = sa.select(
        rp.c.generation,
        sa.select(sa.func.sum(alloc.c.used))
        .where(alloc.c.rp_id == rp.c.id, alloc.c.rc == 0)
        .scalar_subquery(),
        sa.select(consumer.c.generation)
        .where(consumer.c.uuid == sa.bindparam('consumer_uuid'))
        .scalar_subquery()).where(rp.c.id == 1)
    bump = (rp.update()
            .where(rp.c.id == 1,
                   rp.c.generation == sa.bindparam('expected'))
            .values(generation=sa.bindparam('new')))
    delete_allocs = alloc.delete().where(
        alloc.c.consumer == sa.bindparam('consumer_uuid'))
    delete_consumer = consumer.delete().where(
        consumer.c.uuid == sa.bindparam('consumer_uuid'))

    @enginefacade.transaction_context_provider
    class Context(object):
        pass

    @db_api.writes
    @facade.writer
    def put(context, consumer_uuid):
        session = context.session
        generation = session.execute(
            read, {'consumer_uuid': consumer_uuid}).first()[0]
        session.execute(consumer.insert(),
                        {'uuid': consumer_uuid, 'generation': 1})
        session.execute(alloc.insert(), [
            {'rp_id': 1, 'consumer': consumer_uuid, 'rc': rc,
             'used': 1} for rc in range(3)])
        session.execute(bump, {'expected': generation,
                               'new': generation + 1})

    @db_api.writes
    @facade.writer
    def delete(context, consumer_uuid):
        params = {'consumer_uuid': consumer_uuid}
        context.session.execute(delete_allocs, params)
        context.session.execute(delete_consumer, params)

    return (lambda uuid: put(Context(), uuid),
            lambda uuid: delete(Context(), uuid), engine)


def sql_floor(server, pairs, database=DATABASE):
    """Milliseconds a pair's SQL takes through oslo.db and SQLAlchemy.

    :param server: where: a ``benchlib.MariaDB``, ``benchlib.PostgreSQL``
        or ``SQLiteFiles``.
    :param database: the name of the database made there, and dropped.
    """
    url = server.fresh(database)
    try:
        put, delete, engine = sql_pair(url)

        def pair():
            consumer_uuid = str(uuid.uuid4())
            put(consumer_uuid)
            delete(consumer_uuid)
        try:
            return _per_pair(pair, pairs)
        finally:
            engine.dispose()
    finally:
        server.drop(database)


def served_application():
    """A WSGI application doing a pair's SQL and nothing else.

    PUT runs ``sql_pair``'s put of the consumer that ends the path,
    DELETE its delete; both answer ``{}`` as the hello-world application
    does, as to any other request. The database is $PAIR_FLOOR_URL.
    """
    put, delete, _engine = sql_pair(os.environ['PAIR_FLOOR_URL'])
    write = {'PUT': put, 'DELETE': delete}

    def application(environ, start_response):
        length = int(environ.get('CONTENT_LENGTH') or 0)
        if length:
            environ['wsgi.input'].read(length)
        method = write.get(environ['REQUEST_METHOD'])
        if method is not None:
            method(environ['PATH_INFO'].rpartition('/')[2])
        start_response('200 OK', [('Content-Type', 'application/json'),
                                  ('Content-Length', '2')])
        return [b'{}']
    return application


def served_floor(client_class, body, pairs, server, database=DATABASE):
    """Milliseconds a pair takes through waitress to ``served_application``.

    The floor's HTTP and SQL in one server, as a pair of this project's
    runs: the SQL in a thread of waitress, woken by each request, rather
    than in a loop of its own. ``server`` and ``database`` as for
    ``sql_floor``.
    """
    url = server.fresh(database)
    workdir = tempfile.mkdtemp(prefix='bench-floor-')
    tools = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, PAIR_FLOOR_URL=url, PYTHONPATH=os.pathsep.join(
        [tools, os.path.dirname(tools)] +
        [path for path in [os.environ.get('PYTHONPATH')] if path]))
    process = benchlib.WSGIServer('floor', 'pair_floor:SERVED', 8, env,
                                  os.path.join(workdir, 'floor.log'))
    try:
        process.start()
        client = client_class(process.port)

        def pair():
            path = '/allocations/%s' % uuid.uuid4()
            client.call('PUT', path, body)
            client.call('DELETE', path)
        return _per_pair(pair, pairs)
    finally:
        process.stop()
        server.drop(database)


class _Served(object):
    """``served_application``, built at its first request."""

    application = None

    def __call__(self, environ, start_response):
        if self.application is None:
            self.application = served_application()
        return self.application(environ, start_response)


SERVED = _Served()


def _per_pair(pair, pairs):
    for _ in range(WARM_UP):
        pair()
    start = time.perf_counter()
    for _ in range(pairs):
        pair()
    return (time.perf_counter() - start) * 1000.0 / pairs


def report(http_ms, sql_ms, theirs_ms=None, engine='mysql', ours_ms=None,
           served_ms=None):
    """The lines that show the floor (and the best ratio it leaves).

    :param ours_ms: our pair's time, shown as a multiple of the floor.
    :param served_ms: ``served_floor``'s time, shown beside the floor.
    """
    parts = [
        ('HTTP: PUT + DELETE through waitress to a hello-world app',
         http_ms),
        ('SQL: the pair\'s statements, 2 commits, oslo.db + SQLAlchemy',
         sql_ms),
        ('together', http_ms + sql_ms),
    ]
    if served_ms:
        parts.append(('both in one server (the SQL in a waitress thread)',
                      served_ms))
    lines = ['Floor of an allocation pair on %s (no implementation '
             'does a pair in less):' % ENGINE_NAMES[engine]]
    lines += ['  %-62s %6.2f ms' % part for part in parts]
    if theirs_ms:
        lines.append(
            '  Placement\'s pair above: %.2f ms; at best %.1fx of it' % (
                theirs_ms, theirs_ms / (http_ms + sql_ms)))
    if ours_ms:
        lines.append(
            '  our pair above: %.2f ms, %.2fx the floor (target 1.25x)' % (
                ours_ms, ours_ms / (http_ms + sql_ms)))
        if served_ms:
            lines.append('  our pair: %.2fx the floor served in one server' %
                         (ours_ms / served_ms))
    return '\n'.join(lines)


def main(argv=None):
    import bench_placement
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--engines', default='mysql',
                        type=benchlib.engine_list,
                        help='where the SQL part is measured, of %s '
                        '(comma-separated; default mysql)' % ', '.join(
                            ENGINE_NAMES))
    parser.add_argument('--mysql-url', default=DEFAULT_MYSQL_URL,
                        help='an administrator URL of the MariaDB server '
                        '(default %(default)s)')
    parser.add_argument('--postgresql-url', default=DEFAULT_POSTGRESQL_URL,
                        help='an administrator URL of the PostgreSQL server '
                        '(default %(default)s)')
    parser.add_argument('--database-prefix', default='bench_',
                        type=benchlib.database_prefix,
                        help='the SQL part\'s database is <prefix>floor '
                        '(default %(default)s)')
    parser.add_argument('--pairs', type=benchlib.at_least(1), default=2000,
                        help='pairs timed in each part (default 2000)')
    args = parser.parse_args(argv)
    body = bench_placement.pair_body(str(uuid.uuid4()))
    http_ms = http_floor(bench_placement.Client, body, args.pairs)
    for engine in args.engines:
        server = database_server(engine, args.mysql_url, args.postgresql_url)
        database = args.database_prefix + 'floor'
        sql_ms = sql_floor(server, args.pairs, database)
        served_ms = served_floor(bench_placement.Client, body, args.pairs,
                                 server, database)
        print(report(http_ms, sql_ms, engine=engine, served_ms=served_ms))


if __name__ == '__main__':
    main()
