"""Integration tests: make layout (scripts/check_layout.sh) bites. Each rule is shown failing on a copy of the tree
with a violation planted in it (the sources, the Makefile, README.md; the sanitized objects linked, a fake one
added for the symbols' rule), and the tree as it is passes."""
import glob

from common import *  # noqa: F401,F403 (the runner sets RAFALE first)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def layout_tree(name):
    """A copy of what make layout reads, under TMP/name; the objects of build/asan linked, not copied."""
    where = os.path.join(TMP, name)
    for d in ("src", "tests", "fuzz", "bench"):
        for dirpath, _, files in os.walk(os.path.join(ROOT, d)):
            for f in files:
                if f.endswith((".c", ".h")):
                    rel = os.path.relpath(os.path.join(dirpath, f), ROOT)
                    os.makedirs(os.path.join(where, os.path.dirname(rel)), exist_ok=True)
                    shutil.copy(os.path.join(ROOT, rel), os.path.join(where, rel))
    for f in ("Makefile", "README.md", "scripts/check_layout.sh"):
        os.makedirs(os.path.join(where, os.path.dirname(f)), exist_ok=True)
        shutil.copy(os.path.join(ROOT, f), os.path.join(where, f))
    for o in glob.glob(os.path.join(ROOT, "build", "asan", "*", "*.o")):
        rel = os.path.relpath(o, ROOT)
        os.makedirs(os.path.join(where, os.path.dirname(rel)), exist_ok=True)
        os.symlink(o, os.path.join(where, rel))
    return where


def plant(where, path, old, new):
    """Replaces old (there once) by new in the tree's path; False when old is not there."""
    p = os.path.join(where, path)
    text = open(p).read() if os.path.exists(p) else ""
    if text.count(old) != 1:
        return check(False, "layout: %s holds %r once, to plant a violation in" % (path, old))
    with open(p, "w") as fh:
        fh.write(text.replace(old, new))
    return True


def layout(where):
    p = subprocess.run(["sh", "scripts/check_layout.sh"], cwd=where, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout + p.stderr


def bites(where, wants):
    """make layout fails on the tree, saying each of wants (substrings of its lines)."""
    rc, out = layout(where)
    check(rc == 1 and re.search(r"layout: \d+ passed, [1-9]\d* failed\n$", out),
          "layout fails (%d: %s)" % (rc, out[-800:]))
    for what, want in wants:
        check(want in out, "layout: %s fails it, saying %r (%s)" % (what, want, out[-1500:]))


def ready():
    if SANITIZED:
        print("  (make layout reads the sources: checked once)")
        return False
    return check(glob.glob(os.path.join(ROOT, "build", "asan", "*", "*.o")),
                 "the sanitized objects are built (make build/asan/rafale)")


@test
def layout_includes_everywhere():
    """make layout reads every #include of src/, tests/, fuzz/ and bench/, placed as the compiler places it: private
    headers are those whose opening comment says "private to src/FOLDER/" (before, a hand list of four missed
    serve_h3_int.h, http3.h, opt_int.h), one that nothing outside its folder includes must say so, a white-box test or
    fuzz harness of a module may read its folder's (through a fuzz/ header too), fuzz/ and bench/ only what their
    Makefile rules let them see, src/ only src/, and an include it cannot place fails (before, all of fuzz/ and
    bench/ went unread and an unplaced include passed). The unit tests mirror src/ (tests/FOLDER/test_M.c for
    src/FOLDER/M.c): one loose in tests/, under no folder of src/, or in another folder than its module's fails."""
    if not ready():
        return
    where = layout_tree("clean")
    rc, out = layout(where)
    check(rc == 0 and out.endswith(" 0 failed\n"), "layout: the tree as it is passes (%s)" % out[-1500:])
    where = layout_tree("planted")
    plant(where, "src/compare/alike.h", "asked. Private to\n * src/compare/. */", "asked. */")
    plant(where, "src/run/observed.c", '#include "observed.h"\n', '#include "observed.h"\n#include "http3.h"\n')
    plant(where, "src/client/engine.h", '#define RAFALE_ENGINE_H\n', '#define RAFALE_ENGINE_H\n#include "client.h"\n')
    plant(where, "src/options/opt_int.h", "private to src/options/:", "private to src/base/:")
    plant(where, "tests/base/test_units.c", '#include "../t.h"\n',
          '#include "../t.h"\n#include "../../fuzz/serve_h3_offline.h"\n#include "nowhere.h"\n')
    plant(where, "tests/base/test_text.c", '#include "../t.h"\n', '#include "../t.h"\n#include "serve_int.h"\n')
    plant(where, "fuzz/fuzz_cookie.c", '#include "cookie.h"\n', '#include "cookie.h"\n#include "serve_int.h"\n')
    plant(where, "bench/floor.c", '#include "floor.h"\n', '#include "floor.h"\n#include "serve.h"\n')
    plant(where, "src/report/svg.c", '#include "svg.h"\n', '#include "svg.h"\n#include "../serve/serve.h"\n')
    plant(where, "src/base/buf.c", '#include "buf.h"\n', '#include "buf.h"\n#include "../../tests/t.h"\n')
    with open(os.path.join(where, "fuzz", "fuzz_stray.c"), "w") as fh:
        fh.write("int fuzz_stray(void);\n")
    # The unit tests mirror src/: none loose in tests/, none of a module in another folder's.
    for stray in ("tests/test_loose.c", "tests/base/test_cookie.c", "tests/nowhere/test_x.c"):
        os.makedirs(os.path.dirname(os.path.join(where, stray)), exist_ok=True)
        with open(os.path.join(where, stray), "w") as fh:
            fh.write("int main(void);\n")
    bites(where, [
        ("a header included only inside its folder, unmarked",
         "src/compare/alike.h is included only inside src/compare/"),
        ("a private header included by another folder", "src/run/observed.c:"),
        ("a private header included by another folder", 'includes http3.h, private to src/client'),
        ("a public header including a private one", "src/client/engine.h is not private but includes client.h"),
        ("a mark naming another folder", "src/options/opt_int.h says it is private to src/base/"),
        ("a test reading a private header through a fuzz/ header",
         "fuzz/serve_h3_offline.h:10 includes serve_h3_int.h, private to src/serve (tests/base/test_units.c is not"),
        ("an include nowhere", "tests/base/test_units.c:"),
        ("an include nowhere", "includes nowhere.h, which is nowhere the compiler looks"),
        ("a test, not of serve, reading serve's private header",
         "includes serve_int.h, private to src/serve (tests/base/test_text.c is not a white-box test"),
        ("a fuzz harness, not of serve, reading serve's private header",
         "includes serve_int.h, private to src/serve (fuzz/fuzz_cookie.c is not a white-box test"),
        ("bench/floor.c reading src/, which its rule does not let it see",
         "includes serve.h of src/serve, which bench/floor.c does not see (make build/floor: -Isrc/base)"),
        ("an include by a path around INC_*",
         "includes ../serve/serve.h of src/serve, which src/report does not see (INC_report)"),
        ("a fuzz harness no rule compiles", "fuzz/fuzz_stray.c is compiled by no rule of the Makefile"),
        ("a unit test loose in tests/", "tests/test_loose.c is not tests/FOLDER/test_NAME.c"),
        ("a unit test under a folder src/ has not", "tests/nowhere/test_x.c is not tests/FOLDER/test_NAME.c"),
        ("a unit test of a module of another folder",
         "tests/base/test_cookie.c tests a module of src/client: it belongs in tests/client/"),
        ("a file of src/ reading one outside it", "includes tests/t.h, which is no file of src/"),
    ])


@test
def layout_symbols_against_inc():
    """make layout compares the folder graph of the objects' symbols (nm on build/asan) with the Makefile's INC_*
    lines: an object of src/base calling the engine (declared by hand, so no include shows it) fails; a folder
    INC_* lets one see that nothing includes or calls is said, and passes."""
    if not ready():
        return
    where = layout_tree("planted")
    src = os.path.join(TMP, "planted.c")
    with open(src, "w") as fh:
        fh.write("int engine_run(void);\nint planted(void);\nint planted(void) { return engine_run(); }\n")
    obj = os.path.join(where, "build", "asan", "base", "planted.o")
    cc = subprocess.run(["cc", "-c", "-o", obj, src], capture_output=True, text=True)
    check(cc.returncode == 0, "a fake object is compiled (%s)" % cc.stderr)
    bites(where, [("an object using a folder its INC_* line does not see",
                   "build/asan/base/planted.o uses engine_run of src/client (client/engine.o), which src/base may "
                   "not see (INC_base)")])
    where = layout_tree("unused")
    plant(where, "Makefile", "INC_serve  = -Isrc/base -Isrc/serve", "INC_serve  = -Isrc/base -Isrc/observe -Isrc/serve")
    rc, out = layout(where)
    check(rc == 0 and "layout: said: src/serve may see src/observe (INC_serve), but none of its files includes it "
          "nor calls it" in out, "layout: an INC_* edge nothing uses is said, not failed (%d: %s)" % (rc, out[-800:]))


@test
def layout_maps_current():
    """make layout checks the maps against the tree: README's Layout section names every file of src/ under its
    folder (before, http3_write and rxstamp were missing) and no file that is gone, and its graph every folder in an
    order INC_* keeps; the Makefile's layering comment too (before, it left run/ out); src/client/client.h's file map
    every file of src/client/."""
    if not ready():
        return
    where = layout_tree("planted")
    with open(os.path.join(where, "src", "client", "planted.c"), "w") as fh:
        fh.write("int planted(void);\n")
    plant(where, "README.md", "| `rxstamp.c`, `rxstamp.h` |", "| `rxstamp.h`, `gone.c` |")
    plant(where, "README.md", "src/cli → src/compare → src/run → src/report", "src/cli → src/compare → src/report")
    plant(where, "README.md", "    src/run → src/client → src/result", "    src/compare → src/client → src/result")
    plant(where, "README.md", "    src/cli, src/options → src/serve → src/base", "    src/serve → src/options → src/base")
    plant(where, "Makefile", "#   base <- serve, observe, options <- result <- client, report <- run <- compare <- cli",
          "#   base <- serve, observe, options <- result <- client, run <- report <- compare <- cli")
    plant(where, "Makefile", "# merge), run/ (one observed run:", "# merge), (one observed run:")
    bites(where, [
        ("a file of src/ missing from README's table", "README's Layout table does not name src/base/rxstamp.c"),
        ("a new file missing from README's table", "README's Layout table does not name src/client/planted.c"),
        ("a file gone named in README's table", "README's Layout table names src/base/gone.c, which is gone"),
        ("a folder missing from README's graph", "README's Layout graph names src/run nowhere"),
        ("README's graph drawn backwards", "has src/serve use src/options, which src/options sees (INC_options)"),
        ("the Makefile's chain out of order", "the Makefile's layering chain puts src/run below src/report"),
        ("the Makefile's comment not saying what a folder is",
         "the Makefile's layering comment does not say what run/ is"),
        ("a file of src/client/ missing from client.h's map", "src/client/client.h's file map does not name planted.c"),
    ])
