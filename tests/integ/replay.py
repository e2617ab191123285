"""rafale replay: a recording server receives exactly the log's requests, in order, at the log's gaps; a
second-stamped log's seconds spread; hostile lines skipped and said at FILE:LINE; unsafe methods skipped unless
--methods names them."""
import csv
import json
import re
import os
import statistics

import common
from common import *

T0 = 1700000000.0


def log_file(name, lines):
    path = os.path.join(TMP, name)
    with open(path, "w", newline="") as f:
        f.write("".join(l + "\n" for l in lines))
    return path


def json_line(t, method, uri):
    return json.dumps({"msec": "%.3f" % t, "request_method": method, "request_uri": uri, "status": 200})


def clf_line(sec, method, uri):
    # 14/Nov/2023:22:13:20 +0000 is T0
    return '127.0.0.1 - - [14/Nov/2023:22:13:%02d +0000] "%s %s HTTP/1.1" 200 2 "-" "curl/8"' % (20 + sec, method, uri)


def replay(*args):
    """rafale replay args, its JSON result: (rc, stderr, json or None)."""
    jpath = os.path.join(TMP, "replay.json")
    if os.path.exists(jpath):
        os.unlink(jpath)
    rc, out, err = run_raw(["replay", "-q", "--json", jpath] + list(args))
    j = None
    if os.path.exists(jpath):
        with open(jpath) as f:
            j = json.load(f)
    return rc, err, j


def gaps(times):
    return [b - a for a, b in zip(times, times[1:])]


def sent(path):
    """rafale's own stamps from --log at path, by due time: the due times (s), and the lags (s) from due time to
    start of each request whose connection was free when it fell due (on one connection a late answer holds the
    next request back: that is the server's time, not the replay's)."""
    with open(path) as f:
        rows = sorted((int(r["due_us"]), int(r["t_us"]), int(r["total_us"]))
                      for r in csv.DictReader(l for l in f if not l.startswith("#")))
    free = [(t - d) / 1e6 for (d, t, _), (pd, _, ptot) in zip(rows[1:], rows) if pd + ptot <= d]
    return [r[0] / 1e6 for r in rows], free


def ordered_log():
    """A log of 120 requests at gaps of 4 to 19 ms, paths of three patterns, a query kept as it was written: (its
    path, its lines, the (method, path) pairs it asks)."""
    t, lines, want = T0, [], []
    for i in range(120):
        uri = ["/users/%d" % i, "/items/%d/detail?x=%d" % (i * 7, i), "/"][i % 3]
        lines.append(json_line(t, "GET" if i % 5 else "HEAD", uri))
        want.append(("GET" if i % 5 else "HEAD", uri))
        t += 0.004 + (i * 37 % 16) / 1000.0
    return log_file("ordered.log", lines), lines, want


@test
def replay_sends_the_log_in_order_at_its_gaps():
    path, lines, want = ordered_log()
    rec = RecServer()
    try:
        sent_log = os.path.join(TMP, "ordered-sent.csv")
        rc, err, j = replay(path, rec.url(""), "-c", 1, "--log", sent_log)
        check(rc == 0, "rc %d: %s" % (rc, err))
        got = [(r[1], r[2]) for r in rec.records]
        check(got == want, "the server got the log's requests in its order: %s" % got[:5])
        check(j["summary"]["requests"] == 120 and accounted(j), "120 requests accounted")
        names = [u.get("name") for u in j["per_url"]]
        check("/users/{id}" in names and "/items/{id}/detail" in names and "other" in names,
              "a row per pattern: %s" % names)
        log_gaps = gaps([float(json.loads(l)["msec"]) for l in lines])
        # The schedule, judged by rafale's own stamps (--log: each request's due time): the log's gaps. On one
        # connection a late answer holds the next request back, which is the server's time, not the replay's (the
        # recording server, in a pool whose CPUs were full, moved the median send gap 1.58 ms); whether rafale sends
        # at the due time is measured alone, in replay_sends_at_the_due_time.
        due, free = sent(sent_log)
        sched = [abs(a - b) for a, b in zip(gaps(due), log_gaps)]
        check(len(due) == 120 and max(sched) < 0.0001,
              "the schedule keeps the log's gaps within 0.1 ms (worst %.3f ms, %d sends)"
              % (max(sched) * 1000 if sched else -1, len(due)))
        recv = [abs(a - b) for a, b in zip(gaps(rec.times), log_gaps)]
        check(statistics.median(recv) < 0.005, "and as received, within 5 ms (median %.2f ms)"
              % (statistics.median(recv) * 1000))
        span1 = rec.times[-1] - rec.times[0]
        rec.records.clear()
        rec.times.clear()
        rc, err, j = replay(path, rec.url(""), "-c", 1, "--speed", 2)
        check(rc == 0 and len(rec.records) == 120, "--speed 2: all sent")
        span2 = rec.times[-1] - rec.times[0]
        check(abs(span2 - span1 / 2) < 0.1 * span1, "--speed 2 halves the span: %.3f s then %.3f s" % (span1, span2))
    finally:
        rec.stop()


@test
@alone
def replay_sends_at_the_due_time():
    """A request whose connection was free when it fell due leaves within 1 ms of its due time, by rafale's own stamps
    (--log). It measures time, so alone: in the full pool the sanitized build's median was 1.68 ms in replay_loop, a
    machine whose 2 CPUs were 1.87 busy waking it late; alone, 0.06-0.21 ms, beside three CPU-bound processes too."""
    path, _, want = ordered_log()
    rec = RecServer()
    try:
        sent_log = os.path.join(TMP, "due-sent.csv")
        rc, err, j = replay(path, rec.url(""), "-c", 1, "--log", sent_log)
        check(rc == 0 and len(rec.records) == 120, "rc %d, %d sent: %s" % (rc, len(rec.records), err))
        due, free = sent(sent_log)
        check(len(due) == 120 and len(free) >= 60 and statistics.median(free) < 0.001,
              "a request whose connection was free left within 1 ms of its due time (median %.2f ms, %d of 119 free)"
              % (statistics.median(free) * 1000 if free else -1, len(free)))
    finally:
        rec.stop()


@test
def replay_spreads_a_second_stamped_log():
    # Two seconds of ten requests each: each second's spread over it, 100 ms apart (10 ms at --speed 10).
    lines = [clf_line(s, "GET", "/p/%d" % (s * 10 + i)) for s in range(2) for i in range(10)]
    path = log_file("combined.log", lines)
    rec = RecServer()
    try:
        sent_log = os.path.join(TMP, "spread-sent.csv")
        rc, err, j = replay(path, rec.url(""), "--speed", 10, "-c", 1, "--log", sent_log)
        check(rc == 0, "rc %d: %s" % (rc, err))
        check([r[2] for r in rec.records] == ["/p/%d" % k for k in range(20)], "in the log's order")
        # The schedule judged by rafale's own stamps, as in replay_sends_the_log_in_order_at_its_gaps.
        due, _ = sent(sent_log)
        g = gaps(due)
        check(len(due) == 20 and all(abs(x - 0.01) < 0.0001 for x in g),
              "a second's requests 100 ms apart (10 ms at --speed 10) as due: %s" % ["%.2f" % (x * 1e3) for x in g])
    finally:
        rec.stop()


@test
def replay_skips_hostile_and_unsafe_lines():
    lines = [
        json_line(T0, "GET", "/a"),
        "not a log line",
        json_line(T0 + 0.01, "GET", "/b\r\nX-Injected: 1"),
        json_line(T0 + 0.02, "POST", "/login"),
        json_line(T0 + 0.03, "DELETE", "/users/1"),
        json_line(T0 + 0.04, "GET", "/c d"),
        json_line(T0 + 0.05, "GET", "/e"),
    ]
    path = log_file("hostile.log", lines)
    rec = RecServer()
    try:
        rc, err, j = replay(path, rec.url(""), "-c", 1)
        check(rc == 0, "rc %d: %s" % (rc, err))
        check([(r[1], r[2]) for r in rec.records] == [("GET", "/a"), ("GET", "/e")], "only the safe lines sent: %s"
              % rec.records)
        check(all("x-injected" not in r[3] for r in rec.records), "nothing of a log became a header")
        check("1 POST, 1 DELETE" in err, "the methods skipped said: " + err)
        check("unparseable lines skipped, the first at %s:2" % path in err, "the bad line said at FILE:LINE: " + err)
        check("2 lines skipped whose path holds a control byte or a space, the first at %s:3" % path in err,
              "the CR/LF line said at FILE:LINE: " + err)
        rec.records.clear()
        rc, err, j = replay(path, rec.url(""), "--methods", "GET,POST", "-c", 1)
        check(rc == 0 and [(r[1], r[2], r[4]) for r in rec.records] ==
              [("GET", "/a", b""), ("POST", "/login", b""), ("GET", "/e", b"")], "--methods GET,POST: the POST sent, "
              "without a body: %s" % rec.records)
        check("1 DELETE" in err and "POST" not in err.split("method")[-1], "the DELETE still skipped: " + err)
    finally:
        rec.stop()


@test
def replay_limit_and_mistakes():
    path = log_file("limit.log", [json_line(T0 + i * 0.002, "GET", "/x/%d" % i) for i in range(50)])
    rec = RecServer()
    try:
        rc, err, j = replay(path, rec.url(""), "--limit", 7, "-c", 1)
        check(rc == 0 and [r[2] for r in rec.records] == ["/x/%d" % i for i in range(7)], "--limit 7: the first 7: rc %d %s %s" % (rc, [r[2] for r in rec.records], err))
        rc, out, err = run_raw(["replay", "/nonexistent.log", rec.url("")])
        check(rc == 2 and one_line(err, "/nonexistent.log"), "a missing log: one line, exit 2: " + err)
        rc, out, err = run_raw(["replay", path, rec.url("/base")])
        check(rc == 2 and one_line(err, "the paths are the log's"), "a URL with a path refused: " + err)
        rc, out, err = run_raw(["replay", "-R", "10", path, rec.url("")])
        check(rc == 2 and one_line(err, "unknown option '-R'"), "-R refused: " + err)
        rc, out, err = run_raw(["replay", "--methods", "get", path, rec.url("")])
        check(rc == 2 and one_line(err, "--methods"), "a bad --methods refused: " + err)
        check(len(rec.records) == 7, "no request sent by a refused command line")
    finally:
        rec.stop()


def served(path):
    """rafale serve's --access-log: [(method, path, protocol)] of each request it answered."""
    out = []
    with open(path) as f:
        for line in f:
            m = re.search(r'"(\S+) (\S+) (HTTP/[0-9.]+)"', line)
            if m:
                out.append(m.groups())
    return out


def mixed_log(name, n):
    """n requests 2 ms apart, GET and HEAD, three patterns, queries: the log's file and its (method, path) list."""
    lines, want = [], []
    for i in range(n):
        uri = ["/users/%d" % i, "/items/%d/detail?x=%d&y=z" % (i * 7, i), "/"][i % 3]
        method = "HEAD" if i % 4 == 0 else "GET"
        lines.append(json_line(T0 + i * 0.002, method, uri))
        want.append((method, uri))
    return log_file(name, lines), want


@test
def replay_over_http2_and_http3():
    """A replay over HTTP/2 (h2c and h2 over TLS) and HTTP/3: the server answers exactly the log's requests, each
    with the log's method and path, over the protocol asked for; --streams as for a run."""
    path, want = mixed_log("multiplexed.log", 90)
    cases = [("h2c", ["--http2", "-c", 1, "--streams", 1], "HTTP/2.0", False),
             ("h2c streams", ["--http2", "-c", 2, "--streams", 8], "HTTP/2.0", False),
             ("h2", ["--http2", "--insecure", "-c", 2, "--streams", 4], "HTTP/2.0", True)]
    if built_with_http3():
        cases.append(("h3", ["--http3", "--insecure", "-c", 2, "--streams", 4], "HTTP/3", True))
    for name, args, proto, tls in cases:
        alog = os.path.join(TMP, "served-%s.log" % name.replace(" ", "-"))
        if os.path.exists(alog):
            os.unlink(alog)
        d = make_certs()
        tls_args = ["--tls-cert", os.path.join(d, "srv.pem"), "--tls-key", os.path.join(d, "srv.key"), "--http3"]
        srv = Serve("--access-log", alog, *(tls_args if tls else []))
        base = ("https://%s" if tls else "http://%s") % srv.addr
        rc, err, j = replay(path, base, "-t", 1, *args)
        srv.stop()
        got = served(alog)
        check(rc == 0, "%s: rc %d: %s" % (name, rc, err))
        check(all(p == proto for _, _, p in got), "%s: every request over %s: %s" % (name, proto, got[:3]))
        reqs = [(m, u) for m, u, _ in got]
        check(sorted(reqs) == sorted(want), "%s: the server got exactly the log's requests: %d of %d, first %s" %
              (name, len(reqs), len(want), reqs[:4]))
        if name == "h2c":
            check(reqs == want, "h2c over one stream: in the log's order")
        check(j["summary"]["requests"] == 90 and accounted(j), "%s: 90 requests accounted" % name)


def built_with_http3():
    rc, out, err = run_raw(["-q", "--http3", "-n", 1, "https://127.0.0.1:1/"])
    return "built without HTTP/3" not in err


@test
def replay_over_threads():
    """-t 2 and -t 3: each worker its ring of the log's requests, its share of the connections; every request of the
    log sent once, none lost or doubled, all accounted."""
    path, want = mixed_log("threads.log", 301)
    rec = RecServer()
    try:
        for t, c in ((2, 2), (3, 3), (3, 7), (2, 1)):
            rec.records.clear()
            rc, err, j = replay(path, rec.url(""), "-t", t, "-c", c)
            got = [(r[1], r[2]) for r in rec.records]
            check(rc == 0, "-t %d -c %d: rc %d: %s" % (t, c, rc, err))
            check(sorted(got) == sorted(want), "-t %d -c %d: the server got each of the log's requests once: %d of %d"
                  % (t, c, len(got), len(want)))
            check(j["summary"]["requests"] == 301 and accounted(j), "-t %d -c %d: 301 requests accounted (%s)" %
                  (t, c, j["summary"]["requests"]))
    finally:
        rec.stop()
    # Many batches a ring (1024 requests each, 8 a ring): 12 000 requests 50 us apart over 3 threads.
    big = log_file("threads-big.log", [json_line(T0 + i * 0.00005, "GET", "/b/%d" % i) for i in range(12000)])
    srv = Serve()
    rc, err, j = replay(big, srv.url(""), "-t", 3, "-c", 6)
    conns, reqs = srv.stop()
    check(rc == 0 and reqs == 12000 and j["summary"]["requests"] == 12000 and accounted(j),
          "-t 3, 12 000 requests: each served once (%s served, %s in the report): %s" %
          (reqs, j and j["summary"]["requests"], err))


@test
def replay_shards_cover_the_log_once():
    """--shard i/n: shard i replays requests i, i+n, ... of the log at their times; three shards together send each
    request once, and rafale merge of their --json counts the log's requests."""
    path, want = mixed_log("shards.log", 200)
    rec = RecServer()
    try:
        paths, outs = run_shards(3, ["-c", 3], None, "rshard", extra=lambda i: [path, rec.url("")], cmd=("replay",))
        check(all(rc == 0 for rc, _, _ in outs), "the shards ran: %s" % [(rc, e) for rc, _, e in outs])
        got = [(r[1], r[2]) for r in rec.records]
        check(sorted(got) == sorted(want), "the shards together sent each request once: %d of %d" %
              (len(got), len(want)))
        for i, jp in enumerate(paths):
            with open(jp) as f:
                j = json.load(f)
            share = len(range(i, 200, 3))
            check(j["summary"]["requests"] == share and accounted(j), "shard %d/3: its %d requests (%s)" %
                  (i, share, j["summary"]["requests"]))
        m = merge("--json", os.path.join(TMP, "rshard-merged.json"), *paths)
        check(m.returncode == 0, "merge: %s" % m.stderr)
        with open(os.path.join(TMP, "rshard-merged.json")) as f:
            mj = json.load(f)
        check(mj["summary"]["requests"] == 200 and accounted(mj), "merged: the log's 200 requests (%s)" %
              mj["summary"]["requests"])
        check(mj["replay"]["replayed"] == 200 and mj["replay"]["lines"] == 200, "merged: the shards replayed the "
              "log's 200 lines (%s)" % mj["replay"])
        # Each request at its own time: shard 1's first request is the log's second, 2 ms after the start.
        rec.records.clear()
        rc, err, j = replay(path, rec.url(""), "--shard", "1/3", "--limit", 10, "-c", 1)
        check(rc == 0 and [r[2] for r in rec.records] == [u for _, u in want[1:10:3]],
              "--shard 1/3 --limit 10: requests 1, 4, 7 of the log's first 10: %s %s" % (rec.records, err))
    finally:
        rec.stop()


@test
def replay_healthy_server_no_finding():
    """A replay is open loop, as -R: the findings that judge a closed loop (queueing, server_waiting, client_delay,
    the throughput's drift) stay silent on a healthy rafale serve, as they do for a healthy -R run
    (findings_silent_when_healthy). The rules' own cases are test_findings's (a replay beside each -R case)."""
    lines = [json_line(T0 + i * 0.0005, "GET", ["/", "/json", "/users/%d" % i][i % 3]) for i in range(4000)]
    path = log_file("healthy.log", lines)
    srv = Serve(threads=2)
    try:
        rc, err, j = replay(path, srv.url(""), "-c", 10, "--monitor", srv.p.pid)
        check(rc == 0 and j["summary"]["requests"] == 4000 and accounted(j), "4000 requests: rc %d %s" % (rc, err))
        found = [f for f in j["findings"] if f["id"] != "noisy_neighbour"]
        check(found == [], "a healthy replay: no finding (the machine's noise aside): %s" % found)
    finally:
        srv.stop()


@test
def replay_recorded_in_the_result():
    """The run's JSON records the replay: config.replay (the log, --speed, the format named or told, --limit,
    --methods) and a "replay" object (lines, replayed, skipped by method and by reason with the first line of each);
    rafale report reads them back, and the text and HTML reports say the skipped counts, as stderr does."""
    lines = [json_line(T0 + i * 0.002, "GET", "/r/%d" % i) for i in range(40)]
    lines[3] = "not a log line"
    lines[5] = json_line(T0 + 0.010, "POST", "/login")
    lines[6] = json_line(T0 + 0.012, "DELETE", "/r/1")
    lines[7] = json_line(T0 + 0.014, "GET", "/b\r\nX-Injected: 1")
    lines[8] = json_line(T0 + 0.016, "GET", "/" + "a" * 9000)
    path = log_file("recorded.log", lines)
    srv = Serve()
    try:
        html = os.path.join(TMP, "recorded.html")
        rc, err, j = replay(path, srv.url(""), "-c", 1, "--speed", 2, "--limit", 30, "--methods", "GET,HEAD",
                            "--html", html)
        check(rc == 0, "rc %d: %s" % (rc, err))
        check(j["config"]["replay"] == {"log": path, "speed": 2, "format": "json", "limit": 30, "methods": "GET,HEAD",
                                        "loop": False, "max_connections": 1},
              "config.replay: %s" % j["config"]["replay"])
        # Every line of so short a log is read (the sorting window reads ahead); the 30th request is the 35th line.
        want = {"lines": 40, "replayed": 30, "before_from": 0, "passes": 1, "skipped_methods": {"POST": 1, "DELETE": 1},
                "skipped_other_methods": 0,
                "unparseable": 1, "unparseable_first_line": 4, "control": 1, "control_first_line": 8,
                "too_long": 1, "too_long_first_line": 9, "out_of_order": 0, "read_errno": 0}
        got = dict(j["replay"])
        span = got.pop("log_span_s")
        check(got == want and abs(span - 0.068) < 1e-6, "the replay object: %s" % j["replay"])
        said = ["30 requests of 40 lines replayed, 0.068 s of the log in 0.034 s (--speed 2)", "skipped for their method (not in --methods): 1 POST, 1 DELETE",
                "1 unparseable lines skipped, the first at %s:4" % path,
                "1 lines skipped whose path holds a control byte or a space, the first at %s:8" % path,
                "1 lines skipped whose path is longer than 8192 bytes, the first at %s:9" % path]
        check(all(s in err for s in said), "stderr says it: " + err)
        rc, out, rerr = run_raw(["report", os.path.join(TMP, "replay.json")])
        check(rc == 0 and "Replay of %s (json):" % path in out and all(s in out for s in said),
              "rafale report of the saved replay says it: %s%s" % (out[:1500], rerr))
        # Its setup: connections up to -c, the URL once with the log's paths in their rows, no method of its own
        # (it said "1 connection", the URL once per row and GET).
        head = out.splitlines()[:2]
        check(len(head) == 2 and head[0].startswith("rafale: up to 1 connection on 1 thread, keep-alive, timeout ") and
              head[1] == "  %s: the log's paths, in 2 rows (/r/{id}, other)" % srv.url(""), "the setup lines: %s" % head)
        html2 = os.path.join(TMP, "recorded2.html")
        rc, out, rerr = run_raw(["report", "--html", html2, os.path.join(TMP, "replay.json")])
        for h in (html, html2):
            with open(h) as f:
                page = f.read()
            check("Replay of " in page and all(s in page for s in said[:2] + ["1 unparseable lines skipped"]),
                  "the HTML report (%s) says it" % h)
        # Told from its first line: a combined log, no --format.
        clf = log_file("recorded-clf.log", [clf_line(0, "GET", "/c/%d" % i) for i in range(3)])
        rc, err, j = replay(clf, srv.url(""), "--speed", 100)
        check(rc == 0 and j["config"]["replay"]["format"] == "combined" and j["config"]["replay"]["limit"] is None and
              j["config"]["replay"]["methods"] == "GET,HEAD,OPTIONS" and j["replay"]["replayed"] == 3,
              "the format told from the log: %s %s" % (j and j["config"]["replay"], err))
    finally:
        srv.stop()


@test
def replay_over_http2_streams_sent_again():
    """Streams a server refuses (nginx's GOAWAY after keepalive_requests 5, with 8 streams in flight) go again on
    another connection, each with its own line of the log: nginx logs each of the log's 100 paths once. Before,
    a replayed request sent again took the log's line handed out last: 100 requests, 65 paths."""
    exe = shutil.which("nginx") or "/usr/sbin/nginx"
    check(os.path.exists(exe), "nginx is installed (make deps installs it)")
    root = tempfile.mkdtemp(prefix="rafale-nginx-", dir=TMP)
    port = free_port()
    with open(os.path.join(root, "nginx.conf"), "w") as fh:
        fh.write("""daemon off; master_process off; worker_processes 1; pid %(r)s/nginx.pid; error_log %(r)s/error.log;
events { worker_connections 1024; }
http { access_log %(r)s/access.log; client_body_temp_path %(r)s; proxy_temp_path %(r)s; fastcgi_temp_path %(r)s;
       uwsgi_temp_path %(r)s; scgi_temp_path %(r)s; keepalive_requests 5;
       server { listen 127.0.0.1:%(p)d http2; location / { return 200 "hello\\n"; } } }
""" % dict(r=root, p=port))
    p = subprocess.Popen([exe, "-p", root, "-c", os.path.join(root, "nginx.conf")], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    try:
        check(wait_port(port), "nginx listens")
        # Bursts of 20 requests at once, 50 ms apart.
        path = log_file("bursts.log", [json_line(T0 + (i // 20) * 0.05, "GET", "/b/%d" % i) for i in range(100)])
        rc, err, j = replay(path, "http://127.0.0.1:%d" % port, "--http2", "-c", 1, "--streams", 8)
    finally:
        p.kill()
        p.wait(timeout=10)
    with open(os.path.join(root, "access.log")) as f:
        paths = [l.split()[6] for l in f if l.strip()]
    check(rc == 0 and j["summary"]["requests"] == 100 and accounted(j), "100 requests answered: %s" % err)
    check(j["http2"]["retried"] > 0, "some streams were refused and sent again (%s)" % j["http2"]["retried"])
    check(sorted(paths) == sorted("/b/%d" % i for i in range(100)), "nginx logged each of the log's paths once: "
          "%d lines, %d paths" % (len(paths), len(set(paths))))
