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

"""Misconfigurations found at start, each told in one line.

oslo.config checks a value when it is first read, which may be long after
start, and tells it with a traceback. Reading every option once at start
turns each bad value into one line that names the option, the value and
what is expected; the process then ends with status 1.
"""

import configparser
import os
import re

from oslo_config import cfg
from oslo_config import types
import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

_NOT_VALID = re.compile(r"from LocationInfo\(.*?detail='(?P<where>[^']*)'\)"
                        r" is not valid: (?P<reason>.*)$", re.S)


class StartupError(Exception):
    """A misconfiguration: the message names option, value and fix."""


def _expected(opt_type):
    """What an option of ``opt_type`` takes, in words."""
    if isinstance(opt_type, types.Boolean):
        return 'true or false'
    if isinstance(opt_type, (types.Integer, types.Float)):
        kind = ('an integer' if isinstance(opt_type, types.Integer)
                else 'a number')
        low, high = opt_type.min, opt_type.max
        if low is not None and high is not None:
            return '%s from %s to %s' % (kind, low, high)
        if low is not None:
            return '%s of at least %s' % (kind, low)
        if high is not None:
            return '%s of at most %s' % (kind, high)
        return kind
    if isinstance(opt_type, types.String) and opt_type.choices:
        return 'one of %s' % ', '.join(str(c) for c in opt_type.choices)
    if isinstance(opt_type, types.HostAddress):
        return 'an IP address or a host name'
    if isinstance(opt_type, types.List):
        return 'a comma-separated list'
    return None


def _raw_value(conf, group, name):
    """The text a config file gave the option, as the operator wrote it."""
    section = group or 'DEFAULT'
    value = None
    for path in conf.config_file or ():
        parser = configparser.RawConfigParser(strict=False)
        try:
            parser.read(path)
        except configparser.Error:
            continue
        if parser.has_option(section, name):
            value = parser.get(section, name)
    return value


def _describe(conf, group, name, opt, err):
    label = '[%s] %s' % (group or 'DEFAULT', name)
    match = _NOT_VALID.search(str(err))
    where = reason = None
    if match:
        where, reason = match.group('where'), match.group('reason').strip()
    value = _raw_value(conf, group, name)
    message = label
    if value is not None:
        message += ' = %r' % value
    if where and os.path.sep in where:
        message += ' (in %s)' % where
    expected = _expected(opt.type) if opt is not None else None
    if expected:
        message += ' is not valid; expected %s' % expected
    else:
        message += ' is not valid: %s' % (reason or err)
    return message


def _our_opts():
    """{(group, name): opt} of the options zun-hostcap defines."""
    from zun_hostcap.conf import opts
    known = {}
    for group, group_opts in opts.list_opts():
        group_name = getattr(group, 'name', group)
        for opt in group_opts:
            known[(None if group_name == 'DEFAULT' else group_name,
                   opt.dest)] = opt
    return known


def _read_every_option(conf):
    """Yield (group, name, error) for each option whose value is bad."""
    for name in list(conf):
        try:
            value = conf[name]
        except (cfg.ConfigFileValueError, ValueError) as err:
            yield None, name, err
            continue
        except cfg.Error:
            continue
        if not isinstance(value, cfg.ConfigOpts.GroupAttr):
            continue
        for opt_name in list(value):
            try:
                value[opt_name]
            except (cfg.ConfigFileValueError, ValueError) as err:
                yield name, opt_name, err
            except cfg.Error:
                # Not a value problem (a required option, say); reported
                # where the option is used.
                continue


def invalid_options(conf):
    """One message per option whose value does not convert."""
    known = _our_opts()
    return [_describe(conf, group, name, known.get((group, name)), err)
            for group, name, err in _read_every_option(conf)]


def check_state_path(path):
    """[DEFAULT] state_path exists (created if need be) and is writable."""
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as err:
        raise StartupError(
            '[DEFAULT] state_path = %r: cannot create the directory: %s; '
            'expected a directory this service can write to'
            % (path, err.strerror or err))
    if not os.path.isdir(path) or not os.access(path, os.W_OK | os.X_OK):
        raise StartupError(
            '[DEFAULT] state_path = %r is not a writable directory; '
            'expected a directory this service can write to' % path)


# The drivers the install extras bring: pip install zun-hostcap[<extra>].
_EXTRA_DRIVERS = {'mysql': ('mysql', 'pymysql'),
                  'postgresql': ('postgresql', 'psycopg')}


def _driver_hint(url):
    backend = url.get_backend_name()
    if backend not in _EXTRA_DRIVERS:
        return 'install it'
    extra, driver = _EXTRA_DRIVERS[backend]
    if url.get_driver_name() == driver:
        return 'install it with pip install zun-hostcap[%s]' % extra
    return ('install it, or use %s+%s:// whose driver pip install '
            'zun-hostcap[%s] installs' % (backend, driver, extra))


def database_url(connection):
    """The URL of ``[database] connection``; MySQL gets utf8mb4.

    oslo.db asks MySQL drivers for the 3-byte "utf8" character set unless
    the URL names one, and then a 4-byte character (an emoji in a
    hostname) fails against our utf8mb4 tables. Everything else is kept.

    :raises StartupError: a URL that does not parse or whose driver is
        not installed.
    """
    if not connection:
        raise StartupError('[database] connection is not set; expected a '
                           'database URL such as '
                           'mysql+pymysql://user:password@host/zun_hostcap')
    try:
        url = sa.engine.make_url(connection)
    except sa_exc.ArgumentError:
        raise StartupError(
            '[database] connection is not a database URL; expected one '
            'such as mysql+pymysql://user:password@host/zun_hostcap')
    shown = url.render_as_string(hide_password=True)
    try:
        dialect = url.get_dialect()
    except sa_exc.NoSuchModuleError:
        raise StartupError(
            '[database] connection = %s: SQLAlchemy knows no database %r; '
            'expected mysql+pymysql://, postgresql:// or sqlite://'
            % (shown, url.drivername))
    try:
        dialect.import_dbapi()
    except ImportError as err:
        raise StartupError(
            '[database] connection = %s: its driver is not installed (%s); '
            '%s' % (shown, err, _driver_hint(url)))
    if url.get_backend_name() == 'mysql' and 'charset' not in url.query:
        url = url.update_query_dict({'charset': 'utf8mb4'})
        return url.render_as_string(hide_password=False)
    return connection
