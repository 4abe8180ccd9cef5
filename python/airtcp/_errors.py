"""Exceptions raised by airtcp.

They live in pure Python (not in the native module) so that ``import airtcp``
loads nothing compiled; the native module raises these same classes.
"""


class ScenarioError(ValueError):
    """A scenario (file, dict or ``--set`` override) is invalid.

    ``str(e)`` is one line, ``file:line: key: message``, naming where the
    problem is. Raised before anything runs or is written. The parts are
    attributes too (None when unknown): ``file``, ``line`` (None for JSON
    input and overrides), ``key`` (``links[1].delay``), ``message``, and
    ``override`` (the ``path=value`` that supplied the bad value).
    """

    file = None
    line = None
    key = None
    message = None
    override = None


class SimError(RuntimeError):
    """The simulation or writing its outputs failed (e.g. an I/O error)."""


class AnalyzeError(RuntimeError):
    """A capture could not be analysed: ``str(e)`` names the file and, for a
    damaged capture, the packet number and byte offset where reading
    stopped. Nothing is written then."""
