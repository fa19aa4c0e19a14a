#!/usr/bin/env python3
"""Import loops between the top-level modules of each crate (issue #48: every arrow points down).

A module is a file `src/NAME.rs` with its folder `src/NAME/` if any; module A imports B when a
line of A outside its tests names `crate::B` (a `use`, a path, a doc link does not count). Test
code (`#[cfg(test)]` modules, `*_tests.rs`, `tests.rs`) is left out: a test may reach anywhere.
Prints each crate's loops (strongly connected modules, with the names that tie them) and exits
1 when any crate has one:

    python3 scripts/import_loops.py [crates/*]
"""
import glob
import os
import re
import sys

REF = re.compile(r"\bcrate::(\{[^}]*\}|[a-z_][a-z0-9_]*)")


def code_lines(text):
    """The file's lines outside comments and `#[cfg(test)]` items."""
    out, skip_depth, depth, pending_test = [], None, 0, False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("//"):
            continue
        if stripped.startswith("#[cfg(test)]"):
            pending_test = True
            continue
        opens, closes = line.count("{"), line.count("}")
        if pending_test and skip_depth is None:
            if stripped.endswith(";"):  # `mod tests;`
                pending_test = False
                continue
            skip_depth = depth
            pending_test = False
        depth += opens - closes
        if skip_depth is not None:
            if depth <= skip_depth and (opens or closes):
                skip_depth = None
            continue
        out.append(line)
    return out


def modules_of(crate):
    src = os.path.join(crate, "src")
    mods = {}
    for path in glob.glob(os.path.join(src, "**", "*.rs"), recursive=True):
        rel = os.path.relpath(path, src)
        base = os.path.basename(rel)
        if base in ("lib.rs", "main.rs", "tests.rs") or base.endswith("_tests.rs"):
            continue
        top = rel.split(os.sep)[0].removesuffix(".rs")
        mods.setdefault(top, []).append(path)
    return mods


def imports(paths, names):
    found = {}
    for path in paths:
        for line in code_lines(open(path, encoding="utf-8").read()):
            for ref in REF.findall(line):
                targets = [t.strip().split("::")[0] for t in ref.strip("{}").split(",")] if ref.startswith("{") else [ref]
                for t in targets:
                    if t in names:
                        found.setdefault(t, set()).add(os.path.basename(path))
    return found


def loops(graph):
    """Tarjan's strongly connected components of more than one module."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
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
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main():
    crates = sys.argv[1:] or sorted(glob.glob("crates/*"))
    bad = 0
    for crate in crates:
        mods = modules_of(crate)
        graph, why = {}, {}
        for name, paths in mods.items():
            found = imports(paths, mods)
            found.pop(name, None)
            graph[name] = set(found)
            why.update({(name, t): files for t, files in found.items()})
        circles = loops(graph)
        arrows = sum(len(v) for v in graph.values())
        print(f"{crate}: {len(mods)} modules, {arrows} imports, {len(circles)} loop(s)")
        for circle in circles:
            bad += 1
            print("  loop:", " ".join(circle))
            for a in circle:
                for b in circle:
                    if b in graph[a]:
                        print(f"    {a} -> {b} ({', '.join(sorted(why[(a, b)]))})")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
