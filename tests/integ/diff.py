"""Integration tests: rafale diff: two runs compared, a regression gate."""
from common import *  # noqa: F401,F403 (the runner sets RAFALE first)


@test
@alone
def diff_is_a_regression_gate():
    """rafale diff decides from each run's own interval (issue 41): 2-s runs are enough. The four runs at once
    (their answers wait on serve's timers, not on a CPU)."""
    srv = Serve()
    runs, procs = {}, []
    for name, path, extra in (("a", "/delay/5", []), ("b", "/delay/5", []), ("slow", "/delay/15", []),
                              ("other", "/delay/5", ["-c", 32])):
        runs[name] = os.path.join(TMP, "diff-%s.json" % name)
        cmd = [RAFALE, "-q", "-c", "16", "-d", "2s"] + [str(x) for x in extra] + ["--json", runs[name], srv.url(path)]
        procs.append(subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))
    for p in procs:
        err = p.communicate(timeout=RUN_TIMEOUT)[1]
        check(p.returncode == 0 and "Sanitizer" not in err, "diff: a run to compare (%s)" % err[-300:])
    srv.stop()

    def diff(*args):
        return subprocess.run([RAFALE, "diff"] + [str(a) for a in args], capture_output=True, text=True, timeout=60)

    def figures(*args):
        jout = os.path.join(TMP, "diff-figures.json")
        p = diff("--json", jout, *args)
        with open(jout) as fh:
            return p, {x["figure"]: x for x in json.load(fh)["diff"]["figures"]}

    p = diff(runs["a"], runs["b"])
    check(p.returncode == 0 and "Verdict: no figure got significantly worse" in p.stdout,
          "diff: two runs of one server, no change, exit 0 (%d)\n%s" % (p.returncode, p.stdout))
    # The threshold is the rule the verdicts follow, said as a legend, not on the header line where it read as a result.
    check(p.stdout.splitlines()[0] == "rafale diff: %s -> %s" % (runs["a"], runs["b"]) and
          "the rule: a figure is same when its whole 95% interval lies within 5.0% either way" in p.stdout,
          "diff: the threshold as a legend (%s)" % p.stdout[:600])
    # A run against itself: the same samples, same on every figure (it was undecided: "too few samples").
    p, figs = figures(runs["a"], runs["a"])
    check(p.returncode == 0 and all(x["verdict"] == "same" for x in figs.values()) and len(figs) == 5,
          "diff: a run against itself is the same on every figure (%s)" % figs)
    # /delay/5 against /delay/15: slower from the runs' own intervals, exit 3; the other way, faster, exit 0.
    hout = os.path.join(TMP, "diff.html")
    p, figs = figures("--html", hout, runs["a"], runs["slow"])
    check(p.returncode == 3, "diff: /delay/5 against /delay/15 is worse, exit 3 (%d)\n%s" % (p.returncode, p.stdout))
    # (How much slower depends on the machine's own delay beside the server's timers: the verdicts are checked.)
    check(figs["rps"]["verdict"] == "slower" and figs["rps"]["ratio_ci"][0] <= figs["rps"]["ratio"] <=
          figs["rps"]["ratio_ci"][1] and figs["rps"]["ratio"] < 0.7, "diff: throughput down, within its interval (%s)"
          % figs["rps"])
    check(figs["p50_us"]["verdict"] == "slower" and figs["p50_us"]["ratio"] > 1.5, "diff: p50 up (%s)" % figs["p50_us"])
    # p99 of 2-s runs rests on some 50 answers past it: a loaded machine, whose slow stretches correlate the
    # answers, can leave a run's p99 unbounded on a side, and then undecided is the honest verdict; never faster
    # or same.
    def p99_open(name):
        with open(runs[name]) as fh:
            return None in json.load(fh)["latency"]["percentiles_ci_us"]["99"]
    check(figs["p99_us"]["verdict"] == "slower" or
          (figs["p99_us"]["verdict"] == "undecided" and (p99_open("a") or p99_open("slow"))),
          "diff: p99 slower, or undecided with a run's p99 unbounded (%s)" % figs["p99_us"])
    p, back = figures(runs["slow"], runs["a"])
    check(p.returncode == 0 and back["p50_us"]["verdict"] == "faster" and back["rps"]["verdict"] == "faster",
          "diff: /delay/15 against /delay/5 is faster, exit 0 (%s)" % back)
    with open(hout) as fh:
        page = fh.read()
    check("<table>" in page and "slower" in page and "the rule: a figure is same when" in page and
          "(same: the whole" not in page, "diff: the HTML page, the threshold as a legend")
    # The whole interval must lie within the threshold: set above the widest bounded interval this run measured,
    # every figure bounded on both sides is the same; one the runs left open on a side cannot be (it may be slower).
    widest = max(max(abs(x["ratio_ci"][0] - 1), abs(x["ratio_ci"][1] - 1)) for x in figs.values()
                 if x.get("ratio_ci") and None not in x["ratio_ci"])
    thr = max(300, int(widest * 100) + 20)
    p, wide = figures("--threshold", "%d%%" % thr, runs["a"], runs["slow"])
    bounded = [x for x in wide.values() if x.get("ratio_ci") and None not in x["ratio_ci"]]
    check(bounded and all(x["verdict"] == "same" for x in bounded) and "within the threshold" in p.stdout and
          p.returncode == (3 if any(x["verdict"] == "slower" for x in wide.values()) else 0),
          "diff: a threshold above the change (%d%%) lets it pass\n%s" % (thr, p.stdout))
    # Results saved before intervals, of two seconds: no interval, undecided, said, and not a regression (exit 0).
    short = {}
    for name in ("a", "slow"):
        with open(runs[name]) as fh:
            j = json.load(fh)
        j["timeline"] = j["timeline"][:2]
        for k in ("intervals",):
            j.pop(k, None)
        j["summary"].pop("rps_ci", None)
        j["latency"].pop("mean_ci_us", None)
        j["latency"].pop("percentiles_ci_us", None)
        short[name] = os.path.join(TMP, "diff-short-%s.json" % name)
        with open(short[name], "w") as fh:
            json.dump(j, fh)
    p = diff(short["a"], short["slow"])
    check(p.returncode == 0 and "Undecided (the samples cannot tell; not counted as worse): req/s, mean, p50, p90, p99"
          in p.stdout and "too few samples" in p.stdout, "diff: too few seconds is undecided, exit 0 (%d)\n%s"
          % (p.returncode, p.stdout))
    for args, rc, words in (([runs["a"], runs["other"]], 2, "their 'connections' differ"),
                            ([runs["a"]], 2, "give two results"),
                            ([runs["a"], os.path.join(TMP, "nope.json")], 1, "nope.json"),
                            ([runs["a"], os.path.abspath(__file__)], 1, "diff.py"),
                            (["--threshold", "lots", runs["a"], runs["b"]], 2, "--threshold wants a percentage")):
        p = diff(*args)
        check(p.returncode == rc and words in p.stderr and len(p.stderr.strip().splitlines()) == 1,
              "diff %s: one line, exit %d (%d: %r)" % (words, rc, p.returncode, p.stderr))
