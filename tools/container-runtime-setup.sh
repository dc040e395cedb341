#!/bin/bash
# A Docker-compatible container runtime for the functional tests: podman
# (its `podman system service` serves the Docker Engine API) with runc,
# and a small local image made from Debian's busybox-static, so that no
# registry is needed. Idempotent; run by `tox -e functional`.
#
# It writes, in $ZUN_HOSTCAP_TEST_PODMAN_DIR (default
# /var/tmp/zun-hostcap-podman), containers.conf and image.tar, the root
# filesystem of the test image. Each test imports the image into a
# storage of its own, starts the service on a socket of its own and
# stops it by its pid: nothing of the machine's own podman is touched.
#
# Debian's podman with its default crun cannot run containers on these
# machines (cgroups in hybrid mode; setrlimit refused): runc, and ulimits
# the machine allows, are set in containers.conf.
#
# A runtime that cannot be set up is reported, not fatal: the tests that
# need it then skip on a developer machine and fail when CI is set.

DIR=${ZUN_HOSTCAP_TEST_PODMAN_DIR:-/var/tmp/zun-hostcap-podman}

install_packages() {
    local missing=()
    command -v podman >/dev/null || missing+=(podman)
    command -v runc >/dev/null || missing+=(runc)
    # busybox (not -static) has the same /bin/busybox, which does not
    # run in an image without a C library.
    dpkg-query -W -f='${Status}' busybox-static 2>/dev/null |
        grep -q 'ok installed' || missing+=(busybox-static)
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
        echo "container-runtime-setup: ${missing[*]} missing, and no" \
             "apt-get as root to install them" >&2
        return 1
    fi
    echo "container-runtime-setup: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1 || {
        apt-get update -qq >/dev/null 2>&1 &&
        apt-get install -y -qq "${missing[@]}" >/dev/null
    }
}

setup_runtime() {
    mkdir -p "$DIR" || return 1
    cat > "$DIR/containers.conf" <<CONF
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]

[engine]
runtime = "runc"
CONF
    [ -s "$DIR/image.tar" ] && return 0
    local rootfs
    rootfs=$(mktemp -d) || return 1
    mkdir -p "$rootfs/bin" && cp /bin/busybox "$rootfs/bin/" &&
        for cmd in sh sleep true; do ln -s busybox "$rootfs/bin/$cmd"; done &&
        tar -C "$rootfs" -cf "$DIR/image.tar.new" . &&
        mv "$DIR/image.tar.new" "$DIR/image.tar"
    local rc=$?
    rm -rf "$rootfs"
    return $rc
}

if install_packages && setup_runtime; then
    echo "container-runtime-setup: podman $(podman --version |
        awk '{print $3}') with runc; test image and configuration in $DIR"
else
    echo "container-runtime-setup: the container runtime is not set up" >&2
fi
