"""Controllers of the Placement-compatible API: one module per resource.

Each handler gets the request from ``pecan.request`` and returns a webob
response built with ``zun_hostcap.api.placement.util``; errors are
raised as our exceptions or ``errors.error()``.
"""
