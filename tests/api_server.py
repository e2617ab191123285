#!/usr/bin/env python3
"""A small JSON API behind a login, on 127.0.0.1, with the standard library only, that records every request it gets
(ground truth for rafale's checks, extractions and think time).

usage: api_server.py --port N --log FILE [--password secret]

  POST /login    {"user": ..., "pass": ...}: 200 {"ok": true, "token": "t-N"} and Set-Cookie sid=s-N,
                 or 401 {"ok": false, "error": "bad password"}
  GET  /items    Authorization: Bearer TOKEN: 200 {"ok": true, "items": [{"id": 1}, {"id": 2}]}, else 401
  POST /items    Authorization: Bearer TOKEN: 201 {"ok": true, "id": N}, Location: /items/N
  GET  /items/N  Authorization: Bearer TOKEN: 200 {"ok": true, "id": N}
  GET  /flaky    {"ok": false} on every 10th request it gets, {"ok": true} otherwise
  GET  /form     a page with <input name="csrf" value="c-N">; POST /form with X-CSRF: c-N: 200, else 403
  GET  /me       Cookie: sid=s-N: 200 {"ok": true}, else 401

Each request is a JSON line in --log: t (arrival, time.monotonic()), port (the client's), method, path, auth, csrf,
cookie, xloc (its X-Loc header), and token_port (the port that logged in with that token, or null). It prints "listening on 127.0.0.1:PORT"."""
import argparse
import http.server
import json
import socket
import socketserver
import sys
import threading
import time

LOCK = threading.Lock()
STATE = {"n": 0, "flaky": 0, "tokens": {}, "csrf": set(), "sids": set(), "items": 0}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    password = "secret"
    logf = None

    def log_message(self, *a):
        pass

    def setup(self):
        super().setup()
        # The head and the body go in two writes: without this, Nagle and the delayed ACK hold each answer 40 ms.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def answer(self, status, obj, extra=()):
        body = (json.dumps(obj) + "\n").encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def record(self, token):
        with LOCK:
            self.logf.write(json.dumps({
                "t": time.monotonic(), "port": self.client_address[1], "method": self.command, "path": self.path,
                "auth": self.headers.get("Authorization"), "csrf": self.headers.get("X-CSRF"),
                "cookie": self.headers.get("Cookie"), "xloc": self.headers.get("X-Loc"), "token_port": STATE["tokens"].get(token)}) + "\n")
            self.logf.flush()

    def token(self):
        a = self.headers.get("Authorization") or ""
        return a[7:] if a.startswith("Bearer ") else None

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def do_POST(self):
        data = self.body()
        tok = self.token()
        self.record(tok)
        if self.path == "/login":
            try:
                ok = json.loads(data or b"{}").get("pass") == self.password
            except ValueError:
                ok = False
            if not ok:
                return self.answer(401, {"ok": False, "error": "bad password"})
            with LOCK:
                STATE["n"] += 1
                t, sid = "t-%d" % STATE["n"], "s-%d" % STATE["n"]
                STATE["tokens"][t] = self.client_address[1]
                STATE["sids"].add(sid)
            return self.answer(200, {"ok": True, "token": t}, [("Set-Cookie", "sid=%s; Path=/; HttpOnly" % sid)])
        if self.path == "/items":
            if tok not in STATE["tokens"]:
                return self.answer(401, {"ok": False, "error": "no token"})
            with LOCK:
                STATE["items"] += 1
                n = STATE["items"]
            return self.answer(201, {"ok": True, "id": n}, [("Location", "/items/%d" % n)])
        if self.path == "/form":
            ok = self.headers.get("X-CSRF") in STATE["csrf"]
            return self.answer(200 if ok else 403, {"ok": ok})
        self.answer(404, {"ok": False})

    def do_GET(self):
        tok = self.token()
        self.record(tok)
        if self.path == "/flaky":
            with LOCK:
                STATE["flaky"] += 1
                bad = STATE["flaky"] % 10 == 0
            return self.answer(200, {"ok": not bad})
        if self.path == "/form":
            with LOCK:
                STATE["n"] += 1
                c = "c-%d" % STATE["n"]
                STATE["csrf"].add(c)
            page = ('<html><form method="post"><input type="hidden" name="csrf" value="%s"></form></html>\n' % c).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)
            return
        if self.path == "/me":
            sid = (self.headers.get("Cookie") or "").replace("sid=", "")
            return self.answer(200 if sid in STATE["sids"] else 401, {"ok": sid in STATE["sids"]})
        if self.path.startswith("/items"):
            if tok not in STATE["tokens"]:
                return self.answer(401, {"ok": False, "error": "no token"})
            if self.path == "/items":
                return self.answer(200, {"ok": True, "items": [{"id": 1}, {"id": 2}]})
            return self.answer(200, {"ok": True, "id": int(self.path.rsplit("/", 1)[1])})
        self.answer(404, {"ok": False})


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    allow_reuse_address = True
    daemon_threads = True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--password", default="secret")
    a = ap.parse_args()
    Handler.password = a.password
    Handler.logf = open(a.log, "a")
    srv = Server(("127.0.0.1", a.port), Handler)
    print("listening on 127.0.0.1:%d" % a.port, flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
