"""Integration tests: workloads: targets files, templates, cookies, Unix sockets, stages, redirects, and hostile input."""
from common import *  # noqa: F401,F403 (the runner sets RAFALE first)


@test
def targets_file_each_request_as_written():
    rec = RecServer()
    base = rec.url("").rstrip("/")
    path = targets_file("api.txt", """# an API with a login, a list and a create
POST %(b)s/login        # name: login
Content-Type: application/json
@login.json

GET %(b)s/items?page={{rand 1 3}}
X-Request-Id: {{uuid}}
X-Seq: {{seq}}

PUT %(b)s/items/{{seq}}    # name: create
Content-Type: application/json
< {"user": "{{csv users.csv name}}", "qty": {{rand 5 9}}, "conn": {{conn}}}
""" % {"b": base}, files=[("login.json", b'{"user": "a", "password": "b"}'),
                        ("users.csv", b'id,name\n1,alice\n2,bob\n3,"carol, jr"\n')])
    r = rafale("--targets", path, "-n", 300, "-c", 3, "-t", 2, "-H", "X-Not: for targets")
    rec.stop()
    j = r.j
    check(j["summary"]["requests"] == 300 and err_total(j) == 0 and rec.requests == 300, "targets: 300 requests")
    by = {}
    for conn, method, p, h, body in rec.records:
        by.setdefault((method, p.split("?")[0].rsplit("/", 1)[0] if method == "PUT" else p.split("?")[0]), []).append(
            (p, h, body))
    check(len(by.get(("POST", "/login"), [])) == 100 and len(by.get(("GET", "/items"), [])) == 100 and
          len(by.get(("PUT", "/items"), [])) == 100, "targets: exactly 100 of each with -n 300 (%s)" %
          {k: len(v) for k, v in by.items()})
    logins = by.get(("POST", "/login"), [])
    check(all(b == b'{"user": "a", "password": "b"}' and h["content-type"] == "application/json" and
              h["content-length"] == "30" for _, h, b in logins), "targets: @FILE body and its headers")
    check(all("x-not" not in h for _, h, _ in sum(by.values(), [])), "targets: -H applies to URL arguments only")
    gets = by.get(("GET", "/items"), [])
    pages = [int(p.split("page=")[1]) for p, _, _ in gets]
    check(set(pages) <= {1, 2, 3} and len(set(pages)) == 3, "{{rand 1 3}}: within bounds, all taken (%s)" % set(pages))
    uuids = [h["x-request-id"] for _, h, _ in gets]
    check(all(re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", u) for u in uuids)
          and len(set(uuids)) == 100, "{{uuid}}: version 4, all different")
    puts = by.get(("PUT", "/items"), [])
    seqs = sorted([int(h["x-seq"]) for _, h, _ in gets] + [int(p.rsplit("/", 1)[1]) for p, _, _ in puts])
    check(seqs == list(range(200)), "{{seq}}: every value once, none missing (%s...)" % seqs[:5])
    bodies = [json.loads(b) for _, _, b in puts]
    check(all(len(b) == int(h["content-length"]) for _, h, b in puts), "templated body: Content-Length per request")
    check(all(5 <= b["qty"] <= 9 and 0 <= b["conn"] < 3 for b in bodies), "{{rand}} and {{conn}} in a body")
    names = [b["user"] for b in bodies]
    check(sorted(set(names)) == ["alice", "bob", "carol, jr"] and all(names.count(n) in (33, 34) for n in set(names)),
          "{{csv}}: rows in order and cycled, a quoted cell whole")
    pu = {u["name"] or u["method"]: u for u in j["per_url"]}
    check(sorted(pu) == ["GET", "create", "login"] and pu["login"]["method"] == "POST" and
          pu["create"]["summary"]["requests"] == 100, "targets: per target results with name and method")
    check("login" in r.out and "Target " in r.out, "targets: named in the text report")


@test
def targets_order_weight_and_seed():
    rec = RecServer()
    base = rec.url("").rstrip("/")
    path = targets_file("w.txt", "GET %s/a\n\nGET %s/b\n\nGET %s/a\n" % (base, base, base))
    r = rafale("--targets", path, "-n", 300, "-c", 2, "-t", 1)
    paths = [p for _, _, p, _, _ in rec.records]
    check(paths.count("/a") == 200 and paths.count("/b") == 100 and len(r.j["per_url"]) == 2,
          "a target written twice is sent twice as often, reported once")
    counts = []
    for _ in range(2):
        del rec.records[:]
        r = rafale("--targets", path, "--order", "random", "--seed", 42, "-n", 200, "-c", 2, "-t", 2)
        counts.append([u["summary"]["requests"] for u in r.j["per_url"]])
    check(counts[0] == counts[1] and counts[0][0] != 2 * counts[0][1], "--order random --seed 42 repeats: %s" % counts)
    # session: each connection walks the file from the top, in order.
    path = targets_file("s.txt", "GET %s/1\n\nGET %s/2\n\nGET %s/3\n" % (base, base, base))
    del rec.records[:]
    rafale("--targets", path, "--order", "session", "-n", 30, "-c", 3, "-t", 1)
    rec.stop()
    walks = {}
    for conn, _, p, _, _ in rec.records:
        walks.setdefault(conn, []).append(p)
    # (How many each connection sends depends on how fast each connects: the walk's order is what is checked.)
    check(len(walks) == 3 and sum(len(w) for w in walks.values()) == 30 and max(len(w) for w in walks.values()) >= 4
          and all(w == (["/1", "/2", "/3"] * 30)[:len(w)] for w in walks.values()),
          "--order session: each connection walks the file in order (%s)" % walks)


@test
def targets_file_errors():
    cases = [
        ("GET\n", "1: expected 'METHOD URL', got 'GET'"),
        ("GET http://127.0.0.1:1/ extra\n", "1: after the URL: expected '# name: NAME'"),
        ("G@T http://127.0.0.1:1/\n", "1: expected 'METHOD URL', got 'G@T"),
        ("GET http://127.0.0.1:1/\nnot a header\n", "2: expected a header"),
        ("GET http://127.0.0.1:1/\nX-A: 1\n< a\nX-B: 2\n", "4: nothing may follow the body line"),
        ("GET http://127.0.0.1:1/\n@missing.json\n", "2: @missing.json: No such file"),
        ("# only a comment\n\n", "no request in the file"),
        ("GET http://127.0.0.1:1/{{nope}}\n", "1: the URL: unknown template {{nope}}"),
        ("GET http://127.0.0.1:1/\nX-A: {{rand 9 1}}\n", "2: a header: {{rand A B}} wants two integers, A <= B"),
        ("GET http://{{seq}}:1/\n", "1: templates go in the URL's path and query"),
        ("GET http://127.0.0.1:1/\n< {{csv nofile.csv x}}\n", "2: the body: cannot read CSV file"),
        ("GET http://127.0.0.1:1/\n< {{env RAFALE_SURELY_UNSET}}\n", "2: the body: {{env RAFALE_SURELY_UNSET}}"),
        ("GET http://127.0.0.1:1/{{seq\n", "1: '{{' without '}}'"),
        ("GET ftp://x/\n", "1: unsupported scheme"),
    ]
    for text, want in cases:
        path = targets_file("bad.txt", text)
        p = subprocess.run([RAFALE, "--targets", path, "-n", "1"], capture_output=True, text=True, timeout=RUN_TIMEOUT)
        check(p.returncode == 2 and (path + ":" + want if want[0].isdigit() else want) in p.stderr and
              len(p.stderr.strip().splitlines()) == 1, "targets error %r: %r" % (want, p.stderr.strip()))


@test
def stages_follow_the_ramp():
    srv = Serve()
    r = rafale("--stages", "1s:600,1s:600,1s:0", "-c", 10, "-t", 2, srv.url())
    j = r.j
    sent = [st["sent"] for st in j["stages"]]
    # The integral of each stage: 0 to 600 over 1 s is 300; 600 held is 600; 600 to 0 is 300.
    check(all(abs(a - b) <= max(3, b / 100) for a, b in zip(sent, [300, 600, 300])),
          "--stages: requests sent per stage within 1%% of the ramp's integral (%s)" % sent)
    check([st["to"] for st in j["stages"]] == [600, 600, 0] and j["config"]["stages_of"] == "rate" and
          abs(j["summary"]["elapsed_s"] - 3) < 0.5 and accounted(j), "--stages: in JSON, the duration is their sum")
    check("Stages" in r.out and "0 -> 600" in r.out, "--stages: in the text report")
    r = rafale("--stages", "1s:8c,1s:8c,1s:1c", "-t", 2, srv.url("/delay/10"))
    srv.stop()
    j = r.j
    sent = [st["sent"] for st in j["stages"]]
    check(j["summary"]["connections_opened"] == 8 and accounted(j) and err_total(j) == 0,
          "--stages ...c: up to 8 connections, each opened once, let go after its request (%d)"
          % j["summary"]["connections_opened"])
    check(sent[1] > 1.3 * sent[0] and sent[1] > 1.3 * sent[2], "--stages ...c: the load follows the connections (%s)"
          % sent)
    p = subprocess.run([RAFALE, "--stages", "1s:10,1s:5c", "-n", "1", srv.url()], capture_output=True, text=True)
    check(p.returncode == 2 and "--stages" in p.stderr, "--stages: rates and connections do not mix")
    p = subprocess.run([RAFALE, "--stages", "1s:10", "-d", "5s", "-n", "1", srv.url()], capture_output=True, text=True)
    check(p.returncode == 2 and "drop -d" in p.stderr, "--stages: -d is refused")


@test
def follow_redirects():
    rec = RecServer()
    other = RecServer()
    r = rafale("--follow", 5, "-n", 20, "-c", 2, "-t", 1, rec.url("/redir/3"))
    j = r.j
    paths = [p for _, _, p, _, _ in rec.records]
    check(j["summary"]["requests"] == 20 and j["status"] == {"200": 20} and j["summary"]["redirects_followed"] == 60,
          "--follow 5: 20 chains of 3 redirects, each one request (%s)" % j["summary"])
    check(paths.count("/redir/3") == 20 and paths.count("/redir/0") == 20 and len(paths) == 80 and
          j["summary"]["connections_opened"] == 2, "--follow: every hop on the same connection")
    del rec.records[:]
    r = rafale("--follow", 2, "-n", 5, "-c", 1, "-t", 1, "-m", "POST", "-b", "x=1", rec.url("/redir/3"))
    methods = [(m, p) for _, m, p, _, _ in rec.records]
    check(r.j["status"] == {"302": 5} and r.j["summary"]["redirects_followed"] == 10 and
          methods[:3] == [("POST", "/redir/3"), ("GET", "/redir/2"), ("GET", "/redir/1")],
          "--follow 2: the limit's 3xx is the answer; a POST answered 302 goes on as a GET (%s)" % methods[:3])
    del rec.records[:]
    r = rafale("--follow", 3, "-n", 4, "-c", 1, "-t", 1, rec.url("/other/%d" % other.port))
    rec.stop()
    other.stop()
    check(r.j["status"] == {"302": 4} and r.j["summary"]["redirects_to_other_origin"] == 4 and other.requests == 0,
          "--follow: a redirect to another origin is not followed, and counted")
    check("to another origin, not followed" in r.out, "--follow: said in the report")


@test
def targets_in_a_compare_plan():
    port = free_port()
    targets_file("cmp-api.txt", "GET /json?u={{seq}}\n\nPOST /status/201    # name: create\n< {\"n\": {{rand 1 9}}}\n")
    plan = os.path.join(TMP, "targets", "plan.conf")
    with open(plan, "w") as f:
        f.write("[settings]\nrepeat = 1\nwarmup = 0s\nconnections = 2\nrequests = 200\n"
                "[server serve]\nstart = exec %s serve --listen 127.0.0.1:%d -t 1\nurl = http://127.0.0.1:%d\n"
                "[workload api]\ntargets = cmp-api.txt\n" % (RAFALE, port, port))
    jpath = os.path.join(TMP, "tcmp.json")
    p = subprocess.run([RAFALE, "compare", "--json", jpath, plan], capture_output=True, text=True, timeout=RUN_TIMEOUT)
    check(p.returncode == 0 and "targets cmp-api.txt" in p.stdout, "compare: a workload of targets (%s)" % p.stderr[-200:])
    run = json.load(open(jpath))["compare"]["workloads"][0]["servers"][0]["run_results"][0]
    check([(u["name"], u["method"], u["summary"]["requests"]) for u in run["per_url"]] ==
          [(None, "GET", 100), ("create", "POST", 100)] and run["per_url"][0]["url"].startswith("http://127.0.0.1:%d/"
                                                                                              % port),
          "compare: the targets' paths go to the server, results per target")
    with open(plan, "a") as f:
        f.write("[workload broken]\ntargets = cmp-missing.txt\n")
    p = subprocess.run([RAFALE, "compare", plan], capture_output=True, text=True, timeout=RUN_TIMEOUT)
    check(p.returncode == 2 and "cmp-missing.txt" in p.stderr and "serve" not in p.stdout,
          "compare: a bad targets file stops it before any server starts (%s)" % p.stderr.strip())


@test
def cookies_per_connection():
    rec = RecServer()
    base = rec.url("").rstrip("/")
    path = targets_file("c.txt", "POST %s/login\n< user=a\n\nGET %s/me\n\nGET %s/items\n" % (base, base, base))
    r = rafale("--targets", path, "--order", "session", "--cookies", "-n", 30, "-c", 3, "-t", 1)
    check(r.j["summary"]["requests"] == 30, "cookies: the run completes")
    seen = {}
    for conn, method, p, h, _ in rec.records:
        seen.setdefault(conn, []).append((p, h.get("cookie")))
    ok = all(v[0] == ("/login", None) and all(ck == "sid=c%d; theme=dark" % conn or ck == "theme=dark; sid=c%d" % conn
                                              for _, ck in v[1:]) for conn, v in seen.items())
    check(len(seen) == 3 and ok, "cookies: set by one response, sent back on the same connection only (%s)"
          % {k: v[:2] for k, v in seen.items()})
    del rec.records[:]
    rafale("--targets", path, "--order", "session", "-n", 9, "-c", 1, "-t", 1)
    rec.stop()
    check(all(h.get("cookie") is None for _, _, _, h, _ in rec.records), "without --cookies, no Cookie field")


@test
def unix_socket_counts_exactly():
    sockp = os.path.join(TMP, "rec.sock")
    rec = RecServer(unix_path=sockp)
    r = rafale("--unix-socket", sockp, "-n", 500, "-c", 5, "-t", 2, "http://example.test/x")
    rec.stop()
    check(r.j["summary"]["requests"] == 500 and rec.requests == 500 and err_total(r.j) == 0,
          "--unix-socket: 500 requests, the server counted 500")
    check(all(h["host"] == "example.test" and p == "/x" for _, _, p, h, _ in rec.records),
          "--unix-socket: the URL still gives Host and path")
    srv = Serve(listen="unix:" + os.path.join(TMP, "serve.sock"), threads=2)
    r = rafale("--unix-socket", os.path.join(TMP, "serve.sock"), "--http2", "--streams", 4, "-n", 400, "-c", 4, "-t", 2,
               "http://localhost/json")
    conns, reqs = srv.stop()
    check(r.j["summary"]["requests"] == 400 and reqs == 400 and not os.path.exists(os.path.join(TMP, "serve.sock")),
          "rafale serve --listen unix:PATH over HTTP/2, counted exactly, socket file removed (%s)" % reqs)


@test
def per_target_bad_status():
    # Which target the server refused: a "bad status" column, only when some answer was unexpected.
    srv = Serve()
    tf = os.path.join(TMP, "bad.targets")
    with open(tf, "w") as f:
        f.write("GET %s  # name: fine\n\nGET %s  # name: missing\n" % (srv.url("/"), srv.url("/status/404")))
    r = rafale("--targets", tf, "-c", 2, "-n", 100)
    ok = rafale("-c", 2, "-n", 20, srv.url("/"), srv.url("/json"))
    srv.stop()
    rows = dict((l.split()[0], l.split()) for l in r.out.splitlines() if l.startswith("  fine") or l.startswith("  missing"))
    check("bad status" in r.out and rows.get("missing", [""] * 4)[3] == "50" and rows.get("fine", [""] * 4)[3] == "0",
          "per target: the 404 target's 50 bad statuses in their column: %s" % rows)
    check("bad status" not in ok.out and "Per URL" in ok.out, "no such column when every answer was expected")


@test
def template_values_cannot_smuggle():
    rec = RecServer()
    base = rec.url("").rstrip("/")
    inject = b'name\n"a\r\nX-Injected: 1\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: x"\n'
    path = targets_file("inj.txt", "GET %s/u\nX-User: {{csv inject.csv name}}\n" % base,
                        files=[("inject.csv", inject), ("spaces.csv", b"p\nhas space\n")])
    rc, _, err = run_raw(["--targets", path, "-n", 4])
    check(rc == 2 and one_line(err, path + ":2: a header: {{csv inject.csv name}}: data row 1 holds a CR"),
          "a CSV cell with CR LF is refused for a header, with FILE:LINE (%s %r)" % (rc, err))
    rc, _, err = run_raw(["--targets", path, "-n", 4, "--http2"])
    check(rc == 2 and "data row 1 holds a CR" in err, "... and over HTTP/2 (%s %r)" % (rc, err))
    rc, _, err = run_raw(["-n", 4, "-H", "X-User: {{env RAFALE_INJ}}", base + "/u"],
                         env={"RAFALE_INJ": "a\r\nX-Injected: 1\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: x"})
    check(rc == 2 and one_line(err, "{{env RAFALE_INJ}}: the value holds a CR"),
          "an environment value with CR LF is refused for -H (%s %r)" % (rc, err))
    p2 = targets_file("inj2.txt", "GET %s/u/{{csv spaces.csv p}}\n" % base)
    rc, _, err = run_raw(["--targets", p2, "-n", 1])
    check(rc == 2 and one_line(err, p2 + ":1: the URL: {{csv spaces.csv p}}: data row 1 holds a space") and
          "request-target" in err, "a value with a space is refused in the path (%s %r)" % (rc, err))
    for raw, byte in ((b"X-A: a\x7fb", "0x7f"), (b"X-A: a\rb", "0x0d"), (b"X-A: a\x01", "0x01")):
        p3 = targets_file("inj3.txt", "")
        with open(p3, "wb") as f:
            f.write(b"GET " + base.encode() + b"/u\n" + raw + b"\n")
        rc, _, err = run_raw(["--targets", p3, "-n", 1])
        check(rc == 2 and one_line(err, p3 + ":2: the value of header 'X-A' holds the control byte " + byte),
              "a header line with %s in a targets file is refused (%s %r)" % (byte, rc, err))
    rc, _, err = run_raw(["-n", 1, "-H", "X-A: a\x7f", base + "/u"])
    check(rc == 2 and one_line(err, "-H wants"), "-H with a DEL is refused (%s %r)" % (rc, err))
    rc, _, err = run_raw(["-n", 1, "-b", "hi", "-T", "text/plain\r\nContent-Length: 0\r\n\r\nGET /smuggled HTTP/1.1",
                          base + "/u"])
    check(rc == 2 and one_line(err, "-T wants a media type (no CR, LF or other control byte), not 'text/plain\\x0d"),
          "-T with CR LF is refused, in one line (%s %r)" % (rc, err))
    rc, _, err = run_raw(["-n", 1, base + "/caf\u00e9"])
    check(rc == 2 and "which is not ASCII: percent-encode it (%C3)" in err, "a raw non-ASCII path is refused (%r)" % err)
    p5 = targets_file("inj5.txt", "GET %s/u    # name: a\x1b[31mred\n" % base)
    rc, _, err = run_raw(["--targets", p5, "-n", 1])
    check(rc == 2 and one_line(err, p5 + ":1: the name holds the control byte 0x1b"), "a name with ESC (%r)" % err)
    # In a body, CR LF is data: sent as it is, counted once.
    p4 = targets_file("inj4.txt", "POST %s/b\n< {{csv inject.csv name}}\n" % base)
    r = rafale("--targets", p4, "-n", 2, "-c", 1)
    rec.stop()
    paths = [p for _, _, p, _, _ in rec.records]
    check(r.rc == 0 and paths == ["/b", "/b"] and rec.records[0][4].startswith(b"a\r\nX-Injected: 1\r\n"),
          "a body may hold CR LF (%s, %s)" % (r.rc, paths))
    check(rec.requests == 2, "nothing smuggled: the server read exactly the requests rafale counted (%d)" % rec.requests)


@test
@alone
def many_targets_linear_and_bounded():
    # 100 000 distinct targets: read in linear time (CPU, not wall clock: 10x the targets must not cost 50x) and,
    # per-target figures bounded (200 rows and one for the others), in under 110 MB.
    srv = Serve()

    def run(n, extra=()):
        path = targets_file("many%d.txt" % n, "".join("GET %s/item/%d\n\n" % (srv.url("").rstrip("/"), i)
                                                     for i in range(n)))
        jp = os.path.join(TMP, "many.json")
        p = subprocess.Popen([RAFALE, "-q", "--targets", path, "-c", "2", "-t", "2", "--json", jp] + list(extra),
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        return p.returncode, ru, json.load(open(jp)) if p.returncode == 0 else None

    rc1, ru1, _ = run(10000, ["-n", "1"])
    rc2, ru2, j = run(100000, ["-n", "3000", "--order", "sequential"])
    srv.stop()
    cpu1, cpu2 = ru1.ru_utime + ru1.ru_stime, ru2.ru_utime + ru2.ru_stime
    check(rc1 == 0 and rc2 == 0 and cpu2 < 50 * max(cpu1, 0.01), "100 000 targets cost %.2fs of CPU, 10 000 %.2fs"
          % (cpu2, cpu1))
    if not SANITIZED:
        # 99 MiB before the kernel timestamps (at the bound); their two histograms per row (latency_user,
        # client_delay) add 2 MiB over the 201 rows of each thread and the totals.
        check(ru2.ru_maxrss < 110 * 1024, "100 000 targets in %d MB" % (ru2.ru_maxrss >> 10))
    if check(j is not None, "the run of 100 000 targets reports"):
        rows = j["per_url"]
        check(len(rows) == 201 and rows[-1]["other_targets"] == 99800 and rows[-1]["url"] is None and
              rows[-1]["summary"]["requests"] == 2800 and sum(r["summary"]["requests"] for r in rows) == 3000 and
              j["summary"]["requests"] == 3000, "200 rows of their own, the others together (%d rows)" % len(rows))
        jp2 = os.path.join(TMP, "many-copy.json")
        json.dump(j, open(jp2, "w"))
        rp = subprocess.run([RAFALE, "report", jp2], capture_output=True, text=True, timeout=RUN_TIMEOUT)
        check(rp.returncode == 0 and "(99800 other targets)" in rp.stdout, "rafale report reads it back (%r)"
              % rp.stderr[:200])


@test
def follow_location_cannot_smuggle():
    rec = RecServer()
    loc = urllib.parse.quote("Location: /x HTTP/1.0 y", safe="")
    r = rafale("--follow", 3, "-n", 4, "-c", 1, "-t", 1, rec.url("/say/302?h=" + loc))
    rec.stop()
    j = r.j
    paths = [p for _, _, p, _, _ in rec.records]
    check(j["errors"].get("bad_value") == 4 and j["summary"]["requests"] == 0 and accounted(j),
          "a Location with spaces ends its request as bad_value (%s)" % j["errors"])
    check(len(paths) == 4 and all(p.startswith("/say/") for p in paths), "nothing else was sent (%s)" % paths[:5])
    check("bad_value" in r.out, "bad_value is named in the report")


@test
def follow_keeps_a_users_cookie():
    rec = RecServer()
    r = rafale("--follow", 3, "-n", 2, "-c", 1, "-t", 1, "-H", "Cookie: session=abc", rec.url("/redir/2"))
    cookies = [(p, h.get("cookie")) for _, _, p, h, _ in rec.records]
    check(r.j["summary"]["redirects_followed"] == 4 and len(cookies) == 6 and
          all(c == "session=abc" for _, c in cookies), "--follow keeps -H Cookie on every hop (%s)" % cookies)
    # With --cookies too: the user's field stays, the jar's is written afresh.
    del rec.records[:]
    base = rec.url("").rstrip("/")
    path = targets_file("fc.txt", "GET %s/login\n\nGET %s/redir/1\nCookie: mine=1\n" % (base, base))
    rafale("--targets", path, "--order", "session", "--cookies", "--follow", 2, "-n", 2, "-c", 1, "-t", 1)
    rec.stop()
    seen = [(p, h.get("cookie")) for _, _, p, h, _ in rec.records]
    check([p for p, _ in seen] == ["/login", "/redir/1", "/redir/0"] and
          all("mine=1" in (c or "") and "sid=c" in (c or "") for _, c in seen[1:]),
          "--cookies --follow: the user's Cookie and the jar's on every hop (%s)" % seen)


@test
def cookie_expiry_arithmetic():
    rec = RecServer()
    base = rec.url("").rstrip("/")

    def walk(*set_cookies):
        """Each Set-Cookie on a step of its own, then a last step: the Cookie field it carried."""
        del rec.records[:]
        steps = ["GET %s/say/200?h=%s\n" % (base, urllib.parse.quote("Set-Cookie: " + v + "; Path=/", safe=""))
                 for v in set_cookies]
        path = targets_file("ck.txt", "\n".join(steps + ["GET %s/check\n" % base]))
        r = rafale("--targets", path, "--order", "session", "--cookies", "-n", len(steps) + 1, "-c", 1, "-t", 1)
        last = [h.get("cookie") for _, _, p, h, _ in rec.records if p == "/check"]
        return r, last[0] if last else "(no /check)"

    for big in ("9223372036854775807", "99999999999999999999", "-9223372036854775808"):
        r, ck = walk("a=1; Max-Age=" + big)
        want = None if big.startswith("-") else "a=1"
        check(r.rc == 0 and ck == want, "Max-Age=%s: clamped, cookie %s (%r)" % (big, want, ck))
    r, ck = walk("a=1", "a=1; Expires=Thu, 01 Jan 1970 00:00:00 GMT")
    check(ck is None, "Expires at the epoch clears the cookie, as res.clearCookie() means (%r)" % ck)
    r, ck = walk("a=1; Max-Age=abc")
    check(ck == "a=1", "Max-Age=abc is ignored, the cookie kept (%r)" % ck)
    r, ck = walk("a=1; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=60")
    check(ck == "a=1", "Max-Age wins over Expires, in any order (%r)" % ck)
    r, ck = walk("a=1; Max-Age=0")
    check(ck is None, "Max-Age=0 removes it (%r)" % ck)
    rec.stop()


@test
def targets_file_hostile_shapes():
    d = os.path.dirname(targets_file("x.txt", "GET http://127.0.0.1:1/\n"))
    os.makedirs(os.path.join(d, "adir"), exist_ok=True)
    p = targets_file("dir.txt", "POST http://127.0.0.1:1/\n@adir\n")
    rc, _, err = run_raw(["--targets", p, "-n", 1])
    check(rc == 2 and one_line(err, p + ":2: @adir: Is a directory"), "@DIR says so (%s %r)" % (rc, err))
    # An endless stdin stops at the files' cap.
    proc = subprocess.Popen([RAFALE, "--targets", "-", "-n", "1"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    chunk = b"GET http://127.0.0.1:1/\n\n" * 4096
    fed = 0
    try:
        while fed < (80 << 20):
            proc.stdin.write(chunk)
            fed += len(chunk)
    except (BrokenPipeError, OSError):
        pass
    try:
        proc.stdin.close()
    except OSError:
        pass
    proc.stdin = None  # closed: communicate() must not flush it
    out, err = proc.communicate(timeout=RUN_TIMEOUT)
    check(proc.returncode == 2 and one_line(err.decode(), "(stdin)") and b"larger than 64 MiB" in err,
          "--targets - is capped at 64 MiB as files are (%s, fed %d MiB, %r)" % (proc.returncode, fed >> 20, err[:200]))
    # HTTP/2's limits of a templated request are the file's mistakes too, named at the header's line (for too many
    # fields, the first past the limit: 6 of rafale's come before the user's, so the 65th is X-F58 on line 60).
    big = "x" * 12000
    p = targets_file("h2big.txt", "GET http://127.0.0.1:1/\nX-Big: %s{{seq}}\n" % big)
    rc, _, err = run_raw(["--targets", p, "-n", 1, "--http2"])
    check(rc == 2 and one_line(err, p + ":2: a templated header value may reach"), "h2 value limit: %s %r" % (rc, err))
    p = targets_file("h2many.txt", "GET http://127.0.0.1:1/\n" + "".join("X-F%d: {{seq}}\n" % i for i in range(70)))
    rc, _, err = run_raw(["--targets", p, "-n", 1, "--http2"])
    check(rc == 2 and one_line(err, p + ":60: more than 64 header fields"), "h2 field limit: %s %r" % (rc, err))
    # A name that is not UTF-8 still makes valid JSON, read back by rafale report.
    srv = Serve()
    p = targets_file("utf.txt", "")
    with open(p, "wb") as f:
        f.write(b"GET " + srv.url("/").encode() + b"    # name: caf\xe9\n")
    jp = os.path.join(TMP, "utf.json")
    subprocess.run([RAFALE, "-q", "--targets", p, "-n", "3", "-c", "1", "--json", jp], capture_output=True,
                   timeout=RUN_TIMEOUT)
    srv.stop()
    raw_bytes = open(jp, "rb").read()
    try:
        raw_bytes.decode("utf-8")
        valid = True
    except UnicodeDecodeError:
        valid = False
    check(valid and json.loads(raw_bytes)["per_url"][0]["name"].startswith("caf"), "non-UTF-8 name: valid JSON")
    rp = subprocess.run([RAFALE, "report", jp], capture_output=True, text=True, errors="replace", timeout=RUN_TIMEOUT)
    check(rp.returncode == 0 and "caf" in rp.stdout, "... that rafale report reads (%s %r)" % (rp.returncode,
                                                                                        rp.stderr[:200]))


# --- API workloads: checks, extraction, think time (tests/api_server.py records what it got) ---

APISERVER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "api_server.py")


class ApiServer:
    def __init__(self, *args):
        self.port = free_port()
        self.log = os.path.join(TMP, "api-%d.log" % self.port)
        if os.path.exists(self.log):
            os.unlink(self.log)
        self.p = subprocess.Popen([sys.executable, APISERVER, "--port", str(self.port), "--log", self.log] + list(args),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.p.stdout.readline()
        wait_port(self.port)

    def url(self, path="/"):
        return "http://127.0.0.1:%d%s" % (self.port, path)

    def stop(self):
        self.p.terminate()
        self.p.wait(timeout=10)
        with open(self.log) as fh:
            return [json.loads(l) for l in fh]


@test
def checks_count_what_the_server_answered():
    srv = ApiServer()
    page = os.path.join(TMP, "checks.html")
    r = rafale("-n", 200, "-c", 2, "-t", 1, "--check", "status == 200", "--check", "json $.ok == true",
               "--check", "header Content-Type ~ ^application/json$", "--html", page, srv.url("/flaky"))
    seen = srv.stop()
    import xml.etree.ElementTree as ET
    html = open(page).read()
    ET.fromstring(html.split("\n", 1)[1])
    check("<h2>Checks</h2>" in html and '<td class="fail">20</td>' in html and "$.ok: false" in html,
          "checks: the HTML table, the failures marked")
    chk = {c["check"]: c for c in r.j["checks"]}
    # The server answered {"ok": false} to exactly every 10th of the 200 requests it got.
    check(len(seen) == 200 and chk["json $.ok == true"]["failed"] == 20 and chk["json $.ok == true"]["passed"] == 180,
          "checks: 20 of 200 failed, as the server counted (%s)" % chk.get("json $.ok == true"))
    check(chk["json $.ok == true"]["first_failure"] == "$.ok: false", "checks: the first failure shows what was seen")
    check(chk["status == 200"]["failed"] == 0 and chk["header Content-Type ~ ^application/json$"]["passed"] == 200,
          "checks: the others all passed")
    s = r.j["summary"]
    check(s["checked"] == 200 and s["checks_failed"] == 20 and s["requests"] == 200 and s["errors"] == 0,
          "checks: a failed check is a completed request, counted in checks_failed (%s)" %
          {k: s[k] for k in ("checked", "checks_failed", "requests")})
    check(r.j["latency"]["count"] == 200, "checks: all 200 in the latency figures, failed checks too")
    check("Checks        20 of 200 checked responses failed one (10.00%)" in r.err + r.out and
          "first failure: $.ok: false" in r.err + r.out, "checks: the text table")
    # --slo 'checks>99.9%' fails (90% passed), exit 3; checks>85% passes.
    srv = ApiServer()
    p = run_raw(["-q", "-n", 100, "-c", 1, "--check", "json $.ok == true", "--slo", "checks>99.9%", srv.url("/flaky")])
    p2 = run_raw(["-q", "-n", 100, "-c", 1, "--check", "json $.ok == true", "--slo", "checks>85%", srv.url("/flaky")])
    srv.stop()
    check(p[0] == 3 and "checks>99.9%" in p[1] and "90% passed" in p[1], "checks: --slo checks>99.9%% fails, exit 3 (%d)"
          % p[0])
    check(p2[0] == 0, "checks: --slo checks>85%% passes (%d)" % p2[0])


API_VISIT = """# A visit: log in, list, create, read back what was created.
# name: login
# check: status == 200
# check: json $.ok == true
# extract: token = json $.token
# extract: sid = cookie sid
POST %(u)s/login
Content-Type: application/json
< {"user": "demo", "pass": "%(pw)s"}

# name: list
# check: json $.items[1].id == 2
GET %(u)s/items
Authorization: Bearer {{var token}}

# name: create
# check: status == 201
# check: header Location ~ ^/items/[0-9]+$
# extract: where = header Location
# extract: id = json $.id
POST %(u)s/items
Authorization: Bearer {{var token}}
Content-Type: application/json
< {"name": "x"}

# name: show
# check: json $.id > 0
GET %(u)s/items/{{var id}}
Authorization: Bearer {{var token}}
X-Loc: {{var where}}

# name: me
# check: status == 200
GET %(u)s/me
Cookie: sid={{var sid}}

# name: form
# extract: csrf = body /name="csrf" value="([^"]+)"/
GET %(u)s/form

# name: post form
# check: status == 200
POST %(u)s/form
X-CSRF: {{var csrf}}
Content-Length: 0
"""


@test
def extraction_carries_values_into_the_next_requests():
    srv = ApiServer()
    path = targets_file("visit.targets", API_VISIT % dict(u=srv.url("").rstrip("/"), pw="secret"))
    r = rafale("-n", 210, "-c", 3, "-t", 1, "--order", "session", "--targets", path)
    seen = srv.stop()
    check(r.rc == 0 and r.j["summary"]["checks_failed"] == 0 and r.j["summary"]["skipped"] == 0 and
          r.j["summary"]["requests"] == 210, "extract: a session of 7 steps, every check passed (%s)" %
          [(c["target"], c["check"], c["failed"], c["first_failure"]) for c in r.j.get("checks", []) if c["failed"]])
    items = [x for x in seen if x["path"].startswith("/items")]
    # Each request carried its own connection's token: the one that connection's login got (keep-alive: one TCP
    # connection each, so the server sees the same client port).
    # (The connections share the 210 requests as they come: the split between steps is not exact.)
    check(len(items) >= 80 and all(x["auth"] and x["token_port"] == x["port"] for x in items),
          "extract: every /items request carried its own connection's token (%s)" %
          [x for x in items if x["token_port"] != x["port"]][:2])
    shows = [x for x in seen if x["path"].startswith("/items/")]
    check(len(shows) >= 25 and len(set(x["path"] for x in shows)) == len(shows) and
          all(x["xloc"] == x["path"] for x in shows),
          "extract: each read went to the item its own create made (its JSON id, and its Location header)")
    check(all(x["cookie"] and x["cookie"].startswith("sid=s-") for x in seen if x["path"] == "/me"),
          "extract: the cookie's value, taken from Set-Cookie")
    forms = [x for x in seen if x["method"] == "POST" and x["path"] == "/form"]
    check(len(forms) >= 25 and all(x["csrf"] and x["csrf"].startswith("c-") for x in forms),
          "extract: a regex group of an HTML body (the CSRF field)")
    # A failed login: nothing that needs its token is sent; the session goes on.
    srv = ApiServer()
    path = targets_file("visit-bad.targets", API_VISIT % dict(u=srv.url("").rstrip("/"), pw="wrong"))
    r = rafale("-n", 140, "-c", 2, "-t", 1, "--order", "session", "--targets", path)
    seen = srv.stop()
    s = r.j["summary"]
    sk = r.j["skipped_by_variable"]
    check(not [x for x in seen if x["path"].startswith("/items")] and s["skipped"] == sk["token"] + sk["sid"] and
          sk["token"] > 0 and sk["where"] == 0 and sk["id"] == 0 and s["skipped"] + s["started"] == 140,
          "extract: a failed login's token-needing requests are skipped, not sent (%s, %s)" % (sk, s["started"]))
    check(accounted(r.j), "extract: started = completed + errors + in flight")
    check("Skipped       %d requests not sent: a variable they need was not set (token: %d" % (s["skipped"], sk["token"])
          in r.err + r.out, "extract: the text says which variable")


@test
def think_time_spaces_a_connections_requests():
    srv = ApiServer()
    path = targets_file("think.targets", "# think: 150ms\nGET %s\n\n# name: b\nGET %s\n" % (srv.url("/flaky"),
                                                                                          srv.url("/me")))
    r = rafale("-n", 12, "-c", 2, "-t", 1, "--order", "session", "--targets", path, "--think", "50ms")
    seen = srv.stop()
    by_port = {}
    for x in seen:
        by_port.setdefault(x["port"], []).append(x)
    gaps = []
    for xs in by_port.values():
        for a, b in zip(xs, xs[1:]):
            gaps.append((a["path"], b["t"] - a["t"]))
    after_flaky = [g for p, g in gaps if p == "/flaky"]
    after_me = [g for p, g in gaps if p == "/me"]
    # The server saw each connection pause at least the think time after each answer: 150 ms after /flaky (its own
    # # think:), 50 ms after /me (--think).
    check(len(seen) == 12 and after_flaky and after_me and min(after_flaky) >= 0.15 and min(after_me) >= 0.05,
          "think: the gaps the server saw (%s, %s)" % (after_flaky, after_me))
    # A think time in the latency would put every sample at 50 ms or more.
    check(r.j["latency"]["min_us"] < 50000, "think: not in the latency figures (min %s us)" % r.j["latency"]["min_us"])
    check(r.j["config"]["think_s"] == [0.05, 0.05] and
          "think time: 50.0ms after each answer, # think: of its own on some targets (not in the latency figures)"
          in r.err + r.out, "think: the report says the configured think time")
    p = run_raw(["-q", "-n", 10, "-R", 10, "--think", "10ms", srv.url("/")])
    check(p[0] == 2 and one_line(p[2], "--think is for a closed loop"), "think: refused with -R (%r)" % p[2])


@test
def api_directives_are_checked_before_the_load():
    base = "GET http://127.0.0.1:1/\n"
    cases = [
        ("# check: status = 200\n" + base, ":1: # check: expected an operator"),
        ("# check: json items == 1\n" + base, ":1: # check: a JSON path begins with $"),
        ("\n\n# extract: tok json $.t\n" + base, ":3: # extract: an extraction is NAME = json PATH"),
        ("# think: soon\n" + base, ":1: # think: wants a duration or a range"),
        ("# think: 2s-1s\n" + base, ":1: # think: wants a duration"),
        ("# name: a\n# name: b\n" + base, ":2: a second '# name:'"),
        (base + "\n# check: status == 200\n", ":3: directives (# name:, # check:, # extract:, # think:) with no request"),
        ("# check: status == 200\nContent-Type: x\n", ":2: expected the request the directives of line 1 are for"),
        ("GET http://127.0.0.1:1/{{var nope}}\n", ":1: {{var nope}}: no '# extract: nope = ...' sets it"),
        ("# think: 10ms\n" + base, "# think: is for a closed loop"),
    ]
    for i, (text, want) in enumerate(cases):
        path = targets_file("bad-%d.targets" % i, text)
        args = ["-q", "-n", 1, "--targets", path] + (["-R", 10] if "closed loop" in want else [])
        p = run_raw(args)
        check(p[0] == 2 and want in p[2] and len(p[2].strip().splitlines()) == 1,
              "directives: %r refused with its line (%d %r)" % (want, p[0], p[2]))
    for args, want in ((["--check", "colour == red"], "--check 'colour == red': a check begins with status"),
                       (["--max-body", "lots"], "--max-body wants a size"),
                       (["--abort-on-fail"], "--abort-on-fail stops a run when its SLO is lost: give --slo too")):
        p = run_raw(["-q", "-n", 1] + args + ["http://127.0.0.1:1/"])
        check(p[0] == 2 and want in p[2] and len(p[2].strip().splitlines()) == 1, "options: %r (%d %r)" % (want, p[0],
                                                                                                            p[2]))


@test
def a_templated_body_never_sits_beside_a_framing_header():
    # A server chooses the extracted tok: a body longer than the user's Content-Length, or a chunked body's end,
    # followed by a request of its own. rafale frames a templated body itself: such a file is refused at the header's
    # line before anything is sent, so the recording server gets exactly what rafale counted: nothing.
    srv = RecServer()
    u = srv.url("").rstrip("/")
    smuggled = b"GET /smuggled HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n"
    cases = (("Content-Length: 13", '< {"t":"{{var tok}}"}', b"AAAAAAA" + smuggled),
             ("Transfer-Encoding: chunked", "< {{var tok}}", b"0\r\n\r\n" + smuggled))
    for i, (header, body, tok) in enumerate(cases):
        path = targets_file("smuggle-%d.targets" % i, "# extract: tok = body /<([^>]*)>/\nGET %s/say/200?b=%s\n\n"
                            "POST %s/body\nX-Any: 1\n%s\n%s\n" % (u, urllib.parse.quote(b"<" + tok + b">", safe=""), u,
                                                                header, body))
        for proto in ([], ["--http2"], ["--pipeline", "2"]):
            p = run_raw(["-q", "-n", 6, "-c", 1, "-t", 1, "--order", "session", "--targets", path] + proto)
            check(p[0] == 2 and one_line(p[2], "smuggle-%d.targets:6: %s beside a templated body: rafale sets each "
                                               "request's length itself; remove this header" % (i, header.split(":")[0]))
                  and srv.records == [],
                  "smuggling: %s beside a templated body %s refused at its line, nothing sent (%d %r, the server got %s)"
                  % (header, proto, p[0], p[2], [r[2] for r in srv.records]))
    # The same from the command line: -H beside a templated -b.
    p = run_raw(["-q", "-n", 2, "-H", "Transfer-Encoding: chunked", "-b", "{{env TOK}}", u + "/body"],
                env={"TOK": "0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n"})
    srv.stop()
    check(p[0] == 2 and one_line(p[2], "--header 'Transfer-Encoding: chunked': Transfer-Encoding beside a templated "
                                       "body") and srv.records == [],
          "smuggling: -H beside a templated -b refused (%d %r, the server got %s)" % (p[0], p[2],
                                                                                    [r[2] for r in srv.records]))


@test
def framing_headers_that_lie_are_refused():
    srv = RecServer()
    u = srv.url("").rstrip("/")
    chunk = ("chunk.bin", b"3\r\nabc\r\n0\r\n\r\n")
    cases = (
        ('POST %s/a\nContent-Length: 13\n< {"t":"abc"}\n', ":2: Content-Length: 13 but the body is 11 bytes: the server "
                                                           "would read the difference from the next request; write 11"),
        ("GET %s/a\nX-A: b\nContent-Length: 5\n", ":3: Content-Length: 5 but the body is 0 bytes"),
        ("POST %s/a\nContent-Length: 3\nContent-Length: 3\n< abc\n", ":3: a second Content-Length"),
        ("POST %s/a\nContent-Length: 0x3\n< abc\n", ":2: Content-Length wants a number of bytes"),
        ("POST %s/a\nContent-Length: {{rand 1 9}}\n< abc\n", ":2: a templated Content-Length"),
        ("POST %s/a\nTransfer-Encoding: gzip\n< abc\n", ":2: Transfer-Encoding must end in chunked"),
        ("POST %s/a\nTransfer-Encoding: chunked, chunked\n@chunk.bin\n", ":2: Transfer-Encoding must end in chunked"),
        ("POST %s/a\nTransfer-Encoding: chunked\n< abc\n", ":2: the body is not one whole chunked message"),
        ("POST %s/a\nTransfer-Encoding: chunked\n", ":2: Transfer-Encoding without a body"),
        ("POST %s/a\nContent-Length: 13\nTransfer-Encoding: chunked\n@chunk.bin\n",
         ":3: Content-Length beside Transfer-Encoding"),
    )
    for i, (text, want) in enumerate(cases):
        path = targets_file("lie-%d.targets" % i, text % u, files=[chunk])
        p = run_raw(["-q", "-n", 2, "--targets", path])
        check(p[0] == 2 and one_line(p[2], "lie-%d.targets%s" % (i, want)) and srv.records == [],
              "framing: %r refused (%d %r, the server got %s)" % (want, p[0], p[2], [r[2] for r in srv.records]))
    p = run_raw(["-q", "-n", 2, "-H", "Content-Length: 4", "-b", "abc", u + "/a"])
    check(p[0] == 2 and one_line(p[2], "--header 'Content-Length: 4': Content-Length: 4 but the body is 3 bytes") and
          srv.records == [], "framing: -H Content-Length beside a shorter -b refused (%d %r)" % (p[0], p[2]))
    # Honest framing of the user's own goes as written: a right length, a whole chunked body.
    path = targets_file("honest.targets", "POST %s/len\nContent-Length: 3\n< abc\n\nPOST %s/chunked\n"
                                          "Transfer-Encoding: gzip, chunked\n@chunk.bin\n" % (u, u), files=[chunk])
    r = rafale("-n", 4, "-c", 1, "-t", 1, "--targets", path)
    srv.stop()
    got = sorted((x[2], x[4]) for x in srv.records)
    check(r.rc == 0 and err_total(r.j) == 0 and got == [("/chunked", b"abc")] * 2 + [("/len", b"abc")] * 2,
          "framing: the user's right Content-Length and whole chunked body are sent as written (%s)" % got)


@test
def checks_and_extraction_over_http2():
    srv = Serve()
    path = targets_file("h2.targets", "# extract: n = json $.items[2]\n# check: header content-type ~ json\n"
                                      "GET %s\n\n# check: size == 300\n# check: status == 200\nGET %s/bytes/{{var n}}00\n"
                        % (srv.url("/json"), srv.url("").rstrip("/")))
    r = rafale("--http2", "-n", 100, "-c", 2, "-t", 1, "--order", "session", "--targets", path, "--check",
               "body contains \"\"")
    srv.stop()
    failed = [(c["target"], c["check"], c["first_failure"]) for c in r.j.get("checks", []) if c["failed"]]
    check(r.rc == 0 and r.j["summary"]["checked"] == 100 and r.j["summary"]["checks_failed"] == 0 and not failed and
          r.j["summary"]["protocol"] == "h2", "h2: checks on fields and DATA, an extracted value in a path (%s)" % failed)
    # Each connection walks json, bytes, json...; how many requests each
    # connection takes of the 100 depends on timing, so the targets' shares
    # come from per_url (2 checks on /json, 3 on /bytes).
    n = [u["summary"]["requests"] for u in r.j["per_url"]]
    check(sum(c["passed"] for c in r.j["checks"]) == n[0] * 2 + n[1] * 3 and sum(n) == 100 and abs(n[0] - n[1]) <= 2,
          "h2: every check counted (%s)" % n)


@test
def shards_sum_their_checks_exactly():
    srv = ApiServer()
    paths, outs = run_shards(2, ["-n", 100, "-c", 2, "-t", 1, "--check", "json $.ok == true"], srv.url("/flaky"),
                             "chk")
    srv.stop()
    p = merge("--json", os.path.join(TMP, "chk-merged.json"), *paths)
    m = json.load(open(os.path.join(TMP, "chk-merged.json")))
    c = m["checks"][0]
    check(p.returncode == 0 and c["passed"] + c["failed"] == 100 and c["failed"] == 10 and
          m["summary"]["checks_failed"] == 10 and m["summary"]["checked"] == 100,
          "shards: the merged checks are the sum, exactly (%s)" % c)


@test
def abort_on_fail_stops_when_the_slo_is_lost():
    srv = Serve()
    # Every answer takes 5 ms: p99 < 3 ms is lost from the first second; judged from 1 s on.
    r = rafale("-c", 2, "-t", 1, "-d", "30s", "--slo", "p99<3ms", "--abort-on-fail", "--abort-after", "1s",
               srv.url("/delay/5"), timeout=60)
    a = r.j.get("aborted") if r.j else None
    check(r.rc == 3 and a and 1.0 <= a["at_s"] <= 3.0 and r.j["summary"]["elapsed_s"] <= 3.0 and
          re.match(r"p99<3ms \(measured [0-9.]+ms over the first [0-9]+s\)$", a["why"]),
          "abort: stopped within 2 s of the breach, exit 3 (%s %s)" % (r.rc, a))
    check("Aborted       the SLO was lost" in r.err + r.out and accounted(r.j),
          "abort: the report says so, and every request is accounted for")
    # A healthy run with the same watch runs to its end: no false alarm.
    r = rafale("-c", 2, "-t", 1, "-d", "2500ms", "--slo", "p99<1s,errors<1%", "--abort-on-fail", "--abort-after", "1s",
               srv.url("/"))
    srv.stop()
    check(r.rc == 0 and "aborted" not in r.j and r.j["summary"]["elapsed_s"] >= 2.4,
          "abort: a healthy run is not stopped (%s %s)" % (r.rc, r.j.get("aborted")))
    # The checks' share too: 90% pass, checks>95% is lost.
    api = ApiServer()
    r = rafale("-c", 1, "-t", 1, "-d", "30s", "--check", "json $.ok == true", "--slo", "checks>95%", "--abort-on-fail",
               "--abort-after", "1s", api.url("/flaky"), timeout=60)
    api.stop()
    a = r.j.get("aborted") if r.j else None
    check(r.rc == 3 and a and a["at_s"] <= 3.0 and "checks>95%" in a["why"], "abort: on the checks' share (%s)" % a)


def json_answer(body, extra=b""):
    return b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n%sContent-Length: %d\r\n\r\n%s" % (extra, len(body),
                                                                                                   body)


@test
def api_edges_timeouts_skips_redirects_sizes_parking():
    """An API run at its edges: a pipelined request still times out under --think; rate mode's skipped requests
    go on over every connection and -n ends; a refused redirect's bytes are not the next answer's; after interim
    answers (103) the final one is checked; --abort-on-fail does not judge before the first answer; a body's size
    is known past --max-body (chunked, HEAD: 0), not past a head longer than what is kept; --order random parks
    no connection by chance; long JSON strings and numbers compare; connections with nothing they can send end
    the run and it says so; --slo checks with no --check is refused."""
    # --think with requests still out (pipelining) kept the request timeout's timer: a stalled answer hung the run.
    srv = ScriptServer(lambda p, n: json_answer(b"{}") if n == 1 else None)
    r = rafale("-c", 1, "-n", 4, "--pipeline", 2, "--think", "50ms", "--timeout", "1s", srv.url("/a"), timeout=30)
    srv.stop()
    check(r.rc == 0 and r.j and r.j["summary"]["requests"] == 1 and r.j["errors"].get("timeout_answer", 0) >= 1,
          "think: a pipelined request still times out (%s)" % (r.j and r.j["errors"]))
    # Rate mode: a connection whose request was skipped was dropped from the queue (-n hung, -d sent nothing).
    srv = Serve()
    path = targets_file("never.targets", "# extract: nope = json $.nope\nGET %s\n\nGET %s/{{var nope}}\n"
                        % (srv.url("/"), srv.url("").rstrip("/")))
    r = rafale("-c", 4, "-R", 200, "-n", 200, "--order", "session", "--targets", path, timeout=30)
    srv.stop()
    s = r.j["summary"] if r.j else {}
    # Each connection alternates a sent request and a skipped one; which connection takes which due time depends
    # on when answers come, so each of the 4 may end on either: exactly 100 each on a quiet machine, 98/102 on a
    # busy one, never more than a step per connection apart.
    check(r.rc == 0 and s.get("skipped", 0) + s.get("started", 0) == 200 and
          abs(s.get("skipped", 0) - s.get("started", 0)) <= 4 and s.get("requests") == s.get("started"),
          "rate mode: skips go on over every connection, -n ends (%s)" %
          {k: s.get(k) for k in ("skipped", "started", "requests")})
    # A refused redirect left its bytes in the capture: the next answer was checked against it.
    def redir(p, n):
        if p == "/redir":
            return b"HTTP/1.1 302 Found\r\nLocation: /x y\r\nX-Which: redirect\r\nContent-Length: 16\r\n\r\n{\"a\":\"redirect\"}"
        return json_answer(b'{"a":"final"}', b"X-Which: final\r\n")
    srv = ScriptServer(redir)
    path = targets_file("redir.targets", "GET %s\n\n# check: json $.a == \"final\"\n# check: header X-Which == final\n"
                        "GET %s\n" % (srv.url("/redir"), srv.url("/ok")))
    r = rafale("-c", 1, "-n", 6, "--follow", 3, "--targets", path)
    srv.stop()
    check(r.j and r.j["summary"]["checks_failed"] == 0 and r.j["errors"].get("bad_value") == 3,
          "follow: a refused redirect's bytes are not the next answer's (%s)" % (r.j and r.j["checks"]))
    # Interim answers (103 Early Hints, 100 Continue) before the final one: the final one is checked.
    srv = ScriptServer(lambda p, n: b"HTTP/1.1 103 Early Hints\r\nLink: </s.css>\r\n\r\n" + json_answer(b'{"a":1}'))
    r = rafale("-c", 1, "-n", 5, "--check", "json $.a == 1", "--check", "header Content-Type ~ json", srv.url("/"))
    srv.stop()
    check(r.j and r.j["summary"]["checks_failed"] == 0 and r.j["summary"]["checked"] == 5,
          "interim: the final answer is checked (%s)" % (r.j and r.j["checks"]))
    # --abort-on-fail: nothing answered yet is not a lost SLO.
    srv = Serve()
    r = rafale("-c", 2, "-d", "3500ms", "--slo", "p99<10s", "--abort-on-fail", "--abort-after", "1s",
               srv.url("/delay/2500"), timeout=30)
    check(r.rc == 0 and "aborted" not in r.j, "abort: a slow first answer is not judged before it comes (%s)" %
          r.j.get("aborted"))
    # A chunked body longer than what is kept: its size is known all the same, the parser counting its data apart
    # from its chunk lines (before, "size not known", where HTTP/2 knew it), and its body checks say it is too long.
    r = rafale("-c", 1, "-n", 3, "--max-body", "1k", "--check", "size == 100000", "--check", "body ~ x",
               srv.url("/chunked/100000"))
    r2 = rafale("-c", 1, "-n", 3, "--check", "size == 100000", srv.url("/chunked/100000"))
    # HEAD: no body follows a Transfer-Encoding: chunked (RFC 9110 section 9.3.2), its size 0 (before, "size not
    # known", the framing read as if a body came).
    r3 = rafale("-c", 1, "-n", 3, "-m", "HEAD", "--check", "size == 0", srv.url("/chunked/100"))
    srv.stop()
    c = {k["check"]: k for k in r.j["checks"]}
    check(c["size == 100000"]["passed"] == 3 and c["body ~ x"]["failed"] == 3 and
          c["body ~ x"]["first_failure"].startswith("the body is longer than --max-body") and
          r2.j["checks"][0]["passed"] == 3, "size: known past what is kept, exact within (%s, %s)" %
          (r.j["checks"], r2.j["checks"][0]))
    check(r3.j["checks"][0]["passed"] == 3, "size: a HEAD answer's is 0, chunked or not (%s)" % r3.j["checks"])
    # A head longer than what is kept (20 fields of 8000 bytes): neither its fields nor its size are guessed.
    big = b"".join(b"X-F%02d: %s\r\n" % (i, b"v" * 8000) for i in range(20))
    srv = ScriptServer(lambda p, n: b"HTTP/1.1 200 OK\r\n" + big + b"X-Last: 1\r\nContent-Length: 2\r\n\r\nok")
    r = rafale("-c", 1, "-n", 2, "--max-body", "1k", "--check", "header X-Last exists", "--check", "size == 2",
               srv.url("/"))
    srv.stop()
    c = {k["check"]: k for k in r.j["checks"]}
    check(c["header X-Last exists"]["failed"] == 2 and c["size == 2"]["failed"] == 2 and
          c["header X-Last exists"]["first_failure"].startswith("the head is longer") and
          c["size == 2"]["first_failure"] == "size not known: the head is longer than the bytes kept",
          "size: not known past a head longer than what is kept (%s)" % r.j["checks"])
    # --order random: a connection is stopped only when none of its targets can be sent, not by a run of bad luck.
    srv = Serve()
    text = "# extract: tok = body /(Hello)/\nGET %s\n\n" % srv.url("/") + "".join(
        "GET %s/?u={{var tok}}\n\n" % srv.url("").rstrip("/") for _ in range(9))
    path = targets_file("random.targets", text)
    r = rafale("-c", 40, "-t", 1, "-n", 3000, "--order", "random", "--seed", 7, "--targets", path)
    srv.stop()
    check(r.j["summary"]["connections_opened"] == 40 and r.j.get("parked_connections") == 0,
          "random order: no connection stopped by chance (%s opened, %s parked)" %
          (r.j["summary"]["connections_opened"], r.j.get("parked_connections")))
    # A long JSON string (past the decode buffer) and a long number are still compared.
    body = b'{"x": "b' + b"a" * 2000 + b'", "n": 1.' + b"0" * 100 + b'}'
    srv = ScriptServer(lambda p, n: json_answer(body))
    r = rafale("-c", 1, "-n", 2, "--check", "json $.x ~ ^ba+$", "--check", "json $.n > 0", "--check",
               "json $.x contains aaaa", srv.url("/"))
    srv.stop()
    check(r.j["summary"]["checks_failed"] == 0, "json: long strings and numbers (%s)" % r.j["checks"])
    # Every connection stopped: the report says so; --slo checks with nothing checked is refused.
    srv = Serve()
    path = targets_file("dead.targets", "# extract: none = json $.never\nGET %s/{{var none}}\n" % srv.url("").rstrip("/"))
    path2 = targets_file("dead2.targets", "# extract: none = json $.never\nGET %s/x\n\nGET %s/{{var none}}\n"
                         % (srv.url("").rstrip("/"), srv.url("").rstrip("/")))
    r = rafale("-c", 2, "-n", 50, "--order", "session", "--targets", path, timeout=30)
    r2 = rafale("-c", 2, "-n", 50, "--order", "session", "--targets", path2)
    p = run_raw(["-q", "-n", 5, "--slo", "checks>99%", srv.url("/")])
    srv.stop()
    check(r.rc == 0 and r.j["parked_connections"] == 2 and r.j["summary"]["started"] == 0 and
          "Stopped       2 connections took no more work" in r.err + r.out,
          "stopped: connections with nothing they can send end the run, and it says so (%s)" % r.j.get("parked_connections"))
    check(r2.rc == 0 and r2.j["parked_connections"] == 0 and r2.j["summary"]["skipped"] >= 20 and
          r2.j["summary"]["started"] >= 20 and r2.j["summary"]["skipped"] + r2.j["summary"]["started"] == 50, "session: a target that can be sent keeps a connection going (%s)" %
          r2.j["summary"])
    check(p[0] == 2 and one_line(p[2], "--slo checks>99%: no response is checked"), "slo: checks without a check (%r)"
          % p[2])


@test
def curls_connection_habits():
    # --connect-to and --resolve: the connection goes elsewhere, the URL's host stays in Host.
    srv = ScriptServer(lambda p, n: json_answer(b"{}"))
    r = rafale("-n", 3, "-c", 1, "--connect-to", "API.Example:80:127.0.0.1:%d" % srv.port, "http://api.example/x")
    r2 = rafale("-n", 3, "-c", 1, "--resolve", "api.example:%d:127.0.0.1" % srv.port,
                "http://api.example:%d/y" % srv.port)
    # An IPv6 URL host, bracketed as in the URL (the server listens on 127.0.0.1 only: only the map gets there).
    r3 = rafale("-n", 2, "-c", 1, "--connect-to", "[::1]:%d:127.0.0.1:%d" % (srv.port, srv.port),
                "http://[::1]:%d/z" % srv.port)
    srv.stop()
    hosts = [h.split("\r\nHost: ", 1)[1].split("\r\n")[0] for h in srv.heads]
    check(r.j["summary"]["requests"] == 3 and r2.j["summary"]["requests"] == 3 and
          r3.j["summary"]["requests"] == 2 and r3.j["summary"]["errors"] == 0 and
          hosts == ["api.example"] * 3 + ["api.example:%d" % srv.port] * 3 + ["[::1]:%d" % srv.port] * 2,
          "connect-to, resolve: the server got the URL's Host (%s)" % hosts)
    for args, want in ((["--key", "/etc/hostname"], "--key is the private key of a --cert: give --cert too"),
                       (["--connect-to", "a:b"], "--connect-to wants HOST:PORT:HOST2:PORT2"),
                       (["--connect-to", "[::1:80:a:1"], "--connect-to wants HOST:PORT:HOST2:PORT2"),
                       (["--connect-to", "[::1]80:a:1"], "--connect-to wants HOST:PORT:HOST2:PORT2"),
                       (["--connect-to", "[]:80:a:1"], "--connect-to wants HOST:PORT:HOST2:PORT2"),
                       (["--connect-to", "h:80:[x:81"], "--connect-to wants HOST:PORT:HOST2:PORT2"),
                       (["--connect-to", "h:80:]:1"], "--connect-to wants HOST:PORT:HOST2:PORT2"),
                       (["--connect-to", "h:+80:a:1"], "--connect-to wants HOST:PORT:HOST2:PORT2"),
                       (["--resolve", "[]:80:127.0.0.1"], "--resolve wants HOST:PORT:ADDRESS"),
                       (["--resolve", "h:80:[::2"], "--resolve wants HOST:PORT:ADDRESS"),
                       (["--resolve", "a:80:"], "--resolve wants HOST:PORT:ADDRESS"),
                       (["--cert", "/nonexistent.pem"], "--cert: cannot read '/nonexistent.pem'")):
        p = run_raw(["-q", "-n", 1] + args + ["http://127.0.0.1:1/"])
        check(p[0] == 2 and want in p[2] and len(p[2].strip().splitlines()) == 1, "%s (%d %r)" % (want, p[0], p[2]))
    # --cert and --key: a server that asks for a client certificate (rafale serve --tls-client-ca).
    d = make_certs()

    def ossl(*a):
        subprocess.run(["openssl"] + list(a), cwd=d, check=True, capture_output=True)
    if not os.path.exists(os.path.join(d, "client.pem")):
        ossl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "client.key", "-out", "client.csr", "-subj", "/CN=client")
        ossl("x509", "-req", "-in", "client.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out",
             "client.pem", "-days", "2")
    tls = Serve("--tls-cert", os.path.join(d, "srv.pem"), "--tls-key", os.path.join(d, "srv.key"),
                "--tls-client-ca", os.path.join(d, "ca.pem"))
    url = "https://localhost:%d/" % tls.port
    base = ["-n", 20, "-c", 2, "--cacert", os.path.join(d, "ca.pem"), "--connect-to",
            "localhost:%d:127.0.0.1:%d" % (tls.port, tls.port)]
    r = rafale(*(base + ["--cert", os.path.join(d, "client.pem"), "--key", os.path.join(d, "client.key"), url]))
    r2 = rafale(*(base + [url]))
    # New connections resume their TLS session, client certificate and all.
    r4 = rafale(*(base + ["--close", "--cert", os.path.join(d, "client.pem"), "--key", os.path.join(d, "client.key"),
                          url]))
    check(r4.j["summary"]["requests"] == 20 and r4.j["summary"]["errors"] == 0 and r4.j["tls"]["resumed"] > 0,
          "mTLS: resumed handshakes work (%s, %s)" % (r4.j["errors"], r4.j.get("tls")))
    for h2 in ([], ["--http2"]):
        r3 = rafale(*(base + h2 + ["--cert", os.path.join(d, "client.pem"), "--key", os.path.join(d, "client.key"),
                                   url]))
        check(r3.j["summary"]["requests"] == 20 and r3.j["summary"]["errors"] == 0, "mTLS %s" % (h2 or "HTTP/1.1"))
    tls.stop()
    check(r.j["summary"]["requests"] == 20 and r.j["summary"]["errors"] == 0,
          "mTLS: with --cert and --key, every request answered (%s)" % r.j["errors"])
    check(r2.j["summary"]["requests"] == 0 and r2.j["summary"]["errors"] == 20 and
          sum(v for k, v in r2.j["errors"].items() if k in ("tls", "reset", "closed_early", "write")) == 20,
          "mTLS: without a client certificate the server refuses every handshake (TLS 1.3: the refusal may come as the "
          "request is written) (%s)" % r2.j["errors"])
    p = run_raw(["serve", "--listen", "127.0.0.1:0", "--tls-client-ca", os.path.join(d, "ca.pem")])
    check(p[0] == 2 and one_line(p[2], "--tls-client-ca asks for client certificates over TLS"),
          "serve: --tls-client-ca without a certificate of its own (%r)" % p[2])


@test
def encrypted_key_pass_phrase():
    # An encrypted --key: OpenSSL's default asks for the phrase on standard input when there is no terminal, so a
    # CI job (stdin an idle pipe) waited forever, and with /dev/null got "Enter PEM pass phrase:" twice and "PEM lib".
    # Now the phrase comes from --key-pass env:/file:/pass: or --pass, and without it one line says why, at once.
    d = make_certs()
    e = os.path.join(TMP, "tls-pass")
    os.makedirs(e, exist_ok=True)
    phrase = "s3cr3t-Phrase-81"

    def ossl(*a):
        subprocess.run(["openssl"] + list(a), cwd=e, check=True, capture_output=True)
    ossl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-aes-128-cbc", "-pass",
         "pass:" + phrase, "-out", "enc.key")
    ossl("req", "-new", "-key", "enc.key", "-passin", "pass:" + phrase, "-out", "enc.csr", "-subj", "/CN=client")
    ossl("x509", "-req", "-in", "enc.csr", "-CA", os.path.join(d, "ca.pem"), "-CAkey", os.path.join(d, "ca.key"),
         "-set_serial", "81", "-out", "enc.pem", "-days", "2")
    with open(os.path.join(e, "phrase.txt"), "w") as f:
        f.write(phrase + "\nnot this line\n")
    key = os.path.join(e, "enc.key")
    cert = ["--cert", os.path.join(e, "enc.pem"), "--key", key]

    def no_tty(args, stdin, env=None):
        """rafale in a session of its own (no terminal to prompt on), its stdin /dev/null (DEVNULL) or a pipe kept
        open and never written (PIPE); (rc, out, err), or None when it has not ended within 15 s."""
        idle = os.pipe() if stdin == subprocess.PIPE else None
        p = subprocess.Popen([RAFALE] + [str(a) for a in args], stdin=idle[0] if idle else stdin,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                             env=dict(os.environ, **(env or {})))
        if idle:
            os.close(idle[0])
        try:
            out, err = p.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()
            return None
        finally:
            if idle:
                os.close(idle[1])
        if "runtime error" in err or "AddressSanitizer" in err:
            check(False, "sanitizer report for %s:\n%s" % (args, err[:3000]))
        return p.returncode, out, err

    locked = "--key %s: the key is encrypted; give its pass phrase with --key-pass env:NAME, file:PATH or pass:PHRASE" % key
    for what, stdin in (("an idle pipe", subprocess.PIPE), ("/dev/null", subprocess.DEVNULL)):
        p = no_tty(["-q", "-n", 1] + cert + ["https://127.0.0.1:1/"], stdin)
        check(p is not None and p[0] == 2 and one_line(p[2], locked) and "pass phrase:" not in p[1] + p[2],
              "encrypted key, no phrase, stdin %s: one line, exit 2, no prompt (%r)" % (what, p))
    for args, env, want in (
            (["--key-pass", "pass:wrong"], None, "--key %s: wrong pass phrase (bad decrypt)" % key),
            (["--key-pass", "env:RAFALE_NO_SUCH_VAR"], None, "--key-pass env:RAFALE_NO_SUCH_VAR: the variable "
                                                             "RAFALE_NO_SUCH_VAR is not set"),
            (["--key-pass", "file:" + e + "/nope.txt"], None, "--key-pass file:%s/nope.txt: cannot read it" % e),
            (["--key-pass", phrase], None, "--key-pass wants env:NAME, file:PATH or pass:PHRASE"),
            (["--key-pass", "penv:X"], None, "--key-pass wants env:NAME, file:PATH or pass:PHRASE, not 'penv:...'")):
        p = no_tty(["-q", "-n", 1] + cert + args + ["https://127.0.0.1:1/"], subprocess.DEVNULL, env)
        check(p is not None and p[0] == 2 and one_line(p[2], want) and phrase not in p[2],
              "%s: %s (%r)" % (args, want, p))
    p = no_tty(["-q", "-n", 1, "--key-pass", "pass:x", "https://127.0.0.1:1/"], subprocess.DEVNULL)
    check(p is not None and p[0] == 2 and one_line(p[2], "give --cert too"), "--key-pass without --cert (%r)" % (p,))
    # Each source, end to end against a server that asks for the certificate; the phrase in no output.
    tls = Serve("--tls-cert", os.path.join(d, "srv.pem"), "--tls-key", os.path.join(d, "srv.key"),
                "--tls-client-ca", os.path.join(d, "ca.pem"))
    url = "https://localhost:%d/" % tls.port
    base = ["-n", 10, "-c", 2, "--cacert", os.path.join(d, "ca.pem"), "--connect-to",
            "localhost:%d:127.0.0.1:%d" % (tls.port, tls.port)] + cert
    for i, (args, env) in enumerate(((["--key-pass", "env:RAFALE_TEST_KEY_PASS"], {"RAFALE_TEST_KEY_PASS": phrase}),
                                     (["--key-pass", "file:" + os.path.join(e, "phrase.txt")], None),
                                     (["--key-pass", "pass:" + phrase], None), (["--pass", phrase], None))):
        jp, lp = os.path.join(e, "run%d.json" % i), os.path.join(e, "run%d.log" % i)
        p = no_tty(base + args + ["--json", jp, "--log", lp, url], subprocess.DEVNULL, env)
        j = json.load(open(jp)) if p is not None and os.path.exists(jp) else None
        written = (open(jp).read() if j else "") + (open(lp).read() if os.path.exists(lp) else "")
        check(p is not None and p[0] == 0 and j and j["summary"]["requests"] == 10 and j["summary"]["errors"] == 0 and
              phrase not in written + p[1] + p[2], "mTLS with %s: 10 answered, the phrase nowhere (%r)" % (
              args[0] + (" " + args[1].split(":")[0] if args[0] == "--key-pass" else ""), p and p[2]))
    tls.stop()
    # rafale serve: its encrypted key without a phrase is refused in one line that says how to give one, without a
    # prompt; with --key-pass (the client's sources) it serves, over TCP (OpenSSL) and HTTP/3 (GnuTLS). Before, serve
    # had no way to take a phrase at all.
    p = no_tty(["serve", "--listen", "127.0.0.1:0", "--tls-cert", os.path.join(e, "enc.pem"), "--tls-key", key],
               subprocess.PIPE)
    check(p is not None and p[0] == 1 and
          one_line(p[2], "--tls-key %s: the key is encrypted; give its pass phrase with --key-pass env:NAME, "
                         "file:PATH or pass:PHRASE" % key), "serve: an encrypted key, refused at once (%r)" % (p,))
    ossl("pkey", "-in", os.path.join(d, "srv.key"), "-aes-128-cbc", "-passout", "pass:" + phrase, "-out", "srv-enc.key")
    skey = os.path.join(e, "srv-enc.key")
    srv_tls = ["--tls-cert", os.path.join(d, "srv.pem"), "--tls-key", skey]
    for args, want, rc in ((["--key-pass", "pass:wrong"], "--tls-key %s: wrong pass phrase (bad decrypt)" % skey, 1),
                           (["--key-pass", "penv:X"], "--key-pass wants env:NAME, file:PATH or pass:PHRASE, not "
                                                      "'penv:...'", 2),
                           (["--key-pass", phrase], "--key-pass wants env:NAME, file:PATH or pass:PHRASE", 2)):
        p = no_tty(["serve", "--listen", "127.0.0.1:0"] + srv_tls + args, subprocess.PIPE)
        check(p is not None and p[0] == rc and one_line(p[2], want) and phrase not in p[2],
              "serve %s: %s (%r)" % (args, want, p))
    p = no_tty(["serve", "--listen", "127.0.0.1:0", "--key-pass", "pass:x"], subprocess.PIPE)
    check(p is not None and p[0] == 2 and one_line(p[2], "--key-pass goes with --tls-key"),
          "serve --key-pass without a key (%r)" % (p,))
    h3 = "built without HTTP/3" not in run_raw(["-q", "--http3", "-n", 1, "https://127.0.0.1:1/"])[2]
    os.environ["RAFALE_TEST_KEY_PASS"] = phrase
    try:
        for i, args in enumerate((["--key-pass", "env:RAFALE_TEST_KEY_PASS"],
                                  ["--key-pass", "file:" + os.path.join(e, "phrase.txt")],
                                  ["--key-pass", "pass:" + phrase])):
            srv = Serve(*(srv_tls + args + (["--http3"] if h3 else [])))
            url = "https://127.0.0.1:%d/" % srv.port
            ca = ["--cacert", os.path.join(d, "ca.pem")]
            ok = [run_raw(["-q", "-n", 10, "-c", 2] + proto + ca + ["--json", os.path.join(e, "srv%d.json" % i), url])[0]
                  == 0 and json.load(open(os.path.join(e, "srv%d.json" % i)))["summary"]["requests"] == 10
                  for proto in ([[]] + ([["--http3"]] if h3 else []))]
            srv.stop()
            srv.err.seek(0)
            check(all(ok) and phrase not in srv.err.read(),
                  "serve --key-pass %s: an encrypted key serves%s (%s)" % (args[1].split(":")[0],
                                                                          " TCP and HTTP/3" if h3 else "", ok))
    finally:
        del os.environ["RAFALE_TEST_KEY_PASS"]
