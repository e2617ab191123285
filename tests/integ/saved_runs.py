"""Saved runs reported the same: the runs saved in tests/data/saved/ (made by make-runs.sh there) read back by
`rafale report`, `merge`, `diff`, each output kept in tests/data/saved/expected/ byte for byte. A change of the
code that should change no output (a refactor) must leave them all the same; a change meant to change an output
writes them again, on purpose, and the diff shows what changed:

    make saved-expected       (python3 tests/integ/saved_runs.py --write ./rafale, and the CSV and HdrHistogram
                               files of build/tests/report/test_saved_runs --write)

The test is saved_runs_report_the_same (tests/integ/report.py)."""
import gzip
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.normpath(os.path.join(HERE, "..", "data", "saved"))
EXPECTED = os.path.join(DATA, "expected")

# One run each: its HTML page on stdout, its text report on stderr.
SINGLE = ["ka", "close", "rate", "h2", "h3", "mon", "stages", "errs", "checks", "calibrated", "shard0", "base"]
# name -> rafale's arguments, run in tests/data/saved/.
CASES = dict([("report_%s" % n, ["report", "--html", "-", n + ".json"]) for n in SINGLE] + [
    ("report_text", ["report", "ka.json"]),
    ("merge_json", ["merge", "--json", "-", "shard0.json", "shard1.json"]),
    ("merge_html", ["merge", "--html", "-", "shard0.json", "shard1.json"]),
    ("diff_text", ["diff", "base.json", "slower.json"]),
    ("diff_json", ["diff", "--json", "-", "base.json", "slower.json"]),
    ("diff_html", ["diff", "--html", "-", "base.json", "slower.json"]),
    ("diff_compares", ["diff", "--json", "-", "compare.json", "compare.json"]),
    ("report_compare", ["report", "--html", "-", "compare.json"]),
    ("report_compare_text", ["report", "compare.json"]),
    ("side_machines", ["report", "calibrated.json", "other_machine.json", "close.json"]),
    ("side_html", ["report", "--html", "-", "base.json", "slower.json"]),
    ("not_same_workload", ["diff", "ka.json", "close.json"]),
])
# The same environment whatever the caller's: no local time, no locale.
ENV = dict(os.environ, TZ="UTC", LC_ALL="C")


def run(rafale, args):
    """(exit status, stdout, stderr) of rafale ARGS, in the data folder."""
    p = subprocess.run([os.path.abspath(rafale)] + args, cwd=DATA, capture_output=True, env=ENV, timeout=120)
    return p.returncode, p.stdout, p.stderr


def files(name, out):
    """The expected files of a case: its stdout (gzipped when an HTML page: they are large and alike), its stderr."""
    html = out.lstrip().startswith(b"<!DOCTYPE html") or out.lstrip().startswith(b"<html")
    return (os.path.join(EXPECTED, name + (".out.html.gz" if html else ".out")), os.path.join(EXPECTED, name + ".err"))


def read(path):
    if not os.path.exists(path):
        return None
    with open(path, "rb") as f:
        data = f.read()
    return gzip.decompress(data) if path.endswith(".gz") else data


def expected(name):
    """(status, stdout, stderr) expected of a case, None for what is not there."""
    status = None
    spath = os.path.join(EXPECTED, "status")
    if os.path.exists(spath):
        for line in open(spath):
            words = line.split()
            if len(words) == 2 and words[0] == name:
                status = int(words[1])
    out = read(os.path.join(EXPECTED, name + ".out"))
    if out is None:
        out = read(os.path.join(EXPECTED, name + ".out.html.gz"))
    err = read(os.path.join(EXPECTED, name + ".err"))
    return status, out, b"" if err is None else err


def first_difference(a, b):
    """Where two outputs part, in a line: its number and both versions."""
    la, lb = (a or b"").split(b"\n"), (b or b"").split(b"\n")
    for i in range(max(len(la), len(lb))):
        x = la[i] if i < len(la) else b"(ended)"
        y = lb[i] if i < len(lb) else b"(ended)"
        if x != y:
            return "line %d: expected %r, got %r" % (i + 1, x[:300], y[:300])
    return "the same"


def check_all(rafale):
    """The cases that differ, each with its first difference (an empty list: all the same)."""
    bad = []
    for name, args in sorted(CASES.items()):
        rc, out, err = run(rafale, args)
        want_rc, want_out, want_err = expected(name)
        if want_out is None:
            bad.append("%s: no expected output (make saved-expected)" % name)
        elif rc != want_rc:
            bad.append("%s (rafale %s): exit %d, expected %s" % (name, " ".join(args), rc, want_rc))
        elif out != want_out:
            bad.append("%s (rafale %s): stdout differs, %s" % (name, " ".join(args), first_difference(want_out, out)))
        elif err != want_err:
            bad.append("%s (rafale %s): stderr differs, %s" % (name, " ".join(args), first_difference(want_err, err)))
    return bad


def write_all(rafale):
    os.makedirs(EXPECTED, exist_ok=True)
    for f in os.listdir(EXPECTED):
        if f.endswith((".out", ".err", ".gz")) or f == "status":
            os.unlink(os.path.join(EXPECTED, f))
    status = []
    for name, args in sorted(CASES.items()):
        rc, out, err = run(rafale, args)
        opath, epath = files(name, out)
        with open(opath, "wb") as f:
            f.write(gzip.compress(out, mtime=0) if opath.endswith(".gz") else out)
        if err:
            with open(epath, "wb") as f:
                f.write(err)
        status.append("%s %d\n" % (name, rc))
    with open(os.path.join(EXPECTED, "status"), "w") as f:
        f.write("".join(status))


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("--write", "--check"):
        sys.exit("usage: saved_runs.py --write|--check RAFALE")
    if sys.argv[1] == "--write":
        write_all(sys.argv[2])
    else:
        diffs = check_all(sys.argv[2])
        print("\n".join(diffs) or "saved runs: all the same")
        sys.exit(1 if diffs else 0)
