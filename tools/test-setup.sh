#!/bin/bash
# Create the users and databases oslo.db's opportunistic tests look for
# (openstack_citest / openstack_citest) on the local MariaDB and
# PostgreSQL, install Debian's prometheus package (prometheus and
# promtool) for the metrics tests and Debian's chromium and
# chromium-driver for the dashboard tests. Idempotent; run by
# `tox -e functional`.
#
# A server or a package that cannot be set up is reported, not fatal: the
# tests that need it then skip on a developer machine and fail when CI is
# set.

DB_USER=openstack_citest
DB_PW=openstack_citest

setup_mysql() {
    local mysql
    mysql=$(command -v mariadb || command -v mysql) || {
        echo "test-setup: no mysql/mariadb client; MySQL tests cannot run" >&2
        return 1
    }
    local -a root=("$mysql" -u root)
    [ -n "${MYSQL_ROOT_PW:-}" ] && root+=("-p$MYSQL_ROOT_PW")
    "${root[@]}" -e 'SELECT 1' >/dev/null 2>&1 ||
        root+=(-h 127.0.0.1 -P 3306)
    "${root[@]}" <<SQL || return 1
CREATE USER IF NOT EXISTS '$DB_USER'@'%' IDENTIFIED BY '$DB_PW';
CREATE USER IF NOT EXISTS '$DB_USER'@'localhost' IDENTIFIED BY '$DB_PW';
GRANT ALL PRIVILEGES ON *.* TO '$DB_USER'@'%';
GRANT ALL PRIVILEGES ON *.* TO '$DB_USER'@'localhost';
FLUSH PRIVILEGES;
CREATE DATABASE IF NOT EXISTS openstack_citest;
SQL
    echo "test-setup: MySQL user $DB_USER ready"
}

setup_postgresql() {
    command -v psql >/dev/null || {
        echo "test-setup: no psql client; PostgreSQL tests cannot run" >&2
        return 1
    }
    local -a root=(psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -U postgres
                   -d postgres)
    "${root[@]}" <<SQL || return 1
DO \$\$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$DB_USER') THEN
        CREATE ROLE $DB_USER WITH LOGIN CREATEDB PASSWORD '$DB_PW';
    ELSE
        ALTER ROLE $DB_USER WITH LOGIN CREATEDB PASSWORD '$DB_PW';
    END IF;
END
\$\$;
SQL
    if ! "${root[@]}" -tAc \
            "SELECT 1 FROM pg_database WHERE datname = '$DB_USER'" |
            grep -q 1; then
        "${root[@]}" -c "CREATE DATABASE $DB_USER OWNER $DB_USER" || return 1
    fi
    echo "test-setup: PostgreSQL role $DB_USER ready"
}

setup_prometheus() {
    if command -v prometheus >/dev/null && command -v promtool >/dev/null; then
        return 0
    fi
    if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
        echo "test-setup: prometheus or promtool missing, and no apt-get" \
             "as root to install them" >&2
        return 1
    fi
    echo "test-setup: installing Debian's prometheus package"
    export DEBIAN_FRONTEND=noninteractive
    # Its web assets are Recommends the tests do not need. The tests start
    # a Prometheus of their own; the package's service is not used.
    apt-get update -qq >/dev/null 2>&1
    apt-get install -y -qq --no-install-recommends prometheus \
        >/dev/null 2>&1 ||
        return 1
    echo "test-setup: $(prometheus --version 2>&1 | head -n 1)"
}

setup_chromium() {
    if command -v chromium >/dev/null && command -v chromedriver >/dev/null
    then
        return 0
    fi
    if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
        echo "test-setup: chromium or chromedriver missing, and no apt-get" \
             "as root to install them" >&2
        return 1
    fi
    echo "test-setup: installing Debian's chromium and chromium-driver"
    export DEBIAN_FRONTEND=noninteractive
    # The browser the dashboard tests drive headless (selenium): no
    # desktop integration needed.
    apt-get update -qq >/dev/null 2>&1
    apt-get install -y -qq --no-install-recommends \
        -o DPkg::Lock::Timeout=300 chromium \
        chromium-driver >/dev/null 2>&1 ||
        return 1
    echo "test-setup: $(chromium --version 2>/dev/null | head -n 1)"
}

setup_mysql || echo "test-setup: MySQL is not set up" >&2
setup_postgresql || echo "test-setup: PostgreSQL is not set up" >&2
setup_prometheus || echo "test-setup: Prometheus is not installed" >&2
setup_chromium || echo "test-setup: Chromium is not installed" >&2
exit 0
