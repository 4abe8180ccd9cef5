"""The one runner of sweeps and studies.

``airtcp sweep`` (:mod:`.sweep`) and ``airtcp reproduce`` (:mod:`.study`)
plan their runs differently — a sweep from a grid of ``--set`` values, a
study from scenario dicts it builds (every study the same way,
:mod:`.plan`) — and share everything after that:

- :mod:`.executor`: where runs execute (threads of this process, a local
  Dask cluster, an existing one);
- :mod:`.execute`: the loop over the executor's outcomes;
- :mod:`.progress`: the progress line;
- :mod:`.outdir`: which output directory may be written, staging, atomic
  files;
- :mod:`.values`: Python values as ``--set`` text and back;
- :func:`airtcp.validate`: every scenario is checked natively (parsed and
  built, not run) before anything runs or is written.

Importing this package imports nothing else (``import airtcp`` uses
:mod:`.values`).
"""
