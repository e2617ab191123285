"""Integration tests: every figure carries its own evidence (issue 41): intervals from a run's own samples, diff
and --precision deciding from them."""
from common import *  # noqa: F401,F403 (the runner sets RAFALE first)

PCTS = ("50", "75", "90", "95", "99", "99.9")


def holds(ci, v):
    """ci ([low, high], a side null when the run cannot bound it) holds v."""
    return ci is not None and (ci[0] is None or ci[0] <= v) and (ci[1] is None or v <= ci[1])


@test
def intervals_beside_every_figure():
    """Throughput, the mean and each reported percentile carry a 95% interval from the run's own batches: in the
    JSON beside the figure, in the text on their rows, on the HTML page as rows and whiskers, read back by rafale
    report; merged shards too."""
    srv = Serve()
    page = os.path.join(TMP, "iv.html")
    r = rafale("-c", 16, "-t", 1, "-d", "2s", "--html", page, srv.url("/delay/5"))
    j = r.j
    lat = j["latency"]
    check(j["intervals"]["batches"] >= 64 and j["intervals"]["level"] == 0.95 and
          abs(j["intervals"]["batches"] * j["intervals"]["batch_s"] - 2) < 0.1,
          "intervals: the run's batches cover its 2 s (%s)" % j.get("intervals"))
    check(holds(j["summary"]["rps_ci"], j["summary"]["rps"]) and None not in j["summary"]["rps_ci"],
          "intervals: req/s within its interval (%s %s)" % (j["summary"]["rps"], j["summary"]["rps_ci"]))
    check(holds(lat["mean_ci_us"], lat["mean_us"]) and None not in lat["mean_ci_us"],
          "intervals: the mean within its interval (%s %s)" % (lat["mean_us"], lat["mean_ci_us"]))
    # A percentile's interval lies on the run's own samples: p50 of /delay/5 is 5 ms and some, bounded both ways on
    # a steady run. Batches that swing together widen it, honestly: in a pool whose 2 CPUs were 1.87 busy, stretches
    # of answers at 5 ms and at 10.6 ms left p50's low side open ([None, 10649.6]). An open side is accepted when
    # rafale names what disturbed the run; the interval must still hold the figure.
    found = [f["id"] for f in j.get("findings", [])]
    disturbed = [i for i in found if i in ("noisy_neighbour", "client_delay", "not_steady")]
    lo, hi = lat["percentiles_ci_us"]["50"]
    check(all(holds(lat["percentiles_ci_us"][p], lat["percentiles_us"][p]) for p in PCTS) and
          (disturbed or None not in (lo, hi)), "intervals: each percentile within its interval (%s; findings %s)"
          % (lat["percentiles_ci_us"], found))
    check((lo is None and disturbed or lo is not None and 5000 <= lo <= lat["percentiles_us"]["50"]) and
          (hi is None and disturbed or hi is not None and lat["percentiles_us"]["50"] <= hi),
          "intervals: p50 of /delay/5 (%s %s %s)" % (lo, lat["percentiles_us"]["50"], hi))
    if disturbed and None in (lo, hi):
        print("  intervals: p50's interval open on one side, the run disturbed (%s)" % disturbed)
    rows = [l for l in r.out.splitlines() if l.startswith("  95% low") or l.startswith("  95% high")]
    check(len(rows) == 2 and re.search(r"Throughput    [0-9.]+ req/s \(95%: [0-9.]+-[0-9.]+\)", r.out),
          "intervals: the text's rows and throughput (%s)" % rows)
    # The page: the same rows, req/s with its interval, the figures' bars with their intervals as whiskers (one for
    # each figure bounded both ways).
    with open(page) as fh:
        html = fh.read()
    bounded = sum(1 for v in [lat["mean_ci_us"]] + [lat["percentiles_ci_us"][p] for p in PCTS] if None not in v)
    check("<td>95% low</td>" in html and "<td>95% high</td>" in html and
          re.search(r"[0-9.]+ \(95%: [0-9.]+\u2013[0-9.]+\)", html) and
          "Latency and its 95% intervals" in html and html.count('class="whisker"') == bounded,
          "intervals: the page's rows, req/s and %d whiskers (%d)" % (bounded, html.count('class="whisker"')))
    jp = os.path.join(TMP, "iv.json")
    shutil.copy(os.path.join(TMP, "out.json"), jp)
    p = subprocess.run([RAFALE, "report", jp], capture_output=True, text=True, timeout=60)
    check(p.returncode == 0 and [l for l in p.stdout.splitlines() if l.startswith("  95% ")] == rows,
          "intervals: read back, the same rows (%s)" % p.stdout[:400])
    # Shards merged: their intervals from the merged seconds (the batches are not saved).
    shards = [os.path.join(TMP, "sh%d.json" % i) for i in range(2)]
    procs = [subprocess.Popen([RAFALE, "-q", "-c", "4", "-t", "1", "-d", "8s", "--shard", "%d/2" % i, "--json", shards[i],
                               srv.url("/delay/5")], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
             for i in range(2)]
    for pr in procs:
        pr.communicate(timeout=RUN_TIMEOUT)
    srv.stop()
    merged = os.path.join(TMP, "merged.json")
    p = subprocess.run([RAFALE, "merge", "--json", merged] + shards, capture_output=True, text=True, timeout=60)
    with open(merged) as fh:
        m = json.load(fh)
    check(p.returncode == 0 and m["intervals"]["batch_s"] == 1 and m["intervals"]["batches"] >= 8 and
          holds(m["summary"]["rps_ci"], m["summary"]["rps"]) and
          holds(m["latency"]["percentiles_ci_us"]["50"], m["latency"]["percentiles_us"]["50"]),
          "intervals: merged shards, from their seconds (%s)" % m.get("intervals"))


@test
def precision_stops_when_reached():
    """--precision runs until the named figures' intervals are within the goal, then stops and says so; a goal not
    reached is said with how far each figure got; the JSON records goal and outcome."""
    srv = Serve()
    r = rafale("-c", 16, "-t", 1, "-d", "20s", "--precision", "p50:5%", srv.url("/delay/5"))
    p = r.j["precision"]
    # Stopped before its 20 s: at about 2 s on a quiet machine, at 10.3 s once beside a CPU-bound process (its
    # latencies spread by the other process's turns need more answers for the same width).
    check(r.rc == 0 and p["goal"] == {"p50": 0.05} and 1 <= p["stopped_at_s"] < 19 and r.j["summary"]["elapsed_s"] < 19
          and p["reached"] == (p["widths"]["p50"] <= 0.05),
          "precision: p50 within 5%%, stopped then (%s, %s s)" % (p, r.j["summary"]["elapsed_s"]))
    # Reached, as on a quiet machine; or met by the batches the watch judged and not by every answer, which a loaded
    # machine's last answers (a stall in the last tick) did once: 5.44% at the stop, said as such.
    said = (r"Precision     reached at [0-9.]+s, the run stopped there: p50 \+-[0-9.]+% \(goal 5%\)" if p["reached"] else
            r"Precision     met at [0-9.]+s by the answers then, the run stopped there; with every answer: p50 \+-")
    check(re.search(said, r.out), "precision: said in the text (%s)" % r.out[:500])
    # The watch judges the batches closed so far; the report takes every answer (the last partial tick's, those in
    # flight at the stop): reached only when those meet the goal too, else said as met at the stop. (A serve run
    # at --precision 5% read "reached at 7.8s" beside p99 +-5.7%.)
    r2 = rafale("-c", 16, "-t", 1, "-d", "10s", "--precision", "5%", srv.url("/delay/5"))
    p2 = r2.j["precision"]
    line = [l for l in r2.out.splitlines() if l.startswith("Precision ")]
    # A loaded machine may not meet it before the 10 s end: then the run goes on to it, and says "reached at the
    # end" when every answer meets the goal there (rps +-3.9% beside a CPU-bound process, where the last tick the
    # watch judged had not), else "not reached", the same rule.
    if p2["stopped_at_s"]:
        said = re.escape(("reached at %.1fs, the run stopped there:" if p2["reached"] else
                          "met at %.1fs by the answers then, the run stopped there; with every answer:")
                         % p2["stopped_at_s"])
    else:
        said = "%s in [0-9.]+s:" % ("reached at the end" if p2["reached"] else "not reached")
    check(r2.rc == 0 and line and
          p2["reached"] == all(w is not None and w <= 0.05 for w in p2["widths"].values()) and
          re.match("Precision     " + said, line[0]),
          "precision: reached only when the whole run's intervals meet it (%s, %s)" % (p2, line))
    # A goal the run cannot reach in its -d: it runs its length, says how far each figure got, exit 0.
    r = rafale("-c", 4, "-t", 1, "-d", "1500ms", "--precision", "p99.9:0.1%,rps:50%", srv.url("/delay/5"))
    p = r.j["precision"]
    check(r.rc == 0 and p["reached"] is False and p["stopped_at_s"] is None and r.j["summary"]["elapsed_s"] >= 1.4 and
          "Precision     not reached in 1.5s: p99.9 " in r.out, "precision: not reached, said (%s)\n%s" % (p, r.out[:600]))
    srv.stop()
    for spec in ("5", "p98:5%", "0x5%", "rps:5%,"):
        q = subprocess.run([RAFALE, "--precision", spec, "http://127.0.0.1:1/"], capture_output=True, text=True)
        check(q.returncode == 2 and q.stderr.startswith("rafale: --precision") and len(q.stderr.splitlines()) == 1,
              "precision: '%s' refused in one line (%r)" % (spec, q.stderr))


@test
@alone
def intervals_cover_a_known_law():
    """Coverage against a known law: rafale serve's /delay/exp/5 answers after an exponential draw of mean 5 ms,
    so a run's p50 is 5 ms ln 2 and its p99 5 ms ln 100, plus the path's own delay (estimated from the pooled mean,
    whose law is 5 ms). Over 40 short runs an honest 95% interval holds the truth about 38 times; 34 is asked.
    Alone: other tests' load would be drift between runs, which no run's interval covers (nor should); a run during
    which other processes took the CPUs anyway (noise, the server watched so its CPU is not counted) is left out,
    and with fewer than 30 quiet runs nothing is judged (a machine at load 8 held p50 in 24 of 40). Back-to-back
    runs' intervals overlap."""
    if SANITIZED:
        print("  (in the plain build alone: the same code, twice the time)")
        return
    srv = Serve()
    runs, busy = [], 0
    for i in range(40):
        # --monitor: the server's CPU is its own, not other processes' (noise.foreign_cpu_pct).
        r = rafale("-c", 20, "-t", 1, "-d", "500ms", "--monitor", srv.p.pid, srv.url("/delay/exp/5"))
        if r.j is None or "percentiles_ci_us" not in r.j["latency"]:
            continue
        n = r.j.get("noise") or {}
        if (n.get("foreign_cpu_pct") or 0) + (n.get("steal_pct") or 0) > 10:
            busy += 1  # other processes shifted this run's path delay: the truth is not known for it
            continue
        runs.append(r.j)
    srv.stop()
    check(len(runs) + busy == 40, "coverage: 40 runs with intervals (%d, %d of them busy)" % (len(runs) + busy, busy))
    if len(runs) < 30:
        print("  coverage: not judged: other processes took the CPUs in %d of 40 runs" % busy)
        return
    n = sum(j["latency"]["count"] for j in runs)
    offset = sum(j["latency"]["mean_us"] * j["latency"]["count"] for j in runs) / n - 5000
    check(0 < offset < 1000, "coverage: the path's own delay beside the law (%.0f us)" % offset)
    held = {}
    for name, q in (("50", 0.5), ("99", 0.99)):
        truth = -5000 * math.log(1 - q) + offset
        held[name] = sum(1 for j in runs if holds(j["latency"]["percentiles_ci_us"][name], truth))
        # An honest 95% interval holds it about 0.95 n times; 0.85 n is asked (34 of 40).
        check(held[name] >= 0.85 * len(runs), "coverage: p%s's interval held %.0f us in %d of %d runs"
              % (name, truth, held[name], len(runs)))
    # Back-to-back runs of one server overlap: two 95% intervals of the same figure miss each other far more rarely
    # than either misses it (under 1 time in 100 for independent runs).
    def overlap(a, b):
        return (a[0] is None or b[1] is None or a[0] <= b[1]) and (b[0] is None or a[1] is None or b[0] <= a[1])
    pairs = list(zip(runs, runs[1:]))
    for name in ("50", "99"):
        n_ov = sum(1 for a, b in pairs if overlap(a["latency"]["percentiles_ci_us"][name],
                                                  b["latency"]["percentiles_ci_us"][name]))
        check(n_ov >= 0.9 * len(pairs), "coverage: back-to-back runs' p%s intervals overlap in %d of %d pairs"
              % (name, n_ov, len(pairs)))
    n_ov = sum(1 for a, b in pairs if overlap(a["summary"]["rps_ci"], b["summary"]["rps_ci"]))
    check(n_ov >= 0.9 * len(pairs), "coverage: back-to-back runs' req/s intervals overlap in %d of %d pairs"
          % (n_ov, len(pairs)))
    print("  coverage: p50 held %d/%d, p99 %d/%d (offset %.0f us)" % (held["50"], len(runs), held["99"], len(runs),
                                                                       offset))
