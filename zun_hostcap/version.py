"""The version of zun-hostcap, as pbr computes it from the package."""

import pbr.version

version_info = pbr.version.VersionInfo('zun-hostcap')


def version_string():
    """The version pip installed, development suffix included.

    pbr's ``version_string()`` is the release the package leads to
    (``0.0.1`` for ``0.0.1.dev147``); ``--version`` tells the one that
    runs.
    """
    return version_info.release_string()
