"""Adapter for the snoop study while its modules are still flat files in
this folder: the report helpers they import from ``.report``, now
:mod:`.reporting` (``report.py`` is each study package's own report.md).
Removed when snoop becomes a package like the other studies."""

from .reporting import (  # noqa: F401
    NAN,
    Claim,
    Stats,
    claims_table,
    fmt,
    fmt_ci,
    is_missing,
    md_table,
    present,
    ratio_stats,
    summarize,
)
