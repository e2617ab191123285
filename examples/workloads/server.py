#!/usr/bin/env python3
"""A small JSON API for the workloads example, which counts what it receives.

POST /login sets a session cookie and answers {"ok": true, "token": ...};
/items (GET, POST) and /items/N want that cookie or the token as
"Authorization: Bearer TOKEN" (401 without either); POST /items answers the
new item's id and its Location. GET /_counts answers the counts as JSON: requests per
route and status, request ids seen twice, bodies that are not valid JSON, and
the owners named in created items. Listens on 127.0.0.1 only.

usage: server.py [PORT]   (default 18080; the first line on stdout says so)
"""
import json
import os
import socket
import sys
import threading

lock = threading.Lock()
counts = {}
sessions = set()
request_ids = set()
dup_ids = 0
bad_json = 0
owners = {}
next_id = 0


def count(key):
    counts[key] = counts.get(key, 0) + 1


def answer(method, path, headers, body):
    global dup_ids, bad_json
    global next_id
    cookie = headers.get("cookie", "")
    sid = None
    for part in cookie.split(";"):
        k, _, v = part.strip().partition("=")
        if k == "sid":
            sid = v
    auth = headers.get("authorization", "")
    if auth.startswith("Bearer "):
        sid = auth[7:]
    route = path.split("?")[0]
    if route.startswith("/items/"):
        route = "/items/N"
    if path == "/_counts":
        with lock:
            doc = dict(counts=counts, duplicate_request_ids=dup_ids, bad_json=bad_json, owners=owners)
        return 200, json.dumps(doc, sort_keys=True).encode(), b""
    with lock:
        if method == "POST" and route == "/login":
            sid = os.urandom(8).hex()
            sessions.add(sid)
            count("%s %s 200" % (method, route))
            return 200, b'{"ok": true, "token": "%s"}' % sid.encode(), b"Set-Cookie: sid=%s; Path=/; HttpOnly\r\n" % sid.encode()
        if route not in ("/items", "/items/N"):
            count("%s %s 404" % (method, route))
            return 404, b'{"error": "no such route"}', b""
        if sid not in sessions:
            count("%s %s 401" % (method, route))
            return 401, b'{"error": "log in first"}', b""
        if method == "POST":
            rid = headers.get("x-request-id", "")
            if rid in request_ids:
                dup_ids += 1
            request_ids.add(rid)
            try:
                item = json.loads(body)
                owners[item["owner"]] = owners.get(item["owner"], 0) + 1
            except (ValueError, KeyError):
                bad_json += 1
            count("%s %s 201" % (method, route))
            next_id += 1
            return 201, b'{"ok": true, "id": %d}' % next_id, b"Location: /items/%d\r\n" % next_id
        count("%s %s 200" % (method, route))
        if route == "/items/N":
            return 200, b'{"ok": true, "id": %s}' % path.split("?")[0].rsplit("/", 1)[1].encode(), b""
        return 200, b'{"ok": true, "items": [{"id": 1, "name": "item"}]}', b""


def handle(c):
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
            for line in lines[1:]:
                k, _, v = line.partition(":")
                headers[k.strip().lower()] = v.strip()
            n = int(headers.get("content-length", "0"))
            while len(buf) < n:
                d = c.recv(65536)
                if not d:
                    return
                buf += d
            body, buf = buf[:n], buf[n:]
            status, payload, extra = answer(method, path, headers, body)
            reason = {200: b"OK", 201: b"Created", 401: b"Unauthorized", 404: b"Not Found"}[status]
            c.sendall(b"HTTP/1.1 %d %s\r\nContent-Type: application/json\r\n%sContent-Length: %d\r\n\r\n%s"
                      % (status, reason, extra, len(payload), payload))
    except (OSError, ValueError):
        pass
    finally:
        c.close()


def main():
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 18080
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", port))
    s.listen(256)
    print("listening on 127.0.0.1:%d" % port, flush=True)
    while True:
        c, _ = s.accept()
        threading.Thread(target=handle, args=(c,), daemon=True).start()


if __name__ == "__main__":
    main()
