"""Integration tests: findings. Each scenario's small server (tests/findings_server.py) makes its finding happen,
with the evidence checked against what the test counts itself; healthy runs against rafale serve and nginx must
stay silent (no warning)."""
from common import *  # noqa: F401,F403 (the runner sets RAFALE first)

def netstat():
    """TcpExt counters, as the test reads them itself."""
    with open("/proc/net/netstat") as f:
        lines = f.read().splitlines()
    for a, b in zip(lines[::2], lines[1::2]):
        if a.startswith("TcpExt:"):
            return dict(zip(a.split()[1:], map(int, b.split()[1:])))
    return {}


def finding(j, fid):
    for f in j.get("findings", []):
        if f["id"] == fid:
            return f
    return None


def ids(j, severity=None):
    return [f["id"] for f in j.get("findings", []) if severity is None or f["severity"] == severity]


@test
def findings_starved_connections():
    srv = FServer("single")
    r = rafale("-t", 1, "-c", 10, "-d", "3s", srv.url())
    srv.stop()
    j = r.j
    f = finding(j, "starved_connections")
    check(f is not None and f["severity"] == "warning", "starved: found (%s)" % ids(j))
    if f:
        ev = f["evidence"]
        check(ev["starved"] == 9 and ev["connections"] == 10, "starved: 9 of 10 (%s)" % ev)
        check(2.9 <= ev["wait_s"] <= 3.05, "starved: they waited the whole run (%s)" % ev["wait_s"])
        check("fewer connections at once" in f["advice"], "starved: the advice names the cause")
    c = j["connections"]
    check(c["starved"] == 9 and c["requests_min"] == 0 and c["requests_median"] == 0
          and c["requests_max"] == j["summary"]["requests"], "starved: one connection got every answer (%s)" % c)
    # Nothing is dropped: the 9 starved requests are in the latency histogram at their age (the served
    # connection's last one too, only if it was older than every answer).
    cen = j["latency"]["censored"]
    check(cen in (9, 10) and j["summary"]["in_flight"] == 10, "starved: 9 censored samples (%d)" % cen)
    check(j["latency"]["count"] == j["summary"]["requests"] + cen, "starved: answers + censored in the histogram")
    check(2.9 <= j["summary"]["in_flight_oldest_s"] <= 3.05 and j["latency"]["max_us"] >= 2.9e6,
          "starved: the oldest waited the run (%s)" % j["summary"]["in_flight_oldest_s"])
    check(accounted(j), "starved: accounting invariant")
    # 3.00s on a quiet machine, 3.01s when the stop came late (the JSON's bound above).
    check("10 in flight at the end" in r.out and re.search(r"In flight     the oldest waited (2\.9\d|3\.0\d)s; %d "
                                                           r"waiting longer" % cen, r.out),
          "starved: the text says the in-flight ones were recorded")
    check("[!] starved_connections: 9 of 10 connections" in r.out, "starved: the text's Findings line")
    # Their samples stay out of the timeline, whose histograms hold the answers and timeouts only.
    check(sum(s["requests"] for s in j["timeline"]) == j["summary"]["requests"], "starved: timeline holds answers")


@test
def findings_listen_queue_overflow():
    srv = FServer("single", "--backlog", "5")
    before = netstat()
    r = rafale("-c", 100, "--close", "-n", 600, "--timeout", "4s", srv.url())
    after = netstat()
    srv.stop()
    j = r.j
    grown = after.get("ListenOverflows", 0) - before.get("ListenOverflows", 0)
    check(grown > 0, "overflow: the kernel counted overflows (%d)" % grown)
    f = finding(j, "listen_queue_overflow")
    check(f is not None and f["severity"] == "warning", "overflow: found (%s)" % ids(j))
    if f:
        ev = f["evidence"]
        check(0 < ev["listen_overflows"] <= grown, "overflow: evidence within what the test counted (%s / %d)"
              % (ev["listen_overflows"], grown))
        check(ev["backlog"] == 5, "overflow: the listener's backlog read as 5 (%s)" % ev.get("backlog"))
        with open("/proc/sys/net/core/somaxconn") as fh:
            check(ev["somaxconn"] == int(fh.read()), "overflow: somaxconn")
        check(ev["slow_connects"] + ev["slow_first_bytes"] > 0, "overflow: our connects at the SYN retry steps")
        check("(it is 5;" in f["advice"] and ":%d" % srv.port in f["advice"], "overflow: advice names the backlog")
    check(finding(j, "syn_retransmits") is None, "overflow: not also reported as SYN loss")
    check(accounted(j), "overflow: accounting invariant")


@test
def findings_nagle_delayed_ack():
    srv = FServer("nagle")
    r = rafale("-c", 10, "-d", "2s", srv.url())
    srv.stop()
    j = r.j
    f = finding(j, "nagle_delayed_ack")
    check(f is not None and f["severity"] == "warning", "nagle: found (%s)" % ids(j))
    if f:
        check(30000 <= f["evidence"]["median_gap_us"] <= 60000, "nagle: the gap is the delayed-ACK timer (%s)"
              % f["evidence"])
        check(f["evidence"]["ttfb_p50_us"] < 10000, "nagle: first bytes were fast")
    check(30000 <= j["transfer"]["percentiles_us"]["50"] <= 60000, "nagle: transfer histogram p50 at ~40 ms")
    check(j["transfer"]["count"] == j["summary"]["requests"], "nagle: one transfer sample per answer")
    check(finding(j, "queueing") is None, "nagle: the stall is not read as queueing")
    check("transfer" in r.out, "nagle: the text has a transfer row")


@test
def findings_in_html_and_sweep_steps():
    srv = FServer("nagle")
    html = os.path.join(TMP, "nagle.html")
    r = rafale("-c", 10, "-d", "1s", "--html", html, srv.url())
    with open(html) as fh:
        page = fh.read()
    box = page.find('class="findings"')
    check(0 <= box < page.find("<h2>Summary"), "html: the findings box is at the top")
    check("nagle_delayed_ack" in page and "TCP_NODELAY" in page, "html: the finding and its advice")
    srv.stop()
    # A sweep's step: a constant rate on a server that ends connections after 100 requests.
    srv = FServer("ka100")
    jpath = os.path.join(TMP, "sweep-ka.json")
    p = subprocess.run([RAFALE, "sweep", "-c", "4", "-d", "2s", "--start", "400", "--max", "400", "--slo", "p99<1s",
                        "--json", jpath, srv.url()], capture_output=True, text=True, timeout=RUN_TIMEOUT)
    srv.stop()
    with open(jpath) as fh:
        steps = json.load(fh)["sweep"]["steps"]
    # client_delay may speak too on a shared machine (rafale's own late reads; a sweep's steps take no noise
    # sample for noisy_neighbour to tell them in): true, and about rafale.
    check(len(steps) == 1 and [f for f in steps[0]["findings"] if f != "client_delay"] == ["keepalive_limit"],
          "sweep: the step names its finding (%s)" % [st["findings"] for st in steps])
    check("] keepalive_limit" in p.stdout, "sweep: the step table shows it (%s)" % p.stdout)


@test
def findings_queueing():
    srv = FServer("slow")
    r = rafale("-c", 200, "-d", "3s", srv.url())
    srv.stop()
    j = r.j
    f = finding(j, "queueing")
    check(f is not None, "queueing: found (%s)" % ids(j))
    if f:
        ev = f["evidence"]
        little = 200 / j["summary"]["rps"]
        check(abs(ev["wait_s"] - little) < 1e-3 * little, "queueing: wait = connections / throughput")
        check(ev["service_us"] >= 20000 and ev["service_us"] < ev["latency_mean_us"] / 5,
              "queueing: the server's own time (20 ms) far below the latency (%s)" % ev)
    check(finding(j, "starved_connections") is None, "queueing: a fair queue starves nobody")


@test
def findings_queueing_measured_alone():
    # A queue the fastest answers cannot show: 4 answers at once of 20 ms each (findings_server.py slow), 50
    # connections, and a warm-up that leaves the queue full when the measured phase begins: its fastest answers
    # wait too (about 50 / 4 x 20 ms), the old estimate of the server's own time. The idle probe measured it alone
    # before the load: its 8 answers one at a time, about 20 ms.
    srv = FServer("slow")
    html = os.path.join(TMP, "probe.html")
    r = rafale("-c", 50, "-d", "2s", "--warmup", "1s", "--html", html, srv.url())
    srv.stop()
    j = r.j
    p = j.get("probe")
    check(p is not None and 3 <= p["answered"] <= p["requests"] <= 8 and p["failed"] == 0 and p["bad"] == 0 and
          20000 <= p["latency_min_us"] <= p["latency_p50_us"] < 40000 and len(p["targets"]) == 1 and
          p["elapsed_s"] < 0.3, "alone: the probe's answers took the server's 20 ms (%s)" % p)
    f = finding(j, "queueing")
    check(f is not None, "alone: queueing found (%s)" % ids(j))
    if f and p:
        ev = f["evidence"]
        check(ev["service_estimated"] == 0 and ev["service_from_cpu"] == 0 and ev["alone_answers"] == p["answered"]
              and abs(ev["alone_p50_us"] - p["latency_p50_us"]) < 1 and ev["service_us"] == ev["alone_p50_us"],
              "alone: the own time is the probe's median (%s)" % ev)
        check(ev["latency_mean_us"] >= 5 * ev["service_us"] and j["ttfb"]["min_us"] >= 3 * ev["service_us"],
              "alone: even the fastest answer of the run waited (%s, min %s)" % (ev, j["ttfb"]["min_us"]))
        check("while alone an answer takes %s (the median of %d, one at a time before the load)"
              % (fmt_ms(p["latency_p50_us"]), p["answered"]) in f["summary"], "alone: said (%s)" % f["summary"])
    check(finding(j, "server_waiting") is None, "alone: the queue explains the wait")
    check(re.search(r"^Alone, before the load: %d requests? one at a time on one connection, not counted: p50 "
                    % (p and p["requests"]), r.out, re.M), "alone: the text's line (%s)" % r.out[:600])
    line = [l for l in r.out.splitlines() if l.startswith("Alone, before the load:")]
    page = open(html).read() if os.path.exists(html) else ""
    check(line and "<p>%s</p>" % line[0] in page, "alone: the HTML says the text's line (%s)" % line)


def fmt_ms(us):
    """A latency in µs as rafale's text prints one of some ms (units_fmt_ns: 3 significant digits)."""
    ms = us / 1000
    return "%.2fms" % ms if ms < 10 else "%.1fms" % ms if ms < 100 else "%.0fms" % ms


@test
def findings_probe_apart():
    # The probe's requests are the run's own, counted apart: serve counts them and the run's, the run's figures
    # hold none of them. -n says how many requests the server gets, --no-probe turns it off, a POST is not sent
    # but by the run: none then. A healthy server stays silent with it.
    srv = Serve()
    r = rafale("-c", 4, "-t", 1, "-d", "1s", srv.url("/delay/5"))
    conns, reqs = srv.stop()
    j, p = r.j, r.j.get("probe")
    s = j["summary"]
    # serve's /delay/5 waits on a timer, so its answers come in about 5 ms: the fastest under 8 ms; the median under
    # 15, since in a pool whose CPUs were full the timer's late wake-ups made it 8.9 ms (the fastest 5.3).
    check(p is not None and p["requests"] == p["answered"] == 8 and p["failed"] == 0 and
          5000 <= p["latency_min_us"] < 8000 and p["latency_min_us"] <= p["latency_p50_us"] < 15000,
          "probe: 8 answers of /delay/5 alone, about 5 ms (%s)" % p)
    check(p is not None and s["requests"] <= reqs - p["requests"] <= s["requests"] + s["in_flight"] and
          conns == s["connections_opened"] + 1 and accounted(j),
          "probe: serve counted the run's requests and the probe's 8, on one connection of its own (%s, %s; %s)"
          % (conns, reqs, s))
    check(j["latency"]["count"] == s["requests"] + j["latency"]["censored"] and s["started"] == s["requests"] +
          s["errors"] + s["in_flight"], "probe: none of its requests in the run's figures")
    check([i for i in ids(j, "warning") if i not in ("noisy_neighbour", "client_delay")] == [],
          "probe: a healthy run stays silent (%s)" % ids(j))
    for args in (("-n", 300), ("-d", "1s", "--no-probe"), ("-d", "1s", "-m", "POST", "-b", "x=1")):
        srv = Serve()
        r = rafale(*(("-c", 4, "-t", 1) + args + (srv.url(),)))
        conns, reqs = srv.stop()
        s = r.j["summary"]
        check("probe" not in r.j and "Alone" not in r.out and s["requests"] <= reqs <= s["requests"] + s["in_flight"]
              and conns == s["connections_opened"], "no probe with %s: serve counted the run's requests alone "
              "(%s, %s; %s)" % (" ".join(map(str, args)), conns, reqs, s))
    check(reqs >= 1 and s["requests"] > 0, "no probe: the POST run ran")


@test
def findings_queueing_not_a_fast_error():
    # A thread per connection, 50 ms of work each, all at once (no queue), and every 100th request an instant
    # 503: latency = connections / throughput as in any closed loop, and the fastest answer is an error that did
    # no work. The server's own time is its good answers' (50 ms), not the 503's (tens of us): no queueing.
    srv = FServer("sleep", "--ms", "50", "--shed", "100")
    r = rafale("-t", 1, "-c", 10, "-d", "2s", srv.url())
    srv.stop()
    j = r.j
    check(j["summary"]["unexpected_status"] >= 2 and j["ttfb"]["min_us"] < 10000 <= j["ttfb"]["percentiles_us"]["50"],
          "shedding: fast 503s beside 50 ms answers (%s, %s)" % (j["summary"]["unexpected_status"], j["ttfb"]))
    check(finding(j, "queueing") is None, "shedding: a fast 503 is not the server's own time (%s)" % ids(j))


@test
@alone
def findings_queueing_own_time_from_cpu():
    # One busy CPU behind an event loop that accepts every connection: 20 connections, 5 ms of CPU each. The
    # answers that found the queue empty are none but the first: the fifth fastest is about 25 ms, a fifth of the
    # mean (100 ms), and so no queue could be told from the answers alone. With --monitor the own time is the
    # CPU per answer, said so.
    # Other processes on its CPU take what it cannot have: judged when they took under 15% (the rule reads the
    # CPU per answer as its own time from 80% busy), else said and skipped.
    srv = FServer("cpuqueue", "--ms", "5")
    # --no-probe: the CPU per answer alone (as for a POST, which is not probed); with the probe it is the second
    # witness (test_findings's queueing_alone).
    r, taken = pinned_apart(lambda pin: rafale("-t", 1, "-c", 20, "-d", "2s", "--no-probe", "--monitor", srv.p.pid,
                                               srv.url(), preexec=pin))
    srv.stop()
    j = r.j
    f = finding(j, "queueing")
    free = taken < 0.15
    if not free:
        print("  skip: other processes took %.0f%% of the server's CPU (%s)" % (100 * taken, ids(j)))
    check(f is not None or not free, "own time from CPU: queueing found (%s; others took %.1f%% of its CPU)"
          % (ids(j), 100 * taken))
    if f:
        ev = f["evidence"]
        cpu_us = j["server"]["cpu_us_per_request"]
        check(ev["service_from_cpu"] == 1 and abs(ev["service_us"] - cpu_us) <= 0.01 * cpu_us,
              "own time from CPU: the monitor's CPU per answer (%s, %s)" % (ev, cpu_us))
        check(5000 <= ev["service_us"] <= 8000, "own time from CPU: about the 5 ms it spends (%s)" % ev["service_us"])
        check("(its CPU per answer, from the monitor: its CPUs were" in f["summary"],
              "own time from CPU: the text says where it comes from (%s)" % f["summary"])


@test
def findings_server_scaling():
    # A pool of one worker thread that grows by one every 0.2 s while requests wait, up to 8; 20 ms a request.
    # 4 s: the rule reads a second as grown only when every monitor point overlapping it (a point holds the least
    # seen since the one before, about a second) is at 90% of the peak; the pool is whole at about 1.4 s, so the
    # first wholly grown second is the fourth (in 3 s it was seen or not by a few ms: 0 of 3 runs found it).
    srv = FServer("grow", "--ms", "20")
    r = rafale("-t", 1, "-c", 16, "-d", "4s", "--monitor", srv.p.pid, srv.url())
    srv.stop()
    j = r.j
    f = finding(j, "server_scaling")
    # On a busy machine the throughput follows the other processes' load as much as the pool's (once, 8 tests
    # beside it: noisy_neighbour alone): rafale says the machine.
    check(f is not None and f["severity"] == "warning" or f is None and busy_machine(j),
          "scaling: found (%s)" % ids(j))
    pts = j["server"]["memory_timeline"]
    check(pts[0]["threads"] <= 4 and max(p["threads"] for p in pts) >= 9,
          "scaling: the monitor's points show the threads grow (%s)" % [p["threads"] for p in pts])
    if f:
        ev = f["evidence"]
        check(ev["threads_start"] <= 4 and ev["threads_peak"] >= 9, "scaling: its threads (%s)" % ev)
        tl = [s["requests"] for s in j["timeline"]]
        check(ev["rps_grown"] >= 1.3 * ev["rps_small"] and tl[0] < ev["rps_grown"],
              "scaling: the throughput followed (%s, timeline %s)" % (ev, tl))
        check("--warmup" in f["advice"] and "pool" in f["advice"], "scaling: the advice (%s)" % f["advice"])
    # A thread per connection, made as they open: the threads grow, the throughput does not follow. Silent.
    srv = FServer("sleep", "--ms", "20")
    r = rafale("-t", 1, "-c", 16, "-d", "2s", "--monitor", srv.p.pid, srv.url())
    srv.stop()
    check(r.j is not None and r.j["server"]["threads"] >= 17, "thread per connection: 17 threads (%s)"
          % (r.j and r.j["server"]["threads"]))
    check(r.j is not None and finding(r.j, "server_scaling") is None,
          "thread per connection: no server_scaling (%s)" % (r.j and ids(r.j)))


@test
def findings_server_writes_to_a_pipe():
    # Logging to a pipe never reaches storage (write_bytes 0): the monitor's wchar sees it. The server answers with
    # send(), which wchar does not count, so wchar is the log alone; the test counts what it drains from the pipe.
    port = free_port()
    p = subprocess.Popen([sys.executable, FSERVER, "log", "--port", str(port)], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)
    check(p.stdout.readline().startswith(b"listening on"), "pipe: the server starts")
    got = [0]

    def drain():
        while True:
            b = p.stdout.read1(65536)
            if not b:
                return
            got[0] += len(b)
    t = threading.Thread(target=drain, daemon=True)
    t.start()
    r = rafale("-t", 1, "-c", 4, "-n", 3000, "--monitor", p.pid, "http://127.0.0.1:%d/" % port)
    time.sleep(0.1)  # the last lines through the pipe (written before their answers: all are in it)
    logged = got[0]
    p.kill()
    p.wait(timeout=10)
    j = r.j
    check(j["server"].get("write_bytes", 0) < 65536, "pipe: nothing reached storage (%s)" % j["server"].get("write_bytes"))
    check(abs(j["server"]["wchar_bytes"] - logged) <= 0.05 * logged,
          "pipe: wchar is what the test drained (%s, %d)" % (j["server"].get("wchar_bytes"), logged))
    f = finding(j, "server_writes")
    check(f is not None, "pipe: server_writes found (%s)" % ids(j))
    if f:
        check(abs(f["evidence"]["bytes_per_request"] - logged / 3000) <= 0.05 * logged / 3000,
              "pipe: the log's %d B per request (%s)" % (logged / 3000, f["evidence"]))
        check(f["evidence"]["answers_in_wchar"] == 0, "pipe: the answers went by send() (%s)" % f["evidence"])


@test
def findings_server_writes_to_a_socket():
    # A gateway passes each request on over a unix socket with write() (mod_wsgi to its daemon processes): wchar
    # counts those bytes as it counts a log's, and /proc/PID/io cannot tell them apart. The finding reports the
    # bytes, but never guesses logging: nothing reached storage, nothing was captured.
    srv = FServer("gateway")
    r = rafale("-t", 1, "-c", 4, "-n", 3000, "--monitor", srv.p.pid, srv.url())
    srv.stop()
    j = r.j
    f = finding(j, "server_writes")
    check(f is not None, "socket: server_writes found (%s)" % ids(j))
    if f:
        # (Writes as large as the answers read as answers written by write() beside 110 B of other writes: wchar
        # alone cannot tell them apart either.)
        check(f["evidence"]["wchar_bytes"] >= 3000 * 204 and f["evidence"]["bytes_per_request"] >= 100,
              "socket: the 204 B passed on per request counted (%s)" % f["evidence"])
        check("logging" not in f["summary"] and "turn it off" not in f["advice"] and "does not tell" in f["summary"],
              "socket: no guess of logging (%s / %s)" % (f["summary"], f["advice"]))


@test
def findings_server_writes_beside_send():
    # A log line a request larger than the answers, the answers by send(): wchar holds more than the answers' bytes,
    # and the bytes alone read as answers by write() and a log of the difference (151 B was told 57). One write call
    # a request says the log is all of it.
    srv = FServer("log", "--log", os.devnull, "--log-bytes", "151")
    r = rafale("-t", 1, "-c", 4, "-n", 3000, "--monitor", srv.p.pid, srv.url())
    srv.stop()
    j = r.j
    sv = j["server"]
    check(abs(sv["syscw"] - 3000) <= 30 and abs(sv["wchar_bytes"] - 3000 * 151) <= 30 * 151,
          "send: a write call of 151 B a request (%s calls, %s B)" % (sv.get("syscw"), sv.get("wchar_bytes")))
    check(j["summary"]["bytes_received"] == 3000 * 94, "send: answers of 94 B (%s)" % j["summary"]["bytes_received"])
    f = finding(j, "server_writes")
    check(f is not None, "send: server_writes found (%s)" % ids(j))
    if f:
        ev = f["evidence"]
        check(150 <= ev["bytes_per_request"] <= 152 and ev["answers_in_wchar"] == 0 and
              0.99 <= ev["write_calls_per_request"] <= 1.01, "send: the log's 151 B a request (%s)" % ev)


@test
def findings_server_writes_nginx_silent():
    # nginx answers by writev and logs nothing (access_log off): its writes are its answers, whole runs and short
    # ones after a warm-up (0.1 s rounds, where the monitor's reads fell off the measured phase and its answers were
    # taken for 296 B of logging a request).
    ng = Nginx()
    if not ng.ok:
        print("  skip: no nginx")
        return
    try:
        for args in (["-c", 16, "-d", "1s"], ["-c", 16, "-d", "0.1s", "--warmup", "0.2s"],
                     ["-c", 16, "-d", "0.3s", "--warmup", "0.1s"]):
            r = rafale("-t", 1, *args, "--monitor", ng.p.pid, ng.url())
            j = r.j
            check(j is not None and "syscw" in j["server"], "nginx %s: syscw read (%s)" % (args, j and j["server"]))
            check(finding(j, "server_writes") is None, "nginx %s: no server_writes (%s)"
                  % (args, [x for x in j["findings"] if x["id"] == "server_writes"]))
            if args[-1] == "1s":
                calls = j["server"]["syscw"] / j["summary"]["requests"]
                check(0.9 <= calls <= 1.2, "nginx: a writev an answer (%.3f)" % calls)
    finally:
        ng.stop()


def busy_machine(j):
    """Whether other processes took the machine's CPUs during the run, as rafale's noisy_neighbour says (checked):
    a server then cannot be judged busy on its own account, and rafale rightly says the machine instead."""
    f = finding(j, "noisy_neighbour")
    if f is None:
        return False
    ev = f["evidence"]
    check(ev["foreign_cpu_pct"] + ev["steal_pct"] > 10, "noisy_neighbour: foreign CPU measured (%s)" % ev)
    print("  skip: the machine was busy with other work (%s); the server's CPU cannot be judged" % ev)
    return True


def cpu_ticks(cpu):
    """(busy, all) clock ticks of one CPU so far, from /proc/stat."""
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith("cpu%d " % cpu):
                v = [int(x) for x in line.split()[1:9]]
                return sum(v) - v[3] - v[4], sum(v)
    return 0, 0


def pinned_apart(fn):
    """Runs fn (a rafale run against a server pinned to the first CPU, as findings_server.py pins busy and
    cpuqueue) with rafale on the other CPUs, so that it takes nothing from the server's. Returns its result and the
    share of the server's CPU that other processes took meanwhile (its busy ticks beyond the server's own CPU time):
    what the server could not have, however busy it was."""
    cpus = sorted(os.sched_getaffinity(0))
    before = cpu_ticks(cpus[0])
    r = fn(lambda: os.sched_setaffinity(0, cpus[1:]) if len(cpus) > 1 else None)
    after = cpu_ticks(cpus[0])
    busy, total = after[0] - before[0], after[1] - before[1]
    own = r.j["server"]["cpu_s"] * os.sysconf("SC_CLK_TCK") if r.j else 0
    return r, max(0.0, busy - own) / total if total else 1.0


@test
@alone
def findings_server_cpu_bound():
    # 5 ms of CPU an answer, 4 requests pipelined on one connection: the next requests are always there, so rafale
    # reading late (a busy machine) does not idle the server; with -c 1 and one at a time it did: at 5 ms the
    # round trip to rafale and back idled it 2% of the time, and a run that read answers late (client_delay) found
    # it under 90%. Other processes on its CPU take what it cannot have: it is judged when they took under 5%
    # (the rule wants 90% busy), else said and skipped.
    srv = FServer("busy", "--ms", "5")
    r, taken = pinned_apart(lambda pin: rafale("-t", 1, "-c", 1, "--pipeline", 4, "-d", "2s", "--monitor", srv.p.pid,
                                               srv.url(), preexec=pin))
    srv.stop()
    j = r.j
    f = finding(j, "server_cpu_bound")
    free = taken < 0.05
    if not free:
        print("  skip: other processes took %.0f%% of the server's CPU (%s)" % (100 * taken, ids(j)))
    check(f is not None and f["severity"] == "info" or not free,
          "server cpu: found (%s; others took %.1f%% of its CPU)" % (ids(j), 100 * taken))
    if f:
        check(f["evidence"]["cpus"] == 1 and f["evidence"]["busy"] >= 0.9, "server cpu: its one CPU busy (%s)"
              % f["evidence"])
    check(j["server"]["cpus"] == 1, "server cpu: the monitor read its affinity (1 CPU)")
    check(finding(j, "client_cpu_bound") is None, "server cpu: rafale was not the limit")
    # Watched through a shell that started it and waits (not exec'd): the CPUs it may use are those of the
    # processes that ran, the pinned server's one, not the idle shell's (it read every CPU, and found nothing).
    if len(os.sched_getaffinity(0)) > 1:
        port = free_port()
        sh = subprocess.Popen(["sh", "-c", "'%s' '%s' busy --ms 5 --port %d; true" % (sys.executable, FSERVER, port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_port(port)
            r, taken = pinned_apart(lambda pin: rafale("-t", 1, "-c", 1, "--pipeline", 4, "-d", "2s", "--monitor",
                                                       sh.pid, "http://127.0.0.1:%d/" % port, preexec=pin))
            check(r.j["server"]["processes"] == 2 and r.j["server"]["cpus"] == 1 and
                  (finding(r.j, "server_cpu_bound") is not None or taken >= 0.05),
                  "server cpu: through a waiting shell, the server's 1 CPU (%s, %s; others took %.1f%% of it)" %
                  ({k: r.j["server"][k] for k in ("processes", "cpus", "cpu_s")}, ids(r.j), 100 * taken))
        finally:
            for pid in subprocess.run(["pgrep", "-P", str(sh.pid)], capture_output=True, text=True).stdout.split():
                os.kill(int(pid), signal.SIGKILL)
            sh.kill()
            sh.wait()


@test
def findings_server_waiting():
    # Four connections on a server that sleeps 20 ms per answer: no queue, no busy CPU, slow answers.
    srv = FServer("slow")
    r = rafale("-c", 4, "-d", "2s", "--monitor", srv.p.pid, srv.url())
    srv.stop()
    j = r.j
    f = finding(j, "server_waiting")
    # On a busy machine the server's idle time may have been a wait for a CPU: rafale says the machine instead.
    check(f is not None and f["severity"] == "warning" or f is None and busy_machine(j),
          "server waiting: found (%s)" % ids(j))
    if f:
        check(f["evidence"]["busy"] < 0.5 and f["evidence"]["latency_p50_us"] >= 20000,
              "server waiting: idle and slow (%s)" % f["evidence"])
    check(finding(j, "queueing") is None and finding(j, "server_cpu_bound") is None,
          "server waiting: neither a queue nor a CPU limit")


@test
def findings_keepalive_limit():
    srv = FServer("ka100")
    r = rafale("-c", 10, "-n", 5000, srv.url())
    srv.stop()
    j = r.j
    f = finding(j, "keepalive_limit")
    check(f is not None, "keep-alive limit: found (%s)" % ids(j))
    if f:
        check(f["evidence"]["requests_per_connection"] == 100, "keep-alive limit: exactly 100 (%s)" % f["evidence"])
    c = j["connections"]
    check(c["server_ended_mode"] == 100 and 40 <= c["server_ended"] <= 50, "keep-alive limit: %s" % c)
    check(c["server_ended"] == j["summary"]["server_close_reasons"]["connection_close"],
          "keep-alive limit: each server close counted once")


@test
def findings_server_writes():
    # With --monitor: the log file's bytes reach the disk (/proc/PID/io write_bytes).
    logpath = os.path.join(os.path.dirname(FSERVER), "..", "build", "findings-%d.log" % os.getpid())
    srv = FServer("log", "--log", logpath)
    r = rafale("-t", 1, "-c", 4, "-n", 3000, "--monitor", srv.p.pid, srv.url())
    srv.stop()
    size = os.path.getsize(logpath)
    os.unlink(logpath)
    j = r.j
    f = finding(j, "server_writes")
    check(f is not None, "server writes: found with --monitor (%s)" % ids(j))
    if f:
        check(0.8 * size / 3000 <= f["evidence"]["bytes_per_request"] <= 1.5 * size / 3000 + 50,
              "server writes: about the log's %d B per request (%s)" % (size / 3000, f["evidence"]))
        # The log reached storage (build/ is on a disk, not a tmpfs): known to be files, so logging is named.
        check("(logging?)" in f["summary"] and f["evidence"].get("write_bytes", 0) >= 0.5 * size,
              "server writes: a log file is called logging (%s, %s)" % (f["summary"], f["evidence"]))
    # In compare: the captured stdout of a server that logs, and none for one that does not.
    ports = [free_port(), free_port()]
    plan = os.path.join(TMP, "writes.plan")
    with open(plan, "w") as fh:
        fh.write("""[settings]
repeat = 1
warmup = 0s
connections = 2
requests = 2000

[server logs]
start = exec %(py)s %(fs)s log --port %(p0)d
url = http://127.0.0.1:%(p0)d

[server quiet]
start = exec %(py)s %(fs)s ka100 --port %(p1)d
url = http://127.0.0.1:%(p1)d

[workload hello]
path = /
""" % dict(py=sys.executable, fs=FSERVER, p0=ports[0], p1=ports[1]))
    out = os.path.join(TMP, "writes.json")
    p = subprocess.run([RAFALE, "compare", plan, "--json", out], capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, "compare runs (rc %d: %s)" % (p.returncode, p.stderr[-500:]))
    with open(out) as fh:
        cj = json.load(fh)
    by = {c["name"]: c for c in cj["compare"]["workloads"][0]["servers"]}
    fl = [x for x in by["logs"]["findings"] if x["id"] == "server_writes"]
    check(len(fl) == 1 and 50 <= fl[0]["evidence"]["bytes_per_request"] <= 200,
          "compare: the logging server's cell has server_writes (%s)" % [x["id"] for x in by["logs"]["findings"]])
    check(not [x for x in by["quiet"]["findings"] if x["id"] == "server_writes"], "compare: the quiet one has none")
    check("server_writes" in p.stdout, "compare: the text shows the finding under its table")
    run0 = by["logs"]["run_results"][0]
    check(any(x["id"] == "server_writes" for x in run0["findings"]), "compare: the run's own JSON has it too")


# rafale serve in the namespace on 127.0.0.1:18080, then a wait until it says it listens (5 s at most; a fixed
# half second was not enough for the sanitized build on a loaded machine). Formatted with RAFALE, TMP, TMP, TMP.
NS_SERVE = ("(%s serve --listen 127.0.0.1:18080 -t 1 >%s/ns-serve.out 2>&1 & echo $! > %s/ns-serve.pid) && "
            "for i in $(seq 100); do grep -q listening %s/ns-serve.out && break; sleep 0.05; done && ")


@test
def findings_ports_exhausted():
    # A network namespace of its own, with ten local ports.
    # rafale closes first, so that its side holds each port in TIME_WAIT: the server keeps the connection open
    # (Connection: keep-alive sent, --close still closing after each answer); when the server closed first (it
    # does on Connection: close, when it is quick enough) the TIME_WAIT was the server's and ten ports sufficed:
    # 200 of 200 answered in 5 runs of 8. No reuse of a TIME_WAIT port either (Linux's default 2 allows it on
    # loopback once a timestamp tick has passed).
    script = ("ip link set lo up && echo '40000 40009' > /proc/sys/net/ipv4/ip_local_port_range && "
              "echo 0 > /proc/sys/net/ipv4/tcp_tw_reuse && " + NS_SERVE +
              "%s -q --close -H 'Connection: keep-alive' -c 4 -n 200 --json %s/ports.json http://127.0.0.1:18080/; "
              "kill $(cat %s/ns-serve.pid)") % (RAFALE, TMP, TMP, TMP, RAFALE, TMP, TMP)
    p = subprocess.run(["unshare", "-n", "sh", "-c", script], capture_output=True, text=True, timeout=120)
    if not os.path.exists(os.path.join(TMP, "ports.json")):
        check("Operation not permitted" in p.stderr, "ports: no namespace only when not permitted: %s" % p.stderr)
        print("  skip: ports_exhausted needs a network namespace: %s" % p.stderr.strip()[:200])
        return
    with open(os.path.join(TMP, "ports.json")) as fh:
        j = json.load(fh)
    check(j["errors"]["addr_unavailable"] > 0, "ports: connects found no port (%s)" % j["errors"])
    f = finding(j, "ports_exhausted")
    check(f is not None, "ports: found (%s)" % ids(j))
    if f:
        check(f["evidence"]["port_lo"] == 40000 and f["evidence"]["port_hi"] == 40009
              and f["evidence"]["time_wait"] >= 1, "ports: evidence (%s)" % f["evidence"])
        check("40000-40009" in f["advice"], "ports: the advice names the range")


def in_netns(rules, client_args, name):
    """rafale serve and one rafale run in a network namespace of their own, its INPUT chain given rules
    (iptables' statistic match drops packets at random). Returns the run's JSON, or None with a skip line."""
    jp = os.path.join(TMP, name + ".json")
    if os.path.exists(jp):
        os.unlink(jp)
    script = ("ip link set lo up && %s && " % " && ".join(rules) + NS_SERVE % (RAFALE, TMP, TMP, TMP) +
              "%s -q %s --json %s http://127.0.0.1:18080/; kill $(cat %s/ns-serve.pid)"
              % (RAFALE, client_args, jp, TMP))
    p = subprocess.run(["unshare", "-n", "sh", "-c", script], capture_output=True, text=True, timeout=120)
    if not os.path.exists(jp):
        check(shutil.which("iptables") is not None, "iptables is installed (make deps installs it)")
        print("  skip: %s needs a network namespace and iptables: %s" % (name, p.stderr.strip()[:200]))
        return None
    with open(jp) as fh:
        return json.load(fh)


@test
def findings_syn_retransmits():
    # A third of the SYNs dropped: connects wait for the kernel's retries, and no accept queue is to blame.
    j = in_netns(["iptables -A INPUT -p tcp --syn -m statistic --mode random --probability 0.3 -j DROP"],
                 "--close -c 4 -n 40", "syn")
    if j is None:
        return
    f = finding(j, "syn_retransmits")
    check(f is not None and f["severity"] == "warning", "syn: found (%s)" % ids(j))
    if f:
        ev = f["evidence"]
        check(ev["slow_connects"] >= 3 and ev["syn_retransmits"] >= ev["slow_connects"] - ev["connects_at_7s"],
              "syn: slow connects and this host's SYN retries (%s)" % ev)
        check(ev["connects_at_1s"] + ev["connects_at_3s"] + ev["connects_at_7s"] > 0, "syn: at the retry steps")
    check(finding(j, "listen_queue_overflow") is None, "syn: no overflow invented")


@test
def findings_packet_loss():
    # 2% of the packets dropped both ways: rafale's own segments are sent again, as TCP_INFO counts. Each loss
    # stalls its connection for a retransmission timeout (200 ms, then 400 ms...), so a connection sends only a few
    # hundred segments in 3 s: 16 connections send ~6000, well above the rule's 1000 (4 sent 928 once in CI).
    j = in_netns(["iptables -A INPUT -p tcp -m statistic --mode random --probability 0.02 -j DROP"],
                 "-c 16 -d 3s", "loss")
    if j is None:
        return
    f = finding(j, "packet_loss")
    check(f is not None and f["evidence"]["share"] > 0.005, "packet loss: found (%s, tcp %s)" % (ids(j), j["tcp"]))
    check(j["tcp"]["sampled"] == 16 and j["tcp"]["retransmits"] > 0, "packet loss: 16 connections read at close")


@test
def findings_stragglers():
    # The spray can: net.core.somaxconn 4 in a namespace of its own caps rafale serve's accept queue at 5.
    # Of 8 connections opened at once, 3 find it full and wait for the kernel's SYN retry (1 s) while the other 5
    # do the other 497 requests in a tenth of that: those 3 set the elapsed time and the headline.
    j = in_netns(["echo 4 > /proc/sys/net/core/somaxconn"], "--close -c 8 -n 500", "stragglers")
    if j is None:
        return
    f = finding(j, "stragglers")
    check(f is not None and f["severity"] == "warning", "stragglers: found (%s, timeline %s)"
          % (ids(j), j["timeline"]))
    if f:
        ev = f["evidence"]
        # The tail is every request that ended after the body's rate would have ended them all: the connects that
        # waited for a SYN retry, and on a busy machine a few of the body's last that a stall held up.
        check(1 <= ev["slow_connects"] <= ev["tail_requests"] <= 25,
              "stragglers: the tail holds the connects that waited for a SYN retry (%s)" % ev)
        check(ev["elapsed_s"] >= 0.95 and ev["tail_s"] > ev["elapsed_s"] / 2 and ev["bulk_s"] < ev["elapsed_s"] / 2,
              "stragglers: the tail took the run's second half (%s)" % ev)
        check(abs(ev["rps"] - j["summary"]["rps"]) < 0.01 * ev["rps"] and ev["requests"] == 500,
              "stragglers: the headline is the summary's")
        check(abs(ev["steady_rps"] - (500 - ev["tail_requests"]) / ev["bulk_s"]) < 0.01 * ev["steady_rps"]
              and ev["steady_rps"] > 2 * ev["rps"], "stragglers: the steady rate, before the tail (%s)" % ev)
        check(ev["syn_retransmits"] >= ev["slow_connects"] and ev["timeouts"] == 0, "stragglers: cause (%s)" % ev)
        check("SYN retry" in f["summary"] and "backlog" in f["advice"], "stragglers: the text names the cause")
    check(finding(j, "listen_queue_overflow") is not None, "stragglers: the overflow behind them is reported too")


@test
def findings_stragglers_past_half():
    # A tail past the run's half: 2000 requests at 1000 a second, the server answering all but the last 20 at once
    # and those in 800 ms. The body ends at 2 s, the tail at 2.8 s: 71% of the requests had ended in the first
    # half, and a rule wanting 95% there said nothing (the nginx with a backlog of 4: 19 958 requests by 7 s,
    # the last 42 in 3.45 s more, headline 1 915 req/s). Judged by the body's own rate, the run lost 0.8 s.
    srv = FServer("sleep", "--ms", "800", "--slow-after", "1980")
    # 64 connections on one thread: the slow 20 leave the others free, so no request waits behind them.
    r = rafale("-t", 1, "-c", 64, "-R", 1000, "-n", 2000, srv.url())
    srv.stop()
    j = r.j
    f = finding(j, "stragglers")
    tl = [s["requests"] + s["errors"] for s in j["timeline"]]
    check(f is not None and f["severity"] == "warning", "past half: stragglers found (%s, timeline %s)" % (ids(j), tl))
    if f:
        ev = f["evidence"]
        check(ev["requests"] == 2000 and ev["tail_requests"] == 20, "past half: the 20 slow answers (%s)" % ev)
        check(1.9 <= ev["bulk_s"] <= 2.2 and 0.7 <= ev["tail_s"] <= 1.0 and ev["tail_s"] < ev["elapsed_s"] / 2,
              "past half: the body in 2 s, the tail in 0.8 s, under half the run (%s)" % ev)
        check(ev["lost_s"] >= 0.2 * ev["elapsed_s"] and ev["tail_rps"] * 6 <= ev["steady_rps"],
              "past half: 20%% of the run lost, the tail 6 times slower than the body or more (%s)" % ev)
        check(abs(ev["rps"] - j["summary"]["rps"]) < 0.01 * ev["rps"] and abs(ev["steady_rps"] - 1980 / ev["bulk_s"])
              < 0.01 * ev["steady_rps"], "past half: the headline and the body's rate (%s)" % ev)
        check(ev["slow_connects"] == 0 and ev["timeouts"] == 0 and "no cause" in f["summary"],
              "past half: no cause rafale sees (%s)" % f["summary"])


@test
def findings_timeout_storm():
    # An asynchronous server whose answers block its loop 50 ms (it accepts only between them), backlog 4, 40
    # connections: a round of answers takes 2 s, so answers pass --timeout 1.5 s; each timed-out connection is
    # opened again into the full accept queue and waits for a SYN retry (1 s) of its 1.5 s. 4 s, not 3: on a loaded
    # machine the timeouts came late and the reconnects were still waiting at 3 s (none slow yet: no storm found).
    srv = FServer("blocking", "--ms", "50", "--backlog", "4")
    r = rafale("-c", 40, "--timeout", "1500ms", "-d", "4s", srv.url())
    srv.stop()
    j = r.j
    f = finding(j, "timeout_storm")
    check(f is not None and f["severity"] == "warning", "storm: found (%s, errors %s)" % (ids(j), j["errors"]))
    if f:
        ev = f["evidence"]
        check(ev["timeouts"] == j["errors"]["timeout_connect"] + j["errors"]["timeout_answer"] >= 10
              and ev["timeouts_answer"] == j["errors"]["timeout_answer"], "storm: the timeouts (%s)" % ev)
        check(ev["connections"] == 40 and ev["connections_opened"] == j["summary"]["connections_opened"]
              and ev["reconnects"] == ev["connections_opened"] + ev["timeouts_connect"] - 40 >= 3,
              "storm: connections opened beyond -c (%s)" % ev)
        check(ev["slow_connects"] + ev["timeouts_connect"] >= 3 and ev["timeout_s"] == 1.5,
              "storm: connects waited in the full queue (%s)" % ev)
        check("raise --timeout" in f["advice"] and "lower -c" in f["advice"], "storm: the advice")
    # The same timeouts from a server that accepts every connection at once (a thread each): no queue, no storm.
    srv = FServer("sleep", "--ms", "400")
    r = rafale("-c", 10, "--timeout", "200ms", "-d", "1s", srv.url())
    srv.stop()
    check(r.j["errors"]["timeout_answer"] >= 10 and finding(r.j, "timeout_storm") is None,
          "slow server, no full queue: no storm (%s, %s)" % (r.j["errors"]["timeout_answer"], ids(r.j)))


def machine_stragglers(j):
    """{"stragglers"} when the tail was the machine's, as rafale said: its own late reads (client_delay) or other
    processes (noisy_neighbour) named beside it. A run of 0.4 s in a pool whose 2 CPUs were 1.88 busy once lost its
    last 0.2 s so; the finding is true (the headline is that tail's), but it says nothing of the server."""
    found = set(ids(j))
    return {"stragglers"} if "stragglers" in found and found & {"client_delay", "noisy_neighbour"} else set()


@test
def findings_silent_when_healthy():
    srv = Serve(threads=2)
    runs = [("-c", 10, "-R", 2000, "-d", "2s"), ("-c", 10, "-R", 500, "-d", "2s", "--close")]
    # HTTP/2: its frames are what rafale received, and the server's writes are those frames, no more.
    r = rafale("-c", 4, "-R", 1000, "-d", "2s", "--http2", "--streams", 4, "--monitor", srv.p.pid, srv.url())
    check(r.j is not None and not set(ids(r.j)) & {"server_writes", "server_scaling", "queueing", "server_waiting"},
          "healthy rafale serve --http2: none of the server's findings (%s)" % (r.j and r.j.get("findings")))
    for args in runs:
        r = rafale(*(args + ("--monitor", srv.p.pid, srv.url())))
        check(r.j is not None and [i for i in ids(r.j, "warning") if i != "noisy_neighbour"] == [],
          "healthy rafale serve %s: no warning (%s)"
              % (" ".join(map(str, args)), r.j and r.j.get("findings")))
        check(r.j is not None and [f for f in r.j["findings"] if f["id"] != "noisy_neighbour"] == [],
              "healthy rafale serve %s: no finding at all (the machine's noise aside)" % (args,))
    # A closed loop saturates someone: only the CPU findings may speak, and nothing else; bounded by a count,
    # its last requests end with the others (no stragglers). When it is rafale (the sanitized build on two
    # shared CPUs), it also reads answers late, which client_delay says.
    for args in (("-c", 20, "-t", 2, "-d", "2s"), ("-c", 8, "-n", 3000, "--close")):
        r = rafale(*(args + (srv.url(),)))
        check(r.j is not None and set(ids(r.j)) - machine_stragglers(r.j) <= {"client_cpu_bound", "client_delay"},
              "healthy closed loop %s: only CPU findings (%s)" % (" ".join(map(str, args)), r.j and r.j["findings"]))
    srv.stop()
    ng = Nginx()
    check(ng.ok, "nginx is installed and listens (make deps installs it)")
    try:
        for args in runs if ng.ok else ():
            r = rafale(*(args + ("--monitor", ng.p.pid, ng.url())))
            check(r.j is not None and r.j["summary"]["errors"] == 0, "nginx %s: no errors" % (args,))
            # noisy_neighbour speaks of the machine, not the server: a shared one may be busy (its own test).
            check(r.j is not None and [f for f in r.j["findings"] if f["id"] != "noisy_neighbour"] == [],
                  "healthy nginx %s: no finding (%s)" % (" ".join(map(str, args)), r.j and r.j.get("findings")))
        if ng.ok:
            r = rafale("-c", 8, "-n", 3000, "--close", ng.url())
            check(r.j is not None and set(ids(r.j)) - machine_stragglers(r.j) <= {"client_cpu_bound", "client_delay"},
                  "healthy nginx -n 3000 --close: no stragglers (%s)" % (r.j and r.j["findings"]))
    finally:
        ng.stop()


@test
@alone
def findings_not_steady():
    # Alone: a steady run is one on a machine whose other load does not change under it; in the pool, the other
    # tests' load came and went and a healthy serve run's seconds rose from 20 000 to 70 000 req/s, which the rule
    # rightly called not steady.
    # A server that slows as it runs: each answer takes 5 ms more by half for every 5 s it has served (a leak's
    # shape). 10 s, the fewest whole seconds the rule judges: the throughput falls and the median latency rises.
    srv = FServer("sleep", "--ms", "5", "--grow", "0.1")
    r = rafale("-c", 4, "-d", "10s", srv.url())
    srv.stop()
    j = r.j
    f = finding(j, "not_steady")
    tl = [s for s in j["timeline"]][:10]
    check(f is not None and f["severity"] == "warning", "slowing: found (%s, timeline %s)"
          % (ids(j), [(s["requests"], s["p50_us"]) for s in tl]))
    if f:
        ev = f["evidence"]
        first, last = tl[0]["p50_us"], tl[-1]["p50_us"]
        check(ev["seconds"] == 10 and ev["p50_p"] < 0.01 and ev["p50_change_pct"] >= 20
              and ev["p50_slope_lo_us"] > 0 and ev["p50_slope_lo_us"] <= ev["p50_slope_us"] <= ev["p50_slope_hi_us"],
              "slowing: the latency's slope, its interval and change (%s)" % ev)
        # The server adds 0.5 ms a second to each answer: the slope is about that, within the timeline's 3%.
        check(300 <= ev["p50_slope_us"] <= 700 and last > 1.3 * first,
              "slowing: about 0.5 ms a second, as the timeline shows (%s, %s to %s us)" % (ev, first, last))
        check(ev.get("rps_change_pct", 0) < 0, "slowing: the throughput fell with it (%s)" % ev)
        check("slows as it runs" in f["advice"] and "leak" in f["advice"], "slowing: the advice (%s)" % f["advice"])
    # Healthy, 10 s each: rafale serve in a closed loop, nginx at a rate (rafale serve when nginx is missing); a
    # third run, rafale serve at a rate, added 10 s of the suite's serial phase and no path the other two miss. The
    # machine's noise (noisy_neighbour) silences the rule: the other findings are not this test's. In the plain
    # build alone: the rule's code on a healthy run is the code the slowing run went through above under ASan, and
    # these 20 s are about the statistics' false alarms, which ASan's slower binary does not change.
    if SANITIZED:
        return
    srv = Serve(threads=1)
    ng = Nginx()
    try:
        # Watched (--monitor), so the machine's other load is measured and noisy_neighbour names it: alone, a
        # healthy serve run still fell from 122 000 to 45 000 req/s while a build started beside it.
        rated = ng if ng.ok else srv
        runs = [(srv, ("-c", 10, "-t", 1, "-d", "10s", "--monitor", srv.p.pid)),
                (rated, ("-c", 10, "-R", 2000, "-d", "10s", "--monitor", rated.p.pid))]
        for s, args in runs:
            r = rafale(*(args + (s.url(),)))
            tl = r.j and [(t["requests"], t["p50_us"]) for t in r.j["timeline"]]
            # A fall rafale measures as its own pace may be told (its thread busy 98% while the throughput fell
            # from 119 000 to 68 000 req/s, the median answer flat, on this virtual machine, alone): never the
            # server's.
            # Or, rafale CPU-bound and the bound not sure (97% busy, a 23% fall in the last 3 s; 93% busy, a 36%
            # rise said to be the server still warming): neither blamed; or, a rise over by the middle third, a
            # warm-up, whoever's (rafale's too, as it set the pace).
            ns = r.j and finding(r.j, "not_steady")
            bound = r.j and finding(r.j, "client_cpu_bound") is not None
            check(r.j is not None and (ns is None or "rafale's pace fell" in ns["advice"] and
                                       ns["evidence"].get("client_busy", 0) >= 0.9 or
                                       bound and ("these figures cannot tell" in ns["advice"] or
                                                  ns["advice"].startswith("it changed in its first"))),
                  "healthy %s %s: not_steady silent, or rafale's own pace, never the server (%s, timeline %s)"
                  % ("nginx" if s is ng else "rafale serve", " ".join(map(str, args)), r.j and r.j.get("findings"),
                     tl))
    finally:
        srv.stop()
        ng.stop()


@test
def findings_off_and_read_back():
    srv = FServer("nagle")
    r = rafale("-c", 4, "-d", "1s", "--findings", "no", srv.url())
    check(r.j is not None and "findings" not in r.j and "Findings" not in r.out, "--findings no: none written")
    r = rafale("-c", 4, "-d", "2s", srv.url())
    srv.stop()
    saved = os.path.join(TMP, "nagle.json")
    shutil.copy(os.path.join(TMP, "out.json"), saved)
    p = subprocess.run([RAFALE, "report", saved], capture_output=True, text=True, timeout=60)
    line = [l for l in r.out.splitlines() if "nagle_delayed_ack" in l]
    check(line and line[0] in p.stdout.splitlines(), "rafale report prints the saved finding as the run did")
    bad = subprocess.run([RAFALE, "-c", "1", "-n", "1", "--findings", "maybe", "http://127.0.0.1:1/"],
                         capture_output=True, text=True, timeout=30)
    check(bad.returncode == 2 and "yes or no" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1,
          "--findings maybe: one line, exit 2 (%s)" % bad.stderr)


@test
def findings_of_merged_shards():
    srv = FServer("nagle")
    paths, outs = run_shards(2, ["-c", 4, "-d", "2s"], srv.url(), "nagleshard")
    srv.stop()
    out = os.path.join(TMP, "merged-nagle.json")
    p = merge("--json", out, *paths)
    check(p.returncode == 0, "merge: exit 0 (%s)" % p.stderr)
    with open(out) as fh:
        j = json.load(fh)
    check(finding(j, "nagle_delayed_ack") is not None, "merged shards: their findings (%s)" % ids(j))
    check("nagle_delayed_ack" in p.stdout, "merged shards: in the text")


@test
def findings_noisy_neighbour():
    srv = Serve()
    r = rafale("-c", 4, "-R", 500, "-d", "2s", "--monitor", srv.p.pid, srv.url())
    n = r.j.get("noise")
    # The machine may not be quiet (it is shared): the figure is there, and the finding agrees with it.
    check(n is not None and n["foreign_cpu_pct"] >= 0 and n["steal_pct"] >= 0 and
          (finding(r.j, "noisy_neighbour") is not None) == (n["foreign_cpu_pct"] + n["steal_pct"] > 10),
          "noise: measured, and the finding only above 10%% (%s)" % n)
    hog = subprocess.Popen([sys.executable, "-c", "import time\nend = time.time() + 6\nwhile time.time() < end: pass"])
    try:
        time.sleep(0.3)
        r = rafale("-c", 4, "-R", 500, "-d", "2s", "--monitor", srv.p.pid, srv.url())
    finally:
        hog.kill()
        hog.wait()
    srv.stop()
    n = r.j.get("noise")
    f = finding(r.j, "noisy_neighbour")
    check(n is not None and n["foreign_cpu_pct"] > 50 / os.cpu_count() and f is not None and f["severity"] == "warning",
          "noise: a process busy on one CPU of %d is seen (%s, %s)" % (os.cpu_count(), n, ids(r.j)))
    # Without a monitor the server's own CPU is in the machine's: not measured.
    srv = Serve()
    r = rafale("-c", 4, "-R", 500, "-d", "1s", srv.url())
    srv.stop()
    check("noise" not in r.j, "noise: not claimed for a local server not watched")


@test
def censored_only_when_older_than_every_answer():
    # 1.5 s answers, a run stopped at 2 s: the 100 requests begun at 1.5 s are 0.5 s old then. Recorded at that
    # age they pulled p50 down to 0.5 s (a bound below every answer); now they stay out, counted in flight.
    srv = Serve()
    r = rafale("-c", 100, "-d", "2s", srv.url("/delay/1500"))
    srv.stop()
    j = r.j
    check(j["summary"]["requests"] == 100 and j["summary"]["in_flight"] == 100, "censoring: 100 answered, 100 waiting")
    check(j["latency"]["censored"] == 0 and j["latency"]["min_us"] >= 1.49e6 and
          j["latency"]["percentiles_us"]["50"] >= 1.49e6, "censoring: no young bound pulls latency down (%s)"
          % {k: j["latency"][k] for k in ("censored", "min_us")})
    # The 100 waiting began as the first answers came (between the fastest and the slowest of them after the
    # start): their age is the run's end less that, 0.5 s on a quiet machine, less when the answers came late.
    el, lo, hi = j["summary"]["elapsed_s"], j["latency"]["min_us"] / 1e6, j["latency"]["max_us"] / 1e6
    check(el - hi - 0.05 <= j["summary"]["in_flight_oldest_s"] <= el - lo + 0.01 and accounted(j),
          "censoring: their age still said (%s, elapsed %s, answers %s-%s s)" % (j["summary"]["in_flight_oldest_s"],
                                                                                el, lo, hi))


@test
def censored_uncorrected_never_below_an_answer():
    """Rate mode past the server's capacity (2 connections of 20 ms answers at 1000 req/s): the schedule's lag
    grows 18 ms per answer, so a request in flight at the stop is older since its due time than every answer
    (censored into the corrected histogram) but was sent under 20 ms before: at that age the uncorrected histogram
    showed a time no answer took (min 4.04 ms against /delay/5, its fastest answer 5.04 ms). Each histogram now
    takes a waiting request only past its own slowest answer. Three runs, each leaving 2 requests in flight: the
    connections send in step, a pair every 20 ms, and a pair in flight is censored when the stop comes more than
    3 ms into its 20 (older than the pair answered just before). A quiet machine keeps that phase: 700 ms, a whole
    number of pairs, stopped at 0-2 ms into one in all three runs once. So the runs stop 5, 10 and 15 ms into a
    pair, less the same per-pair overhead: at most one falls in the 3 ms that are not censored."""
    srv = Serve()
    runs = [rafale("-R", 1000, "-c", 2, "-t", 1, "-d", "%dms" % d, srv.url("/delay/20")).j for d in (705, 710, 715)]
    srv.stop()
    for j in runs:
        unc, cor = j["latency_uncorrected"], j["latency"]
        check(j["summary"]["requests"] > 0 and accounted(j), "uncorrected: answered, accounted (%s)" % j["summary"])
        check(unc["min_us"] >= 20000 and unc["min_us"] >= j["ttfb"]["min_us"] and cor["min_us"] >= 20000,
              "uncorrected: no figure below the fastest answer (min %s us, ttfb min %s us, corrected min %s us, "
              "censored %s)" % (unc["min_us"], j["ttfb"]["min_us"], cor["min_us"], cor["censored"]))
    check(any(j["latency"]["censored"] > 0 for j in runs),
          "uncorrected: requests in flight were censored into the corrected histogram (%s)"
          % [j["latency"]["censored"] for j in runs])
