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
