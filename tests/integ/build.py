"""Integration tests: make itself, on the machines users have: a fresh machine's first `make demo` and `make test`
(the packages come with the deps step), make install, the man page against the option table."""
from common import *  # noqa: F401,F403 (the runner sets RAFALE first)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def make_env(extra_path=None):
    """The environment of a make of our own: none of the outer make's (its jobserver, its variables); extra_path
    before PATH."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEFILES")}
    if extra_path:
        env["PATH"] = extra_path + ":" + env.get("PATH", "/usr/bin:/bin")
    return env


def write(path, text, mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        fh.write(text)
    os.chmod(path, mode)


# A tree with the real Makefile and the least it builds from (a file where it names one, http3 files that call
# what only the HTTP/3 build has), so that a make of it takes seconds. The stand-ins: scripts/deps.sh "installs" the
# HTTP/3 libraries (a file), slowly, and fails as apt-get does on its lock when another deps step runs; pkg-config
# finds them only once it has; cc and clang log each call after the deps step; demo.sh and tests/run.sh run what
# was built.
FIRST_CONTACT_TREE = {
    "src/cli/main.c": """#include <stdio.h>
#ifdef RAFALE_HTTP3
#include <ngtcp2/ngtcp2.h>
int http3_client(void);
#endif
int main(void)
{
#ifdef RAFALE_HTTP3
    printf("built with HTTP/3 (%d)\\n", http3_client());
#else
    printf("built without HTTP/3\\n");
#endif
    return 0;
}
""",
    "src/client/http3.c": """#include <ngtcp2/ngtcp2.h>
#include <nghttp3/nghttp3.h>
int http3_client(void);
int http3_client(void) { return ngtcp2_version(0) != NULL && nghttp3_version(0) != NULL; }
""",
    "src/base/http_lex.h": "",
    "src/base/http_parse.h": "int http_parse(int x);\n",
    "src/base/http_parse.c": '#include "http_parse.h"\n#include "http_lex.h"\nint http_parse(int x) { return x; }\n',
    "src/serve/http_req.h": "int http_req(int x);\n",
    "src/serve/http_req.c": '#include "http_req.h"\nint http_req(int x) { return x; }\n',
    "tests/t.h": "#include <stdio.h>\n",
    "tests/base/test_http_parse.c": '#include "../t.h"\n#include "http_parse.h"\n'
                                    'int main(void) { printf("test_http_parse: 1 passed, %d failed\\n", '
                                    'http_parse(0)); }\n',
    "tests/serve/test_http_req.c": '#include "../t.h"\n#include "http_req.h"\n'
                                   'int main(void) { printf("test_http_req: 1 passed, %d failed\\n", http_req(0)); }\n',
    "tests/client/test_http3_frames.c": '#include "../t.h"\nint http3_client(void);\n'
                                        'int main(void) { printf("test_http3_frames: 1 passed, %d failed\\n", '
                                        '!http3_client()); }\n',
    "src/base/accesslog.h": "int accesslog(int x);\n",
    "src/base/accesslog.c": '#include "accesslog.h"\nint accesslog(int x) { return x; }\n',
    "tests/base/test_accesslog.c": '#include "../t.h"\n#include "accesslog.h"\n'
                                   'int main(void) { printf("test_accesslog: 1 passed, %d failed\\n", accesslog(0)); }\n',
}


def first_contact_tree(where, state, bins):
    os.makedirs(where)
    shutil.copy(os.path.join(ROOT, "Makefile"), where)
    for path, text in FIRST_CONTACT_TREE.items():
        write(os.path.join(where, path), text)
    write(os.path.join(where, "scripts", "deps.sh"), """#!/bin/sh
# The deps step's stand-in: the HTTP/3 libraries appear when it is done.
if ! mkdir %(s)s/running 2>/dev/null; then
    echo "E: Could not get lock /var/lib/apt/lists/lock (another deps step is running)" >&2
    echo overlap >> %(s)s/log
    exit 100
fi
echo "deps start $*" >> %(s)s/log
sleep 0.5
touch %(s)s/installed
echo "deps end" >> %(s)s/log
rmdir %(s)s/running
""" % {"s": state}, 0o755)
    write(os.path.join(where, "scripts", "demo.sh"), "#!/bin/sh\ncd \"$(dirname \"$0\")/..\" && ./rafale\n", 0o755)
    write(os.path.join(where, "tests", "run.sh"), """#!/bin/sh
cd "$(dirname "$0")/.." || exit 1
for t in build/tests/*/test_* build/asan/tests/*/test_* build/int/test_*; do "$t" || exit 1; done
""", 0o755)
    if not os.path.exists(bins):
        os.makedirs(bins)
        real = shutil.which("pkg-config")
        write(os.path.join(bins, "pkg-config"), """#!/bin/sh
# The HTTP/3 libraries are missing until the deps step has run.
case " $* " in *" libngtcp2 "*|*" libnghttp3 "*) [ -e "$FIRST_STATE/installed" ] || exit 1 ;; esac
exec %s "$@"
""" % real, 0o755)
        for cc in ("cc", "clang"):
            write(os.path.join(bins, cc), """#!/bin/sh
echo "%s $*" >> "$FIRST_STATE/log"
[ -e "$FIRST_STATE/installed" ] || echo "compiled before the deps step" >> "$FIRST_STATE/log"
exec %s "$@"
""" % (cc, shutil.which(cc)), 0o755)


@test
def make_first_contact():
    """On a machine without the packages `make deps` installs, the README's `make demo` and `make test` work the
    first time, plain and under -j: the deps step runs before the Makefile chooses its sources (HTTP/3 when
    pkg-config finds its libraries), once at a time. Before: the link wanted build/client/http3.o, which nobody
    had built, and under -j the deps target and build/.deps each ran scripts/deps.sh, at once."""
    if SANITIZED:
        print("  (make is run once, not once per build)")
        return
    if not (shutil.which("pkg-config") and shutil.which("clang") and shutil.which("mpicc") and
            subprocess.run(["pkg-config", "--exists", "libngtcp2", "libngtcp2_crypto_gnutls", "libnghttp3"]).returncode
            == 0):
        check(False, "pkg-config, clang, mpicc and the HTTP/3 libraries are installed (make deps installs them)")
        return
    bins = os.path.join(TMP, "bin")
    # A dry run installs nothing: it says what it would do.
    state = os.path.join(TMP, "state-n")
    os.makedirs(state)
    first_contact_tree(os.path.join(TMP, "tree-n"), state, bins)
    env = make_env(bins)
    env["FIRST_STATE"] = state
    p = subprocess.run(["make", "-n", "-j2", "demo"], cwd=os.path.join(TMP, "tree-n"), env=env, capture_output=True,
                       text=True, timeout=60)
    check(p.returncode == 0 and "scripts/deps.sh" in p.stdout and not os.path.exists(os.path.join(state, "log")),
          "make -n demo on a fresh machine runs nothing, the deps step neither (%s)" % p.stderr[-300:])
    for n, goal in enumerate([["demo"], ["-j2", "demo"], ["test"], ["-j3", "test"]]):
        where = os.path.join(TMP, "tree%d" % n)
        state = os.path.join(TMP, "state%d" % n)
        os.makedirs(state)
        first_contact_tree(where, state, bins)
        env = make_env(bins)
        env["FIRST_STATE"] = state
        p = subprocess.run(["make"] + goal, cwd=where, env=env, capture_output=True, text=True, timeout=300)
        log = open(os.path.join(state, "log")).read().splitlines() if os.path.exists(os.path.join(state, "log")) \
            else []
        what = "make %s on a fresh machine" % " ".join(goal)
        check(p.returncode == 0, "%s: works the first time (exit %d: %s)" % (what, p.returncode, p.stderr[-600:]))
        check("overlap" not in log and "compiled before the deps step" not in log and
              log[:2] == ["deps start ", "deps end"],
              "%s: one deps step at a time, before anything compiles (%s)" % (what, log[:6]))
        if goal[-1] == "demo":
            check("built with HTTP/3 (1)" in p.stdout,
                  "%s: rafale built with the HTTP/3 the deps step brought (%s)" % (what, p.stdout[-300:]))
        else:
            check("test_http3_frames: 1 passed, 0 failed" in p.stdout and "test_http_req: 1 passed" in p.stdout,
                  "%s: the unit tests of HTTP/3 built and run (%s)" % (what, p.stdout[-300:]))
        # Again: nothing left to build, and the deps step is not run by every make.
        p = subprocess.run(["make", "rafale"], cwd=where, env=env, capture_output=True, text=True, timeout=300)
        log2 = open(os.path.join(state, "log")).read().splitlines()
        check(p.returncode == 0 and "is up to date" in p.stdout and len(log2) == len(log),
              "%s: then make rafale has nothing to do (%s %s)" % (what, p.stdout[-200:], log2[len(log):]))


@test
def make_install_into_destdir():
    """make install puts rafale, its man page and the bash, zsh and fish completions under DESTDIR and PREFIX, each
    where its shell looks (zsh's vendor-completions for /usr, as Debian's zsh has it); before, no completion."""
    if SANITIZED:
        print("  (the plain build is installed: checked once)")
        return
    # A tree of what install takes: the Makefile, the binary (no source: it is not built again), the man page, a
    # deps step that says if it ran (it must not: build/.deps is newer).
    where = os.path.join(TMP, "tree")
    os.makedirs(os.path.join(where, "build"))
    for f in ("Makefile", "rafale.1"):
        shutil.copy(os.path.join(ROOT, f), where)
    shutil.copy(RAFALE, os.path.join(where, "rafale"))
    write(os.path.join(where, "scripts", "deps.sh"), "#!/bin/sh\necho the deps step ran >&2\nexit 1\n", 0o755)
    open(os.path.join(where, "build", ".deps"), "w").close()
    want = {shell: subprocess.run([RAFALE, "completion", shell], capture_output=True, text=True).stdout
            for shell in ("bash", "zsh", "fish")}
    for prefix, zdir in (("/usr/local", "site-functions"), ("/usr", "vendor-completions"), ("/opt/rf", "site-functions")):
        dest = os.path.join(TMP, "dest" + prefix.replace("/", "_"))
        p = subprocess.run(["make", "install", "DESTDIR=" + dest, "PREFIX=" + prefix], cwd=where,
                           env=make_env(), capture_output=True, text=True, timeout=120)
        check(p.returncode == 0, "make install PREFIX=%s: works (%s)" % (prefix, p.stderr[-300:]))
        root = dest + prefix
        files = {"bin/rafale": None, "share/man/man1/rafale.1": open(os.path.join(ROOT, "rafale.1")).read(),
                 "share/bash-completion/completions/rafale": want["bash"],
                 "share/zsh/%s/_rafale" % zdir: want["zsh"],
                 "share/fish/vendor_completions.d/rafale.fish": want["fish"]}
        found = sorted(os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(dest) for f in fs)
        check(found == sorted(files), "make install PREFIX=%s: these files, under DESTDIR (%s)" % (prefix, found))
        for f, text in files.items():
            path = os.path.join(root, f)
            if not os.path.exists(path):
                continue
            mode = os.stat(path).st_mode & 0o777
            if text is None:
                v = subprocess.run([path, "--version"], capture_output=True, text=True)
                check(mode == 0o755 and v.returncode == 0 and v.stdout.startswith("rafale "),
                      "make install: %s runs (%o, %r)" % (f, mode, v.stdout))
            else:
                check(mode == 0o644 and open(path).read() == text and text,
                      "make install: %s, as rafale writes it (%o)" % (f, mode))


def man_check(page):
    return subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "man.py"), "--check", RAFALE, page],
                          capture_output=True, text=True, timeout=60)


@test
def man_page_options_are_the_tables():
    """rafale.1's option lists are the option table's (rafale --man-options; make man writes them in): every option
    of the run and of each subcommand, with its short name and placeholder, and none the table lacks; a page that
    drops, adds or renames one fails the check. Its SYNOPSIS names every subcommand and its DESCRIPTION the three
    protocols; groff reads it without a warning. Before, compare's --discard, --max-repeat, --same-within and serve's
    --redirect-to were missing, and sweep, compare, report and completion from the SYNOPSIS."""
    page = os.path.join(ROOT, "rafale.1")
    p = man_check(page)
    check(p.returncode == 0, "man page: its option lists are the table's (%s)" % (p.stdout[-1500:] + p.stderr[-300:]))
    text = open(page).read()
    # The check is not blind: an option dropped, one the table does not have, a heading changed.
    entry = "\n.TP\n\\fB\\-\\-discard\\fR \\fIN\\fR\n"
    bogus = "\n.TP\n\\fB\\-\\-bogus\\fR\nNo such option.\n"
    at = text.find(entry)
    body_end = text.find("\n.TP", at + len(entry)) if at >= 0 else -1
    check(at >= 0 and body_end > at, "man page: compare's --discard is there")
    for what, broken in (("--discard dropped", text[:at] + text[body_end:]),
                         ("--bogus added", text[:at] + bogus + text[at:]),
                         ("-t of serve lost", text.replace("\\fB\\-t\\fR, \\fB\\-\\-threads\\fR \\fIN\\fR\nThreads, each",
                                                         "\\fB\\-\\-threads\\fR \\fIN\\fR\nThreads, each"))):
        if at < 0 or broken == text:
            check(False, "man page: %s could not be made" % what)
            continue
        path = os.path.join(TMP, "broken.1")
        with open(path, "w") as fh:
            fh.write(broken)
        p = man_check(path)
        check(p.returncode == 1 and "make man" in p.stdout, "man page: the check fails with %s (%s)" % (what, p.stdout[-300:]))
        # make man writes the table's lists in: the check then passes, the text under each heading kept.
        w = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "man.py"), RAFALE, path], capture_output=True,
                           text=True, timeout=60)
        check(w.returncode == 0 and open(path).read() == (text if what != "--discard dropped" else
                                                          text.replace(text[at:body_end], entry.rstrip("\n") +
                                                                       "\nLeave the first N rounds out of the figures, "
                                                                       "as warm-up (default 0).")),
              "man page: make man mends the page with %s (%s)" % (what, w.stderr[-300:]))
    synopsis = text.split("\n.SH SYNOPSIS\n", 1)[-1].split("\n.SH ", 1)[0]
    usage = subprocess.run([RAFALE, "--help"], capture_output=True, text=True).stdout
    subs = re.findall(r"^(?:Usage:| ) +rafale ([a-z]+) ", usage.split("\n\n")[0], re.M)  # the usage lines
    check(len(subs) >= 8 and all(".B rafale %s\n" % s in synopsis for s in subs),
          "man page: the SYNOPSIS names every subcommand (%s)" % [s for s in subs if ".B rafale %s\n" % s not in synopsis])
    desc = text.split("\n.SH DESCRIPTION\n", 1)[-1].split("\n.SH ", 1)[0]
    check("HTTP/1.1" in desc and "HTTP/2" in desc and "HTTP/3" in desc and "sends HTTP/1.1 requests" not in desc,
          "man page: the DESCRIPTION names the three protocols")
    if shutil.which("groff"):
        g = subprocess.run(["groff", "-man", "-ww", "-z", page], capture_output=True, text=True, timeout=60)
        check(g.returncode == 0 and g.stderr == "", "man page: groff reads it without a warning (%s)" % g.stderr[:300])


@test
def free_port_given_once_at_a_time():
    """Two test processes that draw the same random numbers get different ports while both run, and a port comes
    back once the process given it has ended. Two tests of the pool once drew the same port: compare found it held by
    the other test's rafale --metrics-listen and stopped, as it should."""
    import common as harness
    seed = int.from_bytes(os.urandom(4), "little")
    real, locks, given = os.urandom, harness.PORT_LOCKS, harness.PORTS_GIVEN

    def draws():
        k = [0]

        def draw(n):
            k[0] += 1
            return ((seed + 7919 * k[0]) % 2 ** 32).to_bytes(4, "little")
        return draw

    def in_child():
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(r)
                os.write(w, str(free_port()).encode())
            finally:
                os._exit(0)
        os.close(w)
        with os.fdopen(r) as fh:
            out = fh.read()
        os.waitpid(pid, 0)
        return int(out) if out else None

    harness.PORT_LOCKS, harness.PORTS_GIVEN = os.path.join(TMP, "port-locks"), {}  # the pool's own locks aside
    try:
        os.urandom = draws()
        mine = free_port()
        os.urandom = draws()
        other = in_child()
        check(other is not None and other != mine, "the same draws in another process, while this one holds %d: %s"
              % (mine, other))
        os.urandom = draws()
        again = free_port()
        check(again == other, "after that process ended, its port %s comes back to the same draws (mine %d held): %d"
              % (other, mine, again))
    finally:
        os.urandom, harness.PORT_LOCKS, harness.PORTS_GIVEN = real, locks, given
