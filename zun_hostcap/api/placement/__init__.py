"""The Placement-compatible resource provider API, served under /placement.

``app`` builds the WSGI application; ``microversion``, ``errors`` and
``util`` are what every controller under
``zun_hostcap.api.controllers.placement`` is written with.
"""
