"""No circle of files in crates/: the imports run one way (parse -> build ->
model), checked with scripts/module_circles.py. The checker itself is tested
on small made-up crates so that a pass means something."""

import importlib.util
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

_spec = importlib.util.spec_from_file_location("module_circles", REPO / "scripts" / "module_circles.py")
module_circles = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(module_circles)


def write_crate(root: Path, files: dict[str, str]) -> None:
    (root / "crates" / "demo").mkdir(parents=True)
    (root / "crates" / "demo" / "Cargo.toml").write_text("[package]\nname = 'demo'\n")
    for name, text in files.items():
        p = root / "crates" / "demo" / "src" / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))


def test_no_circle_of_files_in_crates():
    comps, inside = module_circles.circles(REPO)
    assert not comps, "circles of files (each file imports from another that imports back):\n" + "\n".join(
        f"  {a} -> {b} ({p}, line {line})" for (a, b), (line, p) in sorted(inside.items())
    )


def test_checker_finds_sibling_circle_through_facade(tmp_path):
    write_crate(
        tmp_path,
        {
            "lib.rs": "mod a;\nmod b;\n",
            "a/mod.rs": "mod inner;\npub use inner::Thing;\n",
            "a/inner.rs": "use crate::b::helper;\npub struct Thing;\n",
            "b.rs": "// use crate::a::Thing; (a comment: not an import)\npub fn helper() { let _ = crate::a::Thing; }\n",
        },
    )
    comps, _ = module_circles.circles(tmp_path)
    assert comps == [["crates/demo/src/a/inner.rs", "crates/demo/src/b.rs"]]


def test_checker_ignores_parent_child_and_inline_tests(tmp_path):
    write_crate(
        tmp_path,
        {
            "lib.rs": "mod a;\npub struct Top;\n",
            "a.rs": (
                "mod part;\nuse part::f;\nuse self::part::g;\npub struct S;\n"
                "#[cfg(test)]\nmod tests {\n    use super::*;\n}\n"
            ),
            "a/part.rs": "use super::S;\nuse crate::Top;\npub fn f() {}\npub fn g() {}\n",
        },
    )
    comps, _ = module_circles.circles(tmp_path)
    assert comps == []
