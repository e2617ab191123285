"""Integration tests: --log, the request log: a line per ended request, and a slow reader of it."""
from common import *  # noqa: F401,F403 (the runner sets RAFALE first)


@test
def log_has_a_line_per_ended_request():
    import csv as csvmod
    srv = Serve()
    jl = os.path.join(TMP, "req.jsonl")
    r = rafale("-n", 1000, "-c", 4, "-t", 2, "--log", jl, srv.url("/"), srv.url("/status/503"))
    lines = [json.loads(l) for l in open(jl)]
    head, rows = lines[0], lines[1:]
    s = r.j["summary"]
    check("start_unix_s" in head and abs(head["start_unix_s"] - r.j["start_unix_s"]) < 1e-3,
          "log: a header line with the wall clock of the start")
    check(len(rows) == s["requests"] + s["errors"] == 1000 and r.j["log"] == {"file": jl, "written": 1000, "dropped": 0,
                                                                            "error": None},
          "log: a line per ended request (%d, %s)" % (len(rows), r.j.get("log")))
    keys = ["t_us", "target", "method", "status", "error", "ttfb_us", "total_us", "user_total_us", "bytes_in", "bytes_out", "conn",
            "thread", "shard", "due_us"]
    check(all(list(x.keys()) == keys for x in rows), "log: the keys, in order")
    check(sum(1 for x in rows if x["status"] == 503) == r.j["status"]["503"] and
          all(x["target"] in (srv.url("/"), srv.url("/status/503")) and x["method"] == "GET" for x in rows),
          "log: statuses and targets as the report counts them")
    check(all(0 <= x["conn"] < 4 and x["thread"] in (0, 1) and x["ttfb_us"] <= x["total_us"] and x["bytes_in"] > 0 and
              x["bytes_out"] > 0 and x["due_us"] is None for x in rows), "log: connection, thread, times and bytes")
    # Names the escaping makes long (tabs, quotes, backslashes) and names cut inside UTF-8: every line is JSON.
    tf = targets_file("log-names.targets", "# name: a%sb\nGET %s\n\n# name: %s\nGET %s\n\n# name: a%s\nGET %s\n"
                      % ("\t" * 1022, srv.url("/"), '"' * 1000, srv.url("/"), "\u00e9" * 1000, srv.url("/")))
    # 40 requests, ten of each name: 300 (2.5 KiB a line) overran the log's buffers when its writer thread was not
    # scheduled on a loaded machine, and lines were dropped (counted, as they should be, but then not all here).
    r = rafale("-n", 40, "-c", 2, "-t", 1, "--targets", tf, "--log", jl, srv.url("/" + "\\" * 980))
    try:
        rows = [json.loads(l) for l in open(jl, encoding="utf-8")][1:]
    except ValueError as e:
        rows = []
        print("  not JSON:", e)
    check(len(rows) == 40 and sorted({len(x["target"]) for x in rows}) == [512, 1000, 1003, 1024] and
          any(x["target"].startswith('""""') for x in rows) and any(x["target"].startswith("a\u00e9") for x in rows),
          "log: long escaped names and names cut in UTF-8 stay whole JSON lines (%d, %s, %s)" %
          (len(rows), sorted({len(x["target"]) for x in rows}), sorted({x["target"][:3] for x in rows})))
    # CSV, rate mode (due_us), errors, one in N.
    cv = os.path.join(TMP, "req.csv")
    r = rafale("-n", 200, "-c", 2, "-t", 1, "-R", 400, "--log", cv, "--log-sample", 10, srv.url("/"))
    with open(cv) as fh:
        first = fh.readline()
        rows = list(csvmod.DictReader(fh))
    check(first.startswith("# rafale request log, start_unix_s=") and len(rows) == 20 and
          all(x["due_us"] != "" and x["status"] == "200" for x in rows) and r.j["log"]["written"] == 20,
          "log: CSV, one request in 10, with the due time in rate mode (%d rows)" % len(rows))
    bad = BadServer("closenow")
    r = rafale("-n", 5, "-c", 1, "--log", jl, bad.url())
    bad.stop()
    rows = [json.loads(l) for l in open(jl)][1:]
    kinds = {}
    for x in rows:
        kinds[x["error"]] = kinds.get(x["error"], 0) + 1
    # The server closes each connection at once: closed_early, or reset when the close raced the request.
    check(len(rows) == 5 and all(x["status"] is None for x in rows) and
          kinds == {k: v for k, v in r.j["errors"].items() if v} and set(kinds) <= {"closed_early", "reset"},
          "log: errors have their kind, as the JSON counts them (%s, %s)" % (kinds, r.j["errors"]))
    # A full disk: the run goes on, the lines are counted as dropped.
    r = rafale("-n", 300, "-c", 2, "--log", "/dev/full", srv.url("/"))
    check(r.rc == 0 and r.j["summary"]["requests"] == 300 and r.j["log"]["written"] == 0 and
          r.j["log"]["dropped"] == 300 and r.j["log"]["error"] == "No space left on device" and
          "300 dropped, counted: the writing stopped" in r.err + r.out, "log: a full disk stops the log, not the run")
    # A writer that falls behind (a pipe nobody reads until rafale has ended): the workers never wait; what cannot
    # be kept is dropped and counted, and every line is either written or counted as dropped.
    fifo = os.path.join(TMP, "slow.fifo")
    if not os.path.exists(fifo):
        os.mkfifo(fifo)
    # The reader opens the pipe at once (without waiting for a writer), then reads nothing until told, once rafale
    # has ended: the run's end waits 2 s for it, no more. (A reader asleep for a fixed 3 s woke within those 2 s
    # when the sanitized run itself took over a second on a loaded machine.)
    reader = subprocess.Popen([sys.executable, "-c", "import os, sys, time, select\n"
                               "fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)\nprint('ready', flush=True)\n"
                               "sys.stdin.readline()\nn = 0\nwhile True:\n    select.select([fd], [], [], 5)\n"
                               "    b = os.read(fd, 65536)\n    if not b: break\n    n += b.count(b'\\n')\n"
                               "print(n)", fifo], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    reader.stdout.readline()
    t0 = time.monotonic()
    r = rafale("-n", 20000, "-c", 4, "-t", 1, "--log", fifo, srv.url("/"))
    waited = time.monotonic() - t0
    got = int(reader.communicate(input="read now\n", timeout=60)[0].split()[-1])
    lg = r.j["log"]
    check(r.rc == 0 and lg["dropped"] > 0 and lg["written"] + lg["dropped"] == 20000 and got >= lg["written"] + 1,
          "log: a slow reader: lines dropped and counted (%s, the reader got %d)" % (lg, got))
    # The end gave up on it (EAGAIN: the bounded wait), it did not wait for it to read.
    check(lg["error"] == "Resource temporarily unavailable", "log: the end's wait is bounded (%s, %.1f s)" % (lg, waited))
    p = subprocess.run([RAFALE, "-q", "-n", "1", "--log", fifo, "http://127.0.0.1:1/"], capture_output=True, text=True,
                       timeout=30)
    check(p.returncode == 2 and one_line(p.stderr, "a pipe with no reader"), "log: a pipe nobody reads is refused (%r)"
          % p.stderr)
    srv.stop()
    p = subprocess.run([RAFALE, "-q", "-n", "1", "--log", "/nonexistent/dir/x.log", "http://127.0.0.1:1/"],
                       capture_output=True, text=True, timeout=30)
    check(p.returncode == 2 and one_line(p.stderr, "--log: cannot write '/nonexistent/dir/x.log'"),
          "log: a path that cannot be written, before any load (%r)" % p.stderr)
    p = subprocess.run([RAFALE, "-q", "-n", "1", "--log", "-", "--json", "-", "http://127.0.0.1:1/"],
                       capture_output=True, text=True, timeout=30)
    check(p.returncode == 2 and one_line(p.stderr, "--log - and --json - both want standard output"),
          "log: stdout for both, refused (%r)" % p.stderr)
    p = subprocess.run([RAFALE, "sweep", "--slo", "p99<1s", "--log", "x.jsonl", "http://127.0.0.1:1/"],
                       capture_output=True, text=True, timeout=30)
    check(p.returncode == 2 and "--log" in p.stderr, "log: not for sweep, whose steps are runs of their own (%r)"
          % p.stderr)


@test
def log_to_a_slow_stdout_keeps_the_report():
    # --log - into a pipe whose reader does not read yet: the log's lines it cannot keep are dropped and counted,
    # the report after them is written whole (it waits for the reader), and the caller's pipe is left blocking.
    import fcntl
    import select
    srv = Serve()
    rd, wr = os.pipe()
    p = subprocess.Popen([RAFALE, "-n", "3000", "-c", "4", "-t", "1", "--log", "-", srv.url("/")], stdout=wr,
                         stderr=subprocess.PIPE)
    # Nothing read until rafale has given up on the reader (2 s after the run) and gone on to its report: an
    # unfixed build has exited by then, its report lost.
    try:
        p.wait(timeout=3)
    except subprocess.TimeoutExpired:
        pass
    out = bytearray()
    while p.poll() is None:
        if select.select([rd], [], [], 0.1)[0]:
            out += os.read(rd, 65536)
    flags = fcntl.fcntl(wr, fcntl.F_GETFL)
    os.close(wr)
    while True:
        b = os.read(rd, 65536)
        if not b:
            break
        out += b
    os.close(rd)
    err = p.stderr.read().decode()
    srv.stop()
    text = out.decode("utf-8", "replace")
    check(not flags & os.O_NONBLOCK, "log -: the caller's pipe is still blocking after rafale (flags %#x)" % flags)
    check(p.returncode == 0 and "Status codes  200: 3000" in text and
          re.search(r"Log +\d+ lines to stdout; \d+ dropped", text) is not None and err == "",
          "log -: a slow reader gets the whole report after the log (rc %d, %r, %r)"
          % (p.returncode, text[-300:], err))
    # A report that cannot be written is said, on stderr, and the exit is not 0.
    srv = Serve()
    with open("/dev/full", "w") as full:
        p = subprocess.run([RAFALE, "-n", "10", "-c", "1", srv.url("/")], stdout=full, stderr=subprocess.PIPE,
                           text=True, timeout=RUN_TIMEOUT)
    srv.stop()
    check(p.returncode == 1 and one_line(p.stderr, "writing the report to standard output failed: No space left"),
          "a report that cannot be written: one line, exit 1 (rc %d, %r)" % (p.returncode, p.stderr))
