"""WSGI entry points for servers such as uwsgi or mod_wsgi."""
