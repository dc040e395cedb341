"""JSON schemas of requests, one module per resource and microversion."""
