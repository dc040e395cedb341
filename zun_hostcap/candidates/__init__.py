#    Licensed under the Apache License, Version 2.0 (the "License"); you may
#    not use this file except in compliance with the License. You may obtain
#    a copy of the License at
#
#         http://www.apache.org/licenses/LICENSE-2.0
#
#    Unless required by applicable law or agreed to in writing, software
#    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
#    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
#    License for the specific language governing permissions and limitations
#    under the License.

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
