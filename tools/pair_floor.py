#!/usr/bin/env python3
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

Run alone, it prints both parts for MariaDB::

    python tools/pair_floor.py [--mysql-url URL] [--pairs N]

``bench_placement.py`` prints them under its table, with the best ratio
to Placement's pairs they leave.
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


def sql_floor(mariadb, pairs):
    """Milliseconds a pair's SQL takes through oslo.db and SQLAlchemy."""
    from oslo_db.sqlalchemy import enginefacade
    import sqlalchemy as sa

    url = mariadb.fresh(DATABASE)
    try:
        facade = enginefacade.transaction_context()
        # As zun-hostcap configures it: no sleep(0) at each check-in.
        facade.configure(connection=url, thread_checkin=False)
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

        @facade.writer
        def delete(context, consumer_uuid):
            params = {'consumer_uuid': consumer_uuid}
            context.session.execute(delete_allocs, params)
            context.session.execute(delete_consumer, params)

        def pair():
            consumer_uuid = str(uuid.uuid4())
            put(Context(), consumer_uuid)
            delete(Context(), consumer_uuid)
        try:
            return _per_pair(pair, pairs)
        finally:
            engine.dispose()
    finally:
        mariadb.drop(DATABASE)


def _per_pair(pair, pairs):
    for _ in range(WARM_UP):
        pair()
    start = time.perf_counter()
    for _ in range(pairs):
        pair()
    return (time.perf_counter() - start) * 1000.0 / pairs


def report(http_ms, sql_ms, theirs_ms=None):
    """The lines that show the floor (and the best ratio it leaves)."""
    parts = [
        ('HTTP: PUT + DELETE through waitress to a hello-world app',
         http_ms),
        ('SQL: the pair\'s statements, 2 commits, oslo.db + SQLAlchemy',
         sql_ms),
        ('together', http_ms + sql_ms),
    ]
    lines = ['Floor of an allocation pair on MariaDB (no implementation '
             'does a pair in less):']
    lines += ['  %-62s %6.2f ms' % part for part in parts]
    if theirs_ms:
        lines.append(
            '  Placement\'s pair above: %.2f ms; at best %.1fx of it' % (
                theirs_ms, theirs_ms / (http_ms + sql_ms)))
    return '\n'.join(lines)


def main(argv=None):
    import bench_placement
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--mysql-url', default=DEFAULT_MYSQL_URL,
                        help='an administrator URL of the MariaDB server '
                        '(default %(default)s)')
    parser.add_argument('--pairs', type=int, default=2000,
                        help='pairs timed in each part (default 2000)')
    args = parser.parse_args(argv)
    http_ms = http_floor(bench_placement.Client,
                         bench_placement.pair_body(str(uuid.uuid4())),
                         args.pairs)
    sql_ms = sql_floor(benchlib.MariaDB(args.mysql_url), args.pairs)
    print(report(http_ms, sql_ms))


if __name__ == '__main__':
    main()
