"""Adapter for the snoop study while its modules are still flat files in
this folder (``snoop.py``, ``snoop_*.py``): the names they import from
``.runner``, which now live in :mod:`airtcp.runner.study`, the runner shared
with sweeps. Removed when snoop becomes a package like the other studies."""

from ..runner.study import (  # noqa: F401
    StudyError,
    StudyRun,
    Task,
    add_common_arguments,
    check_common,
    exit_status,
    repo_root,
    run_study,
    write_csv,
)
