"""rafale replay's window (--from, --to), --loop, the user's own patterns (--pattern REGEX=NAME), and a log
replayed as a compare workload (replay = FILE)."""
import json
import os
import statistics
import subprocess
import sys

import common
from common import *

# The log's helpers of the replay area: T0 is 2023-11-14T22:13:20Z.
from replay import T0, gaps, json_line, log_file, replay, sent


@test
def replay_window_from_to():
    # 60 requests 50 ms apart over 3 s; the window [T0 + 2 s, T0 + 2.5 s) holds requests 40 to 49.
    path = log_file("window.log", [json_line(T0 + i * 0.05, "GET", "/w/%d" % i) for i in range(60)])
    want = ["/w/%d" % i for i in range(40, 50)]
    rec = RecServer()
    try:
        for frm, to in (("2023-11-14T22:13:22", "2023-11-14T22:13:22.5Z"),  # ISO 8601: UTC unless a zone follows
                        ("[14/Nov/2023:23:13:22 +0100]", "1700000002.5"),   # the combined stamp; epoch seconds
                        ("+2s", "+2500ms")):                                 # offsets from the first request
            rec.records.clear()
            rc, err, j = replay(path, rec.url(""), "-c", 1, "--from", frm, "--to", to)
            check(rc == 0, "rc %d: %s" % (rc, err))
            got = [r[2] for r in rec.records]
            check(got == want, "--from %s --to %s: exactly the window's requests: %s" % (frm, to, got))
            check(j is not None and j["summary"]["requests"] == 10 and accounted(j), "10 requests accounted")
            check("40 requests before --from dropped" in err, "the requests dropped said: " + err)
            # The 2 s before --from are not waited for: the window's 0.45 s (its first request due at once) and
            # the run's start, far from the 2.45 s a wait would take.
            check(j is not None and j["summary"]["elapsed_s"] < 1.5,
                  "the first request of the window goes at once: the run took %.2f s" %
                  (j["summary"]["elapsed_s"] if j else -1))
        rc, out, err = run_raw(["replay", "--from", "yesterday", path, rec.url("")])
        check(rc == 2 and one_line(err, "--from wants a time"), "a bad --from: one line, exit 2: " + err)
        rc, out, err = run_raw(["replay", "--from", "+3s", "--to", "+2s", path, rec.url("")])
        check(rc == 2 and one_line(err, "--to is not after --from"), "an empty window refused: " + err)
        rec.records.clear()
        rc, err, j = replay(path, rec.url(""), "-c", 1, "--from", "2024-01-01T00:00:00")
        check(rc == 0 and rec.records == [] and "60 requests before --from dropped" in err,
              "a window after the log: nothing sent, rc %d: %s" % (rc, err))
    finally:
        rec.stop()


@test
def replay_loop():
    # Five requests 20 ms apart: a pass spans 80 ms, the next begins a mean gap (20 ms) after it.
    path = log_file("loop.log", [json_line(T0 + i * 0.02, "GET", "/l/%d" % i) for i in range(5)])
    rec = RecServer()
    try:
        rc, out, err = run_raw(["replay", "--loop", path, rec.url("")])
        check(rc == 2 and one_line(err, "--loop") and "-d or --limit" in err, "--loop alone refused: " + err)
        sent_log = os.path.join(TMP, "loop-sent.csv")
        rc, err, j = replay(path, rec.url(""), "-c", 1, "--loop", "--limit", 12, "--log", sent_log)
        check(rc == 0, "rc %d: %s" % (rc, err))
        got = [r[2] for r in rec.records]
        check(got == ["/l/%d" % (i % 5) for i in range(12)], "--limit 12: the log twice and two more: %s" % got)
        # 20 ms apart, and a pass every 100 ms (80 ms of log and a 20 ms gap before the next), judged by rafale's own
        # stamps (--log): the schedule (due_us). The recording server's arrivals also hold its own late answers:
        # beside a CPU-bound process its first came 87 ms late and held the next three back (arrival gaps 86.7, 0.9,
        # 0.8, 0.3, 11.0, then 20 ms; another run's median 6.1 ms). Sending at the due time is measured alone, in
        # replay_sends_at_the_due_time.
        g = gaps(rec.times)
        due, _ = sent(sent_log)
        periods = [due[i + 5] - due[i] for i in range(len(due) - 5)]
        check(len(due) == 12 and all(abs(x - 0.02) < 0.0001 for x in gaps(due)) and
              all(abs(x - 0.1) < 0.0001 for x in periods),
              "20 ms apart and the next pass 20 ms after the last: a pass every 100 ms as due (%s; arrival gaps %s)"
              % (["%.2f" % (x * 1e3) for x in periods], ["%.1f" % (x * 1e3) for x in g]))
        check("3 passes" in err, "the passes said: " + err)
        rec.records.clear()
        rc, err, j = replay(path, rec.url(""), "-c", 1, "--loop", "-d", "500ms")
        n = len(rec.records)
        check(rc == 0 and 23 <= n <= 26, "-d 500ms: the log looped for 500 ms, 25 requests due: rc %d, %d sent: %s"
              % (rc, n, err))
        # The last may have reached the server and still be in flight at the end (a loaded machine, once).
        check(j is not None and accounted(j) and j["summary"]["requests"] <= n <= j["summary"]["started"],
              "every request accounted: %d at the server (%s)" % (n, j and j["summary"]))
        # Replayed: the requests that came due, 25 (0 to 480 ms), not those the reader had handed on ahead of their time
        # (up to 100 ms: 30 to 32 were counted), and their span, 20 ms apart (0.58 s of the log was said).
        rp = (j or {}).get("replay", {})
        k, span = rp.get("replayed", -1), rp.get("log_span_s", -1)
        check(n <= k <= 25 and abs(span - 0.02 * (k - 1)) < 1e-6 and
              "%d requests of %d lines replayed, %.3f s of the log" % (k, rp.get("lines", -1), span) in err,
              "-d 500ms: the requests that came due replayed, n at the server %d: %s" % (n, rp))
    finally:
        rec.stop()


@test
def replay_user_patterns():
    uris = ["/api/v1/users/1", "/api/v2/users/2", "/static/a.css", "/api/v1/users/3?x=1", "/static/b.js",
            "/x/1", "/x/2", "/y"]
    path = log_file("patterns.log", [json_line(T0 + i * 0.002, "GET", u) for i, u in enumerate(uris)])
    rec = RecServer()
    try:
        rc, err, j = replay(path, rec.url(""), "-c", 1, "--pattern", "^/api/v[0-9]+/users/=users",
                            "--pattern", r"\.(css|js)$=static")
        check(rc == 0, "rc %d: %s" % (rc, err))
        rows = {u.get("name"): u["summary"]["requests"] for u in j["per_url"]} if j else {}
        check(rows.get("users") == 3 and rows.get("static") == 2,
              "the user's rows, named, with their requests (the query aside): %s" % rows)
        check(rows.get("/x/{id}") == 2 and sum(rows.values()) == 8,
              "the automatic patterns for the rest: %s" % rows)
        names = [u.get("name") for u in j["per_url"]] if j else []
        check(names[:2] == ["users", "static"], "the user's rows first: %s" % names)
        # A pattern named other: one row other, the user's paths in it (not the last target: the others too).
        rc, err, j = replay(path, rec.url(""), "-c", 1, "--pattern", "^/x/=other")
        names = [u.get("name") for u in j["per_url"]] if j else []
        rows = {u.get("name"): u["summary"]["requests"] for u in j["per_url"]} if j else {}
        check(rc == 0 and names.count("other") == 1 and rows.get("other") == 2 and sum(rows.values()) == 8,
              "--pattern ...=other: one row other, holding its paths: %s" % rows)
        for bad, needle in (("(=x", "not an extended regex"), ("^/api", "REGEX=NAME")):
            rc, out, err = run_raw(["replay", "--pattern", bad, path, rec.url("")])
            check(rc == 2 and one_line(err, "--pattern") and needle in err,
                  "--pattern %s refused in one line, exit 2: %s" % (bad, err))
    finally:
        rec.stop()


@test
def compare_replay_workload():
    # One log, 200 requests 2.5 ms apart (400 req/s for 0.5 s), replayed on two servers at most 2 connections
    # each: rafale serve keeps up; a server of 10 ms a request (200 req/s at 2 connections) cannot, so its
    # round lasts about twice as long and its throughput is about half: slower, decided.
    path = log_file("compare.log", [json_line(T0 + i * 0.0025, "GET", "/bytes/%d" % (i % 50 + 1)) for i in range(200)])
    ports = [free_port() for _ in range(2)]
    plan = os.path.join(TMP, "replay.conf")
    with open(plan, "w") as f:
        f.write("[settings]\nrepeat = 3\nready-timeout = 5s\n\n"
                "[server fast]\nstart = exec %s serve --listen 127.0.0.1:%d -t 1\nurl = http://127.0.0.1:%d\n\n"
                "[server slow]\nstart = exec %s %s sleep --ms 10 --port %d\nurl = http://127.0.0.1:%d\n\n"
                "[workload log]\nreplay = compare.log\nconnections = 2\npattern = ^/bytes/=items\n"
                % (RAFALE, ports[0], ports[0], sys.executable, FSERVER, ports[1], ports[1]))
    jpath = os.path.join(TMP, "replay-compare.json")
    p = subprocess.run([RAFALE, "compare", "--json", jpath, plan], capture_output=True, text=True, timeout=180)
    check(p.returncode == 0, "compare runs: rc %d %s %s" % (p.returncode, p.stderr[-600:], p.stdout[-1500:]))
    if not os.path.exists(jpath):
        return
    w = json.load(open(jpath))["compare"]["workloads"][0]
    cells = {c["name"]: c for c in w["servers"]}
    fast, slow = cells["fast"], cells["slow"]
    check(fast["runs"] == 3 and slow["runs"] == 3, "3 rounds on each server: %s %s" % (fast["runs"], slow["runs"]))
    for c in (fast, slow):
        check(all(r["summary"]["requests"] == 200 for r in c["run_results"]),
              "%s: each round replays the whole log, 200 requests: %s" %
              (c["name"], [r["summary"]["requests"] for r in c["run_results"]]))
        check(all([u.get("name") for u in r["per_url"]][0] == "items" for r in c["run_results"]),
              "%s: the log's own pattern names its row" % c["name"])
    check(fast["rps_median"] > 1.6 * slow["rps_median"],
          "the fast server keeps the log's pace, the slow one falls behind: %.0f and %.0f req/s" %
          (fast["rps_median"], slow["rps_median"]))
    busy = "the machine was busy" in (slow.get("undecided_why") or "")
    check(slow["verdict"] == "slower" or (busy and slow["verdict"] == "undecided"),
          "the verdict is decided: slower (%s, %s)" % (slow["verdict"], slow.get("undecided_why")))
    check("replay compare.log" in p.stdout, "the workload said as a replay: " + p.stdout[:600])
