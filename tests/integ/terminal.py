"""At the terminal: the live views on a pseudo-terminal (the one-line view, --tui), the same options without one,
-v's exchanges, --brief's short report."""
import os
import pty
import select
import signal
import subprocess
import time

from common import *  # noqa: F401,F403


def on_pty(args, timeout=RUN_TIMEOUT, cols=100, rows=30, send=None, sig=None, modes=None):
    """Runs rafale with stdin, stdout and stderr on a pseudo-terminal of cols x rows: (exit status, all it wrote, as
    text). send: (seconds, bytes) typed at the terminal once that long has passed; sig: (seconds, signal) sent to it;
    modes: a list given the terminal's local modes (termios lflag) before the run and after it."""
    import fcntl
    import struct
    import termios
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    if modes is not None:  # before rafale starts: read after, a loaded machine gave it time to set its own
        modes.append(termios.tcgetattr(master)[3])
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
    rc = p.wait(timeout=20)
    if modes is not None:
        modes.append(termios.tcgetattr(master)[3])
    os.close(master)
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


def exchange(err, url):
    """-v's exchange of url in err: its lines, from its title to the blank line after it."""
    lines = err.splitlines()
    title = [i for i, l in enumerate(lines) if l.startswith("rafale: -v: the first exchange of %s " % url)]
    if len(title) != 1:
        return []
    end = lines.index("", title[0]) if "" in lines[title[0]:] else len(lines)
    return lines[title[0]:end]


@test
def verbose_shows_one_exchange_per_target():
    """-v: each target's first exchange of the run (no request of its own), its request as sent and its response's
    status, fields and body, in HTTP/1.1, HTTP/2 and HTTP/3; Authorization and cookies masked unless -vv; then the
    first error of a kind and the first bad status, once each."""
    from http3 import built_with_http3
    srv = Serve()
    url = srv.url("/json")
    r = rafale("-v", "-n", 1, "-c", 1, "-H", "Authorization: Bearer s3cret", "-H", "Cookie: sid=abcdef", url)
    conns, reqs = srv.stop()
    x = exchange(r.err, url)
    check(reqs == 1 and r.j["summary"]["requests"] == 1, "-v -n 1: one request, none more (%s)" % reqs)
    check(x[:2] == ["rafale: -v: the first exchange of %s (HTTP/1.1)" % url, "> GET /json HTTP/1.1"]
          and "> Host: %s" % srv.addr in x, "HTTP/1.1: the request line and its fields (%r)" % x)
    check("> Authorization: <13 bytes>" in x and "> Cookie: <10 bytes>" in x and "s3cret" not in r.err
          and "abcdef" not in r.err, "the secrets masked, their length said (%r)" % x)
    check("< HTTP/1.1 200" in x and "< Content-Type: application/json" in x and
          any(l.startswith('< {"message":"Hello, world"') for l in x), "HTTP/1.1: status line, fields, body (%r)" % x)
    check("rafale: -v" not in r.out, "nothing of -v in the report")

    srv = Serve()
    url = srv.url("/json")
    r = rafale("-vv", "--http2", "-n", 1, "-c", 1, "-m", "POST", "-b", "hi there", "-H", "Cookie: sid=abcdef", url)
    srv.stop()
    x = exchange(r.err, url)
    check(x[:5] == ["rafale: -v: the first exchange of %s (HTTP/2)" % url, "> :method: POST", "> :scheme: http",
                    "> :authority: %s" % srv.addr, "> :path: /json"], "HTTP/2: the pseudo-fields (%r)" % x)
    check("> cookie: sid=abcdef" in x and "> hi there" in x, "-vv: the cookie shown; the request's body (%r)" % x)
    check("< :status: 200" in x and "< content-type: application/json" in x and
          any(l.startswith('< {"message":"Hello, world"') for l in x), "HTTP/2: :status, fields, body (%r)" % x)

    if built_with_http3():
        srv = Serve("--http3")
        url = "https://%s/json" % srv.addr
        r = rafale("-v", "--http3", "--insecure", "-n", 1, "-c", 1, url)
        srv.stop()
        x = exchange(r.err, url)
        check(x[:5] == ["rafale: -v: the first exchange of %s (HTTP/3)" % url, "> :method: GET", "> :scheme: https",
                        "> :authority: %s" % srv.addr, "> :path: /json"] and "< :status: 200" in x
              and any(l.startswith("< content-type: ") for l in x), "HTTP/3: the pseudo-fields and the answer (%r)" % x)

    # Two targets, one answering 404, one too slow: each exchange once, the 404's line once, the timeout's once.
    srv = Serve()
    a, b, c = srv.url("/"), srv.url("/status/404"), srv.url("/delay/300")
    r = rafale("-v", "-n", 60, "-c", 3, "-t", 1, "--timeout", "100ms", a, b, c)
    srv.stop()
    check(exchange(r.err, a) and "< HTTP/1.1 404" in exchange(r.err, b), "an exchange per target answered (%r)" % r.err)
    check(r.err.count("rafale: -v: the first 404 (outside --expect 2xx,3xx) answered %s" % b) == 1,
          "the first bad status: one line (%r)" % r.err)
    check(r.err.count("rafale: -v: the first timeout_answer error, of %s: " % c) == 1
          and r.err.count("rafale: -v: the first exchange") == 2, "the first error of a kind: one line (%r)" % r.err)


ENTER, LEAVE = "\033[?1049h", "\033[?1049l"


def frames(out):
    """The --tui frames in out (each begins at the cursor's return home), and what follows the alternate screen."""
    if ENTER not in out or LEAVE not in out:
        return [], ""
    screen, after = out.split(ENTER, 1)[1].split(LEAVE, 1)
    return [f.replace("\033[K", "").replace("\033[J", "") for f in screen.split("\033[H")[1:]], after


@test
def tui_full_screen_and_back():
    """--tui on a terminal: the alternate screen entered, frames with the progress against -d, req/s, the latency
    histogram and the status codes, the screen left and the report after it; q stops the run as Ctrl-C does, and so
    does SIGTERM, the terminal put back each time. Without a terminal: the report alone, not one escape byte."""
    srv = Serve()
    modes = []
    rc, out = on_pty(["--tui", "-d", "3s", "-R", "400", "-c", 2, "-t", 1, srv.url(), srv.url("/status/404")],
                     modes=modes)
    fr, after = frames(out)
    check(rc == 0 and out.startswith(ENTER) and len(fr) >= 8, "alternate screen, frames (%s, %d frames, %r)"
          % (rc, len(fr), out[:300]))
    last = fr[-1].splitlines() if fr else []
    check(any(l.startswith("Progress   [") and "100%" in l and "of 3s" in l for l in last),
          "the last frame: the progress at 100%% of 3s (%r)" % last)
    mid = [f for f in fr if "Progress" in f and "s left" in f and " 0%" not in f]
    check(mid and any(l.startswith("Progress   [#") and l.endswith("s left") for l in mid[0].splitlines()),
          "a frame on the way: progress and the time left (%r)" % mid[:1])
    check(any(l.startswith("Status     200: ") and ", 404: " in l for l in last), "status codes (%r)" % last)
    check(sum(1 for l in last if " - " in l and "#" in l and "%" in l) >= 3, "the latency histogram (%r)" % last)
    check(any(l.startswith("Latency    last second: p50 ") and " p90 " in l and " p99 " in l and "–" not in l
              for l in last), "the last second's p50, p90, p99 (%r)" % last)
    check(any(l.startswith("           the run:     p50 ") for l in last), "the run's percentiles (%r)" % last)
    check(any(l.startswith("Req/s      ") for l in last) and any("(req/s, the last" in l for l in last),
          "req/s and its sparkline (%r)" % last)
    check(any(l.startswith("  %s " % srv.url("/status/404")) for l in last), "a row per target (%r)" % last)
    check("\033" not in after and "Requests      " in after and "Status codes  200: " in after,
          "the report after the screen is left, plain (%r)" % after[:300])
    check(len(modes) == 2 and modes[0] == modes[1], "the terminal's modes put back (%s)" % modes)

    # q: stops as Ctrl-C does (exit 130, a report of what ran).
    rc, out = on_pty(["--tui", "-d", "20s", "-R", "200", "-c", 2, "-t", 1, srv.url()], send=(1.5, b"q"), timeout=15)
    fr, after = frames(out)
    check(rc == 130 and fr and "Requests      " in after, "q stops the run: exit 130, the report (%s, %r)"
          % (rc, after[:400]))
    # SIGTERM: the terminal put back as well.
    modes = []
    rc, out = on_pty(["--tui", "-d", "20s", "-R", "200", "-c", 2, "-t", 1, srv.url()], sig=(1.5, signal.SIGTERM),
                     timeout=15, modes=modes)
    fr, after = frames(out)
    check(rc == 130 and fr and out.rstrip().count(LEAVE) == 1 and "Requests      " in after
          and len(modes) == 2 and modes[0] == modes[1], "SIGTERM: screen left, modes back, the report (%s, %s, %r)"
          % (rc, modes, after[:300]))
    # Not a terminal: nothing but the report.
    p = subprocess.run([RAFALE, "--tui", "-d", "6s", "-R", "100", "-c", "2", srv.url()], capture_output=True,
                       timeout=RUN_TIMEOUT)
    srv.stop()
    check(p.returncode == 0 and b"\033" not in p.stdout + p.stderr and p.stderr == b""
          and b"Requests      " in p.stdout, "not a terminal: the report alone, no escape byte (%r)" % p.stderr[:300])
