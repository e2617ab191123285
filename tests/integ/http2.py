"""Integration tests: HTTP/2: counts, modes, misbehaving servers, outputs, serve's HTTP/2 side under attack."""
from common import *  # noqa: F401,F403 (the runner sets RAFALE first)


@test
def http2_exact_counts_and_multiplexing():
    srv = Serve()
    r = rafale("--http2", "-n", 1000, "-c", 4, "--streams", 5, "-t", 2, srv.url("/json"))
    conns, reqs = srv.stop()
    j = r.j
    check(j["summary"]["protocol"] == "h2" and j["config"]["http2"] is True and j["config"]["streams"] == 5,
          "h2: protocol and settings in the JSON")
    check(j["summary"]["requests"] == 1000 and err_total(j) == 0 and reqs == 1000,
          "h2: -n 1000 completed and serve counted exactly 1000 (%s)" % reqs)
    check(j["summary"]["connections_opened"] == 4 and conns == 4, "h2: -c 4 is four connections (%s)" % conns)
    check(accounted(j), "h2: started = completed + errors + in flight")
    h = j["http2"]
    check(h["header_bytes_wire"] > 0 and h["header_bytes_decoded"] > h["header_bytes_wire"] and
          0 < h["header_space_savings"] < 1, "h2: HPACK figures (%s)" % h)
    check("HTTP/2 (5 streams per connection)" in r.out and "HPACK saved" in r.out, "h2: said in the text report")
    # Streams really run at once: 10 requests of 50 ms on one connection take about 50 ms, not 500.
    srv = Serve()
    r = rafale("--http2", "-n", 10, "-c", 1, "--streams", 10, "-t", 1, srv.url("/delay/50"))
    srv.stop()
    j = r.j
    check(j["summary"]["requests"] == 10 and j["summary"]["connections_opened"] == 1, "h2: 10 streams, one connection")
    check(j["summary"]["elapsed_s"] < 0.4 and j["latency"]["percentiles_us"]["99"] < 400000,
          "h2: 10 x /delay/50 on one connection multiplexed (%.3f s)" % j["summary"]["elapsed_s"])


@test
def http2_modes():
    srv = Serve()
    r = rafale("--http2", "-n", 200, "-c", 2, "--close", "-t", 1, srv.url())
    check(r.j["summary"]["requests"] == 200 and r.j["summary"]["connections_opened"] == 200,
          "h2 --close: one request per connection")
    r = rafale("--http2", "-n", 300, "-c", 3, "--requests-per-connection", 10, "-t", 1, srv.url())
    # At most 10 requests a connection: 30, and up to one more per connection when the last ones share the end.
    check(r.j["summary"]["requests"] == 300 and 30 <= r.j["summary"]["connections_opened"] <= 33,
          "h2 --requests-per-connection 10: 30 to 33 connections (%d)" % r.j["summary"]["connections_opened"])
    r = rafale("--http2", "-R", 400, "-d", "1s", "-c", 4, "--streams", 4, "-t", 1, srv.url("/delay/20"))
    j = r.j
    # Sent when due while a stream is free; a server that falls behind (a loaded machine: 346 sent) holds them all,
    # and the rest wait, counted as queued: the schedule's 400 either way.
    check(abs(j["summary"]["started"] + j["rate"]["queued"] - 400) <= 4 and
          (j["rate"]["queued"] > 0 or abs(j["summary"]["started"] - 400) <= 4) and err_total(j) == 0,
          "h2 -R 400 for 1 s: 400 requests sent or queued (%d, %s)" % (j["summary"]["started"], j["rate"]))
    # Each stream's own 20 ms: never under it, and from the send under two of them (streams answered in turn on a
    # connection would take 40 ms, 60 ms... and the schedule, needing 8 at once of 16, would queue). A busy
    # machine adds its delays to both sides' wake-ups: 5 ms over was too little to allow them.
    check(20000 <= j["latency"]["percentiles_us"]["50"] and j["latency_uncorrected"]["percentiles_us"]["50"] < 40000,
          "h2 -R: latency of /delay/20 measured per stream (p50 %s us, %s from the send)"
          % (j["latency"]["percentiles_us"]["50"], j["latency_uncorrected"]["percentiles_us"]["50"]))
    # A due request takes any free stream: 500 req/s of /delay/10 need 5 streams of one connection at once. (At
    # 1000 req/s of /delay/5, ASan's rafale beside a CPU-bound process sent 951 of 1000.) Were they held to 4
    # streams or fewer (400 answers a second), 100 more would wait each second: p99 near 250 ms by the end, and
    # seconds on one. Under 200 ms leaves a sanitized serve on a slow machine its delays (p99 52 ms once, where
    # 50 ms was asked).
    r = rafale("--http2", "-R", 500, "-d", "1s", "-c", 1, "--streams", 10, "-t", 1, srv.url("/delay/10"))
    j = r.j
    check(abs(j["summary"]["started"] - 500) <= 5 and j["rate"]["queued"] == 0 and
          j["summary"]["connections_opened"] == 1 and j["latency"]["percentiles_us"]["99"] < 200000,
          "h2 -R 500 on one connection of 10 streams: every request sent when due (%d started, %d queued, p99 %.0f us)"
          % (j["summary"]["started"], j["rate"]["queued"], j["latency"]["percentiles_us"]["99"]))
    body = os.path.join(TMP, "h2body")
    with open(body, "wb") as f:
        f.write(b"x" * 200000)
    r = rafale("--http2", "-n", 100, "-c", 2, "--streams", 3, "--body-file", body, "-t", 1, srv.url("/status/201"))
    check(r.j["summary"]["requests"] == 100 and r.j["status"] == {"201": 100} and
          r.j["summary"]["bytes_sent"] > 100 * 200000, "h2: a 200 kB body on every stream (flow control)")
    r = rafale("--http2", "-n", 6, "-c", 2, "--streams", 3, "-t", 1, srv.url("/bytes/5000000"))
    check(r.j["summary"]["requests"] == 6 and r.j["summary"]["bytes_received"] > 6 * 5000000,
          "h2: 5 MB responses through the windows")
    r = rafale("--http2", "-n", 60, "-c", 2, "--streams", 3, "-t", 1, srv.url("/"), srv.url("/json"), srv.url("/status/404"))
    check([u["summary"]["requests"] for u in r.j["per_url"]] == [20, 20, 20] and
          r.j["per_url"][2]["status"] == {"404": 20}, "h2: several URLs round-robin")
    r = rafale("--http2", "-n", 8, "-c", 2, "--streams", 4, "--timeout", "100ms", "-t", 1, srv.url("/delay/1000"))
    check(r.j["errors"]["timeout_answer"] == 8 and r.j["summary"]["requests"] == 0, "h2: --timeout per stream")
    conns, reqs = srv.stop()
    # /close over HTTP/2: a GOAWAY after each answer; the other streams are refused unprocessed and sent again.
    srv = Serve()
    r = rafale("--http2", "-n", 100, "-c", 2, "--streams", 4, "-t", 1, srv.url("/close"))
    conns, reqs = srv.stop()
    j = r.j
    check(j["summary"]["requests"] == 100 and err_total(j) == 0 and reqs == 100,
          "h2 GOAWAY after every answer: 100 completed, serve answered exactly 100 (%s)" % reqs)
    check(j["http2"]["retried"] > 0 and "refused unprocessed" in r.out, "h2: the requests sent again are counted")


@test
def http2_misbehaving_servers():
    bad = H2BadServer("goaway", per_conn=7)
    r = rafale("--http2", "-n", 200, "-c", 2, "--streams", 4, "-t", 1, bad.url())
    bad.stop()
    j = r.j
    check(j["summary"]["requests"] == 200 and err_total(j) == 0 and bad.requests == 200,
          "h2 GOAWAY every 7 requests: 200 completed, the server answered exactly 200 (%d)" % bad.requests)
    check(accounted(j), "h2 GOAWAY: accounting holds")
    bad = H2BadServer("rst")
    r = rafale("--http2", "-n", 100, "-c", 1, "--streams", 2, "-t", 1, bad.url())
    bad.stop()
    j = r.j
    check(j["errors"]["h2_rst_stream"] == 50 and j["summary"]["requests"] == 50,
          "h2: every other stream reset (%s)" % j["errors"])
    check("INTERNAL_ERROR" in r.out, "h2: the reset's code is shown")
    bad = H2BadServer("nosettings")
    r = rafale("--http2", "-n", 4, "-c", 2, "--timeout", "300ms", "-t", 1, bad.url())
    bad.stop()
    check(r.j["errors"]["h2_protocol"] == 4 and "no SETTINGS" in r.out, "h2: a server that never sends SETTINGS")
    # Garbage instead of frames from a server that spoke HTTP/2 first (its first connection): the server's error
    # mid-run, counted (http2_not_spoken has the same garbage from the start: the run stops).
    bad = H2BadServer("garbage", healthy_first=1)
    r = rafale("--http2", "-n", 4, "-c", 1, "--close", "-t", 1, bad.url())
    bad.stop()
    check(r.j["errors"]["h2_protocol"] == 3 and r.j["summary"]["requests"] == 1 and bad.requests == 1,
          "h2: garbage instead of frames after an HTTP/2 answer: counted (%s)" % r.j["errors"])
    bad = H2BadServer("flood")
    r = rafale("--http2", "-n", 3, "-c", 1, "--h2-window", 14, "-t", 1, bad.url())
    bad.stop()
    check(r.j["errors"]["h2_protocol"] >= 1 and accounted(r.j), "h2: flow control violated (%s)" % r.j["errors"])
    # A SETTINGS value out of range: nghttp2 sends GOAWAY(PROTOCOL_ERROR) at once, and the run ends then,
    # not at --timeout with "no SETTINGS".
    for mode in ("framesize100", "framesize2^24"):
        bad = H2BadServer(mode)
        r = rafale("--http2", "-n", 2, "-c", 1, "--timeout", "20s", "-t", 1, bad.url())
        bad.stop()
        check(r.j["errors"].get("h2_protocol") == 2 and "sent no SETTINGS" not in r.out and "Protocol error" in r.out and
              r.wall < 10,
              "h2 %s: ended at once as h2_protocol (%.1fs, %s)" % (mode, r.wall, r.j["errors"]))


@test
def http2_not_spoken():
    """--http2 against servers that do not speak it (issue 39): whatever they answer first, the run stops at once
    with one line that names the address and what came back, and exits 1, not a report of h2_protocol errors
    (Python's http.server answered the preface with an HTML page and rafale reported 20 errors, exit 0)."""
    h2c = "does not speak HTTP/2 without TLS (h2c): "
    h2c_hint = "; drop --http2, or use https:// for HTTP/2 over TLS"

    def stops(url, line, what, *extra):
        rc, out, err = run_raw(["--http2", "-n", 20, "-c", 2] + list(extra) + [url])
        check(rc == 1 and out == "" and one_line(err, line), "h2 against %s: one line, exit 1 (%d %r)" % (what, rc, err))

    py = PyHttpServer()
    check(py.ok, "python3 -m http.server listens")
    stops(py.url(), 'rafale: 127.0.0.1:%d %sits answer is not HTTP/2 ("<!DOCTYPE HTML>")%s' % (py.port, h2c, h2c_hint),
          "python's http.server")
    py.stop()
    bad = BadServer("h1only")
    stops(bad.url(), 'rafale: 127.0.0.1:%d %sit answered in HTTP/1.1 ("HTTP/1.1 400 Bad Request")%s'
          % (bad.port, h2c, h2c_hint), "an HTTP/1.1 server")
    bad.stop()
    bad = H2BadServer("garbage")
    stops(bad.url(), 'rafale: 127.0.0.1:%d %sits answer is not HTTP/2 ("garbage, not frames at all")' % (bad.port, h2c),
          "garbage from the start")
    bad.stop()
    bad = BadServer("tlsalert")
    stops(bad.url(), "rafale: 127.0.0.1:%d %sit speaks TLS: use https:// for HTTP/2 over TLS" % (bad.port, h2c),
          "a TLS port")
    bad.stop()
    # Over TLS: a handshake that chose no protocol (ALPN) ends the same way.
    bad = BadServer("tls_h1")
    stops(bad.url().replace("http:", "https:"), "rafale: 127.0.0.1:%d does not speak HTTP/2 over TLS: its TLS handshake "
          "chose no protocol (ALPN), not h2; drop --http2" % bad.port, "TLS without ALPN", "--insecure")
    bad.stop()
    for tls in (False, True):
        ng = Nginx(tls=tls)
        check(ng.ok, "nginx is installed and listens (make deps installs it)")
        if ng.ok and not tls:
            stops(ng.url(), 'rafale: 127.0.0.1:%d %sit answered in HTTP/1.1 ("HTTP/1.1 400 Bad Request")%s'
                  % (ng.port, h2c, h2c_hint), "nginx")
        elif ng.ok:
            # nginx without http2 refuses ALPN h2 with an alert: the handshake fails, and it was 20 tls errors.
            stops(ng.url(), "rafale: 127.0.0.1:%d does not speak HTTP/2 over TLS: it refused h2 in the TLS handshake "
                  "(ALPN: no_application_protocol); drop --http2" % ng.port, "nginx over TLS", "--insecure")
        ng.stop()


@test
def http2_outputs():
    srv = Serve()
    html, csvp, hdr = (os.path.join(TMP, n) for n in ("h2.html", "h2.csv", "h2.hdr"))
    r = rafale("--http2", "--streams", 4, "-c", 2, "-t", 1, "-d", "1s", "--warmup", "300ms", "--html", html, "--csv", csvp,
               "--hdr", hdr, "--slo", "p99<1s,errors<1%", srv.url())
    conns, reqs = srv.stop()
    j = r.j
    check(r.rc == 0 and j["summary"]["requests"] > 0 and reqs >= j["summary"]["requests"],
          "h2 -d with warm-up: the server saw the warm-up too (%s >= %d)" % (reqs, j["summary"]["requests"]))
    check(open(html).read().count("<svg") == 4 + ("intervals" in j) and len(open(csvp).read().splitlines()) == 102 and
          "Value" in open(hdr).read(), "h2: --html, --csv and --hdr written")
    check(r.out.count(" pass ") == 2, "h2: --slo checked")


@test
def serve_http2_timeouts():
    """serve's HTTP/2 side has the timeouts of its HTTP/1.1 side: a stream opened and never finished (the
    slowloris of HTTP/2) and an idle connection both get a GOAWAY and a close."""
    srv = Serve("--header-timeout", "300ms", "--idle-timeout", "500ms")
    f = H2BadServer.frame
    preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + f(4, 0, 0)
    get = b"\x82\x86\x84\x41\x01x"  # HPACK: GET, http, /, :authority x

    def until_closed(data):
        host, port = srv.addr.rsplit(":", 1)
        c = socket.create_connection((host, int(port)), timeout=10)
        c.sendall(data)
        t0, got = time.monotonic(), b""
        try:
            while True:
                d = c.recv(65536)
                if not d:
                    break
                got += d
        except OSError:
            pass
        c.close()
        return got, time.monotonic() - t0

    def frame_types(got):
        types, i = [], 0
        while i + 9 <= len(got):
            n = int.from_bytes(got[i:i + 3], "big")
            types.append(got[i + 3])
            i += 9 + n
        return types

    got, took = until_closed(preface + f(1, 4, 1, get))  # HEADERS without END_STREAM: a body that never comes
    check(7 in frame_types(got) and took < 5, "serve h2: a stream never finished, GOAWAY and close (%.1f s)" % took)
    got, took = until_closed(preface)
    check(7 in frame_types(got) and 0.4 < took < 5, "serve h2: an idle connection, GOAWAY and close (%.1f s)" % took)
    got, took = until_closed(preface + f(1, 5, 1, get))  # a whole GET: answered, then idle
    check(1 in frame_types(got) and 0 in frame_types(got) and 7 in frame_types(got),
          "serve h2: a whole request is answered (HEADERS, DATA), then the idle close")
    srv.stop()


@test
def serve_http2_hostile_clients():
    """What serve came through when attacked (rapid reset, CONTINUATION flood, SETTINGS and unread PING floods, an
    HPACK table-size bomb, a WINDOW_UPDATE overflow), kept so: its memory stays small and other clients are
    answered. A header list past the SETTINGS_MAX_HEADER_LIST_SIZE it advertises is answered 431, as over HTTP/1.1."""
    srv = Serve()
    f = H2BadServer.frame
    host, port = srv.addr.rsplit(":", 1)
    preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + f(4, 0, 0)
    get = b"\x82\x86\x84\x41\x01x"  # HPACK: GET, http, /, :authority x

    def lit(name, value):  # HPACK literal without indexing, new name (RFC 7541 section 6.2.2)
        return b"\x00" + bytes([len(name)]) + name + bytes([len(value)]) + value

    def attack(data, seconds=1.0):
        """Sends data (bytes, or a function given the socket), reads what comes back for a while; (bytes, closed)."""
        c = socket.create_connection((host, int(port)), timeout=10)
        got, closed = b"", False
        try:
            if callable(data):
                data(c)
            else:
                c.sendall(data)
            c.settimeout(seconds)
            t_end = time.monotonic() + seconds
            while time.monotonic() < t_end:
                d = c.recv(65536)
                if not d:
                    closed = True
                    break
                got += d
        except OSError:
            closed = True
        c.close()
        return got, closed

    def frames_of(got):
        out, i = [], 0
        while i + 9 <= len(got):
            n = int.from_bytes(got[i:i + 3], "big")
            out.append((got[i + 3], int.from_bytes(got[i + 5:i + 9], "big") & 0x7fffffff, got[i + 9:i + 9 + n]))
            i += 9 + n
        return out

    base = rss_of(srv.p.pid)
    # 1 000 fields, ~100 KB: over the 16 384 advertised, so 431 (HEADERS, then CONTINUATION frames).
    block = get + b"".join(lit(b"x-f%04d" % i, b"v" * 90) for i in range(1000))
    chunks = [block[i:i + 16000] for i in range(0, len(block), 16000)]
    data = preface + f(1, 1, 1, chunks[0]) + b"".join(f(9, 4 if k == len(chunks) - 1 else 0, 1, ch)
                                                       for k, ch in enumerate(chunks[1:], 1))
    got, _ = attack(data)
    body = b"".join(p for t, sid, p in frames_of(got) if t == 0 and sid == 1)
    check(body == b"request header fields too large\n", "serve h2: a 100 KB header list is answered 431 (%r)" % body[:60])
    out, _ = exchange(srv.addr, b"GET / HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-F%04d: %s\r\n" % (i, b"v" * 90)
                                                                           for i in range(1000)) + b"\r\n")
    check(out.startswith(b"HTTP/1.1 431"), "serve h1: the same header list is 431 too")
    # Rapid reset (CVE-2023-44487): HEADERS then RST_STREAM, over and over.
    rr = preface + b"".join(f(1, 5, 2 * i + 1, get) + f(3, 0, 2 * i + 1, (8).to_bytes(4, "big")) for i in range(5000))
    got, closed = attack(rr, 2.0)
    check(closed or 7 in [t for t, _, _ in frames_of(got)], "serve h2: rapid reset ends the connection")
    # CONTINUATION flood (CVE-2024-27316): a header block that never ends.
    def cont_flood(c):
        c.sendall(preface + f(1, 1, 1, get))
        try:
            for _ in range(4000):
                c.sendall(f(9, 0, 1, lit(b"x-a", b"b" * 100) * 100))
        except OSError:
            pass
    got, closed = attack(cont_flood, 2.0)
    check(closed, "serve h2: a CONTINUATION flood is cut off")
    # SETTINGS and PING floods whose answers are never read, a table-size bomb, a window past 2^31-1.
    def unread_flood(c):
        c.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        c.sendall(preface)
        try:
            for _ in range(2000):
                c.sendall(f(4, 0, 0, (1).to_bytes(2, "big") + (4096).to_bytes(4, "big")) * 10 +
                          f(6, 0, 0, b"12345678") * 10)
        except OSError:
            pass
    attack(unread_flood, 1.0)
    bomb = preface + f(4, 0, 0, (1).to_bytes(2, "big") + (0xffffffff).to_bytes(4, "big")) + \
        f(1, 5, 1, b"\x3f\xe1\xff\xff\xff\x0f" + get)  # a dynamic table size update of ~2^32
    got, _ = attack(bomb)
    check(srv.p.poll() is None, "serve h2: an HPACK table-size bomb does not crash it")
    wu = preface + f(8, 0, 0, (0x7fffffff).to_bytes(4, "big"))
    got, closed = attack(wu)
    check(7 in [t for t, _, _ in frames_of(got)] and (closed or True),
          "serve h2: a connection window past 2^31-1 is a FLOW_CONTROL_ERROR GOAWAY (RFC 9113 section 6.9.1)")
    grew = rss_of(srv.p.pid) - base
    r = rafale("--http2", "-n", 100, "-c", 2, "-t", 1, srv.url())
    check(r.j["summary"]["requests"] == 100 and err_total(r.j) == 0, "serve h2: others are still answered")
    check(grew < 16 << 20, "serve h2: the attacks cost little memory (%d KiB)" % (grew >> 10))
    srv.stop()


@test
def http2_in_a_compare_plan():
    port = free_port()
    plan = os.path.join(TMP, "h2plan.conf")
    with open(plan, "w") as f:
        f.write("[settings]\nrepeat = 1\nwarmup = 0s\nconnections = 2\nrequests = 300\n"
                "[server serve]\nstart = exec %s serve --listen 127.0.0.1:%d -t 1\nurl = http://127.0.0.1:%d\n"
                "[workload h1]\npath = /json\n[workload h2]\npath = /json\nhttp2 = yes\nstreams = 4\n"
                % (RAFALE, port, port))
    jpath, hpath = os.path.join(TMP, "h2cmp.json"), os.path.join(TMP, "h2cmp.html")
    p = subprocess.run([RAFALE, "compare", "--json", jpath, "--html", hpath, plan], capture_output=True, text=True,
                       timeout=RUN_TIMEOUT)
    check(p.returncode == 0, "compare with an h2 workload runs (%s)" % p.stderr[-300:])
    j = json.load(open(jpath))["compare"]
    runs = {w["name"]: w["servers"][0]["run_results"][0] for w in j["workloads"]}
    check(runs["h1"]["summary"]["protocol"] == "http/1.1" and runs["h2"]["summary"]["protocol"] == "h2" and
          runs["h2"]["config"]["streams"] == 4 and runs["h2"]["summary"]["requests"] == 300,
          "compare: one plan, the same server over HTTP/1.1 and HTTP/2")
    check("HTTP/2 x 4 streams" in p.stdout and "HTTP/2 &#215; 4 streams" in open(hpath).read(),
          "compare: the workload says HTTP/2 in the table and the page")


@test
def http2_over_tls():
    d = make_certs()
    srv = Serve("--tls-cert", os.path.join(d, "srv.pem"), "--tls-key", os.path.join(d, "srv.key"))
    url = "https://localhost:%d/json" % srv.port
    r = rafale("--http2", "-n", 500, "-c", 2, "--streams", 8, "--cacert", os.path.join(d, "ca.pem"), "-t", 1, url)
    r1 = rafale("-n", 50, "-c", 2, "--cacert", os.path.join(d, "ca.pem"), "-t", 1, url)
    conns, reqs = srv.stop()
    check(r.j["summary"]["requests"] == 500 and err_total(r.j) == 0 and r.j["summary"]["protocol"] == "h2",
          "h2 over TLS (ALPN h2)")
    check(r1.j["summary"]["requests"] == 50 and r1.j["summary"]["protocol"] == "http/1.1",
          "the same TLS port still speaks HTTP/1.1 to a client that asks for it")
    check(reqs == 550, "serve counted both (%s)" % reqs)


@test
def http2_templated_fields_name_their_line_and_find_their_files():
    # HTTP/2's own limits on a templated request are found when its fields are built: the error names the line of the
    # header at fault, here a user Host (:authority), not the request line (workloads.py's targets_file_hostile_shapes
    # has the other fields).
    big = ("big.csv", b"v\n" + b"x" * 9000 + b"\n")
    path = targets_file("h2host.targets", "GET http://127.0.0.1:1/\nX-A: 1\nHost: {{csv big.csv v}}\n", files=[big])
    p = run_raw(["-q", "--http2", "-n", 1, "--targets", path])
    check(p[0] == 2 and one_line(p[2], "h2host.targets:3: a templated header value may reach 9000 bytes (8192 at most)"),
          "h2 limits: a templated Host named at its line (%d %r)" % (p[0], p[2]))
    # A {{csv}} in a header value is read beside the targets file, as over HTTP/1.1 (it was looked for in the
    # current folder).
    srv = Serve()
    path = targets_file("h2csv.targets", "GET %s\nX-User: {{csv h2users.csv name}}\n" % srv.url("/"),
                        files=[("h2users.csv", b"name\nada\ngrace\n")])
    r = rafale("--http2", "-n", 10, "-c", 1, "-t", 1, "--targets", path)
    srv.stop()
    check(r.rc == 0 and r.j["summary"]["requests"] == 10 and err_total(r.j) == 0,
          "h2: a header's {{csv}} file is found beside the targets file (%s %s)" % (r.rc, r.err[-200:]))
