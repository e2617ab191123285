#!/usr/bin/env python3
"""A prefork HTTP/1.1 test server, shaped like the servers people compare
(gunicorn, Apache prefork, php-fpm): a master allocates and writes a block
of memory, then forks workers that share it (copy on write) and serve on the
master's listening socket. Summed RSS counts the block once per process; PSS
counts it once in all. Options make it misbehave the ways real servers do:

  --port N         listen on 127.0.0.1:N (required)
  --workers N      worker processes (default 4)
  --mb N           size of the shared block in MiB (default 0)
  --daemonize      double fork and setsid, as a daemon: the start command
                   returns at once, the server lives on outside its group
  --setsid         call setsid() and serve in the foreground (as php-fpm does)
  --status N       answer every request with status N (default 200)
  --http10         answer HTTP/1.0 without keep-alive and close (as wsgiref)
  --record FILE    append "METHOD PATH X-TEST BODY" per request to FILE
  --marker TEXT    ignored: lets a test find its processes with pgrep -f
Only ever listens on 127.0.0.1.
"""
import os
import selectors
import signal
import socket
import sys


def parse(argv):
    opts = {"workers": 4, "mb": 0, "status": 200, "record": None, "daemonize": False, "setsid": False,
            "http10": False, "port": None}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--daemonize", "--setsid", "--http10"):
            opts[a[2:]] = True
        elif a in ("--port", "--workers", "--mb", "--status"):
            opts[a[2:]] = int(argv[i + 1])
            i += 1
        elif a in ("--record", "--marker"):
            opts[a[2:]] = argv[i + 1]
            i += 1
        else:
            sys.exit("prefork_server: unknown option " + a)
        i += 1
    if opts["port"] is None:
        sys.exit("prefork_server: --port is required")
    return opts


REASONS = {200: "OK", 404: "Not Found", 500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable"}


def respond(opts, conn, buf):
    """Answers every complete request in buf; returns (rest, keep)."""
    while b"\r\n\r\n" in buf:
        head, rest = buf.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        method, path = lines[0].split(" ")[:2]
        headers = {}
        for line in lines[1:]:
            if ":" in line:
                k, v = line.split(":", 1)
                headers[k.strip().lower()] = v.strip()
        n = int(headers.get("content-length", "0"))
        if len(rest) < n:
            return buf, True
        body, buf = rest[:n], rest[n:]
        if opts["record"]:
            with open(opts["record"], "a") as f:
                f.write("%s %s %s %s\n" % (method, path, headers.get("x-test", "-"), body.decode("latin-1") or "-"))
        st = opts["status"]
        payload = b"hello from a prefork worker\n"
        if opts["http10"]:
            conn.sendall(b"HTTP/1.0 %d %s\r\nContent-Length: %d\r\n\r\n" % (st, REASONS.get(st, "X").encode(),
                                                                             len(payload)) + payload)
            return b"", False
        conn.sendall(b"HTTP/1.1 %d %s\r\nContent-Length: %d\r\n\r\n" % (st, REASONS.get(st, "X").encode(),
                                                                         len(payload)) + payload)
    return buf, True


def worker(opts, lsock):
    sel = selectors.DefaultSelector()
    lsock.setblocking(False)
    sel.register(lsock, selectors.EVENT_READ, None)
    bufs = {}
    while True:
        for key, _ in sel.select():
            if key.data is None:
                try:
                    c, _ = lsock.accept()
                except (BlockingIOError, InterruptedError):
                    continue
                c.setblocking(False)
                bufs[c] = b""
                sel.register(c, selectors.EVENT_READ, "c")
                continue
            c = key.fileobj
            try:
                d = c.recv(65536)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                d = b""
            keep = bool(d)
            if d:
                c.setblocking(True)
                try:
                    bufs[c], keep = respond(opts, c, bufs[c] + d)
                except OSError:
                    keep = False
                c.setblocking(False)
            if not keep:
                sel.unregister(c)
                del bufs[c]
                c.close()


def serve(opts):
    # The shared block: written by the master, only read (never) by workers.
    block = bytearray(opts["mb"] * 1024 * 1024)
    for i in range(0, len(block), 4096):
        block[i] = 1
    lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind(("127.0.0.1", opts["port"]))
    lsock.listen(512)
    children = []
    for _ in range(opts["workers"]):
        pid = os.fork()
        if pid == 0:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            worker(opts, lsock)
            os._exit(0)
        children.append(pid)

    def stop(sig, frame):
        for p in children:
            try:
                os.kill(p, signal.SIGTERM)
            except OSError:
                pass
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    while True:
        signal.pause()


def main():
    opts = parse(sys.argv[1:])
    if opts["daemonize"]:
        if os.fork() > 0:
            os._exit(0)  # the start command returns at once
        os.setsid()
        if os.fork() > 0:
            os._exit(0)
    elif opts["setsid"]:
        os.setsid()
    serve(opts)


if __name__ == "__main__":
    main()
