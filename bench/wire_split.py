#!/usr/bin/env python3
"""Where the kernel-stamped latency's few µs above the wire come from: one connection to `rafale serve` on
lo, a Python client asking the kernel for its software transmit and receive stamps (SO_TIMESTAMPING:
TX_SOFTWARE through the error queue, RX_SOFTWARE beside the data), held against a tcpdump capture of lo.

Per request it prints, at the 10th, 50th and 90th percentiles: the transmit stamp against the request's
segment in the capture, the receive stamp against the answer's, and the client's clock before send() against
the request's segment (the write's whole path down the stack; from Python, so with its interpreter's share).

usage: bench/wire_split.py [-n N] [--rafale BIN]     (as root, for tcpdump; only 127.0.0.1 is contacted)
"""
import argparse
import bisect
import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wire_latency as wl  # noqa: E402

SO_TIMESTAMPING = 37  # linux/asm-generic/socket.h (SO_TIMESTAMPING_OLD)
TX_SOFTWARE, RX_SOFTWARE, SOFTWARE, OPT_TSONLY = 1 << 1, 1 << 3, 1 << 4, 1 << 11  # linux/net_tstamp.h


def stamp(anc):
    """The software stamp (CLOCK_REALTIME ns) of the SCM_TIMESTAMPING among ancillary data, or None."""
    for level, kind, data in anc:
        if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPING:
            sec, ns = struct.unpack("qq", data[:16])
            return sec * 10**9 + ns
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", type=int, default=5000)
    ap.add_argument("--rafale", default=os.path.join(wl.ROOT, "rafale"))
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="rafale-split-")
    srv = subprocess.Popen(["taskset", "-c", wl.SERVER_CPU, a.rafale, "serve", "-t", "1", "-l", "127.0.0.1:0"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    port = int(srv.stdout.readline().split(":")[-1])
    os.sched_setaffinity(0, {int(wl.TOOL_CPU)})
    pcap = os.path.join(tmp, "split.pcap")
    rows = []
    try:
        cap = wl.capture_start(port, pcap)
        try:
            s = socket.create_connection(("127.0.0.1", port))
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPING, TX_SOFTWARE | RX_SOFTWARE | SOFTWARE | OPT_TSONLY)
            req = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            for _ in range(a.n):
                t0 = time.clock_gettime_ns(time.CLOCK_REALTIME)
                s.send(req)
                rx = stamp(s.recvmsg(65536, 256)[1])
                try:
                    tx = stamp(s.recvmsg(1, 256, socket.MSG_ERRQUEUE | socket.MSG_DONTWAIT)[1])
                except BlockingIOError:
                    tx = None
                rows.append((t0, tx, rx))
            s.close()
        finally:
            wl.capture_stop(cap)
    finally:
        srv.send_signal(signal.SIGINT)
        srv.wait()
    wire = wl.wire_requests(pcap, port)
    starts = [t for t, _ in wire]
    send, tx_off, rx_off = [], [], []
    for t0, tx, rx in rows:
        i = bisect.bisect_left(starts, t0)
        if i == len(starts) or starts[i] - t0 > 100000:
            continue
        req, lat = wire[i]
        send.append(req - t0)
        if tx is not None:
            tx_off.append(tx - req)
        if rx is not None:
            rx_off.append(rx - (req + lat))
    for what, xs in (("transmit stamp - request's segment", tx_off), ("receive stamp - answer's segment", rx_off),
                     ("request's segment - clock before send()", send)):
        print("%-42s p10 %+6.2f  p50 %+6.2f  p90 %+6.2f µs  (%d requests)" %
              (what, *(wl.pct(xs, p) / 1000.0 for p in (10, 50, 90)), len(xs)))


if __name__ == "__main__":
    main()
