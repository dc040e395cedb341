"""The version of zun-hostcap, as pbr computes it from the package."""

import pbr.version

version_info = pbr.version.VersionInfo('zun-hostcap')


def version_string():
    return version_info.version_string()
