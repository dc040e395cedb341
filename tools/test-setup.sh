#!/bin/bash
# Create the users and databases oslo.db's opportunistic tests look for
# (openstack_citest / openstack_citest) on the local MariaDB and
# PostgreSQL, and install the Debian packages the functional tests drive:
# prometheus (and promtool) for the metrics tests, the HA lab's servers
# (tools/cloud_lab.py: Galera, RabbitMQ, HAProxy), and chromium with
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

# Another process may hold the dpkg lock (an upgrade, another setup): wait
# for it rather than fail.
APT_LOCK_WAIT=(-o DPkg::Lock::Timeout=600)
APT_UPDATED=

# install_debian_packages FOR PACKAGE...: install those of the packages
# that are missing, without their Recommends (web assets, desktop
# integration: nothing the tests use). The packages' own services are left
# as they are: the tests start servers of their own.
install_debian_packages() {
    local purpose=$1
    shift
    local -a missing=()
    local package
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null |
            grep -q 'install ok installed' || missing+=("$package")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
        echo "test-setup: ${missing[*]} missing for $purpose, and no" \
             "apt-get as root to install them" >&2
        return 1
    fi
    echo "test-setup: installing ${missing[*]} for $purpose"
    export DEBIAN_FRONTEND=noninteractive
    if [ -z "$APT_UPDATED" ]; then
        apt-get "${APT_LOCK_WAIT[@]}" update -qq >/dev/null 2>&1
        APT_UPDATED=1
    fi
    apt-get "${APT_LOCK_WAIT[@]}" install -y -qq --no-install-recommends \
        "${missing[@]}" >/dev/null 2>&1
}

# First: it may install the MariaDB server that setup_mysql configures.
install_debian_packages "the HA lab" haproxy galera-4 mariadb-backup \
    mariadb-server rabbitmq-server socat ||
    echo "test-setup: the HA lab's packages are missing" >&2
setup_mysql || echo "test-setup: MySQL is not set up" >&2
setup_postgresql || echo "test-setup: PostgreSQL is not set up" >&2
install_debian_packages "the metrics tests" prometheus ||
    echo "test-setup: Prometheus is not installed" >&2
install_debian_packages "the dashboard tests" chromium chromium-driver ||
    echo "test-setup: Chromium is not installed" >&2
exit 0
