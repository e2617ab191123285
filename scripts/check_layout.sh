#!/bin/sh
# The layout's rules, checked on the built objects and the sources (make
# layout; make unit and make test run it):
#  1. no circle between modules (a module: A.c with A.h), from what the
#     linker sees and what the compiler reads together: A depends on B when
#     A's object uses a symbol B defines (nm), or when A.c or A.h includes
#     B.h. A header with no .c of its own (client.h, report.h) is read
#     through: who includes it includes what it includes. So an inline in a
#     header (engine.h's engine_fig, used by record.c while engine.c calls
#     record) closes a circle as a call would;
#  2. every #include "X" of src/ is of a folder the including file's folder
#     may see: the Makefile's INC_* lines, read here, are the one list (the
#     compiler holds them too, but only for what it builds, and only at the
#     first file it meets);
#  3. a folder's private header (client.h, serve_int.h, serve_conn.h) is
#     included only inside its folder;
#  4. tests/: a unit test includes only what its build sees (INC_cli, or its
#     own INC_* line in the Makefile), and no private header, except the
#     white-box test of a module of that folder (tests/test_M.c where
#     src/FOLDER/M.c exists: test_plan.c reads client.h, test_serve_reply.c
#     serve_int.h).
# Ends with "layout: N passed, N failed".
cd "$(dirname "$0")/.." || exit 1
objs=$(ls build/asan/*/*.o 2>/dev/null | grep -v '/main\.o$')
[ -n "$objs" ] || { echo "layout: build the sanitized objects first (make build/asan/rafale)"; exit 1; }
python3 - $objs <<'PY'
import subprocess, sys, collections, os, re, glob

# Private headers and the folder each belongs to.
PRIVATE = {"client.h": "client", "serve_int.h": "serve", "serve_conn.h": "serve", "findings_int.h": "report"}
# An edge of the folder graph opened for some headers alone: options sees
# serve for serve's settings, not for the server.
NARROW = {("options", "serve"): {"serve_config.h"}}
# One module in several files, sharing a private header: a part is its
# module in the circle check (findings_eval runs the server's rules).
# Modules in several files: each part is read as its module (the engine's
# three jobs -- worker loop, live watch, collection after join -- share
# struct engine_result; the findings' server rules share their context).
# A .c without a header of its own, whose functions its module's header
# declares (compare.h, opt_int.h), is part of that module too.
PARTS = {"report/findings_server": "report/findings", "client/collect": "client/engine", "client/live": "client/engine",
         "compare/compare_result": "compare/compare", "compare/compare_file": "compare/compare",
         "options/opt_value": "options/opt",
         # HTTP/3's client: one module (private header http3.h) in the files
         # that keep ngtcp2/nghttp3 calls apart by job.
         "client/http3_body": "client/http3", "client/http3_early": "client/http3",
         "client/http3_frames": "client/http3", "client/http3_quic": "client/http3"}
# Known edges that close a circle, each with why it is allowed for now:
# left out of the graph (said, not failed); one no longer there fails, so
# the list cannot outlive its edge.
KNOWN = {
}

failed = passed = 0
def fail(msg):
    global failed
    failed += 1
    print("layout: " + msg)

# The folder graph, from the Makefile's INC_name = $(INC_other) -Isrc/x lines.
inc_raw = {}
for line in open("Makefile"):
    m = re.match(r"INC_(\w+)\s*=\s*(.*)$", line)
    if m:
        inc_raw[m.group(1)] = m.group(2).split()
def visible(name, seen=()):
    out = []
    for tok in inc_raw.get(name, ()):
        m = re.match(r"\$\(INC_(\w+)\)$", tok)
        if m and m.group(1) not in seen:
            out += [f for f in visible(m.group(1), seen + (name,)) if f not in out]
        elif tok.startswith("-Isrc/") and tok[6:] not in out:
            out.append(tok[6:])
    return out
see = {name: set(visible(name)) for name in inc_raw}
folders = sorted(d for d in os.listdir("src") if os.path.isdir(os.path.join("src", d)))
for d in folders:
    if d not in see:
        fail("src/%s has no INC_%s line in the Makefile" % (d, d))
        see[d] = {d}

# Where each header lives; which files include what.
holder = collections.defaultdict(list)
for p in sorted(glob.glob("src/*/*.h")):
    holder[os.path.basename(p)].append(p.split("/")[1])
def includes(path):
    out = []
    for n, line in enumerate(open(path, errors="replace"), 1):
        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
        if m:
            out.append((n, m.group(1)))
    return out
def where(f, hdr):
    """The folder whose hdr a file of src/f reads: its own first (the
    compiler looks beside the including file first), else one it sees."""
    hs = holder.get(hdr, [])
    if not hs:
        return None
    if f in hs:
        return f
    vis = [h for h in hs if h in see.get(f, ())]
    return vis[0] if vis else hs[0]

srcs = sorted(glob.glob("src/*/*.c") + glob.glob("src/*/*.h"))
bad_before = failed
for p in srcs:
    f = p.split("/")[1]
    for n, hdr in includes(p):
        h = where(f, hdr)
        if h is None:
            continue   # not a header of src/ (the compiler says if it is nowhere)
        if h not in see[f]:
            fail("%s:%d includes %s of src/%s, which src/%s may not see (Makefile INC_%s)" % (p, n, hdr, h, f, f))
        elif (f, h) in NARROW and hdr not in NARROW[(f, h)]:
            fail("%s:%d includes %s: src/%s sees src/%s only for %s" % (p, n, hdr, f, h, ", ".join(sorted(NARROW[(f, h)]))))
        elif hdr in PRIVATE and PRIVATE[hdr] != f:
            fail("%s:%d includes %s, private to src/%s" % (p, n, hdr, PRIVATE[hdr]))
if failed == bad_before:
    passed += 1

# tests/: what each unit test's build sees (INC_cli unless its own rule says).
test_inc = {}
for line in open("Makefile"):
    m = re.search(r"\$\(INC_(\w+)\).*\btests/(test_\w+)\.c", line)
    if m:
        test_inc[m.group(2)] = m.group(1)
bad_before = failed
for p in sorted(glob.glob("tests/test_*.c")):
    t = os.path.basename(p)[:-2]
    module = t[len("test_"):]
    builds = {"cli"} | ({test_inc[t]} if t in test_inc else set())
    for n, hdr in includes(p):
        if not holder.get(hdr):
            continue   # t.h and the like
        for b in sorted(builds):
            h = where(b, hdr)
            if h not in see[b]:
                fail("%s:%d includes %s of src/%s, which its build (INC_%s) does not see" % (p, n, hdr, h, b))
        if hdr in PRIVATE and not os.path.exists("src/%s/%s.c" % (PRIVATE[hdr], module)):
            fail("%s:%d includes %s, private to src/%s (only a test of a module of that folder may)" %
                 (p, n, hdr, PRIVATE[hdr]))
if failed == bad_before:
    passed += 1

# The module graph: calls (nm), and includes that are used. A header with
# no .c of its own, and a folder's private header (its shared types), is
# read through; A depends on B.h when A includes it (so) and names
# something B.h defines: a type, a macro, an inline function.
def module(p):
    m = p.split("/", 1)[1].rsplit(".", 1)[0]
    return PARTS.get(m, m)
has_c = {module(p) for p in glob.glob("src/*/*.c")}
def strip(text):
    return re.sub(r'/\*.*?\*/|"(?:\\.|[^"\\\n])*"', " ", text, flags=re.S)
names, hdr_inc = {}, {}
for p in glob.glob("src/*/*.h"):
    f = p.split("/")[1]
    t = strip(open(p, errors="replace").read())
    n = set(re.findall(r"\b(?:struct|union|enum)\s+(\w+)\s*\{", t))
    n |= set(re.findall(r"#\s*define\s+(\w+)", t))
    n |= set(re.findall(r"\binline\b[^;{(]*?\b(\w+)\s*\(", t))
    n |= set(re.findall(r"\btypedef\b[^;]*?\b(\w+)\s*;", t))
    for body in re.findall(r"\benum\b[^{;]*\{([^}]*)\}", t):
        n |= set(re.findall(r"\b([A-Z_][A-Z0-9_]*)\b", body))
    n.discard(re.sub(r"\W", "_", "RAFALE_" + os.path.basename(p).upper()))
    names["%s/%s" % (f, os.path.basename(p))] = n
    hdr_inc["%s/%s" % (f, os.path.basename(p))] = [("%s/%s" % (where(f, h), h)) for _, h in includes(p) if where(f, h)]
def through(hp):
    return hp[:-2] not in has_c or os.path.basename(hp) in PRIVATE
def reach(hp, seen):
    """The module headers hp brings in: itself, or through it."""
    if hp in seen:
        return []
    seen.add(hp)
    if not through(hp):
        return [hp]
    out = []
    for h in hdr_inc.get(hp, ()):
        out += reach(h, seen)
    return out
edges = collections.defaultdict(dict)   # a -> b -> why
for p in srcs:
    f = p.split("/")[1]
    a = module(p)
    if a not in has_c or (p.endswith(".h") and through(p.split("/", 1)[1])):
        continue
    words = set(re.findall(r"\w+", strip(open(p, errors="replace").read())))
    for n, hdr in includes(p):
        h = where(f, hdr)
        if h is None:
            continue
        for hp in reach("%s/%s" % (h, hdr), set()):
            used = sorted(words & names.get(hp, set()))
            if hp[:-2] != a and used:
                edges[a].setdefault(hp[:-2], "%s:%d includes %s%s, uses %s" %
                                    (p, n, hdr, "" if hp.endswith("/" + hdr) else " (to %s)" % hp, used[0]))
defs, uses = {}, collections.defaultdict(set)
for o in sys.argv[1:]:
    name = os.path.relpath(o, "build/asan")[:-2]
    name = PARTS.get(name, name)
    for line in subprocess.run(["nm", "-P", o], capture_output=True, text=True).stdout.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        sym, kind = parts[0], parts[1]
        if kind in "TDBR":
            defs[sym] = name
        elif kind == "U":
            uses[name].add(sym)
for a, syms in uses.items():
    for s in sorted(syms):
        if s in defs and defs[s] != a:
            edges[a].setdefault(defs[s], "%s.c calls %s" % (a, s))

for (a, b), why in sorted(KNOWN.items()):
    if b in edges.get(a, {}):
        print("layout: known (%s): %s -> %s (%s)" % (why, a, b, edges[a].pop(b)))
    else:
        fail("the known edge %s -> %s is gone: take it out of KNOWN" % (a, b))

# Tarjan's strongly connected components: a component of two or more modules is a circle.
index, low, stack, on, comps, cnt = {}, {}, [], set(), [], [0]
def visit(v):
    index[v] = low[v] = cnt[0]; cnt[0] += 1; stack.append(v); on.add(v)
    for w in edges.get(v, ()):
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
for v in sorted(set(edges) | has_c | set(defs.values())):
    if v not in index:
        visit(v)
for c in comps:
    if len(c) < 2:
        passed += 1
        continue
    inner = sorted("%s -> %s (%s)" % (a, b, edges[a][b]) for a in c for b in edges[a] if b in c)
    fail("a circle between %s: %s" % (", ".join(sorted(c)), "; ".join(inner)))
print("layout: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
PY
