#!/usr/bin/env python3
"""Small HTTP servers that make each of rafale's findings happen, on 127.0.0.1, with the standard library only.

usage: findings_server.py MODE --port N [--backlog N] [--log FILE] [--ms N] [--workers N] [--marker TEXT]

  single   one connection at a time (http.server.HTTPServer), head and body in one write: starves the others
  nagle    a thread per connection, head and body in two writes, Nagle on: the delayed-ACK stall
  slow     asyncio, every connection accepted, 4 requests served at once, 20 ms each: queueing
  busy     one connection at a time, 2 ms (or --ms N) of CPU per request, pinned to one CPU: CPU-bound
  ka100    a thread per connection, closes each keep-alive connection after 100 responses
  log      a thread per connection, a log line per request to --log FILE (or stdout), in one write() (--log-bytes
           N: each line padded to N bytes); the answers by send()
  gateway  a thread per connection, each request passed on with write() over a unix socket to a thread that reads
           it (as mod_wsgi passes requests to its daemon processes): writes per request that are not logging
  sleep    a thread per connection, --ms N milliseconds per request (--alternate N: 1.6 times it in every
           other block of N requests, counted over the whole server, the first block cheap (with --costly-first,
           dear): a cost that changes from run to run;
           --shed N: every Nth request, counted over the whole server, an instant 503 instead: a server
           that sheds a little load; --grow F: each answer's time grows by F times --ms for every second since
           the server's first answer, a server that slows as it runs; --slow-after N: only the answers after the
           Nth, counted over the whole server, take --ms, the others none: a few slow requests at a run's end)
  redirect a thread per connection, --status N (302) with Location: /next and an empty body (--escape: a
           Location with a terminal's escape sequences in it; --c1: with C1 controls, UTF-8 encoded)
  stream   a thread per connection, a head, then one byte of an event stream every --ms N milliseconds, forever
  cpuqueue asyncio, every connection accepted, --ms N milliseconds of CPU per request in the event loop, pinned to
           one CPU: a queue in front of one busy CPU, its first answers already waiting behind each other
  grow     asyncio, every connection accepted, --ms N milliseconds (a sleep) per request in a pool of worker threads
           that starts with one and adds one every 0.2 s while requests wait, up to --workers N (8)
  blocking asyncio, every answer blocking the event loop --ms N milliseconds (a synchronous handler in an
           asynchronous server): connections are accepted only between answers, so a small --backlog overflows

It prints "listening on 127.0.0.1:PORT" once ready."""
import argparse
import asyncio
import http.server
import os
import socket
import socketserver
import sys
import threading
import time

BODY = b"hello from a findings server\n"
# What gateway mode passes on per request: a request's head and its environment, as mod_wsgi sends them.
GATEWAY_REQUEST = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"X-Env: " + b"e" * 160 + b"\r\n\r\n"
WHOLE = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n%s" % (len(BODY), BODY)


def read_head(f):
    """One request's head from a file object; False at EOF."""
    line = f.readline(65537)
    if not line:
        return False
    while True:
        h = f.readline(65537)
        if not h or h in (b"\r\n", b"\n"):
            return True


class Handler(socketserver.StreamRequestHandler):
    mode = "single"
    ms = 0
    alternate = 0
    costly_first = 0
    shed = 0
    grow = 0
    began = 0
    slow_after = 0
    lock = None
    status = 302
    logf = None
    log_bytes = 0
    served = 0

    def handle(self):
        try:
            self.serve()
        except ConnectionError:
            pass  # rafale closes what is left at the end of a run

    def serve(self):
        n = 0
        if self.mode == "busy":
            # Its pipelined answers go out as they are made, as a CPU-bound server's do (nginx sets tcp_nodelay):
            # with Nagle, the second of four waited for the client's delayed ACK, 40 ms a round, and the server
            # idled half the run (84 answers a second of 5 ms of CPU each).
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        while read_head(self.rfile):
            n += 1
            if self.mode == "nagle":
                head = WHOLE[:WHOLE.index(b"\r\n\r\n") + 4]
                self.connection.sendall(head)
                self.connection.sendall(BODY)
                continue
            if self.mode == "busy":
                end = time.process_time() + (self.ms or 2) / 1000.0
                while time.process_time() < end:
                    pass
            if self.mode == "stream":
                self.connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n")
                while True:
                    time.sleep(self.ms / 1000.0)
                    self.connection.sendall(b":")
            if self.mode == "redirect":
                self.connection.sendall(b"HTTP/1.1 %d Found\r\nLocation: %s\r\nContent-Length: 0\r\n\r\n"
                                        % (self.status, self.location))
                continue
            if self.mode == "sleep":
                factor = 1
                if self.slow_after:
                    with self.lock:
                        Handler.served += 1
                        factor = 1 if Handler.served > self.slow_after else 0
                    time.sleep(self.ms / 1000.0 * factor)
                    self.connection.sendall(WHOLE)
                    continue
                if self.alternate or self.shed:
                    with self.lock:
                        factor = 1.6 if self.alternate and (Handler.served // self.alternate + self.costly_first) % 2 else 1
                        Handler.served += 1
                        if self.shed and Handler.served % self.shed == 0:
                            factor = 0
                if factor == 0:
                    self.connection.sendall(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n")
                    continue
                if self.grow:
                    with self.lock:
                        Handler.began = Handler.began or time.monotonic()
                    factor *= 1 + self.grow * (time.monotonic() - Handler.began)
                time.sleep(self.ms / 1000.0 * factor)
            if self.mode == "log":
                line = ('127.0.0.1 - - [%s] "GET / HTTP/1.1" 200 %d "-" "rafale"'
                        % (time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime()), len(BODY)))
                if self.log_bytes:
                    line = line[:self.log_bytes - 1].ljust(self.log_bytes - 1)
                # One write() a line, as a logging server makes it: the file object's buffer, shared by the
                # threads, joined two threads' lines in one call now and then (2924 calls for 3000 lines).
                os.write(self.logf.fileno(), (line + "\n").encode())
            if self.mode == "gateway":
                with self.lock:
                    os.write(Handler.gateway.fileno(), GATEWAY_REQUEST)
            if self.mode == "ka100" and n == 100:
                self.connection.sendall(WHOLE.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n", 1))
                return
            self.connection.sendall(WHOLE)


class OneAtATime(socketserver.TCPServer):
    allow_reuse_address = True


class Threaded(socketserver.ThreadingMixIn, socketserver.TCPServer):
    allow_reuse_address = True
    daemon_threads = True


async def serve_each(port, backlog, answer):
    """asyncio: every connection accepted, each request answered after `await answer()`."""
    async def conn(reader, writer):
        try:
            while True:
                line = await reader.readline()
                if not line:
                    break
                while (await reader.readline()) not in (b"\r\n", b"\n", b""):
                    pass
                await answer()
                writer.write(WHOLE)
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        writer.close()

    srv = await asyncio.start_server(conn, "127.0.0.1", port, backlog=backlog, reuse_address=True)
    print("listening on 127.0.0.1:%d" % port, flush=True)
    async with srv:
        await srv.serve_forever()


async def cpuqueue(port, backlog, ms):
    async def answer():
        end = time.process_time() + ms / 1000.0
        while time.process_time() < end:
            pass
    await serve_each(port, backlog, answer)


async def grow(port, backlog, ms, most):
    """A pool that starts with one worker thread and grows while requests wait."""
    import queue
    loop = asyncio.get_running_loop()
    work = queue.Queue()
    workers = []

    def worker():
        while True:
            fut = work.get()
            time.sleep(ms / 1000.0)
            loop.call_soon_threadsafe(fut.set_result, None)

    def add():
        t = threading.Thread(target=worker, daemon=True)
        t.start()
        workers.append(t)

    def grower():
        while len(workers) < most:
            time.sleep(0.2)
            if work.qsize() > 0:
                add()

    add()
    threading.Thread(target=grower, daemon=True).start()

    async def answer():
        fut = loop.create_future()
        work.put(fut)
        await fut
    await serve_each(port, backlog, answer)


async def slow(port, backlog):
    sem = asyncio.Semaphore(4)

    async def answer():
        async with sem:
            await asyncio.sleep(0.02)
    await serve_each(port, backlog, answer)


async def blocking(port, backlog, ms):
    async def answer():
        time.sleep(ms / 1000.0)  # the whole loop waits: no accept, no other answer
    await serve_each(port, backlog, answer)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["single", "nagle", "slow", "busy", "ka100", "log", "sleep", "redirect",
                                         "stream", "cpuqueue", "grow", "blocking", "gateway"])
    ap.add_argument("--workers", type=int, default=8)
    ap.add_argument("--status", type=int, default=302)
    ap.add_argument("--alternate", type=int, default=0)
    ap.add_argument("--costly-first", action="store_true")
    ap.add_argument("--escape", action="store_true", help="redirect: a Location holding a terminal's escapes")
    ap.add_argument("--c1", action="store_true",
                    help="redirect: a Location holding C1 controls (UTF-8 bytes: valid obs-text in a field)")
    ap.add_argument("--shed", type=int, default=0)
    ap.add_argument("--grow", type=float, default=0)
    ap.add_argument("--slow-after", type=int, default=0)
    ap.add_argument("--ms", type=float, default=0)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--backlog", type=int, default=1024)
    ap.add_argument("--log")
    ap.add_argument("--log-bytes", type=int, default=0)
    ap.add_argument("--marker", default="")
    a = ap.parse_args()
    if a.mode == "slow":
        asyncio.run(slow(a.port, a.backlog))
        return
    if a.mode == "blocking":
        asyncio.run(blocking(a.port, a.backlog, a.ms or 10))
        return
    if a.mode in ("busy", "cpuqueue"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    if a.mode == "cpuqueue":
        asyncio.run(cpuqueue(a.port, a.backlog, a.ms or 5))
        return
    if a.mode == "grow":
        asyncio.run(grow(a.port, a.backlog, a.ms or 20, a.workers))
        return
    Handler.mode = a.mode
    Handler.ms = a.ms
    Handler.status = a.status
    Handler.location = (b"/n\x1b]0;pwned\x07\xc2\x9bext" if a.escape else b"/n\xc2\x9b31mred\xc2\x9d0;x\xc2\x9cext" if a.c1
                        else b"/next")
    Handler.alternate = a.alternate
    Handler.costly_first = int(a.costly_first)
    Handler.shed = a.shed
    Handler.grow = a.grow
    Handler.slow_after = a.slow_after
    Handler.lock = threading.Lock()
    Handler.logf = open(a.log, "a") if a.log else sys.stdout
    Handler.log_bytes = a.log_bytes
    if a.mode == "gateway":
        Handler.gateway, daemon = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        threading.Thread(target=lambda: [None for _ in iter(lambda: daemon.recv(65536), b"")], daemon=True).start()
    cls = OneAtATime if a.mode in ("single", "busy") else Threaded
    cls.request_queue_size = a.backlog
    srv = cls(("127.0.0.1", a.port), Handler, bind_and_activate=False)
    srv.server_bind()
    srv.server_activate()
    print("listening on 127.0.0.1:%d" % a.port, flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    main()
