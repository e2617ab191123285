"""Integration tests: what the reports say: monitoring a server, HTML, saved results read back, escaping."""
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


def html_status_checks(text, j, code, what):
    """A page of a run whose URLs include one answering code (outside the expected statuses): the bad statuses are
    at the top of the page with the findings, in the summary, and their bar in the status chart is coloured apart
    from the good answers' (the 200's blue before)."""
    import re
    s = j["summary"]
    bad = s["unexpected_status"]
    pct = "%.2f%%" % (100.0 * bad / s["requests"])
    top = text.split("<h2>Latency</h2>")[0]
    check(bad > 0 and "Bad status" in top and str(bad) in top and pct in top and (": %d" % code) in top,
          "%s: the bad statuses at the top of the page (%d, %s, %d)" % (what, bad, pct, code))
    summary = top.split("<h2>Summary</h2>")[-1]
    check("<th>bad status</th>" in summary and ("<td>%d (%s)</td>" % (bad, pct)) in summary,
          "%s: the summary has the bad-status figure (%s)" % (what, summary[:400]))
    chart = [x for x in re.findall(r"<svg.*?</svg>", text, re.S) if "Status codes and errors" in x]
    fills = dict(re.findall(r'<rect class="bar"[^>]*fill="([^"]+)"><title>(\d+):', chart[0])[::1]) if chart else {}
    fills = {int(k): v for v, k in fills.items()}
    check(set(fills) >= {200, code} and fills[200] != fills[code] and "%dxx" % (code // 100) in chart[0],
          "%s: the %d bar coloured apart from the 200's, its class in the legend (%s)" % (what, code, fills))


def latency_over_time_span(j):
    """How many times the slowest answer of any second is the fastest second's p50 (the latency-over-time chart's
    span)."""
    tl = [x for x in j["timeline"] if x["requests"]]
    p50 = min(x["p50_us"] for x in tl if x["p50_us"] > 0)
    return max(x["max_us"] for x in tl) / p50


@test
def html_latency_axes_log_past_two_decades():
    """A latency axis that spans more than two decades (100 times) is logarithmic, so the fast answers are not laid
    on the zero line under a slow one: the latency over time (p50 and max), and the bars per URL."""
    import re
    srv = Serve()
    html = os.path.join(TMP, "decades.html")
    r = rafale("-c", 2, "-t", 1, "-d", "2s", "--html", html, srv.url(), srv.url("/delay/50"), srv.url("/status/404"))
    srv.stop()
    text = open(html).read()
    span = latency_over_time_span(r.j)
    svgs = {re.search(r"<title>(.*?)</title>", x).group(1): x for x in re.findall(r"<svg.*?</svg>", text, re.S)}
    over = svgs.get("Latency over time", "")
    check(span > 100 and "latency (ms, log scale)" in over,
          "log axis: latency over time spans %.0f times, its axis is logarithmic" % span)
    per = svgs.get("Latency per URL", "")
    check("latency (ms, log scale)" in per, "log axis: the bars per URL (p50 of / against p99 of /delay/50)")
    check(not svg_geometry_ok(text), "log axis: bars and curves inside their plots (%s)" % svg_geometry_ok(text)[:3])
    html_status_checks(text, r.j, 404, "log axis")
    # A run whose latencies stay within two decades keeps a linear axis.
    srv = Serve()
    r = rafale("-c", 2, "-t", 1, "-d", "1s", "--html", html, srv.url("/delay/5"))
    srv.stop()
    text = open(html).read()
    over = [x for x in re.findall(r"<svg.*?</svg>", text, re.S) if "<title>Latency over time</title>" in x]
    span = latency_over_time_span(r.j)
    check(span <= 100 and over and "log scale" not in over[0] and "latency (ms)" in over[0],
          "log axis: within %.1f times, linear" % span)


@test
def html_report():
    import xml.etree.ElementTree as ET
    srv = Serve()
    html = os.path.join(TMP, "report.html")
    r = rafale("-R", 500, "-c", 4, "-d", "2s", "--html", html, srv.url(), srv.url("/status/503"))
    srv.stop()
    text = open(html).read()
    try:
        ET.fromstring(text.split("\n", 1)[1])  # well-formed, past the doctype
        ok = True
    except ET.ParseError as e:
        ok = False
        print("  parse error:", e)
    check(ok, "--html: well-formed")
    check(text.count("<svg") == 5 and "Latency by percentile" in text and "Throughput over time" in text and
          "Latency over time" in text and "Status codes and errors" in text and "Latency per URL" in text,
          "--html: the five charts (one per URL: two URLs)")
    check("<script" not in text and " src=" not in text and "href=" not in text and "@import" not in text,
          "--html: self-contained, no script, nothing fetched")
    check("percentile" in text and "latency (ms" in text and "requests per second" in text, "--html: axis labels")
    check(not svg_geometry_ok(text), "--html: legends below the plots (%s)" % svg_geometry_ok(text)[:2])
    html_status_checks(text, r.j, 503, "--html")
    # A run that ends 0.6 s into its last second: that second is scaled, not drawn as a drop.
    srv2 = Serve()
    h2 = os.path.join(TMP, "partial.html")
    rafale("-R", 200, "-c", 2, "-d", "1.6s", "--html", h2, srv2.url())
    srv2.stop()
    import re
    svg = [x for x in re.findall(r"<svg.*?</svg>", open(h2).read(), re.S) if "Throughput over time" in x][0]
    pts = [tuple(map(float, q.split(","))) for q in re.search(r'class="series"[^>]*points="([^"]*)"', svg).group(1).split()]
    plot = re.search(r'class="plot" x="\d+" y="(\d+)" width="\d+" height="(\d+)"', svg)
    bottom = float(plot.group(1)) + float(plot.group(2))
    check(len(pts) == 2 and abs((bottom - pts[1][1]) - (bottom - pts[0][1])) < 0.15 * (bottom - pts[0][1]),
          "--html: the last partial second is scaled, no false drop (%s)" % pts)
    chromium = shutil.which("chromium")
    if not chromium:
        print("  (chromium not installed: no screenshot check)")
        return
    shot = os.path.join(TMP, "shot.png")
    p = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                        "--disable-background-networking", "--disable-component-update", "--disable-sync",
                        "--user-data-dir=" + os.path.join(TMP, "chromium"), "--enable-logging=stderr", "--v=0",
                        "--window-size=800,2000", "--screenshot=" + shot, "file://" + html],
                       capture_output=True, text=True, timeout=120)
    check(os.path.exists(shot) and png_not_blank(shot), "--html: Chromium renders a page that is not blank")
    console = [l for l in p.stderr.splitlines() if "CONSOLE" in l]
    check(not console, "--html: no console messages (%s)" % console[:3])


@test
def per_target_tables_and_chart():
    import re
    srv = Serve()
    tf = targets_file("endpoints.targets", "# name: fast\nGET %s\n\n# name: m\u00e9dium\nGET %s\n\nGET %s\n"
                      % (srv.url("/delay/1"), srv.url("/delay/5"), srv.url("/delay/20")))
    html = os.path.join(TMP, "endpoints.html")
    r = rafale("-n", 300, "-c", 3, "-t", 1, "--targets", tf, "--html", html)
    srv.stop()
    # The text: a row per target with its requests, req/s, p50 and p99 (each target took a third of the run).
    rows = {}
    for line in r.out.rsplit("\nTarget ", 1)[-1].splitlines()[1:4]:
        m = re.match(r"  (.+?)\s+(\d+)\s+(\d+)\s+([\d.]+)\s+(\S+)\s+(\S+)\s+(\S+)$", line)
        if m:
            rows[m.group(1)] = m.groups()[1:]
    url20 = "GET " + srv.url("/delay/20")
    check(set(rows) == {"fast", "m\u00e9dium", url20} and all(v[0] == "100" and v[1] == "0" for v in rows.values()),
          "targets: the text report has a row per target, 100 requests each, no error (%s)" % rows)
    p50 = {(u["name"] or "GET " + u["url"]): u["latency"]["percentiles_us"]["50"] / 1000 for u in r.j["per_url"]}
    ms = lambda t: float(t[:-2]) if t.endswith("ms") else float(t[:-2]) / 1000 if t.endswith("us") else float(t[:-1]) * 1e3
    check(len(rows) == 3 and all(abs(ms(rows[k][3]) - p50[k]) <= 0.01 * p50[k] for k in rows) and
          ms(rows["fast"][3]) < ms(rows["m\u00e9dium"][3]) < ms(rows[url20][3]) and ms(rows[url20][3]) >= 20,
          "targets: each target's own p50, as in the JSON, slowest last (%s, %s)" % (rows, p50))
    text = open(html).read()
    check(text.count("<svg") == 5 and "<h2>Per target</h2>" in text and "Latency per target" in text,
          "targets: the HTML has the per-target table and chart")
    chart = [x for x in re.findall(r"<svg.*?</svg>", text, re.S) if "Latency per target" in x]
    bars = re.findall(r'<rect class="bar"[^>]*height="([\d.]+)"[^>]*><title>(p50|p99): ([\d.]+)</title>', chart[0]) \
        if chart else []
    p50 = [float(v) for _, k, v in bars if k == "p50"]
    check(len(bars) == 6 and p50 == sorted(p50) and p50[2] >= 20 and "<title>m\u00e9dium</title>" in chart[0],
          "targets: a p50 and a p99 bar per target, their tooltips in ms (%s)" % bars)
    bad = svg_geometry_ok(text)
    check(not bad, "targets: bars, legends in their places (%s)" % bad[:3])


@test
def report_from_saved_json():
    srv = Serve()
    j1, j2 = os.path.join(TMP, "a.json"), os.path.join(TMP, "b.json")
    r1 = rafale("-n", 3000, "-c", 4, "--json", j1, srv.url(), expect_json=False)
    r2 = rafale("-R", 300, "-d", "2s", "-c", 8, "--json", j2, srv.url("/delay/10"), expect_json=False)
    srv.stop()
    html = os.path.join(TMP, "again.html")
    p = subprocess.run([RAFALE, "report", "--html", html, j1], capture_output=True, text=True, timeout=60)
    a = json.load(open(j1))
    check(p.returncode == 0 and "Requests      3000 completed" in p.stdout, "report: the text report again")
    line = lambda out: [l for l in out.splitlines() if l.strip().startswith("total")]
    check(line(p.stdout) == line(r1.out), "report: the same latency row as the run printed (%s / %s)" %
          (line(p.stdout), line(r1.out)))
    t = open(html).read()
    check(t.count("<svg") == 4 and "Latency by percentile" in t, "report: the HTML rebuilt")
    p = subprocess.run([RAFALE, "report", "--html", html, j1, j2], capture_output=True, text=True, timeout=60)
    t = open(html).read()
    # Side by side, as the README says: each file's settings, then one row of headline figures per file (not two
    # whole reports one after the other).
    b = json.load(open(j2))
    rows = {l.split()[0]: l.split() for l in p.stdout.splitlines() if l.startswith("  ") and l.split()[0] in (j1, j2)}
    check(p.returncode == 0 and "Latency distribution" not in p.stdout and "Side by side" in p.stdout and
          "300.0 req/s, 2.00s at most" in p.stdout and "/delay/10" in p.stdout, "report: two files, their settings "
          "and no whole report (%s)" % p.stdout[:800])
    check(set(rows) == {j1, j2} and rows[j1][1] == "3000" and rows[j2][1] == str(b["summary"]["requests"]) and
          abs(float(rows[j1][4]) - a["summary"]["rps"]) < 0.06 and abs(float(rows[j2][4]) - b["summary"]["rps"]) < 0.06,
          "report: two files, a row of figures each (%s)" % rows)
    check(t.count("<svg") >= 5 and "a.json" in t and "b.json" in t and "Latency by percentile" in t,
          "report: two files side by side in HTML")
    # The undecided reasons are a list in the page, not its tags written out as text.
    check("&lt;ul&gt;" not in t and "&lt;/ul&gt;" not in t and "&lt;li&gt;" not in t and
          "undecided: too few rounds" in t, "report: the verdict's reasons as a list, no escaped tags")
    # /delay/10 against a fast answer: the latency bars span far more than two decades, on a log axis where the
    # fast server's bars still show.
    import re
    bars = [x for x in re.findall(r"<svg.*?</svg>", t, re.S) if "<title>Latency: " in x]
    heights = [float(h) for h in re.findall(r'<rect class="bar"[^>]*height="([\d.]+)"', bars[0])] if bars else []
    check(bars and "latency (ms, log scale)" in bars[0] and heights and min(heights) > 0.1 * max(heights),
          "report: the latency bars on a log axis, every bar visible (%s)" % heights)
    bad = os.path.join(TMP, "bad.json")
    with open(bad, "w") as f:
        f.write('{"hello": 1}')
    p = subprocess.run([RAFALE, "report", bad], capture_output=True, text=True, timeout=10)
    check(p.returncode == 1 and "not a rafale result" in p.stderr, "report: a file that is not a result")
    with open(bad, "w") as f:
        f.write('{"hello": ')
    p = subprocess.run([RAFALE, "report", bad], capture_output=True, text=True, timeout=10)
    check(p.returncode == 1 and "not JSON" in p.stderr, "report: a file that is not JSON")


@test
def saved_results_are_checked():
    srv = Serve()
    good = os.path.join(TMP, "good.json")
    rafale("-n", 500, "-c", 2, "--json", good, srv.url(), srv.url("/json"), expect_json=False)
    srv.stop()
    base = json.load(open(good))
    bad = os.path.join(TMP, "edited.json")

    def edited(change, field, words):
        j = json.loads(json.dumps(base))
        change(j)
        with open(bad, "w") as f:
            json.dump(j, f)
        p = report_of(bad)
        lines = [l for l in p.stderr.splitlines() if l.strip()]
        check(p.returncode == 1 and len(lines) == 1 and lines[0].startswith("rafale report: %s: %s" % (bad, field))
              and words in lines[0] and "Sanitizer" not in p.stderr and "runtime error" not in p.stderr,
              "report: %s refused (%r)" % (field, p.stderr[-300:]))

    def setp(path, value):
        def f(j):
            o = j
            for k in path[:-1]:
                o = o[k]
            o[path[-1]] = value
        return f

    edited(setp(["summary", "requests"], -1), "summary.requests", "out of range")
    cal = {"when_unix_s": 1.7e9, "workload": "w", "pin": "p", "rps": 100.0, "rps_ci": [120.0, 90.0], "p50_us": 1.0,
           "p99_us": 2.0, "environment": base["environment"]}
    edited(setp(["calibration"], cal), "calibration.rps_ci", "low <= high")
    edited(setp(["calibration"], dict(cal, rps_ci=None, rps=-5)), "calibration.rps", "out of range")
    edited(setp(["calibration"], dict(cal, rps_ci=None, environment="x")), "calibration.environment", "")
    edited(setp(["summary", "elapsed_s"], 1e308), "summary.elapsed_s", "out of range")
    edited(setp(["latency", "max_us"], 1e308), "latency.max_us", "out of range")
    edited(setp(["status", "200"], -1), "status.200", "out of range")
    edited(setp(["status", "200"], 2.5), "status.200", "not a whole number")
    edited(setp(["status", "abc"], 1), "status.abc", "not a status code")
    edited(setp(["summary", "requests"], "many"), "summary.requests", "not a number")
    edited(setp(["config", "method"], "<script>alert(4)</script>"), "config.method", "not an HTTP method")
    edited(setp(["config", "urls"], "http://x/"), "config.urls", "not a list")
    edited(lambda j: j["latency"]["histogram"].reverse(), "latency.histogram[1]", "not above the previous one")
    edited(setp(["latency", "count"], 1), "latency.count", "the buckets add up to")
    edited(setp(["summary", "started"], 7), "summary.started", "not completed + errors + in flight")
    edited(setp(["errors", "reset"], 3), "summary.errors", "the kinds add up to 3")
    edited(lambda j: j["per_url"].pop(), "per_url", "1 entries for 2 URLs")
    edited(setp(["per_url", 1, "summary", "requests"], -5), "per_url[1].summary.requests", "out of range")
    edited(setp(["timeline", 0, "p99_us"], 1e300),
           "timeline[0].p99_us", "out of range")
    # Figures no run writes, that made inf req/s and an infinite interval: a duration too short for its
    # requests, a latency below the histogram's 1 ns.
    edited(setp(["summary", "elapsed_s"], 5e-324), "summary.elapsed_s", "cannot hold 500 requests")
    edited(setp(["summary", "elapsed_s"], 0), "summary.elapsed_s", "cannot hold 500 requests")
    swings = [dict(base["timeline"][0], t_s=i, p99_us=1e-300 if i % 2 else 3.6e9) for i in range(6)]
    edited(setp(["timeline"], swings), "timeline[1].p99_us", "below 1 ns")
    edited(setp(["latency", "min_us"], 1e-300), "latency.min_us", "below 1 ns")
    edited(setp(["summary", "elapsed_s"], 5e-324), "summary.elapsed_s", "cannot hold 500 requests")
    p = subprocess.run([RAFALE, "diff", "--json", os.path.join(TMP, "inf-diff.json"), good, bad], capture_output=True,
                       text=True, timeout=60)
    check(p.returncode == 1 and p.stderr.startswith("rafale diff: %s: summary.elapsed_s: " % bad) and
          len(p.stderr.strip().splitlines()) == 1 and not os.path.exists(os.path.join(TMP, "inf-diff.json")),
          "diff: the file is refused in one line, no JSON written (%d %r)" % (p.returncode, p.stderr))
    p = report_of(good)
    check(p.returncode == 0 and "Requests      500 completed" in p.stdout, "report: the unedited file still loads")
    # A saved name with an escape sequence and a bell reaches no terminal as such.
    j = json.loads(json.dumps(base))
    j["per_url"][1]["name"] = "x\u001b]0;pwned\u0007\u001b[31mred"
    with open(bad, "w") as f:
        json.dump(j, f)
    p = report_of(bad)
    check(p.returncode == 0 and "\x1b" not in p.stdout and "\x07" not in p.stdout and "x?]0;pwned??[31mred" in p.stdout,
          "report: control bytes of a saved string are shown as '?' (%r)" % p.stdout[-400:])


@test
def saved_results_have_a_size_cap():
    # report, diff and merge read at most 256 MiB of a saved result: a larger file is refused by its size before
    # it is read (a sparse one here), a pipe as soon as it passes the cap; one line each.
    big, cap = os.path.join(TMP, "big.json"), os.path.join(TMP, "cap.json")
    for path, size in ((big, (256 << 20) + 1), (cap, 256 << 20)):
        with open(path, "wb") as f:
            f.truncate(size)
    for cmd in (["report", big], ["diff", big, cap], ["merge", big]):
        p = subprocess.run([RAFALE] + cmd, capture_output=True, text=True, timeout=60)
        check(p.returncode == 1 and p.stderr.strip() == "rafale %s: %s: larger than 256 MiB" % (cmd[0], big),
              "%s: a file over the cap is refused in one line (%d %r)" % (cmd[0], p.returncode, p.stderr))
    p = subprocess.run([RAFALE, "report", cap], capture_output=True, text=True, timeout=60)
    check(p.returncode == 1 and "not JSON" in p.stderr, "report: a file at the cap is read (%r)" % p.stderr)
    os.unlink(big)
    os.unlink(cap)
    # A pipe of '[' and spaces without end: refused at the cap, not read until memory runs out.
    p = subprocess.Popen([RAFALE, "report", "/dev/stdin"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    sent, chunk = 0, b"[" + b" " * (1 << 20)
    try:
        while sent < (300 << 20):
            p.stdin.write(chunk)
            sent += len(chunk)
    except BrokenPipeError:
        pass
    out, err = p.communicate(timeout=60)
    check(p.returncode == 1 and err.decode().strip() == "rafale report: /dev/stdin: larger than 256 MiB" and
          sent < (300 << 20), "report: a pipe is refused at the cap (%d, %d MiB sent, %r)" % (p.returncode, sent >> 20, err))


@test
def nothing_reaches_html_unescaped():
    import glob
    import re
    here = os.path.dirname(os.path.abspath(__file__))
    for name in ("report_html.c", "report_compare_html.c", "svg.c"):
        src = open(glob.glob(os.path.join(here, "..", "..", "src", "*", name))[0]).read()
        raw = re.findall(r"\b(fprintf|fputs|fputc|fwrite|putc|vfprintf)\s*\(", src)
        check(not raw, "html: %s writes only through html.h (%s)" % (name, raw))
    XSS = '<script>alert(1)</script>'
    srv = Serve()
    js = os.path.join(TMP, "xss.json")
    rafale("-n", 200, "-c", 2, "-H", "X-Evil: " + XSS, "--monitor", srv.p.pid, "--json", js,
           srv.url("/%3Cscript%3E"), expect_json=False)
    srv.stop()
    j = json.load(open(js))
    j["config"]["urls"][0] = "http://127.0.0.1/" + XSS
    j["per_url"][0]["url"] = j["config"]["urls"][0]
    j["config"]["content_type"] = XSS
    j["server"]["cgroup"] = XSS
    j["server"]["pss_note"] = XSS
    j["server"]["has_pss"] = False
    for e in j["server"]["tree"]:
        e["command"] = "<img src=x onerror=alert(2)>"
    with open(js, "w") as f:
        json.dump(j, f)
    page = os.path.join(TMP, "xss.html")
    p = report_of(js, page)
    html = open(page).read() if os.path.exists(page) else ""
    check(p.returncode == 0 and "&lt;script&gt;" in html and "&lt;img" in html, "html: hostile fields are shown, escaped")
    check(not re.search(r"<script|<img", html, re.I), "html: no markup from a saved run reaches the page")
    # A compare whose names, commands, versions and failures all carry markup.
    port = free_port()
    plan = os.path.join(TMP, "xss.conf")
    with open(plan, "w") as f:
        f.write("[settings]\nrepeat = 1\nwarmup = 0s\nready-timeout = 2s\n"
                "[server <script>alert(3)</script>]\nstart = exec %s serve --listen 127.0.0.1:%d -t 1\n"
                "url = http://127.0.0.1:%d\nversion = echo '<script>alert(4)</script>'\n"
                "[server <img src=x onerror=alert(5)>]\nstart = echo '<script>alert(6)</script>' >&2; exit 1\n"
                "url = http://127.0.0.1:1\n"
                "[workload <script>alert(7)</script>]\nrequests = 100\nconnections = 2\n"
                "header = X-A: <script>alert(8)</script>\n" % (RAFALE, port, port))
    cj, ch = os.path.join(TMP, "xss-cmp.json"), os.path.join(TMP, "xss-cmp.html")
    p = subprocess.run([RAFALE, "compare", "--json", cj, "--html", ch, plan], capture_output=True, text=True,
                       timeout=RUN_TIMEOUT)
    again = os.path.join(TMP, "xss-cmp-again.html")
    p2 = report_of(cj, again)
    for page in (ch, again):
        html = open(page).read() if os.path.exists(page) else ""
        check(p.returncode == 1 and p2.returncode == 0 and "alert(6)" in html and "alert(4)" in html,
              "html: the compare page shows the hostile names and output, escaped (%s)" % page)
        check(not re.search(r"<script|<img", html, re.I), "html: no markup from a plan or a server reaches %s" % page)
        try:
            import xml.etree.ElementTree as ET
            ET.fromstring(html.split("\n", 1)[1])
            ok = True
        except Exception as e:
            ok = False
            print("  parse error:", e)
        check(ok, "html: %s is well-formed" % page)


@test
def report_of_many_urls_stays_small():
    # 10 000 URLs, a few buckets each: the reader sizes histograms to their data.
    urls = ["http://127.0.0.1:1/u%d" % i for i in range(10000)]

    def stats(n):
        hist = {"count": n, "min_us": 100.0, "mean_us": 150.0, "stdev_us": 10.0, "max_us": 200.0,
                "percentiles_us": {}, "histogram": [[101.0, n // 2], [201.0, n - n // 2]]}
        empty = {"count": 0, "min_us": 0, "mean_us": 0, "stdev_us": 0, "max_us": 0, "percentiles_us": {},
                 "histogram": []}
        return {"summary": {"requests": n, "errors": 0, "in_flight": 0, "started": n, "elapsed_s": 1.0},
                "status": {"200": n}, "errors": {}, "latency": hist, "ttfb": hist, "connect": empty}
    j = {"tool": "rafale", "config": {"urls": urls, "method": "GET", "connections": 10, "threads": 1},
         "per_url": [dict(stats(10), url=u) for u in urls]}
    j.update(stats(100000))
    path = os.path.join(TMP, "many.json")
    with open(path, "w") as f:
        json.dump(j, f)
    probe = ("import resource, subprocess, sys\n"
             "p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)\n"
             "print(p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, p.stderr[-200:])")
    out = subprocess.run([sys.executable, "-c", probe, RAFALE, "report", path], capture_output=True, text=True,
                         timeout=300).stdout.split(" ", 2)
    rc, kib = int(out[0]), int(out[1])
    if SANITIZED:
        # ASan's shadow memory and quarantine make RSS meaningless here: clean is what counts.
        check(rc == 0, "report: 10 000 URLs read cleanly (%s)" % out[2:])
        return
    check(rc == 0 and kib < 200 * 1024, "report: 10 000 URLs read in %d MiB (under 200 MiB; was 2.18 GB)" % (kib // 1024))


@test
def environment_in_every_result():
    srv = Serve()
    r = rafale("-n", 200, "-c", 2, srv.url())
    srv.stop()
    env = r.j["environment"]
    with open("/proc/cpuinfo") as fh:
        names = [l.split(":", 1)[1].strip() for l in fh if l.startswith("model name")]
    if names:
        check(env["cpu_model"] == names[0], "environment: the CPU model of /proc/cpuinfo (%r)" % env["cpu_model"])
    check(env["cpus_online"] == os.cpu_count(), "environment: CPUs online")
    u = os.uname()
    check(env["kernel"] == "%s %s %s" % (u.sysname, u.release, u.machine), "environment: uname (%r)" % env["kernel"])
    with open("/proc/sys/net/core/somaxconn") as fh:
        check(env["somaxconn"] == int(fh.read()), "environment: somaxconn")
    with open("/proc/sys/net/ipv4/ip_local_port_range") as fh:
        check(env["ip_local_port_range"] == [int(x) for x in fh.read().split()], "environment: port range")
    out = subprocess.run([RAFALE, "--version"], capture_output=True, text=True).stdout.split()[-1]
    check(env["rafale_version"] == out and env["build"].startswith(("cc ", "gcc ", "clang ")) and
          ("-fsanitize" in env["build"]) == SANITIZED, "environment: version and build (%r)" % env["build"])
    gov = "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"
    check(env["governor"] == (open(gov).read().strip() if os.path.exists(gov) else None), "environment: governor")


@test
@alone
def diff_is_a_regression_gate():
    """rafale diff decides from each run's own interval (issue 41): 2-s runs are enough. The four runs at once
    (their answers wait on serve's timers, not on a CPU)."""
    srv = Serve()
    runs, procs = {}, []
    for name, path, extra in (("a", "/delay/5", []), ("b", "/delay/5", []), ("slow", "/delay/15", []),
                              ("other", "/delay/5", ["-c", 32])):
        runs[name] = os.path.join(TMP, "diff-%s.json" % name)
        cmd = [RAFALE, "-q", "-c", "16", "-d", "2s"] + [str(x) for x in extra] + ["--json", runs[name], srv.url(path)]
        procs.append(subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))
    for p in procs:
        err = p.communicate(timeout=RUN_TIMEOUT)[1]
        check(p.returncode == 0 and "Sanitizer" not in err, "diff: a run to compare (%s)" % err[-300:])
    srv.stop()

    def diff(*args):
        return subprocess.run([RAFALE, "diff"] + [str(a) for a in args], capture_output=True, text=True, timeout=60)

    def figures(*args):
        jout = os.path.join(TMP, "diff-figures.json")
        p = diff("--json", jout, *args)
        with open(jout) as fh:
            return p, {x["figure"]: x for x in json.load(fh)["diff"]["figures"]}

    p = diff(runs["a"], runs["b"])
    check(p.returncode == 0 and "Verdict: no figure got significantly worse" in p.stdout,
          "diff: two runs of one server, no change, exit 0 (%d)\n%s" % (p.returncode, p.stdout))
    # The threshold is the rule the verdicts follow, said as a legend, not on the header line where it read as a result.
    check(p.stdout.splitlines()[0] == "rafale diff: %s -> %s" % (runs["a"], runs["b"]) and
          "the rule: a figure is same when its whole 95% interval lies within 5.0% either way" in p.stdout,
          "diff: the threshold as a legend (%s)" % p.stdout[:600])
    # A run against itself: the same samples, same on every figure (it was undecided: "too few samples").
    p, figs = figures(runs["a"], runs["a"])
    check(p.returncode == 0 and all(x["verdict"] == "same" for x in figs.values()) and len(figs) == 5,
          "diff: a run against itself is the same on every figure (%s)" % figs)
    # /delay/5 against /delay/15: slower from the runs' own intervals, exit 3; the other way, faster, exit 0.
    hout = os.path.join(TMP, "diff.html")
    p, figs = figures("--html", hout, runs["a"], runs["slow"])
    check(p.returncode == 3, "diff: /delay/5 against /delay/15 is worse, exit 3 (%d)\n%s" % (p.returncode, p.stdout))
    # (How much slower depends on the machine's own delay beside the server's timers: the verdicts are checked.)
    check(figs["rps"]["verdict"] == "slower" and figs["rps"]["ratio_ci"][0] <= figs["rps"]["ratio"] <=
          figs["rps"]["ratio_ci"][1] and figs["rps"]["ratio"] < 0.7, "diff: throughput down, within its interval (%s)"
          % figs["rps"])
    check(figs["p50_us"]["verdict"] == "slower" and figs["p50_us"]["ratio"] > 1.5, "diff: p50 up (%s)" % figs["p50_us"])
    check(figs["p99_us"]["verdict"] == "slower", "diff: p99 slower (%s)" % figs["p99_us"])
    p, back = figures(runs["slow"], runs["a"])
    check(p.returncode == 0 and back["p50_us"]["verdict"] == "faster" and back["rps"]["verdict"] == "faster",
          "diff: /delay/15 against /delay/5 is faster, exit 0 (%s)" % back)
    with open(hout) as fh:
        page = fh.read()
    check("<table>" in page and "slower" in page and "the rule: a figure is same when" in page and
          "(same: the whole" not in page, "diff: the HTML page, the threshold as a legend")
    # The whole interval must lie within the threshold: set above the widest bounded interval this run measured,
    # every figure bounded on both sides is the same; one the runs left open on a side cannot be (it may be slower).
    widest = max(max(abs(x["ratio_ci"][0] - 1), abs(x["ratio_ci"][1] - 1)) for x in figs.values()
                 if x.get("ratio_ci") and None not in x["ratio_ci"])
    thr = max(300, int(widest * 100) + 20)
    p, wide = figures("--threshold", "%d%%" % thr, runs["a"], runs["slow"])
    bounded = [x for x in wide.values() if x.get("ratio_ci") and None not in x["ratio_ci"]]
    check(bounded and all(x["verdict"] == "same" for x in bounded) and "within the threshold" in p.stdout and
          p.returncode == (3 if any(x["verdict"] == "slower" for x in wide.values()) else 0),
          "diff: a threshold above the change (%d%%) lets it pass\n%s" % (thr, p.stdout))
    # Results saved before intervals, of two seconds: no interval, undecided, said, and not a regression (exit 0).
    short = {}
    for name in ("a", "slow"):
        with open(runs[name]) as fh:
            j = json.load(fh)
        j["timeline"] = j["timeline"][:2]
        for k in ("intervals",):
            j.pop(k, None)
        j["summary"].pop("rps_ci", None)
        j["latency"].pop("mean_ci_us", None)
        j["latency"].pop("percentiles_ci_us", None)
        short[name] = os.path.join(TMP, "diff-short-%s.json" % name)
        with open(short[name], "w") as fh:
            json.dump(j, fh)
    p = diff(short["a"], short["slow"])
    check(p.returncode == 0 and "Undecided (the samples cannot tell; not counted as worse): req/s, mean, p50, p90, p99"
          in p.stdout and "too few samples" in p.stdout, "diff: too few seconds is undecided, exit 0 (%d)\n%s"
          % (p.returncode, p.stdout))
    for args, rc, words in (([runs["a"], runs["other"]], 2, "their 'connections' differ"),
                            ([runs["a"]], 2, "give two results"),
                            ([runs["a"], os.path.join(TMP, "nope.json")], 1, "nope.json"),
                            ([runs["a"], os.path.abspath(__file__)], 1, "report.py"),
                            (["--threshold", "lots", runs["a"], runs["b"]], 2, "--threshold wants a percentage")):
        p = diff(*args)
        check(p.returncode == rc and words in p.stderr and len(p.stderr.strip().splitlines()) == 1,
              "diff %s: one line, exit %d (%d: %r)" % (words, rc, p.returncode, p.stderr))


@test
def calibrate_is_this_machines_reference():
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(TMP, "xdg"))
    stored = os.path.join(TMP, "xdg", "rafale", "calibration.json")
    if os.path.exists(stored):
        os.unlink(stored)

    def run(*args, timeout=120):
        return subprocess.run([RAFALE] + [str(a) for a in args], capture_output=True, text=True, timeout=timeout,
                              env=env)

    out = os.path.join(TMP, "cal.json")
    p = run("calibrate", "--json", out)
    check(p.returncode == 0 and "Kept in " + stored in p.stdout and os.path.exists(stored),
          "calibrate: measured and kept (%d %s)" % (p.returncode, p.stderr[-300:]))
    with open(stored) as fh:
        ref = json.load(fh)["calibration"]
    check(json.load(open(out))["calibration"] == ref, "calibrate: --json writes the same")
    # Three rounds of 2 s: 3 run lines, a median inside its interval, this machine's environment.
    runs = [l for l in p.stdout.splitlines() if l.startswith("  run ") and "rafale-serve" in l]
    check(len(runs) == 3 and ref["rps"] > 0 and ref["rps_ci"][0] <= ref["rps"] <= ref["rps_ci"][1] and
          0 < ref["p50_us"] <= ref["p99_us"], "calibrate: 3 rounds, median and interval (%s)" % ref)
    u = os.uname()
    check(ref["environment"]["kernel"] == "%s %s %s" % (u.sysname, u.release, u.machine) and
          ref["environment"]["cpus_online"] == os.cpu_count() and
          ref["workload"] == "GET /, 16 connections, keep-alive, 3 rounds of 2s after 500ms of warm-up",
          "calibrate: the machine and the workload")
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) >= 2:
        nc = max(1, len(cpus) // 4)
        check(ref["pin"].startswith("rafale serve on CPU %d" % cpus[0]) and
              ref["pin"].endswith("rafale on CPU %s" % ",".join(map(str, cpus[-nc:]))),
              "calibrate: pinned as compare pins (%s)" % ref["pin"])
    check("Reference     this machine's: rafale serve at %.0f req/s" % ref["rps"] in p.stdout and
          "a reference, not a conversion" in p.stdout, "calibrate: the text says it")
    # A run with --calibrate yes carries the stored one, not measured again.
    srv = Serve()
    j1 = os.path.join(TMP, "calrun.json")
    p = run("-n", 300, "-c", 2, "--calibrate", "yes", "--json", j1, srv.url())
    check(p.returncode == 0 and "this machine's reference from " + stored in p.stderr and "measuring" not in p.stderr,
          "calibrate: a run takes the stored reference (%s)" % p.stderr[-300:])
    r1 = json.load(open(j1))
    check(r1["calibration"] == ref and r1["summary"]["requests"] == 300, "calibrate: in the run's JSON, as stored")
    check(os.sched_getaffinity(0) == set(cpus), "calibrate: the tests' own affinity untouched")
    rep = run("report", j1)
    check(rep.returncode == 0 and "Reference     this machine's: rafale serve at %.0f req/s" % ref["rps"] in rep.stdout,
          "calibrate: rafale report shows it")
    # A reference from another machine is not this one's: measured again, and kept.
    other = json.loads(json.dumps(ref))
    other["environment"]["cpu_model"] = "Elsewhere 9000"
    other["environment"]["cpus_online"] = 64
    with open(stored, "w") as fh:
        json.dump({"tool": "rafale", "calibration": other}, fh)
    j2 = os.path.join(TMP, "calrun2.json")
    p = run("-n", 300, "-c", 2, "--calibrate", "yes", "--json", j2, srv.url())
    srv.stop()
    r2 = json.load(open(j2))
    check(p.returncode == 0 and "measuring this machine's reference first" in p.stderr and
          r2["calibration"]["environment"]["cpus_online"] == os.cpu_count() and
          json.load(open(stored))["calibration"]["environment"]["cpus_online"] == os.cpu_count(),
          "calibrate: another machine's reference is measured again here (%s)" % p.stderr[-300:])
    check(r2["summary"]["requests"] == 300 and r2["summary"]["errors"] == 0, "calibrate: the run itself as asked")
    # Results from two machines side by side: each with its reference, and the caveat.
    far = json.load(open(j1))
    far["environment"]["cpu_model"] = "Elsewhere 9000"
    far["environment"]["cpus_online"] = 64
    del far["calibration"]
    j3 = os.path.join(TMP, "far.json")
    with open(j3, "w") as fh:
        json.dump(far, fh)
    rep = run("report", j1, j3)
    check(rep.returncode == 0 and "These results come from 2 machines" in rep.stdout and
          "a reference, not a conversion" in rep.stdout and
          "%s: %s, %d CPU" % (j1, r1["environment"]["cpu_model"] or "CPU unknown", os.cpu_count()) in rep.stdout and
          "rafale serve at %.0f req/s" % ref["rps"] in rep.stdout and
          "%s: Elsewhere 9000, 64 CPUs" % j3 in rep.stdout and "no reference (run it with --calibrate yes)" in rep.stdout,
          "calibrate: two machines side by side (%s)" % rep.stdout[:600])
    rep = run("report", j1, j2)
    check(rep.returncode == 0 and "machines" not in rep.stdout, "calibrate: one machine, no such block")
    # compare: calibrate = yes in [settings], once for the whole compare, in its JSON and read back.
    port = free_port()
    plan = os.path.join(TMP, "cal.plan")
    with open(plan, "w") as fh:
        fh.write("[settings]\ncalibrate = yes\nrepeat = 1\nwarmup = 0s\nrequests = 200\nconnections = 2\n\n"
                 "[server s]\nstart = exec %s serve --listen 127.0.0.1:%d -t 1\nurl = http://127.0.0.1:%d\n\n"
                 "[workload w]\npath = /\n" % (RAFALE, port, port))
    cj = os.path.join(TMP, "cal-compare.json")
    p = run("compare", plan, "--json", cj)
    now = json.load(open(stored))["calibration"]
    check(p.returncode == 0 and p.stdout.count("this machine's reference from") == 1 and
          json.load(open(cj))["compare"]["calibration"] == now and "Reference     this machine's" in p.stdout,
          "calibrate: compare carries it (%d %s)" % (p.returncode, p.stderr[-300:]))
    rep = run("report", cj)
    check(rep.returncode == 0 and "rafale serve at %.0f req/s" % now["rps"] in rep.stdout, "calibrate: and reads it back")
    # Bad input: one line each.
    for args, rc, words in ((["calibrate", "--colour"], 2, "unknown argument '--colour'"),
                            (["-n", 10, "--calibrate", "maybe", "http://127.0.0.1:1/"], 2, "--calibrate wants yes or no")):
        p = run(*args)
        check(p.returncode == rc and words in p.stderr and len(p.stderr.strip().splitlines()) == 1,
              "calibrate: %s (%d %r)" % (words, p.returncode, p.stderr))
    with open(stored, "w") as fh:
        fh.write("{not json")
    p = run("report", stored)
    check(p.returncode == 1 and len(p.stderr.strip().splitlines()) == 1, "calibrate: a broken store is one line")


@test
def calibration_cache_cannot_write_to_a_terminal():
    # A calibration cache whose workload and pin hold escape sequences (the file is anyone's to edit, as a saved
    # result is): --calibrate yes shows them through the same scrub as rafale report, never raw.
    srv = Serve()
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(TMP, "xdg-esc"))
    stored = os.path.join(TMP, "xdg-esc", "rafale", "calibration.json")
    os.makedirs(os.path.dirname(stored), exist_ok=True)
    here = rafale("-n", 5, "-c", 1, srv.url()).j["environment"]  # this machine's: the cache is taken as is
    ref = {"when_unix_s": 1700000000, "workload": "w\u001b]0;pwned\u0007", "pin": "p\u001b[31mred\u009b2J",
           "rps": 1000.0, "rps_ci": [900.0, 1100.0], "p50_us": 10.0, "p99_us": 20.0,
           "environment": here}
    with open(stored, "w") as fh:
        json.dump({"tool": "rafale", "calibration": ref}, fh)
    p = subprocess.run([RAFALE, "-n", "50", "-c", "1", "--calibrate", "yes", srv.url()], capture_output=True,
                       text=True, timeout=RUN_TIMEOUT, env=env)
    srv.stop()
    out = p.stdout + p.stderr
    check(p.returncode == 0 and "from " + stored in p.stderr and "w?]0;pwned?" in out and "p?[31mred?2J" in out and
          not any(c in out for c in "\x1b\x07\x9b"),
          "calibrate: the cache's strings reach the terminal scrubbed (%d, %r)" % (p.returncode, out[-600:]))


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


@test
def log_and_metrics_write_only_utf8():
    # Target names that are not UTF-8 (a stray continuation, a surrogate, an overlong form) and one whose
    # 200th byte is inside a character: the request log (JSON Lines and CSV) and /metrics are UTF-8 all the
    # same, the bad bytes as U+FFFD (as --json writes them), the label cut on a character's start.
    srv = Serve()
    bad = [b"x\xff\x80\x80y", b"x\xed\xa0\x80y", b"x\xe0\x80\xafy"]
    long_name = b"a" * 199 + "\u00e9".encode()
    text = b"".join(b"# name: " + n + b"\nGET " + srv.url("/").encode() + b"\n\n" for n in bad + [long_name])
    tf = os.path.join(TMP, "utf8-names.targets")
    with open(tf, "wb") as fh:
        fh.write(text)
    for ext in ("jsonl", "csv"):
        lp = os.path.join(TMP, "utf8-names." + ext)
        p = subprocess.run([RAFALE, "-n", "40", "-c", "1", "-t", "1", "--targets", tf, "--log", lp],
                           capture_output=True, timeout=RUN_TIMEOUT)
        got = []
        for what in (open(lp, "rb").read(), p.stdout):
            try:
                got.append(what.decode("utf-8", errors="strict"))
            except UnicodeDecodeError as e:
                got.append(None)
                print("  not UTF-8:", e)
        check(p.returncode == 0 and got[0] is not None and got[0].count("x\ufffd\ufffd\ufffdy") == 30,
              "log %s: names that are not UTF-8 written as U+FFFD, the file valid UTF-8" % ext)
        check(got[1] is not None and "  x???y  " in got[1], "log %s: the text report shows them as '?'" % ext)
    port = free_port()
    run = subprocess.Popen([RAFALE, "-q", "-c", "1", "-t", "1", "-d", "30s", "--metrics-listen", "127.0.0.1:%d" % port,
                            "--targets", tf], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wait_port(port)
    time.sleep(1.2)  # the counts are published once a second
    import urllib.request
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=10) as resp:
        page = resp.read()
    run.send_signal(signal.SIGINT)
    run.communicate(timeout=60)
    srv.stop()
    try:
        scrape_text = page.decode("utf-8", errors="strict")
    except UnicodeDecodeError as e:
        scrape_text = None
        print("  not UTF-8:", e)
    check(scrape_text is not None, "metrics: the scrape is UTF-8 whatever the names")
    if scrape_text is not None:
        targets = {l["target"] for l, _ in prom_parse(scrape_text).get("rafale_target_requests_total", [])}
        check({"x\ufffd\ufffd\ufffdy", "x\ufffd\ufffd\ufffdy", "a" * 199} <= targets,
              "metrics: bad bytes as U+FFFD, a label cut before the character at its 200th byte (%s)"
              % sorted(t[:12] for t in targets))


@test
def completion_from_the_option_table():
    p = subprocess.run([RAFALE, "completion", "bash"], capture_output=True, text=True, timeout=30)
    check(p.returncode == 0 and "complete -F _rafale rafale" in p.stdout, "completion: a bash script")
    script = os.path.join(TMP, "rafale.bash")
    with open(script, "w") as fh:
        fh.write(p.stdout)

    def complete(*words):
        words = ["rafale"] + list(words)
        cmd = ("source %s; COMP_WORDS=(%s); COMP_CWORD=%d; _rafale; printf '%%s\\n' \"${COMPREPLY[@]}\""
               % (script, " ".join("'%s'" % w for w in words), len(words) - 1))
        r = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=30, cwd=TMP)
        return r.stdout.split()

    check(complete("--thr") == ["--threads"], "completion: rafale --thr -> --threads (%s)" % complete("--thr"))
    c = complete("compare", "--")
    check("--repeat" in c and "--pin" in c and "--server-cpus" in c and "--check" not in c and "--threads" not in c,
          "completion: rafale compare -- gives compare's options only (%s)" % c)
    check(complete("serve", "--li") == ["--listen"], "completion: serve's own")
    check(sorted(complete("--order", "se")) == ["sequential", "session"], "completion: an option's values")
    check(sorted(complete("co")) == ["compare", "completion"], "completion: subcommands")
    os.makedirs(os.path.join(TMP, "cmpl"), exist_ok=True)
    open(os.path.join(TMP, "cmpl", "plan.targets"), "w").close()
    check(complete("--targets", "cmpl/pl") == ["cmpl/plan.targets"], "completion: files where an option takes one")
    check(complete("-e", "cmpl/pl") == ["cmpl/plan.targets"], "completion: a short option's file")
    # --order=se: bash breaks the word at '=' into '--order' '=' 'se'.
    check(sorted(complete("--order", "=", "se")) == ["sequential", "session"] and
          len(complete("--order", "=")) == 3, "completion: --opt=value (%s)" % complete("--order", "="))
    # A value with no words to offer (a number, a duration, a percentage) gets nothing: not the subcommands, not
    # files (-c sweep, --duration=sweep); a version is a word.
    check(complete("-c", "") == [] and complete("--duration", "=", "") == [] and complete("serve", "-t", "") == [] and
          complete("diff", "--threshold", "") == [] and complete("--tls-version", "") == ["1.2", "1.3"],
          "completion: a free value gets nothing (%s)" % complete("-c", ""))
    for shell in ("zsh", "fish"):
        p = subprocess.run([RAFALE, "completion", shell], capture_output=True, text=True, timeout=30)
        check(p.returncode == 0 and (p.stdout.startswith("#compdef rafale") if shell == "zsh" else
                                     "complete -c rafale -n '__fish_seen_subcommand_from compare' -l repeat" in p.stdout),
              "completion: %s" % shell)
        if shutil.which(shell):
            path = os.path.join(TMP, "rafale." + shell)
            with open(path, "w") as fh:
                fh.write(p.stdout)
            r = subprocess.run([shell, "-n", path], capture_output=True, text=True, timeout=30)
            check(r.returncode == 0, "completion: %s parses it (%s)" % (shell, r.stderr[:200]))
            if shell == "fish":
                def fcomplete(line):
                    r = subprocess.run(["fish", "--no-config", "-c", "source %s; complete -C '%s'" % (path, line)],
                                       capture_output=True, text=True, timeout=30)
                    return sorted(x.split("\t")[0] for x in r.stdout.splitlines())
                check(fcomplete("rafale --thr") == ["--threads"] and
                      fcomplete("rafale http://127.0.0.1/ --thr") == ["--threads"],
                      "completion: fish, before and after the URL (%s)" % fcomplete("rafale http://127.0.0.1/ --thr"))
                check(fcomplete("rafale --arrival ") == ["poisson", "uniform"] and fcomplete("rafale -c ") == [] and
                      fcomplete("rafale --hel") == ["--help"] and fcomplete("rafale-mpi --thr") == ["--threads"],
                      "completion: fish, values without files, rafale-mpi (%s)" % fcomplete("rafale --arrival "))
                c = fcomplete("rafale compare --")
                check("--repeat" in c and "--check" not in c and fcomplete("rafale completion ") ==
                      ["bash", "fish", "zsh"] and fcomplete("rafale report --ht") == ["--html"],
                      "completion: fish, a subcommand's own (%s)" % c[:5])
            else:
                zdir = os.path.join(TMP, "zfunc")
                os.makedirs(zdir, exist_ok=True)
                with open(os.path.join(zdir, "_rafale"), "w") as fh:
                    fh.write(p.stdout)
                zsh_script = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                          "zsh_complete.zsh")

                def zcomplete(line):
                    r = subprocess.run(["zsh", "-f", zsh_script, zdir, line], capture_output=True, text=True,
                                       timeout=60)
                    return r.stdout.split()
                check(zcomplete("rafale --thr") == ["--threads"] and
                      zcomplete("rafale http://127.0.0.1/ --thr") == ["--threads"],
                      "completion: zsh from $fpath, rafale --thr (%s)" % zcomplete("rafale --thr"))
                c = zcomplete("rafale compare --")
                check("--repeat" in c and "--pin" in c and "--check" not in c,
                      "completion: zsh, compare's options (%s)" % c[:6])
                check(zcomplete("rafale --order ") == ["random", "sequential", "session"] and
                      zcomplete("rafale serve --li") == ["--listen"] and
                      zcomplete("rafale completion ") == ["bash", "fish", "zsh"],
                      "completion: zsh, values and subcommands (%s)" % zcomplete("rafale --order "))
                # Repeatable options again; switches are switches (--help took a value, and hid what followed);
                # the small subcommands' options come from the option table too (--html=x is taken as --html x).
                check(zcomplete("rafale -H 'a: b' --hea") == ["--header"] and
                      "--connect-to" in zcomplete("rafale --connect-to a:1:b:2 --conn") and
                      zcomplete("rafale --version --thr") == ["--threads"] and
                      zcomplete("rafale --tls-version ") == ["1.2", "1.3"] and
                      "'--help[" in p.stdout and "'--help=" not in p.stdout and
                      "'--html=[write the report as a self-contained HTML page]:FILE:_files'" in p.stdout,
                      "completion: zsh, repeatable options, switches, own flags")
                r = subprocess.run(["zsh", "-f", "-c", 'autoload -U compinit; compinit -u -D; source %s; '
                                    'print $_comps[rafale]' % path], capture_output=True, text=True, timeout=30)
                check(r.stdout.strip() == "_rafale", "completion: zsh, evaluated after compinit (%r)" % r.stdout)
        else:
            print("  (%s not installed: its completion not run)" % shell)
    p = subprocess.run([RAFALE, "completion", "tcsh"], capture_output=True, text=True, timeout=30)
    check(p.returncode == 2 and one_line(p.stderr, "give bash, zsh or fish"), "completion: another shell, one line")


@test
def deb_package_installs_and_runs():
    if SANITIZED:
        print("  (the package is of the plain build: checked once)")
        return
    root = os.path.dirname(os.path.dirname(os.path.abspath(RAFALE)))
    if not os.path.exists(os.path.join(root, "scripts", "deb.sh")):
        root = os.path.dirname(os.path.abspath(RAFALE))
    out = os.path.join(TMP, "deb")
    os.makedirs(out, exist_ok=True)
    # Under a restrictive umask too (the control folder must still be 755).
    p = subprocess.run(["sh", "-c", "umask 077; sh '%s' '%s'" % (os.path.join(root, "scripts", "deb.sh"), out)],
                       capture_output=True, text=True, timeout=300, cwd=root)
    deb = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""
    check(p.returncode == 0 and deb.endswith(".deb"), "deb: built (%s)" % p.stderr[-300:])
    if not os.path.exists(deb):
        return
    files = subprocess.run(["dpkg-deb", "-c", deb], capture_output=True, text=True).stdout
    for f in ("./usr/bin/rafale", "./usr/share/man/man1/rafale.1.gz", "./usr/share/bash-completion/completions/rafale",
              "./usr/share/fish/vendor_completions.d/rafale.fish", "./usr/share/zsh/vendor-completions/_rafale",
              "./usr/share/doc/rafale/copyright", "./usr/share/doc/rafale/README.md"):
        check(f in files, "deb: holds %s" % f)
    info = subprocess.run(["dpkg-deb", "-f", deb, "Package", "Version", "Depends"], capture_output=True, text=True).stdout
    check("Package: rafale" in info and "libssl3" in info and "libjansson4" in info and "libnghttp2" in info and
          "libc6 (>=" in info, "deb: Depends from the libraries it links (%s)" % info)
    # Installed into a scratch root: it runs from there, its man page and completion in place.
    dest = os.path.join(TMP, "debroot")
    subprocess.run(["dpkg-deb", "-x", deb, dest], check=True)
    v = subprocess.run([os.path.join(dest, "usr", "bin", "rafale"), "--version"], capture_output=True, text=True)
    want = subprocess.run([RAFALE, "--version"], capture_output=True, text=True).stdout
    check(v.returncode == 0 and v.stdout == want and os.path.basename(deb).startswith("rafale_" + want.split()[1]),
          "deb: the installed rafale runs (%r)" % v.stdout)
    if shutil.which("lintian"):
        l = subprocess.run(["lintian", "--no-tag-display-limit", deb], capture_output=True, text=True, timeout=300)
        errors = [x for x in l.stdout.splitlines() if x.startswith("E:")]
        print("  lintian: %d errors" % len(errors))


def prom_parse(text):
    """A scrape parsed by Prometheus' own client library (Debian's python3-prometheus-client, for Debian's
    python3): {sample name: [[labels, value], ...]}, {} when it does not parse."""
    parser = ("import sys, json\nfrom prometheus_client.openmetrics.parser import text_string_to_metric_families\n"
              "out = {}\nfor fam in text_string_to_metric_families(sys.stdin.read()):\n"
              "    for s in fam.samples:\n        out.setdefault(s.name, []).append([s.labels, s.value])\n"
              "print(json.dumps(out))\n")
    py = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
    p = subprocess.run([py, "-c", parser], input=text, capture_output=True, text=True, timeout=60)
    check(p.returncode == 0, "metrics: prometheus_client parses the scrape (%s)" % p.stderr[-300:])
    return json.loads(p.stdout) if p.returncode == 0 else {}


def scrape(port, path="/metrics"):
    import urllib.request
    req = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path),
                                 headers={"Accept": "application/openmetrics-text; version=1.0.0"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return resp.read().decode()


@test
def metrics_of_the_schedule_and_the_server():
    # -R 200 on one connection to a 50 ms answer: at most 20 a second go out, so the schedule falls behind by
    # design (not by the machine's speed): about 180 requests more each second wait, the oldest ever later.
    srv = Serve()
    port = free_port()
    jp = os.path.join(TMP, "metrics-rate.json")
    run = subprocess.Popen([RAFALE, "-q", "-c", "1", "-t", "1", "-R", "200", "-d", "30s", "--metrics-listen",
                            "127.0.0.1:%d" % port, "--json", jp, srv.url("/delay/50")],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_port(port)
    time.sleep(2)
    m = prom_parse(scrape(port))
    snap = json.loads(scrape(port, "/snapshot.json"))
    run.send_signal(signal.SIGINT)  # each run lasts until the test has looked: a slow machine does not end it first
    run.communicate(timeout=60)
    srv.stop()
    if m:
        lag, backlog = m["rafale_schedule_lag_seconds"][0][1], m["rafale_schedule_backlog"][0][1]
        # After t seconds about 20 t were sent of 200 t due: the oldest unsent is 0.9 t late, 180 t wait.
        t = snap["elapsed_s"]
        check(m["rafale_target_rate"][0][1] == 200 and t >= 1.5 and 0.5 * t < lag <= t and backlog > 90 * t,
              "metrics: the schedule's lag and backlog in rate mode (lag %.3fs, %d due and unsent)" % (lag, backlog))
        check(snap["target_rate"] == 200 and snap["lag_s"] >= lag and snap["backlog"] >= backlog and "server" not in snap,
              "metrics: the snapshot has them too, and no server without --monitor (%s)" % snap)
        check("rafale_server_cpu_seconds_total" not in m, "metrics: no server figures without --monitor")
    # A server that burns 2 ms of CPU per request, watched with --monitor: its CPU time grows between scrapes,
    # its memory is there, PSS no more than RSS; the final JSON's CPU is at least the last scrape's.
    fs = FServer("busy")
    port = free_port()
    jp = os.path.join(TMP, "metrics-monitor.json")
    run = subprocess.Popen([RAFALE, "-q", "-c", "1", "-t", "1", "-d", "30s", "--monitor", str(fs.p.pid),
                            "--metrics-listen", "127.0.0.1:%d" % port, "--json", jp, fs.url()],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_port(port)
    time.sleep(1.5)
    a = prom_parse(scrape(port))
    time.sleep(1.5)
    b = prom_parse(scrape(port))
    svg = scrape(port, "/chart.svg")
    run.send_signal(signal.SIGINT)
    run.communicate(timeout=60)
    fs.stop()
    j = json.load(open(jp))
    if a and b:
        ca, cb = a["rafale_server_cpu_seconds_total"][0][1], b["rafale_server_cpu_seconds_total"][0][1]
        check(0 < ca < cb <= j["server"]["cpu_s"] + 0.01,
              "metrics: the server's CPU seconds grow, never past the final JSON's (%s, %s, %s)" %
              (ca, cb, j["server"]["cpu_s"]))
        rss, pss = b["rafale_server_rss_bytes"][0][1], b.get("rafale_server_pss_bytes", [[{}, None]])[0][1]
        alone = b.get("rafale_server_alone_bytes", [[{}, None]])[0][1]
        # One process: its PSS, the kernel's, is under its RSS; as if alone (as root) it is its exact resident size,
        # which the RSS of /proc/PID/stat (counted in per-CPU batches) may trail by a few pages.
        check(rss > 1 << 20 and (pss is None or 0 < pss <= rss) and (alone is None or pss <= alone <= rss * 1.03) and
              (alone is not None or os.geteuid() != 0) and b["rafale_server_processes"][0][1] == 1 and
              b["rafale_server_cpus"][0][1] >= 1,
              "metrics: the server's memory, processes and CPUs (rss %s, pss %s, alone %s)" % (rss, pss, alone))
    check("Server CPU over time" in svg and "Server memory over time" in svg and
          "Errors and requests in flight over time" in svg, "live page: the server's charts, errors and in flight")
    # Errors at -R 100 against a server that closes every connection at once: each point of the live chart is 100
    # a second, its rate taken over the time since the point before (over a whole second more, the points drifted
    # low). (Not a closed port: a run whose first connects are all refused stops at once.)
    # An error falls in the second rafale saw it: a late rafale moves one from a second to the next (102 then 98),
    # as many as the schedule's rate over its lateness (its send lag, which it measures): each point within that,
    # their mean at the rate.
    port = free_port()
    bad = BadServer("closenow")
    jp = os.path.join(TMP, "metrics-errors.json")
    run = subprocess.Popen([RAFALE, "-q", "-c", "2", "-t", "1", "-R", "100", "-d", "30s", "--metrics-listen",
                            "127.0.0.1:%d" % port, "--json", jp, bad.url()],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_port(port)
    time.sleep(4)
    svg = scrape(port, "/chart.svg")
    run.send_signal(signal.SIGINT)
    run.communicate(timeout=60)
    bad.stop()
    rates = [float(x) for x in re.findall(r"<title>errors per second: time \(s\) [0-9.]+, requests ([0-9.]+)</title>",
                                          svg)]
    late = json.load(open(jp))["send_lag"]["max_us"] / 1e6 if os.path.exists(jp) else 0
    check(len(rates) >= 3 and abs(sum(rates[1:]) / len(rates[1:]) - 100) < 1.5 and
          all(abs(r - 100) < 1.5 + 100 * late for r in rates[1:]),
          "live page: errors per second at the schedule's rate (%s; rafale up to %.0f ms late)" % (rates, 1000 * late))


@test
def metrics_of_stages_and_warmup():
    srv = Serve()
    # --stages: the rate of the moment (it gave the top stage's, 300, all along).
    port = free_port()
    run = subprocess.Popen([RAFALE, "-q", "-c", "2", "-t", "1", "--stages", "1s:300,0.2s:20,30s:20", "--metrics-listen",
                            "127.0.0.1:%d" % port, srv.url("/")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    wait_port(port)
    time.sleep(2)
    snap = json.loads(scrape(port, "/snapshot.json"))
    run.send_signal(signal.SIGINT)
    run.communicate(timeout=60)
    check(snap["elapsed_s"] > 1.3 and snap["target_rate"] == 20, "metrics: --stages, the rate of the moment (%s)" % snap)
    # During the warm-up nothing is the run's yet: no lag, no backlog (they showed, growing, while all else read 0).
    port = free_port()
    run = subprocess.Popen([RAFALE, "-q", "-c", "1", "-t", "1", "-R", "200", "--warmup", "30s", "-d", "1s",
                            "--metrics-listen", "127.0.0.1:%d" % port, srv.url("/delay/50")],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_port(port)
    time.sleep(1.5)
    snap = json.loads(scrape(port, "/snapshot.json"))
    m = prom_parse(scrape(port))
    run.send_signal(signal.SIGINT)
    run.communicate(timeout=60)
    check(snap["elapsed_s"] == 0 and snap["requests"] == 0 and snap["lag_s"] == 0 and snap["backlog"] == 0 and m and
          m["rafale_schedule_lag_seconds"][0][1] == 0, "metrics: no lag or backlog during the warm-up (%s)" % snap)
    srv.stop()
    # A monitored cgroup with no process yet: no server figures, and no server charts of made-up zeros.
    _, cg = scratch_cgroup("rafale-it-empty", "an empty monitored cgroup")
    if cg is None:
        return
    try:
        port = free_port()
        bad = BadServer("closenow")  # a server the run reaches (a closed port ends it at its first connects)
        run = subprocess.Popen([RAFALE, "-q", "-c", "1", "-t", "1", "-R", "20", "-d", "30s", "--monitor-cgroup", cg,
                                "--metrics-listen", "127.0.0.1:%d" % port, bad.url()],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_port(port)
        time.sleep(2.5)
        svg = scrape(port, "/chart.svg")
        text = scrape(port)
        run.send_signal(signal.SIGINT)
        run.communicate(timeout=60)
        bad.stop()
        check("Throughput over time" in svg and "Server CPU over time" not in svg and
              "rafale_server_" not in text, "metrics: an empty cgroup, no server figures nor charts")
    finally:
        os.rmdir(cg)


@test
def metrics_of_a_server_that_goes():
    # The watched server dies during the run: its processes and memory go to 0 at once (they stayed at their
    # last values), its CPU stays.
    fs = FServer("busy")
    port = free_port()
    run = subprocess.Popen([RAFALE, "-q", "-c", "1", "-t", "1", "-R", "50", "-d", "30s", "--monitor", str(fs.p.pid),
                            "--metrics-listen", "127.0.0.1:%d" % port, fs.url()],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_port(port)
    time.sleep(1.2)
    before = json.loads(scrape(port, "/snapshot.json"))
    fs.stop()
    time.sleep(1)
    after = json.loads(scrape(port, "/snapshot.json"))
    run.send_signal(signal.SIGINT)
    run.communicate(timeout=60)
    check(before["server"]["processes"] == 1 and before["server"]["rss_bytes"] > 0 and
          after["server"]["processes"] == 0 and after["server"]["rss_bytes"] == 0 and
          after["server"].get("pss_bytes", 0) == 0 and after["server"]["cpu_s"] >= before["server"]["cpu_s"],
          "metrics: a server gone has no processes and no memory (%s, then %s)" % (before["server"], after["server"]))
    # A cgroup removed and made again at the same path (a service restarted): its CPU counter starts again at 0;
    # rafale's only grows (it fell to a few ms: Prometheus reads that as a reset).
    root, cg = scratch_cgroup("rafale-it-cg", "the cgroup made again")
    if cg is None:
        return
    fport = free_port()
    fs = subprocess.Popen(["sh", "-c", "echo $$ > %s/cgroup.procs && exec %s %s busy --port %d" %
                           (cg, sys.executable, FSERVER, fport)],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        fs.stdout.readline()
        port = free_port()
        jp = os.path.join(TMP, "metrics-cg.json")
        run = subprocess.Popen([RAFALE, "-q", "-c", "1", "-t", "1", "-d", "30s", "--monitor-cgroup", cg, "--json", jp,
                                "--metrics-listen", "127.0.0.1:%d" % port, "http://127.0.0.1:%d/" % fport],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_port(port)
        time.sleep(1.8)
        a = json.loads(scrape(port, "/snapshot.json"))["server"]["cpu_s"]
        with open(os.path.join(root, "cgroup.procs"), "w") as fh:
            fh.write(str(fs.pid))
        os.rmdir(cg)
        os.makedirs(cg)
        with open(os.path.join(cg, "cgroup.procs"), "w") as fh:
            fh.write(str(fs.pid))
        time.sleep(0.6)
        b = json.loads(scrape(port, "/snapshot.json"))["server"]["cpu_s"]
        run.send_signal(signal.SIGINT)
        run.communicate(timeout=60)
        final = json.load(open(jp))["server"]["cpu_s"]
        # (The new cgroup's own count over 0.6 s is a third of the 1.8 s before at the same pace: a reset shows
        # whatever share of a CPU the machine gave the server.)
        check(a > 0 and b >= a and final >= b - 0.01,
              "metrics: the CPU of a cgroup made again only grows (%.3f, then %.3f; final %.3f)" % (a, b, final))
    finally:
        fs.kill()
        fs.wait()
        try:
            with open(os.path.join(root, "cgroup.procs"), "w") as fh:
                fh.write(str(fs.pid))
        except OSError:
            pass
        if os.path.isdir(cg):
            os.rmdir(cg)


@test
def metrics_scraped_during_the_run():
    import urllib.request
    srv = Serve()
    port = free_port()
    jp = os.path.join(TMP, "metrics-run.json")
    run = subprocess.Popen([RAFALE, "-q", "-c", "4", "-t", "1", "-d", "5s", "--metrics-listen", "127.0.0.1:%d" % port,
                            "--json", jp, srv.url("/"), srv.url("/status/404")],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_port(port)
    # A scraper that connects and never sends, and one that sends garbage: the run goes on.
    silent = socket.create_connection(("127.0.0.1", port))
    garbage, _ = exchange("127.0.0.1:%d" % port, b"\x16\x03\x01 not http at all\r\n\r\n")
    # Until the first second is published (1.2 s of sleep was not always enough for the sanitized build on a
    # loaded machine: its first scrape counted 0).
    until = time.monotonic() + 4
    while time.monotonic() < until:
        with urllib.request.urlopen("http://127.0.0.1:%d/snapshot.json" % port, timeout=10) as resp:
            if json.loads(resp.read().decode()).get("requests", 0) > 0:
                break
        time.sleep(0.1)
    scrapes = []

    def counts(text):
        return [l for l in text.splitlines() if l.startswith("rafale_requests_total")]
    # The figures move once a second, when the workers close it: the second scrape is the first that differs
    # (3 s at most; a fixed 1.1 s later, the sanitized build's second had not always closed yet).
    until = time.monotonic() + 3
    while len(scrapes) < 2:
        req = urllib.request.Request("http://127.0.0.1:%d/metrics" % port,
                                     headers={"Accept": "application/openmetrics-text; version=1.0.0"})
        with urllib.request.urlopen(req, timeout=10) as resp:
            got = (resp.headers["Content-Type"], resp.read().decode())
        if not scrapes or counts(got[1]) != counts(scrapes[0][1]) or time.monotonic() > until:
            scrapes.append(got)
        time.sleep(0.25)
    req = urllib.request.Request("http://127.0.0.1:%d/metrics" % port, headers={"Accept": "text/plain;version=0.0.4"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        plain = (resp.headers["Content-Type"], resp.read().decode())
    out, err = run.communicate(timeout=60)
    silent.close()
    srv.stop()
    j = json.load(open(jp))
    check(run.returncode == 0 and j["summary"]["elapsed_s"] < 5.6, "metrics: the run ended on time, scrapers and all")
    check(garbage.startswith(b"HTTP/1.1 4"), "metrics: garbage gets a 4xx (%r)" % garbage[:40])
    check(scrapes[0][0] == "application/openmetrics-text; version=1.0.0; charset=utf-8" and
          scrapes[1][1].endswith("# EOF\n") and plain[0].startswith("text/plain; version=0.0.4"),
          "metrics: OpenMetrics, or the text format when asked (%s, %s)" % (scrapes[0][0], plain[0]))
    parsed = [prom_parse(text) for _, text in scrapes]
    if all(parsed):
        def total(m, key="rafale_requests_total"):
            return sum(v for _, v in m.get(key, []))
        a, b = parsed
        check(0 < total(a) < total(b) <= j["summary"]["requests"],
              "metrics: the counts grow during the run, never past the final figures (%s, %s, %s)" %
              (total(a), total(b), j["summary"]["requests"]))
        st = {l["status"]: v for l, v in b["rafale_requests_total"]}
        check(set(st) == {"200", "404"} and abs(st["200"] - st["404"]) <= 4, "metrics: by status (%s)" % st)
        buckets = [v for l, v in b["rafale_latency_seconds_bucket"]]
        check(buckets == sorted(buckets) and buckets[-1] == b["rafale_latency_seconds_count"][0][1] > 0 and
              b["rafale_latency_seconds_sum"][0][1] > 0, "metrics: a cumulative latency histogram")
        tg = {l["target"]: v for l, v in b["rafale_target_requests_total"]}
        check(set(tg) == {srv.url("/"), srv.url("/status/404")} and b["rafale_connections_open"][0][1] == 4,
              "metrics: per target, and the connections open")
        # The counters' table's rows (counters.h) as counters of their own: growing, never past the final JSON's.
        rows = [("rafale_requests_started_total", "started"), ("rafale_connections_opened_total", "connections_opened"),
                ("rafale_sent_bytes_total", "bytes_sent"), ("rafale_received_bytes_total", "bytes_received")]
        got = [(total(a, k), total(b, k), j["summary"][key]) for k, key in rows]
        check(all(0 < x <= y <= z for x, y, z in got[2:]) and 0 < got[0][0] < got[0][1] <= got[0][2] and
              got[1][1] == 4 == got[1][2] and "rafale_responses_failing_checks_total" in b,
              "metrics: the counters' table's rows, growing to the final figures (%s)" % got)
    # Bad input: a port in use, an address not loopback.
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    bport = busy.getsockname()[1]
    p = subprocess.run([RAFALE, "-q", "-n", "1", "--metrics-listen", "127.0.0.1:%d" % bport, "http://127.0.0.1:1/"],
                       capture_output=True, text=True, timeout=30)
    busy.close()
    check(p.returncode == 2 and one_line(p.stderr, "--metrics-listen 127.0.0.1:%d: Address already in use" % bport),
          "metrics: a port in use, one line (%r)" % p.stderr)
    p = subprocess.run([RAFALE, "-q", "-n", "1", "--metrics-listen", "0.0.0.0:%d" % free_port(), "http://127.0.0.1:1/"],
                       capture_output=True, text=True, timeout=30)
    check(p.returncode == 2 and one_line(p.stderr, "is not a loopback address"), "metrics: not loopback (%r)" % p.stderr)


def metrics_run(srv, port):
    """A run against srv with its metrics port on port, once that listens; 30 s at most, the test stops it."""
    run = subprocess.Popen([RAFALE, "-q", "-c", "1", "-t", "1", "-d", "30s", "--metrics-listen", "127.0.0.1:%d" % port,
                            srv.url("/")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_port(port)
    return run


@test
def metrics_reads_its_request_line():
    # The metrics port reads the method, the target and its query, and the Accept header, as RFC 9110 and 9112
    # have them: HEAD is GET's head without its body (section 9.3.2; before, a 404 with a body), a 405 says what
    # is allowed (section 15.5.6), a query goes with any path, "text/plain" in a query is not an Accept header,
    # a request past 8 KiB is a 431 said before a clean close (before, a 200 for the part read, then a reset), and
    # junk (a TLS ClientHello, a NUL) a 400 at once, not silence until the 2 s are up.
    srv = Serve()
    port = free_port()
    run = metrics_run(srv, port)
    addr = "127.0.0.1:%d" % port

    def ask(data):
        t = time.monotonic()
        out, closed = exchange(addr, data)
        head, _, body = out.partition(b"\r\n\r\n")
        m = re.search(rb"Content-Length: (\d+)", head)
        return head.decode("latin-1"), body, int(m.group(1)) if m else -1, closed, time.monotonic() - t
    got = {}
    got["head"] = ask(b"HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    got["get"] = ask(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    got["post"] = ask(b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
    got["query"] = ask(b"GET /snapshot.json?t=1 HTTP/1.1\r\nHost: x\r\n\r\n")
    got["plain_query"] = ask(b"GET /metrics?text/plain HTTP/1.1\r\nHost: x\r\n\r\n")
    got["plain_accept"] = ask(b"GET /metrics HTTP/1.1\r\nHost: x\r\naccept: text/plain;version=0.0.4\r\n\r\n")
    got["big"] = ask(b"GET /metrics HTTP/1.1\r\nX-Big: " + b"b" * 9000)
    got["tls"] = ask(bytes.fromhex("160301002e0100002a0303") + b"\x00" * 40)
    got["nul"] = ask(b"GET /metrics\x00 HTTP/1.1\r\n")
    got["nul_field"] = ask(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-A: a\x00")
    got["v2"] = ask(b"GET /metrics HTTP/2.0\r\nHost: x\r\n\r\n")
    got["absolute"] = ask(b"GET http://x/metrics?a=1 HTTP/1.1\r\nHost: x\r\n\r\n")
    got["te"] = ask(b"GET /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
    run.send_signal(signal.SIGINT)
    run.communicate(timeout=60)
    srv.stop()
    status = {k: v[0].split("\r\n")[0] for k, v in got.items()}
    h, g = got["head"], got["get"]
    check(status["head"] == "HTTP/1.1 200 OK" and h[1] == b"" and h[2] > 1000 and g[2] == len(g[1]) > 1000 and
          "openmetrics" in h[0], "metrics: HEAD has GET's head and no body (%s, %d bytes, length %d)" %
          (status["head"], len(h[1]), h[2]))
    check(status["post"].startswith("HTTP/1.1 405") and "\r\nAllow: GET, HEAD\r\n" in got["post"][0],
          "metrics: a 405 says what is allowed (%r)" % got["post"][0])
    check(status["query"] == "HTTP/1.1 200 OK" and b'"requests"' in got["query"][1],
          "metrics: /snapshot.json with a query (%s)" % status["query"])
    check("openmetrics" in got["plain_query"][0] and "version=0.0.4" in got["plain_accept"][0],
          "metrics: the format from the Accept header alone, whatever its case (%r, %r)" %
          (got["plain_query"][0], got["plain_accept"][0]))
    check(status["big"].startswith("HTTP/1.1 431") and got["big"][3],
          "metrics: past 8 KiB, a 431 and a clean close (%r, closed %s)" % (status["big"], got["big"][3]))
    check(status["tls"].startswith("HTTP/1.1 400") and status["nul"].startswith("HTTP/1.1 400") and
          got["tls"][4] < 1.5 and got["nul"][4] < 1.5, "metrics: junk is a 400 at once (%s in %.1fs, %s in %.1fs)" %
          (status["tls"], got["tls"][4], status["nul"], got["nul"][4]))
    check(status["nul_field"] == "HTTP/1.1 400 Bad Request" and got["nul_field"][4] < 1.5,
          "metrics: a NUL in a field line not ended, a 400 at once (%s in %.1fs)" %
          (status["nul_field"], got["nul_field"][4]))
    # The request read as rafale serve reads one (http_req.c), answered with its reason phrases: HTTP/2.0 in a
    # request line is not HTTP/1.x (before: served), the absolute form is read for its path (RFC 9112 section
    # 3.2.2; before: a 404), a request body in Transfer-Encoding is not read (before: served as if it had none).
    check(status["v2"] == "HTTP/1.1 505 HTTP Version Not Supported" and
          status["absolute"] == "HTTP/1.1 200 OK" and "openmetrics" in got["absolute"][0] and
          status["te"] == "HTTP/1.1 501 Not Implemented",
          "metrics: the request read as serve reads one (%s, %s, %s)" % (status["v2"], status["absolute"], status["te"]))


@test
def metrics_silent_crowd_holds_no_scrape():
    # 40 clients connect to the metrics port and never send: a scraper that comes after them is answered at
    # once, a silent one making room for it (before: the 16 slots were theirs for 2 s, the scraper queued behind
    # the rest, and waited 4 s or more).
    srv = Serve()
    port = free_port()
    run = metrics_run(srv, port)
    crowd = [socket.create_connection(("127.0.0.1", port)) for _ in range(40)]
    time.sleep(0.3)
    t = time.monotonic()
    out, closed = exchange("127.0.0.1:%d" % port, b"GET /snapshot.json HTTP/1.1\r\nHost: x\r\n\r\n", timeout=10)
    took = time.monotonic() - t
    for c in crowd:
        c.close()
    run.send_signal(signal.SIGINT)
    run.communicate(timeout=60)
    srv.stop()
    check(out.startswith(b"HTTP/1.1 200") and b'"requests"' in out and took < 1.5,
          "metrics: a scrape behind 40 silent clients answered at once (%r in %.1fs)" % (out[:20], took))


@test
def metrics_on_port_0_says_where():
    # Port 0 is a free port the kernel picks: rafale says which (on stderr, -q or not), else none could scrape it.
    # (3 s: the line is read as soon as it comes; without it, the read waits for the end of the run.)
    import urllib.request
    srv = Serve()
    for host in ("127.0.0.1", "[::1]"):
        run = subprocess.Popen([RAFALE, "-q", "-c", "1", "-t", "1", "-d", "3s", "--metrics-listen", host + ":0",
                                srv.url("/")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = run.stderr.readline()
        m = re.match(r"rafale: metrics at http://(\S+):(\d+)/metrics$", line.strip())
        snap = None
        if m:
            with urllib.request.urlopen("http://%s:%s/snapshot.json" % (m.group(1), m.group(2)), timeout=10) as resp:
                snap = json.loads(resp.read())
        run.send_signal(signal.SIGINT)
        run.communicate(timeout=60)
        check(m and m.group(1) == host and snap and "requests" in snap,
              "metrics: on %s:0, the port it took is said, and answers (%r)" % (host, line))
    srv.stop()


@test
def metrics_listen_wants_ipv6_in_brackets():
    # "::1" alone, or "::1:9464": its last colon would cut the address; one line says how to write it (before:
    # "cannot resolve host ':'").
    for spec in ("::1", "::1:9464"):
        p = subprocess.run([RAFALE, "-q", "-n", "1", "--metrics-listen", spec, "http://127.0.0.1:1/"],
                           capture_output=True, text=True, timeout=30)
        check(p.returncode == 2 and one_line(p.stderr, "an IPv6 address in brackets, such as [::1]:9464"),
              "metrics: %s, one line saying the brackets (%r)" % (spec, p.stderr))


@test
def open_files_enough_with_threads_and_metrics():
    # rafale checks its open-file limit before the load: what it asks for must be enough. A thread holds an epoll
    # descriptor, the metrics port its listener and up to 16 clients: with the limit at exactly what rafale asks,
    # 64 threads and 64 connections that each reconnect after every answer (/close), and the metrics port held
    # full by idle clients, not one connect fails for want of a descriptor (before: the check counted only the
    # connections, and the load failed with EMFILE, its report blaming rafale's limit).
    srv = Serve()

    def limit(n):
        return lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (n, n))
    for metrics in (False, True):
        port = free_port()
        extra = ["--metrics-listen", "127.0.0.1:%d" % port] if metrics else []
        args = ["-c", "64", "-t", "64"] + extra
        p = subprocess.run([RAFALE, "-q", "-d", "1s"] + args + [srv.url("/close")], capture_output=True, text=True,
                           timeout=30, preexec_fn=limit(40))
        m = re.search(r"need (\d+) open files", p.stderr)
        check(p.returncode == 2 and m, "open files: too few, one line (%r)" % p.stderr)
        if not m:
            continue
        need = int(m.group(1))
        jp = os.path.join(TMP, "nofile-%d.json" % metrics)
        run = subprocess.Popen([RAFALE, "-q", "-d", "1.5s", "--json", jp] + args + [srv.url("/close")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=limit(need))
        idle = []
        if metrics:
            wait_port(port)
            idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(20)]
        out, err = run.communicate(timeout=60)
        for s in idle:
            s.close()
        j = json.load(open(jp)) if run.returncode == 0 else None
        check(j is not None and j["summary"]["requests"] > 0 and j["errors"]["connect_other"] == 0,
              "open files: at the limit rafale asked for (%d), %s, no connect fails (%s)" %
              (need, "the metrics port full" if metrics else "64 threads",
               j["errors"]["connect_other"] if j else err[-300:]))
    srv.stop()


@test
def metrics_answers_a_slow_reader_whole():
    # The final report (about 60 KB, of 21 targets: more than the kernel's buffers take at once) to a client with
    # a 4 KiB receive buffer and 536-byte segments that reads only after a moment: the endpoint's sends are
    # partial, and it must go on (within the client's 2 s) or reset, never close cleanly after a body shorter
    # than its Content-Length.
    srv = Serve()
    port = free_port()
    run = subprocess.Popen([RAFALE, "-q", "-c", "2", "-t", "1", "-d", "30s", "--metrics-listen", "127.0.0.1:%d" % port,
                            "--metrics-linger", "10s", srv.url("/status/404")] + [srv.url("/?%d" % i) for i in range(20)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_port(port)
    scrape(port, "/")  # a live page watches; --metrics-linger keeps the endpoint after the run for its final report
    time.sleep(0.3)
    run.send_signal(signal.SIGINT)
    for _ in range(200):
        if json.loads(scrape(port, "/snapshot.json"))["done"]:
            break
        time.sleep(0.05)
    c = socket.socket()
    c.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, 536)
    c.connect(("127.0.0.1", port))
    c.sendall(b"GET /report.html HTTP/1.1\r\nHost: x\r\n\r\n")
    time.sleep(0.2)
    data, reset = b"", False
    c.settimeout(10)
    try:
        while True:
            b = c.recv(4096)
            if not b:
                break
            data += b
    except ConnectionResetError:
        reset = True
    c.close()
    run.send_signal(signal.SIGINT)  # the second: the linger ends
    run.communicate(timeout=60)
    srv.stop()
    head, _, body = data.partition(b"\r\n\r\n")
    m = re.search(rb"Content-Length: (\d+)", head)
    want = int(m.group(1)) if m else -1
    check(want > 50000 and (len(body) == want or reset),
          "metrics: a slow reader gets the whole page or a reset, never a short body (%d of %d bytes, reset %s)"
          % (len(body), want, reset))
    check(not reset and body.rstrip().endswith(b"</html>"), "metrics: within its 2 s, the whole page")


@test
def live_page_follows_the_run():
    import urllib.request
    srv = Serve()
    port = free_port()
    jp = os.path.join(TMP, "live-run.json")
    if os.path.exists(jp):
        os.unlink(jp)
    # The run lasts until the browser has looked twice (a slow machine may take seconds to start Chromium), then
    # is stopped by Ctrl-C: its final report is the partial one, and the page must show it all the same.
    run = subprocess.Popen([RAFALE, "-q", "-c", "2", "-t", "1", "-d", "120s", "--metrics-listen", "127.0.0.1:%d" % port,
                            "--metrics-linger", "10s", "--json", jp, srv.url("/delay/2")], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    wait_port(port)
    with urllib.request.urlopen("http://127.0.0.1:%d/" % port, timeout=10) as resp:
        page = resp.read().decode()
    check("<script>" in page and "fetch('/snapshot.json')" in page and " src=" not in page and "http" not in
          page.split("<script>")[1], "live page: one self-contained page that fetches only from where it came")
    chromium = shutil.which("chromium")
    seen = []
    if chromium:
        for wait in (1.5, 2.5):
            time.sleep(wait)
            p = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                                "--user-data-dir=" + os.path.join(TMP, "chromium-live"), "--virtual-time-budget=2000",
                                "--dump-dom", "http://127.0.0.1:%d/" % port], capture_output=True, text=True, timeout=60)
            m = re.search(r'id="requests">(\d+)<', p.stdout)
            seen.append((int(m.group(1)) if m else None, p.stdout.count("<svg")))
        check(seen[0][0] and seen[1][0] and seen[1][0] > seen[0][0] and seen[1][1] >= 2,
              "live page: in Chromium its numbers move during the run, and its charts are drawn (%s)" % seen)
    else:
        print("  (chromium not installed: no browser check)")
        time.sleep(2)
    run.send_signal(signal.SIGINT)
    # When the run is done, the page's snapshot says so and the final report is there (--metrics-linger keeps the
    # endpoint up for it).
    for _ in range(200):
        if os.path.exists(jp) and os.path.getsize(jp) > 0:
            break
        time.sleep(0.05)
    time.sleep(0.3)
    final = json.load(open(jp))
    with urllib.request.urlopen("http://127.0.0.1:%d/snapshot.json" % port, timeout=10) as resp:
        snap = json.loads(resp.read())
    with urllib.request.urlopen("http://127.0.0.1:%d/report.html" % port, timeout=10) as resp:
        report = resp.read().decode()
    run.send_signal(signal.SIGINT)  # the second: the linger ends
    run.communicate(timeout=60)
    srv.stop()
    check(snap["done"] is True and snap["requests"] == final["summary"]["requests"] and snap["errors"] == 0,
          "live page: done, and its figures are the final JSON's (%s against %s)" % (snap["requests"],
                                                                                  final["summary"]["requests"]))
    check("<h1>rafale report</h1>" in report and "Latency by percentile" in report, "live page: the final report")


@test
def live_page_does_not_hold_the_exit():
    """A live page looked at during the run does not hold rafale's exit: before, the end waited 2.5 s for the page's
    next poll whenever a page had been seen in the last 10 s (4.5 s for a -d 2s run). --metrics-linger D keeps the
    endpoint that long after the run (the page's final report, a last scrape), and Ctrl-C ends the linger at
    once."""
    import urllib.request
    srv = Serve()

    def run(*extra):
        port = free_port()
        p = subprocess.Popen([RAFALE, "-q", "-c", "1", "-t", "1", "-d", "2s", "--metrics-listen", "127.0.0.1:%d" % port]
                             + list(extra) + [srv.url("/")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_port(port)
        t0 = time.monotonic()  # the port listens just before the load begins: its 2 s count from about here
        for path in ("/", "/snapshot.json", "/chart.svg"):  # what a live page asks for
            with urllib.request.urlopen("http://127.0.0.1:%d%s" % (port, path), timeout=10) as resp:
                resp.read()
        return p, port, t0

    p, port, t0 = run()
    p.communicate(timeout=60)
    took = time.monotonic() - t0
    check(p.returncode == 0 and took < 3.0, "live page: a -d 2s run it watched ends in %.2f s (under 3)" % took)
    def final_report(p, port):
        """The final report, once the run is done (None if rafale ended first)."""
        while p.poll() is None:
            try:
                with urllib.request.urlopen("http://127.0.0.1:%d/snapshot.json" % port, timeout=10) as resp:
                    if json.loads(resp.read())["done"]:
                        with urllib.request.urlopen("http://127.0.0.1:%d/report.html" % port, timeout=10) as resp:
                            return resp.read().decode()
            except OSError:
                pass
            time.sleep(0.05)
        return None

    p, port, t0 = run("--metrics-linger", "1500ms")
    report = final_report(p, port)
    p.communicate(timeout=60)
    took = time.monotonic() - t0
    check(report and "<h1>rafale report</h1>" in report and 3.3 < took < 4.5,
          "live page: --metrics-linger 1500ms serves the final report after the run, then ends (%.2f s)" % took)
    p, port, t0 = run("--metrics-linger", "60s")
    report = final_report(p, port)
    t1 = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    check(report and p.returncode == 0 and time.monotonic() - t1 < 1,
          "live page: Ctrl-C ends the linger at once (%.2f s)" % (time.monotonic() - t1))
    # The linger is said, -q or not: after the report a silent wait of a minute looks hung (as --start-at's does).
    check("rafale: the metrics port stays open 60.00s more (--metrics-linger): Ctrl-C ends it" in err,
          "live page: the linger said on stderr (%r)" % err)
    # A Ctrl-C that stopped the run: the report, then the linger, said with the second Ctrl-C that ends it.
    p, port, t0 = run("--metrics-linger", "60s")
    p.send_signal(signal.SIGINT)
    time.sleep(1)
    lingering = p.poll() is None
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    check(lingering and p.returncode in (130, -signal.SIGINT) and "rafale: the metrics port stays open 60.00s more (--metrics-linger): "
          "a second Ctrl-C ends it" in err, "live page: after a Ctrl-C, the linger said (%s %r)" % (p.returncode, err))
    rc, out, err = run_raw(["-q", "-n", 1, "--metrics-linger", "1s", srv.url("/")])
    check(rc == 2 and one_line(err, "--metrics-linger goes with --metrics-listen"),
          "--metrics-linger alone: one line (%r)" % err)
    srv.stop()


@test
def result_outputs_on_stdout():
    """'-' is standard output for the results' subcommands too (report, diff, merge, compare), as for a run: the
    output has it to itself, the text report goes to stderr, and --json - --html - is refused in one line. Before,
    diff and report wrote the text and the JSON or HTML into one stream, and compare and report --html - wrote a
    file named '-'."""
    srv = Serve()
    a, b = os.path.join(TMP, "a.json"), os.path.join(TMP, "b.json")
    for path in (a, b):
        rc, out, err = run_raw(["-q", "-n", 20, "-c", 1, "-t", 1, "--json", path, srv.url("/")], timeout=30)
        check(rc == 0, "a run to read back (%s)" % err[-200:])
    srv.stop()
    cwd = os.path.join(TMP, "cwd")
    os.makedirs(cwd)

    def sub(*args):
        p = subprocess.run([RAFALE] + [str(x) for x in args], capture_output=True, text=True, timeout=60, cwd=cwd)
        return p.returncode, p.stdout, p.stderr

    rc, out, err = sub("diff", "--json", "-", a, b)
    check(rc in (0, 3) and json.loads(out)["diff"]["figures"] and "rafale diff:" in err,
          "diff --json -: JSON alone on stdout, the text on stderr (rc=%d, out=%r)" % (rc, out[:120]))
    rc, out, err = sub("diff", "--html", "-", a, b)
    check(rc in (0, 3) and out.lstrip().startswith("<!DOCTYPE html>") and "rafale diff:" in err,
          "diff --html -: the page alone on stdout (rc=%d, out=%r)" % (rc, out[:120]))
    rc, out, err = sub("report", "--html", "-", a)
    check(rc == 0 and out.lstrip().startswith("<!DOCTYPE html>") and "Requests" in err,
          "report --html -: the page alone on stdout, the report on stderr (rc=%d, out=%r)" % (rc, out[:120]))
    rc, out, err = sub("report", "--html", "-", a, b)
    check(rc == 0 and out.lstrip().startswith("<!DOCTYPE html>"), "report --html - of two runs: the page on stdout "
          "(rc=%d, out=%r)" % (rc, out[:120]))
    for cmd in (["diff", a, b], ["merge", a]):
        rc, out, err = sub(*(cmd[:1] + ["--json", "-", "--html", "-"] + cmd[1:]))
        check(rc == 2 and out == "" and one_line(err, "both want standard output"),
              "%s --json - --html -: refused in one line (rc=%d, err=%r)" % (cmd[0], rc, err))
    plan = os.path.join(TMP, "plan.conf")
    with open(plan, "w") as f:
        f.write("[settings]\nrepeat = 1\nwarmup = 0s\nready-timeout = 2s\ngrace = 1s\nrequests = 10\n"
                "[server gone]\nstart = exit 3\nurl = http://127.0.0.1:%d\n[workload w]\npath = /\n" % free_port())
    rc, out, err = sub("compare", "--json", "-", plan)
    check(rc == 1 and json.loads(out)["compare"]["failed"][0]["name"] == "gone" and "rafale compare:" in err,
          "compare --json -: the JSON alone on stdout, the report on stderr (rc=%d, out=%r)" % (rc, out[:120]))
    rc, out, err = sub("compare", "--json", "-", "--html", "-", plan)
    check(rc == 2 and out == "" and one_line(err, "both want standard output"), "compare --json - --html -: refused "
          "(rc=%d, err=%r)" % (rc, err))
    check(os.listdir(cwd) == [], "no file named '-' was written (%s)" % os.listdir(cwd))


@test
def nothing_answered_no_latency():
    """A run that got no answer (every request reset) has no latency to show: its HTML draws no latency chart (it
    drew the percentiles and the latency over time as lines of 0 ms), and `rafale report` side by side shows '-'
    for its p50, p99 and max (it showed 0ns), as the text report says (none)."""
    bad = BadServer("reset")
    srv = Serve()
    jn, jg, html = os.path.join(TMP, "none.json"), os.path.join(TMP, "good.json"), os.path.join(TMP, "none.html")
    r = rafale("-n", 10, "-c", 2, "-t", 1, "--json", jn, "--html", html, bad.url(), expect_json=False)
    rafale("-n", 100, "-c", 2, "-t", 1, "--json", jg, srv.url(), expect_json=False)
    bad.stop()
    srv.stop()
    t = open(html).read()
    check(r.rc == 4 and json.load(open(jn))["summary"]["requests"] == 0 and "total     (none)" in r.out,
          "no answer: exit 4, the text says (none) (%s)" % r.rc)
    check("Latency by percentile" not in t and "Latency over time" not in t and "Throughput over time" in t,
          "no answer: no latency chart in the HTML")
    p = subprocess.run([RAFALE, "report", jg, jn], capture_output=True, text=True, timeout=60)
    rows = {l.split()[0]: l.split() for l in p.stdout.splitlines() if l.startswith("  ") and l.split()[0] in (jg, jn)}
    check(p.returncode == 0 and rows[jn][1:3] == ["0", "10"] and rows[jn][5:8] == ["-", "-", "-"] and
          rows[jg][5] != "-", "side by side: no latency where nothing was answered (%s)" % rows)


@test
def saved_runs_report_the_same():
    """The saved runs of tests/data/saved/ reported as before, byte for byte: `rafale report` (text and HTML, a
    run, runs side by side, a compare), `merge --json` and `--html` of shards, `diff` of two runs and of two
    compares (tests/integ/saved_runs.py; `make saved-expected` writes the expected outputs again, on purpose)."""
    import saved_runs
    bad = saved_runs.check_all(RAFALE)
    check(not bad, "saved runs reported as before:\n  " + "\n  ".join(bad))
    check(len(saved_runs.CASES) >= 20, "every case was run")
