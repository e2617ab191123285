"""At the terminal: the live views on a pseudo-terminal (the one-line view, --tui), the same options without one,
-v's exchanges, --brief's short report."""
import os
import pty
import select
import signal
import subprocess
import time

from common import *  # noqa: F401,F403


def on_pty(args, timeout=RUN_TIMEOUT, cols=100, rows=30, send=None, sig=None):
    """Runs rafale with stdin, stdout and stderr on a pseudo-terminal of cols x rows: (exit status, all it wrote, as
    text). send: (seconds, bytes) typed at the terminal once that long has passed; sig: (seconds, signal) sent to it."""
    import fcntl
    import struct
    import termios
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    p = subprocess.Popen([RAFALE] + [str(a) for a in args], stdin=slave, stdout=slave, stderr=slave,
                         start_new_session=True, close_fds=True)
    os.close(slave)
    out = b""
    t0 = time.monotonic()
    deadline = t0 + timeout
    while True:
        now = time.monotonic()
        if send and now - t0 >= send[0]:
            os.write(master, send[1])
            send = None
        if sig and now - t0 >= sig[0]:
            p.send_signal(sig[1])
            sig = None
        if now > deadline:
            p.kill()
            break
        r, _, _ = select.select([master], [], [], 0.05)
        if r:
            try:
                d = os.read(master, 65536)
            except OSError:  # EIO: every writer closed the terminal
                d = b""
            if not d:
                break
            out += d
        elif p.poll() is not None:
            # Exited: what is left in the terminal, then done.
            while select.select([master], [], [], 0.05)[0]:
                try:
                    d = os.read(master, 65536)
                except OSError:
                    d = b""
                if not d:
                    break
                out += d
            break
    os.close(master)
    rc = p.wait(timeout=20)
    return rc, out.decode("utf-8", "replace")


@test
def live_line_unknown_is_a_dash():
    """Before the first second closes the one-line view knows no latency: it says so with a dash, never 0ns."""
    srv = Serve()
    rc, out = on_pty(["-d", "2s", "-R", "200", "-c", "2", srv.url()])
    srv.stop()
    lines = [l for l in out.replace("\r", "\n").split("\n") if "req/s now" in l]
    check(rc == 0 and len(lines) >= 4, "a line redrawn on the terminal (%s %r)" % (rc, out[-2000:]))
    check(lines and "p50 – p99 –" in lines[0], "the first lines: no latency known yet, a dash (%r)" % lines[:2])
    check(not any(" 0ns" in l for l in lines), "never a 0ns (%r)" % lines)
    check(any("p50 –" not in l and ("ms " in l or "us " in l) for l in lines),
          "once a second has closed, latencies (%r)" % lines[-3:])


@test
def brief_report_headlines_only():
    """--brief: the headline lines, the same figures as the full report's, under the same labels."""
    srv = Serve()
    r = rafale("-n", 400, "-c", 4, "-t", 1, srv.url(), srv.url("/status/404"))
    full = r.out.splitlines()
    b = rafale("--brief", "-n", 400, "-c", 4, "-t", 1, srv.url(), srv.url("/status/404"))
    srv.stop()
    lines = b.out.splitlines()
    labels = [l[:14].strip() for l in lines]
    # (On a loaded machine a finding may follow: client_delay, of this client's own delay.)
    check(b.rc == 0 and labels[:6] == ["Requests", "Throughput", "Latency", "Status codes", "Bad status", "Errors"]
          and set(labels[6:]) <= {"Findings", ""}, "--brief: six headline lines (%r)" % b.out)
    check(lines[0] == "Requests      400 completed, 0 errors, 0 in flight at the end, in %.2fs"
          % b.j["summary"]["elapsed_s"], "--brief: the requests line (%r)" % lines[0])
    lat = b.j["latency"]["percentiles_us"]
    check(lines[2].startswith("Latency       p50 ") and ", p99 " in lines[2] and ", max " in lines[2],
          "--brief: p50, p99 and max (%r, %s)" % (lines[2], lat))
    check(lines[3] == "Status codes  200: 200, 404: 200", "--brief: the status codes (%r)" % lines[3])
    check([l for l in full if l.startswith("Status codes")] == [lines[3]], "the same status line as the full report")
    check(not any(l.startswith(("Latency  ", "Connections", "Per URL")) for l in b.out.splitlines()[3:])
          and "distribution" not in b.out, "--brief: no table, no legend, no histogram")
    # Errors in one line, with their kinds; a finding in one line.
    fs = FServer("ka100")
    b = rafale("--brief", "-c", 10, "-n", 3000, fs.url())
    fs.stop()
    lines = b.out.splitlines()
    f = [i for i, l in enumerate(lines) if l.startswith("Findings      [")]
    check(f and all(l[14:].startswith(("[i] ", "[!] ")) for l in lines[f[0]:])
          and any(l[14:].startswith("[i] keepalive_limit: the server closed ") for l in lines[f[0]:]),
          "--brief: a finding's one-liner (%r)" % b.out)
    check("->" not in b.out, "--brief: no advice lines (%r)" % b.out)
    b = rafale("--brief", "-n", 20, "-c", 2, "--timeout", "50ms", BadServer("silent").url())
    e = [l for l in b.out.splitlines() if l.startswith("Errors")]
    check(e == ["Errors        20 (100.00% of requests ended): timeout_answer 20"], "--brief: errors in one line (%r)" % b.out)
