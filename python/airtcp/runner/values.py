"""Scenario values as ``--set`` text and back: the one converter that
``airtcp.run``'s ``overrides``, a sweep's grid and a study's scenario
values go through, so a Python value means the same thing everywhere.

Only the standard library is imported (``import airtcp`` uses this)."""

from __future__ import annotations


def set_text(v) -> str:
    """A Python value as the text of a ``--set path=value``: booleans as
    TOML's ``true``/``false``, lists as arrays, dicts as inline tables,
    anything else as ``str(v)`` (which the simulator reads as a TOML value
    when it is one, else as a string)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        import json

        return json.dumps(list(v))
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} = {_inner(x)}" for k, x in v.items()) + "}"
    return str(v)


def _inner(v) -> str:
    """A value inside an inline table: strings quoted (a bare word is
    TOML only at the top, where the simulator falls back to a string)."""
    if isinstance(v, str):
        import json

        return json.dumps(v)
    return set_text(v)


def parse_value(text: str):
    """What ``--set path=text`` sets: the text read as a TOML value, or else
    the text as a string."""
    import tomllib

    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def split_values(text: str) -> list[str]:
    """Split ``v1,v2,...`` on the commas outside brackets, braces and quotes,
    so a TOML array ``[1, 2]`` stays one value."""
    out, cur, depth, quote = [], [], 0, None
    for ch in text:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
            cur.append(ch)
        elif ch in "[{":
            depth += 1
            cur.append(ch)
        elif ch in "]}":
            depth -= 1
            cur.append(ch)
        elif ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur).strip())
    return out
