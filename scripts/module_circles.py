#!/usr/bin/env python3
"""List circles of source files in crates/: file A imports from file B and B,
through any chain, imports back from A.

A circle means no file in it can be read, tested or changed alone; the flow
parse -> build -> model should run one way. An import is a path through
`crate::`, `super::` or `self::` (in a `use` tree or written inline); it points
at the file of the deepest module the path names, and through a re-export
(`pub use x::Y` in a facade `mod.rs`) on to the file that defines the name.
A module's children are its parts: `mod x;` and a parent's use of its own
children (`use x::Y`, `self::x::f()`, a `pub use` facade) are ownership, not
imports, and are not counted; paths through a facade resolve to the file that
defines the name.

Usage: scripts/module_circles.py [--root DIR] [--quiet]
Prints each circle (a strongly connected component of more than one file) with
the imports that close it, then the count; exits 1 when any circle exists.
Only the Python standard library is used.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def strip_code(text: str) -> str:
    """Blank comments, strings and char literals (newlines kept, so line
    numbers survive) so that braces and paths are only those of code."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif (m := re.compile(r'b?r(#*)"').match(text, i)) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            close = '"' + m.group(1)
            j = text.find(close, m.end())
            j = n if j < 0 else j + len(close)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "'" and (m := re.compile(r"'(\\u\{[0-9a-fA-F]+\}|\\.|[^\\'\n])'").match(text, i)):
            out.append(" " * (m.end() - i))
            i = m.end()
        else:
            out.append(c)
            i += 1
    return "".join(out)


def expand_use_tree(tree: str) -> list[str]:
    """`a::{b, c::{d as e, *}}` -> ['a::b', 'a::c::d', 'a::c::*'] (aliases dropped)."""
    tree = re.sub(r"\s+", "", re.sub(r"\s+as\s+", " @", tree))

    def parse(s: str, i: int, prefix: str) -> tuple[list[str], int]:
        paths: list[str] = []
        cur = prefix
        while i < len(s):
            if s[i] == "{":
                i += 1
                while True:
                    sub, i = parse(s, i, cur)
                    paths += sub
                    if i < len(s) and s[i] == ",":
                        i += 1
                        if i < len(s) and s[i] == "}":
                            break
                        continue
                    break
                i += 1  # closing brace
                return paths, i
            m = re.compile(rf"({IDENT}|\*)(@{IDENT})?(::)?").match(s, i)
            if not m:
                break
            seg = m.group(1)
            cur = f"{cur}::{seg}" if cur else seg
            i = m.end()
            if not m.group(3):
                paths.append(cur)
                return paths, i
        if cur != prefix:
            paths.append(cur)
        return paths, i

    return parse(tree, 0, "")[0]


class SourceFile:
    def __init__(self, path: Path, module: tuple[str, ...], code: str):
        self.path = path
        self.module = module
        self.code = code
        # (line, module of the enclosing inline `mod`, path segments)
        self.refs: list[tuple[int, tuple[str, ...], list[str]]] = []
        # name -> absolute path it is imported from (for re-export following)
        self.imports: dict[str, tuple[str, ...]] = {}


def absolute(module: tuple[str, ...], segs: list[str]) -> tuple[str, ...] | None:
    """Resolve `crate::`/`super::`/`self::` segments seen in `module`."""
    if not segs:
        return None
    if segs[0] == "crate":
        base, rest = (), segs[1:]
    elif segs[0] in ("super", "self"):
        base, rest = module, segs
        while rest and rest[0] in ("super", "self"):
            if rest[0] == "super":
                if not base:
                    return None
                base = base[:-1]
            rest = rest[1:]
    else:
        return None
    return tuple(base) + tuple(rest)


def scan_crate(src: Path, root_file: Path) -> dict[tuple[str, ...], SourceFile]:
    """Follow `mod x;` from the crate root; record every crate-relative path."""
    files: dict[tuple[str, ...], SourceFile] = {}

    def visit(path: Path, module: tuple[str, ...], dir_for_children: Path) -> None:
        code = strip_code(path.read_text(encoding="utf-8"))
        sf = SourceFile(path, module, code)
        files[module] = sf
        stack: list[tuple[int, tuple[str, ...]]] = []  # (brace depth at open, module)
        depth = 0
        line = 1
        pending_path: str | None = None
        # Children declared in this file: `pub use child::X` names them without
        # `self::` (Rust 2018 paths); such a re-export makes this file a facade
        # through which paths resolve, not an importer.
        children = sorted(set(re.findall(rf"\bmod\s+({IDENT})\s*[;{{]", code)), key=len, reverse=True)
        token_re = re.compile(
            rf"(?P<nl>\n)|(?P<open>\{{)|(?P<close>\}})"
            rf"|(?P<pathattr>#\[path\s*=\s*)"
            rf"|(?P<mod>\bmod\s+(?P<modname>{IDENT})\s*(?P<modend>[;{{]))"
            rf"|(?P<use>\buse\s+(?P<tree>[^;]*);)"
            rf"|(?P<ref>\b(?:crate|super|self)(?:\s*::\s*(?:{IDENT}))+)"

        )
        raw = path.read_text(encoding="utf-8")
        for m in token_re.finditer(code):
            cur = stack[-1][1] if stack else module
            if m.group("nl"):
                line += 1
            elif m.group("open"):
                depth += 1
            elif m.group("close"):
                depth -= 1
                if stack and stack[-1][0] == depth:
                    stack.pop()
            elif m.group("pathattr"):
                am = re.compile(r'#\[path\s*=\s*"([^"]+)"').match(raw, m.start())
                pending_path = am.group(1) if am else None
            elif m.group("mod"):
                name = m.group("modname")
                if m.group("modend") == "{":
                    stack.append((depth, cur + (name,)))
                    depth += 1
                    pending_path = None
                    continue
                # out-of-line module: find its file
                if pending_path:
                    child = path.parent / pending_path
                    pending_path = None
                    if child.exists():
                        visit(child, cur + (name,), child.parent / child.stem)
                    continue
                sub = dir_for_children.joinpath(*cur[len(module):])
                for cand, child_dir in ((sub / f"{name}.rs", sub / name), (sub / name / "mod.rs", sub / name)):
                    if cand.exists():
                        visit(cand, cur + (name,), child_dir)
                        break
            elif m.group("use"):
                tree = m.group("tree")
                line_here = line
                line += tree.count("\n")
                for p in expand_use_tree(tree):
                    segs = p.split("::")
                    facade = segs[0] in children and cur == module
                    if facade:
                        segs = ["self"] + segs
                    if segs[0] in ("crate", "super", "self"):
                        if not facade:
                            sf.refs.append((line_here, cur, segs))
                        target = absolute(cur, segs)
                        if target and segs[-1] != "*" and cur == module:
                            alias = re.search(rf"\b{re.escape(segs[-1])}\s+as\s+({IDENT})", tree)
                            sf.imports[alias.group(1) if alias else segs[-1]] = target
            elif m.group("ref"):
                segs = re.sub(r"\s+", "", m.group(0)).split("::")
                sf.refs.append((line, cur, segs))
                line += m.group(0).count("\n")
        return None

    visit(root_file, (), root_file.parent)
    return files


def resolve(files: dict[tuple[str, ...], SourceFile], target: tuple[str, ...], seen: int = 0) -> SourceFile | None:
    """File of the deepest module in `target`; through re-exports when the
    next name is itself imported into that module."""
    for k in range(len(target), -1, -1):
        if target[:k] in files:
            sf = files[target[:k]]
            if k < len(target) and seen < 8 and target[k] in sf.imports:
                via = sf.imports[target[k]] + target[k + 1:]
                found = resolve(files, via, seen + 1)
                if found is not None:
                    return found
            return sf
    return None


def tarjan(nodes: list[str], edges: dict[str, set[str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on: set[str] = set()
    stack: list[str] = []
    comps: list[list[str]] = []
    counter = [0]
    sys.setrecursionlimit(10000)

    def strong(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            comps.append(sorted(comp))

    for v in nodes:
        if v not in index:
            strong(v)
    return comps


def circles(root: Path) -> tuple[list[list[str]], dict[tuple[str, str], tuple[int, str]]]:
    """Circles (sorted lists of repository-relative files) and, per edge,
    the first line that makes it."""
    edges: dict[str, set[str]] = {}
    where: dict[tuple[str, str], tuple[int, str]] = {}
    nodes: list[str] = []
    for cargo in sorted(root.glob("crates/*/Cargo.toml")):
        src = cargo.parent / "src"
        for root_name in ("lib.rs", "main.rs"):
            root_file = src / root_name
            if not root_file.exists():
                continue
            files = scan_crate(src, root_file)
            for sf in files.values():
                a = str(sf.path.relative_to(root))
                if a not in nodes:
                    nodes.append(a)
                for line, cur, segs in sf.refs:
                    target = absolute(cur, segs)
                    if target is None:
                        continue
                    dst = resolve(files, tuple(s for s in target if s != "*"))
                    if dst is None or dst is sf or dst.module[: len(sf.module)] == sf.module:
                        continue  # a parent owns its children: not an import
                    b = str(dst.path.relative_to(root))
                    edges.setdefault(a, set()).add(b)
                    where.setdefault((a, b), (line, "::".join(segs)))
    comps = [c for c in tarjan(nodes, edges) if len(c) > 1]
    comps.sort(key=lambda c: (-len(c), c))
    # keep only the edges inside each circle for the report
    inside = {}
    for c in comps:
        members = set(c)
        for (a, b), w in where.items():
            if a in members and b in members:
                inside[(a, b)] = w
    return comps, inside


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    ap.add_argument("--quiet", action="store_true", help="print the count only")
    args = ap.parse_args()
    comps, inside = circles(args.root)
    if not args.quiet:
        for c in comps:
            print(f"circle of {len(c)} files:")
            for a in c:
                for (x, b), (line, p) in sorted(inside.items()):
                    if x == a and b in c:
                        print(f"  {a}:{line} -> {b}  ({p})")
    print(f"{len(comps)} circle(s) of files in crates/")
    return 1 if comps else 0


if __name__ == "__main__":
    sys.exit(main())
