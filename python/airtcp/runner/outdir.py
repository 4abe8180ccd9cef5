"""Output directories of sweeps and studies: which existing directory may
be written into (:func:`check_out`, one rule for both), a study's staging
directory renamed into place at the end (:func:`staged_dir`), and files
replaced atomically (:func:`write_atomic`)."""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path

#: Files whose presence marks a directory as an earlier study's output.
STUDY_MARKERS = ("report.md", "table.csv", "runs.csv")
#: Entries whose presence marks a directory as a sweep's output.
SWEEP_MARKERS = ("sweep.json", "runs")


class OutDirError(ValueError):
    """`--out` names a directory that must not be written (bad input)."""


def check_out(out, markers: tuple[str, ...] = STUDY_MARKERS, what: str = "a study's output", verb: str = "replace") -> None:
    """`out` may be created or written: it is missing, an empty directory or
    holds one of `markers` (an earlier output of the same kind). Anything
    else is refused rather than deleted or mixed into."""
    out = os.fspath(out)
    if not os.path.exists(out):
        return
    if not os.path.isdir(out):
        raise OutDirError(f"--out {out}: exists and is not a directory")
    entries = os.listdir(out)
    if entries and not any(m in entries for m in markers):
        raise OutDirError(f"--out {out}: a non-empty directory that is not {what}; refusing to {verb} it")


def write_atomic(path: str, data: bytes, fsync: bool = False) -> None:
    """Write `data` to a temporary file beside `path` and rename it into place."""
    import tempfile

    d = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=d)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if fsync:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextmanager
def staged_dir(out: Path):
    """Yield a fresh temporary sibling of `out`; on success rename it to
    `out` (replacing an earlier directory there), on any failure remove it
    and any parent directory this call created."""
    import shutil
    import tempfile

    out = Path(out).absolute()
    created = []
    p = out.parent
    while not p.exists():
        created.append(p)
        p = p.parent
    for d in reversed(created):
        d.mkdir()
    try:
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
        os.chmod(tmp, 0o777 & ~_umask())
    except BaseException:
        _remove_created(created)
        raise
    try:
        yield tmp
        old = None
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
            os.rename(out, old / "d")
        os.rename(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        _remove_created(created)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _remove_created(created: list[Path]) -> None:
    for d in created:  # deepest first
        try:
            d.rmdir()
        except OSError:
            break
