"""Integration tests: what the reports say: HTML, saved results read back, escaping, the outputs of a run."""
from common import *  # noqa: F401,F403 (the runner sets RAFALE first)

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
    # Six charts: the percentiles, the figures with their intervals (a run with batches), throughput and latency
    # over time, the statuses, one per URL.
    check(r.j.get("intervals") and text.count("<svg") == 6 and "Latency by percentile" in text and
          "Latency and its 95% intervals" in text and "Throughput over time" in text and
          "Latency over time" in text and "Status codes and errors" in text and "Latency per URL" in text,
          "--html: the six charts (one per URL: two URLs; %d)" % text.count("<svg"))
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
    # A file's rendering is Chromium's work on the same HTML in both builds: looked at once, in the plain one.
    if not chromium or SANITIZED:
        print("  (no screenshot check: %s)" % ("the plain build's" if chromium else "chromium not installed"))
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
    check(text.count("<svg") == 5 + ("intervals" in r.j) and "<h2>Per target</h2>" in text and
          "Latency per target" in text and ("Latency and its 95% intervals" in text) == ("intervals" in r.j),
          "targets: the HTML has the per-target table and chart (%d charts)" % text.count("<svg"))
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
    # Four charts, and the intervals' when the run had them (a run long enough for its batches: the sanitized one).
    check(t.count("<svg") == 4 + ("intervals" in a) and "Latency by percentile" in t,
          "report: the HTML rebuilt (%d charts)" % t.count("<svg"))
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
    # The axis's foot is a decade at or under half the smallest bar, so that bar stands at least log10(2) of a
    # decade high: 260 px of plot over its decades (a tick line each, foot and top included). On a linear axis a
    # 0.05-ms bar beside a 10-ms one would be 1 px.
    decades = len(re.findall(r'<line [^>]*stroke="#eee"/>', bars[0])) - 1 if bars else 0
    least = 260 * math.log10(2) / decades - 0.1 if decades > 0 else 1e9
    check(bars and "latency (ms, log scale)" in bars[0] and heights and min(heights) >= least and least >= 10,
          "report: the latency bars on a log axis, every bar visible (%s, %d decades)" % (heights, decades))
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
        # min and max within the first and last bucket, as a real result has them.
        hist = {"count": n, "min_us": 100.9, "mean_us": 150.0, "stdev_us": 10.0, "max_us": 200.9,
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
