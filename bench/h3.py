#!/usr/bin/env python3
"""HTTP/3: rafale --http3's CPU per request against ngtcp2's example client
(gtlsclient, Debian's ngtcp2-client) on the same server, and against rafale's
own HTTP/2 over TLS on the same content, at 1 and at 10 streams.

The server is `rafale serve --http3` with a certificate, pinned to CPU 0; it
answers HTTP/2 over TLS and HTTP/3 on one port, and its --h2-streams (1 or
10) is the streams a connection may have open at once, so both HTTP/3 clients
run at the same concurrency: gtlsclient opens one connection with -n N
streams, of which the server lets S be open; rafale runs -c 1 --streams S -n N.
Each tool is pinned to CPU 1; its user+sys CPU comes from the kernel's
accounting of the finished process (wait4), divided by the requests the
server counted for it. Rounds are interleaved; the table has the medians and
the ratios computed round by round. Only 127.0.0.1 is contacted.

usage: bench/h3.py [--rounds N] [--requests N] [--md FILE]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RAFALE = os.path.join(ROOT, "rafale")
TMP = tempfile.mkdtemp(prefix="rafale-bench-h3-")
PIN = os.cpu_count() and os.cpu_count() >= 2


def pinned(cpu, cmd):
    return (["taskset", "-c", cpu] if PIN else []) + cmd


class Serve:
    def __init__(self, streams, cert, key):
        self.out = open(os.path.join(TMP, "serve.out"), "w+")
        self.err = open(os.path.join(TMP, "serve.err"), "w+")
        self.p = subprocess.Popen(pinned("0", [RAFALE, "serve", "--listen", "127.0.0.1:0", "-t", "1", "--http3",
                                               "--h2-streams", str(streams), "--tls-cert", cert, "--tls-key", key]),
                                  stdout=self.out, stderr=self.err)
        for _ in range(200):
            self.out.seek(0)
            line = self.out.readline()
            if line.startswith("listening on "):
                self.addr = line.split()[2]
                return
            time.sleep(0.02)
        raise RuntimeError("rafale serve did not start")

    def requests(self):
        """Stops it; the requests it served."""
        self.p.terminate()
        self.p.wait(timeout=20)
        self.err.seek(0)
        for line in self.err.read().splitlines():
            if "requests served" in line:
                return int(line.split()[5])
        raise RuntimeError("rafale serve gave no count")


def timed(cmd):
    """Runs cmd on the tool CPU: (output, wall s, user+sys CPU s)."""
    t0 = time.monotonic()
    p = subprocess.Popen(pinned("1", cmd), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError("%s failed: %s" % (cmd[0], out[-500:]))
    return out, wall, ru.ru_utime + ru.ru_stime


def run(tool, streams, n, cert, key):
    """One run of tool against a fresh server: (requests the server counted, wall s, CPU s)."""
    srv = Serve(streams, cert, key)
    url = "https://%s/" % srv.addr
    host, port = srv.addr.rsplit(":", 1)
    if tool == "gtlsclient":
        cmd = ["gtlsclient", "-q", "--no-quic-dump", "--no-http-dump", "--exit-on-all-streams-close", "-n", str(n),
               host, port, url]
    else:
        cmd = [RAFALE, "-q", "--insecure", "-t", "1", "-c", "1", "--streams", str(streams), "-n", str(n),
               "--http3" if tool == "rafale --http3" else "--http2", url]
    try:
        _, wall, cpu = timed(cmd)
    finally:
        served = srv.requests()
    return served, wall, cpu


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--requests", type=int, default=20000)
    ap.add_argument("--md", default=None)
    a = ap.parse_args()
    cert, key = os.path.join(TMP, "cert.pem"), os.path.join(TMP, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=localhost"], check=True,
                   capture_output=True)
    tools = ["rafale --http3", "gtlsclient", "rafale --http2"]
    rows = {}
    for rnd in range(a.rounds):
        for streams in (1, 10):
            for tool in tools:
                served, wall, cpu = run(tool, streams, a.requests, cert, key)
                if served != a.requests:
                    raise RuntimeError("%s: the server counted %d requests, not %d" % (tool, served, a.requests))
                rows.setdefault((streams, tool), []).append((served / wall, cpu / served * 1e6))
                print("round %d, %2d stream%s, %-15s %8.0f req/s %7.2f us/req CPU" %
                      (rnd + 1, streams, "s" if streams > 1 else " ", tool, served / wall, cpu / served * 1e6),
                      file=sys.stderr)
    lines = ["| streams | tool | req/s (median) | CPU us/request | CPU vs gtlsclient | CPU vs rafale --http2 |",
             "|---:|---|---:|---:|---:|---:|"]
    for streams in (1, 10):
        for tool in tools:
            mine = rows[(streams, tool)]
            vs = [m[1] / g[1] for m, g in zip(mine, rows[(streams, "gtlsclient")])]
            vh2 = [m[1] / g[1] for m, g in zip(mine, rows[(streams, "rafale --http2")])]
            lines.append("| %d | %s | %.0f | %.2f | %.2f | %.2f |" %
                         (streams, tool, statistics.median(m[0] for m in mine), statistics.median(m[1] for m in mine),
                          statistics.median(vs), statistics.median(vh2)))
    head = ("HTTP/3 (bench/h3.py --rounds %d --requests %d): one connection, rafale serve --http3 on CPU 0, the tool on "
            "CPU 1; %s, %d CPUs." % (a.rounds, a.requests, os.uname().release, os.cpu_count()))
    text = head + "\n\n" + "\n".join(lines) + "\n"
    print(text)
    if a.md:
        with open(a.md, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
