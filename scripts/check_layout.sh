#!/bin/sh
# The layout's rules, checked on the built objects, the sources, the
# Makefile and the maps of the tree (make layout; make unit and make test
# run it). Every file is read: src/, tests/, fuzz/, bench/.
#  1. every #include "X" is placed as the compiler places it: beside the
#     including file, then in the -I folders of its build (a folder of src/:
#     its Makefile INC_* line; a file of tests/, fuzz/, bench/: the -Isrc/
#     of the Makefile rules that compile it; one no rule compiles fails).
#     An include it cannot place fails, and so does one of a folder the
#     includer's build may not see (INC_*, or a path such as "../x/y.h"
#     around it), and one by a file of src/ of a file outside src/. A header
#     outside src/ (tests/t.h, fuzz/serve_h3_offline.h) is read through:
#     what it includes, each file that includes it includes, judged so;
#  2. a header is private to its folder when its opening comment says
#     "private to src/FOLDER/". It is included only inside its folder, or by
#     the white-box test of a module M of that folder: tests/FOLDER/test_M.c,
#     tests/FOLDER/test_M_PART.c, fuzz/fuzz_M.c, fuzz/fuzz_M_PART.c where
#     src/FOLDER/M.c exists (test_serve_h3_qpack.c, through
#     fuzz/serve_h3_offline.h, is serve_h3's); bench/ has none. A header
#     that no file outside its folder reads (white-box tests aside; read
#     through another of its folder's headers counts) must say it is
#     private, and one that is not private includes no private one;
#  3. the folder graph: a folder's objects use the symbols of the folders
#     its INC_* line lets it see, no other (nm on build/asan: a symbol may be
#     declared by hand, around the includes); an INC_* folder that no file
#     of the folder includes nor any of its objects calls is said (not
#     failed: the layering allows it, nothing uses it yet);
#  4. no circle between modules (a module: A.c with A.h), from what the
#     linker sees and what the compiler reads together: A depends on B when
#     A's object uses a symbol B defines (nm), or when A.c or A.h includes
#     B.h and names something it defines. A header with no .c of its own
#     (client.h, report.h) is read through: who includes it includes what it
#     includes. So an inline in a header (engine.h's engine_fig, used by
#     record.c while engine.c calls record) closes a circle as a call would;
#  5. the maps are current: the Makefile's layering comment names every
#     folder, in an order INC_* keeps (no folder sees one named after it);
#     README's Layout section names every folder in its graph, in the same
#     way, and in its table of folders, and every file of src/ under its
#     folder's row, and no file that is gone; src/client/client.h's file map
#     names every file of src/client/; the unit tests mirror src/: each is
#     tests/FOLDER/test_NAME.c for a folder of src/, and when NAME is a
#     module (or its part, test_M_PART) it is a module of src/FOLDER.
# Ends with "layout: N passed, N failed".
cd "$(dirname "$0")/.." || exit 1
objs=$(ls build/asan/*/*.o 2>/dev/null)
[ -n "$objs" ] || { echo "layout: build the sanitized objects first (make build/asan/rafale)"; exit 1; }
python3 - $objs <<'PY'
import subprocess, sys, collections, os, re, glob

# An edge of the folder graph opened for some headers alone: options sees
# serve for serve's settings, not for the server.
NARROW = {("options", "serve"): {"serve_config.h"}}
# Modules in several files: each part is read as its module (the engine's
# three jobs -- worker loop, live watch, collection after join -- share
# struct run_figures; the findings' server rules and not_steady share
# their context).
# A .c without a header of its own, whose functions its module's header
# declares (compare.h, opt_int.h), is part of that module too.
PARTS = {"report/findings_server": "report/findings", "report/findings_steady": "report/findings",
         "client/collect": "client/engine", "client/live": "client/engine",
         "compare/compare_result": "compare/compare", "compare/compare_file": "compare/compare",
         "options/opt_value": "options/opt",
         # HTTP/3's client: one module (private header http3.h) in the files
         # that keep ngtcp2/nghttp3 calls apart by job.
         "client/http3_body": "client/http3", "client/http3_early": "client/http3",
         "client/http3_frames": "client/http3", "client/http3_quic": "client/http3",
         # HTTP/2's likewise (private header http2.h): its frames onto the socket apart.
         "client/http2_write": "client/http2"}
# A header of a module that is also its folder's shared insides (the
# threads' and connections' state of serve): read through, as one with no
# .c of its own.
INSIDES = {"serve/serve_conn.h"}
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
def section(bad_before):
    """A rule's section passed when it failed nothing."""
    global passed
    if failed == bad_before:
        passed += 1

# The Makefile: its variables, expanded as make would for what matters
# here (-I flags and file names; functions expand to nothing), and its rules.
mk = re.sub(r"\\\n", " ", open("Makefile").read()).splitlines()
mvars = {}
for line in mk:
    m = re.match(r"([A-Za-z_]\w*)\s*([?:+]?)=\s*(.*)$", line)
    if m:
        name, op, val = m.groups()
        if op == "+":
            mvars[name] = mvars.get(name, "") + " " + val
        elif not (op == "?" and name in mvars):
            mvars[name] = val
def expand(text, depth=0):
    while "$(" in text and depth < 30:
        text = re.sub(r"\$\(([^()]*)\)",
                      lambda m: mvars.get(m.group(1), "") if re.fullmatch(r"\w+", m.group(1)) else "", text)
        depth += 1
    return text
def ipaths(text):
    out = []
    for tok in expand(text).split():
        if tok.startswith("-Isrc/") and tok[6:] not in out:
            out.append(tok[6:])
    return out
rules, cur = [], None
for line in mk:
    if line.startswith("\t"):
        if cur is not None:
            cur[2].append(line[1:])
        continue
    cur = None
    if re.match(r"\s*(#|$)|\s*-?(ifn?eq|ifn?def|else|endif|include|define|endef)\b", line):
        continue
    m = re.match(r"([^:=#]+):(?!=)([^=]*)$", line)
    if m:
        cur = (m.group(1).split(), m.group(2), [])
        rules.append(cur)

folders = sorted(d for d in os.listdir("src") if os.path.isdir(os.path.join("src", d)))
see = {}
for d in folders:
    if "INC_" + d not in mvars:
        fail("src/%s has no INC_%s line in the Makefile" % (d, d))
        see[d] = [d]
    else:
        see[d] = ipaths("$(INC_%s)" % d)

# The files and what each includes, placed as the compiler places it.
def includes(path):
    out = []
    for n, line in enumerate(open(path, errors="replace"), 1):
        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
        if m:
            out.append((n, m.group(1)))
    return out
def place(path, hdr, inc):
    for d in [os.path.dirname(path)] + ["src/" + f for f in inc]:
        c = os.path.normpath(os.path.join(d, hdr))
        if os.path.isfile(c):
            return c
    return None
def folder(p):
    return p.split("/")[1] if p.startswith("src/") else None
src_c = sorted(glob.glob("src/*/*.c"))
src_h = sorted(glob.glob("src/*/*.h"))
holder = collections.defaultdict(list)
for p in src_h:
    holder[os.path.basename(p)].append(folder(p))
harness = sorted(p for d in ("tests", "fuzz", "bench") for p in glob.glob(d + "/**/*.c", recursive=True))

# A unit: a file as one build reads it (its -I folders, and where they come
# from). A src/ file is read with its folder's INC_*; a harness .c with each
# rule's that compiles it.
units = [(p, see[folder(p)], "INC_" + folder(p)) for p in src_c + src_h]
built = collections.defaultdict(list)
for targets, prereqs, recipe in rules:
    if not recipe:
        continue
    inc = ipaths(" ".join(recipe))
    for tok in expand(prereqs + " " + " ".join(recipe)).split():
        if re.fullmatch(r"(tests|fuzz|bench)/[\w%./-]+\.c", tok):
            for p in sorted(glob.glob(tok.replace("%", "**/*"), recursive=True)):
                if all(b[0] != inc for b in built[p]):
                    flags = " ".join("-Isrc/" + f for f in inc) or "no -Isrc/"
                    built[p].append((inc, "make %s: %s" % (targets[0], flags)))
bad_before = failed
for p in harness:
    if not built[p]:
        fail("%s is compiled by no rule of the Makefile: what it may include is nowhere said" % p)
    for inc, why in built[p]:
        units.append((p, inc, why))

# Every include of every unit, harness headers read through.
recs = []   # (unit, its build's -I folders, their why, "file:line", the header as written, its path or None)
for unit, inc, why in units:
    todo, seen = [unit], {unit}
    while todo:
        p = todo.pop()
        for n, hdr in includes(p):
            r = place(p, hdr, inc)
            recs.append((unit, inc, why, "%s:%d" % (p, n), hdr, r))
            if r and not r.startswith("src/") and r not in seen:
                seen.add(r)
                todo.append(r)
for unit, inc, why, at, hdr, r in recs:
    f = folder(unit)
    if r is None:
        if holder.get(os.path.basename(hdr)):
            fail("%s includes %s of src/%s, which %s does not see (%s)" %
                 (at, hdr, holder[os.path.basename(hdr)][0], "src/" + f if f else unit, why))
        else:
            fail("%s includes %s, which is nowhere the compiler looks (beside it, %s)" % (at, hdr, why))
    elif f and not r.startswith("src/"):
        fail("%s includes %s, which is no file of src/" % (at, r))
    elif r.startswith("src/") and folder(r) != f and folder(r) not in inc:
        fail("%s includes %s of src/%s, which %s does not see (%s)" %
             (at, hdr, folder(r), "src/" + f if f else unit, why))
    elif f and (f, folder(r)) in NARROW and os.path.basename(r) not in NARROW[(f, folder(r))]:
        fail("%s includes %s: src/%s sees src/%s only for %s" %
             (at, hdr, f, folder(r), ", ".join(sorted(NARROW[(f, folder(r))]))))
section(bad_before)

# Private headers: said in their opening comment.
def opening(p):
    """Its opening comment, in one line."""
    m = re.match(r"\s*/\*(.*?)\*/", open(p, errors="replace").read(), re.S)
    return " ".join(re.sub(r"\n\s*\*", " ", m.group(1)).split()) if m else ""
bad_before = failed
private = {}
for p in src_h:
    m = re.search(r"\b[Pp]rivate to src/(\w+)/", opening(p))
    if m:
        if m.group(1) != folder(p):
            fail("%s says it is private to src/%s/, but it lives in src/%s/" % (p, m.group(1), folder(p)))
        private[p] = folder(p)
module_at = {}
for p in src_c:
    module_at[os.path.basename(p)[:-2]] = folder(p)
def whitebox(unit):
    """The folder whose module a test or fuzz harness is the white-box test of, or None."""
    d, b = unit.split("/")[0], os.path.basename(unit)[:-2]
    pre = {"tests": "test_", "fuzz": "fuzz_"}.get(d)
    if not pre or not b.startswith(pre):
        return None
    words = b[len(pre):].split("_")
    for k in range(len(words), 0, -1):
        if "_".join(words[:k]) in module_at:
            return module_at["_".join(words[:k])]
    return None
# Who reads each header from outside its folder (white-box tests aside).
public = set()
for unit, inc, why, at, hdr, r in recs:
    if not r or not r.startswith("src/"):
        continue
    g, f = folder(r), folder(unit)
    if f == g or (f is None and whitebox(unit) == g):
        continue
    public.add(r)
    if r in private:
        if f:
            fail("%s includes %s, private to src/%s" % (at, hdr, g))
        else:
            fail("%s includes %s, private to src/%s (%s is not a white-box test of a module of src/%s)" %
                 (at, hdr, g, unit, g))
inner = {p: [r for _, _, _, at, _, r in recs if at.startswith(p + ":") and r and r.startswith("src/")] for p in src_h}
grow = list(public)
while grow:
    for r in inner.get(grow.pop(), ()):
        if r not in public:
            public.add(r)
            grow.append(r)
for p in src_h:
    if p not in private and p not in public:
        fail("%s is included only inside src/%s/ (white-box tests aside): its opening comment says "
             "\"private to src/%s/\", or a file outside includes it" % (p, folder(p), folder(p)))
    if p not in private and p in public:
        for r in inner[p]:
            if r in private:
                fail("%s is not private but includes %s, private to src/%s: whoever includes it reads it" %
                     (p, os.path.basename(r), private[r]))
section(bad_before)

# The symbols: what each object defines and uses.
defs, uses = {}, collections.defaultdict(set)
for line in subprocess.run(["nm", "-P", "-A"] + sys.argv[1:], capture_output=True, text=True).stdout.splitlines():
    parts = line.split()
    if len(parts) < 3 or not parts[0].endswith(".o:"):
        continue
    name, sym, kind = os.path.relpath(parts[0][:-1], "build/asan")[:-2], parts[1], parts[2]
    if kind in "TDBR":
        defs[sym] = name
    elif kind == "U":
        uses[name].add(sym)

# The folder graph: symbols against INC_*; INC_* against what is used.
bad_before = failed
used = collections.defaultdict(set)
for unit, inc, why, at, hdr, r in recs:
    if folder(unit) and r and r.startswith("src/"):
        used[folder(unit)].add(folder(r))
for a, syms in sorted(uses.items()):
    fa = a.split("/")[0]
    for s in sorted(syms):
        fb = defs.get(s, "/").split("/")[0]
        if fb and fb != fa:
            if fa in see and fb not in see[fa]:
                fail("build/asan/%s.o uses %s of src/%s (%s.o), which src/%s may not see (INC_%s)" %
                     (a, s, fb, defs[s], fa, fa))
            used[fa].add(fb)
for f in folders:
    for g in see[f]:
        if g != f and g not in used[f]:
            print("layout: said: src/%s may see src/%s (INC_%s), but none of its files includes it nor calls it" %
                  (f, g, f))
section(bad_before)

# The module graph: calls (nm), and includes that are used. A header with
# no .c of its own, and a folder's shared insides, is read through; A
# depends on B.h when A includes it (so) and names something B.h defines:
# a type, a macro, an inline function.
def module(p):
    m = p.split("/", 1)[1].rsplit(".", 1)[0]
    return PARTS.get(m, m)
has_c = {module(p) for p in src_c}
def strip(text):
    return re.sub(r'/\*.*?\*/|"(?:\\.|[^"\\\n])*"', " ", text, flags=re.S)
names = {}
for p in src_h:
    t = strip(open(p, errors="replace").read())
    n = set(re.findall(r"\b(?:struct|union|enum)\s+(\w+)\s*\{", t))
    n |= set(re.findall(r"#\s*define\s+(\w+)", t))
    n |= set(re.findall(r"\binline\b[^;{(]*?\b(\w+)\s*\(", t))
    n |= set(re.findall(r"\btypedef\b[^;]*?\b(\w+)\s*;", t))
    for body in re.findall(r"\benum\b[^{;]*\{([^}]*)\}", t):
        n |= set(re.findall(r"\b([A-Z_][A-Z0-9_]*)\b", body))
    n.discard(re.sub(r"\W", "_", "RAFALE_" + os.path.basename(p).upper()))
    names[p[4:]] = n
def through(hp):
    return hp[:-2] not in has_c or hp in INSIDES
def reach(hp, seen):
    """The module headers hp brings in: itself, or through it."""
    if hp in seen:
        return []
    seen.add(hp)
    if not through(hp):
        return [hp]
    out = []
    for r in inner.get("src/" + hp, ()):
        out += reach(r[4:], seen)
    return out
edges = collections.defaultdict(dict)   # a -> b -> why
for unit, inc, why, at, hdr, r in recs:
    if not folder(unit) or not r or not r.startswith("src/"):
        continue
    a = module(unit)
    if a not in has_c or (unit.endswith(".h") and through(unit[4:])):
        continue
    words = set(re.findall(r"\w+", strip(open(unit, errors="replace").read())))
    for hp in reach(r[4:], set()):
        u = sorted(words & names.get(hp, set()))
        if hp[:-2] != a and u:
            edges[a].setdefault(hp[:-2], "%s includes %s%s, uses %s" %
                                (at, hdr, "" if hp.endswith("/" + os.path.basename(hdr)) else " (to %s)" % hp, u[0]))
mods = {}
for o in sys.argv[1:]:
    name = os.path.relpath(o, "build/asan")[:-2]
    if name != "cli/main":
        mods[name] = PARTS.get(name, name)
for a, syms in uses.items():
    if a not in mods:
        continue
    for s in sorted(syms):
        if s in defs and defs[s] in mods and mods[defs[s]] != mods[a]:
            edges[mods[a]].setdefault(mods[defs[s]], "%s.c calls %s" % (mods[a], s))

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
for v in sorted(set(edges) | has_c | set(mods.values())):
    if v not in index:
        visit(v)
for c in comps:
    if len(c) < 2:
        passed += 1
        continue
    circle = sorted("%s -> %s (%s)" % (a, b, edges[a][b]) for a in c for b in edges[a] if b in c)
    fail("a circle between %s: %s" % (", ".join(sorted(c)), "; ".join(circle)))

# The maps. A layering drawn as groups of folders, lowest first: every
# folder in it once, and none sees (INC_*) a folder of a group after its own.
def layering(where, groups):
    named = [f for g in groups for f in g]
    for f in folders:
        if named.count(f) != 1:
            fail("%s names src/%s %s" % (where, f, "twice" if named.count(f) > 1 else "nowhere"))
    for f in named:
        if f not in folders:
            fail("%s names %s, which is no folder of src/" % (where, f))
    for i, g in enumerate(groups):
        for f in g:
            for h in [h for later in groups[i + 1:] for h in later]:
                if h in see.get(f, ()):
                    fail("%s puts src/%s below src/%s, which it sees (INC_%s)" % (where, f, h, f))
bad_before = failed
text = "\n".join(open("Makefile").read().split("\n"))
block = re.search(r"\n# Folders are programs.*?\n(?!#)", text, re.S)
if not block:
    fail("the Makefile has no layering comment (# Folders are programs ...)")
else:
    chain = re.search(r"^#\s+(\w+(?:,\s*\w+)*(?:\s*<-\s*\w+(?:,\s*\w+)*)+)\s*$", block.group(0), re.M)
    for f in folders:
        if not re.search(r"\b%s/" % f, block.group(0)):
            fail("the Makefile's layering comment does not say what %s/ is" % f)
    if not chain:
        fail("the Makefile's layering comment draws no chain (base <- ...)")
    else:
        layering("the Makefile's layering chain",
                 [[w.strip() for w in g.split(",")] for g in chain.group(1).split("<-")])
readme = open("README.md").read()
lay = readme.split("\n## Layout\n", 1)[-1].split("\n## ", 1)[0] if "\n## Layout\n" in readme else ""
if not lay:
    fail("README.md has no Layout section")
graph = [[[w.strip()[4:] for w in g.split(",")] for g in line.split("(")[0].split("→")]
         for line in re.findall(r"^    (src/.*→.*)$", lay, re.M)]
named = set(f for line in graph for g in line for f in g)
for f in folders:
    if f not in named:
        fail("README's Layout graph names src/%s nowhere" % f)
for n, line in enumerate(graph, 1):
    lowest_first = list(reversed(line))
    for i, g in enumerate(lowest_first):
        for f in g:
            if f not in folders:
                fail("README's Layout graph names src/%s, which is no folder" % f)
            for h in [h for later in lowest_first[i + 1:] for h in later]:
                if h in see.get(f, ()):
                    fail("README's Layout graph (line %d) has src/%s use src/%s, which src/%s sees (INC_%s)" %
                         (n, h, f, f, f))
rows, under = collections.defaultdict(set), None
for line in lay.splitlines():
    m = re.match(r"\|\s*\*\*(src/\w+|\w+)\*\*\s*\|", line)
    if m:
        under = m.group(1)[4:] if m.group(1).startswith("src/") else None
    elif under and line.startswith("|"):
        rows[under] |= set(re.findall(r"`([\w.-]+\.[ch])`", line.split("|")[1]))
for f in folders:
    if not re.search(r"^\|\s*`src/%s/`\s*\|" % f, lay, re.M):
        fail("README's Layout table of folders has no row `src/%s/`" % f)
    if f not in rows:
        fail("README's Layout table of files has no row **src/%s**" % f)
    for p in sorted(glob.glob("src/%s/*.[ch]" % f)):
        if os.path.basename(p) not in rows.get(f, ()):
            fail("README's Layout table does not name %s under **src/%s**" % (p, f))
for f, ns in sorted(rows.items()):
    for n in sorted(ns):
        if not os.path.exists("src/%s/%s" % (f, n)):
            fail("README's Layout table names src/%s/%s, which is gone" % (f, n))
mapped = set(re.findall(r"\b([\w-]+\.[ch])\b", opening("src/client/client.h")))
for p in sorted(glob.glob("src/client/*.[ch]")):
    if os.path.basename(p) not in mapped and p != "src/client/client.h":
        fail("src/client/client.h's file map does not name %s" % os.path.basename(p))
for n in sorted(mapped):
    if not os.path.exists("src/client/" + n):
        fail("src/client/client.h's file map names %s, which is not in src/client/" % n)
# The unit tests mirror src/: a newcomer finds a module's test beside where
# it lives (tests/FOLDER/test_M.c for src/FOLDER/M.c).
for p in sorted(glob.glob("tests/**/*.c", recursive=True)):
    parts = p.split("/")
    if len(parts) != 3 or parts[1] not in folders or not parts[2].startswith("test_"):
        fail("%s is not tests/FOLDER/test_NAME.c for a folder of src/: the unit tests mirror src/" % p)
    elif whitebox(p) not in (None, parts[1]):
        fail("%s tests a module of src/%s: it belongs in tests/%s/" % (p, whitebox(p), whitebox(p)))
section(bad_before)
print("layout: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
PY
