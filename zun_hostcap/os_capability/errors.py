"""Exceptions raised by host capability discovery."""


class CapabilityError(Exception):
    """A host capability source was missing, unreadable or malformed.

    ``source`` names where the data came from (a file such as
    ``/proc/meminfo`` or a command such as ``lscpu``) and ``reason`` says
    what was wrong with it, so ``str(exc)`` reads like
    ``"/proc/meminfo: no MemTotal line"``.
    """

    def __init__(self, source, reason):
        # Pass both to Exception so the error pickles and copies cleanly.
        super().__init__(source, reason)
        self.source = source
        self.reason = reason

    def __str__(self):
        return '%s: %s' % (self.source, self.reason)
