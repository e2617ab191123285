"""Integration tests: shards, rafale merge and rafale-mpi, network namespaces."""
from common import *  # noqa: F401,F403 (the runner sets RAFALE first)


def received(port):
    """Whether a connection accepted on port has received bytes (ss's TCP_INFO of the server's sockets)."""
    out = subprocess.run(["ss", "-Htin", "state", "established", "( sport = :%d )" % port], capture_output=True,
                         text=True).stdout
    return any(int(n) > 0 for n in re.findall(r"bytes_received:(\d+)", out))


@test
def shards_merge_exactly():
    srv = Serve(threads=2)
    paths, outs = run_shards(3, ["-t", 1, "-c", 7, "-n", 3001], srv.url("/"), "sh")
    mj, mh = os.path.join(TMP, "merged.json"), os.path.join(TMP, "merged.html")
    m = merge("--json", mj, "--html", mh, *paths)
    conns, reqs = srv.stop()
    check(all(rc == 0 for rc, _, _ in outs), "3 shards ran: %s" % [e[-300:] for _, _, e in outs])
    js = [json.load(open(p)) for p in paths]
    check([j["summary"]["requests"] for j in js] == [1001, 1000, 1000] and
          [j["summary"]["connections_opened"] for j in js] == [3, 2, 2],
          "-n 3001 -c 7 split exactly over 3 shards (remainders first): %s" %
          [(j["summary"]["requests"], j["summary"]["connections_opened"]) for j in js])
    check([j["shard"]["index"] for j in js] == [0, 1, 2] and all(j["shard"]["count"] == 3 for j in js),
          "each shard's JSON says which it is")
    check(m.returncode == 0 and os.path.exists(mj), "rafale merge ran: " + m.stderr[-500:])
    if not os.path.exists(mj):
        return
    mg = json.load(open(mj))
    check(mg["summary"]["requests"] == 3001 == reqs, "merged count %s equals -n and the server's own count %s"
          % (mg["summary"]["requests"], reqs))
    check(accounted(mg) and mg["summary"]["errors"] == 0, "merged: started = completed + errors + in flight")
    lat = mg["latency"]
    check(lat["count"] == sum(j["latency"]["count"] for j in js) == 3001, "merged histogram count is the sum")
    u = union_hist([j["latency"] for j in js])
    check([tuple(x) for x in lat["histogram"]] == u, "merged histogram is the union of the shards', bucket by bucket")
    for k in ("50", "90", "99", "99.9"):
        check(pct_in_bucket(u, 3001, float(k), lat["percentiles_us"][k]),
              "merged p%s %.3f us is the union's p%s, not an average" % (k, lat["percentiles_us"][k], k))
    check(abs(lat["max_us"] - max(j["latency"]["max_us"] for j in js)) < 0.002 and
          abs(lat["min_us"] - min(j["latency"]["min_us"] for j in js)) < 0.002, "merged min and max")
    check(sum(t["requests"] for t in mg["timeline"]) == 3001, "merged timeline adds up to the total")
    check(len(mg["shards"]) == 3 and [s["requests"] for s in mg["shards"]] == [1001, 1000, 1000],
          "per-shard table in the merged JSON")
    check("Merged from 3 shards" in m.stdout and "Shard  host" in m.stdout, "merge prints the report and the shards")
    check(os.path.exists(mh) and "<svg" in open(mh).read(), "merge --html writes the report with its charts")
    rep = subprocess.run([RAFALE, "report", mj], capture_output=True, text=True, timeout=60)
    check(rep.returncode == 0 and "Merged from 3 shards" in rep.stdout and "3001 completed" in rep.stdout,
          "rafale report reads a merged result: " + rep.stderr[-300:])
    # Refusals: a shard missing, one given twice, another workload, not a shard at all.
    m2 = merge(paths[0], paths[1])
    check(m2.returncode == 1 and "3 shards and 2 results" in m2.stderr, "a missing shard refused: " + m2.stderr)
    m3 = merge(paths[0], paths[0], paths[1])
    check(m3.returncode == 1 and "given twice" in m3.stderr, "a shard given twice refused: " + m3.stderr)
    srv = Serve()
    other, _ = run_shards(3, ["-t", 1, "-c", 6, "-n", 300], srv.url("/"), "other", start_in=0.2)
    single = rafale("-n", 50, srv.url("/"))
    srv.stop()
    m4 = merge(paths[0], paths[1], other[2])
    check(m4.returncode == 1 and "not shards of the same workload" in m4.stderr and "'urls'" in m4.stderr,
          "shards of another workload refused, the difference named: " + m4.stderr)
    jp = os.path.join(TMP, "single.json")
    json.dump(single.j, open(jp, "w"))
    m5 = merge(jp)
    check(m5.returncode == 1 and "not a shard's result" in m5.stderr, "a plain run is not a shard: " + m5.stderr)


@test
def merge_bad_input():
    # rafale merge on bad input: one line each, never a crash; usage mistakes exit 2.
    srv = Serve()
    paths, outs = run_shards(2, ["-t", 1, "-c", 2, "-n", 20], srv.url("/"), "bad", start_in=0.2)
    srv.stop()
    junk = os.path.join(TMP, "junk.json")
    with open(junk, "w") as f:
        f.write("{not json")
    j = json.load(open(paths[1]))
    j["shard"]["index"] = 5
    tampered = os.path.join(TMP, "tampered.json")
    json.dump(j, open(tampered, "w"))
    for args, rc, words in ((["--bogus", paths[0]], 2, "unknown option '--bogus'"),
                            ([], 2, "no shard results given"),
                            ([paths[0], junk], 1, "not JSON"),
                            ([paths[0], os.path.join(TMP, "absent.json")], 1, "absent.json"),
                            ([paths[0], tampered], 1, "shard.index: 5 is not below the count 2")):
        m = merge(*args)
        check(m.returncode == rc and words in m.stderr and len(m.stderr.strip().splitlines()) == 1,
              "rafale merge %s: exit %d, one line with %r: %r" % (" ".join(args[:1]), rc, words, m.stderr))


@test
def merge_hostile_shards():
    # Saved shards are untrusted: starts that wrap a 32-bit offset or lie far apart, a timeline that does not add up.
    srv = Serve()
    paths, outs = run_shards(3, ["-t", 1, "-c", 3, "-n", 30], srv.url("/"), "hostile", start_in=0.2)
    srv.stop()
    orig = [json.load(open(p)) for p in paths]

    def tampered(tag, starts=None, scale=None):
        out = []
        for i, j in enumerate(orig):
            j = json.loads(json.dumps(j))
            if starts is not None:
                j["start_unix_s"] = starts[i]
                j["shard"]["start_unix_s"] = starts[i]
            if scale is not None and i == 0:
                for t in j["timeline"]:  # the per-second histograms dropped, or they would not agree
                    t["requests"] *= scale
                    t.pop("latency", None)
            p = os.path.join(TMP, "%s-%d.json" % (tag, i))
            json.dump(j, open(p, "w"))
            out.append(p)
        return out

    t0 = time.monotonic()
    m = merge("--json", os.path.join(TMP, "hm.json"), *tampered("wrap", [0, 4294967295, 0]))
    check(m.returncode == 1 and "not shards of one run" in m.stderr and len(m.stderr.strip().splitlines()) == 1,
          "starts 0, 2^32-1, 0: refused in one line, no crash (%s %r)" % (m.returncode, m.stderr))
    m = merge("--json", os.path.join(TMP, "hm.json"), *tampered("far", [1.7e9, 1.7e9 + 1e7, 1.7e9]))
    check(m.returncode == 1 and "started 10000000s after" in m.stderr and time.monotonic() - t0 < 30,
          "starts 10^7 s apart: refused at once, naming both (%r)" % m.stderr)
    m = merge(*tampered("scaled", scale=1000))
    check(m.returncode == 1 and "timeline counts" in m.stderr and "not a consistent result" in m.stderr,
          "a timeline counting 1000x its requests is refused (%r)" % m.stderr)
    base = orig[0]["start_unix_s"]
    jp = os.path.join(TMP, "hm-ok.json")
    m = merge("--json", jp, *tampered("near", [base, base + 30, base]))
    check(m.returncode == 0 and json.load(open(jp))["summary"]["requests"] == 30,
          "shards started 30 s apart by hand still merge (%r)" % m.stderr)


@test
@alone
def shard_rate_interleaves():
    # 300 req/s from 3 shards: one evenly spaced stream (~3.3 ms apart), not three bunched ones.
    rec = RecServer()
    paths, outs = run_shards(3, ["-t", 1, "-c", 3, "-R", 300, "-d", "2s"], rec.url("/r"), "rate")
    rec.stop()
    t = sorted(rec.times)
    gaps = sorted((b - a) * 1000 for a, b in zip(t, t[1:]))
    med = gaps[len(gaps) // 2] if gaps else 0
    close = sum(1 for g in gaps if g < 1.0)
    check(580 <= len(t) <= 620, "3 x 100 req/s for 2 s: %d requests at the server" % len(t))
    # Three bunched streams would put two gaps in three under 1 ms; a loaded
    # machine delays some arrivals (the sanitized build on 2 cores: 15%).
    late = [json.load(open(p))["shard"]["late_s"] * 1000 if os.path.exists(p) else None for p in paths]
    check(2.5 <= med <= 4.2 and close < len(gaps) * 0.33,
          "the server's inter-arrival times: median %.2f ms (3.33 expected), %d of %d under 1 ms (shards woke %s ms "
          "late)" % (med, close, len(gaps), late))
    mj = os.path.join(TMP, "rate-merged.json")
    m = merge("--json", mj, *paths)
    if check(m.returncode == 0, "merge of rate shards: " + m.stderr):
        mg = json.load(open(mj))
        check(abs(mg["rate"]["target_rps"] - 300) < 0.01 and mg["summary"]["requests"] == len(t),
              "merged target rate 300 and count %s = the server's %d" % (mg["summary"]["requests"], len(t)))


@test
def shard_late_keeps_the_schedule():
    # A shard that wakes after --start-at (here 0.4 s: the machine's wake-up delay writ large) keeps the common
    # schedule: its measured phase begins at --start-at, so its requests stay in phase with the other shards', and
    # the ones due while it slept go at once, each as late as it was. Before, its whole schedule began at its
    # wake-up, out of phase by however late it woke (shard_rate_interleaves saw 2-3 ms of it under load).
    srv = Serve()
    at = time.time() - 0.4
    jp = os.path.join(TMP, "late.json")
    p = subprocess.run([RAFALE, "-q", "--shard", "1/2", "--start-at", "%.3f" % at, "-t", "1", "-c", "2", "-R", "200",
                        "-d", "1s", "--json", jp, srv.url("/")], capture_output=True, text=True, timeout=RUN_TIMEOUT)
    srv.stop()
    if not check(p.returncode == 0 and os.path.exists(jp), "a late shard ran (%s %r)" % (p.returncode, p.stderr)):
        return
    j = json.load(open(jp))
    late = j["shard"]["late_s"]
    check(0.4 <= late < 1, "it says how late it began (%.3f s)" % late)
    check(abs(j["start_unix_s"] - float("%.3f" % at)) < 0.001,
          "its measured phase began at --start-at (%.3f), not at its wake-up (%.3f)" % (at, j["start_unix_s"]))
    # 100 req/s for the shard over the 1 s from --start-at; the first due then, sent some 0.4 s later. Counted as
    # due (sent, and queued at the stop): on a busy machine the last was still in flight or waiting for one of the
    # two connections when the window closed (98 answered, 1 in flight, 1 queued).
    due = j["summary"]["started"] + j["rate"]["queued"]
    check(99 <= due <= 101 and j["latency"]["max_us"] >= 0.4e6 and accounted(j),
          "the window's 100 requests, the first as late as the shard (%d due: %d answered; max %.0f ms)" %
          (due, j["summary"]["requests"], j["latency"]["max_us"] / 1000))


@test
def shard_values_and_options():
    # {{seq}} and the sequential order go on across the shards: every value once.
    rec = RecServer()
    tf = os.path.join(TMP, "seq.targets")
    with open(tf, "w") as f:
        f.write("GET %s\n\nGET %s\n" % (rec.url("/a/{{seq}}"), rec.url("/b/{{seq}}")))
    paths, outs = run_shards(3, ["-t", 1, "-c", 3, "-n", 300, "--targets", tf], None, "seq", start_in=0.2)
    rec.stop()
    seqs = sorted(int(p.rsplit("/", 1)[1]) for _, _, p, _, _ in rec.records)
    check(seqs == list(range(300)), "{{seq}} over 3 shards: 0..299 each once (%d values, %d distinct)"
          % (len(seqs), len(set(seqs))))
    a = sum(1 for _, _, p, _, _ in rec.records if p.startswith("/a/"))
    check(a == 150, "sequential order over the shards: each target its exact share (%d of 300)" % a)
    # --shard auto from the engines' variables.
    srv = Serve()
    for env, want in (({"SLURM_PROCID": "1", "SLURM_NTASKS": "2"}, (1, 2)),
                      ({"PMI_RANK": "2", "PMI_SIZE": "3"}, (2, 3)),
                      ({"OMPI_COMM_WORLD_RANK": "0", "OMPI_COMM_WORLD_SIZE": "4"}, (0, 4)),
                      ({"JOB_COMPLETION_INDEX": "3", "RAFALE_SHARDS": "5"}, (3, 5))):
        jp = os.path.join(TMP, "auto.json")
        e = dict((k, v) for k, v in os.environ.items()
                 if k not in ("SLURM_PROCID", "PMI_RANK", "OMPI_COMM_WORLD_RANK", "JOB_COMPLETION_INDEX"))
        e.update(env)
        p = subprocess.run([RAFALE, "-q", "--shard", "auto", "-c", "5", "-n", "20", "--json", jp, srv.url("/")],
                           capture_output=True, text=True, env=e, timeout=60)
        j = json.load(open(jp)) if p.returncode == 0 else {}
        check(p.returncode == 0 and (j["shard"]["index"], j["shard"]["count"]) == want,
              "--shard auto from %s: %s" % (list(env)[0], p.stderr[-200:]))
    srv.stop()
    e = dict((k, v) for k, v in os.environ.items()
             if k not in ("SLURM_PROCID", "PMI_RANK", "OMPI_COMM_WORLD_RANK", "JOB_COMPLETION_INDEX"))
    for args, words in ((["--shard", "auto"], "no shard rank and size in the environment"),
                        (["--shard", "3/3"], "--shard wants I/N"),
                        (["--shard", "2/3", "-c", "2"], "-c 2 cannot be split over 3 shards"),
                        (["--start-at", "tomorrow"], "--start-at wants Unix seconds")):
        p = subprocess.run([RAFALE, "-n", "10"] + args + ["http://127.0.0.1:1/"], capture_output=True, text=True,
                           env=e, timeout=60)
        check(p.returncode == 2 and words in p.stderr and len(p.stderr.strip().splitlines()) == 1,
              "%s: one line, exit 2: %r" % (" ".join(args), p.stderr))


@test
def mpi_run_is_one_report():
    mpi = os.path.join(os.path.dirname(RAFALE), "rafale-mpi")
    if SANITIZED:
        print("  (rafale-mpi is tested in the plain run; its merge runs sanitized in the shard tests)")
        return
    if not check(os.path.exists(mpi) and shutil.which("mpiexec"), "rafale-mpi and mpiexec are there (make test "
                                                                   "builds them; make mpi)"):
        return
    # Open MPI (should mpiexec be its) wants these as root and with more ranks than cores; MPICH ignores them.
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    srv = Serve(threads=2)
    jp = os.path.join(TMP, "mpi.json")
    p = subprocess.run(["mpiexec", "-n", "3", mpi, "-t", "1", "-c", "6", "-n", "3000", "--json", jp, srv.url("/")],
                       capture_output=True, text=True, timeout=120, env=env)
    conns, reqs = srv.stop()
    check(p.returncode == 0, "mpiexec -n 3 rafale-mpi ran: " + p.stderr[-800:])
    check(p.stdout.count("Requests ") == 1 and "Merged from 3 shards" in p.stdout and "3000 completed" in p.stdout,
          "one report, from rank 0: " + p.stdout[:400])
    if os.path.exists(jp):
        j = json.load(open(jp))
        check(j["summary"]["requests"] == 3000 == reqs and len(j["shards"]) == 3 and accounted(j),
              "rafale-mpi: merged count %s = -n = the server's %s, 3 shards" % (j["summary"]["requests"], reqs))
        check(sorted(s["requests"] for s in j["shards"]) == [1000, 1000, 1000], "each rank sent its share")
    # A rank that cannot connect: the run ends at once with its reason on rank 0, never a hang.
    srv = Serve()
    t0 = time.monotonic()
    p = subprocess.run(["mpiexec", "-n", "2", mpi, "-q", "-c", "4", "-n", "100", srv.url("/"), ":",
                        "-n", "1", mpi, "-q", "-c", "4", "-n", "100", "http://127.0.0.1:%d/" % free_port()],
                       capture_output=True, text=True, timeout=120, env=env)
    conns, reqs = srv.stop()
    check(p.returncode == 1 and "rank 2 (" in p.stderr and "cannot connect to 127.0.0.1:" in p.stderr and
          "nothing was sent" in p.stderr and reqs == 0,
          "a rank that cannot connect stops the run before any load, said on rank 0 (%.1fs): %r"
          % (time.monotonic() - t0, p.stderr[-400:]))
    # Rank 0's --json that cannot be written: said before any load, not after the run.
    p = subprocess.run(["mpiexec", "-n", "2", mpi, "-q", "-n", "100", "--json", "/nonexistent/mpi.json", srv.url("/")],
                       capture_output=True, text=True, timeout=120, env=env)
    check(p.returncode == 1 and "rank 0 (" in p.stderr and "--json: cannot write '/nonexistent/mpi.json'" in p.stderr
          and "nothing was sent" in p.stderr, "rafale-mpi: an unwritable --json stops the run first: %r" % p.stderr)
    p = subprocess.run(["mpiexec", "-n", "2", mpi, "--shard", "0/2", srv.url("/")], capture_output=True, text=True,
                       timeout=120, env=env)
    check(p.returncode == 2 and p.stderr.count("--shard is MPI's to set") == 1,
          "every rank's same mistake said once: %r" % p.stderr)
    # Interrupted: every rank stops, rank 0 still reports what was sent, exactly.
    srv = Serve(threads=2)
    jp = os.path.join(TMP, "mpi-int.json")
    proc = subprocess.Popen(["mpiexec", "-n", "3", mpi, "-q", "-t", "1", "-c", "6", "-d", "30s", "--json", jp,
                             srv.url("/")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    # Interrupted once the load runs (the server has received requests), not at a fixed time: in a full pool the
    # ranks were still waiting for --start-at 1.5 s in, and said rightly that nothing was sent.
    until = time.monotonic() + 30
    while time.monotonic() < until and proc.poll() is None and not received(srv.port):
        time.sleep(0.05)
    time.sleep(0.5)
    subprocess.run(["pkill", "-INT", "-x", "rafale-mpi"])
    out, err = proc.communicate(timeout=60)
    conns, reqs = srv.stop()
    if check(proc.returncode == 130 and os.path.exists(jp), "interrupted rafale-mpi: exit 130, report written: "
             + err[-300:]):
        j = json.load(open(jp))
        check(j["interrupted"] and j["summary"]["requests"] + j["summary"]["in_flight"] == reqs,
              "interrupted: completed %d + in flight %d = served %d" % (j["summary"]["requests"],
                                                                     j["summary"]["in_flight"], reqs))


@test
def shards_from_three_addresses():
    if not shutil.which("ip"):
        print("  SKIP: no ip command (iproute2)")
        return
    tag = "%d" % (os.getpid() % 10000)
    nets, why = netns_setup(tag, 3)
    if nets is None:
        print("  SKIP: network namespaces not allowed here: " + why)
        return
    srvns, names = nets
    log = os.path.join(TMP, "netns-access.log")
    try:
        out = open(os.path.join(TMP, "netns-serve.out"), "w+")
        srv = subprocess.Popen(["ip", "netns", "exec", srvns, RAFALE, "serve", "--listen", "10.77.0.1:8080",
                                "--access-log", log], stdout=out, stderr=subprocess.PIPE, text=True)
        for _ in range(200):
            out.seek(0)
            if out.read().startswith("listening"):
                break
            time.sleep(0.02)
        at = time.time() + 1.0
        procs = [subprocess.Popen(["ip", "netns", "exec", ns, RAFALE, "-q", "-t", "1", "--shard", "%d/3" % i,
                                   "--start-at", "%.3f" % at, "-c", "6", "-n", "1500", "--json",
                                   os.path.join(TMP, "ns-%d.json" % i), "http://10.77.0.1:8080/"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for i, ns in enumerate(names)]
        errs = [p.communicate(timeout=RUN_TIMEOUT)[1] for p in procs]
        srv.send_signal(signal.SIGTERM)
        serr = srv.communicate(timeout=20)[1]
        m = merge(*[os.path.join(TMP, "ns-%d.json" % i) for i in range(3)])
        peers = {}
        for line in open(log):
            peers[line.split()[0].rsplit(":", 1)[0]] = peers.get(line.split()[0].rsplit(":", 1)[0], 0) + 1
        check(all(p.returncode == 0 for p in procs), "3 shards in 3 namespaces ran: %s" % [e[-200:] for e in errs])
        check(sorted(peers) == ["10.77.0.11", "10.77.0.12", "10.77.0.13"] and
              sorted(peers.values()) == [500, 500, 500],
              "the server saw 3 source addresses, 500 requests each: %s" % peers)
        check(m.returncode == 0 and "1500 completed" in m.stdout and "1500 requests served" in serr,
              "merged 1500 = the server's count: " + serr[-200:] + m.stderr[-200:])
    finally:
        netns_teardown(srvns, names)


@test
def start_at_wait_said_and_interrupted():
    """A --start-at 30 s ahead says once on stderr when the load will start, even with -q (before, -q waited in
    silence: a hang to the eye), and Ctrl-C during the wait ends it at once and cleanly: one line, exit 130, no
    report and no file, no request sent (before, it started the load anyway, a report of 1 request in flight).
    A wait under 1 s is not worth a line."""
    import select
    srv = Serve()
    jp = os.path.join(TMP, "start-at.json")
    if os.path.exists(jp):
        os.unlink(jp)
    p = subprocess.Popen([RAFALE, "-q", "-n", "10", "-c", "1", "--start-at", "%.3f" % (time.time() + 30), "--json",
                          jp, srv.url("/")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ready = select.select([p.stderr], [], [], 15)[0]
    line = p.stderr.readline() if ready else ""
    # The date too when the start is another day (30 s before midnight, once).
    check(re.match(r"rafale: waiting until (\d{4}-\d\d-\d\d )?\d\d:\d\d:\d\d \S+ \(in (29|30) s\) for --start-at\n$", line),
          "start-at: the wait said once, under -q (%r)" % line)
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    try:
        out, err = p.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    took = time.monotonic() - t0
    conns, reqs = srv.stop()
    check(p.returncode == 130 and took < 1 and out == "" and
          err == "rafale: interrupted while waiting for --start-at: nothing was sent\n",
          "start-at: Ctrl-C in the wait ends it in %.2f s, rc %s, one line (%r, stdout %r)" % (took, p.returncode, err,
                                                                                              out[:200]))
    check(not os.path.exists(jp) and conns == 0 and reqs == 0,
          "start-at: no result file, nothing sent (%s connections, %s requests)" % (conns, reqs))
    srv = Serve()
    rc, out, err = run_raw(["-q", "-n", 5, "-c", 1, "--start-at", "%.3f" % (time.time() + 0.5), srv.url("/")])
    srv.stop()
    check(rc == 0 and err == "", "start-at 0.5 s ahead: no line (%r)" % err)
