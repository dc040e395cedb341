"""Controllers of the Placement-compatible API: one module per resource.

``zun_hostcap.api.placement.routes`` maps every URL and method to one
controller method: ``get(self, req)``, ``put``, ``post`` or ``delete``,
on a controller made from the URL's parameters. Each returns a webob
response built with ``zun_hostcap.api.placement.util``; errors are
raised as our exceptions or ``errors.error()``.
"""
