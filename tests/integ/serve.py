"""Integration tests: rafale serve itself, over raw sockets."""
from common import *  # noqa: F401,F403 (the runner sets RAFALE first)


@test
def serve_pipelining_and_protocol():
    srv = Serve()
    out = raw(srv.addr, b"GET / HTTP/1.1\r\nHost: x\r\n\r\nGET /json HTTP/1.1\r\nHost: x\r\n\r\n"
                        b"GET /delay/30 HTTP/1.1\r\nHost: x\r\n\r\nGET /status/201 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    check(out.count(b"HTTP/1.1 ") == 4, "serve: four pipelined responses")
    check(out.index(b"delayed 30 ms") < out.index(b"201 Created"), "serve: responses stay in order after a delay")
    out = raw(srv.addr, b"GET / HTTP/1.0\r\n\r\n")
    check(out.startswith(b"HTTP/1.1 200 OK") and b"Connection: close" in out and out.endswith(b"Hello, world\n"),
          "serve: HTTP/1.0 closes")
    out = raw(srv.addr, b"NONSENSE\r\n\r\n")
    check(out.startswith(b"HTTP/1.1 400"), "serve: 400 on garbage")
    out = raw(srv.addr, b"HEAD /bytes/100 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    check(b"Content-Length: 100" in out and out.endswith(b"\r\n\r\n"), "serve: HEAD has no body")
    out = raw(srv.addr, b"GET /redirect?to=http://a.example/x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    check(out.startswith(b"HTTP/1.1 302") and b"Location: http://a.example/x\r\n" in out, "serve: redirect ?to=")
    out = raw(srv.addr, b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nabcdeGET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    check(out.count(b"HTTP/1.1 ") == 2 and b"404 Not Found" in out, "serve: request body skipped, next parsed")
    srv.stop()


@test
def serve_refuses_smuggling_shapes():
    srv = Serve()
    H = b"Host: x\r\n"
    cases = [
        (b"POST / HTTP/1.1\r\n" + H + b"Content-Length: 5\r\nContent-Length: 6\r\n\r\nabcdef", b"400",
         "two different Content-Length values"),
        (b"POST / HTTP/1.1\r\n" + H + b"Content-Length : 34\r\n\r\n" + b"x" * 34, b"400", "space before the colon"),
        (b"POST / HTTP/1.1\r\n" + H + b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", b"400",
         "Content-Length with Transfer-Encoding"),
        (b"POST / HTTP/1.1\r\n" + H + b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n", b"501", "chunked request body"),
        (b"GET / HTTP/1.1\r\n" + H + b"X-A: 1\r\n folded\r\n\r\n", b"400", "obsolete line folding"),
        (b"GET / HTTP/1.1\r\n" + H + b"Content-Length: 5, 5\r\n\r\nabcde", b"400", "a Content-Length list"),
        (b"GET / HTTP/1.1\r\n" + H + b"Content-Length: -1\r\n\r\n", b"400", "a negative Content-Length"),
        (b"GET / HTTP/1.1\r\n\r\n", b"400", "no Host"),
        (b"GET / HTTP/1.1\r\n" + H + H + b"\r\n", b"400", "two Host headers"),
        (b"GET / HTTP/1.1\r\n" + H + b"X-Big: " + b"a" * 20000 + b"\r\n\r\n", b"431", "a head over 16 KiB"),
        (b"GET / HTTP/1.1\r\n" + H + b"".join(b"X-%d: 1\r\n" % i for i in range(120)) + b"\r\n", b"431",
         "too many header fields"),
        (b"GET / HTTP/2.0\r\n" + H + b"\r\n", b"505", "HTTP/2.0 in an HTTP/1 request line"),
        (b"POST / HTTP/1.1\r\n" + H + b"Content-Length: 1048577\r\n\r\n", b"413", "a body over the 1 MiB limit"),
    ]
    for data, code, what in cases:
        out, closed = exchange(srv.addr, data)
        check(out.startswith(b"HTTP/1.1 " + code) and out.count(b"HTTP/1.1 ") == 1 and closed,
              "serve: %s -> %s and close (%r)" % (what, code.decode(), out[:80]))
    # The limit itself is accepted, answered, and the connection kept.
    body = b"b" * (1 << 20)
    out, closed = exchange(srv.addr, b"POST /json HTTP/1.1\r\n" + H + b"Content-Length: %d\r\n\r\n" % len(body) + body +
                           b"GET /status/201 HTTP/1.1\r\n" + H + b"Connection: close\r\n\r\n")
    check(out.startswith(b"HTTP/1.1 200") and b"201 Created" in out, "serve: a body of exactly 1 MiB is accepted")
    # RFC 9112 §3.2.2: the absolute form is accepted and routed on its path.
    out, _ = exchange(srv.addr, b"GET http://example.test:80/json?x=1 HTTP/1.1\r\n" + H + b"Connection: close\r\n\r\n")
    check(out.startswith(b"HTTP/1.1 200") and b'"message"' in out, "serve: absolute-form target (%r)" % out[:60])
    out, _ = exchange(srv.addr, b"GET http://example.test HTTP/1.1\r\n" + H + b"Connection: close\r\n\r\n")
    check(out.startswith(b"HTTP/1.1 200") and out.endswith(b"Hello, world\n"), "serve: absolute form, no path: /")
    conns, reqs = srv.stop()
    check(reqs == 4, "serve: refused requests are not counted as served (%s)" % reqs)


@test
def serve_answers_garbage_at_once_and_times_out():
    srv = Serve("--header-timeout", "1s", "--idle-timeout", "1s")
    t0 = time.monotonic()
    for data, what in ((b"GET / HTTP/1.1\nHost: x\n\n", "bare LF line ends"),
                       (b"GET /\r\n", "an HTTP/0.9 request"),
                       (b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", "a TLS ClientHello on the plain port")):
        out, closed = exchange(srv.addr, data)
        check(out.startswith(b"HTTP/1.1 400") and closed, "serve: %s -> 400 and close (%r)" % (what, out[:60]))
    check(time.monotonic() - t0 < 3, "serve: garbage is refused on its first bytes, not after a timeout")
    # Slowloris: a byte a while, never a whole head: 408 and close after the header timeout.
    host, port = srv.addr.rsplit(":", 1)
    slow = socket.create_connection((host, int(port)), timeout=10)
    slow.sendall(b"GET / HTTP/1.1\r\n")
    silent = socket.create_connection((host, int(port)), timeout=10)
    idle = socket.create_connection((host, int(port)), timeout=10)
    idle.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    first = idle.recv(65536)
    got, t0 = b"", time.monotonic()
    try:
        for i in range(40):
            slow.sendall(b"X")
            time.sleep(0.1)
    except OSError:
        pass
    slow.settimeout(5)
    try:
        while True:
            d = slow.recv(65536)
            if not d:
                break
            got += d
    except OSError:
        pass
    check(got.startswith(b"HTTP/1.1 408") and time.monotonic() - t0 < 8,
          "serve: a slowloris head gets 408 and a close (%r)" % got[:60])
    for sock, what in ((silent, "a silent connection"), (idle, "an idle keep-alive connection")):
        sock.settimeout(8)
        try:
            rest = sock.recv(65536)
        except OSError:
            rest = None
        check(rest == b"", "serve: %s is closed after its timeout (%r)" % (what, rest))
        sock.close()
    slow.close()
    check(first.startswith(b"HTTP/1.1 200"), "serve: the idle connection had been served")
    # And the server still serves.
    out, _ = exchange(srv.addr, b"GET /json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    check(out.startswith(b"HTTP/1.1 200"), "serve: still serving after all that")
    srv.stop()


@test
def serve_backpressure_not_buffering():
    srv = Serve()
    host, port = srv.addr.rsplit(":", 1)
    base = rss_of(srv.p.pid)
    # 246 bytes that ask for 6 x 64 MiB, from a client that never reads.
    greedy = socket.create_connection((host, int(port)), timeout=10)
    greedy.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    greedy.sendall(b"GET /bytes/67108864 HTTP/1.1\r\nHost: x\r\n\r\n" * 6)
    peak = 0
    for _ in range(20):
        time.sleep(0.05)
        peak = max(peak, rss_of(srv.p.pid))
    # Others on the same thread are served meanwhile.
    out, _ = exchange(srv.addr, b"GET /json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    check(out.startswith(b"HTTP/1.1 200"), "serve: other clients are served while one does not read")
    greedy.close()
    time.sleep(0.3)
    after = rss_of(srv.p.pid)
    check(peak - base < 16 << 20, "serve: a client that does not read costs little memory (%d MiB more)" %
          ((peak - base) >> 20))
    check(after - base < 16 << 20, "serve: and it is given back (%d MiB more)" % ((after - base) >> 20))
    # The generated bodies are exactly what was asked, inline and streamed, plain and chunked.
    for path, n in (("/bytes/1000", 1000), ("/bytes/300000", 300000), ("/chunked/300000", 300000)):
        r = rafale("-n", 20, "-c", 2, srv.url(path))
        check(r.j["summary"]["requests"] == 20 and err_total(r.j) == 0, "serve: %s, 20 complete" % path)
    out, _ = exchange(srv.addr, b"GET /bytes/200000 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    body = out.split(b"\r\n\r\n", 1)[1]
    pattern = b"abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ\n"
    check(len(body) == 200000 and body == (pattern * (200000 // len(pattern) + 1))[:200000],
          "serve: a streamed body has the bytes of an inline one")
    srv.stop()


@test
def serve_files_random():
    d = os.path.join(TMP, "files")
    os.makedirs(d, exist_ok=True)
    for name, data in (("a.html", b"<p>a</p>"), ("b.json", b"{}"), ("c.bin", b"\x00" * 1000)):
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)
    srv = Serve("--files", d)
    r = rafale("-n", 300, "-c", 3, srv.url("/random"))
    srv.stop()
    check(r.j["summary"]["requests"] == 300 and r.j["status"] == {"200": 300}, "serve --files /random")
    p = subprocess.run([RAFALE, "serve", "--listen", "127.0.0.1:0", "--files", "/nonexistent"],
                       capture_output=True, text=True, timeout=10)
    check(p.returncode == 1 and "cannot open --files" in p.stderr, "serve: bad --files directory")


@test
def serve_pipelined_generated_bodies():
    # A generated body (/bytes, /chunked) that went out whole in one write left the requests pipelined behind it
    # unanswered: no new read came to announce them.
    srv = Serve()
    for path in ("/bytes/100", "/chunked/3000", "/bytes/200000"):
        s = socket.create_connection(("127.0.0.1", srv.port), timeout=5)
        s.sendall(("GET %s HTTP/1.1\r\nHost: x\r\n\r\n" % path).encode() * 4)
        data, deadline = b"", time.monotonic() + 10
        while data.count(b"HTTP/1.1 200") < 4 and time.monotonic() < deadline:
            try:
                d = s.recv(1 << 20)
            except socket.timeout:
                break
            if not d:
                break
            data += d
        s.close()
        check(data.count(b"HTTP/1.1 200") == 4, "serve: 4 pipelined %s answered (%d)" % (path, data.count(b"HTTP/1.1 200")))
    r = rafale("-n", 40, "-c", 1, "--pipeline", 4, "--timeout", "5s", srv.url("/bytes/100000"))
    srv.stop()
    check(r.j["summary"]["requests"] == 40 and r.j["summary"]["errors"] == 0,
          "serve: rafale --pipeline 4 on /bytes/100000, every answer (%s)" % r.j["errors"])
