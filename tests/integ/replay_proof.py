"""rafale replay's evidence (issue 43): a server's stall shows in the corrected latency of the requests due during
it; a log far larger than memory streams through a FIFO in bounded memory, every line counted; a log written by
Debian's nginx, in combined and in a $msec JSON format, replayed against the same nginx comes back as the same
request lines, in the same order, at the same gaps."""
import json
import os
import re
import selectors
import socket
import statistics
import threading
import time

import common
from common import *
from replay import sent

T0 = 1700000000.0
OK = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"


def json_line(t, method, uri):
    return json.dumps({"msec": "%.3f" % t, "request_method": method, "request_uri": uri, "status": 200})


class StallServer:
    """An HTTP/1.1 server on one thread (every connection waits on it, as on a process stopped by a GC pause or a
    lock): it answers at once, except that on its `at`-th request it stalls `stall` seconds before answering."""

    def __init__(self, at, stall):
        self.at, self.stall = at, stall
        self.count = 0
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1024)
        self.sock.setblocking(False)
        self.port = self.sock.getsockname()[1]
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.sock, selectors.EVENT_READ)
        self.stopping = False
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()

    def url(self, path=""):
        return "http://127.0.0.1:%d%s" % (self.port, path)

    def loop(self):
        bufs = {}
        while not self.stopping:
            for key, _ in self.sel.select(0.05):
                s = key.fileobj
                if s is self.sock:
                    try:
                        c, _ = self.sock.accept()
                    except OSError:
                        continue
                    c.setblocking(False)
                    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                    bufs[c] = b""
                    self.sel.register(c, selectors.EVENT_READ)
                    continue
                try:
                    d = s.recv(65536)
                except OSError:
                    d = b""
                if not d:
                    self.sel.unregister(s)
                    s.close()
                    del bufs[s]
                    continue
                bufs[s] += d
                while b"\r\n\r\n" in bufs[s]:
                    bufs[s] = bufs[s].split(b"\r\n\r\n", 1)[1]
                    self.count += 1
                    if self.count == self.at:
                        time.sleep(self.stall)
                    s.setblocking(True)
                    s.sendall(OK)
                    s.setblocking(False)

    def stop(self):
        self.stopping = True
        self.thread.join(timeout=5)
        self.sock.close()


def at_least(hist, us):
    """How many of a JSON histogram's latencies ([upper bound in us, count] pairs) are at least us."""
    return sum(n for upper, n in hist if upper >= us)


@test
def replay_stall_shows_in_corrected_latency():
    # 400 requests 2 ms apart (0.8 s of log); the server stalls 300 ms on its 100th. The requests due during the
    # stall wait for it: their latency, counted from their due time, runs from 300 ms down, whatever this
    # machine's speed (a slower one only adds to it). On one connection, those requests go out late, after the
    # stall: the uncorrected figure, from their sending, hides it (coordinated omission), and the send lag says why.
    path = os.path.join(TMP, "steady.log")
    with open(path, "w") as f:
        f.write("".join(json_line(T0 + i * 0.002, "GET", "/s/%d" % i) + "\n" for i in range(400)))
    for conns in (["-c", 1], []):
        srv = StallServer(at=100, stall=0.3)
        try:
            jpath = os.path.join(TMP, "stall.json")
            rc, out, err = run_raw(["replay", "--json", jpath] + conns + [path, srv.url()])
            check(rc == 0 and srv.count == 400, "%s: rc %d, the server answered 400 (%d): %s" % (conns, rc, srv.count,
                                                                                                 err))
            with open(jpath) as f:
                j = json.load(f)
        finally:
            srv.stop()
        lat, unc, lag = j["latency"], j["latency_uncorrected"], j["send_lag"]
        p99, p99u = lat["percentiles_us"]["99"], unc["percentiles_us"]["99"]
        check(j["summary"]["requests"] == 400 and accounted(j) and lat["count"] == 400 and unc["count"] == 400,
              "%s: 400 requests in both figures (%d, %d)" % (conns, lat["count"], unc["count"]))
        check(p99 >= 250e3 and lat["max_us"] >= 290e3, "%s: the corrected p99 and max show the 300 ms stall: "
              "p99 %.1f ms, max %.1f ms" % (conns, p99 / 1e3, lat["max_us"] / 1e3))
        # Due 2 ms apart, the requests due in the stall's first 150 ms waited 150 ms or more: 76 of them.
        late = at_least(lat["histogram"], 150e3)
        check(70 <= late <= 400, "%s: the requests due during the stall waited for it: %d of at least 150 ms"
              % (conns, late))
        check(re.search(r"\n  uncorr\. .*\n", out) and re.search(r"\nSend lag      p50 .*, max .* behind", out),
              "%s: the uncorrected figure and the send lag shown beside: %s" % (conns, out))
        if conns:
            check(lag["max_us"] >= 250e3 and p99u < p99, "-c 1: the requests due during the stall were sent after "
                  "it (send lag max %.1f ms): uncorrected p99 %.1f ms, corrected %.1f ms"
                  % (lag["max_us"] / 1e3, p99u / 1e3, p99 / 1e3))


def fifo_writer(fifo, total, gets, said):
    """Writes a generated log of about `total` bytes into fifo: POST lines (replay skips them without a request),
    a GET first and `gets` - 1 more spread through it. said: the lines written, by method, or the error met."""
    post = (json_line(T0, "POST", "/api/v1/orders/12345?x=1") + "\n").encode()
    per = (1 << 20) // len(post)
    block = post * per
    nblocks = max(1, total // len(block))
    every = max(1, nblocks // (gets - 1))
    n_post = n_get = size = 0
    try:
        with open(fifo, "wb", buffering=0) as w:
            for b in range(nblocks + 1):
                if n_get < gets and (b == 0 or b % every == 0 or b == nblocks):
                    size += w.write((json_line(T0 + n_get * 0.01, "GET", "/g/%d" % n_get) + "\n").encode())
                    n_get += 1
                if b < nblocks:
                    size += w.write(block)
                    n_post += per
    except OSError as e:
        said["error"] = repr(e)
    said["POST"], said["GET"], said["bytes"] = n_post, n_get, size


@test
def replay_streams_a_huge_log_in_bounded_memory():
    # A generated log of 1 GiB (256 MiB with the sanitizers, whose parse is four times slower), through a FIFO,
    # so never on disk nor seekable (as <(zcat access.log.gz)): its lines are read once, as they come. Nearly all
    # are POST lines, skipped without a request, so the run is the reader's: rafale's peak memory stays that of a
    # small log, and every line is counted. Measured: 1 GiB in 3.6 s, 15 MiB at most.
    total = (256 if SANITIZED else 1024) << 20
    fifo = os.path.join(TMP, "huge.fifo")
    os.mkfifo(fifo)
    rec = RecServer()
    said = {}
    writer = threading.Thread(target=fifo_writer, args=(fifo, total, 5, said), daemon=True)
    writer.start()
    out, err = open(os.path.join(TMP, "huge.out"), "w+"), open(os.path.join(TMP, "huge.err"), "w+")
    try:
        p = subprocess.Popen([RAFALE, "replay", "-q", "-c", "1", fifo, rec.url("")], stdout=out, stderr=err)
        # A hang is a failure: a reader that opened the FIFO twice waits for a writer that is gone.
        watchdog = threading.Timer(60, p.kill)
        watchdog.start()
        _, status, usage = os.wait4(p.pid, 0)
        watchdog.cancel()
        p.returncode = os.waitstatus_to_exitcode(status)
        writer.join(timeout=30)
    finally:
        rec.stop()
    err.seek(0)
    text = err.read()
    check("Sanitizer" not in text and "runtime error" not in text, "ran clean:\n" + text[:3000])
    check(p.returncode == 0 and "error" not in said, "rc %d, the whole log written (%s): %s" % (p.returncode, said,
                                                                                             text))
    lines = said["POST"] + said["GET"]
    check(said["bytes"] > total * 0.99, "a log of %d MiB written: %d lines" % (said["bytes"] >> 20, lines))
    check("rafale replay: 5 requests of %d lines replayed" % lines in text and
          "skipped for their method (not in --methods): %d POST\n" % said["POST"] in text,
          "every line counted: %d GET, %d POST: %s" % (said["GET"], said["POST"], text))
    check([r[2] for r in rec.records] == ["/g/%d" % i for i in range(5)],
          "the GETs sent, the first line's too: %s" % [r[2] for r in rec.records])
    bound = (160 if SANITIZED else 64) << 20
    check(usage.ru_maxrss * 1024 < bound, "peak memory %.1f MiB, under %d MiB" % (usage.ru_maxrss / 1024,
                                                                                   bound >> 20))


# The JSON format of the README's example: nginx's $msec, the request's method and target, its status.
NGINX_JSON = ('{"msec":"$msec","request_method":"$request_method","request_uri":"$request_uri",'
              '"status":"$status"}')


def nginx_requests(path, fmt, n):
    """The (time, method, target) of each line of an nginx access log in fmt, once it holds n lines (nginx writes a
    request's line after its answer), or 10 s have passed."""
    until = time.monotonic() + 10
    while time.monotonic() < until:
        with open(path) as f:
            lines = f.readlines()
        if len(lines) >= n:
            break
        time.sleep(0.01)
    out = []
    for line in lines:
        if fmt == "combined":
            m = re.search(r'\[(\d+/\w+/\d+:\d+:\d+:\d+ [+-]\d+)\] "(\S+) (\S+) HTTP/1\.1"', line)
            t = time.mktime(time.strptime(m.group(1)[:20], "%d/%b/%Y:%H:%M:%S"))
            out.append((t, m.group(2), m.group(3)))
        else:
            d = json.loads(line)
            out.append((float(d["msec"]), d["request_method"], d["request_uri"]))
    return out


# The load's mix: a GET of an id, a HEAD, a query, the root.
MIX = "GET {u}/users/{{seq}}\n\nHEAD {u}/static/app.js\n\nGET {u}/items?page={{rand 1 5}}&sort=name\n\nGET {u}/\n"


@test
def replay_nginx_log_back_to_nginx():
    N = 300
    # A load through Debian's nginx logs its requests; replayed against the same nginx (its log moved aside first),
    # nginx logs the same request lines, in the same order (one connection: sent one after another), at the same
    # gaps. A $msec log keeps each gap to the millisecond: each log rounds its stamps to one, so two gaps differ by
    # up to 2 ms from the stamps alone. A combined log's stamps are seconds: its seconds' span is kept.
    for fmt in ("json", "combined"):
        ng = Nginx(log="combined" if fmt == "combined" else NGINX_JSON)
        check(ng.ok, "nginx is installed and listens (make deps installs it)")
        if not ng.ok:
            return
        try:
            # 1.5 s of load at 200 req/s, then the log as nginx wrote it, then emptied for the replay.
            r = rafale("--targets", targets_file("mix.targets", MIX.replace("{u}", ng.url(""))), "-R", 200, "-n", N,
                       "-c", 4)
            check(r.rc == 0 and r.j["summary"]["requests"] == N, "%s: the load ran: %s" % (fmt, r.err))
            logged = nginx_requests(ng.log, fmt, N)
            check(len(logged) == N, "%s: nginx logged the %d requests (%d)" % (fmt, N, len(logged)))
            saved = os.path.join(TMP, "access.%s" % fmt)
            os.rename(ng.log, saved)
            os.kill(ng.p.pid, signal.SIGUSR1)  # nginx reopens its log: a new file for the replay
            until = time.monotonic() + 10
            while not os.path.exists(ng.log) and time.monotonic() < until:
                time.sleep(0.01)
            jpath, sent_log = os.path.join(TMP, "replay.json"), os.path.join(TMP, "replay-%s.csv" % fmt)
            rc, out, err = run_raw(["replay", "-q", "--json", jpath, "--log", sent_log, "-c", 1, saved, ng.url("")])
            replayed = nginx_requests(ng.log, fmt, N)
        finally:
            ng.stop()
        with open(jpath) as f:
            j = json.load(f)
        check(rc == 0 and j["summary"]["requests"] == N and j["summary"]["errors"] == 0 and
              "rafale replay: %d requests of %d lines replayed" % (N, N) in err,
              "%s: the %d lines replayed, all answered: rc %d, %s" % (fmt, N, rc, err))
        check([x[1:] for x in replayed] == [x[1:] for x in logged],
              "%s: nginx's second log holds the first's request lines in its order: %s / %s"
              % (fmt, replayed[:3], logged[:3]))
        check({x[1] for x in logged} == {"GET", "HEAD"}, "%s: GET and HEAD logged" % fmt)
        span1, span2 = logged[-1][0] - logged[0][0], replayed[-1][0] - replayed[0][0]
        if fmt == "json":
            # The gaps as rafale scheduled them (its --log: each request's due time) and as nginx logged them again.
            # nginx's $msec is when it writes its log line: beside a CPU-bound process its second log's gaps ran
            # 3-12 ms, then 0, around the first log's steady 5 ms, one connection waiting on each late answer. So
            # the sender's own stamps say whether the gaps were kept; that it sends at its due times is measured
            # alone (replay_sends_at_the_due_time).
            due, _ = sent(sent_log)
            want = gaps([x[0] for x in logged])
            off = [abs(a - b) for a, b in zip(gaps([x[0] for x in replayed]), want)]
            off_sent = [abs(a - b) for a, b in zip(gaps(due), want)]
            check(len(due) == N and max(off_sent) <= 0.0001,
                  "json: the gaps of nginx's $msec kept as rafale scheduled them: worst difference %.3f ms (%d sends)"
                  % (max(off_sent) * 1e3 if off_sent else -1, len(due)))
            if statistics.median(off) > 0.002:
                print("  json: nginx's second log moved its gaps (median difference %.2f ms): its stamps are when it "
                      "logs, late on a busy machine" % (statistics.median(off) * 1e3))
            check(abs(span2 - span1) < 0.05 * span1, "json: the span kept: %.3f s logged, %.3f s replayed"
                  % (span1, span2))
        else:
            check(abs(span2 - span1) <= 1, "combined: the span kept to the second: %d s logged, %d s replayed"
                  % (span1, span2))


def gaps(times):
    return [b - a for a, b in zip(times, times[1:])]


@test
def replay_healthy_declining_log_no_false_alarm():
    # A log's traffic is not steady: its rate is the day's (here it falls from 1 500 to 150 requests a second over
    # 11 s, as at night). Replayed against a healthy rafale serve, the throughput follows the log, as -R's follows
    # its rate: the rules that judge a closed loop (the throughput's drift, rafale's late reads throttling the load,
    # a queue behind the connections, both sides idle) must stay silent.
    t, lines = T0, []
    while t < T0 + 11:
        lines.append(json_line(t, "GET", "/"))
        t += 1.0 / (1500 - 1350 * (t - T0) / 11)
    path = os.path.join(TMP, "declining.log")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    srv = Serve()
    try:
        jpath = os.path.join(TMP, "declining.json")
        # --monitor: the server's CPU known, the rest of the machine's is measured (noisy_neighbour). Beside a
        # CPU-bound process the median latency rose 0.06 -> 0.28 ms as the log's rate fell (each wake-up of the
        # server had to take a CPU back from it), which not_steady rightly saw; noisy_neighbour now names the cause.
        rc, out, err = run_raw(["replay", "-q", "--json", jpath, "--monitor", str(srv.p.pid), path, srv.url("")])
    finally:
        srv.stop()
    with open(jpath) as f:
        j = json.load(f)
    check(rc == 0 and j["summary"]["requests"] == len(lines), "rc %d, %d requests: %s" % (rc, len(lines), err))
    said = [x["id"] for x in j["findings"]]
    check(not {"not_steady", "client_delay", "queueing", "server_waiting"} & set(said),
          "no closed-loop rule on a replay: %s" % j["findings"])
