"""Integration tests: rafale calibrate: this machine's reference, and its cache."""
from common import *  # noqa: F401,F403 (the runner sets RAFALE first)


@test
def calibrate_is_this_machines_reference():
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(TMP, "xdg"))
    stored = os.path.join(TMP, "xdg", "rafale", "calibration.json")
    if os.path.exists(stored):
        os.unlink(stored)

    def run(*args, timeout=120):
        return subprocess.run([RAFALE] + [str(a) for a in args], capture_output=True, text=True, timeout=timeout,
                              env=env)

    out = os.path.join(TMP, "cal.json")
    p = run("calibrate", "--json", out)
    check(p.returncode == 0 and "Kept in " + stored in p.stdout and os.path.exists(stored),
          "calibrate: measured and kept (%d %s)" % (p.returncode, p.stderr[-300:]))
    with open(stored) as fh:
        ref = json.load(fh)["calibration"]
    check(json.load(open(out))["calibration"] == ref, "calibrate: --json writes the same")
    # Three rounds of 2 s: 3 run lines, a median inside its interval, this machine's environment.
    runs = [l for l in p.stdout.splitlines() if l.startswith("  run ") and "rafale-serve" in l]
    check(len(runs) == 3 and ref["rps"] > 0 and ref["rps_ci"][0] <= ref["rps"] <= ref["rps_ci"][1] and
          0 < ref["p50_us"] <= ref["p99_us"], "calibrate: 3 rounds, median and interval (%s)" % ref)
    u = os.uname()
    check(ref["environment"]["kernel"] == "%s %s %s" % (u.sysname, u.release, u.machine) and
          ref["environment"]["cpus_online"] == os.cpu_count() and
          ref["workload"] == "GET /, 16 connections, keep-alive, 3 rounds of 2s after 500ms of warm-up",
          "calibrate: the machine and the workload")
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) >= 2:
        nc = max(1, len(cpus) // 4)
        check(ref["pin"].startswith("rafale serve on CPU %d" % cpus[0]) and
              ref["pin"].endswith("rafale on CPU %s" % ",".join(map(str, cpus[-nc:]))),
              "calibrate: pinned as compare pins (%s)" % ref["pin"])
    check("Reference     this machine's: rafale serve at %.0f req/s" % ref["rps"] in p.stdout and
          "a reference, not a conversion" in p.stdout, "calibrate: the text says it")
    # A run with --calibrate yes carries the stored one, not measured again.
    srv = Serve()
    j1 = os.path.join(TMP, "calrun.json")
    p = run("-n", 300, "-c", 2, "--calibrate", "yes", "--json", j1, srv.url())
    check(p.returncode == 0 and "this machine's reference from " + stored in p.stderr and "measuring" not in p.stderr,
          "calibrate: a run takes the stored reference (%s)" % p.stderr[-300:])
    r1 = json.load(open(j1))
    check(r1["calibration"] == ref and r1["summary"]["requests"] == 300, "calibrate: in the run's JSON, as stored")
    check(os.sched_getaffinity(0) == set(cpus), "calibrate: the tests' own affinity untouched")
    rep = run("report", j1)
    check(rep.returncode == 0 and "Reference     this machine's: rafale serve at %.0f req/s" % ref["rps"] in rep.stdout,
          "calibrate: rafale report shows it")
    # A reference from another machine is not this one's: measured again, and kept.
    other = json.loads(json.dumps(ref))
    other["environment"]["cpu_model"] = "Elsewhere 9000"
    other["environment"]["cpus_online"] = 64
    with open(stored, "w") as fh:
        json.dump({"tool": "rafale", "calibration": other}, fh)
    j2 = os.path.join(TMP, "calrun2.json")
    p = run("-n", 300, "-c", 2, "--calibrate", "yes", "--json", j2, srv.url())
    srv.stop()
    r2 = json.load(open(j2))
    check(p.returncode == 0 and "measuring this machine's reference first" in p.stderr and
          r2["calibration"]["environment"]["cpus_online"] == os.cpu_count() and
          json.load(open(stored))["calibration"]["environment"]["cpus_online"] == os.cpu_count(),
          "calibrate: another machine's reference is measured again here (%s)" % p.stderr[-300:])
    check(r2["summary"]["requests"] == 300 and r2["summary"]["errors"] == 0, "calibrate: the run itself as asked")
    # Results from two machines side by side: each with its reference, and the caveat.
    far = json.load(open(j1))
    far["environment"]["cpu_model"] = "Elsewhere 9000"
    far["environment"]["cpus_online"] = 64
    del far["calibration"]
    j3 = os.path.join(TMP, "far.json")
    with open(j3, "w") as fh:
        json.dump(far, fh)
    rep = run("report", j1, j3)
    check(rep.returncode == 0 and "These results come from 2 machines" in rep.stdout and
          "a reference, not a conversion" in rep.stdout and
          "%s: %s, %d CPU" % (j1, r1["environment"]["cpu_model"] or "CPU unknown", os.cpu_count()) in rep.stdout and
          "rafale serve at %.0f req/s" % ref["rps"] in rep.stdout and
          "%s: Elsewhere 9000, 64 CPUs" % j3 in rep.stdout and "no reference (run it with --calibrate yes)" in rep.stdout,
          "calibrate: two machines side by side (%s)" % rep.stdout[:600])
    rep = run("report", j1, j2)
    check(rep.returncode == 0 and "machines" not in rep.stdout, "calibrate: one machine, no such block")
    # compare: calibrate = yes in [settings], once for the whole compare, in its JSON and read back.
    port = free_port()
    plan = os.path.join(TMP, "cal.plan")
    with open(plan, "w") as fh:
        fh.write("[settings]\ncalibrate = yes\nrepeat = 1\nwarmup = 0s\nrequests = 200\nconnections = 2\n\n"
                 "[server s]\nstart = exec %s serve --listen 127.0.0.1:%d -t 1\nurl = http://127.0.0.1:%d\n\n"
                 "[workload w]\npath = /\n" % (RAFALE, port, port))
    cj = os.path.join(TMP, "cal-compare.json")
    p = run("compare", plan, "--json", cj)
    now = json.load(open(stored))["calibration"]
    check(p.returncode == 0 and p.stdout.count("this machine's reference from") == 1 and
          json.load(open(cj))["compare"]["calibration"] == now and "Reference     this machine's" in p.stdout,
          "calibrate: compare carries it (%d %s)" % (p.returncode, p.stderr[-300:]))
    rep = run("report", cj)
    check(rep.returncode == 0 and "rafale serve at %.0f req/s" % now["rps"] in rep.stdout, "calibrate: and reads it back")
    # Bad input: one line each.
    for args, rc, words in ((["calibrate", "--colour"], 2, "unknown argument '--colour'"),
                            (["-n", 10, "--calibrate", "maybe", "http://127.0.0.1:1/"], 2, "--calibrate wants yes or no")):
        p = run(*args)
        check(p.returncode == rc and words in p.stderr and len(p.stderr.strip().splitlines()) == 1,
              "calibrate: %s (%d %r)" % (words, p.returncode, p.stderr))
    with open(stored, "w") as fh:
        fh.write("{not json")
    p = run("report", stored)
    check(p.returncode == 1 and len(p.stderr.strip().splitlines()) == 1, "calibrate: a broken store is one line")


@test
def calibration_cache_cannot_write_to_a_terminal():
    # A calibration cache whose workload and pin hold escape sequences (the file is anyone's to edit, as a saved
    # result is): --calibrate yes shows them through the same scrub as rafale report, never raw.
    srv = Serve()
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(TMP, "xdg-esc"))
    stored = os.path.join(TMP, "xdg-esc", "rafale", "calibration.json")
    os.makedirs(os.path.dirname(stored), exist_ok=True)
    here = rafale("-n", 5, "-c", 1, srv.url()).j["environment"]  # this machine's: the cache is taken as is
    ref = {"when_unix_s": 1700000000, "workload": "w\u001b]0;pwned\u0007", "pin": "p\u001b[31mred\u009b2J",
           "rps": 1000.0, "rps_ci": [900.0, 1100.0], "p50_us": 10.0, "p99_us": 20.0,
           "environment": here}
    with open(stored, "w") as fh:
        json.dump({"tool": "rafale", "calibration": ref}, fh)
    p = subprocess.run([RAFALE, "-n", "50", "-c", "1", "--calibrate", "yes", srv.url()], capture_output=True,
                       text=True, timeout=RUN_TIMEOUT, env=env)
    srv.stop()
    out = p.stdout + p.stderr
    check(p.returncode == 0 and "from " + stored in p.stderr and "w?]0;pwned?" in out and "p?[31mred?2J" in out and
          not any(c in out for c in "\x1b\x07\x9b"),
          "calibrate: the cache's strings reach the terminal scrubbed (%d, %r)" % (p.returncode, out[-600:]))
