"""Queries of the resource provider model, one module per resource.

Every public function is one transaction of the enginefacade (or joins
the caller's, when called inside one with the same context). Writes are
a few set-based statements; a provider's generation is checked and
bumped in the transaction that changes the provider
(``common.increment_generation``).
"""
