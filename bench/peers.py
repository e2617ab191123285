#!/usr/bin/env python3
"""Benchmarks rafale against its peers (wrk, ab, h2load) on the same
workloads, and rafale serve against nginx, on this machine.

The server is pinned to CPU 0 and the load tool to CPU 1, so the two do not
fight over a core; rounds are interleaved (A, B, C, A, B, C...) so drift on a
shared machine hits every tool alike. For each run it records the requests
the tool completed, the count nginx itself reports (stub_status), wall time,
req/s, the tool's user+sys CPU and peak RSS from GNU time (the kernel's
accounting of the finished process), and errors. It prints a markdown table
of medians, with each figure's ratio to wrk computed round by round, and
writes every run as CSV. Only 127.0.0.1 is contacted.

usage: bench/peers.py [--rounds N] [--duration S] [--only WORKLOAD,...|serve,checks,targets] [--md FILE] [--baseline BIN]

--baseline BIN runs another rafale binary (say, a build of the previous
commit) as the tool "rafale-base" in the same interleaved rounds of every
workload rafale runs: a before/after comparison under the same noise.
"""
import argparse
import csv
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RAFALE = os.path.join(ROOT, "rafale")
FLOOR = os.path.join(ROOT, "build", "floor")
TMP = tempfile.mkdtemp(prefix="rafale-bench-")
SERVER_CPU, TOOL_CPU = "0", "1"


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


class Nginx:
    def __init__(self):
        self.port = free_port()
        self.tls_port = free_port()
        self.h2_port = free_port()
        self.h2_tls_port = free_port()
        self.dir = os.path.join(TMP, "nginx")
        os.makedirs(self.dir, exist_ok=True)
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                        "-keyout", os.path.join(self.dir, "key.pem"), "-out", os.path.join(self.dir, "cert.pem"),
                        "-days", "2", "-subj", "/CN=localhost"], check=True, capture_output=True)
        conf = open(os.path.join(ROOT, "bench", "nginx.conf")).read()
        conf = (conf.replace("@PORT@", str(self.port)).replace("@TLSPORT@", str(self.tls_port))
                .replace("@H2PORT@", str(self.h2_port)).replace("@H2TLSPORT@", str(self.h2_tls_port))
                .replace("@DIR@", self.dir))
        # A 1 KiB JSON document for the checks' cost (issue 23).
        items = [{"id": i, "name": "item-%d" % i, "tags": ["a", "b"]} for i in range(20)]
        doc = {"ok": True, "items": items, "pad": ""}
        doc["pad"] = "x" * max(0, 1024 - len(json.dumps(doc)))
        with open(os.path.join(self.dir, "api.json"), "w") as f:
            f.write(json.dumps(doc))
        # nginx's worker (www-data) reads it: the folders on the way must let it.
        os.chmod(TMP, 0o755)
        os.chmod(self.dir, 0o755)
        os.chmod(os.path.join(self.dir, "api.json"), 0o644)
        self.conf = os.path.join(self.dir, "nginx.conf")
        with open(self.conf, "w") as f:
            f.write(conf)
        subprocess.run(["taskset", "-c", SERVER_CPU, "nginx", "-c", self.conf, "-p", self.dir], check=True)
        for _ in range(100):
            try:
                self.count()
                break
            except OSError:
                time.sleep(0.05)
        self.version = subprocess.run(["nginx", "-v"], capture_output=True, text=True).stderr.strip()

    def url(self, path="/", tls=False, h2=False):
        if h2:
            return "%s://127.0.0.1:%d%s" % ("https" if tls else "http", self.h2_tls_port if tls else self.h2_port, path)
        if tls:
            return "https://127.0.0.1:%d%s" % (self.tls_port, path)
        return "http://127.0.0.1:%d%s" % (self.port, path)

    def count(self):
        """Requests nginx has handled, not counting this status request."""
        s = socket.create_connection(("127.0.0.1", self.port), timeout=5)
        s.sendall(b"GET /nginx_status HTTP/1.0\r\n\r\n")
        data = b""
        while True:
            d = s.recv(4096)
            if not d:
                break
            data += d
        s.close()
        m = re.search(rb"\n\s*(\d+)\s+(\d+)\s+(\d+)", data)
        return int(m.group(3)) - 1

    def stop(self):
        try:
            pid = int(open(os.path.join(self.dir, "nginx.pid")).read())
            os.kill(pid, signal.SIGQUIT)
        except (OSError, ValueError):
            pass


class Serve:
    def __init__(self):
        out = open(os.path.join(TMP, "serve.out"), "w+")
        self.p = subprocess.Popen(["taskset", "-c", SERVER_CPU, RAFALE, "serve", "--listen", "127.0.0.1:0", "-t", "1"],
                                  stdout=out, stderr=subprocess.DEVNULL)
        self.addr = None
        for _ in range(200):
            out.seek(0)
            line = out.readline()
            if line.startswith("listening on"):
                self.addr = line.split()[2]
                break
            time.sleep(0.02)

    def url(self, path="/"):
        return "http://%s%s" % (self.addr, path)

    def count(self):
        return None

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        self.p.wait()


def timed(cmd):
    """Runs cmd on the tool CPU; returns (stdout+stderr, wall s, cpu s, peak rss KiB)."""
    tf = os.path.join(TMP, "time.txt")
    full = ["/usr/bin/time", "-f", "%e %U %S %M", "-o", tf, "taskset", "-c", TOOL_CPU] + cmd
    p = subprocess.run(full, capture_output=True, text=True, timeout=600)
    wall, user, sys_, rss = open(tf).read().split()[-4:]
    return p.stdout + p.stderr, float(wall), float(user) + float(sys_), int(rss)


# --- tools: each returns (completed, errors) from its own output -------------------

def run_rafale(url, conns, dur, close=False, depth=1, h2=False, threads=1, binary=None, extra=None):
    jf = os.path.join(TMP, "r.json")
    cmd = [binary or RAFALE, "-q", "-t", str(threads), "-c", str(conns), "-d", "%ds" % dur, "--json", jf]
    if binary is None:
        # No idle probe before the load: its few requests are not the workload measured, and nginx counted them
        # beside the run's (MISMATCH). A baseline binary may predate the option.
        cmd.append("--no-probe")
    if h2:
        cmd += ["--http2", "--streams", str(depth)]
    if url and url.startswith("https"):
        # Self-signed. Sessions are resumed on reconnect (rafale's default),
        # as wrk does (nginx's $ssl_session_reused says so).
        cmd += ["--insecure"]
    if close:
        cmd.append("--close")
    if depth > 1 and not h2:
        cmd += ["--pipeline", str(depth)]
    out, wall, cpu, rss = timed(cmd + (extra or []) + ([url] if url else []))
    j = json.load(open(jf))
    return j["summary"]["requests"], j["summary"]["errors"], wall, cpu, rss, j


def run_wrk(url, conns, dur, close=False, depth=1, h2=False):
    cmd = ["wrk", "-t1", "-c%d" % conns, "-d%ds" % dur]
    if close:
        cmd += ["-H", "Connection: close"]
    if depth > 1:
        cmd += ["-s", os.path.join(ROOT, "bench", "pipeline.lua")]
    out, wall, cpu, rss = timed(cmd + [url])
    m = re.search(r"(\d+) requests in", out)
    done = int(m.group(1)) if m else 0
    errs = sum(int(x) for x in re.findall(r"(?:connect|read|write|timeout) (\d+)", out))
    m = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return done, errs + (int(m.group(1)) if m else 0), wall, cpu, rss, None


def run_ab(url, conns, dur, close=False, depth=1, h2=False):
    cmd = ["ab", "-q", "-t", str(dur), "-n", "100000000", "-c", str(conns)]
    if not close:
        cmd.append("-k")
    out, wall, cpu, rss = timed(cmd + [url])
    m = re.search(r"Complete requests:\s+(\d+)", out)
    f = re.search(r"Failed requests:\s+(\d+)", out)
    return int(m.group(1)) if m else 0, int(f.group(1)) if f else 0, wall, cpu, rss, None


def run_h2load(url, conns, dur, close=False, depth=1, h2=False):
    cmd = ["h2load"] + ([] if h2 else ["--h1"]) + ["-t1", "-c", str(conns), "-D", str(dur)]
    if depth > 1:
        cmd += ["-m", str(depth)]
    out, wall, cpu, rss = timed(cmd + [url])
    m = re.search(r"requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored, "
                  r"(\d+) timeout", out)
    if not m:
        return 0, 0, wall, cpu, rss, None
    return int(m.group(3)), int(m.group(5)) + int(m.group(6)) + int(m.group(7)), wall, cpu, rss, None


def run_floor(url, conns, dur, close=False, depth=1, h2=False, stamped=False):
    """bench/floor.c: the least a client can cost (no parsing, no clock per request, no histogram); stamped, with
    the kernel's receive stamps read as rafale reads them (SO_TIMESTAMPING, recvmsg)."""
    m = re.match(r"http://([0-9.]+):(\d+)(/.*)?$", url)
    cmd = [FLOOR, "-c", str(conns), "-d", str(dur)] + (["--close"] if close else []) + (["--stamped"] if stamped else [])
    cmd += [m.group(1), m.group(2), m.group(3) or "/"]
    out, wall, cpu, rss = timed(cmd)
    f = re.search(r"floor: (\d+) completed, (\d+) errors", out)
    return (int(f.group(1)) if f else 0), (int(f.group(2)) if f else 0), wall, cpu, rss, None


def run_floor_uring(url, conns, dur, close=False, depth=1, h2=False, plain=False):
    """bench/floor_uring.c: the keep-alive floor on io_uring (multishot recv, provided buffers)."""
    m = re.match(r"http://([0-9.]+):(\d+)(/.*)?$", url)
    out, wall, cpu, rss = timed([FLOOR + "_uring", "-c", str(conns), "-d", str(dur)] + (["--plain"] if plain else []) +
                                [m.group(1), m.group(2), m.group(3) or "/"])
    f = re.search(r"floor_uring: (\d+) completed, (\d+) errors", out)
    return (int(f.group(1)) if f else 0), (int(f.group(2)) if f else 0), wall, cpu, rss, None


TOOLS = {"rafale": run_rafale, "wrk": run_wrk, "ab": run_ab, "h2load": run_h2load, "floor": run_floor,
         "floor-stamped": lambda *a: run_floor(*a, stamped=True), "floor-uring": run_floor_uring,
         "floor-uring-plain": lambda *a: run_floor_uring(*a, plain=True),
         # Stamped in user space (clock_gettime after each read): to put beside the plain floor.
         "rafale-user": lambda *a: run_rafale(*a, extra=["--timestamps", "user"])}

# workload: (description, connections, close, pipeline depth or HTTP/2 streams, tools[, "tls" | "h2c" | "h2"])
# HTTP/2 workloads are compared with h2load (wrk and ab do not speak it).
WORKLOADS = {
    "keepalive-50": ("keep-alive, 50 connections", 50, False, 1,
                     ["floor", "floor-stamped", "floor-uring", "floor-uring-plain", "rafale", "rafale-user", "wrk", "ab",
                      "h2load"]),
    "close-50": ("new connection per request, 50 concurrent", 50, True, 1, ["floor", "floor-stamped", "rafale",
                                                                            "rafale-user", "wrk", "ab"]),
    "keepalive-10k": ("keep-alive, 10 000 connections", 10000, False, 1, ["floor", "floor-stamped", "rafale", "wrk",
                                                                          "h2load"]),
    "pipeline-16": ("keep-alive, 50 connections, 16 pipelined", 50, False, 16, ["rafale", "wrk", "h2load"]),
    "tls-keepalive-50": ("TLS keep-alive, 50 connections", 50, False, 1, ["rafale", "wrk", "h2load"], "tls"),
    "tls-close-50": ("TLS, new connection per request (sessions resumed), 50 concurrent", 50, True, 1,
                     ["rafale", "wrk"], "tls"),
    "h2c-50x1": ("HTTP/2 h2c, 50 connections x 1 stream", 50, False, 1, ["rafale", "h2load"], "h2c"),
    "h2c-50x10": ("HTTP/2 h2c, 50 connections x 10 streams", 50, False, 10, ["rafale", "h2load"], "h2c"),
    "h2-tls-50x10": ("HTTP/2 over TLS, 50 connections x 10 streams", 50, False, 10, ["rafale", "h2load"], "h2"),
}


# rafale serve against nginx: route and mode (h2c: rafale --http2 --streams 10, the preface on the same port).
SERVE_MODES = [("/", "keep-alive"), ("/", "close"), ("/redirect", "keep-alive"), ("/redirect", "close"),
               ("/", "h2c x 10 streams")]


def proto(wl):
    return WORKLOADS[wl][5] if len(WORKLOADS[wl]) > 5 else ""


def reference(wl):
    """The tool each row is compared with: wrk, or h2load where wrk cannot go (HTTP/2)."""
    return "wrk" if "wrk" in WORKLOADS[wl][4] else "h2load"


def versions():
    v = {}
    for name, cmd in (("wrk", ["wrk", "-v"]), ("ab", ["ab", "-V"]), ("h2load", ["h2load", "--version"]),
                      ("rafale", [RAFALE, "--version"])):
        p = subprocess.run(cmd, capture_output=True, text=True)
        v[name] = (p.stdout + p.stderr).strip().splitlines()[0] if (p.stdout + p.stderr).strip() else "?"
    return v


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def rafale_row(rows, rnd, workload, name, done, errs, wall, cpu, rss):
    """A row of one of rafale's own variants (targets, api), not counted against nginx, and its progress line."""
    rows.append(dict(round=rnd, workload=workload, tool=name, completed=done, nginx_count=None, wall_s=wall,
                     rps=done / wall, cpu_s=cpu, cpu_us_per_req=cpu * 1e6 / done, rss_kb=rss, errors=errs,
                     all_connected_s=None))
    print("round %d %-24s %-13s %8.0f req/s %6.2f us/req cpu" % (rnd + 1, workload, name, done / wall,
                                                               cpu * 1e6 / done), file=sys.stderr, flush=True)


def emit_workload(emit, rows, wl, refname):
    """One table row per tool: medians, and ratios to refname computed round by round."""
    desc, conns, close, depth, tools = WORKLOADS[wl][:5]
    for tool in tools:
        mine = [r for r in rows if r["workload"] == wl and r["tool"] == tool]
        if not mine:  # a tool this machine could not run (the io_uring floor without liburing)
            continue
        ratios_rps, ratios_cpu, ratios_floor, ratios_stamped = [], [], [], []
        for r in mine:
            for floor, ratios in (("floor", ratios_floor), ("floor-stamped", ratios_stamped)):
                fl = [x for x in rows if x["workload"] == wl and x["tool"] == floor and x["round"] == r["round"]]
                if fl and fl[0]["cpu_us_per_req"] and r["cpu_us_per_req"]:
                    ratios.append(r["cpu_us_per_req"] / fl[0]["cpu_us_per_req"])
            ref = [x for x in rows if x["workload"] == wl and x["tool"] == refname and x["round"] == r["round"]]
            if ref and ref[0]["rps"] and ref[0]["cpu_us_per_req"] and r["cpu_us_per_req"]:
                ratios_rps.append(r["rps"] / ref[0]["rps"])
                ratios_cpu.append(r["cpu_us_per_req"] / ref[0]["cpu_us_per_req"])
        # Responses completed vs nginx's own count: equal up to requests in flight at the end.
        slack = conns * depth
        ok = all(r["nginx_count"] is not None and r["completed"] <= r["nginx_count"] <= r["completed"] + slack
                 for r in mine)
        emit("| %s | %s | %.0f | %.2f | %.2f | %.2f | %s | %s | %.1f MiB | %d | %s |" % (
            desc, tool, median([r["rps"] for r in mine]), median(ratios_rps) or 0,
            median([r["cpu_us_per_req"] for r in mine]) or 0, median(ratios_cpu) or 0,
            "%.2f" % median(ratios_floor) if ratios_floor else "-",
            "%.2f" % median(ratios_stamped) if ratios_stamped else "-",
            median([r["rss_kb"] for r in mine]) / 1024, sum(r["errors"] for r in mine),
            "yes" if ok else "MISMATCH"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--duration", type=int, default=5)
    ap.add_argument("--only", default="")
    ap.add_argument("--md", default="")
    ap.add_argument("--baseline", default="", help="another rafale binary, run as the tool rafale-base")
    args = ap.parse_args()
    if args.baseline:
        base = os.path.abspath(args.baseline)
        TOOLS["rafale-base"] = lambda *a: run_rafale(*a, binary=base)
        for name, wl in WORKLOADS.items():
            if "rafale" in wl[4] and not proto(name).startswith("h2"):  # a baseline may predate HTTP/2
                wl[4].insert(wl[4].index("rafale") + 1, "rafale-base")
    only = [w for w in args.only.split(",") if w]
    workloads = [w for w in WORKLOADS if not only or w in only]
    do_serve = not only or "serve" in only
    do_checks = not only or "checks" in only
    do_targets = not only or "targets" in only
    do_api = not only or "api" in only

    nginx = Nginx()
    rows = []
    out_dir = os.path.join(ROOT, "bench", "out")
    os.makedirs(out_dir, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    raw = os.path.join(out_dir, "runs-%s.csv" % stamp)
    md = []

    def emit(line=""):
        print(line, flush=True)
        md.append(line)

    try:
        for rnd in range(args.rounds):
            for wl in workloads:
                desc, conns, close, depth, tools = WORKLOADS[wl][:5]
                pr = proto(wl)
                for tool in tools:
                    if tool.startswith("floor") and not os.path.exists(FLOOR + ("_uring" if "uring" in tool else "")):
                        if rnd == 0:
                            print("(%s: not built, left out: make build/floor%s)" % (tool, "_uring" if "uring" in tool
                                                                                    else ""), flush=True)
                        continue
                    before = nginx.count()
                    done, errs, wall, cpu, rss, j = TOOLS[tool](nginx.url(tls=pr in ("tls", "h2"), h2=pr.startswith("h2")),
                                                                conns, args.duration, close, depth, pr.startswith("h2"))
                    served = nginx.count() - before - 1  # the status request after
                    row = dict(round=rnd, workload=wl, tool=tool, completed=done, nginx_count=served, wall_s=wall,
                               rps=done / wall if wall else 0, cpu_s=cpu, cpu_us_per_req=cpu * 1e6 / done if done else None,
                               rss_kb=rss, errors=errs,
                               all_connected_s=j["client"]["all_connected_s"] if j else None)
                    rows.append(row)
                    print("round %d %-14s %-7s %9d done (nginx %9d) %8.0f req/s %6.2f us/req cpu %7d KiB rss %d errors"
                          % (rnd + 1, wl, tool, done, served, row["rps"], row["cpu_us_per_req"] or 0, rss, errs),
                          file=sys.stderr, flush=True)
            if do_serve:
                # rafale serve against nginx, same client (rafale, 1 thread, 50 connections).
                for path, mode in SERVE_MODES:
                    close, h2 = mode == "close", mode.startswith("h2c")
                    for name in ("nginx", "rafale-serve"):
                        srv = nginx if name == "nginx" else Serve()
                        url = nginx.url(path, h2=True) if h2 and srv is nginx else srv.url(path)
                        done, errs, wall, cpu, rss, j = run_rafale(url, 50, args.duration, close, 10 if h2 else 1, h2)
                        if srv is not nginx:
                            srv.stop()
                        wl = "serve %s %s" % (path, mode)
                        rows.append(dict(round=rnd, workload=wl, tool=name, completed=done, nginx_count=None,
                                         wall_s=wall, rps=done / wall, cpu_s=cpu, cpu_us_per_req=cpu * 1e6 / done,
                                         rss_kb=rss, errors=errs, all_connected_s=None))
                        print("round %d %-24s %-13s %8.0f req/s" % (rnd + 1, wl, name, done / wall),
                              file=sys.stderr, flush=True)

            if do_targets:
                # The cost of a realistic mix (issue 13): 3 templated targets from a file against the same
                # 3 URLs written plainly on the command line, keep-alive, 50 connections.
                tf = os.path.join(TMP, "targets.txt")
                base = nginx.url("/")
                with open(tf, "w") as f:
                    f.write("GET %s?id={{seq}}\n\nGET %s?r={{rand 1 1000}}\n\nGET %s?u={{uuid}}\n" % (base, base, base))
                plain = [base + "?id=1", base + "?r=500", base + "?u=5b1f0c1e-8f7a-4d2b-9c3e-1a2b3c4d5e6f"]
                for name, extra in (("plain URLs", plain), ("targets file", ["--targets", tf])):
                    done, errs, wall, cpu, rss, j = run_rafale(None, 50, args.duration, extra=extra)
                    rafale_row(rows, rnd, "targets", name, done, errs, wall, cpu, rss)

            if do_api:
                # The cost of checks (issue 23): none, a status check, a JSON path on a 1 KiB body.
                for name, extra in (("no check", []), ("status check", ["--check", "status == 200"]),
                                    ("json check", ["--check", "json $.items[19].id == 19"]),
                                    ("log every request", ["--log", os.path.join(TMP, "req.jsonl")])):
                    done, errs, wall, cpu, rss, j = run_rafale(nginx.url("/api.json"), 50, args.duration, extra=extra)
                    errs += j["summary"].get("checks_failed", 0)
                    rafale_row(rows, rnd, "api", name, done, errs, wall, cpu, rss)

        with open(raw, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader()
            w.writerows(rows)

        v = versions()
        emit("Machine: %s, %d CPUs; server pinned to CPU %s, tool to CPU %s; %d rounds of %d s, interleaved."
             % (os.uname().release, os.cpu_count(), SERVER_CPU, TOOL_CPU, args.rounds, args.duration))
        emit("Versions: %s; %s; %s; %s; %s." % (v["rafale"], v["wrk"], v["ab"], v["h2load"], nginx.version))
        emit("Date: %s. Raw runs: %s" % (time.strftime("%Y-%m-%d"), os.path.relpath(raw, ROOT)))
        emit()
        for refname in ("wrk", "h2load"):
            group = [wl for wl in workloads if reference(wl) == refname]
            if not group:
                continue
            if refname == "h2load":
                emit()
                emit("HTTP/2, against h2load (wrk and ab do not speak it):")
                emit()
            emit("| workload | tool | req/s (median) | req/s vs %s | CPU us/request | CPU vs %s | CPU vs floor | "
                 "CPU vs stamped floor | peak RSS | errors | counted by nginx |" % (refname, refname))
            emit("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
            for wl in group:
                emit_workload(emit, rows, wl, refname)
        if "keepalive-10k" in workloads:
            ac = median([r["all_connected_s"] for r in rows if r["workload"] == "keepalive-10k" and r["tool"] == "rafale"])
            if ac is not None:
                emit()
                emit("rafale: all 10 000 connections open after %.2f s (median)." % ac)
        if do_serve:
            emit()
            emit("rafale serve against nginx (client: rafale -t 1 -c 50; one server core):")
            emit()
            emit("| route | mode | nginx req/s | rafale serve req/s | serve / nginx |")
            emit("|---|---|---:|---:|---:|")
            for path, mode in SERVE_MODES:
                wl = "serve %s %s" % (path, mode)
                ng = [r for r in rows if r["workload"] == wl and r["tool"] == "nginx"]
                rs = [r for r in rows if r["workload"] == wl and r["tool"] == "rafale-serve"]
                ratios = [b["rps"] / a["rps"] for a, b in zip(ng, rs)]
                emit("| %s | %s | %.0f | %.0f | %.2f |" % (path, mode, median([r["rps"] for r in ng]),
                                                          median([r["rps"] for r in rs]), median(ratios)))
        if do_targets:
            pl = [r for r in rows if r["workload"] == "targets" and r["tool"] == "plain URLs"]
            tg = [r for r in rows if r["workload"] == "targets" and r["tool"] == "targets file"]
            emit()
            emit("A targets file of 3 templated requests ({{seq}}, {{rand}}, {{uuid}}) against the same 3 URLs written "
                 "plainly (rafale -t 1 -c 50, keep-alive): CPU us/request %.2f against %.2f, ratio %.3f (median of "
                 "rounds); req/s %.0f against %.0f; errors %d."
                 % (median([r["cpu_us_per_req"] for r in tg]), median([r["cpu_us_per_req"] for r in pl]),
                    median([b["cpu_us_per_req"] / a["cpu_us_per_req"] for a, b in zip(pl, tg)]),
                    median([r["rps"] for r in tg]), median([r["rps"] for r in pl]),
                    sum(r["errors"] for r in pl + tg)))
        if do_api:
            base = [r for r in rows if r["workload"] == "api" and r["tool"] == "no check"]
            emit()
            emit("Checks on a 1 KiB JSON answer (rafale -t 1 -c 50, keep-alive, nginx): CPU us/request, median of rounds, "
                 "and the median of the round-by-round ratios to no check:")
            emit()
            emit("| run | CPU us/request | vs no check | req/s | errors and failed checks |")
            emit("|---|---:|---:|---:|---:|")
            for name in ("no check", "status check", "json check", "log every request"):
                rs = [r for r in rows if r["workload"] == "api" and r["tool"] == name]
                emit("| %s | %.2f | %.3f | %.0f | %d |" % (name, median([r["cpu_us_per_req"] for r in rs]),
                                                          median([b["cpu_us_per_req"] / a["cpu_us_per_req"]
                                                                  for a, b in zip(base, rs)]),
                                                          median([r["rps"] for r in rs]), sum(r["errors"] for r in rs)))
        if do_checks:
            emit()
            # Syscalls per request, keep-alive: strace over 20 000 requests.
            so = os.path.join(TMP, "strace.txt")
            subprocess.run(["strace", "-c", "-f", "-o", so, RAFALE, "-q", "-t", "1", "-c", "50", "-n", "20000",
                            nginx.url()], capture_output=True)
            total = 0
            calls = {}
            for line in open(so):
                parts = line.split()
                if len(parts) >= 5 and parts[-1] not in ("syscall", "total") and parts[3].isdigit():
                    calls[parts[-1]] = int(parts[3])
                    total += int(parts[3])
            emit("Syscalls per request (keep-alive, strace -c -f, 20 000 requests): %.2f total; read %.2f, write %.2f, "
                 "epoll_wait %.3f, epoll_ctl %.4f." % (total / 20000, calls.get("read", 0) / 20000,
                                                       (calls.get("write", 0) + calls.get("writev", 0)) / 20000,
                                                       calls.get("epoll_wait", 0) / 20000 + calls.get("epoll_pwait2", 0) / 20000,
                                                       calls.get("epoll_ctl", 0) / 20000))
            # 200 000 requests each on a new connection: no port exhaustion.
            done, errs, wall, cpu, rss, j = timed_close_200k(nginx)
            emit("200 000 requests, each on a new connection (rafale -n 200000 -c 50 --close): %d completed, %d errors, %.1f s."
                 % (done, errs, wall))
    finally:
        nginx.stop()
    if args.md:
        with open(args.md, "w") as f:
            f.write("\n".join(md) + "\n")
    print("raw runs: %s" % raw, file=sys.stderr)


def timed_close_200k(nginx):
    jf = os.path.join(TMP, "c.json")
    out, wall, cpu, rss = timed([RAFALE, "-q", "-t", "1", "-c", "50", "-n", "200000", "--close", "--json", jf,
                                 nginx.url()])
    j = json.load(open(jf))
    return j["summary"]["requests"], j["summary"]["errors"], wall, cpu, rss, j


if __name__ == "__main__":
    main()
