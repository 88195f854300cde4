#!/usr/bin/env python3
"""The import graph of one module tree of a Rust crate, and its circles.

Reads every `.rs` file under DIR (default: native/core/src/record), finds each path a file names
(in `use` lines, grouped or not, and written out in code: `crate::record::x::Y`, `super::x`,
`self::x`), resolves it to the file of the module it lands in (through the `pub use`
re-exports of DIR's `mod.rs`), and prints one edge a line, `from -> to: names`. Code in
`#[cfg(test)]` modules is left out (a test module may look at anything), and so are the `pub use`
lines of DIR's `mod.rs` (the front that re-exports the files) and a parent's `mod child;`
(the tree, not an import).

Then it prints the circles (strongly connected components of two or more files) and exits
with status 1 if there is one; without a circle, it prints each file's floor (one above the
highest file it imports). With --forbid PREFIX (repeatable), a path into `crate::PREFIX`
from DIR is an error too (a layer below must not import one above).

With --folders, the folders right under DIR (a file `x.rs` and its folder `x/` count as one) must
import each other in one direction too: a circle between two folders fails, even when no circle
of files makes it (the floors of `native/core/src/record` are its folders).

Usage: python3 scripts/import-cycles.py [DIR] [--crate-root SRC] [--forbid play] [--folders]
"""

import argparse
import os
import re
import sys


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    out = []
    for line in text.splitlines():
        # Drop `//` comments (good enough: our sources keep `//` out of string literals on use lines).
        i = line.find("//")
        if i >= 0 and not re.search(r'"[^"]*//', line):
            line = line[:i]
        out.append(line)
    return "\n".join(out)


def strip_test_modules(text):
    """Removes `#[cfg(test)] mod name { ... }` blocks (brace-matched)."""
    out, i = [], 0
    pat = re.compile(r"#\[cfg\(test\)\]\s*(pub(\([^)]*\))?\s+)?mod\s+\w+\s*\{")
    while True:
        m = pat.search(text, i)
        if not m:
            out.append(text[i:])
            return "".join(out)
        out.append(text[i : m.start()])
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        i = j


def expand_use_tree(tree):
    """`a::{b, c::{d, e}}` -> ['a::b', 'a::c::d', 'a::c::e']."""
    tree = re.sub(r"\s+", "", tree)
    m = re.search(r"\{", tree)
    if not m:
        return [re.sub(r"as\w+$", "", tree)] if tree else []
    prefix = tree[: m.start()]
    depth, j = 1, m.end()
    while depth:
        if j == len(tree):
            return []  # not a use tree (unbalanced braces): nothing named
        depth += {"{": 1, "}": -1}.get(tree[j], 0)
        j += 1
    inner = tree[m.end() : j - 1]
    parts, depth, start = [], 0, 0
    for k, ch in enumerate(inner):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(inner[start:k])
            start = k + 1
    parts.append(inner[start:])
    paths = []
    for p in parts:
        if p == "self":
            paths.append(prefix.rstrip(":"))
        elif p:
            paths.extend(prefix + q for q in expand_use_tree(p))
    return paths


def module_of(path, src_root, crate_root=False):
    """native/core/src/record/x/y.rs -> ['record', 'x', 'y']; mod.rs names its folder; a crate's
    lib.rs is the crate itself ([]), its main.rs the binary's root (['<main>'])."""
    rel = os.path.relpath(path, src_root)[: -len(".rs")].split(os.sep)
    if rel[-1] == "mod":
        rel = rel[:-1]
    if crate_root and rel == ["lib"]:
        return []
    if crate_root and rel == ["main"]:
        return ["<main>"]
    return rel


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir", nargs="?", default="native/core/src/record")
    ap.add_argument("--crate-root", default=None, help="the crate's src/ (default: DIR's parent)")
    ap.add_argument("--forbid", action="append", default=[], help="crate::PREFIX DIR must not use")
    ap.add_argument("--quiet", action="store_true", help="print only the circles and errors")
    ap.add_argument("--folders", action="store_true", help="no circle between DIR's folders either")
    args = ap.parse_args()
    # DIR is a crate's src/ (a lib.rs or main.rs in it: `crate::x` is DIR/x) or a module's folder.
    crate_root = any(os.path.exists(os.path.join(args.dir, f)) for f in ("lib.rs", "main.rs"))
    if args.crate_root:
        src_root = args.crate_root
    elif crate_root:
        src_root = args.dir
    else:
        src_root = os.path.dirname(os.path.normpath(args.dir))

    files = {}
    for base, _, names in os.walk(args.dir):
        for n in sorted(names):
            if n.endswith(".rs"):
                p = os.path.join(base, n)
                files[tuple(module_of(p, src_root, crate_root))] = p
    front = "lib.rs" if crate_root else "mod.rs"
    top = tuple(module_of(os.path.join(args.dir, front), src_root, crate_root))

    texts = {}
    for mod, p in files.items():
        with open(p, encoding="utf-8") as f:
            texts[mod] = strip_test_modules(strip_comments(f.read()))

    # Names DIR's mod.rs re-exports: `pub use engine::{Engine, ..}` -> Engine lives in top+engine.
    reexport = {}
    for m in re.finditer(r"^[ \t]*pub\s+use\s+([^;]+);", texts.get(top, ""), re.M):
        for path in expand_use_tree(m.group(1)):
            segs = [s for s in path.split("::") if s]
            if segs and segs[0] in ("crate", "self", "super"):
                continue
            reexport[segs[-1]] = top + tuple(segs[:-1])

    def resolve(mod, segs):
        """Absolute module path segments (without 'crate') of a path named in file `mod`."""
        if segs[0] == "crate":
            return segs[1:]
        if segs[0] == "self":
            return list(mod) + segs[1:]
        base = list(mod)
        while segs and segs[0] == "super":
            base = base[:-1]
            segs = segs[1:]
        return base + segs

    def target_file(abs_segs):
        """The deepest module file of DIR this path lands in, or None if it leaves DIR."""
        if tuple(abs_segs[: len(top)]) != top:
            return None
        segs = list(abs_segs)
        # A name the top re-exports: `crate::record::Engine` is engine.rs's.
        if len(segs) == len(top) + 1 and segs[-1] in reexport:
            return reexport[segs[-1]]
        for k in range(len(segs), len(top) - 1, -1):
            if tuple(segs[:k]) in files:
                return tuple(segs[:k])
        return None

    path_re = re.compile(r"\b((?:crate|super|self)(?:::[A-Za-z_]\w*)+)")
    edges = {}
    forbidden = []
    for mod, text in texts.items():
        named = []
        # `use` statements start a line (a `use` in a string or a doc line names nothing)
        use_re = re.compile(r"^[ \t]*(?:pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", re.M)
        for m in use_re.finditer(text):
            named.extend(expand_use_tree(m.group(1)))
        body = use_re.sub("", text)
        named.extend(path_re.findall(body))
        for path in named:
            segs = [s for s in path.split("::") if s and s != "*"]
            if not segs or segs[0] not in ("crate", "super", "self"):
                continue
            abs_segs = resolve(mod, segs)
            for prefix in args.forbid:
                if abs_segs[: len(prefix.split("::"))] == prefix.split("::"):
                    forbidden.append((files[mod], "crate::" + "::".join(abs_segs)))
            to = target_file(abs_segs)
            if to is None or to == mod:
                continue
            # DIR's mod.rs is the front that re-exports the files: its names are not imports.
            if mod == top:
                continue
            edges.setdefault((mod, to), set()).add(abs_segs[-1])

    name = lambda mod: os.path.relpath(files[mod], args.dir)
    if not args.quiet:
        for (a, b), names in sorted(edges.items(), key=lambda e: (name(e[0][0]), name(e[0][1]))):
            print(f"{name(a)} -> {name(b)}: {', '.join(sorted(names))}")

    # Tarjan's strongly connected components.
    graph = {m: sorted(b for (a, b) in edges if a == m) for m in files}
    index, low, stack, on, comps, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
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
                comps.append(sorted(comp, key=name))

    sys.setrecursionlimit(10000)
    for v in sorted(files, key=name):
        if v not in index:
            visit(v)

    if not comps and not args.quiet:
        # Floors: a file sits one above the highest file it imports (floor 1 imports none).
        floor = {}

        def floor_of(v):
            if v not in floor:
                floor[v] = 1 + max((floor_of(w) for w in graph[v]), default=0)
            return floor[v]

        for n in range(max(map(floor_of, files)), 0, -1):
            print(f"floor {n}: " + ", ".join(sorted(name(v) for v in files if floor[v] == n)))
    print(f"{len(files)} files, {len(edges)} edges, {len(comps)} circle(s) in {args.dir}")
    for c in comps:
        members = set(c)
        print("circle: " + ", ".join(name(m) for m in c))
        for (a, b), names in sorted(edges.items(), key=lambda e: (name(e[0][0]), name(e[0][1]))):
            if a in members and b in members:
                print(f"  {name(a)} -> {name(b)}: {', '.join(sorted(names))}")
    folder_comps = []
    if args.folders:
        # One unit per entry of DIR: `x.rs` and `x/...` are `x`; DIR's own front is left out.
        unit = lambda mod: mod[len(top)] if len(mod) > len(top) else None
        units = sorted({unit(m) for m in files} - {None})
        above = {u: set() for u in units}
        for a, b in edges:
            if unit(a) and unit(b) and unit(a) != unit(b):
                above[unit(a)].add(unit(b))
        # a unit is in a circle when it reaches itself
        def reach(u):
            seen, todo = set(), list(above[u])
            while todo:
                v = todo.pop()
                if v not in seen:
                    seen.add(v)
                    todo.extend(above[v])
            return seen
        reaches = {u: reach(u) for u in units}
        for u in units:
            comp = sorted(v for v in units if v in reaches[u] and u in reaches[v])
            if comp and comp not in folder_comps:
                folder_comps.append(comp)
        for c in folder_comps:
            print("folder circle: " + ", ".join(c))
            for (a, b), names in sorted(edges.items(), key=lambda e: (name(e[0][0]), name(e[0][1]))):
                if unit(a) in c and unit(b) in c and unit(a) != unit(b):
                    print(f"  {name(a)} -> {name(b)}: {', '.join(sorted(names))}")
    for f, p in sorted(set(forbidden)):
        print(f"forbidden: {f} uses {p}")
    return 1 if comps or forbidden or folder_comps else 0


if __name__ == "__main__":
    sys.exit(main())
