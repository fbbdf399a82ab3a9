#!/usr/bin/env python3
"""Fails when an #include reaches the wrong way between the layers.

Every source file under framework/, components/ and runtime/ belongs to a
layer by its folder; an include is an edge from the includer's folder to the
folder of the file it names. An edge is allowed when the table ALLOWED says
the includer's layer may see the included one. Components see only the base
layer's public headers, their own folder and their framework's shared folder
(components/<framework>/base). Directory cycles are errors too.

Edges that break the table today and are being removed are listed in KNOWN,
each with its reason: the check fails on any other upward edge, and also on a
KNOWN entry that no longer occurs (delete it, so the list only shrinks).

  tests/layers/check_layers.py [--root DIR]      # exit 0: clean; 1: violations listed
"""
import argparse
import os
import re
import sys

# Folder prefix -> layer, most specific first.
LAYER_OF = [
    # mpi.h: the MPI C ABI (handle structs, constants); the core implements
    # the objects it declares, the binding the functions.
    ("runtime/mpi/include", "api"),
    ("framework", "base"),
    ("runtime/datatype", "base"),
    ("runtime/appfmt", "base"),
    ("runtime/procfiles", "base"),
    ("runtime/userns", "base"),
    ("components", "component"),
    ("runtime/oob", "rte"),
    ("runtime/bootstrap", "rte"),
    ("runtime/snapshot", "rte"),
    ("runtime/p2p", "core"),
    ("runtime/cr", "core"),
    ("runtime/osc", "core"),
    ("runtime/io", "core"),
    ("runtime/mpi", "mpi"),
    ("runtime/blcr", "blcr"),
    ("runtime/launcher", "tools"),
    ("runtime/cli", "tools"),
    # liblazarus-ft: checkpoint.h over a vendor MPI (its mpi.h resolves to
    # the api folder here, although the vendor's is the one compiled against).
    ("runtime/ft", "ft"),
]

# Which layers each layer may include (besides itself).
ALLOWED = {
    "api": set(),
    "base": set(),
    "component": {"base"},
    "rte": {"base"},
    "core": {"api", "base", "rte"},
    "mpi": {"api", "base", "rte", "core"},
    "blcr": {"base", "rte", "core"},  # a library on top: it knows the runtime's parameter names
    "tools": {"base", "rte", "core"},
    "ft": {"api", "base", "rte"},
}

# (includer folder, included folder): why it is still there.
KNOWN = {
}

INCLUDE = re.compile(r'^\s*#\s*include\s+["<]([^">]+)[">]', re.M)
SOURCES = (".h", ".hpp", ".c", ".cc", ".cpp")


def folder_of(path):
    parts = path.split("/")
    if parts[0] == "components":
        return "/".join(parts[:3])
    if parts[0] == "runtime":
        return "/".join(parts[:3]) if parts[1:3] == ["mpi", "include"] else "/".join(parts[:2])
    return parts[0]


def layer_of(folder):
    for prefix, layer in LAYER_OF:
        if folder == prefix or folder.startswith(prefix + "/"):
            return layer
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    os.chdir(root)

    files = []
    for top in ("framework", "components", "runtime"):
        for dp, dn, fn in os.walk(top):
            dn.sort()
            files += [os.path.join(dp, f) for f in sorted(fn) if f.endswith(SOURCES)]
    # Where a quoted or angled name is looked for, after the includer's own
    # folder: the public include dirs, the runtime root, then every folder
    # that holds headers (a private header named from elsewhere is found, so
    # the edge is seen rather than missed).
    search = ["framework/include", "runtime"]
    search += sorted(os.path.join("runtime", d, "include") for d in os.listdir("runtime")
                     if os.path.isdir(os.path.join("runtime", d, "include")))
    search += sorted({os.path.dirname(f) for f in files if f.endswith((".h", ".hpp"))})

    edges = {}
    for f in files:
        src_folder = folder_of(f)
        with open(f, errors="replace") as fh:
            text = fh.read()
        for m in INCLUDE.finditer(text):
            name = m.group(1)
            target = None
            for base in [os.path.dirname(f)] + search:
                cand = os.path.normpath(os.path.join(base, name))
                if os.path.isfile(cand):
                    target = cand
                    break
            if target is None:
                continue  # a system header
            dst_folder = folder_of(target)
            if dst_folder != src_folder:
                edges.setdefault((src_folder, dst_folder), []).append(f"{f}: #include {m.group(0).split('include', 1)[1].strip()}")

    problems = []
    seen_known = set()
    for (a, b), where in sorted(edges.items()):
        la, lb = layer_of(a), layer_of(b)
        ok = la is not None and lb is not None and (lb in ALLOWED[la] or la == lb)
        if la == "component" and lb == "component":
            # A component sees its own folder and its framework's shared pieces only.
            ok = b == "/".join(a.split("/")[:2]) + "/base"
        if ok and (a, b) not in KNOWN:
            continue
        if (a, b) in KNOWN:
            seen_known.add((a, b))
            continue
        problems.append(f"{a} ({la}) must not include {b} ({lb}):\n    " + "\n    ".join(where[:5]) +
                        (f"\n    ... and {len(where) - 5} more" if len(where) > 5 else ""))

    # Directory cycles (a -> ... -> a) among every edge, KNOWN ones included.
    graph = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
    cycles = set()

    def walk(node, stack, on_stack):
        for nxt in sorted(graph.get(node, ())):
            if nxt in on_stack:
                cyc = stack[stack.index(nxt):] + [nxt]
                key = tuple(sorted(set(cyc)))
                # A cycle through a KNOWN edge goes when that edge goes.
                if key not in cycles and not any((cyc[i], cyc[i + 1]) in KNOWN for i in range(len(cyc) - 1)):
                    problems.append("directory cycle: " + " -> ".join(cyc))
                cycles.add(key)
            elif len(stack) < 12:
                walk(nxt, stack + [nxt], on_stack | {nxt})

    for n in sorted(graph):
        walk(n, [n], {n})

    for k in sorted(set(KNOWN) - seen_known):
        problems.append(f"KNOWN lists {k[0]} -> {k[1]}, which no longer occurs: delete it from {__file__}")

    if problems:
        print(f"layer check: {len(problems)} problem(s)")
        for p in problems:
            print("  " + p)
        return 1
    print(f"layer check: {len(files)} files, {len(edges)} folder edges, all allowed "
          f"({len(KNOWN)} known exceptions being removed)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
