"""The README and the documentation site: links that resolve, a short README,
no internal ticket numbers in user-facing text. (`mkdocs build --strict` in
scripts/test.sh checks the links and anchors inside docs/.)"""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_readme_is_short_and_its_links_resolve():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    targets = [t for t in LINK.findall(text) if not re.match(r"[a-z]+:", t)]
    assert len(targets) >= 10, targets
    missing = [t for t in targets if not (ROOT / t.split("#")[0]).is_file()]
    assert missing == [], missing


def test_every_docs_page_is_in_reach_of_the_nav_or_its_hook():
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    hook = ROOT / "docs" / "hooks" / "nav.py"
    assert "docs/hooks/nav.py" in nav and hook.is_file()
    for page in ["index.md", "scenario-reference.md", "cli.md", "design.md", "perf-bulk-lossy.md"]:
        assert f" {page}" in nav, page


def test_user_facing_text_names_no_issue_numbers():
    # The Python package too: its docstrings, help texts and messages are what a user reads.
    files = [
        ROOT / "README.md",
        *sorted((ROOT / "docs").rglob("*.md")),
        *sorted((ROOT / "scenarios").glob("*.toml")),
        *sorted((ROOT / "python" / "airtcp").rglob("*.py")),
    ]
    hits = []
    for f in files:
        for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"\bissue[ -]?\d+", line, re.IGNORECASE):
                hits.append(f"{f.relative_to(ROOT)}:{n}: {line.strip()}")
    assert hits == [], "\n".join(hits)


def test_python_example_of_the_extension_crate_runs():
    """crates/py is an extension module without Rust doctests: the example
    in its lib.rs is Python, and runs here."""
    text = (ROOT / "crates" / "py" / "src" / "lib.rs").read_text(encoding="utf-8")
    doc = "\n".join(line[4:] if line.startswith("//! ") else line[3:] for line in text.splitlines() if line.startswith("//!"))
    blocks = re.findall(r"```python\n(.*?)```", doc, re.DOTALL)
    assert len(blocks) == 1
    exec(compile(blocks[0], "crates/py/src/lib.rs", "exec"), {})
