#!/bin/bash
#
# devstack/plugin.sh
# Install, configure, start and stop zun-hostcap in DevStack.
#
# Enable it in the [[local|localrc]] section of local.conf:
#
#     enable_plugin zun-hostcap https://opendev.org/x/zun-hostcap master
#
# DevStack sources devstack/settings first, then this file once per phase
# with the phase as arguments ("stack install", "stack post-config",
# "stack extra", "unstack", "clean").

# Save trace setting
_XTRACE_ZUN_HOSTCAP=$(set +o | grep xtrace)
set +o xtrace


# Functions
# ---------

# zun_hostcap_api_url - Where Apache serves the API (its version list).
function zun_hostcap_api_url {
    local host_url
    host_url="$ZUN_HOSTCAP_SERVICE_PROTOCOL://$ZUN_HOSTCAP_SERVICE_HOST"
    echo "$host_url$ZUN_HOSTCAP_URL_PATH"
}

# zun_hostcap_endpoint_url - The URL registered in the keystone catalog.
# python-zunclient expects the versioned URL, as for Zun.
function zun_hostcap_endpoint_url {
    echo "$(zun_hostcap_api_url)/v1"
}

# _zun_hostcap_check_zun - Refuse to share the service type with real Zun.
function _zun_hostcap_check_zun {
    if [[ "$ZUN_HOSTCAP_SERVICE_TYPE" == "container" ]] && \
            is_service_enabled zun-api; then
        die $LINENO "zun-api is enabled and zun-hostcap would register" \
            "the same service type, \"container\". Set" \
            "ZUN_HOSTCAP_SERVICE_TYPE to another type in local.conf."
    fi
}

# _zun_hostcap_check_catalog - Refuse to join a catalog in which another
# service has our type: get_or_create_service looks the service up by type
# and would hand back the other one.
function _zun_hostcap_check_catalog {
    local services
    if ! services=$(openstack --os-cloud devstack-system-admin service list \
            -f value -c Name -c Type 2>/dev/null); then
        if ! services=$(openstack service list -f value -c Name -c Type \
                2>/dev/null); then
            warn $LINENO "Cannot list the keystone services; not checking" \
                "for another service of type $ZUN_HOSTCAP_SERVICE_TYPE"
            return 0
        fi
    fi
    local others
    others=$(echo "$services" | awk -v type="$ZUN_HOSTCAP_SERVICE_TYPE" \
        -v name="$ZUN_HOSTCAP_SERVICE_NAME" \
        'NF >= 2 && $NF == type && $1 != name {print $1}')
    if [[ -n "$others" ]]; then
        die $LINENO "Keystone already has a service of type" \
            "$ZUN_HOSTCAP_SERVICE_TYPE: $others. Set" \
            "ZUN_HOSTCAP_SERVICE_TYPE to another type in local.conf."
    fi
}

# install_zun_hostcap - Install the package from the plugin's checkout and
# the client.
function install_zun_hostcap {
    setup_develop "$ZUN_HOSTCAP_DIR"

    # DevStack installs uwsgi for its own APIs; make sure of it.
    if is_service_enabled zun-hostcap-api && \
            ! which uwsgi >/dev/null 2>&1; then
        install_apache_uwsgi
    fi

    if [[ "$ZUN_HOSTCAP_INSTALL_ZUNCLIENT" == "True" ]]; then
        pip_install_gr python-zunclient
    fi
}

# create_zun_hostcap_conf - Write zun-hostcap.conf from scratch.
function create_zun_hostcap_conf {
    rm -f "$ZUN_HOSTCAP_CONF"

    iniset "$ZUN_HOSTCAP_CONF" DEFAULT debug "$ENABLE_DEBUG_LOG_LEVEL"
    iniset "$ZUN_HOSTCAP_CONF" DEFAULT state_path "$ZUN_HOSTCAP_STATE_PATH"
    iniset "$ZUN_HOSTCAP_CONF" DEFAULT transport_url "$(get_transport_url)"

    # The API reads and the conductor writes the database; the compute
    # service never opens it.
    if is_service_enabled zun-hostcap-api zun-hostcap-cond; then
        iniset "$ZUN_HOSTCAP_CONF" database connection \
            "$(database_connection_url "$ZUN_HOSTCAP_DB_NAME")"
    fi

    iniset "$ZUN_HOSTCAP_CONF" notifications notification_format \
        "$ZUN_HOSTCAP_NOTIFICATION_FORMAT"
    iniset "$ZUN_HOSTCAP_CONF" notifications placement_notifications \
        "$ZUN_HOSTCAP_PLACEMENT_NOTIFICATIONS"
    # Notifications are off unless a driver is named.
    if [[ "$ZUN_HOSTCAP_NOTIFICATION_FORMAT" != "none" ]]; then
        iniset "$ZUN_HOSTCAP_CONF" oslo_messaging_notifications driver \
            messagingv2
    fi
    iniset "$ZUN_HOSTCAP_CONF" metrics enabled "$ZUN_HOSTCAP_METRICS"

    if is_service_enabled zun-hostcap-api; then
        iniset "$ZUN_HOSTCAP_CONF" api port "$ZUN_HOSTCAP_SERVICE_PORT"
        iniset "$ZUN_HOSTCAP_CONF" api auth_strategy keystone
        configure_keystone_authtoken_middleware "$ZUN_HOSTCAP_CONF" \
            "$ZUN_HOSTCAP_SERVICE_USER"
        # Behind the TLS proxy, build links with the client's scheme.
        if is_service_enabled tls-proxy; then
            iniset "$ZUN_HOSTCAP_CONF" oslo_middleware \
                enable_proxy_headers_parsing True
        fi
    fi

    # The compute service reports its host and containers to the cloud's
    # Placement, found in the catalog, as the zun-hostcap service user
    # (Placement's defaults let its service role write providers and
    # allocations, and reshape them for [compute] numa_providers).
    if is_service_enabled zun-hostcap-compute && is_service_enabled placement; then
        iniset "$ZUN_HOSTCAP_CONF" placement auth_type password
        iniset "$ZUN_HOSTCAP_CONF" placement auth_url "$KEYSTONE_SERVICE_URI"
        iniset "$ZUN_HOSTCAP_CONF" placement username "$ZUN_HOSTCAP_SERVICE_USER"
        iniset "$ZUN_HOSTCAP_CONF" placement password "$SERVICE_PASSWORD"
        iniset "$ZUN_HOSTCAP_CONF" placement user_domain_name "$SERVICE_DOMAIN_NAME"
        iniset "$ZUN_HOSTCAP_CONF" placement project_name "$SERVICE_PROJECT_NAME"
        iniset "$ZUN_HOSTCAP_CONF" placement project_domain_name "$SERVICE_DOMAIN_NAME"
        iniset "$ZUN_HOSTCAP_CONF" placement region_name "$REGION_NAME"
    fi
    iniset "$ZUN_HOSTCAP_CONF" compute numa_providers \
        "$ZUN_HOSTCAP_NUMA_PROVIDERS"

    setup_logging "$ZUN_HOSTCAP_CONF"
}

# configure_zun_hostcap_uwsgi - Write the uwsgi ini of the API and the
# Apache site that proxies $ZUN_HOSTCAP_URL_PATH to its socket.
function configure_zun_hostcap_uwsgi {
    write_uwsgi_config "$ZUN_HOSTCAP_UWSGI_CONF" "$ZUN_HOSTCAP_UWSGI" \
        "$ZUN_HOSTCAP_URL_PATH" "" "$ZUN_HOSTCAP_UWSGI_APP"
    # zun_hostcap.wsgi.api reads the files named in this variable.
    iniset "$ZUN_HOSTCAP_UWSGI_CONF" uwsgi env \
        "ZUN_HOSTCAP_CONFIG_FILE=$ZUN_HOSTCAP_CONF"
    iniset "$ZUN_HOSTCAP_UWSGI_CONF" uwsgi threads "$ZUN_HOSTCAP_UWSGI_THREADS"
}

# configure_zun_hostcap - Create the directories and configuration files.
function configure_zun_hostcap {
    sudo install -d -o "$STACK_USER" -m 755 "$ZUN_HOSTCAP_CONF_DIR"
    sudo install -d -o "$STACK_USER" -m 755 "$ZUN_HOSTCAP_STATE_PATH"

    create_zun_hostcap_conf

    if is_service_enabled zun-hostcap-api; then
        configure_zun_hostcap_uwsgi
    fi
}

# create_zun_hostcap_accounts - The service user and the catalog entry.
#
# Project  User         Roles
# ---------------------------------
# service  zun-hostcap  service
function create_zun_hostcap_accounts {
    _zun_hostcap_check_catalog

    create_service_user "$ZUN_HOSTCAP_SERVICE_USER"

    local service_id
    service_id=$(get_or_create_service "$ZUN_HOSTCAP_SERVICE_NAME" \
        "$ZUN_HOSTCAP_SERVICE_TYPE" \
        "Host capabilities and resource inventory (Zun-compatible API)")
    get_or_create_endpoint "$service_id" "$REGION_NAME" \
        "$(zun_hostcap_endpoint_url)"
}

# init_zun_hostcap - Create the database and its schema.
function init_zun_hostcap {
    # DATABASE_BACKENDS lists several services; they are meant to split.
    # shellcheck disable=SC2086
    if is_service_enabled zun-hostcap-api zun-hostcap-cond && \
            is_service_enabled $DATABASE_BACKENDS; then
        recreate_database "$ZUN_HOSTCAP_DB_NAME"
        "$ZUN_HOSTCAP_BIN_DIR/zun-hostcap-db-manage" \
            --config-file "$ZUN_HOSTCAP_CONF" upgrade || \
            die $LINENO "zun-hostcap-db-manage upgrade failed"
    fi
}

# start_zun_hostcap - Start the services that are enabled on this node.
# run_process does nothing for a service that is not enabled.
function start_zun_hostcap {
    local conf_arg="--config-file $ZUN_HOSTCAP_CONF"

    run_process zun-hostcap-cond \
        "$ZUN_HOSTCAP_BIN_DIR/zun-hostcap-conductor $conf_arg"

    if is_service_enabled zun-hostcap-api; then
        run_process zun-hostcap-api \
            "$(which uwsgi) --procname-prefix zun-hostcap-api --ini $ZUN_HOSTCAP_UWSGI_CONF"
        echo "Waiting for zun-hostcap-api to start..."
        if ! wait_for_service "$SERVICE_TIMEOUT" \
                "$(zun_hostcap_api_url)/"; then
            die $LINENO "zun-hostcap-api did not start"
        fi
    fi

    run_process zun-hostcap-compute \
        "$ZUN_HOSTCAP_BIN_DIR/zun-hostcap-compute $conf_arg"
}

# stop_zun_hostcap - Stop the services.
function stop_zun_hostcap {
    local service
    for service in zun-hostcap-compute zun-hostcap-api zun-hostcap-cond; do
        stop_process "$service"
    done
}

# cleanup_zun_hostcap - Remove what configure_zun_hostcap created.
function cleanup_zun_hostcap {
    remove_uwsgi_config "$ZUN_HOSTCAP_UWSGI_CONF" "$ZUN_HOSTCAP_UWSGI_APP"
    sudo rm -f "$(apache_site_config_for "$ZUN_HOSTCAP_UWSGI_APP")"
    sudo rm -rf "${ZUN_HOSTCAP_CONF_DIR:?}" "${ZUN_HOSTCAP_STATE_PATH:?}"
}


# Main
# ----

if is_service_enabled zun-hostcap-api zun-hostcap-cond \
        zun-hostcap-compute; then
    if [[ "$1" == "stack" && "$2" == "install" ]]; then
        _zun_hostcap_check_zun
        echo_summary "Installing zun-hostcap"
        install_zun_hostcap

    elif [[ "$1" == "stack" && "$2" == "post-config" ]]; then
        echo_summary "Configuring zun-hostcap"
        configure_zun_hostcap
        if is_service_enabled zun-hostcap-api && is_service_enabled key; then
            create_zun_hostcap_accounts
        fi

    elif [[ "$1" == "stack" && "$2" == "extra" ]]; then
        echo_summary "Initializing zun-hostcap"
        init_zun_hostcap
        echo_summary "Starting zun-hostcap"
        start_zun_hostcap
    fi

    if [[ "$1" == "unstack" ]]; then
        echo_summary "Stopping zun-hostcap"
        stop_zun_hostcap
    fi

    if [[ "$1" == "clean" ]]; then
        echo_summary "Cleaning zun-hostcap"
        cleanup_zun_hostcap
    fi
fi

# Restore xtrace
$_XTRACE_ZUN_HOSTCAP

# Tell emacs to use shell-script-mode
## Local variables:
## mode: shell-script
## End:
