"""MkDocs hook: list every page of docs/ that mkdocs.yml's nav leaves out
under "More topics", so a page added by a new feature is published (and its
links checked) before someone gives it its place in the nav."""

from __future__ import annotations

from pathlib import Path

SECTION = "More topics"


def _listed(nav) -> set[str]:
    found: set[str] = set()
    for item in nav or []:
        if isinstance(item, str):
            found.add(item)
        elif isinstance(item, dict):
            for value in item.values():
                if isinstance(value, str):
                    found.add(value)
                else:
                    found |= _listed(value)
    return found


def on_config(config, **kwargs):
    nav = config.get("nav")
    if not nav:
        return config
    docs = Path(config["docs_dir"])
    listed = _listed(nav)
    extra = sorted(
        p.relative_to(docs).as_posix()
        for p in docs.rglob("*.md")
        if "hooks" not in p.relative_to(docs).parts and p.relative_to(docs).as_posix() not in listed
    )
    if extra:
        titles = [{_title(docs / e): e} for e in extra]
        nav.append({SECTION: titles})
    return config


def _title(path: Path) -> str:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return path.stem.replace("-", " ")
