/* Save and load: every figure a run result holds survives --json and
 * `rafale report` (report_json.c then report_load.c). */
#include "diff.h"
#include "report.h"
#include "compare_load.h"
#include "../t.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

static void fill_stats(struct stats *s, uint64_t base)
{
    uint64_t v;
    int k;
    stats_init(s);
    s->completed = 1000 + base;
    s->errors[ERR_TIMEOUT_ANSWER] = 3;
    s->errors[ERR_RESET] = 2;
    s->started = s->completed + 5 + 7;
    s->status[200] = 900 + base;
    s->status[502] = 100;
    s->bad_status = 100;
    s->bytes_sent = 123456 + base;
    s->bytes_received = 654321;
    s->conns_opened = 40;
    s->closes[CLOSE_HEADER] = 30;
    s->closes[CLOSE_IDLE] = 2;
    s->closes[CLOSE_IDLE_408] = 5;
    s->closes[CLOSE_UNSOLICITED] = 7;
    s->tls_full = 3;
    s->tls_resumed = 37;
    /* Every other counter of the table a value of its own: a row added
     * there is saved and read back with no more said here. */
    for (k = 0; k < COUNTERS_NROWS; k++)
        if (stats_counters[k].derived == COUNTERS_D_NONE && *stats_counter(s, &stats_counters[k]) == 0)
            *stats_counter(s, &stats_counters[k]) = 10 + (uint64_t)k + base;
    s->checks_failed = s->checked - 1;
    s->censored_unsent = s->censored - 1;
    for (k = 0; k < H__COUNT; k++)
        for (v = 1; v <= 500; v++)
            hist_record(&s->h[k], (v * 7919 + base) * (uint64_t)(k + 1) * 1000);
}

static void same_stats(const char *what, const struct stats *a, const struct stats *b)
{
    int k, i, same_status = 1;
    CHECKF(a->completed == b->completed && a->started == b->started && a->bad_status == b->bad_status, "%s counts",
           what);
    CHECKF(stats_errors(a) == stats_errors(b) && a->errors[ERR_TIMEOUT_ANSWER] == b->errors[ERR_TIMEOUT_ANSWER], "%s errors", what);
    for (i = 0; i < STATUS_MAX; i++)
        if (a->status[i] != b->status[i])
            same_status = 0;
    CHECKF(same_status, "%s statuses", what);
    CHECKF(a->bytes_sent == b->bytes_sent && a->bytes_received == b->bytes_received &&
               a->conns_opened == b->conns_opened,
           "%s bytes", what);
    for (k = 0; k < CLOSE__COUNT; k++)
        CHECKF(a->closes[k] == b->closes[k], "%s closes %s", what, stats_close_name((enum close_kind)k));
    CHECKF(a->tls_full == b->tls_full && a->tls_resumed == b->tls_resumed, "%s tls", what);
    for (k = 0; k < COUNTERS_NROWS; k++)
        if (stats_counters[k].derived == COUNTERS_D_NONE)
            CHECKF(stats_counter_get(a, &stats_counters[k]) == stats_counter_get(b, &stats_counters[k]), "%s %s", what,
                   stats_counters[k].key);
    for (k = 0; k < H__COUNT; k++) {
        const struct hist *x = &a->h[k], *y = &b->h[k];
        double p;
        int ok = x->total == y->total && x->min == y->min && x->max == y->max &&
                 fabs(hist_mean(x) - hist_mean(y)) < 1 && fabs(hist_stdev(x) - hist_stdev(y)) < 1;
        for (p = 1; p < 100; p += 7.3)
            if (hist_percentile(x, p) != hist_percentile(y, p))
                ok = 0;
        CHECKF(ok, "%s histogram %s", what, stats_hist_name((enum hist_kind)k));
    }
}

/* cfg, r, m (or NULL) and fs (or NULL) as one run's result: a copy of
 * the pieces (they keep what they hold). */
static const struct run_result *as_result(const struct config *cfg, const struct run_figures *r,
                                          const struct monitor_result *m, const struct findings *fs)
{
    static struct run_result res; /* 20 KiB of findings: off the stack */
    result_init(&res);
    res.cfg = cfg;
    res.fig = *r;
    if (m) {
        res.server = *m;
        res.has_server = 1;
    }
    if (fs) {
        res.found = *fs;
        res.has_findings = 1;
    }
    return &res;
}

static void round_trip(void)
{
    struct config cfg;
    struct run_figures r;
    struct monitor_result m;
    struct loaded back;
    const char *urls[2] = { "http://127.0.0.1:8080/a", "http://127.0.0.1:8080/b" };
    char path[64], err[256];
    FILE *f;
    uint32_t i;

    config_defaults(&cfg);
    cfg.url_text = urls;
    cfg.ntargets = 2;
    cfg.method = "POST";
    cfg.connections = 7;
    cfg.threads = 2;
    cfg.requests = 2024;
    cfg.duration_ns = 3000000000ULL;
    cfg.warmup_ns = 500000000ULL;
    cfg.rate = 250.5;
    cfg.poisson = 1;
    cfg.keepalive = 0;
    cfg.body_len = 42;
    cfg.has_body = 1;
    status_set_parse("200,302", &cfg.expect, err, sizeof(err));
    config_add_header(&cfg, "X-A: 1");

    memset(&r, 0, sizeof(r));
    fill_stats(&r.total, 0);
    r.ntargets = 2;
    r.per_target = calloc(2, sizeof(*r.per_target));
    r.target_in_flight = calloc(2, sizeof(uint64_t));
    fill_stats(&r.per_target[0], 1);
    fill_stats(&r.per_target[1], 2);
    r.in_flight = r.target_in_flight[0] = r.target_in_flight[1] = 7;
    r.elapsed_s = 3.123456789;
    r.all_connected_s = 0.25;
    r.client_cpu_s = 1.5;
    r.target_rate = 250.5;
    r.queued = 9;
    r.extra_connections = 2;
    r.nseconds = 3;
    r.timeline = calloc(3, sizeof(*r.timeline));
    for (i = 0; i < 3; i++) {
        r.timeline[i].completed = 300 + i;
        r.timeline[i].errors = i;
        r.timeline[i].p50_ns = 1e6 * (i + 1);
        r.timeline[i].p99_ns = 2e6 * (i + 1);
        r.timeline[i].max_ns = 3e6 * (i + 1);
    }
    memset(&m, 0, sizeof(m));
    m.pid = 4242;
    snprintf(m.cgroup, sizeof(m.cgroup), "/sys/fs/cgroup/test");
    m.cpu_s = 2.25;
    m.cpu_exact = 1;
    m.has_pss = m.has_alone = 1;
    m.pss_peak_bytes = 50 << 20;
    m.alone_peak_bytes = 60 << 20;
    m.alone_mean_bytes = 58 << 20;
    m.uss_peak_bytes = 10 << 20;
    m.rss_peak_bytes = 200 << 20;
    m.processes = 5;
    m.threads = 9;
    m.nprocs = 2;
    m.procs = calloc(2, sizeof(*m.procs));
    m.procs[0].pid = 4242;
    snprintf(m.procs[0].command, sizeof(m.procs[0].command), "master");
    m.procs[1].pid = 4243;
    m.procs[1].ppid = 4242;
    m.procs[1].exited = 1;
    m.procs[1].alone_peak_bytes = 30 << 20;
    snprintf(m.procs[1].command, sizeof(m.procs[1].command), "worker");
    m.npoints = 1;
    m.series = calloc(1, sizeof(*m.series));
    m.series[0].t_s = 1;
    m.series[0].pss_bytes = 49 << 20;
    m.series[0].alone_bytes = 59 << 20;

    snprintf(path, sizeof(path), "/tmp/rafale-json-%d.json", (int)getpid());
    f = fopen(path, "w");
    CHECK(report_json(f, as_result(&cfg, &r, &m, NULL)) == 0);
    fclose(f);
    CHECKF(compare_load(path, &back, err, sizeof(err)) == 0, "%s", err);
    unlink(path);

    same_stats("total", &r.total, &back.run.fig.total);
    same_stats("per_url[1]", &r.per_target[1], &back.run.fig.per_target[1]);
    CHECK(back.run.fig.ntargets == 2 && back.run.fig.in_flight == 7 && back.run.fig.target_in_flight[1] == 7);
    CHECK(fabs(back.run.fig.elapsed_s - r.elapsed_s) < 1e-9 && back.run.fig.all_connected_s == 0.25 &&
          back.run.fig.client_cpu_s == 1.5 && back.run.fig.target_rate == 250.5 && back.run.fig.queued == 9 &&
          back.run.fig.extra_connections == 2);
    CHECK(back.run.fig.nseconds == 3 && back.run.fig.timeline[2].completed == 302 &&
          back.run.fig.timeline[2].p99_ns == 6e6 && back.run.fig.timeline[1].errors == 1);
    CHECK(back.run.cfg->ntargets == 2 && strcmp(back.run.cfg->url_text[1], urls[1]) == 0 &&
          strcmp(back.run.cfg->method, "POST") == 0 && back.run.cfg->connections == 7 && back.run.cfg->threads == 2 &&
          back.run.cfg->requests == 2024 && back.run.cfg->duration_ns == 3000000000ULL &&
          back.run.cfg->warmup_ns == 500000000ULL && back.run.cfg->rate == 250.5 && back.run.cfg->poisson &&
          !back.run.cfg->keepalive && back.run.cfg->body_len == 42 && back.run.cfg->nheaders == 1 &&
          status_set_has(&back.run.cfg->expect, 302) && !status_set_has(&back.run.cfg->expect, 201));
    CHECK(back.run.has_server && back.run.server.pid == 4242 && back.run.server.cpu_exact &&
          back.run.server.pss_peak_bytes == m.pss_peak_bytes && back.run.server.rss_peak_bytes == m.rss_peak_bytes &&
          strcmp(back.run.server.cgroup, m.cgroup) == 0 && back.run.server.nprocs == 2 &&
          back.run.server.procs[1].exited && strcmp(back.run.server.procs[1].command, "worker") == 0 &&
          back.run.server.npoints == 1 && back.run.server.series[0].pss_bytes == m.series[0].pss_bytes);
    /* The kernel's PSS and the memory as if alone, each under its own name. */
    CHECK(back.run.server.has_alone && back.run.server.alone_peak_bytes == m.alone_peak_bytes &&
          back.run.server.alone_mean_bytes == m.alone_mean_bytes &&
          back.run.server.procs[1].alone_peak_bytes == m.procs[1].alone_peak_bytes &&
          back.run.server.series[0].alone_bytes == m.series[0].alone_bytes);
    compare_load_free(&back);
    free(r.timeline);
    r.timeline = NULL;
    figures_free(&r);
    monitor_result_free(&m);
    cfg.url_text = NULL;
    cfg.ntargets = 0;
    config_free(&cfg);
}

/* Every string written is valid UTF-8 and JSON, whatever bytes it held. */
static void strings_are_utf8(void)
{
    static const struct {
        const char *in, *want;
    } cases[] = {
        { "caf\xe9", "\"caf\xef\xbf\xbd\"" },                     /* Latin-1 */
        { "caf\xc3\xa9", "\"caf\xc3\xa9\"" },                     /* UTF-8 kept */
        { "\xc0\xaf", "\"\xef\xbf\xbd\xef\xbf\xbd\"" },          /* overlong '/' */
        { "\xed\xa0\x80", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"" }, /* a surrogate */
        { "\xf4\x90\x80\x80", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"" }, /* past U+10FFFF */
        { "\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"" },           /* U+1F600 */
        { "\xe2\x82", "\"\xef\xbf\xbd\xef\xbf\xbd\"" },          /* cut short at the end */
        { "a\"b\\c\n\x7f", "\"a\\\"b\\\\c\\u000a\\u007f\"" },
    };
    size_t i;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *out = NULL;
        size_t n = 0;
        FILE *f = open_memstream(&out, &n);
        report_json_str(f, cases[i].in);
        fclose(f);
        CHECKF(strcmp(out, cases[i].want) == 0, "case %zu: %s", i, out);
        free(out);
    }
}

/* No figure, however it came (a hostile saved file, a division by a
 * duration of 5e-324 s), makes a JSON writer print inf or nan: JSON has
 * neither (RFC 8259 §6), and the whole document would be unreadable. */
/* w outside a string: after ':', '[', ',', a space or a sign. */
static int bare_word(const char *s, const char *w)
{
    const char *p;
    for (p = strstr(s, w); p; p = strstr(p + 1, w))
        if (p > s && strchr(":[, -+", p[-1]))
            return 1;
    return 0;
}

static json_t *parsed(char *out, const char *what)
{
    json_error_t je;
    json_t *j = json_loads(out, 0, &je);
    CHECKF(j != NULL, "%s is JSON: %s at %d (%.200s)", what, je.text, je.position,
           out + (je.position > 80 ? je.position - 80 : 0));
    CHECKF(!bare_word(out, "inf") && !bare_word(out, "nan"), "%s: no inf, no nan", what);
    free(out);
    return j;
}

static void never_inf_or_nan(void)
{
    struct config cfg;
    struct run_figures r;
    struct monitor_result m;
    struct findings fs;
    struct diff_result d;
    const char *urls[1] = { "http://127.0.0.1:8080/" };
    char *out = NULL;
    size_t n = 0;
    FILE *f;
    json_t *j;

    config_defaults(&cfg);
    cfg.url_text = urls;
    cfg.ntargets = 1;
    cfg.method = "GET";
    cfg.rate = 100;
    memset(&r, 0, sizeof(r));
    fill_stats(&r.total, 0);
    r.ntargets = 1;
    r.per_target = calloc(1, sizeof(*r.per_target));
    r.target_in_flight = calloc(1, sizeof(uint64_t));
    fill_stats(&r.per_target[0], 1);
    r.elapsed_s = 5e-324; /* 1012 requests / 5e-324 s: inf req/s */
    r.client_cpu_s = NAN;
    r.all_connected_s = -INFINITY;
    r.target_rate = INFINITY;
    r.start_unix_s = NAN;
    r.nseconds = 2;
    r.timeline = calloc(2, sizeof(*r.timeline));
    r.timeline[0].p99_ns = INFINITY;
    r.timeline[1].p50_ns = NAN;
    memset(&m, 0, sizeof(m));
    m.cpu_s = INFINITY;
    m.cpus = NAN;
    memset(&fs, 0, sizeof(fs));
    fs.n = 1;
    snprintf(fs.f[0].id, sizeof(fs.f[0].id), "x");
    fs.f[0].nev = 2;
    snprintf(fs.f[0].ev[0].key, sizeof(fs.f[0].ev[0].key), "a");
    fs.f[0].ev[0].v = INFINITY;
    snprintf(fs.f[0].ev[1].key, sizeof(fs.f[0].ev[1].key), "b");
    fs.f[0].ev[1].v = NAN;

    f = open_memstream(&out, &n);
    CHECK(report_json(f, as_result(&cfg, &r, &m, &fs)) == 0);
    fclose(f);
    if ((j = parsed(out, "report_json")) != NULL) {
        json_t *sum = json_object_get(j, "summary");
        CHECK(json_is_null(json_object_get(sum, "rps")) && json_is_number(json_object_get(sum, "elapsed_s")));
        CHECK(json_is_null(json_object_get(json_array_get(json_object_get(j, "timeline"), 0), "p99_us")));
        CHECK(json_is_null(json_object_get(json_object_get(j, "server"), "cpu_s")));
        json_decref(j);
    }

    memset(&d, 0, sizeof(d));
    d.n = 1;
    d.f[0].name = "req/s";
    d.f[0].key = "rps";
    d.f[0].base = 1e-300;
    d.f[0].now = INFINITY;
    d.f[0].ratio = INFINITY;
    d.f[0].ci[0] = 0;
    d.f[0].ci[1] = INFINITY;
    out = NULL;
    f = open_memstream(&out, &n);
    CHECK(diff_json(f, &d, "a.json", "b.json") == 0);
    fclose(f);
    if ((j = parsed(out, "diff_json")) != NULL) {
        json_t *x = json_array_get(json_object_get(json_object_get(j, "diff"), "figures"), 0);
        CHECK(json_is_null(json_object_get(x, "new")) && json_is_null(json_object_get(x, "ratio")) &&
              json_is_null(json_array_get(json_object_get(x, "ratio_ci"), 1)));
        json_decref(j);
    }
    free(r.timeline);
    r.timeline = NULL;
    figures_free(&r);
    cfg.url_text = NULL;
    cfg.ntargets = 0;
    config_free(&cfg);
}

/* An HTTP/3 run's figures in its own "http3" object (QPACK's bytes and
 * saving, its retries), no "http2" beside them (before, they were in
 * "http2", under HTTP/2's names); a file saved that older way is read
 * back with them as HTTP/3's. */
static void http3_object(void)
{
    struct config cfg;
    struct run_figures r;
    struct loaded back;
    const char *urls[1] = { "https://127.0.0.1:8443/" };
    char path[64], err[256], *out = NULL, *at;
    size_t n = 0;
    json_t *j, *h3;
    FILE *f;
    int k;

    config_defaults(&cfg);
    cfg.url_text = urls;
    cfg.ntargets = 1;
    cfg.proto_asked[PROTO_HTTP3] = 1;
    cfg.streams = 10;
    memset(&r, 0, sizeof(r));
    fill_stats(&r.total, 0);
    r.total.h2_hdr_wire = r.total.h2_hdr_decoded = r.total.h2_retried = 0;
    r.total.h3_hdr_wire = 3000;
    r.total.h3_hdr_decoded = 12000;
    r.total.h3_retried = 4;
    r.ntargets = 1;
    r.per_target = calloc(1, sizeof(*r.per_target));
    r.target_in_flight = calloc(1, sizeof(uint64_t));
    stats_init(&r.per_target[0]);
    stats_merge(&r.per_target[0], &r.total);
    r.in_flight = r.target_in_flight[0] = 7;
    r.elapsed_s = 2;
    f = open_memstream(&out, &n);
    CHECK(report_json(f, as_result(&cfg, &r, NULL, NULL)) == 0);
    fclose(f);
    if ((j = parsed(strdup(out), "http3")) != NULL) {
        for (k = 0; k < 2; k++) {
            json_t *o = k ? json_array_get(json_object_get(j, "per_url"), 0) : j;
            h3 = json_object_get(o, "http3");
            CHECKF(json_object_get(o, "http2") == NULL, "%s: no \"http2\"", k ? "per_url" : "totals");
            CHECKF(json_integer_value(json_object_get(h3, "header_bytes_wire")) == 3000 &&
                       json_integer_value(json_object_get(h3, "header_bytes_decoded")) == 12000 &&
                       json_real_value(json_object_get(h3, "header_space_savings")) == 0.75 &&
                       json_integer_value(json_object_get(h3, "retried")) == 4,
                   "%s: QPACK's figures in \"http3\"", k ? "per_url" : "totals");
        }
        json_decref(j);
    }
    /* The older layout: the same figures in "http2". */
    for (at = strstr(out, "\"http3\": {"); at; at = strstr(at, "\"http3\": {"))
        at[5] = '2';
    snprintf(path, sizeof(path), "/tmp/rafale-json-h3-%d.json", (int)getpid());
    f = fopen(path, "w");
    fputs(out, f);
    fclose(f);
    free(out);
    CHECKF(compare_load(path, &back, err, sizeof(err)) == 0, "%s", err);
    unlink(path);
    CHECK(back.run.fig.total.h3_hdr_wire == 3000 && back.run.fig.total.h3_hdr_decoded == 12000 &&
          back.run.fig.total.h3_retried == 4 && back.run.fig.total.h2_hdr_wire == 0 &&
          back.run.fig.total.h2_retried == 0 && back.run.fig.per_target[0].h3_hdr_wire == 3000);
    compare_load_free(&back);
    figures_free(&r);
    cfg.url_text = NULL;
    cfg.ntargets = 0;
    config_free(&cfg);
}

/* How the table's rows merge (threads after join, shards in rafale
 * merge): each by its rule (QUIC's least RTT by MIN, the rest sum). */
static void counters_merge(void)
{
    struct stats a, b;
    uint64_t was[COUNTERS_NROWS];
    int k, ok = 1;
    CHECK(counters_merged(COUNTERS_SUM, 2, 3) == 5 && counters_merged(COUNTERS_MAX, 2, 3) == 3 &&
          counters_merged(COUNTERS_MAX, 3, 0) == 3);
    /* MIN: 0 is a fresh result's "none yet", not a least value. */
    CHECK(counters_merged(COUNTERS_MIN, 0, 7) == 7 && counters_merged(COUNTERS_MIN, 7, 0) == 7 &&
          counters_merged(COUNTERS_MIN, 7, 4) == 4);
    fill_stats(&a, 1);
    fill_stats(&b, 2);
    for (k = 0; k < COUNTERS_NROWS; k++)
        was[k] = stats_counters[k].derived ? 0 : stats_counter_get(&a, &stats_counters[k]);
    stats_merge(&a, &b);
    for (k = 0; k < COUNTERS_NROWS; k++)
        if (stats_counters[k].derived == COUNTERS_D_NONE)
            ok &= stats_counter_get(&a, &stats_counters[k]) ==
                  counters_merged((enum counters_merge)stats_counters[k].merge, was[k],
                                  stats_counter_get(&b, &stats_counters[k]));
    CHECK(ok && a.checks_failed == was[COUNTERS_ROW_checks_failed] + b.checks_failed);
    CHECK(a.quic_min_rtt_ns == (was[COUNTERS_ROW_quic_min_rtt_ns] < b.quic_min_rtt_ns ? was[COUNTERS_ROW_quic_min_rtt_ns]
                                                                                       : b.quic_min_rtt_ns));
    stats_fini(&a);
    stats_fini(&b);
}

int main(void)
{
    T_RUN(round_trip);
    T_RUN(counters_merge);
    T_RUN(http3_object);
    T_RUN(strings_are_utf8);
    T_RUN(never_inf_or_nan);
    T_END("test_report_json");
}
