"""Console scripts; ``zun_hostcap/__init__.py`` selects the threading
backend of oslo.service before any of them runs."""
