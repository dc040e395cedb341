"""The allocation candidate search and its request types.

A pure library, on the ground floor beside os_capability/: it imports
nothing else of zun_hostcap and holds no SQL.

- ``request``: what GET /allocation_candidates asks (``RequestGroup``,
  ``CandidateRequest``) and the [placement] options of the search
  (``SearchOptions``), built by the API;
- ``space``: the ``SearchSpace`` the database side loads, one ``Level``
  a request group (or unsuffixed class), and how a candidate reads;
- ``search``: the walk that combines the levels into candidates, tree by
  tree, lazily.

The database side, which finds the providers of each level in SQL, is
``zun_hostcap.db.sqlalchemy.placement.candidates``.
"""
