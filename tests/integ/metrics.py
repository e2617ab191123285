"""Integration tests: --metrics-listen: the OpenMetrics scrape (parsed by Prometheus' own client), the snapshot,
the chart and the live page, during a run and after it, against slow, silent and many readers."""
from common import *  # noqa: F401,F403 (the runner sets RAFALE first)


@test
def log_and_metrics_write_only_utf8():
    # Target names that are not UTF-8 (a stray continuation, a surrogate, an overlong form) and one whose
    # 200th byte is inside a character: the request log (JSON Lines and CSV) and /metrics are UTF-8 all the
    # same, the bad bytes as U+FFFD (as --json writes them), the label cut on a character's start.
    srv = Serve()
    bad = [b"x\xff\x80\x80y", b"x\xed\xa0\x80y", b"x\xe0\x80\xafy"]
    long_name = b"a" * 199 + "\u00e9".encode()
    text = b"".join(b"# name: " + n + b"\nGET " + srv.url("/").encode() + b"\n\n" for n in bad + [long_name])
    tf = os.path.join(TMP, "utf8-names.targets")
    with open(tf, "wb") as fh:
        fh.write(text)
    for ext in ("jsonl", "csv"):
        lp = os.path.join(TMP, "utf8-names." + ext)
        p = subprocess.run([RAFALE, "-n", "40", "-c", "1", "-t", "1", "--targets", tf, "--log", lp],
                           capture_output=True, timeout=RUN_TIMEOUT)
        got = []
        for what in (open(lp, "rb").read(), p.stdout):
            try:
                got.append(what.decode("utf-8", errors="strict"))
            except UnicodeDecodeError as e:
                got.append(None)
                print("  not UTF-8:", e)
        check(p.returncode == 0 and got[0] is not None and got[0].count("x\ufffd\ufffd\ufffdy") == 30,
              "log %s: names that are not UTF-8 written as U+FFFD, the file valid UTF-8" % ext)
        check(got[1] is not None and "  x???y  " in got[1], "log %s: the text report shows them as '?'" % ext)
    port = free_port()
    run = subprocess.Popen([RAFALE, "-q", "-c", "1", "-t", "1", "-d", "30s", "--metrics-listen", "127.0.0.1:%d" % port,
                            "--targets", tf], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wait_port(port)
    time.sleep(1.2)  # the counts are published once a second
    import urllib.request
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=10) as resp:
        page = resp.read()
    run.send_signal(signal.SIGINT)
    run.communicate(timeout=60)
    srv.stop()
    try:
        scrape_text = page.decode("utf-8", errors="strict")
    except UnicodeDecodeError as e:
        scrape_text = None
        print("  not UTF-8:", e)
    check(scrape_text is not None, "metrics: the scrape is UTF-8 whatever the names")
    if scrape_text is not None:
        targets = {l["target"] for l, _ in prom_parse(scrape_text).get("rafale_target_requests_total", [])}
        check({"x\ufffd\ufffd\ufffdy", "x\ufffd\ufffd\ufffdy", "a" * 199} <= targets,
              "metrics: bad bytes as U+FFFD, a label cut before the character at its 200th byte (%s)"
              % sorted(t[:12] for t in targets))


def prom_parse(text):
    """A scrape parsed by Prometheus' own client library (Debian's python3-prometheus-client, for Debian's
    python3): {sample name: [[labels, value], ...]}, {} when it does not parse."""
    parser = ("import sys, json\nfrom prometheus_client.openmetrics.parser import text_string_to_metric_families\n"
              "out = {}\nfor fam in text_string_to_metric_families(sys.stdin.read()):\n"
              "    for s in fam.samples:\n        out.setdefault(s.name, []).append([s.labels, s.value])\n"
              "print(json.dumps(out))\n")
    py = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
    p = subprocess.run([py, "-c", parser], input=text, capture_output=True, text=True, timeout=60)
    check(p.returncode == 0, "metrics: prometheus_client parses the scrape (%s)" % p.stderr[-300:])
    return json.loads(p.stdout) if p.returncode == 0 else {}


def scrape(port, path="/metrics"):
    import urllib.request
    req = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path),
                                 headers={"Accept": "application/openmetrics-text; version=1.0.0"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return resp.read().decode()


@test
def metrics_of_the_schedule_and_the_server():
    # -R 200 on one connection to a 50 ms answer: at most 20 a second go out, so the schedule falls behind by
    # design (not by the machine's speed): about 180 requests more each second wait, the oldest ever later.
    srv = Serve()
    port = free_port()
    jp = os.path.join(TMP, "metrics-rate.json")
    run = subprocess.Popen([RAFALE, "-q", "-c", "1", "-t", "1", "-R", "200", "-d", "30s", "--metrics-listen",
                            "127.0.0.1:%d" % port, "--json", jp, srv.url("/delay/50")],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_port(port)
    time.sleep(2)
    m = prom_parse(scrape(port))
    snap = json.loads(scrape(port, "/snapshot.json"))
    run.send_signal(signal.SIGINT)  # each run lasts until the test has looked: a slow machine does not end it first
    run.communicate(timeout=60)
    srv.stop()
    if m:
        lag, backlog = m["rafale_schedule_lag_seconds"][0][1], m["rafale_schedule_backlog"][0][1]
        # After t seconds about 20 t were sent of 200 t due: the oldest unsent is 0.9 t late, 180 t wait. Judged on
        # the snapshot's own three figures, of one instant: the scrape before it came earlier by as long as a
        # sanitized rafale on a slow machine takes to answer it, which the ratios cannot allow for.
        t, slag, sbacklog = snap["elapsed_s"], snap["lag_s"], snap["backlog"]
        check(m["rafale_target_rate"][0][1] == 200 and 0 < lag and 0 < backlog and t >= 1.5 and 0.5 * t < slag <= t and
              sbacklog > 90 * t,
              "metrics: the schedule's lag and backlog in rate mode (after %.3fs: lag %.3fs, %d due and unsent; the "
              "scrape before: lag %.3fs, %d)" % (t, slag, sbacklog, lag, backlog))
        check(snap["target_rate"] == 200 and snap["lag_s"] >= lag and snap["backlog"] >= backlog and "server" not in snap,
              "metrics: the snapshot has them too, and no server without --monitor (%s)" % snap)
        check("rafale_server_cpu_seconds_total" not in m, "metrics: no server figures without --monitor")
    # A server that burns 2 ms of CPU per request, watched with --monitor: its CPU time grows between scrapes,
    # its memory is there, PSS no more than RSS; the final JSON's CPU is at least the last scrape's.
    fs = FServer("busy")
    port = free_port()
    jp = os.path.join(TMP, "metrics-monitor.json")
    run = subprocess.Popen([RAFALE, "-q", "-c", "1", "-t", "1", "-d", "30s", "--monitor", str(fs.p.pid),
                            "--metrics-listen", "127.0.0.1:%d" % port, "--json", jp, fs.url()],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_port(port)
    time.sleep(1.5)
    a = prom_parse(scrape(port))
    time.sleep(1.5)
    b = prom_parse(scrape(port))
    svg = scrape(port, "/chart.svg")
    run.send_signal(signal.SIGINT)
    run.communicate(timeout=60)
    fs.stop()
    j = json.load(open(jp))
    if a and b:
        ca, cb = a["rafale_server_cpu_seconds_total"][0][1], b["rafale_server_cpu_seconds_total"][0][1]
        check(0 < ca < cb <= j["server"]["cpu_s"] + 0.01,
              "metrics: the server's CPU seconds grow, never past the final JSON's (%s, %s, %s)" %
              (ca, cb, j["server"]["cpu_s"]))
        rss, pss = b["rafale_server_rss_bytes"][0][1], b.get("rafale_server_pss_bytes", [[{}, None]])[0][1]
        alone = b.get("rafale_server_alone_bytes", [[{}, None]])[0][1]
        # One process: its PSS, the kernel's, is under its RSS; as if alone (as root) it is its exact resident size,
        # which the RSS of /proc/PID/stat (counted in per-CPU batches) may trail by a few pages.
        check(rss > 1 << 20 and (pss is None or 0 < pss <= rss) and (alone is None or pss <= alone <= rss * 1.03) and
              (alone is not None or os.geteuid() != 0) and b["rafale_server_processes"][0][1] == 1 and
              b["rafale_server_cpus"][0][1] >= 1,
              "metrics: the server's memory, processes and CPUs (rss %s, pss %s, alone %s)" % (rss, pss, alone))
    check("Server CPU over time" in svg and "Server memory over time" in svg and
          "Errors and requests in flight over time" in svg, "live page: the server's charts, errors and in flight")
    # Errors at -R 100 against a server that closes every connection at once: each point of the live chart is 100
    # a second, its rate taken over the time since the point before (over a whole second more, the points drifted
    # low). (Not a closed port: a run whose first connects are all refused stops at once.)
    # An error falls in the second rafale saw it: a late rafale moves one from a second to the next (102 then 98),
    # as many as the schedule's rate over its lateness (its send lag, which it measures): each point within that,
    # their mean at the rate within that spread over the points (the first point's lost come in after it: [83, 105,
    # 105] with rafale 310 ms late, under ASan beside a CPU-bound process).
    port = free_port()
    bad = BadServer("closenow")
    jp = os.path.join(TMP, "metrics-errors.json")
    run = subprocess.Popen([RAFALE, "-q", "-c", "2", "-t", "1", "-R", "100", "-d", "30s", "--metrics-listen",
                            "127.0.0.1:%d" % port, "--json", jp, bad.url()],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_port(port)
    time.sleep(4)
    svg = scrape(port, "/chart.svg")
    run.send_signal(signal.SIGINT)
    run.communicate(timeout=60)
    bad.stop()
    rates = [float(x) for x in re.findall(r"<title>errors per second: time \(s\) [0-9.]+, requests ([0-9.]+)</title>",
                                          svg)]
    late = json.load(open(jp))["send_lag"]["max_us"] / 1e6 if os.path.exists(jp) else 0
    check(len(rates) >= 3 and abs(sum(rates[1:]) / len(rates[1:]) - 100) < 1.5 + 100 * late / len(rates[1:]) and
          all(abs(r - 100) < 1.5 + 100 * late for r in rates[1:]),
          "live page: errors per second at the schedule's rate (%s; rafale up to %.0f ms late)" % (rates, 1000 * late))


@test
def metrics_of_stages_and_warmup():
    srv = Serve()
    # --stages: the rate of the moment (it gave the top stage's, 300, all along).
    port = free_port()
    run = subprocess.Popen([RAFALE, "-q", "-c", "2", "-t", "1", "--stages", "1s:300,0.2s:20,30s:20", "--metrics-listen",
                            "127.0.0.1:%d" % port, srv.url("/")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    wait_port(port)
    time.sleep(2)
    snap = json.loads(scrape(port, "/snapshot.json"))
    run.send_signal(signal.SIGINT)
    run.communicate(timeout=60)
    check(snap["elapsed_s"] > 1.3 and snap["target_rate"] == 20, "metrics: --stages, the rate of the moment (%s)" % snap)
    # During the warm-up nothing is the run's yet: no lag, no backlog (they showed, growing, while all else read 0).
    port = free_port()
    run = subprocess.Popen([RAFALE, "-q", "-c", "1", "-t", "1", "-R", "200", "--warmup", "30s", "-d", "1s",
                            "--metrics-listen", "127.0.0.1:%d" % port, srv.url("/delay/50")],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_port(port)
    time.sleep(1.5)
    snap = json.loads(scrape(port, "/snapshot.json"))
    m = prom_parse(scrape(port))
    run.send_signal(signal.SIGINT)
    run.communicate(timeout=60)
    check(snap["elapsed_s"] == 0 and snap["requests"] == 0 and snap["lag_s"] == 0 and snap["backlog"] == 0 and m and
          m["rafale_schedule_lag_seconds"][0][1] == 0, "metrics: no lag or backlog during the warm-up (%s)" % snap)
    srv.stop()
    # A monitored cgroup with no process yet: no server figures, and no server charts of made-up zeros.
    _, cg = scratch_cgroup("rafale-it-empty", "an empty monitored cgroup")
    if cg is None:
        return
    try:
        port = free_port()
        bad = BadServer("closenow")  # a server the run reaches (a closed port ends it at its first connects)
        run = subprocess.Popen([RAFALE, "-q", "-c", "1", "-t", "1", "-R", "20", "-d", "30s", "--monitor-cgroup", cg,
                                "--metrics-listen", "127.0.0.1:%d" % port, bad.url()],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_port(port)
        time.sleep(2.5)
        svg = scrape(port, "/chart.svg")
        text = scrape(port)
        run.send_signal(signal.SIGINT)
        run.communicate(timeout=60)
        bad.stop()
        check("Throughput over time" in svg and "Server CPU over time" not in svg and
              "rafale_server_" not in text, "metrics: an empty cgroup, no server figures nor charts")
    finally:
        os.rmdir(cg)


@test
def metrics_of_a_server_that_goes():
    # The watched server dies during the run: its processes and memory go to 0 at once (they stayed at their
    # last values), its CPU stays.
    fs = FServer("busy")
    port = free_port()
    run = subprocess.Popen([RAFALE, "-q", "-c", "1", "-t", "1", "-R", "50", "-d", "30s", "--monitor", str(fs.p.pid),
                            "--metrics-listen", "127.0.0.1:%d" % port, fs.url()],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_port(port)
    time.sleep(1.2)
    before = json.loads(scrape(port, "/snapshot.json"))
    fs.stop()
    time.sleep(1)
    after = json.loads(scrape(port, "/snapshot.json"))
    run.send_signal(signal.SIGINT)
    run.communicate(timeout=60)
    check(before["server"]["processes"] == 1 and before["server"]["rss_bytes"] > 0 and
          after["server"]["processes"] == 0 and after["server"]["rss_bytes"] == 0 and
          after["server"].get("pss_bytes", 0) == 0 and after["server"]["cpu_s"] >= before["server"]["cpu_s"],
          "metrics: a server gone has no processes and no memory (%s, then %s)" % (before["server"], after["server"]))
    # A cgroup removed and made again at the same path (a service restarted): its CPU counter starts again at 0;
    # rafale's only grows (it fell to a few ms: Prometheus reads that as a reset).
    root, cg = scratch_cgroup("rafale-it-cg", "the cgroup made again")
    if cg is None:
        return
    fport = free_port()
    fs = subprocess.Popen(["sh", "-c", "echo $$ > %s/cgroup.procs && exec %s %s busy --port %d" %
                           (cg, sys.executable, FSERVER, fport)],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        fs.stdout.readline()
        port = free_port()
        jp = os.path.join(TMP, "metrics-cg.json")
        run = subprocess.Popen([RAFALE, "-q", "-c", "1", "-t", "1", "-d", "30s", "--monitor-cgroup", cg, "--json", jp,
                                "--metrics-listen", "127.0.0.1:%d" % port, "http://127.0.0.1:%d/" % fport],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_port(port)
        time.sleep(1.8)
        a = json.loads(scrape(port, "/snapshot.json"))["server"]["cpu_s"]
        with open(os.path.join(root, "cgroup.procs"), "w") as fh:
            fh.write(str(fs.pid))
        os.rmdir(cg)
        os.makedirs(cg)
        with open(os.path.join(cg, "cgroup.procs"), "w") as fh:
            fh.write(str(fs.pid))
        time.sleep(0.6)
        b = json.loads(scrape(port, "/snapshot.json"))["server"]["cpu_s"]
        run.send_signal(signal.SIGINT)
        run.communicate(timeout=60)
        final = json.load(open(jp))["server"]["cpu_s"]
        # (The new cgroup's own count over 0.6 s is a third of the 1.8 s before at the same pace: a reset shows
        # whatever share of a CPU the machine gave the server.)
        check(a > 0 and b >= a and final >= b - 0.01,
              "metrics: the CPU of a cgroup made again only grows (%.3f, then %.3f; final %.3f)" % (a, b, final))
    finally:
        fs.kill()
        fs.wait()
        try:
            with open(os.path.join(root, "cgroup.procs"), "w") as fh:
                fh.write(str(fs.pid))
        except OSError:
            pass
        if os.path.isdir(cg):
            os.rmdir(cg)


@test
def metrics_scraped_during_the_run():
    import urllib.request
    srv = Serve()
    port = free_port()
    jp = os.path.join(TMP, "metrics-run.json")
    run = subprocess.Popen([RAFALE, "-q", "-c", "4", "-t", "1", "-d", "5s", "--metrics-listen", "127.0.0.1:%d" % port,
                            "--json", jp, srv.url("/"), srv.url("/status/404")],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_port(port)
    # A scraper that connects and never sends, and one that sends garbage: the run goes on.
    silent = socket.create_connection(("127.0.0.1", port))
    garbage, _ = exchange("127.0.0.1:%d" % port, b"\x16\x03\x01 not http at all\r\n\r\n")
    # Until the first second is published (1.2 s of sleep was not always enough for the sanitized build on a
    # loaded machine: its first scrape counted 0).
    until = time.monotonic() + 4
    while time.monotonic() < until:
        with urllib.request.urlopen("http://127.0.0.1:%d/snapshot.json" % port, timeout=10) as resp:
            if json.loads(resp.read().decode()).get("requests", 0) > 0:
                break
        time.sleep(0.1)
    scrapes = []

    def counts(text):
        return [l for l in text.splitlines() if l.startswith("rafale_requests_total")]
    # The figures move once a second, when the workers close it: the second scrape is the first that differs
    # (3 s at most; a fixed 1.1 s later, the sanitized build's second had not always closed yet).
    until = time.monotonic() + 3
    while len(scrapes) < 2:
        req = urllib.request.Request("http://127.0.0.1:%d/metrics" % port,
                                     headers={"Accept": "application/openmetrics-text; version=1.0.0"})
        with urllib.request.urlopen(req, timeout=10) as resp:
            got = (resp.headers["Content-Type"], resp.read().decode())
        if not scrapes or counts(got[1]) != counts(scrapes[0][1]) or time.monotonic() > until:
            scrapes.append(got)
        time.sleep(0.25)
    req = urllib.request.Request("http://127.0.0.1:%d/metrics" % port, headers={"Accept": "text/plain;version=0.0.4"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        plain = (resp.headers["Content-Type"], resp.read().decode())
    out, err = run.communicate(timeout=60)
    silent.close()
    srv.stop()
    j = json.load(open(jp))
    check(run.returncode == 0 and j["summary"]["elapsed_s"] < 5.6, "metrics: the run ended on time, scrapers and all")
    check(garbage.startswith(b"HTTP/1.1 4"), "metrics: garbage gets a 4xx (%r)" % garbage[:40])
    check(scrapes[0][0] == "application/openmetrics-text; version=1.0.0; charset=utf-8" and
          scrapes[1][1].endswith("# EOF\n") and plain[0].startswith("text/plain; version=0.0.4"),
          "metrics: OpenMetrics, or the text format when asked (%s, %s)" % (scrapes[0][0], plain[0]))
    parsed = [prom_parse(text) for _, text in scrapes]
    if all(parsed):
        def total(m, key="rafale_requests_total"):
            return sum(v for _, v in m.get(key, []))
        a, b = parsed
        check(0 < total(a) < total(b) <= j["summary"]["requests"],
              "metrics: the counts grow during the run, never past the final figures (%s, %s, %s)" %
              (total(a), total(b), j["summary"]["requests"]))
        st = {l["status"]: v for l, v in b["rafale_requests_total"]}
        check(set(st) == {"200", "404"} and abs(st["200"] - st["404"]) <= 4, "metrics: by status (%s)" % st)
        buckets = [v for l, v in b["rafale_latency_seconds_bucket"]]
        check(buckets == sorted(buckets) and buckets[-1] == b["rafale_latency_seconds_count"][0][1] > 0 and
              b["rafale_latency_seconds_sum"][0][1] > 0, "metrics: a cumulative latency histogram")
        tg = {l["target"]: v for l, v in b["rafale_target_requests_total"]}
        check(set(tg) == {srv.url("/"), srv.url("/status/404")} and b["rafale_connections_open"][0][1] == 4,
              "metrics: per target, and the connections open")
        # The counters' table's rows (counters.h) as counters of their own: growing, never past the final JSON's.
        rows = [("rafale_requests_started_total", "started"), ("rafale_connections_opened_total", "connections_opened"),
                ("rafale_sent_bytes_total", "bytes_sent"), ("rafale_received_bytes_total", "bytes_received")]
        got = [(total(a, k), total(b, k), j["summary"][key]) for k, key in rows]
        check(all(0 < x <= y <= z for x, y, z in got[2:]) and 0 < got[0][0] < got[0][1] <= got[0][2] and
              got[1][1] == 4 == got[1][2] and "rafale_responses_failing_checks_total" in b,
              "metrics: the counters' table's rows, growing to the final figures (%s)" % got)
    # Bad input: a port in use, an address not loopback.
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    bport = busy.getsockname()[1]
    p = subprocess.run([RAFALE, "-q", "-n", "1", "--metrics-listen", "127.0.0.1:%d" % bport, "http://127.0.0.1:1/"],
                       capture_output=True, text=True, timeout=30)
    busy.close()
    check(p.returncode == 2 and one_line(p.stderr, "--metrics-listen 127.0.0.1:%d: Address already in use" % bport),
          "metrics: a port in use, one line (%r)" % p.stderr)
    p = subprocess.run([RAFALE, "-q", "-n", "1", "--metrics-listen", "0.0.0.0:%d" % free_port(), "http://127.0.0.1:1/"],
                       capture_output=True, text=True, timeout=30)
    check(p.returncode == 2 and one_line(p.stderr, "is not a loopback address"), "metrics: not loopback (%r)" % p.stderr)


def metrics_run(srv, port):
    """A run against srv with its metrics port on port, once that listens; 30 s at most, the test stops it."""
    run = subprocess.Popen([RAFALE, "-q", "-c", "1", "-t", "1", "-d", "30s", "--metrics-listen", "127.0.0.1:%d" % port,
                            srv.url("/")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_port(port)
    return run


@test
def metrics_reads_its_request_line():
    # The metrics port reads the method, the target and its query, and the Accept header, as RFC 9110 and 9112
    # have them: HEAD is GET's head without its body (section 9.3.2; before, a 404 with a body), a 405 says what
    # is allowed (section 15.5.6), a query goes with any path, "text/plain" in a query is not an Accept header,
    # a request past 8 KiB is a 431 said before a clean close (before, a 200 for the part read, then a reset), and
    # junk (a TLS ClientHello, a NUL) a 400 at once, not silence until the 2 s are up.
    srv = Serve()
    port = free_port()
    run = metrics_run(srv, port)
    addr = "127.0.0.1:%d" % port

    def ask(data):
        t = time.monotonic()
        out, closed = exchange(addr, data)
        head, _, body = out.partition(b"\r\n\r\n")
        m = re.search(rb"Content-Length: (\d+)", head)
        return head.decode("latin-1"), body, int(m.group(1)) if m else -1, closed, time.monotonic() - t
    got = {}
    got["head"] = ask(b"HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    got["get"] = ask(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    got["post"] = ask(b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
    got["query"] = ask(b"GET /snapshot.json?t=1 HTTP/1.1\r\nHost: x\r\n\r\n")
    got["plain_query"] = ask(b"GET /metrics?text/plain HTTP/1.1\r\nHost: x\r\n\r\n")
    got["plain_accept"] = ask(b"GET /metrics HTTP/1.1\r\nHost: x\r\naccept: text/plain;version=0.0.4\r\n\r\n")
    got["big"] = ask(b"GET /metrics HTTP/1.1\r\nX-Big: " + b"b" * 9000)
    got["tls"] = ask(bytes.fromhex("160301002e0100002a0303") + b"\x00" * 40)
    got["nul"] = ask(b"GET /metrics\x00 HTTP/1.1\r\n")
    got["nul_field"] = ask(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-A: a\x00")
    got["v2"] = ask(b"GET /metrics HTTP/2.0\r\nHost: x\r\n\r\n")
    got["absolute"] = ask(b"GET http://x/metrics?a=1 HTTP/1.1\r\nHost: x\r\n\r\n")
    got["te"] = ask(b"GET /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
    run.send_signal(signal.SIGINT)
    run.communicate(timeout=60)
    srv.stop()
    status = {k: v[0].split("\r\n")[0] for k, v in got.items()}
    h, g = got["head"], got["get"]
    check(status["head"] == "HTTP/1.1 200 OK" and h[1] == b"" and h[2] > 1000 and g[2] == len(g[1]) > 1000 and
          "openmetrics" in h[0], "metrics: HEAD has GET's head and no body (%s, %d bytes, length %d)" %
          (status["head"], len(h[1]), h[2]))
    check(status["post"].startswith("HTTP/1.1 405") and "\r\nAllow: GET, HEAD\r\n" in got["post"][0],
          "metrics: a 405 says what is allowed (%r)" % got["post"][0])
    check(status["query"] == "HTTP/1.1 200 OK" and b'"requests"' in got["query"][1],
          "metrics: /snapshot.json with a query (%s)" % status["query"])
    check("openmetrics" in got["plain_query"][0] and "version=0.0.4" in got["plain_accept"][0],
          "metrics: the format from the Accept header alone, whatever its case (%r, %r)" %
          (got["plain_query"][0], got["plain_accept"][0]))
    check(status["big"].startswith("HTTP/1.1 431") and got["big"][3],
          "metrics: past 8 KiB, a 431 and a clean close (%r, closed %s)" % (status["big"], got["big"][3]))
    check(status["tls"].startswith("HTTP/1.1 400") and status["nul"].startswith("HTTP/1.1 400") and
          got["tls"][4] < 1.5 and got["nul"][4] < 1.5, "metrics: junk is a 400 at once (%s in %.1fs, %s in %.1fs)" %
          (status["tls"], got["tls"][4], status["nul"], got["nul"][4]))
    check(status["nul_field"] == "HTTP/1.1 400 Bad Request" and got["nul_field"][4] < 1.5,
          "metrics: a NUL in a field line not ended, a 400 at once (%s in %.1fs)" %
          (status["nul_field"], got["nul_field"][4]))
    # The request read as rafale serve reads one (http_req.c), answered with its reason phrases: HTTP/2.0 in a
    # request line is not HTTP/1.x (before: served), the absolute form is read for its path (RFC 9112 section
    # 3.2.2; before: a 404), a request body in Transfer-Encoding is not read (before: served as if it had none).
    check(status["v2"] == "HTTP/1.1 505 HTTP Version Not Supported" and
          status["absolute"] == "HTTP/1.1 200 OK" and "openmetrics" in got["absolute"][0] and
          status["te"] == "HTTP/1.1 501 Not Implemented",
          "metrics: the request read as serve reads one (%s, %s, %s)" % (status["v2"], status["absolute"], status["te"]))


@test
def metrics_silent_crowd_holds_no_scrape():
    # 40 clients connect to the metrics port and never send: a scraper that comes after them is answered at
    # once, a silent one making room for it (before: the 16 slots were theirs for 2 s, the scraper queued behind
    # the rest, and waited 4 s or more).
    srv = Serve()
    port = free_port()
    run = metrics_run(srv, port)
    crowd = [socket.create_connection(("127.0.0.1", port)) for _ in range(40)]
    time.sleep(0.3)
    t = time.monotonic()
    out, closed = exchange("127.0.0.1:%d" % port, b"GET /snapshot.json HTTP/1.1\r\nHost: x\r\n\r\n", timeout=10)
    took = time.monotonic() - t
    for c in crowd:
        c.close()
    run.send_signal(signal.SIGINT)
    run.communicate(timeout=60)
    srv.stop()
    check(out.startswith(b"HTTP/1.1 200") and b'"requests"' in out and took < 1.5,
          "metrics: a scrape behind 40 silent clients answered at once (%r in %.1fs)" % (out[:20], took))


@test
def metrics_on_port_0_says_where():
    # Port 0 is a free port the kernel picks: rafale says which (on stderr, -q or not), else none could scrape it.
    # (3 s: the line is read as soon as it comes; without it, the read waits for the end of the run.)
    import urllib.request
    srv = Serve()
    for host in ("127.0.0.1", "[::1]"):
        run = subprocess.Popen([RAFALE, "-q", "-c", "1", "-t", "1", "-d", "3s", "--metrics-listen", host + ":0",
                                srv.url("/")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = run.stderr.readline()
        m = re.match(r"rafale: metrics at http://(\S+):(\d+)/metrics$", line.strip())
        snap = None
        if m:
            with urllib.request.urlopen("http://%s:%s/snapshot.json" % (m.group(1), m.group(2)), timeout=10) as resp:
                snap = json.loads(resp.read())
        run.send_signal(signal.SIGINT)
        run.communicate(timeout=60)
        check(m and m.group(1) == host and snap and "requests" in snap,
              "metrics: on %s:0, the port it took is said, and answers (%r)" % (host, line))
    srv.stop()


@test
def metrics_listen_wants_ipv6_in_brackets():
    # "::1" alone, or "::1:9464": its last colon would cut the address; one line says how to write it (before:
    # "cannot resolve host ':'").
    for spec in ("::1", "::1:9464"):
        p = subprocess.run([RAFALE, "-q", "-n", "1", "--metrics-listen", spec, "http://127.0.0.1:1/"],
                           capture_output=True, text=True, timeout=30)
        check(p.returncode == 2 and one_line(p.stderr, "an IPv6 address in brackets, such as [::1]:9464"),
              "metrics: %s, one line saying the brackets (%r)" % (spec, p.stderr))


@test
def open_files_enough_with_threads_and_metrics():
    # rafale checks its open-file limit before the load: what it asks for must be enough. A thread holds an epoll
    # descriptor, the metrics port its listener and up to 16 clients: with the limit at exactly what rafale asks,
    # 64 threads and 64 connections that each reconnect after every answer (/close), and the metrics port held
    # full by idle clients, not one connect fails for want of a descriptor (before: the check counted only the
    # connections, and the load failed with EMFILE, its report blaming rafale's limit).
    srv = Serve()

    def limit(n):
        return lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (n, n))
    for metrics in (False, True):
        port = free_port()
        extra = ["--metrics-listen", "127.0.0.1:%d" % port] if metrics else []
        args = ["-c", "64", "-t", "64"] + extra
        p = subprocess.run([RAFALE, "-q", "-d", "1s"] + args + [srv.url("/close")], capture_output=True, text=True,
                           timeout=30, preexec_fn=limit(40))
        m = re.search(r"need (\d+) open files", p.stderr)
        check(p.returncode == 2 and m, "open files: too few, one line (%r)" % p.stderr)
        if not m:
            continue
        need = int(m.group(1))
        jp = os.path.join(TMP, "nofile-%d.json" % metrics)
        run = subprocess.Popen([RAFALE, "-q", "-d", "1.5s", "--json", jp] + args + [srv.url("/close")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=limit(need))
        idle = []
        if metrics:
            wait_port(port)
            idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(20)]
        out, err = run.communicate(timeout=60)
        for s in idle:
            s.close()
        j = json.load(open(jp)) if run.returncode == 0 else None
        check(j is not None and j["summary"]["requests"] > 0 and j["errors"]["connect_other"] == 0,
              "open files: at the limit rafale asked for (%d), %s, no connect fails (%s)" %
              (need, "the metrics port full" if metrics else "64 threads",
               j["errors"]["connect_other"] if j else err[-300:]))
    srv.stop()


@test
def metrics_answers_a_slow_reader_whole():
    # The final report (about 60 KB, of 21 targets: more than the kernel's buffers take at once) to a client with
    # a 4 KiB receive buffer and 536-byte segments that reads only after a moment: the endpoint's sends are
    # partial, and it must go on (within the client's 2 s) or reset, never close cleanly after a body shorter
    # than its Content-Length.
    srv = Serve()
    port = free_port()
    run = subprocess.Popen([RAFALE, "-q", "-c", "2", "-t", "1", "-d", "30s", "--metrics-listen", "127.0.0.1:%d" % port,
                            "--metrics-linger", "10s", srv.url("/status/404")] + [srv.url("/?%d" % i) for i in range(20)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_port(port)
    scrape(port, "/")  # a live page watches; --metrics-linger keeps the endpoint after the run for its final report
    time.sleep(0.3)
    run.send_signal(signal.SIGINT)
    for _ in range(200):
        if json.loads(scrape(port, "/snapshot.json"))["done"]:
            break
        time.sleep(0.05)
    c = socket.socket()
    c.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, 536)
    c.connect(("127.0.0.1", port))
    c.sendall(b"GET /report.html HTTP/1.1\r\nHost: x\r\n\r\n")
    time.sleep(0.2)
    data, reset = b"", False
    c.settimeout(10)
    try:
        while True:
            b = c.recv(4096)
            if not b:
                break
            data += b
    except ConnectionResetError:
        reset = True
    c.close()
    run.send_signal(signal.SIGINT)  # the second: the linger ends
    run.communicate(timeout=60)
    srv.stop()
    head, _, body = data.partition(b"\r\n\r\n")
    m = re.search(rb"Content-Length: (\d+)", head)
    want = int(m.group(1)) if m else -1
    check(want > 50000 and (len(body) == want or reset),
          "metrics: a slow reader gets the whole page or a reset, never a short body (%d of %d bytes, reset %s)"
          % (len(body), want, reset))
    check(not reset and body.rstrip().endswith(b"</html>"), "metrics: within its 2 s, the whole page")


@test
def live_page_follows_the_run():
    import urllib.request
    srv = Serve()
    port = free_port()
    jp = os.path.join(TMP, "live-run.json")
    if os.path.exists(jp):
        os.unlink(jp)
    # The run lasts until the browser has looked twice (a slow machine may take seconds to start Chromium), then
    # is stopped by Ctrl-C: its final report is the partial one, and the page must show it all the same.
    run = subprocess.Popen([RAFALE, "-q", "-c", "2", "-t", "1", "-d", "120s", "--metrics-listen", "127.0.0.1:%d" % port,
                            "--metrics-linger", "10s", "--json", jp, srv.url("/delay/2")], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    wait_port(port)
    with urllib.request.urlopen("http://127.0.0.1:%d/" % port, timeout=10) as resp:
        page = resp.read().decode()
    check("<script>" in page and "fetch('/snapshot.json')" in page and " src=" not in page and "http" not in
          page.split("<script>")[1], "live page: one self-contained page that fetches only from where it came")
    chromium = shutil.which("chromium")
    seen = []
    if chromium:
        for wait in (1.5, 2.5):
            time.sleep(wait)
            p = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                                "--user-data-dir=" + os.path.join(TMP, "chromium-live"), "--virtual-time-budget=2000",
                                "--dump-dom", "http://127.0.0.1:%d/" % port], capture_output=True, text=True, timeout=60)
            m = re.search(r'id="requests">(\d+)<', p.stdout)
            seen.append((int(m.group(1)) if m else None, p.stdout.count("<svg")))
        check(seen[0][0] and seen[1][0] and seen[1][0] > seen[0][0] and seen[1][1] >= 2,
              "live page: in Chromium its numbers move during the run, and its charts are drawn (%s)" % seen)
    else:
        print("  (chromium not installed: no browser check)")
        time.sleep(2)
    run.send_signal(signal.SIGINT)
    # When the run is done, the page's snapshot says so and the final report is there (--metrics-linger keeps the
    # endpoint up for it).
    for _ in range(200):
        if os.path.exists(jp) and os.path.getsize(jp) > 0:
            break
        time.sleep(0.05)
    time.sleep(0.3)
    final = json.load(open(jp))
    with urllib.request.urlopen("http://127.0.0.1:%d/snapshot.json" % port, timeout=10) as resp:
        snap = json.loads(resp.read())
    with urllib.request.urlopen("http://127.0.0.1:%d/report.html" % port, timeout=10) as resp:
        report = resp.read().decode()
    run.send_signal(signal.SIGINT)  # the second: the linger ends
    run.communicate(timeout=60)
    srv.stop()
    check(snap["done"] is True and snap["requests"] == final["summary"]["requests"] and snap["errors"] == 0,
          "live page: done, and its figures are the final JSON's (%s against %s)" % (snap["requests"],
                                                                                  final["summary"]["requests"]))
    check("<h1>rafale report</h1>" in report and "Latency by percentile" in report, "live page: the final report")


@test
def live_page_does_not_hold_the_exit():
    """A live page looked at during the run does not hold rafale's exit: before, the end waited 2.5 s for the page's
    next poll whenever a page had been seen in the last 10 s (4.5 s for a -d 2s run). --metrics-linger D keeps the
    endpoint that long after the run (the page's final report, a last scrape), and Ctrl-C ends the linger at
    once."""
    import urllib.request
    srv = Serve()

    def run(*extra):
        port = free_port()
        p = subprocess.Popen([RAFALE, "-q", "-c", "1", "-t", "1", "-d", "2s", "--metrics-listen", "127.0.0.1:%d" % port]
                             + list(extra) + [srv.url("/")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_port(port)
        t0 = time.monotonic()  # the port listens just before the load begins: its 2 s count from about here
        for path in ("/", "/snapshot.json", "/chart.svg"):  # what a live page asks for
            with urllib.request.urlopen("http://127.0.0.1:%d%s" % (port, path), timeout=10) as resp:
                resp.read()
        return p, port, t0

    p, port, t0 = run()
    p.communicate(timeout=60)
    took = time.monotonic() - t0
    check(p.returncode == 0 and took < 3.0, "live page: a -d 2s run it watched ends in %.2f s (under 3)" % took)
    def final_report(p, port):
        """The final report, once the run is done (None if rafale ended first)."""
        while p.poll() is None:
            try:
                with urllib.request.urlopen("http://127.0.0.1:%d/snapshot.json" % port, timeout=10) as resp:
                    if json.loads(resp.read())["done"]:
                        with urllib.request.urlopen("http://127.0.0.1:%d/report.html" % port, timeout=10) as resp:
                            return resp.read().decode()
            except OSError:
                pass
            time.sleep(0.05)
        return None

    p, port, t0 = run("--metrics-linger", "1500ms")
    report = final_report(p, port)
    p.communicate(timeout=60)
    took = time.monotonic() - t0
    check(report and "<h1>rafale report</h1>" in report and 3.3 < took < 4.5,
          "live page: --metrics-linger 1500ms serves the final report after the run, then ends (%.2f s)" % took)
    p, port, t0 = run("--metrics-linger", "60s")
    report = final_report(p, port)
    t1 = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    check(report and p.returncode == 0 and time.monotonic() - t1 < 1,
          "live page: Ctrl-C ends the linger at once (%.2f s)" % (time.monotonic() - t1))
    # The linger is said, -q or not: after the report a silent wait of a minute looks hung (as --start-at's does).
    check("rafale: the metrics port stays open 60.00s more (--metrics-linger): Ctrl-C ends it" in err,
          "live page: the linger said on stderr (%r)" % err)
    # A Ctrl-C that stopped the run: the report, then the linger, said with the second Ctrl-C that ends it.
    p, port, t0 = run("--metrics-linger", "60s")
    p.send_signal(signal.SIGINT)
    time.sleep(1)
    lingering = p.poll() is None
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    check(lingering and p.returncode in (130, -signal.SIGINT) and "rafale: the metrics port stays open 60.00s more (--metrics-linger): "
          "a second Ctrl-C ends it" in err, "live page: after a Ctrl-C, the linger said (%s %r)" % (p.returncode, err))
    rc, out, err = run_raw(["-q", "-n", 1, "--metrics-linger", "1s", srv.url("/")])
    check(rc == 2 and one_line(err, "--metrics-linger goes with --metrics-listen"),
          "--metrics-linger alone: one line (%r)" % err)
    srv.stop()
