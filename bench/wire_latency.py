#!/usr/bin/env python3
"""How far rafale's latencies are from the wire's: one connection to
`rafale serve`, held against a packet capture of loopback.

`rafale serve -t 1` runs on CPU 0, `rafale -t 1 -c 1 -n N --log` on CPU 1,
and tcpdump captures lo with nanosecond timestamps. A request's latency on
the wire runs from its request segment to the last segment of its answer
(one connection, no pipelining: the answers come in the requests' order).
Each request is paired with its --log line, so the error is known per
request, not only percentile against percentile.

It runs rafale four ways: --timestamps kernel and user, on a quiet client
CPU and on one shared with a busy process (a spinning loop on CPU 1), and
prints, for each, the wire's p50/p90/p99, rafale's (the JSON's latency,
from its histogram), and the median per-request error of the kernel-stamped
figure (total_us) and of the user one (user_total_us).

usage: bench/wire_latency.py [-n N] [--rafale BIN] [--runs quiet,busy] [--modes kernel,user]
Needs root (or CAP_NET_RAW) for tcpdump; only 127.0.0.1 is contacted.
"""
import argparse
import bisect
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVER_CPU, TOOL_CPU = "0", "1"

LINE = re.compile(r"^(\d+\.\d+) IP 127\.0\.0\.1\.(\d+) > 127\.0\.0\.1\.(\d+): .*seq (\d+):(\d+), ack (\d+)")


def capture_start(port, pcap):
    """tcpdump on lo for the segments that carry data to or from port; returns once it listens."""
    p = subprocess.Popen(["tcpdump", "-i", "lo", "-n", "-s", "128", "-B", "32768", "--time-stamp-precision=nano",
                          "-w", pcap, "tcp port %d and (tcp[tcpflags] & tcp-push != 0)" % port],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    line = p.stderr.readline()
    if "listening" not in line:
        p.kill()
        p.wait()
        raise RuntimeError("tcpdump: " + (line.strip() or "did not start"))
    return p


def capture_stop(p):
    """Stops tcpdump; returns the packets the kernel dropped. tcpdump reads its ring once a second (its buffer
    timeout): stopped sooner, it would lose the last packets it had not read."""
    time.sleep(1.5)
    p.send_signal(signal.SIGINT)
    err = p.communicate(timeout=30)[1]
    m = re.search(r"(\d+) packets? dropped by kernel", err)
    return int(m.group(1)) if m else 0


def wire_requests(pcap, port):
    """Each request on the wire, in order: (ns of its request segment, ns to the last segment of its answer).
    A request is known by where its bytes end (absolute sequence numbers), its answer by acknowledging them."""
    out = subprocess.run(["tcpdump", "-r", pcap, "-n", "-tt", "-S", "--time-stamp-precision=nano"],
                         capture_output=True, text=True, check=True).stdout
    sent, answered = {}, {}
    for line in out.splitlines():
        m = LINE.match(line)
        if not m or m.group(4) == m.group(5):
            continue
        sec, frac = m.group(1).split(".")
        t = int(sec) * 10**9 + int(frac.ljust(9, "0")[:9])
        if int(m.group(3)) == port:
            sent.setdefault(int(m.group(5)), t)
        else:
            answered[int(m.group(6))] = t
    return sorted((t, answered[end] - t) for end, t in sent.items() if end in answered)


def pair(rows, start_unix_s, wire):
    """Each --log row with its request on the wire: [(row, wire latency ns)]. One connection without pipelining
    sends its requests in order, so when the capture holds as many requests as the log, the i-th row is the
    i-th request. Else the log's times (µs from its start) and the capture's (wall clock) differ by an offset,
    taken as the median over the first rows, and a row goes with the request nearest its time, within 15 µs, or
    with none: a request whose write was held up longer than that goes unpaired."""
    if not rows or not wire:
        return []
    if len(rows) == len(wire):
        return [(r, w[1]) for r, w in zip(rows, wire)]
    wt = [t for t, _ in wire]
    t0 = start_unix_s * 1e9
    k = min(len(rows), len(wire), 101)
    off = statistics.median(wt[i] - (t0 + rows[i]["t_us"] * 1e3) for i in range(1, k) or [0])
    out, used = [], set()
    for r in rows:
        want = t0 + r["t_us"] * 1e3 + off
        i = bisect.bisect_left(wt, want)
        best = min((j for j in (i - 1, i) if 0 <= j < len(wt)), key=lambda j: abs(wt[j] - want))
        if abs(wt[best] - want) < 15000 and best not in used:
            used.add(best)
            out.append((r, wire[best][1]))
    return out


def pct(xs, p):
    s = sorted(xs)
    return s[min(len(s) - 1, int(p / 100.0 * len(s)))] if s else float("nan")


def read_log(path):
    """The --log's start (wall clock, s) and its rows in the order they were sent."""
    lines = [json.loads(l) for l in open(path)]
    return lines[0]["start_unix_s"], sorted(lines[1:], key=lambda x: x["t_us"])


def measure(rafale, url, port, n, mode, tmp, extra=(), cpu=TOOL_CPU):
    """One run under capture: ([(log row, wire µs)], result JSON, dropped packets, [wire µs of every request
    captured])."""
    pcap, log, js = (os.path.join(tmp, "%s.%s" % (mode, e)) for e in ("pcap", "log", "json"))
    cap = capture_start(port, pcap)
    try:
        cmd = [rafale, "-t", "1", "-c", "1", "-n", str(n), "--timestamps", mode, "--log", log, "--json", js, *extra,
               url]
        subprocess.run((["taskset", "-c", cpu] if cpu else []) + cmd, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    finally:
        dropped = capture_stop(cap)
    start, rows = read_log(log)
    wire = wire_requests(pcap, port)
    return ([(r, w / 1000.0) for r, w in pair(rows, start, wire)], json.load(open(js)), dropped,
            [w / 1000.0 for _, w in wire])


def summary(pairs, j, wire_all=None):
    """The figures the README quotes: wire and reported percentiles (every request captured, as the JSON has
    every request), per-request errors (µs). --log writes whole µs, cut down: a row's figure is taken at the
    middle of its µs, else the errors would read half a µs low."""
    wire = wire_all if wire_all else [w for _, w in pairs]
    k = [r["total_us"] + 0.5 - w for r, w in pairs]
    u = [r["user_total_us"] + 0.5 - w for r, w in pairs]
    rep = j["latency"]["percentiles_us"]
    return {"paired": len(pairs), "requests": j["summary"]["requests"],
            "wire": [pct(wire, p) for p in (50, 90, 99)],
            "reported": [rep["50"], rep["90"], rep["99"]],
            "err_kernel": statistics.median(k) if k else float("nan"),
            "err_user": statistics.median(u) if u else float("nan"),
            "client_delay_p99": j["client_delay"]["percentiles_us"]["99"] if j.get("client_delay", {}).get("count")
            else None}


def within(s):
    """The done-when bounds: p50, p90 within max(5 µs, 5%) of the wire; p99 within max(10 µs, 10%)."""
    ok = all(abs(r - w) <= max(5, 0.05 * w) for r, w in zip(s["reported"][:2], s["wire"][:2]))
    return ok and abs(s["reported"][2] - s["wire"][2]) <= max(10, 0.10 * s["wire"][2])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", type=int, default=20000)
    ap.add_argument("--rafale", default=os.path.join(ROOT, "rafale"))
    ap.add_argument("--runs", default="quiet,busy")
    ap.add_argument("--modes", default="kernel,user")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="rafale-wire-")
    srv = subprocess.Popen(["taskset", "-c", SERVER_CPU, a.rafale, "serve", "-t", "1", "-l", "127.0.0.1:0"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    port = int(srv.stdout.readline().split(":")[-1])
    url = "http://127.0.0.1:%d/" % port
    print("| client CPU | --timestamps | wire p50 / p90 / p99 µs | rafale p50 / p90 / p99 µs | median error µs "
          "(kernel, user) | client_delay p99 µs | within bounds |")
    print("|---|---|---|---|---|---|---|")
    try:
        for run in a.runs.split(","):
            busy = None
            if run == "busy":
                busy = subprocess.Popen(["taskset", "-c", TOOL_CPU, sys.executable, "-c", "while True: pass"])
                time.sleep(0.5)
            try:
                for mode in a.modes.split(","):
                    pairs, j, dropped, wire_all = measure(a.rafale, url, port, a.n, mode, tmp)
                    s = summary(pairs, j, wire_all)
                    note = "" if s["paired"] == s["requests"] and not dropped else \
                        " (paired %d of %d, %d dropped)" % (s["paired"], s["requests"], dropped)
                    print("| %s | %s | %.1f / %.1f / %.1f | %.1f / %.1f / %.1f | %+.1f, %+.1f | %s | %s%s |" % (
                        run, mode, *s["wire"], *s["reported"], s["err_kernel"], s["err_user"],
                        s["client_delay_p99"] if s["client_delay_p99"] is not None else "-",
                        "yes" if within(s) else "no", note), flush=True)
            finally:
                if busy:
                    busy.kill()
                    busy.wait()
    finally:
        srv.send_signal(signal.SIGINT)
        srv.wait()


if __name__ == "__main__":
    main()
