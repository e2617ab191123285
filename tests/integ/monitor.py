"""Integration tests: --monitor and --monitor-cgroup: a server's processes, their CPU and memory (PSS, RSS,
as if alone), read against /proc's own figures."""
from common import *  # noqa: F401,F403 (the runner sets RAFALE first)


@test
def monitor_process_tree():
    srv = Serve(threads=2)
    r = rafale("-n", 20000, "-c", 10, "--monitor", srv.p.pid, srv.url())
    srv.stop()
    s = r.j["server"]
    check(s["pid"] == srv.p.pid and s["processes"] == 1 and s["threads"] == 3,
          "--monitor: one process with 3 threads (%s)" % s)
    check(s["cpu_s"] > 0 and s["cpu_us_per_request"] > 0 and s["rss_peak_bytes"] > 1000000 and
          s["rss_mean_bytes"] <= s["rss_peak_bytes"], "--monitor: CPU and memory measured")
    check("Server        pid" in r.out, "--monitor: in the text report")
    # A parent with two children, as gunicorn with workers: the whole tree counts.
    out = os.path.join(TMP, "tree.out")
    parent = subprocess.Popen(["sh", "-c", "%s serve --listen 127.0.0.1:0 -t 1 > %s 2>/dev/null & "
                               "%s serve --listen 127.0.0.1:0 -t 1 >/dev/null 2>&1 & wait" % (RAFALE, out, RAFALE)],
                              start_new_session=True)
    addr = None
    for _ in range(200):
        try:
            line = open(out).readline()
        except OSError:
            line = ""
        if line.startswith("listening on"):
            addr = line.split()[2]
            break
        time.sleep(0.02)
    r = rafale("-n", 5000, "-c", 4, "--monitor", parent.pid, "http://%s/" % addr)
    os.killpg(parent.pid, signal.SIGTERM)
    parent.wait(timeout=10)
    check(r.j["server"]["processes"] == 3 and r.j["server"]["cpu_s"] > 0,
          "--monitor: the parent and both children (%s)" % r.j["server"])


@test
def monitor_memory_alone_apart_from_pss():
    """A one-process server, as root: its memory as if alone (its resident pages, shared libraries whole) is named
    apart from PSS, which is the kernel's (shared pages divided among every process of the machine) and so never
    above RSS. The alone figure was labelled PSS: "PSS 7.68 MiB" beside "RSS summed 7.60 MiB", the kernel's PSS
    14.70 MiB against 22.28 MiB of RSS for Python."""
    import re
    srv = Serve()
    html = os.path.join(TMP, "alone.html")
    r = rafale("-n", 3000, "-c", 2, "-t", 1, "--monitor", srv.p.pid, "--html", html, srv.url())
    srv.stop()
    s = r.j["server"]
    # (The kernel's PSS of the server moves as other processes come and go: rafale itself shares its binary and
    # libraries while it runs. Its bound holds always.)
    check(s["has_pss"] is True and 0 < s["pss_peak_bytes"] <= s["rss_peak_bytes"],
          "memory: PSS is the kernel's, within RSS (pss %d, rss %d)" % (s["pss_peak_bytes"], s["rss_peak_bytes"]))
    line = [l for l in r.out.splitlines() if l.strip().startswith("memory")]
    # As root the server's pages are counted among its own processes; a sanitized server reserves terabytes of
    # address space for its shadow, more than the walk reads, and says so.
    if os.geteuid() == 0 and not SANITIZED:
        check(s.get("has_alone") is True and s["alone_peak_bytes"] >= s["pss_peak_bytes"] and
              s["alone_peak_bytes"] <= 1.05 * s["rss_peak_bytes"] and s["tree"][0]["alone_peak_bytes"] > 0 and
              s["memory_timeline"][0]["alone_bytes"] > 0,
              "memory: as if alone, apart, between PSS and RSS (%s)" %
              {k: s.get(k) for k in ("alone_peak_bytes", "pss_peak_bytes", "rss_peak_bytes")})
        check(line and re.match(r"\s+memory\s+alone \S+ peak \(mean \S+\), PSS \S+, USS \S+; RSS summed", line[0]) and
              "alone: its resident pages each counted once" in r.out,
              "memory: the text names both and says what alone counts (%s)" % line)
        page = open(html).read()
        check("Memory: alone " in page and ", PSS " in page and "memory (MiB, alone)" in page,
              "memory: and so does the page")
    else:
        check(s.get("has_alone") is False and line and "PSS" in line[0] and "alone" not in line[0] and
              "not measured as if alone: " in r.out, "memory: not alone, the kernel's PSS, and why (%s)" % line)
    # A result saved before: its pss_peak_bytes was the alone figure (pss_own true), the kernel's in
    # pss_sys_peak_bytes; read again, each goes under its own name.
    old = json.loads(json.dumps(r.j))
    sv = old["server"]
    for k in ("has_alone", "alone_peak_bytes", "alone_mean_bytes"):
        sv.pop(k, None)
    sv.update(pss_own=True, pss_peak_bytes=9 << 20, pss_mean_bytes=8 << 20, pss_sys_peak_bytes=5 << 20)
    for e in sv["tree"]:
        e.pop("alone_peak_bytes", None)
        e["pss_peak_bytes"] = 9 << 20
    for pt in sv["memory_timeline"]:
        pt.pop("alone_bytes", None)
        pt["pss_bytes"] = 9 << 20
    path = os.path.join(TMP, "old-pss.json")
    with open(path, "w") as fh:
        json.dump(old, fh)
    p = report_of(path, html)
    out = p.stdout.splitlines()
    line = [l for l in out if l.strip().startswith("memory")]
    rows = [l for l in out if "rafale" in l and "serve" in l and l.split()[0] == "1"]
    check(p.returncode == 0 and line and "alone 9.00MiB peak (mean 8.00MiB), PSS 5.00MiB" in line[0] and
          rows and "9.00MiB" in rows[0], "memory: an old result's figures under their names (%s %s)" % (line, rows))
    page = open(html).read()
    check("Memory: alone 9.00MiB" in page and "PSS 5.00MiB" in page, "memory: and in its page")


@test
def monitor_pss_of_a_prefork_server():
    port = free_port()
    p = subprocess.Popen([sys.executable, PREFORK, "--port", str(port), "--mb", "48", "--workers", "4"],
                         start_new_session=True)
    try:
        check(wait_port(port), "the prefork test server listens")
        r = rafale("-n", 4000, "-c", 4, "--monitor", p.pid, "http://127.0.0.1:%d/" % port)
        # Ground truth, read now: the block is written once at start and never again.
        pids = proc_tree(p.pid)
        pss = sum(smaps(q, "Pss") for q in pids)
        rss = sum(smaps(q, "Rss") for q in pids)
    finally:
        os.killpg(p.pid, signal.SIGTERM)
        p.wait(timeout=10)
    s = r.j["server"]
    check(len(pids) == 5 and s["has_pss"] is True, "--monitor: a master and 4 workers (%s)" % pids)
    check(abs(s["pss_peak_bytes"] - pss) < 0.15 * pss,
          "--monitor: PSS summed %d within 15%% of smaps_rollup's own sum %d" % (s["pss_peak_bytes"], pss))
    check(s["rss_peak_bytes"] > 3 * s["pss_peak_bytes"] and abs(s["rss_peak_bytes"] - rss) < 0.15 * rss,
          "--monitor: summed RSS (%d) is several times PSS (%d)" % (s["rss_peak_bytes"], s["pss_peak_bytes"]))
    check(s["pss_peak_bytes"] >= 48 << 20 and s["uss_peak_bytes"] < s["pss_peak_bytes"] / 2,
          "--monitor: the 48 MiB block counted once, and it is not private to anyone")
    if os.geteuid() == 0:
        # As if alone: the block once, and the interpreter's shared pages whole, so never under the kernel's PSS.
        check(s["has_alone"] is True and s["alone_peak_bytes"] >= s["pss_peak_bytes"] >= 48 << 20 and
              s["alone_peak_bytes"] < s["rss_peak_bytes"] / 3 and "alone each" in r.out,
              "--monitor: as if alone, apart from PSS (%s)" %
              {k: s[k] for k in ("alone_peak_bytes", "pss_peak_bytes", "rss_peak_bytes")})
    tree = s["tree"]
    check(len(tree) == 5 and {e["ppid"] for e in tree if e["pid"] != p.pid} == {p.pid} and
          all(e["pss_peak_bytes"] > 0 and e["rss_peak_bytes"] >= 48 << 20 for e in tree),
          "--monitor: one entry per process with its own PSS and RSS (%s)" % tree)
    check(sum(e["cpu_s"] for e in tree) > 0 and s["cpu_s"] > 0, "--monitor: CPU per process")
    rows = [l.split() for l in r.out.splitlines() if "prefork_server.py" in l]
    check(sorted(row[0] for row in rows) == ["1", "4"] and "PSS" in r.out and "RSS summed" in r.out,
          "--monitor: the text groups the master and the 4 workers (%s)" % rows)
    check(s["memory_timeline"] and s["memory_timeline"][0]["pss_bytes"] > 0, "--monitor: memory over time")


@test
def monitor_a_cgroup():
    _, cg = scratch_cgroup("rafale-it", "--monitor-cgroup")
    if cg is None:
        return
    port = free_port()
    # The server joins the cgroup before it starts, then leaves its parent's tree (setsid, daemonized).
    p = subprocess.Popen(["sh", "-c", "echo $$ > %s/cgroup.procs && exec %s %s --port %d --daemonize --workers 3" %
                          (cg, sys.executable, PREFORK, port)])
    p.wait(timeout=10)
    try:
        check(wait_port(port), "the daemon listens")
        r = rafale("-n", 3000, "-c", 3, "--monitor-cgroup", cg, "http://127.0.0.1:%d/" % port)
        s = r.j["server"]
        check(s["cgroup"] == cg and s["processes"] == 4 and s["cpu_exact"] is True and s["cpu_s"] > 0 and
              s["pss_peak_bytes"] > 0, "--monitor-cgroup: every process of the cgroup, exact CPU (%s)" %
              {k: s[k] for k in ("processes", "cpu_s", "cpu_exact")})
        check("cgroup " + cg in r.out, "--monitor-cgroup: in the text report")
        bad = rafale("-n", 10, "--monitor-cgroup", "/nonexistent", "http://127.0.0.1:%d/" % port, expect_json=False)
        check(bad.rc == 2 and "is not a readable cgroup v2 directory" in bad.err, "--monitor-cgroup: a bad path")
    finally:
        for pid in open(os.path.join(cg, "cgroup.procs")).read().split():
            try:
                os.kill(int(pid), signal.SIGKILL)
            except OSError:
                pass
        for _ in range(100):
            if not open(os.path.join(cg, "cgroup.procs")).read().strip():
                break
            time.sleep(0.02)
        os.rmdir(cg)
