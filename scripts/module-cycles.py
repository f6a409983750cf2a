#!/usr/bin/env python3
"""Reports cycles in the module import graph of Rust crates.

Usage: scripts/module-cycles.py CRATE_DIR [CRATE_DIR ...]

Each file under CRATE_DIR/src is a module (`a/mod.rs` is `a`, `a/b.rs` is `a::b`; the crate
root is left out). A module depends on every module it names through a `crate::…`, `super::…`
or `self::…` path outside its unit tests, resolved to the longest module prefix, so naming an
item a parent re-exports is a dependency on that parent. Exits 1 when any crate's graph has a
cycle, printing each cycle's modules.
"""

import re
import sys
from pathlib import Path

PATH = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")
USE = re.compile(r"\buse\s+((?:crate|super|self)::[^;]*);", re.S)


def expand(tree: str) -> list[str]:
    """Expands a use tree (`a::{b, c::{d, e}}`) into its paths."""
    tree = re.sub(r"\s+", "", tree)
    brace = tree.find("{")
    if brace < 0:
        return [tree]
    prefix, inner = tree[:brace], tree[brace + 1 : tree.rfind("}")]
    parts, depth, start = [], 0, 0
    for i, c in enumerate(inner):
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(inner[start:i])
            start = i + 1
    parts.append(inner[start:])
    return [prefix + q for part in parts if part for q in expand(part)]


def module_name(src: Path, file: Path) -> str | None:
    rel = file.relative_to(src).with_suffix("")
    parts = list(rel.parts)
    if parts == ["lib"] or parts == ["main"]:
        return None
    if parts[-1] == "mod":
        parts = parts[:-1]
    return "::".join(parts)


def product_code(text: str) -> str:
    """Drops unit-test modules and comments."""
    cut = re.search(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{", text)
    if cut:
        text = text[: cut.start()]
    return re.sub(r"//[^\n]*", "", text)


def resolve(base: list[str], parts: list[str], modules: set[str]) -> str | None:
    path = base + parts
    for n in range(len(path), 0, -1):
        name = "::".join(path[:n])
        if name in modules:
            return name
    return None


def base_of(kind: str, me: str, is_mod_file: bool) -> list[str]:
    own = me.split("::") if me else []
    # `self` in a file module is the module itself; `super` is its parent.
    if kind == "crate":
        return []
    if kind == "self":
        return own
    return own[:-1]


def edges(src: Path):
    files = {}
    for file in sorted(src.rglob("*.rs")):
        name = module_name(src, file)
        if name is not None:
            files[name] = file
    modules = set(files)
    graph = {m: set() for m in modules}
    for me, file in files.items():
        text = product_code(file.read_text())
        refs = []
        for tree in USE.findall(text):
            for path in expand(tree):
                path = re.sub(r"\bas\b.*$", "", path)
                kind, *rest = path.split("::")
                refs.append((kind, [p for p in rest if p and p not in ("self", "*")]))
        for kind, rest in PATH.findall(USE.sub("", text)):
            refs.append((kind, [p for p in rest.split("::") if p]))
        for kind, parts in refs:
            target = resolve(base_of(kind, me, file.name == "mod.rs"), parts, modules)
            if target and target != me:
                graph[me].add(target)
    return graph


def cycles(graph):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main() -> int:
    failed = False
    for crate in sys.argv[1:]:
        graph = edges(Path(crate) / "src")
        found = cycles(graph)
        count = sum(len(e) for e in graph.values())
        if found:
            failed = True
            for group in found:
                print(f"{crate}: cycle among {', '.join(group)}")
        else:
            print(f"{crate}: {len(graph)} modules, {count} imports, no cycle")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
