"""The REST API: a pecan application behind oslo.middleware."""
