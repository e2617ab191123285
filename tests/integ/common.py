"""Integration tests' common ground: the servers the tests start (rafale serve, broken and recording ones),
running rafale, the checks and the counters. Test files by area (tests/integ/*.py) use it with
`from common import *` once the runner (tests/integration.py) has set RAFALE and SANITIZED."""
import fcntl
import json
import math
import os
import re
import resource
import shutil
import signal
import socket
import ssl
import struct
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


# The `rafale serve` instances not stopped yet: the runner stops those a test left (one that raised half-way).
RUNNING_SERVES = []


def stop_leftover_serves():
    for s in list(RUNNING_SERVES):
        s.p.kill()
        s.p.wait(timeout=20)
        RUNNING_SERVES.remove(s)


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
            self.p.kill()
            self.p.wait(timeout=20)
            raise RuntimeError("rafale serve did not start")
        RUNNING_SERVES.append(self)

    def url(self, path="/"):
        return "http://%s%s" % (self.addr, path)

    @property
    def port(self):
        return int(self.addr.rsplit(":", 1)[1])

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        self.p.wait(timeout=20)
        if self in RUNNING_SERVES:
            RUNNING_SERVES.remove(self)
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
    accepted and the requests it read, the ground truth for the tests. The
    first `healthy_first` connections are served by its healthy mode (HEALTHY:
    "ok", or "tls_h1" for a TLS mode), the ones after by `mode`: a server that
    goes wrong mid-run; or the first `bad_first` by `mode`, the ones after by
    its healthy mode: a hiccup at the start. Some modes:
      ok:           HTTP/1.1 200 to every request
      tls_h1:       TLS (no ALPN), then as ok
      tlsalert:     a TLS alert record to the first request, then close (a TLS
                    port's answer to plain HTTP)
      plain_to_tls: HTTP/1.1 400 to the ClientHello, then close (a plain port's
                    answer to TLS)
      h1only:       HTTP/1.1 400 to HTTP/2's preface, then close"""

    RESPONSE = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"
    SECOND = b"HTTP/1.1 201 Created\r\nContent-Length: 5\r\n\r\nagain"
    HEALTHY = {"plain_to_tls": "tls_h1", "tlsdrop": "tls_h1"}
    TLS_ALERT = b"\x15\x03\x03\x00\x02\x02\x46"  # fatal protocol_version (RFC 8446 section 6)
    BAD_REQUEST = b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"

    def __init__(self, mode, backlog=128, healthy_first=0, bad_first=0):
        self.mode = mode
        self.healthy_first = healthy_first
        self.bad_first = bad_first
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

    def conn_mode(self):
        """The mode of the connection being handled: the healthy one for the first `healthy_first`, or for all but
        the first `bad_first`. (Counted at accept: right for connections one after another, as the tests that use it
        open them.)"""
        with self.lock:
            n = self.accepted
        if self.bad_first:
            return self.mode if n <= self.bad_first else self.HEALTHY.get(self.mode, "ok")
        return self.HEALTHY.get(self.mode, "ok") if n <= self.healthy_first else self.mode

    @staticmethod
    def tls_wrap(c):
        """c as a TLS server (make_certs' certificate), offering no ALPN protocol."""
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        d = make_certs()
        ctx.load_cert_chain(os.path.join(d, "srv.pem"), os.path.join(d, "srv.key"))
        return ctx.wrap_socket(c, server_side=True)

    @staticmethod
    def next_head(c, buf):
        """The next request head from c, buf read already: (head, what follows it), or None when c closes first."""
        while b"\r\n\r\n" not in buf:
            d = c.recv(65536)
            if not d:
                return None
            buf += d
        head, rest = buf.split(b"\r\n\r\n", 1)
        return head, rest

    def read_request(self, c, buf, m):
        if m == "tlsdrop":
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
        m = self.conn_mode()
        buf = b""
        try:
            if m == "closenow":
                c.close()
                return
            if m == "plain_to_tls":  # as any HTTP/1.1 server answers bytes that are no request line
                c.recv(65536)
                c.sendall(self.BAD_REQUEST)
                return
            if m == "tls_h1":
                c = self.tls_wrap(c)
                m = "ok"
            if m == "idle408":
                c.settimeout(0.02)  # its idle limit: 20 ms without a request
            while True:
                try:
                    buf = self.read_request(c, buf, m)
                except socket.timeout:  # idle408: ends the idle connection with a word, as some servers do
                    c.sendall(b"HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
                    break
                if buf is None:
                    break
                if m == "ok":
                    c.sendall(self.RESPONSE)
                    continue
                if m == "tlsalert":
                    c.sendall(self.TLS_ALERT)
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
                if m == "twice":  # two answers to one request, in one write; the second is told by its 201
                    c.sendall(self.RESPONSE + self.SECOND)
                    continue
                if m == "twice-later":  # the same, the second 5 ms later
                    c.sendall(self.RESPONSE)
                    time.sleep(0.005)
                    c.sendall(self.SECOND)
                    continue
                if m == "idle408":
                    c.sendall(self.RESPONSE)
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
                if m == "tecl":  # Transfer-Encoding with Content-Length (RFC 9112 section 6.3): not to be reused
                    c.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 99\r\n\r\n"
                              b"5\r\nhello\r\n0\r\n\r\n")
                    continue
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
                    c.sendall(self.BAD_REQUEST)
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


class ScriptServer(BadServer):
    """A raw HTTP/1.1 server on 127.0.0.1 answering each request with answer(path, n) (n: the requests so far),
    bytes to send as they are, or None to send nothing and keep the connection; close: the connection closed after
    each answer (a body that ends with it)."""

    def __init__(self, answer, close=False):
        self.answer, self.n, self.heads, self.close = answer, 0, [], close
        BadServer.__init__(self, "script")

    def handle(self, c):
        got = (b"", b"")
        try:
            while (got := self.next_head(c, got[1])) is not None:
                head = got[0]
                path = head.split(b" ")[1].decode()
                self.heads.append(head.decode("latin-1"))
                with self.lock:
                    self.n += 1
                    n = self.n
                out = self.answer(path, n)
                if out:
                    c.sendall(out)
                if self.close:
                    c.shutdown(socket.SHUT_WR)
                    c.close()
                    return
        except OSError:
            pass


class RecServer(BadServer):
    """An HTTP/1.1 server that records every request it receives: (connection, method, path, headers, body).
    /login sets a cookie (sid=<connection>); /redir/N answers 302 to /redir/N-1 down to /redir/0; /other/PORT
    answers 302 to http://127.0.0.1:PORT/; /say/STATUS?h=LINE&b=BODY answers STATUS with those header lines and
    that body; anything else is 200 'ok'. Chunked request bodies are read as a server would."""

    def __init__(self, unix_path=None):
        self.records = []
        # Each request's arrival as the kernel stamped its first segment (SO_TIMESTAMPNS, wall clock): a gap
        # between two requests is the client's, not this Python thread's wake-up on a loaded machine.
        self.times = []
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

    SO_TIMESTAMPNS = 35  # Linux's (asm-generic/socket.h); Python's socket module does not name it

    def next_stamped(self, c, buf, stamp):
        """next_head, and the kernel's stamp of the segment that brought the head's first byte (stamp: that of
        buf's bytes, read already)."""
        while b"\r\n\r\n" not in buf:
            d, anc, _, _ = c.recvmsg(65536, socket.CMSG_SPACE(16))
            if not d:
                return None
            if not buf:
                stamp = time.time()
                for level, kind, data in anc:
                    if level == socket.SOL_SOCKET and kind == self.SO_TIMESTAMPNS and len(data) >= 16:
                        sec, nsec = struct.unpack("qq", data[:16])
                        stamp = sec + nsec / 1e9
            buf += d
        head, rest = buf.split(b"\r\n\r\n", 1)
        return head, rest, stamp

    def handle(self, c):
        with self.lock:
            conn_id = self.accepted
        buf, stamp = b"", None
        try:
            c.setsockopt(socket.SOL_SOCKET, self.SO_TIMESTAMPNS, 1)
        except OSError:
            pass
        try:
            while True:
                got = self.next_stamped(c, buf, stamp)
                if got is None:
                    return
                head, buf, arrived = got
                stamp = arrived
                lines = head.decode("latin-1").split("\r\n")
                method, path, _ = lines[0].split(" ", 2)
                headers = {}
                for l in lines[1:]:
                    k, v = l.split(":", 1)
                    k, v = k.strip().lower(), v.strip()
                    # Two Cookie fields read as one, as RFC 9113 section 8.2.3 joins them.
                    headers[k] = headers[k] + "; " + v if k == "cookie" and k in headers else v
                if headers.get("transfer-encoding", "").lower().endswith("chunked"):
                    body, buf = self.read_chunked(c, buf)
                    if body is None:
                        return
                else:
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
                    self.times.append(arrived)
                extra, status = b"", b"200 OK"
                if path.startswith("/login"):
                    extra = b"Set-Cookie: sid=c%d; Path=/; Max-Age=3600\r\nSet-Cookie: theme=dark\r\n" % conn_id
                elif path.startswith("/redir/") and path != "/redir/0":
                    status, extra = b"302 Found", b"Location: /redir/%d\r\n" % (int(path[7:]) - 1)
                elif path.startswith("/other/"):
                    status, extra = b"302 Found", b"Location: http://127.0.0.1:%s/\r\n" % path[7:].encode()
                elif path.startswith("/say/"):
                    # /say/STATUS?h=LINE&h=LINE&b=BODY: the header lines given, percent-encoded, sent raw; the body.
                    q = path.split("?", 1)[1] if "?" in path else ""
                    status = path[5:8].encode() + b" Said"
                    extra = b"".join(urllib.parse.unquote_to_bytes(v[2:]) + b"\r\n" for v in q.split("&")
                                     if v.startswith("h="))
                    said = [urllib.parse.unquote_to_bytes(v[2:]) for v in q.split("&") if v.startswith("b=")]
                    if said:
                        c.sendall(b"HTTP/1.1 " + status + b"\r\n" + extra + b"Content-Length: %d\r\n\r\n" %
                                  len(said[0]) + said[0])
                        continue
                c.sendall(b"HTTP/1.1 " + status + b"\r\n" + extra + b"Content-Length: 2\r\n\r\nok")
        except (OSError, ValueError):
            pass
        finally:
            c.close()


    def read_chunked(self, c, buf):
        """A chunked body (RFC 9112 section 7.1, no trailers), read as a server would: (body, what follows), or
        (None, b"") when the connection ended first."""
        body = b""
        while True:
            while b"\r\n" not in buf:
                d = c.recv(65536)
                if not d:
                    return None, b""
                buf += d
            line, buf = buf.split(b"\r\n", 1)
            n = int(line.split(b";")[0], 16)
            while len(buf) < n + 2:
                d = c.recv(65536)
                if not d:
                    return None, b""
                buf += d
            if n == 0:
                return body, buf[2:]
            body, buf = body + buf[:n], buf[n + 2:]


class H2BadServer(BadServer):
    """An HTTP/2 server that misbehaves on purpose, written frame by frame
    (RFC 9113 §4.1). It counts the requests it answered, the ground truth.
      goaway:     answers `per_conn` requests on a connection, then GOAWAY
                  with the last answered stream and closes (a request limit
                  per connection, as nginx's keepalive_requests)
      rst:        resets every other stream with INTERNAL_ERROR
      nosettings: reads, never sends a byte
      garbage:    answers the preface with bytes that are no frame
      flood:      sends more DATA than the client's window allows
      ok:         answers every request (the healthy mode of healthy_first)"""

    H200 = b"\x88"  # HPACK: indexed field 8, ":status: 200"

    def __init__(self, mode, per_conn=10, healthy_first=0):
        self.per_conn = per_conn
        BadServer.__init__(self, mode, healthy_first=healthy_first)

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
        m, answered = self.conn_mode(), 0
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


def interrupt_after(p, seconds, timeout=30, first_line=False):
    """Sends SIGINT to a running process after `seconds`; returns its output. With first_line, the seconds count
    from its first line of standard output (read here, given back with the rest): a process that says it has
    begun has its handler for SIGINT, however slowly a loaded machine started it."""
    head = p.stdout.readline() if first_line else ""
    time.sleep(seconds)
    p.send_signal(signal.SIGINT)
    try:
        out, err = p.communicate(timeout=timeout)
        return head + out, err
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        return "", ""


# One file whose byte N is locked (fcntl, shared by every make test of this user) while a test process holds port N:
# a port free_port gave stays its own until that process ends, when the kernel drops the lock.
PORT_LOCKS = os.path.join(tempfile.gettempdir(), "rafale-it-ports-%d" % os.getuid())
PORTS_GIVEN = {}  # pid -> (the lock file's descriptor, the ports given to that process)


def port_take(port):
    """Whether this process may have the port: no other test process holds it, and this one was not given it."""
    pid = os.getpid()
    if pid not in PORTS_GIVEN:  # a forked test: a descriptor of its own, never closed (closing any drops its locks)
        PORTS_GIVEN[pid] = (os.open(PORT_LOCKS, os.O_RDWR | os.O_CREAT, 0o600), set())
    fd, given = PORTS_GIVEN[pid]
    if port in given:
        return False
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, port)
    except (BlockingIOError, PermissionError):  # EAGAIN, EACCES: another test holds it; any other error is raised
        return False
    given.add(port)
    return True


def free_port():
    """A port with nothing bound to it, below the kernel's ephemeral range, and given to no other test running. A
    port the kernel hands out from that range is free only for a moment: until the server meant for it binds it, any
    test's connect may take it as its source port, and a closed client connection holds it in TIME_WAIT for a minute,
    so the bind fails (a findings server failed to start so in a full pool, where other tests ran thousands of --close
    connections). Chosen at random from os.urandom, which forked tests do not share, and locked: two tests once drew
    the same port (compare found it held by the other test's rafale --metrics-listen)."""
    with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
        low = int(f.read().split()[0])
    first = max(1024, low - 16384)
    while True:
        port = first + int.from_bytes(os.urandom(4), "little") % (low - first)
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            continue
        finally:
            s.close()
        if port_take(port):
            return port


def closed_port():
    """A port where every connect is refused while the socket returned beside it stays open: bound and never
    listening, no other test of the pool can take it (a port from free_port left free was once taken by another
    test's server, which answered there)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    return s.getsockname()[1], s


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


def alone(fn):
    """Marks a test that measures CPU time or needs a CPU to itself: the runner runs it with no other test beside it
    (after the pool). Written under @test."""
    fn.alone = True
    return fn


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


def png_ink(path):
    """The rows and the columns of a PNG (8-bit RGB or RGBA, as Chromium writes) that hold something not white: two
    lists of booleans (stdlib only: the rows are unfiltered as the PNG specification says)."""
    import struct
    import zlib
    data = open(path, "rb").read()
    pos, idat, w, h, ctype = 8, b"", 0, 0, 6
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", data[pos + 8:pos + 18])
        elif kind == b"IDAT":
            idat += data[pos + 8:pos + 8 + n]
        pos += 12 + n
    bpp = 4 if ctype == 6 else 3
    raw, stride = zlib.decompress(idat), w * bpp
    prev, rows, cols, at = bytes(stride), [], [False] * w, 0
    for _ in range(h):
        ftype, line = raw[at], bytearray(raw[at + 1:at + 1 + stride])
        at += 1 + stride
        if ftype == 2:
            line = bytearray((x + y) & 255 for x, y in zip(line, prev))
        elif ftype:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                if ftype == 1:
                    line[i] = (line[i] + a) & 255
                elif ftype == 3:
                    line[i] = (line[i] + (a + b) // 2) & 255
                elif ftype == 4:
                    pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                    line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        dark = [x for x in range(w) if min(line[x * bpp:x * bpp + 3]) < 200] if min(line) < 200 else []
        rows.append(bool(dark))
        for x in dark:
            cols[x] = True
        prev = bytes(line)
    return rows, cols


def report_of(path, html=None):
    cmd = [RAFALE, "report"] + (["--html", html] if html else []) + [path]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


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


PREFORK = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "prefork_server.py")


FSERVER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "findings_server.py")


class FServer:
    """tests/findings_server.py MODE on a free port."""

    def __init__(self, mode, *args):
        self.port = free_port()
        err = tempfile.TemporaryFile("w+")
        self.p = subprocess.Popen([sys.executable, FSERVER, mode, "--port", str(self.port)] + list(args),
                                  stdout=subprocess.PIPE, stderr=err, text=True)
        line = self.p.stdout.readline()
        if not line.startswith("listening on"):
            self.p.kill()
            self.p.wait(timeout=10)
            err.seek(0)
            why = err.read().strip().splitlines()
            raise RuntimeError("findings server %s did not start on port %d: %s"
                               % (mode, self.port, why[-1] if why else "no error printed"))
        err.close()

    def url(self, path="/"):
        return "http://127.0.0.1:%d%s" % (self.port, path)

    def stop(self):
        self.p.kill()
        self.p.wait(timeout=10)


def scratch_cgroup(name, what):
    """A cgroup of this test run's own under the cgroup2 root: (root, path), or (None, None), saying what is not
    tested, when there is no writable cgroup2."""
    root = cgroup2_root()
    if root is None or not os.access(root, os.W_OK):
        print("  (no writable cgroup2: %s not tested)" % what)
        return None, None
    cg = os.path.join(root, "%s-%d" % (name, os.getpid()))
    os.makedirs(cg, exist_ok=True)
    return root, cg


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


class Nginx:
    """Debian's nginx on a free loopback port, answering "hello" to every path, over TLS (make_certs' certificate)
    with tls; HTTP/1.1 only (no http2: over TLS it refuses ALPN h2 with an alert). `ok` is False when nginx is not
    installed or did not listen (make deps installs it): the caller checks it first. backlog: its listen() backlog
    (nginx's default is 511). log: its access log, written to self.log a line a request: "combined", or a
    log_format's string (escape=json)."""

    def __init__(self, tls=False, backlog=None, log=None):
        exe = shutil.which("nginx") or "/usr/sbin/nginx"
        self.tls, self.p = tls, None
        self.ok = os.path.exists(exe)
        if not self.ok:
            return
        root = tempfile.mkdtemp(prefix="rafale-nginx-", dir=TMP)
        # A free port can be taken by another test between free_port() and nginx's bind: nginx then exits
        # ("Address already in use"), and it starts again on another port, at most three times.
        for _ in range(3):
            if self.start(exe, root, tls, backlog, log):
                return

    def start(self, exe, root, tls, backlog, log):
        """nginx on a new free port: True once it listens, False when it exited first or did not listen in 10 s."""
        self.port = free_port()
        conf = os.path.join(root, "nginx.conf")
        self.log = os.path.join(root, "access.log") if log else None
        logs = ("access_log off;" if not log else "access_log %s combined;" % self.log if log == "combined"
                else "log_format mine escape=json '%s'; access_log %s mine;" % (log, self.log))
        d = make_certs() if tls else ""
        with open(conf, "w") as fh:
            fh.write("""daemon off; master_process off; worker_processes 1; pid %(r)s/nginx.pid; error_log %(r)s/error.log;
events { worker_connections 1024; }
http { %(logs)s client_body_temp_path %(r)s; proxy_temp_path %(r)s; fastcgi_temp_path %(r)s;
       uwsgi_temp_path %(r)s; scgi_temp_path %(r)s;
       server { listen 127.0.0.1:%(p)d%(bl)s%(ssl)s; location / { return 200 "hello\\n"; } } }
""" % dict(r=root, p=self.port, logs=logs, bl=" backlog=%d" % backlog if backlog else "", ssl="" if not tls else " ssl; ssl_certificate %s/srv.pem; ssl_certificate_key %s/srv.key"
           % (d, d)))
        self.p = subprocess.Popen([exe, "-p", root, "-c", conf], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        until = time.monotonic() + 10
        self.ok = False
        while not self.ok and self.p.poll() is None and time.monotonic() < until:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                self.ok = True
            except OSError:
                time.sleep(0.05)
        if not self.ok:
            self.stop()
        return self.ok

    def url(self, path="/"):
        return "%s://127.0.0.1:%d%s" % ("https" if self.tls else "http", self.port, path)

    def stop(self):
        if self.p:
            self.p.kill()
            self.p.wait(timeout=10)


class PyHttpServer:
    """python3 -m http.server on a free loopback port: HTTP/1.0 only. It takes HTTP/2's preface for an HTTP/0.9
    request and answers it with an HTML error page, no status line."""

    def __init__(self):
        self.port = free_port()
        self.p = subprocess.Popen([sys.executable, "-m", "http.server", "--bind", "127.0.0.1", "--directory", TMP,
                                   str(self.port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.ok = wait_port(self.port)

    def url(self, path="/"):
        return "http://127.0.0.1:%d%s" % (self.port, path)

    def stop(self):
        self.p.kill()
        self.p.wait(timeout=10)


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


def compare_plan(ports, rec, mark):
    # ready-timeout: the 503 server waits it out; 3 s was too short for a Python prefork server to start beside two
    # CPU-bound processes and the pool.
    return """# servers that misbehave the ways real ones do
[settings]
repeat = 1
warmup = 0s
ready-timeout = 6s
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
        dots = [tuple(map(float, m)) for m in re.findall(r'class="pt" cx="([\d.-]+)" cy="([\d.-]+)"', svg)]
        for px, py in pts + dots:
            if not (x0 - 1 <= px <= x0 + w + 1 and y0 - 1 <= py <= bottom + 1):
                bad.append("curve point %s,%s outside the plot" % (px, py))
                break
        for wx, wy0, wy1 in [tuple(map(float, m)) for m in
                             re.findall(r'class="whisker" d="M([\d.-]+) ([\d.-]+)V([\d.-]+)', svg)]:
            if not (x0 <= wx <= x0 + w and y0 - 1 <= wy1 <= wy0 <= bottom + 1):
                bad.append("whisker %s %s-%s outside the plot" % (wx, wy0, wy1))
        for bx, by, bw, bh in bars:
            if not (x0 - 1 <= bx and bx + bw <= x0 + w + 1 and y0 - 1 <= by and by + bh <= bottom + 1):
                bad.append("bar %s,%s %sx%s outside the plot" % (bx, by, bw, bh))
    return bad


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


def run_shards(n, args, url, tag, start_in=1.0, extra=lambda i: [], cmd=()):
    """Starts n shards of one run together (--shard i/n, a common --start-at); returns their JSON paths and
    processes' results (rc, stdout, stderr). cmd: a command before the options (("replay",))."""
    at = time.time() + start_in
    procs, paths = [], []
    for i in range(n):
        jp = os.path.join(TMP, "%s-%d.json" % (tag, i))
        if os.path.exists(jp):
            os.unlink(jp)
        paths.append(jp)
        procs.append(subprocess.Popen([RAFALE] + list(cmd) + ["-q", "--shard", "%d/%d" % (i, n),
                                                              "--start-at", "%.3f" % at, "--json", jp] +
                                      [str(a) for a in args] + extra(i) + ([url] if url else []),
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
    x = p / 100.0 * total
    rank = max(1, math.ceil(x - x * 1e-12))  # as hist.c's rank_of: 99.9% of 5000 is the 4995th
    seen, prev = 0, 0.0
    for ub, n in hist_list:
        seen += n
        if seen >= rank:
            return prev - 0.0015 <= value <= ub + 0.0015
        prev = ub
    return False


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


def rss_of(pid):
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0
