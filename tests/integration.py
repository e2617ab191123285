#!/usr/bin/env python3
"""Integration tests: the real rafale binary against `rafale serve` and
against small misbehaving servers, checking rafale's JSON against what the
servers themselves counted. Only 127.0.0.1 / ::1 are ever contacted, and
every load run is bounded by -n or -d and by a subprocess timeout.

usage: integration.py [--sanitized] PATH/TO/rafale
"""
import json
import math
import os
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

RAFALE = None
SANITIZED = False
PASSED = 0
FAILED = 0
TMP = tempfile.mkdtemp(prefix="rafale-it-")
RUN_TIMEOUT = 120  # seconds: a run that takes longer is a hang


def check(cond, what):
    global PASSED, FAILED
    if cond:
        PASSED += 1
    else:
        FAILED += 1
        print("  FAIL: " + what, flush=True)
    return cond


# --- servers -------------------------------------------------------------

class Serve:
    """A `rafale serve` instance on a free port; stop() returns its counts."""

    def __init__(self, *args, listen="127.0.0.1:0", threads=1):
        self.out = open(os.path.join(TMP, "serve.out"), "w+")
        self.err = open(os.path.join(TMP, "serve.err"), "w+")
        self.p = subprocess.Popen([RAFALE, "serve", "--listen", listen, "-t", str(threads)] + list(args),
                                  stdout=self.out, stderr=self.err)
        self.addr = None
        for _ in range(200):
            self.out.seek(0)
            line = self.out.readline()
            if line.startswith("listening on "):
                self.addr = line.split()[2]
                break
            if self.p.poll() is not None:
                break
            time.sleep(0.02)
        if self.addr is None:
            raise RuntimeError("rafale serve did not start")

    def url(self, path="/"):
        return "http://%s%s" % (self.addr, path)

    @property
    def port(self):
        return int(self.addr.rsplit(":", 1)[1])

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        self.p.wait(timeout=20)
        self.err.seek(0)
        text = self.err.read()
        check("Sanitizer" not in text and "runtime error" not in text, "rafale serve ran clean:\n" + text[:3000])
        conns = reqs = None
        for line in text.splitlines():
            if "connections accepted" in line:
                words = line.split()
                conns = int(words[2])
                reqs = int(words[5])
        return conns, reqs


class BadServer:
    """A deliberately broken HTTP server. It counts the connections it
    accepted and the requests it read, the ground truth for the tests."""

    RESPONSE = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"

    def __init__(self, mode, backlog=128):
        self.mode = mode
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(backlog)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self.requests = 0
        self.lock = threading.Lock()
        self.stopping = False
        self.conns = []
        self.freeze_at = None
        if mode != "noaccept":
            threading.Thread(target=self.accept_loop, daemon=True).start()

    def url(self, path="/"):
        return "http://127.0.0.1:%d%s" % (self.port, path)

    def accept_loop(self):
        while not self.stopping:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            with self.lock:
                self.accepted += 1
                self.conns.append(c)
            threading.Thread(target=self.handle, args=(c,), daemon=True).start()

    def read_request(self, c, buf):
        if self.mode == "tlsdrop":
            d = c.recv(65536)
            return d if d else None
        while b"\r\n\r\n" not in buf:
            d = c.recv(65536)
            if not d:
                return None
            buf += d
        with self.lock:
            self.requests += 1
        return buf[buf.index(b"\r\n\r\n") + 4:]

    def handle(self, c):
        m = self.mode
        buf = b""
        try:
            if m == "closenow":
                c.close()
                return
            while True:
                buf = self.read_request(c, buf)
                if buf is None:
                    break
                if m == "reset":
                    c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                    break
                if m == "short":
                    c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789")
                    break
                if m == "garbage":
                    c.sendall(b"garbage, not HTTP\r\n\r\n")
                    time.sleep(0.05)
                    break
                if m == "silent":
                    while c.recv(65536):
                        pass
                    break
                if m == "drip":
                    for i in range(len(self.RESPONSE)):
                        c.sendall(self.RESPONSE[i:i + 1])
                        time.sleep(0.002)
                    continue
                if m == "extra":
                    c.sendall(self.RESPONSE + b"JUNK")
                    continue
                if m == "http10":
                    c.sendall(b"HTTP/1.0 200 OK\r\n\r\nbody until close")
                    break
                if m == "http10len":  # as Python's wsgiref: HTTP/1.0, a length, then close
                    c.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\nhello")
                    break
                if m == "eofbody":  # HTTP/1.1 without a length: the body ends with the connection
                    c.sendall(b"HTTP/1.1 200 OK\r\n\r\nbody until close")
                    break
                if m == "idleclose":  # keep-alive in words, then a silent close once idle
                    c.sendall(self.RESPONSE)
                    time.sleep(0.02)
                    break
                if m == "chunked-trailer":
                    c.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                              b"3;x=y\r\nabc\r\n0\r\nX-T: 1\r\n\r\n")
                    continue
                if m == "freeze":
                    # Every answer due inside the frozen second waits until it ends.
                    now = time.monotonic()
                    if self.freeze_at is None:
                        self.freeze_at = now + 1.5
                    if self.freeze_at <= now < self.freeze_at + 1.0:
                        time.sleep(self.freeze_at + 1.0 - now)
                    c.sendall(self.RESPONSE)
                    continue
                if m == "tlsdrop":
                    break  # the ClientHello was read: hang up mid-handshake
                if m == "h1only":  # as nginx without http2 answers the HTTP/2 preface
                    c.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    break
                if m == "continue":
                    c.sendall(b"HTTP/1.1 100 Continue\r\n\r\n" + self.RESPONSE)
                    continue
        except OSError:
            pass
        finally:
            try:
                c.close()
            except OSError:
                pass

    def stop(self):
        self.stopping = True
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


class RecServer(BadServer):
    """An HTTP/1.1 server that records every request it receives: (connection, method, path, headers, body).
    /login sets a cookie (sid=<connection>); /redir/N answers 302 to /redir/N-1 down to /redir/0; /other/PORT
    answers 302 to http://127.0.0.1:PORT/; anything else is 200 'ok'."""

    def __init__(self, unix_path=None):
        self.records = []
        self.times = []  # time.monotonic() of each request's arrival
        if unix_path:
            self.mode = "rec"
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.sock.bind(unix_path)
            self.sock.listen(128)
            self.port = 0
            self.accepted = self.requests = 0
            self.lock = threading.Lock()
            self.stopping = False
            self.conns = []
            threading.Thread(target=self.accept_loop, daemon=True).start()
        else:
            BadServer.__init__(self, "rec")

    def handle(self, c):
        with self.lock:
            conn_id = self.accepted
        buf = b""
        try:
            while True:
                while b"\r\n\r\n" not in buf:
                    d = c.recv(65536)
                    if not d:
                        return
                    buf += d
                head, buf = buf.split(b"\r\n\r\n", 1)
                lines = head.decode("latin-1").split("\r\n")
                method, path, _ = lines[0].split(" ", 2)
                headers = {}
                for l in lines[1:]:
                    k, v = l.split(":", 1)
                    k, v = k.strip().lower(), v.strip()
                    # Two Cookie fields read as one, as RFC 9113 section 8.2.3 joins them.
                    headers[k] = headers[k] + "; " + v if k == "cookie" and k in headers else v
                n = int(headers.get("content-length", "0"))
                while len(buf) < n:
                    d = c.recv(65536)
                    if not d:
                        return
                    buf += d
                body, buf = buf[:n], buf[n:]
                with self.lock:
                    self.requests += 1
                    self.records.append((conn_id, method, path, headers, body))
                    self.times.append(time.monotonic())
                extra, status = b"", b"200 OK"
                if path.startswith("/login"):
                    extra = b"Set-Cookie: sid=c%d; Path=/; Max-Age=3600\r\nSet-Cookie: theme=dark\r\n" % conn_id
                elif path.startswith("/redir/") and path != "/redir/0":
                    status, extra = b"302 Found", b"Location: /redir/%d\r\n" % (int(path[7:]) - 1)
                elif path.startswith("/other/"):
                    status, extra = b"302 Found", b"Location: http://127.0.0.1:%s/\r\n" % path[7:].encode()
                elif path.startswith("/say/"):
                    # /say/STATUS?h=LINE&h=LINE: the header lines given, percent-encoded, sent raw.
                    q = path.split("?", 1)[1] if "?" in path else ""
                    status = path[5:8].encode() + b" Said"
                    extra = b"".join(urllib.parse.unquote_to_bytes(v[2:]) + b"\r\n" for v in q.split("&")
                                     if v.startswith("h="))
                c.sendall(b"HTTP/1.1 " + status + b"\r\n" + extra + b"Content-Length: 2\r\n\r\nok")
        except (OSError, ValueError):
            pass
        finally:
            c.close()


class H2BadServer(BadServer):
    """An HTTP/2 server that misbehaves on purpose, written frame by frame
    (RFC 9113 §4.1). It counts the requests it answered, the ground truth.
      goaway:     answers `per_conn` requests on a connection, then GOAWAY
                  with the last answered stream and closes (a request limit
                  per connection, as nginx's keepalive_requests)
      rst:        resets every other stream with INTERNAL_ERROR
      nosettings: reads, never sends a byte
      garbage:    answers the preface with bytes that are no frame
      flood:      sends more DATA than the client's window allows"""

    H200 = b"\x88"  # HPACK: indexed field 8, ":status: 200"

    def __init__(self, mode, per_conn=10):
        self.per_conn = per_conn
        BadServer.__init__(self, mode)

    @staticmethod
    def drain(c):
        """Reads until the client closes: a close with unread bytes would be a reset."""
        c.settimeout(5)
        try:
            while c.recv(65536):
                pass
        except OSError:
            pass

    @staticmethod
    def frame(ftype, flags, sid, payload=b""):
        return len(payload).to_bytes(3, "big") + bytes([ftype, flags]) + sid.to_bytes(4, "big") + payload

    def frames(self, c, buf):
        """Yields (type, flags, stream id, payload) as the client sends them."""
        while True:
            while len(buf) < 9:
                d = c.recv(65536)
                if not d:
                    return
                buf += d
            n = int.from_bytes(buf[:3], "big")
            while len(buf) < 9 + n:
                d = c.recv(65536)
                if not d:
                    return
                buf += d
            yield buf[3], buf[4], int.from_bytes(buf[5:9], "big") & 0x7fffffff, buf[9:9 + n]
            buf = buf[9 + n:]

    def handle(self, c):
        m, answered = self.mode, 0
        try:
            buf = b""
            while len(buf) < 24:
                d = c.recv(65536)
                if not d:
                    return
                buf += d
            if not buf.startswith(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"):
                return
            buf = buf[24:]
            if m == "nosettings":
                while c.recv(65536):
                    pass
                return
            if m == "garbage":
                c.sendall(b"garbage, not frames at all\r\n")  # a frame header of 6.7 MB: FRAME_SIZE_ERROR
                self.drain(c)
                return
            if m in ("framesize100", "framesize2^24"):
                # SETTINGS_MAX_FRAME_SIZE out of range (RFC 9113 section 6.5.2), then silence.
                c.sendall(self.frame(4, 0, 0, (5).to_bytes(2, "big") + (100 if m == "framesize100" else 1 << 24)
                                     .to_bytes(4, "big")))
                self.drain(c)
                return
            c.sendall(self.frame(4, 0, 0))  # our SETTINGS: none changed
            for ftype, flags, sid, payload in self.frames(c, buf):
                if ftype == 4 and not flags & 1:
                    c.sendall(self.frame(4, 1, 0))  # SETTINGS ACK
                if ftype != 1 or not flags & 1:  # only whole GET requests: HEADERS with END_STREAM
                    continue
                if m == "rst" and sid % 4 == 3:
                    c.sendall(self.frame(3, 0, sid, (2).to_bytes(4, "big")))  # RST_STREAM INTERNAL_ERROR
                    continue
                if m == "flood":
                    # 16 384 bytes on a stream whose window is 16 383 (--h2-window 14).
                    c.sendall(self.frame(1, 4, sid, self.H200) + self.frame(0, 0, sid, b"x" * 16384))
                    self.drain(c)
                    return
                c.sendall(self.frame(1, 5, sid, self.H200))  # HEADERS, END_HEADERS|END_STREAM
                with self.lock:
                    self.requests += 1
                answered += 1
                if m == "goaway" and answered == self.per_conn:
                    c.sendall(self.frame(7, 0, 0, sid.to_bytes(4, "big") + (0).to_bytes(4, "big")))
                    self.drain(c)
                    return
        except OSError:
            pass
        finally:
            try:
                c.close()
            except OSError:
                pass


def interrupt_after(p, seconds, timeout=30):
    """Sends SIGINT to a running process after `seconds`; returns its output."""
    time.sleep(seconds)
    p.send_signal(signal.SIGINT)
    try:
        return p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        return "", ""


def free_port():
    """A port with nothing listening on it."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


# --- running rafale ------------------------------------------------------

class Result:
    pass


def rafale(*args, expect_json=True, preexec=None, timeout=RUN_TIMEOUT):
    jpath = os.path.join(TMP, "out.json")
    if os.path.exists(jpath):
        os.unlink(jpath)
    cmd = [RAFALE, "-q"] + [str(a) for a in args]
    if expect_json:
        cmd += ["--json", jpath]
    r = Result()
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, preexec_fn=preexec)
    except subprocess.TimeoutExpired:
        check(False, "rafale hung: " + " ".join(cmd))
        r.rc, r.out, r.err, r.j = -1, "", "", None
        return r
    r.wall = time.monotonic() - t0
    r.rc, r.out, r.err = p.returncode, p.stdout, p.stderr
    r.j = None
    if expect_json and os.path.exists(jpath):
        with open(jpath) as f:
            r.j = json.load(f)
    if "runtime error" in r.err or "AddressSanitizer" in r.err or "LeakSanitizer" in r.err:
        check(False, "sanitizer report for " + " ".join(cmd) + ":\n" + r.err[:3000])
    return r


def accounted(j):
    """started = completed + errors + in flight, overall and per URL."""
    s = j["summary"]
    ok = s["started"] == s["requests"] + s["errors"] + s["in_flight"]
    ok = ok and s["errors"] == sum(j["errors"].values())
    for u in j["per_url"]:
        us = u["summary"]
        ok = ok and us["started"] == us["requests"] + us["errors"] + us["in_flight"]
    return ok


def err_total(j):
    return j["summary"]["errors"]


TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


# --- against rafale serve --------------------------------------------------

@test
def keepalive_count_matches_server():
    srv = Serve(threads=2)
    r = rafale("-n", 5000, "-c", 10, "-t", 2, srv.url())
    conns, reqs = srv.stop()
    j = r.j
    check(r.rc == 0, "keep-alive run exits 0 (rc=%s, %s)" % (r.rc, r.err.strip()))
    check(j["summary"]["requests"] == 5000, "keep-alive: 5000 completed")
    check(err_total(j) == 0 and j["summary"]["in_flight"] == 0, "keep-alive: no errors, nothing in flight")
    check(reqs == 5000, "keep-alive: the server answered exactly -n requests (got %s)" % reqs)
    check(conns == 10 and j["summary"]["connections_opened"] == 10,
          "keep-alive: connections == -c (server %s, rafale %s)" % (conns, j["summary"]["connections_opened"]))
    check(j["status"] == {"200": 5000}, "keep-alive: all 200")
    check(j["latency"]["count"] == 5000 and j["ttfb"]["count"] == 5000 and j["connect"]["count"] == 10,
          "keep-alive: histogram counts")
    check(accounted(j), "keep-alive: accounting invariant")
    check(j["summary"]["bytes_received"] > 5000 * 100, "keep-alive: bytes received counted")


@test
def close_mode_one_connection_per_request():
    srv = Serve()
    r = rafale("-n", 2000, "-c", 8, "--close", srv.url())
    conns, reqs = srv.stop()
    j = r.j
    check(j["summary"]["requests"] == 2000 and err_total(j) == 0, "close: 2000 completed, no errors")
    check(conns == 2000 and reqs == 2000, "close: server accepted %s connections for %s requests" % (conns, reqs))
    check(j["summary"]["connections_opened"] == 2000, "close: rafale opened 2000 connections")
    check(j["connect"]["count"] == 2000, "close: 2000 connect samples")
    check(j["config"]["keepalive"] is False, "close: config says so")


@test
def ab_keepalive_flag_and_exact_n_with_odd_split():
    srv = Serve(threads=2)
    r = rafale("-k", "-n", 1001, "-c", 7, "-t", 2, srv.url())
    conns, reqs = srv.stop()
    check(reqs == 1001 and r.j["summary"]["requests"] == 1001, "-n 1001 over 7 connections, 2 threads: exactly 1001 (%s)" % reqs)
    check(conns == 7, "-c 7 connections")


@test
def duration_mode_and_invariant():
    srv = Serve()
    r = rafale("-d", "1s", "-c", 4, "-t", 1, srv.url())
    srv.stop()
    j = r.j
    check(0.9 <= j["summary"]["elapsed_s"] <= 1.6, "-d 1s: elapsed %.3f" % j["summary"]["elapsed_s"])
    check(j["summary"]["requests"] > 0 and err_total(j) == 0, "-d 1s: requests completed")
    check(accounted(j), "-d: accounting invariant with requests in flight at the end")
    check(j["summary"]["in_flight"] <= 4, "-d: at most one request in flight per connection")


@test
def several_urls_round_robin():
    srv = Serve()
    r = rafale("-n", 3000, "-c", 6, "-t", 2, srv.url("/"), srv.url("/json"), srv.url("/status/404"))
    srv.stop()
    j = r.j
    pu = j["per_url"]
    check(len(pu) == 3, "three per-URL entries")
    check(sum(u["summary"]["requests"] for u in pu) == 3000, "per-URL requests add up")
    check(all(900 <= u["summary"]["requests"] <= 1100 for u in pu), "round-robin spreads evenly: %s" %
          [u["summary"]["requests"] for u in pu])
    check(pu[2]["status"] == {"404": pu[2]["summary"]["requests"]}, "per-URL status codes")
    check(j["status"].get("404") == pu[2]["summary"]["requests"], "total 404s match the URL")
    check("Per URL" in r.out, "text report has a per-URL table")
    # The latency header comes from the percentile table: one column per figure, right-aligned over its row.
    lines = r.out.splitlines()
    head = next(l for l in lines if l.startswith("Latency "))
    row = next(l for l in lines if l.startswith("  total "))
    ends = lambda l: [m.end() for m in re.finditer(r"\S+", l)][1:]
    check(head.split()[1:] == ["min", "mean", "stdev", "p50", "p75", "p90", "p95", "p99", "p99.9", "max"] and
          ends(head) == ends(row), "latency header over its columns:\n%s\n%s" % (head, row))


@test
def bodies_chunked_and_large():
    srv = Serve()
    r = rafale("-n", 200, "-c", 4, srv.url("/chunked/10000"))
    check(r.j["summary"]["requests"] == 200 and err_total(r.j) == 0, "chunked bodies parse")
    check(r.j["summary"]["bytes_received"] > 200 * 10000, "chunked bytes counted")
    r = rafale("-n", 50, "-c", 2, srv.url("/bytes/1000000"))
    check(r.j["summary"]["requests"] == 50 and err_total(r.j) == 0, "1 MB bodies")
    check(r.j["summary"]["bytes_received"] >= 50 * 1000000, "1 MB bodies counted")
    r = rafale("-n", 100, "-c", 2, "-m", "HEAD", srv.url("/bytes/5000"))
    check(r.j["summary"]["requests"] == 100 and err_total(r.j) == 0, "HEAD: no body expected, no hang")
    check(r.j["summary"]["bytes_received"] < 100 * 1000, "HEAD: no body received")
    r = rafale("-n", 100, "-c", 2, srv.url("/status/204"), srv.url("/status/304"))
    check(r.j["status"] == {"204": 50, "304": 50} and err_total(r.j) == 0, "204/304 without body")
    srv.stop()


@test
def post_body_and_headers_reach_server():
    log = os.path.join(TMP, "access.log")
    if os.path.exists(log):
        os.unlink(log)
    body = os.path.join(TMP, "body.bin")
    with open(body, "wb") as f:
        f.write(b"x" * 3000)
    srv = Serve("--access-log", log)
    r1 = rafale("-n", 20, "-c", 2, "-b", "hello=1", "-H", "X-Test: yes", srv.url("/json"))
    r2 = rafale("-n", 30, "-c", 3, "-p", body, "-T", "application/octet-stream", srv.url("/"))
    r3 = rafale("-n", 10, "-c", 1, "-m", "PUT", "--body-file", body, srv.url("/"))
    srv.stop()
    lines = open(log).read().splitlines()
    check(r1.j["summary"]["requests"] == 20 and r2.j["summary"]["requests"] == 30 and
          r3.j["summary"]["requests"] == 10, "bodies sent, responses received")
    check(len(lines) == 60, "access log has one line per request (%d)" % len(lines))
    check(sum('"POST /json' in l for l in lines) == 20 and sum('"POST / ' in l for l in lines) == 30 and
          sum('"PUT / ' in l for l in lines) == 10, "methods as asked (-b and -p imply POST)")
    check(r2.j["summary"]["bytes_sent"] >= 30 * 3000, "request bodies counted in bytes sent")


@test
def timeouts_are_recorded_in_latency():
    srv = Serve()
    r = rafale("-n", 20, "-c", 5, "--timeout", "100ms", srv.url("/delay/1000"))
    srv.stop()
    j = r.j
    check(j["errors"]["timeout"] == 20 and j["summary"]["requests"] == 0, "all 20 time out (%s)" % j["errors"])
    check(j["latency"]["count"] == 20, "timed-out requests are in the latency histogram")
    check(100000 <= j["latency"]["percentiles_us"]["50"] <= 130000,
          "recorded at the timeout: p50 %.0f us" % j["latency"]["percentiles_us"]["50"])
    check("timeout" in r.out and "--timeout" in r.out, "text report explains the timeout")


@test
def delay_latency():
    srv = Serve()
    r = rafale("-n", 40, "-c", 4, srv.url("/delay/20"))
    srv.stop()
    p50 = r.j["latency"]["percentiles_us"]["50"]
    check(r.j["summary"]["requests"] == 40, "/delay/20 completes")
    check(20000 <= p50 <= 21000, "/delay/20 p50 within 5%% of 20 ms: %.0f us" % p50)


@test
def server_closes_connection():
    srv = Serve()
    r = rafale("-n", 300, "-c", 3, srv.url("/close"))
    conns, reqs = srv.stop()
    j = r.j
    check(j["summary"]["requests"] == 300 and err_total(j) == 0, "/close: all complete, no errors")
    check(j["summary"]["server_closes"] == 300, "/close: counted as closed by the server")
    check(conns == 300 and j["summary"]["connections_opened"] == 300, "/close: reconnected each time (%s)" % conns)


@test
def expected_statuses():
    srv = Serve()
    r = rafale("-n", 400, "-c", 4, "--slo", "bad_status<1%", srv.url("/status/502"), srv.url())
    check(r.j["summary"]["unexpected_status"] == 200 and r.j["per_url"][0]["summary"]["unexpected_status"] == 200 and
          r.j["per_url"][1]["summary"]["unexpected_status"] == 0, "default --expect 2xx,3xx: 502 is a bad status")
    check(r.j["config"]["expect"] == "2xx,3xx" and "Bad status    200 (50.00% of responses)" in r.out and
          ": 502" in r.out, "the text report says so (%s)" % r.out[-600:])
    check(r.rc == 3 and r.j["slo"][0]["pass"] is False and r.j["slo"][0]["value"] == 50,
          "--slo bad_status<1%% fails (rc %s)" % r.rc)
    r = rafale("-n", 100, "-c", 2, "--expect", "200,502", srv.url("/status/502"))
    check(r.j["summary"]["unexpected_status"] == 0 and "Bad status" not in r.out, "--expect 200,502 accepts 502")
    r = rafale("-n", 100, "-c", 2, "--expect", "2xx", srv.url("/redirect"))
    check(r.j["summary"]["unexpected_status"] == 100, "--expect 2xx: a 302 is a bad status")
    r = rafale("-n", 200, "-c", 2, "--expect", "200-299,404", srv.url("/status/404"), srv.url("/status/500"))
    check(r.j["summary"]["unexpected_status"] == 100 and "most answers" not in r.out, "--expect with a range")
    r = rafale("-n", 100, "-c", 2, srv.url("/status/503"))
    check("not a valid result" in r.out, "mostly bad statuses: the report says the throughput is not valid")
    srv.stop()
    for bad in ("99x", "2xx,", "600", "abc", "300-200", ""):
        r = rafale("--expect", bad, "http://127.0.0.1:1/", expect_json=False)
        check(r.rc == 2 and "--expect wants status codes such as" in r.err and len(r.err.splitlines()) == 1,
              "--expect %r refused in one line (%r)" % (bad, r.err))


@test
def why_connections_ended():
    srv = Serve()
    r = rafale("-n", 300, "-c", 3, srv.url("/close"))
    srv.stop()
    why = r.j["summary"]["server_close_reasons"]
    check(why["connection_close"] == 300 and why["http10"] == 0 and r.j["summary"]["connections_per_request"] == 1.0,
          "/close: 300 closed with 'Connection: close' (%s)" % why)
    check("'Connection: close' header" in r.out and "Keep-alive    refused by the server" in r.out,
          "/close: the report names the header and says keep-alive was refused")
    for mode, key, words in (("http10len", "http10", "HTTP/1.0 without keep-alive"),
                             ("eofbody", "body_until_close", "body delimited by the close")):
        bad = BadServer(mode)
        r = rafale("-n", 30, "-c", 2, bad.url())
        bad.stop()
        why = r.j["summary"]["server_close_reasons"]
        check(r.j["summary"]["requests"] == 30 and err_total(r.j) == 0 and why[key] == 30 and
              r.j["summary"]["server_closes"] == 30, "%s: 30 closes counted as %s (%s)" % (mode, key, why))
        check(words in r.out and "Connection: close" not in r.out, "%s: the report says '%s', not 'Connection: close'"
              % (mode, words))
    bad = BadServer("idleclose")
    r = rafale("-R", 20, "-d", "1s", "-c", 1, bad.url())
    bad.stop()
    why = r.j["summary"]["server_close_reasons"]
    check(err_total(r.j) == 0 and 15 <= why["idle"] <= 21 and r.j["summary"]["server_closes"] == 0,
          "a server closing idle connections: counted as idle (%s)" % why)
    srv = Serve()
    r = rafale("-n", 50, "-c", 2, "--close", srv.url("/close"))
    srv.stop()
    check(sum(r.j["summary"]["server_close_reasons"].values()) == 0 and "refused" not in r.out,
          "--close: the server closing is what was asked, nothing is flagged")


@test
def requests_per_connection():
    srv = Serve()
    r = rafale("-n", 1000, "-c", 5, "--requests-per-connection", 10, srv.url())
    conns, reqs = srv.stop()
    check(r.j["summary"]["requests"] == 1000 and err_total(r.j) == 0, "rpc: all complete")
    # Each connection carries 10, except the last ones cut short when -n runs out.
    check(100 <= conns <= 105 and r.j["summary"]["connections_opened"] == conns,
          "rpc 10: about 100 connections, as the server counted (%s)" % conns)


@test
def csv_output():
    srv = Serve()
    path = os.path.join(TMP, "out.csv")
    r = rafale("-n", 500, "-c", 5, "--csv", path, srv.url())
    srv.stop()
    lines = open(path).read().splitlines()
    check(lines[0] == "Percentage served,Time in ms" and len(lines) == 102, "CSV in ab's -e format")
    vals = [float(l.split(",")[1]) for l in lines[1:]]
    check(all(a <= b for a, b in zip(vals, vals[1:])), "CSV times never decrease")
    check([int(l.split(",")[0]) for l in lines[1:]] == list(range(101)), "CSV percentages 0..100")
    check(abs(vals[100] - r.j["latency"]["max_us"] / 1000) < 0.01, "CSV 100% is the max")


@test
def json_shape():
    srv = Serve()
    r = rafale("-n", 100, "-c", 2, srv.url())
    srv.stop()
    j = r.j
    for k in ("requests", "errors", "in_flight", "elapsed_s", "rps", "connections_opened", "bytes_received"):
        check(k in j["summary"], "summary." + k)
    kinds = ["connect_refused", "connect_timeout", "connect_other", "reset", "timeout", "write", "malformed",
             "closed_early", "addr_unavailable", "tls", "h2_rst_stream", "h2_goaway", "h2_protocol", "bad_value"]
    check(sorted(j["errors"]) == sorted(kinds), "every error kind present")
    for h in ("latency", "connect", "ttfb"):
        for k in ("min_us", "mean_us", "stdev_us", "max_us", "percentiles_us", "histogram"):
            check(k in j[h], "%s.%s" % (h, k))
        check(sorted(j[h]["percentiles_us"]) == sorted(["50", "75", "90", "95", "99", "99.9"]), h + " percentiles")
        check(sum(c for _, c in j[h]["histogram"]) == j[h]["count"], h + " histogram adds up")
        p = j[h]["percentiles_us"]
        check(j[h]["min_us"] <= p["50"] <= p["99"] <= j[h]["max_us"], h + " ordered")
    check(j["per_url"][0]["url"] == srv.url() and "config" in j, "per_url and config")


@test
def json_to_stdout():
    srv = Serve()
    p = subprocess.run([RAFALE, "-q", "-n", "50", "-c", "2", "--json", "-", srv.url()],
                       capture_output=True, text=True, timeout=RUN_TIMEOUT)
    srv.stop()
    try:
        j = json.loads(p.stdout)
        ok = j["summary"]["requests"] == 50
    except ValueError:
        ok = False
    check(ok, "--json - writes only JSON on stdout")
    check("Requests" in p.stderr, "and the text report goes to stderr")


@test
def ipv6_loopback():
    try:
        s = socket.socket(socket.AF_INET6)
        s.bind(("::1", 0))
        s.close()
    except OSError:
        print("  (skipped: no IPv6 loopback)")
        return
    srv = Serve(listen="[::1]:0")
    r = rafale("-n", 200, "-c", 2, "http://[::1]:%d/" % srv.port)
    srv.stop()
    check(r.j["summary"]["requests"] == 200 and err_total(r.j) == 0, "IPv6 loopback")


@test
def localhost_name_resolves():
    srv = Serve()
    r = rafale("-n", 100, "-c", 2, "http://localhost:%d/" % srv.port)
    srv.stop()
    check(r.rc == 0 and r.j["summary"]["requests"] == 100, "host name resolved once at start")


# --- constant rate ----------------------------------------------------------------

@test
def rate_is_held():
    srv = Serve(threads=1)
    cases = [(1, "3s"), (10, "2s"), (1000, "2s")] + ([] if SANITIZED else [(20000, "2s")])
    for rate, dur in cases:
        r = rafale("-R", rate, "-t", 2, "-c", 10, "-d", dur, srv.url())
        j = r.j
        secs = float(dur[:-1])
        sent = j["summary"]["started"]
        check(abs(sent - rate * secs) <= max(1, rate * secs * 0.01),
              "-R %d for %s: %d requests sent, want %d within 1%%" % (rate, dur, sent, rate * secs))
        check(j["rate"]["target_rps"] == rate and err_total(j) == 0 and accounted(j), "-R %d: reported" % rate)
    srv.stop()


@test
def rate_mode_delay_latency_and_lag():
    srv = Serve()
    r = rafale("-R", 100, "-c", 10, "-d", "2s", srv.url("/delay/20"))
    srv.stop()
    j = r.j
    p50 = j["latency"]["percentiles_us"]["50"]
    check(20000 <= p50 <= 21000, "rate mode /delay/20: p50 within 5%% of 20 ms (%.0f us)" % p50)
    check(j["send_lag"]["count"] == j["summary"]["started"], "send lag recorded for every request")
    check(j["latency_uncorrected"]["count"] == j["latency"]["count"], "uncorrected latency alongside")
    check("Rate " in r.out and "Send lag" in r.out and "uncorr." in r.out, "text report shows rate, lag, both latencies")


@test
def coordinated_omission_corrected():
    bad = BadServer("freeze")
    r = rafale("-R", 200, "-c", 4, "-t", 1, "-d", "4s", "--timeout", "5s", bad.url())
    bad.stop()
    j = r.j
    cp99 = j["latency"]["percentiles_us"]["99"]
    up99 = j["latency_uncorrected"]["percentiles_us"]["99"]
    sent = j["summary"]["started"] + j["rate"]["queued"]
    check(cp99 >= 500000, "a 1 s freeze shows in corrected p99 (%.0f us)" % cp99)
    check(up99 < 100000, "while uncorrected p99 stays low (%.0f us)" % up99)
    check(abs(sent - 800) <= 8, "requests due = rate x duration within 1%% (%d)" % sent)
    check(err_total(j) == 0, "no errors during the freeze")


@test
def max_connections_when_behind():
    srv = Serve()
    # 2 connections at 50 ms carry 40 req/s: -R 200 needs about 10.
    r = rafale("-R", 200, "-c", 2, "-t", 1, "--max-connections", 20, "-d", "2s", srv.url("/delay/50"))
    j = r.j
    extra = j["rate"]["extra_connections"]
    check(8 <= extra <= 18, "--max-connections opened extra connections as needed (%d)" % extra)
    check(abs(j["summary"]["started"] - 400) <= 4 and j["rate"]["queued"] == 0, "and the schedule was kept (%d sent)" %
          j["summary"]["started"])
    check("Extra " in r.out, "text report says so")
    r = rafale("-R", 200, "-c", 2, "-t", 1, "-d", "1s", srv.url("/delay/50"))
    check(r.j["rate"]["extra_connections"] == 0 and r.j["latency"]["percentiles_us"]["99"] > 200000,
          "without it, the backlog shows in corrected latency")
    srv.stop()


@test
def pipelining():
    srv = Serve()
    r = rafale("-n", 10000, "-c", 4, "-t", 2, "--pipeline", 8, srv.url("/"), srv.url("/json"))
    conns, reqs = srv.stop()
    j = r.j
    check(j["summary"]["requests"] == 10000 and err_total(j) == 0, "pipelining: all complete")
    check(reqs == 10000 and conns == 4, "pipelining: exactly -n reached the server on -c connections (%s, %s)" % (reqs, conns))
    check(j["per_url"][0]["summary"]["requests"] == 5000, "pipelining: round-robin per URL")
    bad = BadServer("drip")
    r = rafale("-n", 8, "-c", 1, "--pipeline", 4, bad.url())
    bad.stop()
    check(r.j["summary"]["requests"] == 8 and err_total(r.j) == 0, "pipelining: responses dripped byte by byte")
    check(bad.accepted == 1, "pipelining: one connection")


@test
def warmup_not_counted():
    srv = Serve()
    r = rafale("--warmup", "500ms", "-d", "1s", "-c", 2, "-t", 1, srv.url())
    conns, reqs = srv.stop()
    j = r.j
    check(0.9 <= j["summary"]["elapsed_s"] <= 1.5, "warm-up: measured phase only (%.2f s)" % j["summary"]["elapsed_s"])
    check(reqs > j["summary"]["requests"] + j["summary"]["in_flight"], "warm-up requests reached the server but are not counted")
    check(accounted(j) and err_total(j) == 0, "warm-up: accounted")
    check(j["summary"]["connections_opened"] == 0, "warm-up: connections opened during it are not counted")


@test
def source_addresses():
    log = os.path.join(TMP, "src.log")
    if os.path.exists(log):
        os.unlink(log)
    srv = Serve("--access-log", log)
    r = rafale("-n", 300, "-c", 6, "--close", "--source", "127.0.0.2-127.0.0.4", srv.url())
    srv.stop()
    peers = set(l.split()[0] for l in open(log))
    check(r.j["summary"]["requests"] == 300 and err_total(r.j) == 0, "--source: all complete")
    check(peers == {"127.0.0.2", "127.0.0.3", "127.0.0.4"}, "--source: connections from each address (%s)" % peers)


@test
def slo_timeline_hdr():
    srv = Serve()
    hdr = os.path.join(TMP, "out.hgrm")
    r = rafale("-R", 500, "-c", 4, "-d", "2s", "--hdr", hdr, "--slo", "p99<1s,errors<1%,rps>450", srv.url())
    check(r.rc == 0 and "SLO" in r.out and r.out.count(" pass ") == 3, "SLO met: exit 0, three passes")
    check([c["pass"] for c in r.j["slo"]] == [True, True, True], "SLO in JSON")
    tl = r.j["timeline"]
    check(len(tl) in (2, 3) and all(set(e) == {"t_s", "requests", "errors", "p50_us", "p99_us", "max_us"} for e in tl),
          "timeline: one entry per second (%d)" % len(tl))
    check(sum(e["requests"] for e in tl) == r.j["summary"]["requests"], "timeline adds up to the total")
    check(all(abs(e["requests"] - 500) <= 5 for e in tl[:2]), "timeline: 500 per second at -R 500 (%s)" %
          [e["requests"] for e in tl])
    lines = open(hdr).read().splitlines()
    check(lines[0].split() == ["Value", "Percentile", "TotalCount", "1/(1-Percentile)"], "--hdr header")
    check(lines[-2].startswith("#[Max") and ("Total count    = %12d]" % r.j["latency"]["count"]) in lines[-2],
          "--hdr footer with the total count")
    r = rafale("-n", 200, "-c", 2, "--slo", "p99<1us,errors<=0", srv.url("/delay/5"))
    check(r.rc == 3 and "FAIL" in r.out, "SLO missed: exit 3")
    check([c["pass"] for c in r.j["slo"]] == [False, True], "SLO failure in JSON")
    r = rafale("--slo", "p99<50", srv.url(), expect_json=False)
    check(r.rc == 2 and "needs a duration with a unit" in r.err, "SLO without a unit is refused")
    srv.stop()


@test
def sweep_finds_the_knee():
    srv = Serve()
    jpath = os.path.join(TMP, "sweep.json")
    p = subprocess.run([RAFALE, "sweep", "-t", "1", "-c", "4", "-d", "500ms", "--warmup", "100ms", "--start", "50",
                        "--slo", "p99<30ms", "--json", jpath, srv.url("/delay/20")],
                       capture_output=True, text=True, timeout=RUN_TIMEOUT)
    srv.stop()
    j = json.load(open(jpath)) if os.path.exists(jpath) else None
    # 4 connections at 20 ms each carry at most 200 req/s.
    check(p.returncode == 0 and j is not None, "sweep: exit 0 and JSON (%s %s)" % (p.returncode, p.stderr[-300:]))
    if j:
        knee = j["sweep"]["knee_rps"]
        check(100 <= knee <= 200, "sweep: knee between 100 and 200 req/s (%s)" % knee)
        steps = j["sweep"]["steps"]
        check([s["target_rps"] for s in steps[:3]] == [50, 100, 200], "sweep: ramp doubles")
        check(any(not s["pass"] for s in steps) and "Knee:" in p.stdout, "sweep: a failing step and the knee shown")
    p = subprocess.run([RAFALE, "sweep", srv.url()], capture_output=True, text=True, timeout=10)
    check(p.returncode == 2 and "needs --slo" in p.stderr, "sweep without --slo is refused")
    p = subprocess.run([RAFALE, "--start", "5", "http://127.0.0.1/"], capture_output=True, text=True, timeout=10)
    check(p.returncode == 2 and "option of 'rafale sweep'" in p.stderr, "--start outside sweep is refused")
    for opt in ("--start", "--max"):
        p = subprocess.run([RAFALE, "sweep", "--slo", "p99<10ms", opt, "1e-300", "http://127.0.0.1/"],
                           capture_output=True, text=True, timeout=10)
        check(p.returncode == 2 and "%s wants a rate from 0.001 to 100000000 per second" % opt in p.stderr,
              "sweep %s 1e-300 is refused (%r)" % (opt, p.stderr))
    # The smallest rate and a ramp down to 0 req/s, under the sanitizers too: no cast C leaves undefined.
    r = rafale("-R", "0.001", "-d", "300ms", "--csv", os.path.join(TMP, "slow.csv"), srv.url())
    check(r.rc == 0 and r.j["summary"]["started"] == 1, "-R 0.001: one request at the start (%s)" % r.j["summary"])
    r = rafale("--stages", "500ms:200,500ms:0", "-c", 4, "-t", 1, srv.url())
    check(r.rc == 0 and 40 <= r.j["summary"]["started"] <= 110 and accounted(r.j),
          "--stages down to 0 req/s: about 100 sent (%s)" % r.j["summary"]["started"])


@test
def live_view():
    srv = Serve()
    p = subprocess.run([RAFALE, "-d", "6s", "-R", "100", "-c", "2", srv.url()], capture_output=True, text=True,
                       timeout=RUN_TIMEOUT)
    srv.stop()
    lines = [l for l in p.stderr.splitlines() if "req/s now" in l]
    check(len(lines) == 1 and "p99" in lines[0] and "open 2" in lines[0],
          "not a terminal: one plain progress line per 5 s (%r)" % p.stderr)
    check("req/s now" not in p.stdout, "progress never mixes into the report")


# --- monitoring the server ------------------------------------------------------------

@test
def monitor_process_tree():
    srv = Serve(threads=2)
    r = rafale("-n", 20000, "-c", 10, "--monitor", srv.p.pid, srv.url())
    srv.stop()
    s = r.j["server"]
    check(s["pid"] == srv.p.pid and s["processes"] == 1 and s["threads"] == 3,
          "--monitor: one process with 3 threads (%s)" % s)
    check(s["cpu_s"] > 0 and s["cpu_us_per_request"] > 0 and s["rss_peak_bytes"] > 1000000 and
          s["rss_mean_bytes"] <= s["rss_peak_bytes"], "--monitor: CPU and memory measured")
    check("Server        pid" in r.out, "--monitor: in the text report")
    # A parent with two children, as gunicorn with workers: the whole tree counts.
    out = os.path.join(TMP, "tree.out")
    parent = subprocess.Popen(["sh", "-c", "%s serve --listen 127.0.0.1:0 -t 1 > %s 2>/dev/null & "
                               "%s serve --listen 127.0.0.1:0 -t 1 >/dev/null 2>&1 & wait" % (RAFALE, out, RAFALE)],
                              start_new_session=True)
    addr = None
    for _ in range(200):
        try:
            line = open(out).readline()
        except OSError:
            line = ""
        if line.startswith("listening on"):
            addr = line.split()[2]
            break
        time.sleep(0.02)
    r = rafale("-n", 5000, "-c", 4, "--monitor", parent.pid, "http://%s/" % addr)
    os.killpg(parent.pid, signal.SIGTERM)
    parent.wait(timeout=10)
    check(r.j["server"]["processes"] == 3 and r.j["server"]["cpu_s"] > 0,
          "--monitor: the parent and both children (%s)" % r.j["server"])


def png_not_blank(path):
    """True when the PNG's pixels are not all one colour (stdlib only)."""
    import struct
    import zlib
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return False
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IDAT":
            idat += data[pos + 8:pos + 8 + n]
        pos += 12 + n
    raw = zlib.decompress(idat)
    return len(set(raw[i] for i in range(0, len(raw), 7))) > 20


@test
def html_report():
    import xml.etree.ElementTree as ET
    srv = Serve()
    html = os.path.join(TMP, "report.html")
    r = rafale("-R", 500, "-c", 4, "-d", "2s", "--html", html, srv.url(), srv.url("/status/503"))
    srv.stop()
    text = open(html).read()
    try:
        ET.fromstring(text.split("\n", 1)[1])  # well-formed, past the doctype
        ok = True
    except ET.ParseError as e:
        ok = False
        print("  parse error:", e)
    check(ok, "--html: well-formed")
    check(text.count("<svg") == 4 and "Latency by percentile" in text and "Throughput over time" in text and
          "Latency over time" in text and "Status codes and errors" in text, "--html: the four charts")
    check("<script" not in text and " src=" not in text and "href=" not in text and "@import" not in text,
          "--html: self-contained, no script, nothing fetched")
    check("percentile" in text and "latency (ms" in text and "requests per second" in text, "--html: axis labels")
    check(not svg_geometry_ok(text), "--html: legends below the plots (%s)" % svg_geometry_ok(text)[:2])
    # A run that ends 0.6 s into its last second: that second is scaled, not drawn as a drop.
    srv2 = Serve()
    h2 = os.path.join(TMP, "partial.html")
    rafale("-R", 200, "-c", 2, "-d", "1.6s", "--html", h2, srv2.url())
    srv2.stop()
    import re
    svg = [x for x in re.findall(r"<svg.*?</svg>", open(h2).read(), re.S) if "Throughput over time" in x][0]
    pts = [tuple(map(float, q.split(","))) for q in re.search(r'class="series"[^>]*points="([^"]*)"', svg).group(1).split()]
    plot = re.search(r'class="plot" x="\d+" y="(\d+)" width="\d+" height="(\d+)"', svg)
    bottom = float(plot.group(1)) + float(plot.group(2))
    check(len(pts) == 2 and abs((bottom - pts[1][1]) - (bottom - pts[0][1])) < 0.15 * (bottom - pts[0][1]),
          "--html: the last partial second is scaled, no false drop (%s)" % pts)
    chromium = shutil.which("chromium")
    if not chromium:
        print("  (chromium not installed: no screenshot check)")
        return
    shot = os.path.join(TMP, "shot.png")
    p = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                        "--disable-background-networking", "--disable-component-update", "--disable-sync",
                        "--user-data-dir=" + os.path.join(TMP, "chromium"), "--enable-logging=stderr", "--v=0",
                        "--window-size=800,2000", "--screenshot=" + shot, "file://" + html],
                       capture_output=True, text=True, timeout=120)
    check(os.path.exists(shot) and png_not_blank(shot), "--html: Chromium renders a page that is not blank")
    console = [l for l in p.stderr.splitlines() if "CONSOLE" in l]
    check(not console, "--html: no console messages (%s)" % console[:3])


@test
def report_from_saved_json():
    srv = Serve()
    j1, j2 = os.path.join(TMP, "a.json"), os.path.join(TMP, "b.json")
    r1 = rafale("-n", 3000, "-c", 4, "--json", j1, srv.url(), expect_json=False)
    r2 = rafale("-R", 300, "-d", "2s", "-c", 4, "--json", j2, srv.url("/delay/2"), expect_json=False)
    srv.stop()
    html = os.path.join(TMP, "again.html")
    p = subprocess.run([RAFALE, "report", "--html", html, j1], capture_output=True, text=True, timeout=60)
    a = json.load(open(j1))
    check(p.returncode == 0 and "Requests      3000 completed" in p.stdout, "report: the text report again")
    line = lambda out: [l for l in out.splitlines() if l.strip().startswith("total")]
    check(line(p.stdout) == line(r1.out), "report: the same latency row as the run printed (%s / %s)" %
          (line(p.stdout), line(r1.out)))
    t = open(html).read()
    check(t.count("<svg") == 4 and "Latency by percentile" in t, "report: the HTML rebuilt")
    p = subprocess.run([RAFALE, "report", "--html", html, j1, j2], capture_output=True, text=True, timeout=60)
    t = open(html).read()
    check(p.returncode == 0 and "== " + j2 in p.stdout and "Rate " in p.stdout, "report: two files, both reports")
    check(t.count("<svg") >= 5 and "a.json" in t and "b.json" in t and "Latency by percentile" in t,
          "report: two files side by side in HTML")
    bad = os.path.join(TMP, "bad.json")
    with open(bad, "w") as f:
        f.write('{"hello": 1}')
    p = subprocess.run([RAFALE, "report", bad], capture_output=True, text=True, timeout=10)
    check(p.returncode == 1 and "not a rafale result" in p.stderr, "report: a file that is not a result")
    with open(bad, "w") as f:
        f.write('{"hello": ')
    p = subprocess.run([RAFALE, "report", bad], capture_output=True, text=True, timeout=10)
    check(p.returncode == 1 and "not JSON" in p.stderr, "report: a file that is not JSON")


def report_of(path, html=None):
    cmd = [RAFALE, "report"] + (["--html", html] if html else []) + [path]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


@test
def saved_results_are_checked():
    srv = Serve()
    good = os.path.join(TMP, "good.json")
    rafale("-n", 500, "-c", 2, "--json", good, srv.url(), srv.url("/json"), expect_json=False)
    srv.stop()
    base = json.load(open(good))
    bad = os.path.join(TMP, "edited.json")

    def edited(change, field, words):
        j = json.loads(json.dumps(base))
        change(j)
        with open(bad, "w") as f:
            json.dump(j, f)
        p = report_of(bad)
        lines = [l for l in p.stderr.splitlines() if l.strip()]
        check(p.returncode == 1 and len(lines) == 1 and lines[0].startswith("rafale report: %s: %s" % (bad, field))
              and words in lines[0] and "Sanitizer" not in p.stderr and "runtime error" not in p.stderr,
              "report: %s refused (%r)" % (field, p.stderr[-300:]))

    def setp(path, value):
        def f(j):
            o = j
            for k in path[:-1]:
                o = o[k]
            o[path[-1]] = value
        return f

    edited(setp(["summary", "requests"], -1), "summary.requests", "out of range")
    edited(setp(["summary", "elapsed_s"], 1e308), "summary.elapsed_s", "out of range")
    edited(setp(["latency", "max_us"], 1e308), "latency.max_us", "out of range")
    edited(setp(["status", "200"], -1), "status.200", "out of range")
    edited(setp(["status", "200"], 2.5), "status.200", "not a whole number")
    edited(setp(["status", "abc"], 1), "status.abc", "not a status code")
    edited(setp(["summary", "requests"], "many"), "summary.requests", "not a number")
    edited(setp(["config", "method"], "<script>alert(4)</script>"), "config.method", "not an HTTP method")
    edited(setp(["config", "urls"], "http://x/"), "config.urls", "not a list")
    edited(lambda j: j["latency"]["histogram"].reverse(), "latency.histogram[1]", "not above the previous one")
    edited(setp(["latency", "count"], 1), "latency.count", "the buckets add up to")
    edited(setp(["summary", "started"], 7), "summary.started", "not completed + errors + in flight")
    edited(setp(["errors", "reset"], 3), "summary.errors", "the kinds add up to 3")
    edited(lambda j: j["per_url"].pop(), "per_url", "1 entries for 2 URLs")
    edited(setp(["per_url", 1, "summary", "requests"], -5), "per_url[1].summary.requests", "out of range")
    edited(setp(["timeline", 0, "p99_us"], 1e300),
           "timeline[0].p99_us", "out of range")
    p = report_of(good)
    check(p.returncode == 0 and "Requests      500 completed" in p.stdout, "report: the unedited file still loads")
    # A saved name with an escape sequence and a bell reaches no terminal as such.
    j = json.loads(json.dumps(base))
    j["per_url"][1]["name"] = "x\u001b]0;pwned\u0007\u001b[31mred"
    with open(bad, "w") as f:
        json.dump(j, f)
    p = report_of(bad)
    check(p.returncode == 0 and "\x1b" not in p.stdout and "\x07" not in p.stdout and "x?]0;pwned??[31mred" in p.stdout,
          "report: control bytes of a saved string are shown as '?' (%r)" % p.stdout[-400:])


@test
def nothing_reaches_html_unescaped():
    import re
    here = os.path.dirname(os.path.abspath(__file__))
    for name in ("report_html.c", "report_compare_html.c", "svg.c"):
        src = open(os.path.join(here, "..", "src", "tool", name)).read()
        raw = re.findall(r"\b(fprintf|fputs|fputc|fwrite|putc|vfprintf)\s*\(", src)
        check(not raw, "html: %s writes only through html.h (%s)" % (name, raw))
    XSS = '<script>alert(1)</script>'
    srv = Serve()
    js = os.path.join(TMP, "xss.json")
    rafale("-n", 200, "-c", 2, "-H", "X-Evil: " + XSS, "--monitor", srv.p.pid, "--json", js,
           srv.url("/%3Cscript%3E"), expect_json=False)
    srv.stop()
    j = json.load(open(js))
    j["config"]["urls"][0] = "http://127.0.0.1/" + XSS
    j["per_url"][0]["url"] = j["config"]["urls"][0]
    j["config"]["content_type"] = XSS
    j["server"]["cgroup"] = XSS
    j["server"]["pss_note"] = XSS
    j["server"]["has_pss"] = False
    for e in j["server"]["tree"]:
        e["command"] = "<img src=x onerror=alert(2)>"
    with open(js, "w") as f:
        json.dump(j, f)
    page = os.path.join(TMP, "xss.html")
    p = report_of(js, page)
    html = open(page).read() if os.path.exists(page) else ""
    check(p.returncode == 0 and "&lt;script&gt;" in html and "&lt;img" in html, "html: hostile fields are shown, escaped")
    check(not re.search(r"<script|<img", html, re.I), "html: no markup from a saved run reaches the page")
    # A compare whose names, commands, versions and failures all carry markup.
    port = free_port()
    plan = os.path.join(TMP, "xss.conf")
    with open(plan, "w") as f:
        f.write("[settings]\nrepeat = 1\nwarmup = 0s\nready-timeout = 2s\n"
                "[server <script>alert(3)</script>]\nstart = exec %s serve --listen 127.0.0.1:%d -t 1\n"
                "url = http://127.0.0.1:%d\nversion = echo '<script>alert(4)</script>'\n"
                "[server <img src=x onerror=alert(5)>]\nstart = echo '<script>alert(6)</script>' >&2; exit 1\n"
                "url = http://127.0.0.1:1\n"
                "[workload <script>alert(7)</script>]\nrequests = 100\nconnections = 2\n"
                "header = X-A: <script>alert(8)</script>\n" % (RAFALE, port, port))
    cj, ch = os.path.join(TMP, "xss-cmp.json"), os.path.join(TMP, "xss-cmp.html")
    p = subprocess.run([RAFALE, "compare", "--json", cj, "--html", ch, plan], capture_output=True, text=True,
                       timeout=RUN_TIMEOUT)
    again = os.path.join(TMP, "xss-cmp-again.html")
    p2 = report_of(cj, again)
    for page in (ch, again):
        html = open(page).read() if os.path.exists(page) else ""
        check(p.returncode == 1 and p2.returncode == 0 and "alert(6)" in html and "alert(4)" in html,
              "html: the compare page shows the hostile names and output, escaped (%s)" % page)
        check(not re.search(r"<script|<img", html, re.I), "html: no markup from a plan or a server reaches %s" % page)
        try:
            import xml.etree.ElementTree as ET
            ET.fromstring(html.split("\n", 1)[1])
            ok = True
        except Exception as e:
            ok = False
            print("  parse error:", e)
        check(ok, "html: %s is well-formed" % page)


@test
def report_of_many_urls_stays_small():
    # 10 000 URLs, a few buckets each: the reader sizes histograms to their data.
    urls = ["http://127.0.0.1:1/u%d" % i for i in range(10000)]

    def stats(n):
        hist = {"count": n, "min_us": 100.0, "mean_us": 150.0, "stdev_us": 10.0, "max_us": 200.0,
                "percentiles_us": {}, "histogram": [[101.0, n // 2], [201.0, n - n // 2]]}
        empty = {"count": 0, "min_us": 0, "mean_us": 0, "stdev_us": 0, "max_us": 0, "percentiles_us": {},
                 "histogram": []}
        return {"summary": {"requests": n, "errors": 0, "in_flight": 0, "started": n, "elapsed_s": 1.0},
                "status": {"200": n}, "errors": {}, "latency": hist, "ttfb": hist, "connect": empty}
    j = {"tool": "rafale", "config": {"urls": urls, "method": "GET", "connections": 10, "threads": 1},
         "per_url": [dict(stats(10), url=u) for u in urls]}
    j.update(stats(100000))
    path = os.path.join(TMP, "many.json")
    with open(path, "w") as f:
        json.dump(j, f)
    probe = ("import resource, subprocess, sys\n"
             "p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)\n"
             "print(p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, p.stderr[-200:])")
    out = subprocess.run([sys.executable, "-c", probe, RAFALE, "report", path], capture_output=True, text=True,
                         timeout=300).stdout.split(" ", 2)
    rc, kib = int(out[0]), int(out[1])
    if SANITIZED:
        # ASan's shadow memory and quarantine make RSS meaningless here: clean is what counts.
        check(rc == 0, "report: 10 000 URLs read cleanly (%s)" % out[2:])
        return
    check(rc == 0 and kib < 200 * 1024, "report: 10 000 URLs read in %d MiB (under 200 MiB; was 2.18 GB)" % (kib // 1024))


# --- rafale compare --------------------------------------------------------------------

# Every process this run of the tests starts, and all they start, inherit this token: a leftover check looks only at
# processes that carry it, never at another user's "sleep 30" on the same machine.
MARK_TOKEN = "%d-%s" % (os.getpid(), os.urandom(6).hex())
os.environ["RAFALE_IT_MARK"] = MARK_TOKEN


def ours(pid):
    try:
        with open("/proc/%s/environ" % pid, "rb") as f:
            return ("RAFALE_IT_MARK=" + MARK_TOKEN).encode() in f.read().split(b"\0")
    except OSError:
        return False


def serve_pids(marker):
    """Our own processes (see MARK_TOKEN) whose command line holds marker."""
    p = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True)
    return [l for l in p.stdout.split() if ours(l)]


@test
def compare_servers():
    ports = [free_port() for _ in range(4)]
    plan = os.path.join(TMP, "plan.conf")
    with open(plan, "w") as f:
        f.write("""# rafale serve twice, and three broken servers
[settings]
repeat = 2
warmup = 100ms
ready-timeout = 1s
grace = 1s

[server alpha]
start = %(r)s serve --listen 127.0.0.1:%(p0)d -t 1
url = http://127.0.0.1:%(p0)d

[server beta]
start = exec %(r)s serve --listen 127.0.0.1:%(p1)d -t 1
url = http://127.0.0.1:%(p1)d/
env = RAFALE_TEST=1

[server exits]
start = echo "cannot bind: address in use" >&2; exit 3
url = http://127.0.0.1:%(p2)d

[server silent]
start = sleep 30
url = http://127.0.0.1:%(p2)d

[server crashes]
start = %(r)s serve --listen 127.0.0.1:%(p3)d -t 1 & sleep 0.8; kill -9 $!; echo crashed >&2
url = http://127.0.0.1:%(p3)d

[workload hello]
path = /
connections = 4
requests = 2000

[workload redirect close]
path = /redirect
connections = 2
duration = 300ms
close = yes
""" % dict(r=RAFALE, p0=ports[0], p1=ports[1], p2=ports[2], p3=ports[3]))
    jpath, hpath = os.path.join(TMP, "cmp.json"), os.path.join(TMP, "cmp.html")
    # Someone else's "sleep 30" on the machine is not ours to find.
    env = {k: v for k, v in os.environ.items() if k != "RAFALE_IT_MARK"}
    stranger = subprocess.Popen(["sleep", "30"], env=env)
    p = subprocess.run([RAFALE, "compare", "--json", jpath, "--html", hpath, plan], capture_output=True, text=True,
                       timeout=RUN_TIMEOUT)
    check(p.returncode == 1, "compare: exit 1, three servers failed (%s %s)" % (p.returncode, p.stderr[-400:]))
    j = json.load(open(jpath))["compare"]
    hello = {s["name"]: s for s in j["workloads"][0]["servers"]}
    check(hello["alpha"]["runs"] == 2 and hello["alpha"]["requests"] == 4000 and hello["beta"]["requests"] == 4000,
          "compare: each good server ran each workload twice, exactly -n each")
    # PSS splits the pages rafale serve shares with its twin and with other rafale processes: ~1.2 MiB alone, less
    # beside them, never nothing.
    check(hello["alpha"]["server_cpu_us_per_request"] > 0 and hello["beta"]["memory_peak_bytes"] > 256 << 10,
          "compare: server CPU and memory measured (%s, %s)" % (hello["alpha"]["server_cpu_us_per_request"],
                                                               hello["beta"]["memory_peak_bytes"]))
    check(min(hello["alpha"]["ratio_to_best"], hello["beta"]["ratio_to_best"]) == 1.0, "compare: ratio to the best")
    failed = {f["name"]: f["reason"] for f in j["failed"]}
    output = {f["name"]: f["output"] for f in j["failed"]}
    check(set(failed) == {"exits", "silent", "crashes"}, "compare: the three broken servers failed (%s)" % failed)
    check("exited with status 3" in failed.get("exits", "") and "address in use" in output.get("exits", ""),
          "compare: exit status and last stderr lines shown")
    check("never answered" in failed.get("silent", ""), "compare: a server that never listens")
    check("during the runs" in failed.get("crashes", "") and "crashed" in output.get("crashes", ""),
          "compare: a server that dies mid-run (%s)" % failed.get("crashes"))
    check("Workload 'hello'" in p.stdout and "vs best" in p.stdout and "Failed: exits" in p.stdout and
          "\n    cannot bind: address in use\n" in p.stdout, "compare: the text tables")
    html = open(hpath).read()
    check(html.count("<svg") >= 8 and "Latency by percentile" in html and "<script" not in html,
          "compare: HTML with bars and percentile curves")
    left = serve_pids("127.0.0.1:%d" % ports[0]) + serve_pids("127.0.0.1:%d" % ports[1]) + serve_pids("sleep 30")
    check(not left, "compare: no child process left behind (%s)" % left)
    check(str(stranger.pid) not in left and stranger.poll() is None,
          "compare: a stranger's sleep 30 is neither counted nor stopped")
    stranger.kill()
    stranger.wait()

    with open(plan, "w") as f:
        f.write("[settings]\nrepeat = 2\n\n[server a]\nstart = true\nurl = http://127.0.0.1:1\nport = 80\n")
    p = subprocess.run([RAFALE, "compare", plan], capture_output=True, text=True, timeout=30)
    check(p.returncode == 2 and ":7: unknown key 'port'" in p.stderr, "compare: unknown key with its line (%r)" % p.stderr)


PREFORK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "prefork_server.py")


@test
def compare_exit_status_and_failed_output():
    port = free_port()
    plan = os.path.join(TMP, "exit.conf")

    def run(text):
        with open(plan, "w") as f:
            f.write("[settings]\nrepeat = 1\nwarmup = 0s\nready-timeout = 2s\ngrace = 1s\nconnections = 2\n"
                    "requests = 100\n" + text)
        jp = os.path.join(TMP, "exit.json")
        if os.path.exists(jp):
            os.unlink(jp)
        p = subprocess.run([RAFALE, "compare", "--json", jp, plan], capture_output=True, text=True, timeout=RUN_TIMEOUT)
        return p, json.load(open(jp))["compare"] if os.path.exists(jp) else None

    serve = "[server ok]\nstart = exec %s serve --listen 127.0.0.1:%d -t 1\nurl = http://127.0.0.1:%d\n" % (
        RAFALE, port, port)
    p, j = run("[server only]\nstart = xxxxxxxx\nurl = http://127.0.0.1:%d\n[workload w]\npath = /\n" % port)
    check(p.returncode == 1 and j is not None and j["failed"][0]["name"] == "only",
          "compare: nothing measured is exit 1, the JSON still written (%s)" % p.returncode)
    p, j = run(serve + "[workload w]\npath = /\nslo = p99<10s\n")
    check(p.returncode == 0 and "SLO met" in p.stdout, "compare: every result valid, SLO met: exit 0 (%s %r)"
          % (p.returncode, p.stderr[-300:]))
    p, j = run(serve + "[workload w]\npath = /delay/20\nrequests = 10\nslo = p99<5ms\n")
    cell = j["workloads"][0]["servers"][0] if j else {}
    check(p.returncode == 3 and "SLO FAILED: p99<5ms FAIL" in p.stdout and cell.get("slo", [{}])[0].get("pass") is False,
          "compare: a workload's SLO failed: exit 3 (%s)" % p.returncode)
    p, j = run(serve + "[workload w]\npath = /status/502\n")
    check(p.returncode == 1 and "not valid" in p.stdout, "compare: a result that is not valid: exit 1 (%s)" % p.returncode)
    # A failing server's output does not flood the report: 5 lines at most, each cut at 200 characters.
    p, j = run("[server long]\nstart = echo %s; exit 3\nurl = http://127.0.0.1:%d\n"
               "[server chatty]\nstart = for i in 1 2 3 4 5 6 7 8; do printf 'line %%s %%0300d\\n' $i 0; done; exit 4\n"
               "url = http://127.0.0.1:%d\n[workload w]\npath = /\n" % ("x" * 100000, port, port))
    lines = p.stdout.splitlines()
    chatty = [l for l in lines if l.startswith("    line ")]
    check(p.returncode == 1 and len(p.stdout) < 6000 and max(len(l) for l in lines) < 230,
          "compare: a 100 KB start line and long output lines stay short in text (%d bytes, longest %d)"
          % (len(p.stdout), max(len(l) for l in lines)))
    check([l.split()[1] for l in chatty] == ["4", "5", "6", "7", "8"] and all(l.endswith("\u2026") for l in chatty),
          "compare: the last 5 lines, each cut with an ellipsis (%s)" % chatty[:6])
    outs = {f["name"]: f["output"] for f in j["failed"]} if j else {}
    check(len(outs.get("long", "")) == 4096 and outs.get("chatty", "").count("\n") == 8,
          "compare: the JSON keeps the last 4 KiB of output (%s)" % {k: len(v) for k, v in outs.items()})


def cgroup2_root():
    for line in open("/proc/self/mountinfo"):
        if " - cgroup2 " in line:
            return line.split()[4]
    return None


def wait_port(port, timeout=10):
    until = time.monotonic() + timeout
    while time.monotonic() < until:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        except OSError:
            time.sleep(0.05)
    return False


def proc_tree(root):
    """root and its descendants, from /proc."""
    parent = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                stat = open("/proc/%s/stat" % d).read()
                parent[int(d)] = int(stat[stat.rindex(")") + 2:].split()[1])
            except (OSError, ValueError):
                pass
    tree, changed = {root}, True
    while changed:
        changed = False
        for pid, pp in parent.items():
            if pp in tree and pid not in tree:
                tree.add(pid)
                changed = True
    return sorted(tree)


def smaps(pid, key):
    for line in open("/proc/%d/smaps_rollup" % pid):
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    return 0


@test
def monitor_pss_of_a_prefork_server():
    port = free_port()
    p = subprocess.Popen([sys.executable, PREFORK, "--port", str(port), "--mb", "48", "--workers", "4"],
                         start_new_session=True)
    try:
        check(wait_port(port), "the prefork test server listens")
        r = rafale("-n", 4000, "-c", 4, "--monitor", p.pid, "http://127.0.0.1:%d/" % port)
        # Ground truth, read now: the block is written once at start and never again.
        pids = proc_tree(p.pid)
        pss = sum(smaps(q, "Pss") for q in pids)
        rss = sum(smaps(q, "Rss") for q in pids)
    finally:
        os.killpg(p.pid, signal.SIGTERM)
        p.wait(timeout=10)
    s = r.j["server"]
    check(len(pids) == 5 and s["has_pss"] is True, "--monitor: a master and 4 workers (%s)" % pids)
    check(abs(s["pss_peak_bytes"] - pss) < 0.15 * pss,
          "--monitor: PSS summed %d within 15%% of smaps_rollup's own sum %d" % (s["pss_peak_bytes"], pss))
    check(s["rss_peak_bytes"] > 3 * s["pss_peak_bytes"] and abs(s["rss_peak_bytes"] - rss) < 0.15 * rss,
          "--monitor: summed RSS (%d) is several times PSS (%d)" % (s["rss_peak_bytes"], s["pss_peak_bytes"]))
    check(s["pss_peak_bytes"] >= 48 << 20 and s["uss_peak_bytes"] < s["pss_peak_bytes"] / 2,
          "--monitor: the 48 MiB block counted once, and it is not private to anyone")
    tree = s["tree"]
    check(len(tree) == 5 and {e["ppid"] for e in tree if e["pid"] != p.pid} == {p.pid} and
          all(e["pss_peak_bytes"] > 0 and e["rss_peak_bytes"] >= 48 << 20 for e in tree),
          "--monitor: one entry per process with its own PSS and RSS (%s)" % tree)
    check(sum(e["cpu_s"] for e in tree) > 0 and s["cpu_s"] > 0, "--monitor: CPU per process")
    rows = [l.split() for l in r.out.splitlines() if "prefork_server.py" in l]
    check(sorted(row[0] for row in rows) == ["1", "4"] and "PSS" in r.out and "RSS summed" in r.out,
          "--monitor: the text groups the master and the 4 workers (%s)" % rows)
    check(s["memory_timeline"] and s["memory_timeline"][0]["pss_bytes"] > 0, "--monitor: memory over time")


@test
def monitor_a_cgroup():
    root = cgroup2_root()
    if root is None or not os.access(root, os.W_OK):
        print("  (no writable cgroup2: --monitor-cgroup not tested)")
        return
    cg = os.path.join(root, "rafale-it-%d" % os.getpid())
    os.makedirs(cg, exist_ok=True)
    port = free_port()
    # The server joins the cgroup before it starts, then leaves its parent's tree (setsid, daemonized).
    p = subprocess.Popen(["sh", "-c", "echo $$ > %s/cgroup.procs && exec %s %s --port %d --daemonize --workers 3" %
                          (cg, sys.executable, PREFORK, port)])
    p.wait(timeout=10)
    try:
        check(wait_port(port), "the daemon listens")
        r = rafale("-n", 3000, "-c", 3, "--monitor-cgroup", cg, "http://127.0.0.1:%d/" % port)
        s = r.j["server"]
        check(s["cgroup"] == cg and s["processes"] == 4 and s["cpu_exact"] is True and s["cpu_s"] > 0 and
              s["pss_peak_bytes"] > 0, "--monitor-cgroup: every process of the cgroup, exact CPU (%s)" %
              {k: s[k] for k in ("processes", "cpu_s", "cpu_exact")})
        check("cgroup " + cg in r.out, "--monitor-cgroup: in the text report")
        bad = rafale("-n", 10, "--monitor-cgroup", "/nonexistent", "http://127.0.0.1:%d/" % port, expect_json=False)
        check(bad.rc == 2 and "is not a readable cgroup v2 directory" in bad.err, "--monitor-cgroup: a bad path")
    finally:
        for pid in open(os.path.join(cg, "cgroup.procs")).read().split():
            try:
                os.kill(int(pid), signal.SIGKILL)
            except OSError:
                pass
        for _ in range(100):
            if not open(os.path.join(cg, "cgroup.procs")).read().strip():
                break
            time.sleep(0.02)
        os.rmdir(cg)


def compare_plan(ports, rec, mark):
    return """# servers that misbehave the ways real ones do
[settings]
repeat = 1
warmup = 0s
ready-timeout = 3s
grace = 1s
connections = 2
requests = 400

[server prefork]
start = exec %(py)s %(pf)s --port %(p0)d --mb 32 --record %(rec)s --marker "%(mark)s-prefork #1"
url = http://127.0.0.1:%(p0)d
ready = /
version = echo prefork v1.2

[server daemon]
start = %(py)s %(pf)s --port %(p1)d --daemonize --workers 2 --marker %(mark)s-daemon
url = http://127.0.0.1:%(p1)d

[server setsid]
start = %(py)s %(pf)s --port %(p2)d --setsid --workers 2 --marker %(mark)s-setsid
url = http://127.0.0.1:%(p2)d

[server broken]
start = %(py)s %(pf)s --port %(p3)d --status 502 --workers 2 --marker %(mark)s-broken
url = http://127.0.0.1:%(p3)d

[server an HTTP/1.0 server whose name is long]
start = %(py)s %(pf)s --port %(p4)d --http10 --workers 2 --marker %(mark)s-http10
url = http://127.0.0.1:%(p4)d

[server leftover]
start = sleep 91.%(p5)d & exit 3
url = http://127.0.0.1:%(p5)d

[server unready]
start = %(py)s %(pf)s --port %(p6)d --status 503 --workers 1 --marker %(mark)s-unready
url = http://127.0.0.1:%(p6)d
ready = /health

[workload hello]
path = /

[workload form]
path = /login
method = POST
header = X-Test: two
content-type = application/x-www-form-urlencoded
body = user=a&pass=b
""" % dict(py=sys.executable, pf=PREFORK, rec=rec, mark=mark, p0=ports[0], p1=ports[1], p2=ports[2], p3=ports[3],
           p4=ports[4], p5=ports[5], p6=ports[6])


def svg_geometry_ok(html):
    """Legends below every plot area, never over a bar or a curve."""
    import re
    bad = []
    for svg in re.findall(r"<svg.*?</svg>", html, re.S):
        plot = re.search(r'class="plot" x="(\d+)" y="(\d+)" width="(\d+)" height="(\d+)"', svg)
        if not plot:
            continue
        x0, y0, w, h = map(float, plot.groups())
        bottom = y0 + h
        keys = [tuple(map(float, m)) for m in re.findall(r'class="legend-key" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"', svg)]
        bars = [tuple(map(float, m)) for m in re.findall(r'class="bar" x="([\d.-]+)" y="([\d.-]+)" width="([\d.]+)" height="([\d.]+)"', svg)]
        pts = [tuple(map(float, p.split(","))) for pl in re.findall(r'class="series"[^>]*points="([^"]*)"', svg)
               for p in pl.split()]
        for kx, ky, kw, kh in keys:
            if ky < bottom + 20:
                bad.append("legend key at y=%s inside or just under the plot (bottom %s)" % (ky, bottom))
            for bx, by, bw, bh in bars:
                if kx < bx + bw and bx < kx + kw and ky < by + bh and by < ky + kh:
                    bad.append("legend key over a bar")
            for px, py in pts:
                if kx <= px <= kx + kw and ky <= py <= ky + kh:
                    bad.append("legend key over a curve")
        for px, py in pts:
            if not (x0 - 1 <= px <= x0 + w + 1 and y0 - 1 <= py <= bottom + 1):
                bad.append("curve point %s,%s outside the plot" % (px, py))
                break
    return bad


@test
def compare_tells_the_truth():
    ports = [free_port() for _ in range(7)]
    rec = os.path.join(TMP, "record.txt")
    mark = "rafale-it-%d" % os.getpid()
    if os.path.exists(rec):
        os.unlink(rec)
    plan = os.path.join(TMP, "truth.conf")
    with open(plan, "w") as f:
        f.write(compare_plan(ports, rec, mark))
    jpath, hpath = os.path.join(TMP, "truth.json"), os.path.join(TMP, "truth.html")
    p = subprocess.Popen([RAFALE, "compare", "--json", jpath, "--html", hpath, plan], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    out, err = p.communicate(timeout=RUN_TIMEOUT)
    check(p.returncode == 1 and "Sanitizer" not in err,
          "truth: exit 1, a server failed and a result is not valid (%s %s)" % (p.returncode, err[-600:]))
    cg = cgroup2_root()
    left = serve_pids(mark) + serve_pids("sleep 91.%d" % ports[5])
    check(not left, "truth: nothing left running, daemons and setsid'd servers included (%s)" % left)
    if cg:
        mine = [d for d in os.listdir(cg) if d.startswith("rafale-%d-" % p.pid)]
        check(not mine, "truth: every cgroup removed (%s)" % mine)
    j = json.load(open(jpath))["compare"]
    check(j["cgroups"] is (cg is not None), "truth: servers ran in cgroups where cgroup2 exists")
    cells = {w["name"]: {s["name"]: s for s in w["servers"]} for w in j["workloads"]}
    hello, form = cells["hello"], cells["form"]
    for name in ("prefork", "daemon", "setsid"):
        c = hello[name]
        check(c["valid"] and c["requests"] == 400 and c["status"] == {"200": 400} and len(c["run_results"]) == 1,
              "truth: %s ran and is valid (%s)" % (name, {k: c[k] for k in ("valid", "requests", "status")}))
        srv = c["run_results"][0].get("server", {})
        check(srv.get("processes", 0) >= 3 and srv.get("cpu_s", 0) > 0 and c["server_cpu_us_per_request"] > 0,
              "truth: %s monitored, all its processes (%s)" % (name, {k: srv.get(k) for k in ("processes", "cpu_s")}))
        if cg:
            check(srv.get("cgroup", "").startswith(cg) and srv.get("cpu_exact") is True,
                  "truth: %s followed through its cgroup" % name)
    b = hello["broken"]
    check(b["valid"] is False and b["ratio_to_best"] == 0 and b["bad_status_pct"] == 100 and b["status"] == {"502": 400},
          "truth: a server answering 502 is not a valid result (%s)" % {k: b[k] for k in ("valid", "ratio_to_best")})
    best = max(c["rps_median"] for n, c in hello.items() if c["valid"])
    check(all(c["ratio_to_best"] == 0 or abs(c["ratio_to_best"] - best / c["rps_median"]) < 0.01
              for c in hello.values() if c["runs"]), "truth: 'vs best' among valid results only")
    h = hello["an HTTP/1.0 server whose name is long"]
    check(h["keepalive_refused"] is True and h["connections_per_request"] > 0.95 and h["valid"],
          "truth: HTTP/1.0 on a keep-alive workload is flagged (%s)" % h["connections_per_request"])
    check(hello["prefork"]["memory_kind"] == "pss" and hello["prefork"]["memory_peak_bytes"] >= 32 << 20,
          "truth: memory is PSS, the shared block counted once")
    rs = hello["prefork"]["run_results"][0]["server"]
    check(rs["rss_peak_bytes"] > 2 * rs["pss_peak_bytes"] and len(rs["tree"]) == 5, "truth: per-process entries, RSS overstates")
    failed = {f["name"]: f["reason"] for f in j["failed"]}
    check(set(failed) == {"leftover", "unready"}, "truth: two servers failed (%s)" % failed)
    check("exited with status 3" in failed.get("leftover", ""), "truth: the leftover's status")
    check("never answered GET /health with an expected status (got status 503" in failed.get("unready", ""),
          "truth: the ready probe wants a good status (%s)" % failed.get("unready"))
    check([s["version"] for s in j["servers"]][0] == "prefork v1.2" and "prefork v1.2" in out, "truth: version line")
    lines = open(rec).read().splitlines()
    check(lines.count("POST /login two user=a&pass=b") == 400 and lines.count("GET / - -") >= 401,
          "truth: the POST workload reached the server with its method, header and body (%d)" %
          lines.count("POST /login two user=a&pass=b"))
    check(form["prefork"]["run_results"][0]["config"]["method"] == "POST", "truth: run config in JSON")
    check("not a valid result" in out and "keep-alive refused by the server (HTTP/1.0 without keep-alive)" in out,
          "truth: the text says so")
    hdr = [l for l in out.splitlines() if l.startswith("  server ")]
    row = [l for l in out.splitlines() if l.startswith("  an HTTP/1.0 server whose name is long ")]
    if check(hdr and row, "truth: the table has the long name whole"):
        i, k = hdr[0].index("vs best"), hdr[0].index("req/s") + 4
        check(row[0][i - 2:i] == "  " and row[0][i] != " " and row[0][k].isdigit() and row[0][k + 1] == " ",
              "truth: a long name keeps the columns aligned:\n%s\n%s" % (hdr[0], row[0]))
    # rafale report: the same tables from the saved JSON, and the HTML again.
    again = os.path.join(TMP, "truth-again.html")
    p2 = subprocess.run([RAFALE, "report", "--html", again, jpath], capture_output=True, text=True, timeout=60)
    tabl = lambda text: [l for l in text.splitlines() if l.startswith("  ") and ("x slower" in l or "1.00" in l or
                                                                                "not valid" in l)]
    check(p2.returncode == 0 and tabl(p2.stdout) == tabl(out) and tabl(out),
          "report: a compare JSON gives the same tables (%s / %s)" % (tabl(p2.stdout)[:2], tabl(out)[:2]))
    html = open(hpath).read()
    check("Workloads" in html and "user=a" not in html and "X-Test: two" in html and "prefork v1.2" in html and
          "--port %d" % ports[0] in html, "truth: the HTML states the workloads and start commands")
    check("Server memory (PSS) over time" in html and "Latency: hello" in html and html.count("<svg") >= 9,
          "truth: memory over time and per-workload latency charts")
    bad = svg_geometry_ok(html) + svg_geometry_ok(open(again).read())
    check(not bad, "truth: legends never cover bars or curves (%s)" % bad[:3])


@test
def compare_without_cgroups_stops_the_group():
    port = free_port()
    plan = os.path.join(TMP, "nocg.conf")
    with open(plan, "w") as f:
        f.write("[settings]\ncgroups = no\nrepeat = 1\nready-timeout = 2s\ngrace = 1s\n[server leftover]\n"
                "start = sleep 92.%d & exit 3\nurl = http://127.0.0.1:%d\n[server ok]\n"
                "start = exec %s serve --listen 127.0.0.1:%d -t 1\nurl = http://127.0.0.1:%d\n"
                "[workload w]\nrequests = 200\nconnections = 2\nwarmup = 0s\n" % (port, port, RAFALE, port, port))
    p = subprocess.run([RAFALE, "compare", "--json", os.path.join(TMP, "nocg.json"), plan], capture_output=True,
                       text=True, timeout=RUN_TIMEOUT)
    j = json.load(open(os.path.join(TMP, "nocg.json")))["compare"]
    check(p.returncode == 1 and j["cgroups"] is False and "process groups" in p.stdout,
          "cgroups = no: process groups, and the report says what that means (%s)" % p.stdout[-300:])
    check(not serve_pids("sleep 92.%d" % port), "cgroups = no: a leader that exits does not leave its group behind")
    check(j["workloads"][0]["servers"][1]["requests"] == 200, "cgroups = no: the other server ran")


@test
def compare_interrupted():
    port = free_port()
    plan = os.path.join(TMP, "plan2.conf")
    with open(plan, "w") as f:
        f.write("[settings]\nrepeat = 5\nwarmup = 0s\n[server a]\nstart = %s serve --listen 127.0.0.1:%d -t 1\n"
                "url = http://127.0.0.1:%d\n[workload w]\nduration = 30s\nconnections = 2\n" % (RAFALE, port, port))
    p = subprocess.Popen([RAFALE, "compare", plan], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = interrupt_after(p, 1.5)
    check(p.returncode == 130 and "Interrupted" in out, "compare: Ctrl-C ends with a report (%s)" % p.returncode)
    check(not serve_pids("127.0.0.1:%d" % port), "compare: Ctrl-C leaves no server behind")
    # Interrupted while a server is still starting: said as such, not "never answered within 15 s".
    with open(plan, "w") as f:
        f.write("[settings]\nready-timeout = 15s\n[server slow]\nstart = sleep 95.%d\nurl = http://127.0.0.1:%d\n"
                "[workload w]\nrequests = 10\n" % (port, port))
    p = subprocess.Popen([RAFALE, "compare", plan], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = interrupt_after(p, 0.7)
    check(p.returncode == 130 and "interrupted while waiting for it to answer" in out and "never answered" not in out,
          "compare: interrupted during start-up says so (%r)" % out[-300:])
    check(not serve_pids("sleep 95.%d" % port), "compare: and stops the server it was waiting for")
    # Two servers, interrupted while the first starts: the second was never started, so nothing may be
    # stopped in its name (a stop of pid 0 would be a SIGKILL to rafale's own process group). A bystander
    # shares rafale's group here and must survive it.
    with open(plan, "w") as f:
        f.write("[settings]\nready-timeout = 15s\n[server slow]\nstart = sleep 96.%d\nurl = http://127.0.0.1:%d\n"
                "[server never]\nstart = sleep 98.%d\nurl = http://127.0.0.1:%d\n[workload w]\nrequests = 10\n"
                % (port, port, port, port))
    p = subprocess.Popen(["sh", "-c", 'sleep 97.%d >/dev/null 2>&1 & exec "$0" compare "$1"' % port, RAFALE, plan],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    out, err = interrupt_after(p, 0.7)
    bystander = serve_pids("sleep 97.%d" % port)
    check(p.returncode == 130 and "interrupted" in out, "compare: two servers, interrupted while the first starts "
          "(exit %s, %r)" % (p.returncode, (out + err)[-300:]))
    check(bystander, "compare: a process of rafale's own group survives the cleanup")
    check(not serve_pids("sleep 96.%d" % port) and not serve_pids("sleep 98.%d" % port),
          "compare: the started server is stopped, the other was never started")
    for pid in bystander:
        os.kill(int(pid), signal.SIGKILL)


# --- TLS ----------------------------------------------------------------------------

def make_certs():
    """A throw-away CA and a certificate for localhost / 127.0.0.1 / ::1."""
    d = os.path.join(TMP, "tls")
    if os.path.exists(os.path.join(d, "srv.pem")):
        return d
    os.makedirs(d, exist_ok=True)
    def ossl(*a):
        subprocess.run(["openssl"] + list(a), cwd=d, check=True, capture_output=True)
    ossl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
         "-subj", "/CN=rafale test CA")
    ossl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "srv.key", "-out", "srv.csr", "-subj", "/CN=localhost")
    with open(os.path.join(d, "ext.cnf"), "w") as f:
        f.write("subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\n")
    ossl("x509", "-req", "-in", "srv.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "srv.pem",
         "-days", "2", "-extfile", "ext.cnf")
    return d


@test
def tls_verified_insecure_and_untrusted():
    d = make_certs()
    ca = os.path.join(d, "ca.pem")
    srv = Serve("--tls-cert", os.path.join(d, "srv.pem"), "--tls-key", os.path.join(d, "srv.key"))
    url = "https://localhost:%d/" % srv.port
    r = rafale("-n", 500, "-c", 4, "-t", 2, "--cacert", ca, url, "https://localhost:%d/json" % srv.port)
    j = r.j
    check(j["summary"]["requests"] == 500 and err_total(j) == 0 and j["status"] == {"200": 500},
          "https with a test CA, verified")
    check(j["tls"]["full"] + j["tls"]["resumed"] == 4 and j["tls_handshake"]["count"] == 4,
          "one TLS handshake per keep-alive connection (%s)" % j["tls"])
    check("tls " in r.out and "TLS " in r.out, "text report shows the TLS handshake")
    r = rafale("-n", 50, "-c", 2, "--insecure", "https://127.0.0.1:%d/" % srv.port)
    check(r.j["summary"]["requests"] == 50 and err_total(r.j) == 0, "--insecure against an untrusted certificate")
    r = rafale("-n", 20, "-c", 2, url)
    check(r.j["errors"]["tls"] == 20 and r.j["summary"]["requests"] == 0, "untrusted certificate: 20 tls errors")
    check("unable to get local issuer certificate" in r.out, "the OpenSSL reason is shown (%s)" %
          r.j.get("error_details"))
    for v in ("1.2", "1.3"):
        r = rafale("-n", 100, "-c", 2, "--tls-version", v, "--cacert", ca, url)
        check(r.j["summary"]["requests"] == 100 and err_total(r.j) == 0, "TLS %s" % v)
    r = rafale("-n", 200, "-c", 2, "--pipeline", 8, "--cacert", ca, url)
    check(r.j["summary"]["requests"] == 200 and err_total(r.j) == 0, "pipelining over TLS")
    conns, reqs = srv.stop()
    check(reqs == 500 + 50 + 100 + 100 + 200, "serve over TLS answered every request (%s)" % reqs)


@test
def tls_resumption():
    d = make_certs()
    ca = os.path.join(d, "ca.pem")
    srv = Serve("--tls-cert", os.path.join(d, "srv.pem"), "--tls-key", os.path.join(d, "srv.key"))
    url = "https://localhost:%d/" % srv.port
    for v in ("1.2", "1.3"):
        r = rafale("-n", 100, "-c", 2, "--close", "--tls-version", v, "--cacert", ca, url)
        t = r.j["tls"]
        check(r.j["summary"]["requests"] == 100 and t["full"] + t["resumed"] == 100 and t["resumed"] > 50,
              "TLS %s --close: sessions resumed (%s)" % (v, t))
    r = rafale("-n", 100, "-c", 2, "--close", "--no-tls-resume", "--cacert", ca, url)
    check(r.j["tls"] == {"full": 100, "resumed": 0}, "--no-tls-resume: every handshake full (%s)" % r.j["tls"])
    srv.stop()


@test
def tls_server_drops_mid_handshake():
    bad = BadServer("tlsdrop")
    r = rafale("-n", 10, "-c", 2, "--insecure", "https://127.0.0.1:%d/" % bad.port)
    bad.stop()
    check(r.j["errors"]["tls"] == 10 and err_total(r.j) == 10, "dropped handshake: tls errors (%s)" % r.j["errors"])
    p = subprocess.run([RAFALE, "--tls-version", "1.1", "https://127.0.0.1/"], capture_output=True, text=True)
    check(p.returncode == 2 and "--tls-version wants" in p.stderr, "bad --tls-version")
    p = subprocess.run([RAFALE, "serve", "--tls-cert", "/nonexistent.pem", "--tls-key", "/nonexistent.key"],
                       capture_output=True, text=True, timeout=10)
    check(p.returncode == 1 and "cannot use the certificate" in p.stderr, "serve: bad certificate file")


# --- against broken servers ---------------------------------------------------

@test
def connection_refused():
    r = rafale("-n", 50, "-c", 5, "http://127.0.0.1:%d/" % free_port())
    j = r.j
    check(j is not None and j["errors"]["connect_refused"] == 50, "refused: 50 connect_refused")
    check(j is not None and j["summary"]["requests"] == 0 and accounted(j), "refused: accounted")
    check("connect_refused" in r.out and "nothing accepted" in r.out, "refused: explained")
    r = rafale("-d", "300ms", "-c", 2, "http://127.0.0.1:%d/" % free_port())
    check(r.j is not None and r.j["errors"]["connect_refused"] > 0 and accounted(r.j),
          "refused with -d: ends on time, errors counted")


@test
def server_resets():
    bad = BadServer("reset")
    r = rafale("-n", 40, "-c", 4, bad.url())
    bad.stop()
    j = r.j
    check(j["errors"]["reset"] == 40, "reset: 40 resets (%s)" % j["errors"])
    check(bad.accepted == 40 and bad.requests == 40, "reset: the server saw 40 requests on 40 connections")
    check(accounted(j), "reset: accounted")


@test
def short_body_then_close():
    bad = BadServer("short")
    r = rafale("-n", 30, "-c", 3, bad.url())
    bad.stop()
    check(r.j["errors"]["closed_early"] == 30 and r.j["summary"]["requests"] == 0,
          "short body: 30 closed_early (%s)" % r.j["errors"])
    check(bad.requests == 30, "short body: server saw 30 requests")


@test
def garbage_response():
    bad = BadServer("garbage")
    r = rafale("-n", 20, "-c", 2, bad.url())
    bad.stop()
    check(r.j["errors"]["malformed"] == 20, "garbage: 20 malformed (%s)" % r.j["errors"])
    check("malformed" in r.out and "bad status line" in r.out, "garbage: the parser's reason is shown")


@test
def silent_server_times_out():
    bad = BadServer("silent")
    r = rafale("-n", 6, "-c", 3, "--timeout", "200ms", bad.url())
    bad.stop()
    check(r.j["errors"]["timeout"] == 6 and r.j["latency"]["count"] == 6, "silent: 6 timeouts, in latency")
    check(r.j["latency"]["min_us"] >= 200000, "silent: recorded at the timeout")


@test
def dripping_server():
    bad = BadServer("drip")
    r = rafale("-n", 6, "-c", 2, bad.url())
    bad.stop()
    n = len(BadServer.RESPONSE)
    check(r.j["summary"]["requests"] == 6 and err_total(r.j) == 0, "drip: byte-by-byte responses complete")
    check(r.j["latency"]["min_us"] >= (n - 1) * 2000, "drip: latency covers the whole response")
    check(r.j["ttfb"]["max_us"] < r.j["latency"]["min_us"], "drip: first byte well before the last")


@test
def server_closes_at_once():
    bad = BadServer("closenow")
    r = rafale("-n", 20, "-c", 2, bad.url())
    bad.stop()
    e = r.j["errors"]
    check(e["closed_early"] + e["reset"] + e["write"] == 20 and r.j["summary"]["requests"] == 0,
          "close at accept: 20 errors as closed_early/reset/write (%s)" % e)


@test
def extra_bytes_http10_trailers_interim():
    bad = BadServer("extra")
    r = rafale("-n", 20, "-c", 2, bad.url())
    bad.stop()
    check(r.j["summary"]["requests"] == 20 and err_total(r.j) == 0, "junk after a response: response counts")
    check(bad.accepted == 20, "junk after a response: connection replaced (%d)" % bad.accepted)
    bad = BadServer("http10")
    r = rafale("-n", 20, "-c", 2, bad.url())
    bad.stop()
    check(r.j["summary"]["requests"] == 20 and err_total(r.j) == 0, "HTTP/1.0 body until close")
    check(bad.accepted == 20, "HTTP/1.0: one connection per request")
    bad = BadServer("chunked-trailer")
    r = rafale("-n", 30, "-c", 3, bad.url())
    bad.stop()
    check(r.j["summary"]["requests"] == 30 and err_total(r.j) == 0 and bad.accepted == 3,
          "chunked with extension and trailer, kept alive")
    bad = BadServer("continue")
    r = rafale("-n", 30, "-c", 3, bad.url())
    bad.stop()
    check(r.j["status"] == {"200": 30} and bad.accepted == 3, "100 Continue then 200")


@test
def backlog_full_connect_timeout():
    bad = BadServer("noaccept", backlog=0)
    r = rafale("-n", 12, "-c", 12, "--connect-timeout", "300ms", "--timeout", "600ms", bad.url())
    bad.stop()
    e = r.j["errors"]
    check(e["connect_timeout"] >= 1 and e["connect_timeout"] + e["timeout"] == 12,
          "never accepting: connect_timeout and timeout only (%s)" % e)
    check(r.j["summary"]["requests"] == 0 and accounted(r.j), "never accepting: accounted")


@test
def sigint_gives_partial_report():
    srv = Serve()
    jpath = os.path.join(TMP, "sig.json")
    p = subprocess.Popen([RAFALE, "-q", "-d", "60s", "-c", "4", "--json", jpath, srv.url("/delay/10")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = interrupt_after(p, 1.0, timeout=20)
    srv.stop()
    check(p.returncode == 130, "SIGINT: exit 130 (%s)" % p.returncode)
    check("Interrupted" in out and "Requests" in out, "SIGINT: the report is printed")
    try:
        j = json.load(open(jpath))
    except (OSError, ValueError):
        j = None
    check(j is not None and j["interrupted"] is True and accounted(j) and j["summary"]["requests"] > 10,
          "SIGINT: JSON written, accounted")
    check(j is not None and j["summary"]["elapsed_s"] < 10, "SIGINT: elapsed covers the run until the signal")


# --- bad input -------------------------------------------------------------------

@test
def bad_input_one_line_errors():
    port = free_port()
    cases = [
        (["--bogus", "http://127.0.0.1/"], "unknown option"),
        (["-c", "0", "http://127.0.0.1/"], "-c wants"),
        (["-n", "0", "http://127.0.0.1/"], "-n wants"),
        (["-n", "abc", "http://127.0.0.1/"], "-n wants"),
        (["-d", "10parsecs", "http://127.0.0.1/"], "-d wants"),
        (["-t", "0", "http://127.0.0.1/"], "-t wants"),
        (["--timeout", "0", "http://127.0.0.1/"], "--timeout wants"),
        (["-H", "NoColon", "http://127.0.0.1/"], "-H wants"),
        (["-m", "GE T", "http://127.0.0.1/"], "-m wants"),
        (["http://127.0.0.1:99999/"], "bad port"),
        (["http://127.0.0.1:0/"], "bad port"),
        (["--cacert", "/nonexistent/ca.pem", "https://127.0.0.1/"], "--cacert: cannot read"),
        (["gopher://127.0.0.1/"], "unsupported scheme"),
        (["http:///nohost"], "no host"),
        (["-n", "5"], "no URL"),
        (["-c"], "needs a value"),
        (["--body-file", "/nonexistent/file", "http://127.0.0.1/"], "cannot read body file"),
        (["-n", "1", "http://no-such-host.invalid:%d/" % port], "cannot resolve host"),
        (["-R", "0", "http://127.0.0.1/"], "-R wants"),
        (["-R", "fast", "http://127.0.0.1/"], "-R wants"),
        (["-R", "1e-300", "http://127.0.0.1/"], "-R wants a rate from 0.001 to 100000000 per second, not '1e-300'"),
        (["--rate", "1e-300", "--csv", "/dev/null", "http://127.0.0.1/"], "--rate wants a rate from 0.001"),
        (["-R", "2e8", "http://127.0.0.1/"], "-R wants a rate from 0.001"),
        (["--stages", "10s:1e-300", "http://127.0.0.1/"], "each rate 0 or from 0.001"),
        (["--stages", "10s:2.5c", "http://127.0.0.1/"], "--stages wants"),
        (["--arrival", "bursty", "http://127.0.0.1/"], "--arrival wants"),
        (["--pipeline", "0", "http://127.0.0.1/"], "--pipeline wants"),
        (["--pipeline", "4", "--close", "http://127.0.0.1/"], "cannot go with --close"),
        (["--source", "nonsense", "http://127.0.0.1/"], "--source wants"),
        (["--warmup", "x", "http://127.0.0.1/"], "--warmup wants"),
        (["--max-connections", "20", "http://127.0.0.1/"], "--max-connections goes with -R"),
        (["--monitor", "abc", "http://127.0.0.1/"], "--monitor wants"),
        (["-R", "10", "-c", "5", "--max-connections", "2", "http://127.0.0.1/"], "is below -c"),
    ]
    for args, needle in cases:
        r = rafale(*args, expect_json=False, timeout=30)
        lines = [l for l in r.err.splitlines() if l.strip()]
        check(r.rc in (1, 2) and len(lines) == 1 and needle in lines[0] and lines[0].startswith("rafale:"),
              "bad input %s -> one line with '%s' (rc=%s, stderr=%r)" % (args, needle, r.rc, r.err))


@test
def n_below_c_lowers_c():
    srv = Serve()
    r = rafale("-n", 3, "-c", 10, srv.url())
    conns, _ = srv.stop()
    check(r.rc == 0 and r.j["summary"]["requests"] == 3 and r.j["config"]["connections"] == 3,
          "-n 3 -c 10 runs with 3 connections")
    check("using 3 connections" in r.err, "and says so")
    check(conns == 3, "server saw 3 connections")


@test
def fd_limit_too_low():
    def low():
        resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
    r = rafale("-n", 1000, "-c", 500, "http://127.0.0.1:%d/" % free_port(), expect_json=False, preexec=low)
    lines = [l for l in r.err.splitlines() if l.strip()]
    check(r.rc == 2 and len(lines) == 1 and "ulimit -n" in lines[0], "fd limit: clear error (%r)" % r.err)


@test
def help_and_version():
    p = subprocess.run([RAFALE, "--help"], capture_output=True, text=True)
    check(p.returncode == 0 and "--close" in p.stdout and "-n, --requests" in p.stdout, "--help")
    p = subprocess.run([RAFALE, "--version"], capture_output=True, text=True)
    check(p.returncode == 0 and p.stdout.startswith("rafale "), "--version")
    p = subprocess.run([RAFALE, "serve", "--nope"], capture_output=True, text=True)
    check(p.returncode == 2 and "unknown option" in p.stderr, "serve: unknown option")
    p = subprocess.run([RAFALE, "serve", "--listen", "nonsense"], capture_output=True, text=True)
    check(p.returncode == 1 and "--listen wants" in p.stderr, "serve: bad --listen")


# --- HTTP/2 ------------------------------------------------------------------------

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
    check(abs(j["summary"]["started"] - 400) <= 4 and err_total(j) == 0, "h2 -R 400 for 1 s: 400 requests sent (%d)"
          % j["summary"]["started"])
    check(20000 <= j["latency"]["percentiles_us"]["50"] <= 25000, "h2 -R: latency of /delay/20 measured per stream")
    # A due request takes any free stream: 1000 req/s of /delay/5 need 5 streams of one connection at once.
    r = rafale("--http2", "-R", 1000, "-d", "1s", "-c", 1, "--streams", 10, "-t", 1, srv.url("/delay/5"))
    j = r.j
    check(abs(j["summary"]["started"] - 1000) <= 10 and j["rate"]["queued"] == 0 and
          j["summary"]["connections_opened"] == 1 and j["latency"]["percentiles_us"]["99"] < 50000,
          "h2 -R 1000 on one connection of 10 streams: every request sent when due (%d started, p99 %.0f us)"
          % (j["summary"]["started"], j["latency"]["percentiles_us"]["99"]))
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
    check(r.j["errors"]["timeout"] == 8 and r.j["summary"]["requests"] == 0, "h2: --timeout per stream")
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
    bad = H2BadServer("garbage")
    r = rafale("--http2", "-n", 4, "-c", 2, "-t", 1, bad.url())
    bad.stop()
    check(r.j["errors"]["h2_protocol"] == 4 and r.j["summary"]["requests"] == 0, "h2: garbage instead of frames")
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
    # A server that speaks only HTTP/1.1: one clear line, no report.
    bad = BadServer("h1only")
    p = subprocess.run([RAFALE, "--http2", "-n", "5", bad.url()], capture_output=True, text=True, timeout=RUN_TIMEOUT)
    bad.stop()
    check(p.returncode == 1 and "does not speak HTTP/2" in p.stderr and len(p.stderr.strip().splitlines()) == 1,
          "h2 against HTTP/1.1 only: one line (%r)" % p.stderr)


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
    check(open(html).read().count("<svg") == 4 and len(open(csvp).read().splitlines()) == 102 and
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
    check("HTTP/2 x 4 streams" in p.stdout and "HTTP/2 &times; 4 streams" in open(hpath).read(),
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


# --- workloads: targets files, templates, cookies, Unix sockets -------------------

def targets_file(name, text, files=()):
    d = os.path.join(TMP, "targets")
    os.makedirs(d, exist_ok=True)
    for fname, data in files:
        with open(os.path.join(d, fname), "wb") as f:
            f.write(data)
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write(text)
    return path


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


# --- hostile input: values that would smuggle, cookies, files ---------------------

def run_raw(args, env=None, stdin=None, timeout=RUN_TIMEOUT):
    """rafale with args; (rc, stdout, stderr), a sanitizer report failing the test."""
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.run([RAFALE] + [str(a) for a in args], capture_output=True, text=True, timeout=timeout, env=e,
                       input=stdin)
    if "runtime error" in p.stderr or "AddressSanitizer" in p.stderr:
        check(False, "sanitizer report for %s:\n%s" % (args, p.stderr[:3000]))
    return p.returncode, p.stdout, p.stderr


def one_line(err, needle):
    lines = [l for l in err.splitlines() if l.strip()]
    return len(lines) == 1 and needle in lines[0]


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
def many_targets_linear_and_bounded():
    # 100 000 distinct targets: read in linear time (CPU, not wall clock: 10x the targets must not cost 50x) and,
    # per-target figures bounded (200 rows and one for the others), in under 100 MB.
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
        check(ru2.ru_maxrss < 100 * 1024, "100 000 targets in %d MB" % (ru2.ru_maxrss >> 10))
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
    # HTTP/2's limits of a templated request are the file's mistakes too.
    big = "x" * 12000
    p = targets_file("h2big.txt", "GET http://127.0.0.1:1/\nX-Big: %s{{seq}}\n" % big)
    rc, _, err = run_raw(["--targets", p, "-n", 1, "--http2"])
    check(rc == 2 and one_line(err, p + ":1: a templated header value may reach"), "h2 value limit: %s %r" % (rc, err))
    p = targets_file("h2many.txt", "GET http://127.0.0.1:1/\n" + "".join("X-F%d: {{seq}}\n" % i for i in range(70)))
    rc, _, err = run_raw(["--targets", p, "-n", 1, "--http2"])
    check(rc == 2 and one_line(err, p + ":1: more than 64 header fields"), "h2 field limit: %s %r" % (rc, err))
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


# --- shards: one run spread over several processes ---------------------------------

def run_shards(n, args, url, tag, start_in=1.0, extra=lambda i: []):
    """Starts n shards of one run together (--shard i/n, a common --start-at); returns their JSON paths and
    processes' results (rc, stdout, stderr)."""
    at = time.time() + start_in
    procs, paths = [], []
    for i in range(n):
        jp = os.path.join(TMP, "%s-%d.json" % (tag, i))
        if os.path.exists(jp):
            os.unlink(jp)
        paths.append(jp)
        procs.append(subprocess.Popen([RAFALE, "-q", "--shard", "%d/%d" % (i, n), "--start-at", "%.3f" % at,
                                       "--json", jp] + [str(a) for a in args] + extra(i) + ([url] if url else []),
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    outs = []
    for p in procs:
        try:
            o, e = p.communicate(timeout=RUN_TIMEOUT)
        except subprocess.TimeoutExpired:
            p.kill()
            o, e = p.communicate()
            check(False, "a shard hung")
        outs.append((p.returncode, o, e))
        if "runtime error" in e or "Sanitizer" in e:
            check(False, "sanitizer report from a shard:\n" + e[:3000])
    return paths, outs


def merge(*args):
    p = subprocess.run([RAFALE, "merge"] + [str(a) for a in args], capture_output=True, text=True, timeout=60)
    if "runtime error" in p.stderr or "Sanitizer" in p.stderr:
        check(False, "sanitizer report from rafale merge:\n" + p.stderr[:3000])
    return p


def union_hist(hists):
    """The histogram of the union of samples: bucket counts added by bucket bound."""
    u = {}
    for h in hists:
        for ub, n in h["histogram"]:
            u[ub] = u.get(ub, 0) + n
    return sorted(u.items())


def pct_in_bucket(hist_list, total, p, value):
    """value lies in the bucket where the p-th percentile of hist_list falls (rafale reports a bucket's
    midpoint, clamped to min and max): above the previous non-empty bucket's bound, at most this one's."""
    rank = max(1, math.ceil(p / 100.0 * total))
    seen, prev = 0, 0.0
    for ub, n in hist_list:
        seen += n
        if seen >= rank:
            return prev - 0.0015 <= value <= ub + 0.0015
        prev = ub
    return False


@test
def shards_merge_exactly():
    srv = Serve(threads=2)
    paths, outs = run_shards(3, ["-t", 1, "-c", 7, "-n", 3001], srv.url("/"), "sh")
    mj, mh = os.path.join(TMP, "merged.json"), os.path.join(TMP, "merged.html")
    m = merge("--json", mj, "--html", mh, *paths)
    conns, reqs = srv.stop()
    check(all(rc == 0 for rc, _, _ in outs), "3 shards ran: %s" % [e[-300:] for _, _, e in outs])
    js = [json.load(open(p)) for p in paths]
    check([j["summary"]["requests"] for j in js] == [1001, 1000, 1000] and
          [j["summary"]["connections_opened"] for j in js] == [3, 2, 2],
          "-n 3001 -c 7 split exactly over 3 shards (remainders first): %s" %
          [(j["summary"]["requests"], j["summary"]["connections_opened"]) for j in js])
    check([j["shard"]["index"] for j in js] == [0, 1, 2] and all(j["shard"]["count"] == 3 for j in js),
          "each shard's JSON says which it is")
    check(m.returncode == 0 and os.path.exists(mj), "rafale merge ran: " + m.stderr[-500:])
    if not os.path.exists(mj):
        return
    mg = json.load(open(mj))
    check(mg["summary"]["requests"] == 3001 == reqs, "merged count %s equals -n and the server's own count %s"
          % (mg["summary"]["requests"], reqs))
    check(accounted(mg) and mg["summary"]["errors"] == 0, "merged: started = completed + errors + in flight")
    lat = mg["latency"]
    check(lat["count"] == sum(j["latency"]["count"] for j in js) == 3001, "merged histogram count is the sum")
    u = union_hist([j["latency"] for j in js])
    check([tuple(x) for x in lat["histogram"]] == u, "merged histogram is the union of the shards', bucket by bucket")
    for k in ("50", "90", "99", "99.9"):
        check(pct_in_bucket(u, 3001, float(k), lat["percentiles_us"][k]),
              "merged p%s %.3f us is the union's p%s, not an average" % (k, lat["percentiles_us"][k], k))
    check(abs(lat["max_us"] - max(j["latency"]["max_us"] for j in js)) < 0.002 and
          abs(lat["min_us"] - min(j["latency"]["min_us"] for j in js)) < 0.002, "merged min and max")
    check(sum(t["requests"] for t in mg["timeline"]) == 3001, "merged timeline adds up to the total")
    check(len(mg["shards"]) == 3 and [s["requests"] for s in mg["shards"]] == [1001, 1000, 1000],
          "per-shard table in the merged JSON")
    check("Merged from 3 shards" in m.stdout and "Shard  host" in m.stdout, "merge prints the report and the shards")
    check(os.path.exists(mh) and "<svg" in open(mh).read(), "merge --html writes the report with its charts")
    rep = subprocess.run([RAFALE, "report", mj], capture_output=True, text=True, timeout=60)
    check(rep.returncode == 0 and "Merged from 3 shards" in rep.stdout and "3001 completed" in rep.stdout,
          "rafale report reads a merged result: " + rep.stderr[-300:])
    # Refusals: a shard missing, one given twice, another workload, not a shard at all.
    m2 = merge(paths[0], paths[1])
    check(m2.returncode == 1 and "3 shards and 2 results" in m2.stderr, "a missing shard refused: " + m2.stderr)
    m3 = merge(paths[0], paths[0], paths[1])
    check(m3.returncode == 1 and "given twice" in m3.stderr, "a shard given twice refused: " + m3.stderr)
    srv = Serve()
    other, _ = run_shards(3, ["-t", 1, "-c", 6, "-n", 300], srv.url("/"), "other", start_in=0.2)
    single = rafale("-n", 50, srv.url("/"))
    srv.stop()
    m4 = merge(paths[0], paths[1], other[2])
    check(m4.returncode == 1 and "not shards of the same workload" in m4.stderr and "'urls'" in m4.stderr,
          "shards of another workload refused, the difference named: " + m4.stderr)
    jp = os.path.join(TMP, "single.json")
    json.dump(single.j, open(jp, "w"))
    m5 = merge(jp)
    check(m5.returncode == 1 and "not a shard's result" in m5.stderr, "a plain run is not a shard: " + m5.stderr)


@test
def merge_bad_input():
    # rafale merge on bad input: one line each, never a crash; usage mistakes exit 2.
    srv = Serve()
    paths, outs = run_shards(2, ["-t", 1, "-c", 2, "-n", 20], srv.url("/"), "bad", start_in=0.2)
    srv.stop()
    junk = os.path.join(TMP, "junk.json")
    with open(junk, "w") as f:
        f.write("{not json")
    j = json.load(open(paths[1]))
    j["shard"]["index"] = 5
    tampered = os.path.join(TMP, "tampered.json")
    json.dump(j, open(tampered, "w"))
    for args, rc, words in ((["--bogus", paths[0]], 2, "unknown option '--bogus'"),
                            ([], 2, "no shard results given"),
                            ([paths[0], junk], 1, "not JSON"),
                            ([paths[0], os.path.join(TMP, "absent.json")], 1, "absent.json"),
                            ([paths[0], tampered], 1, "shard.index: 5 is not below the count 2")):
        m = merge(*args)
        check(m.returncode == rc and words in m.stderr and len(m.stderr.strip().splitlines()) == 1,
              "rafale merge %s: exit %d, one line with %r: %r" % (" ".join(args[:1]), rc, words, m.stderr))


@test
def merge_hostile_shards():
    # Saved shards are untrusted: starts that wrap a 32-bit offset or lie far apart, a timeline that does not add up.
    srv = Serve()
    paths, outs = run_shards(3, ["-t", 1, "-c", 3, "-n", 30], srv.url("/"), "hostile", start_in=0.2)
    srv.stop()
    orig = [json.load(open(p)) for p in paths]

    def tampered(tag, starts=None, scale=None):
        out = []
        for i, j in enumerate(orig):
            j = json.loads(json.dumps(j))
            if starts is not None:
                j["start_unix_s"] = starts[i]
                j["shard"]["start_unix_s"] = starts[i]
            if scale is not None and i == 0:
                for t in j["timeline"]:  # the per-second histograms dropped, or they would not agree
                    t["requests"] *= scale
                    t.pop("latency", None)
            p = os.path.join(TMP, "%s-%d.json" % (tag, i))
            json.dump(j, open(p, "w"))
            out.append(p)
        return out

    t0 = time.monotonic()
    m = merge("--json", os.path.join(TMP, "hm.json"), *tampered("wrap", [0, 4294967295, 0]))
    check(m.returncode == 1 and "not shards of one run" in m.stderr and len(m.stderr.strip().splitlines()) == 1,
          "starts 0, 2^32-1, 0: refused in one line, no crash (%s %r)" % (m.returncode, m.stderr))
    m = merge("--json", os.path.join(TMP, "hm.json"), *tampered("far", [1.7e9, 1.7e9 + 1e7, 1.7e9]))
    check(m.returncode == 1 and "started 10000000s after" in m.stderr and time.monotonic() - t0 < 30,
          "starts 10^7 s apart: refused at once, naming both (%r)" % m.stderr)
    m = merge(*tampered("scaled", scale=1000))
    check(m.returncode == 1 and "timeline counts" in m.stderr and "not a consistent result" in m.stderr,
          "a timeline counting 1000x its requests is refused (%r)" % m.stderr)
    base = orig[0]["start_unix_s"]
    jp = os.path.join(TMP, "hm-ok.json")
    m = merge("--json", jp, *tampered("near", [base, base + 30, base]))
    check(m.returncode == 0 and json.load(open(jp))["summary"]["requests"] == 30,
          "shards started 30 s apart by hand still merge (%r)" % m.stderr)


@test
def shard_rate_interleaves():
    # 300 req/s from 3 shards: one evenly spaced stream (~3.3 ms apart), not three bunched ones.
    rec = RecServer()
    paths, outs = run_shards(3, ["-t", 1, "-c", 3, "-R", 300, "-d", "2s"], rec.url("/r"), "rate")
    rec.stop()
    t = sorted(rec.times)
    gaps = sorted((b - a) * 1000 for a, b in zip(t, t[1:]))
    med = gaps[len(gaps) // 2] if gaps else 0
    close = sum(1 for g in gaps if g < 1.0)
    check(580 <= len(t) <= 620, "3 x 100 req/s for 2 s: %d requests at the server" % len(t))
    # Three bunched streams would put two gaps in three under 1 ms; a loaded
    # machine delays some arrivals (the sanitized build on 2 cores: 15%).
    check(2.5 <= med <= 4.2 and close < len(gaps) * 0.33,
          "the server's inter-arrival times: median %.2f ms (3.33 expected), %d of %d under 1 ms"
          % (med, close, len(gaps)))
    mj = os.path.join(TMP, "rate-merged.json")
    m = merge("--json", mj, *paths)
    if check(m.returncode == 0, "merge of rate shards: " + m.stderr):
        mg = json.load(open(mj))
        check(abs(mg["rate"]["target_rps"] - 300) < 0.01 and mg["summary"]["requests"] == len(t),
              "merged target rate 300 and count %s = the server's %d" % (mg["summary"]["requests"], len(t)))


@test
def shard_values_and_options():
    # {{seq}} and the sequential order go on across the shards: every value once.
    rec = RecServer()
    tf = os.path.join(TMP, "seq.targets")
    with open(tf, "w") as f:
        f.write("GET %s\n\nGET %s\n" % (rec.url("/a/{{seq}}"), rec.url("/b/{{seq}}")))
    paths, outs = run_shards(3, ["-t", 1, "-c", 3, "-n", 300, "--targets", tf], None, "seq", start_in=0.2)
    rec.stop()
    seqs = sorted(int(p.rsplit("/", 1)[1]) for _, _, p, _, _ in rec.records)
    check(seqs == list(range(300)), "{{seq}} over 3 shards: 0..299 each once (%d values, %d distinct)"
          % (len(seqs), len(set(seqs))))
    a = sum(1 for _, _, p, _, _ in rec.records if p.startswith("/a/"))
    check(a == 150, "sequential order over the shards: each target its exact share (%d of 300)" % a)
    # --shard auto from the engines' variables.
    srv = Serve()
    for env, want in (({"SLURM_PROCID": "1", "SLURM_NTASKS": "2"}, (1, 2)),
                      ({"PMI_RANK": "2", "PMI_SIZE": "3"}, (2, 3)),
                      ({"OMPI_COMM_WORLD_RANK": "0", "OMPI_COMM_WORLD_SIZE": "4"}, (0, 4)),
                      ({"JOB_COMPLETION_INDEX": "3", "RAFALE_SHARDS": "5"}, (3, 5))):
        jp = os.path.join(TMP, "auto.json")
        e = dict((k, v) for k, v in os.environ.items()
                 if k not in ("SLURM_PROCID", "PMI_RANK", "OMPI_COMM_WORLD_RANK", "JOB_COMPLETION_INDEX"))
        e.update(env)
        p = subprocess.run([RAFALE, "-q", "--shard", "auto", "-c", "5", "-n", "20", "--json", jp, srv.url("/")],
                           capture_output=True, text=True, env=e, timeout=60)
        j = json.load(open(jp)) if p.returncode == 0 else {}
        check(p.returncode == 0 and (j["shard"]["index"], j["shard"]["count"]) == want,
              "--shard auto from %s: %s" % (list(env)[0], p.stderr[-200:]))
    srv.stop()
    e = dict((k, v) for k, v in os.environ.items()
             if k not in ("SLURM_PROCID", "PMI_RANK", "OMPI_COMM_WORLD_RANK", "JOB_COMPLETION_INDEX"))
    for args, words in ((["--shard", "auto"], "no shard rank and size in the environment"),
                        (["--shard", "3/3"], "--shard wants I/N"),
                        (["--shard", "2/3", "-c", "2"], "-c 2 cannot be split over 3 shards"),
                        (["--start-at", "tomorrow"], "--start-at wants Unix seconds")):
        p = subprocess.run([RAFALE, "-n", "10"] + args + ["http://127.0.0.1:1/"], capture_output=True, text=True,
                           env=e, timeout=60)
        check(p.returncode == 2 and words in p.stderr and len(p.stderr.strip().splitlines()) == 1,
              "%s: one line, exit 2: %r" % (" ".join(args), p.stderr))


@test
def mpi_run_is_one_report():
    mpi = os.path.join(os.path.dirname(RAFALE), "rafale-mpi")
    if SANITIZED:
        print("  (rafale-mpi is tested in the plain run; its merge runs sanitized in the shard tests)")
        return
    if not check(os.path.exists(mpi) and shutil.which("mpiexec"), "rafale-mpi and mpiexec are there (make test "
                                                                   "builds them; make mpi)"):
        return
    # Open MPI (should mpiexec be its) wants these as root and with more ranks than cores; MPICH ignores them.
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    srv = Serve(threads=2)
    jp = os.path.join(TMP, "mpi.json")
    p = subprocess.run(["mpiexec", "-n", "3", mpi, "-t", "1", "-c", "6", "-n", "3000", "--json", jp, srv.url("/")],
                       capture_output=True, text=True, timeout=120, env=env)
    conns, reqs = srv.stop()
    check(p.returncode == 0, "mpiexec -n 3 rafale-mpi ran: " + p.stderr[-800:])
    check(p.stdout.count("Requests ") == 1 and "Merged from 3 shards" in p.stdout and "3000 completed" in p.stdout,
          "one report, from rank 0: " + p.stdout[:400])
    if os.path.exists(jp):
        j = json.load(open(jp))
        check(j["summary"]["requests"] == 3000 == reqs and len(j["shards"]) == 3 and accounted(j),
              "rafale-mpi: merged count %s = -n = the server's %s, 3 shards" % (j["summary"]["requests"], reqs))
        check(sorted(s["requests"] for s in j["shards"]) == [1000, 1000, 1000], "each rank sent its share")
    # A rank that cannot connect: the run ends at once with its reason on rank 0, never a hang.
    srv = Serve()
    t0 = time.monotonic()
    p = subprocess.run(["mpiexec", "-n", "2", mpi, "-q", "-c", "4", "-n", "100", srv.url("/"), ":",
                        "-n", "1", mpi, "-q", "-c", "4", "-n", "100", "http://127.0.0.1:%d/" % free_port()],
                       capture_output=True, text=True, timeout=120, env=env)
    conns, reqs = srv.stop()
    check(p.returncode == 1 and "rank 2 (" in p.stderr and "cannot connect to 127.0.0.1:" in p.stderr and
          "nothing was sent" in p.stderr and reqs == 0,
          "a rank that cannot connect stops the run before any load, said on rank 0 (%.1fs): %r"
          % (time.monotonic() - t0, p.stderr[-400:]))
    p = subprocess.run(["mpiexec", "-n", "2", mpi, "--shard", "0/2", srv.url("/")], capture_output=True, text=True,
                       timeout=120, env=env)
    check(p.returncode == 2 and p.stderr.count("--shard is MPI's to set") == 1,
          "every rank's same mistake said once: %r" % p.stderr)
    # Interrupted: every rank stops, rank 0 still reports what was sent, exactly.
    srv = Serve(threads=2)
    jp = os.path.join(TMP, "mpi-int.json")
    proc = subprocess.Popen(["mpiexec", "-n", "3", mpi, "-q", "-t", "1", "-c", "6", "-d", "30s", "--json", jp,
                             srv.url("/")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    time.sleep(1.5)
    subprocess.run(["pkill", "-INT", "-x", "rafale-mpi"])
    out, err = proc.communicate(timeout=60)
    conns, reqs = srv.stop()
    if check(proc.returncode == 130 and os.path.exists(jp), "interrupted rafale-mpi: exit 130, report written: "
             + err[-300:]):
        j = json.load(open(jp))
        check(j["interrupted"] and j["summary"]["requests"] + j["summary"]["in_flight"] == reqs,
              "interrupted: completed %d + in flight %d = served %d" % (j["summary"]["requests"],
                                                                     j["summary"]["in_flight"], reqs))


def netns_setup(tag, n):
    """A server namespace with a bridge (10.77.0.1) and n client namespaces on it (10.77.0.11...), each with a
    veth pair. Returns the namespaces' names, or None (with the reason) where this is not allowed."""
    srvns = "rf%ssrv" % tag
    cmds = [["ip", "netns", "add", srvns], ["ip", "-n", srvns, "link", "set", "lo", "up"],
            ["ip", "-n", srvns, "link", "add", "br0", "type", "bridge"],
            ["ip", "-n", srvns, "addr", "add", "10.77.0.1/24", "dev", "br0"],
            ["ip", "-n", srvns, "link", "set", "br0", "up"]]
    names = []
    for i in range(n):
        ns, a, b = "rf%sc%d" % (tag, i), "rf%sa%d" % (tag, i), "rf%sb%d" % (tag, i)
        names.append(ns)
        cmds += [["ip", "netns", "add", ns], ["ip", "-n", ns, "link", "set", "lo", "up"],
                 ["ip", "link", "add", a, "type", "veth", "peer", "name", b],
                 ["ip", "link", "set", a, "netns", ns], ["ip", "link", "set", b, "netns", srvns],
                 ["ip", "-n", srvns, "link", "set", b, "master", "br0"], ["ip", "-n", srvns, "link", "set", b, "up"],
                 ["ip", "-n", ns, "addr", "add", "10.77.0.%d/24" % (11 + i), "dev", a],
                 ["ip", "-n", ns, "link", "set", a, "up"]]
    for c in cmds:
        p = subprocess.run(c, capture_output=True, text=True)
        if p.returncode != 0:
            netns_teardown(srvns, names)
            return None, "%s: %s" % (" ".join(c), p.stderr.strip())
    return (srvns, names), None


def netns_teardown(srvns, names):
    for ns in [srvns] + names:
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)


@test
def shards_from_three_addresses():
    if not shutil.which("ip"):
        print("  SKIP: no ip command (iproute2)")
        return
    tag = "%d" % (os.getpid() % 10000)
    nets, why = netns_setup(tag, 3)
    if nets is None:
        print("  SKIP: network namespaces not allowed here: " + why)
        return
    srvns, names = nets
    log = os.path.join(TMP, "netns-access.log")
    try:
        out = open(os.path.join(TMP, "netns-serve.out"), "w+")
        srv = subprocess.Popen(["ip", "netns", "exec", srvns, RAFALE, "serve", "--listen", "10.77.0.1:8080",
                                "--access-log", log], stdout=out, stderr=subprocess.PIPE, text=True)
        for _ in range(200):
            out.seek(0)
            if out.read().startswith("listening"):
                break
            time.sleep(0.02)
        at = time.time() + 1.0
        procs = [subprocess.Popen(["ip", "netns", "exec", ns, RAFALE, "-q", "-t", "1", "--shard", "%d/3" % i,
                                   "--start-at", "%.3f" % at, "-c", "6", "-n", "1500", "--json",
                                   os.path.join(TMP, "ns-%d.json" % i), "http://10.77.0.1:8080/"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for i, ns in enumerate(names)]
        errs = [p.communicate(timeout=RUN_TIMEOUT)[1] for p in procs]
        srv.send_signal(signal.SIGTERM)
        serr = srv.communicate(timeout=20)[1]
        m = merge(*[os.path.join(TMP, "ns-%d.json" % i) for i in range(3)])
        peers = {}
        for line in open(log):
            peers[line.split()[0].rsplit(":", 1)[0]] = peers.get(line.split()[0].rsplit(":", 1)[0], 0) + 1
        check(all(p.returncode == 0 for p in procs), "3 shards in 3 namespaces ran: %s" % [e[-200:] for e in errs])
        check(sorted(peers) == ["10.77.0.11", "10.77.0.12", "10.77.0.13"] and
              sorted(peers.values()) == [500, 500, 500],
              "the server saw 3 source addresses, 500 requests each: %s" % peers)
        check(m.returncode == 0 and "1500 completed" in m.stdout and "1500 requests served" in serr,
              "merged 1500 = the server's count: " + serr[-200:] + m.stderr[-200:])
    finally:
        netns_teardown(srvns, names)


# --- rafale serve itself, over raw sockets --------------------------------------

def raw(addr, data, timeout=5):
    """Send data, read until the server closes (or timeout), return all it sent."""
    host, port = addr.rsplit(":", 1)
    s = socket.create_connection((host, int(port)), timeout=timeout)
    s.sendall(data)
    out = b""
    try:
        while True:
            d = s.recv(65536)
            if not d:
                break
            out += d
    except socket.timeout:
        pass
    s.close()
    return out


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


def exchange(addr, data, timeout=5):
    """Sends data, reads until the server closes (or timeout). Returns
    (bytes received, closed by the server)."""
    host, port = addr.rsplit(":", 1)
    s = socket.create_connection((host, int(port)), timeout=timeout)
    s.sendall(data)
    out, closed = b"", False
    try:
        while True:
            d = s.recv(65536)
            if not d:
                closed = True
                break
            out += d
    except (socket.timeout, ConnectionResetError):
        pass
    s.close()
    return out, closed


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


def rss_of(pid):
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


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


def main():
    global RAFALE, SANITIZED
    args = sys.argv[1:]
    if args and args[0] == "--sanitized":
        SANITIZED = True
        args = args[1:]
    RAFALE = os.path.abspath(args[0] if args else "./rafale")
    name = "integration" + (" (sanitized)" if SANITIZED else "")
    only = os.environ.get("ONLY")
    for t in TESTS:
        if only and only not in t.__name__:
            continue
        before = FAILED
        t0 = time.monotonic()
        try:
            t()
        except Exception as e:  # a crashing test is a failed test, and the rest still run
            check(False, "%s raised %r" % (t.__name__, e))
        print("%-45s %s (%.1fs)" % (t.__name__, "ok" if FAILED == before else "FAILED", time.monotonic() - t0),
              flush=True)
    print("%s: %d passed, %d failed" % (name, PASSED, FAILED))
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
