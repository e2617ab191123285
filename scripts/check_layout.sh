#!/bin/sh
# The layout's rules, checked on the built objects and the sources (make
# layout; make test runs it): 1. no call circle between source files: from
# nm, file A calls file B when A uses a symbol B defines, and the graph of
# those calls has no cycle; 2. a program's private header (client.h,
# serve_int.h) is included only inside its folder. The compiler checks the
# folder graph itself: each folder compiles seeing only the folders it may
# use (see the Makefile). Ends with "layout: N passed, N failed".
cd "$(dirname "$0")/.." || exit 1
objs=$(ls build/asan/*/*.o 2>/dev/null | grep -v '/main\.o$')
[ -n "$objs" ] || { echo "layout: build the sanitized objects first (make build/asan/rafale)"; exit 1; }
python3 - $objs <<'PY'
import subprocess, sys, collections, os, re
defs, uses = {}, collections.defaultdict(set)
for o in sys.argv[1:]:
    name = os.path.relpath(o, "build/asan")[:-2] + ".c"
    for line in subprocess.run(["nm", "-P", o], capture_output=True, text=True).stdout.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        sym, kind = parts[0], parts[1]
        if kind in "TDBR":
            defs[sym] = name
        elif kind == "U":
            uses[name].add(sym)
calls = collections.defaultdict(set)
for f, syms in uses.items():
    for s in syms:
        if s in defs and defs[s] != f:
            calls[f].add(defs[s])
# Tarjan's strongly connected components: a component of two or more files is a circle.
index, low, stack, on, comps, n = {}, {}, [], set(), [], [0]
def visit(v):
    index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
    for w in calls.get(v, ()):
        if w not in index:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        c = []
        while True:
            w = stack.pop(); on.discard(w); c.append(w)
            if w == v:
                break
        comps.append(c)
sys.setrecursionlimit(10000)
for v in sorted(set(uses) | set(defs.values())):
    if v not in index:
        visit(v)
passed = failed = 0
for c in comps:
    if len(c) > 1:
        failed += 1
        inner = sorted("%s -> %s" % (a, b) for a in c for b in calls[a] if b in c)
        print("layout: a call circle between %s: %s" % (", ".join(sorted(c)), "; ".join(inner)))
    else:
        passed += 1
# Private headers stay in their folder.
for hdr, folder in (("client.h", "src/client"), ("serve_int.h", "src/serve"), ("serve_conn.h", "src/serve")):
    bad = []
    for root, _, files in os.walk("src"):
        for fn in files:
            p = os.path.join(root, fn)
            if root != folder and re.search(r'#include "%s"' % re.escape(hdr), open(p).read()):
                bad.append(p)
    if bad:
        failed += 1
        print("layout: %s is private to %s but included by %s" % (hdr, folder, ", ".join(bad)))
    else:
        passed += 1
print("layout: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
PY
