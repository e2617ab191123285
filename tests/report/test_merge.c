/* merge: two shards of one run, each saved as --json writes it and read
 * back, merged into what one process would have reported: the counters
 * summed, the latency histogram bucket by bucket (so every percentile is
 * the one run's, never an average), the per-second timeline aligned on the
 * wall clock (the second shard began a second later), the elapsed time from
 * the first start to the last end, the shards' own table. And the
 * refusals: a shard given twice, one missing, another workload, a file
 * that is not a shard's, a timeline that contradicts its totals, starts
 * too far apart; threads alone may differ. */
#include "merge.h"
#include "report.h"
#include "targets.h"
#include "../t.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SECONDS 3
#define T0 1700000000.0

static struct config cfg;

/* Shard k's run, also added into the whole run's: its totals (one) and its
 * seconds (one_sec: shard 1's second s is the run's s + 1). */
static void shard(struct run_result *r, uint32_t k, uint32_t threads, struct stats *one, struct hist *one_sec)
{
    struct run_figures *f = &r->fig;
    uint32_t s, j;
    result_init(r);
    r->cfg = &cfg;
    r->env.cpus_online = 2;
    stats_init(&f->total);
    f->ntargets = 1;
    f->per_target = calloc(1, sizeof(*f->per_target));
    f->target_in_flight = calloc(1, sizeof(uint64_t));
    stats_init(&f->per_target[0]);
    f->nseconds = SECONDS;
    f->timeline = calloc(SECONDS, sizeof(*f->timeline));
    f->tl_hist = calloc(SECONDS, sizeof(*f->tl_hist));
    for (s = 0; s < SECONDS; s++) {
        uint32_t n = 40 + 30 * k + 7 * s; /* each second its own count */
        hist_init_bits(&f->tl_hist[s], TL_SUB_BITS);
        for (j = 0; j < n; j++) {
            /* From 80 us to some ms, a slow tail in shard 1's last second. */
            uint64_t v = 80000 + (uint64_t)j * 9973 * (k + 1) + s * 15000 + (k == 1 && s == 2 && j < 3 ? 40000000 : 0);
            hist_record(&f->total.h[H_LATENCY], v);
            hist_record(&f->per_target[0].h[H_LATENCY], v);
            hist_record(&f->tl_hist[s], v);
            hist_record(&one_sec[s + k], v);
        }
        f->timeline[s].completed = n;
        f->timeline[s].errors = k == 0 && s == 1 ? 2 : 0;
        f->timeline[s].p50_ns = hist_percentile(&f->tl_hist[s], 50);
        f->timeline[s].p99_ns = hist_percentile(&f->tl_hist[s], 99);
        f->timeline[s].max_ns = (double)f->tl_hist[s].max;
        f->total.completed += n;
    }
    f->total.errors[ERR_RESET] = k == 0 ? 2 : 0;
    f->total.status[200] = f->total.completed - 5 * k;
    f->total.status[503] = 5 * k;
    f->total.bad_status = 5 * k;
    f->total.started = f->total.completed + stats_errors(&f->total) + 1;
    f->total.bytes_received = 1000 * f->total.completed;
    f->total.conns_opened = 3 + k;
    f->in_flight = 1;
    f->target_in_flight[0] = 1;
    f->per_target[0].completed = f->total.completed;
    f->per_target[0].errors[ERR_RESET] = f->total.errors[ERR_RESET];
    f->per_target[0].status[200] = f->total.status[200];
    f->per_target[0].status[503] = f->total.status[503];
    f->per_target[0].bad_status = f->total.bad_status;
    f->per_target[0].started = f->total.started;
    f->per_target[0].bytes_received = f->total.bytes_received;
    f->per_target[0].conns_opened = f->total.conns_opened;
    f->elapsed_s = SECONDS - 0.25 * k;
    f->start_unix_s = T0 + k;
    f->all_connected_s = 0.01 + 0.02 * k;
    f->client_cpu_s = 1.25 + k;
    f->conns.clients = 3 + k;
    f->conns.req_min = 10 + k;
    f->conns.req_max = 90 - k;
    f->conns.req_median = 40 + k;
    f->shard.index = k;
    f->shard.count = 2;
    f->shard.threads = threads;
    f->shard.start_unix_s = T0 + k;
    snprintf(f->shard.host, sizeof(f->shard.host), "host%u", k);
    stats_merge(one, &f->total);
}

/* r as its --json text, parsed. */
static json_t *saved(const struct run_result *r)
{
    char *text = NULL;
    size_t len;
    json_t *j;
    json_error_t e;
    FILE *f = open_memstream(&text, &len);
    CHECK(report_json(f, r) == 0);
    fclose(f);
    j = json_loads(text, 0, &e);
    CHECKF(j != NULL, "%s", e.text);
    free(text);
    return j;
}

/* A run of two shards: each one's result and its saved JSON, and the
 * whole run's totals and seconds. */
struct run2 {
    struct run_result sh[2];
    json_t *saved[2];
    struct stats one;
    struct hist sec[SECONDS + 1];
};

/* Shard 1 with threads of its own (still one workload). */
static void run2_make(struct run2 *r, uint32_t threads1)
{
    uint32_t s, k;
    stats_init(&r->one);
    for (s = 0; s <= SECONDS; s++)
        hist_init_bits(&r->sec[s], TL_SUB_BITS);
    for (k = 0; k < 2; k++) {
        shard(&r->sh[k], k, k ? threads1 : 2, &r->one, r->sec);
        r->saved[k] = saved(&r->sh[k]);
    }
}

static void run2_free(struct run2 *r)
{
    uint32_t s, k;
    for (k = 0; k < 2; k++) {
        json_decref(r->saved[k]);
        r->sh[k].cfg = NULL; /* the test's */
        result_free(&r->sh[k]);
    }
    stats_fini(&r->one);
    for (s = 0; s <= SECONDS; s++)
        hist_fini(&r->sec[s]);
}

static void two_shards_are_one_run(void)
{
    static struct run2 run;
    struct run_result m, *a = &run.sh[0], *b = &run.sh[1];
    const struct hist *one_sec = run.sec;
    const char *names[2] = { "a.json", "b.json" };
    char err[512] = "";
    uint32_t s;
    int k, same = 1;
    run2_make(&run, 3);
    CHECKF(merge_shards(run.saved, names, 2, &m, err, sizeof(err)) == 0, "%s", err);
    {
        const struct stats *t = &m.fig.total;
        const struct hist *h = &t->h[H_LATENCY], *w = &run.one.h[H_LATENCY];
        CHECK(t->completed == a->fig.total.completed + b->fig.total.completed && t->completed == 141 + 231);
        CHECK(t->started == run.one.started && stats_errors(t) == 2 && t->errors[ERR_RESET] == 2);
        CHECK(t->status[200] == run.one.status[200] && t->status[503] == 5 && t->bad_status == 5);
        CHECK(t->bytes_received == 1000 * t->completed && t->conns_opened == 7);
        CHECK(h->total == w->total && h->min == w->min && h->max == w->max && h->max >= 40000000);
        for (k = 1; k <= 999; k++)
            same &= hist_percentile(h, k / 10.0) == hist_percentile(w, k / 10.0);
        CHECK(same);
        CHECK(m.fig.per_target && m.fig.ntargets == 1 && m.fig.per_target[0].completed == t->completed &&
              m.fig.per_target[0].h[H_LATENCY].total == h->total && m.fig.target_in_flight[0] == 2);
    }
    /* From the first start to the last end: shard 1 ran from T0 + 1 for 2.75 s. */
    CHECK(m.fig.start_unix_s == T0 && m.fig.elapsed_s == 3.75);
    CHECK(m.fig.in_flight == 2 && m.fig.client_cpu_s == 3.5 && m.fig.all_connected_s == 0.03);
    CHECK(m.fig.conns.clients == 7 && m.fig.conns.req_min == 10 && m.fig.conns.req_max == 90 &&
          m.fig.conns.req_median == 41);
    /* The seconds on the wall clock: 40, 47+70, 54+77, 84. */
    CHECKF(m.fig.nseconds == SECONDS + 1, "%u seconds", m.fig.nseconds);
    if (m.fig.nseconds == SECONDS + 1) {
        static const uint64_t want[SECONDS + 1] = { 40, 117, 131, 84 };
        same = 1;
        for (s = 0; s <= SECONDS; s++)
            same &= m.fig.timeline[s].completed == want[s] && one_sec[s].total == want[s] &&
                    m.fig.timeline[s].p50_ns == hist_percentile(&one_sec[s], 50) &&
                    m.fig.timeline[s].p99_ns == hist_percentile(&one_sec[s], 99) &&
                    m.fig.timeline[s].max_ns == (double)one_sec[s].max;
        CHECK(same && m.fig.timeline[1].errors == 2 && m.fig.tl_hist == NULL);
    }
    CHECK(m.fig.nshards == 2 && m.fig.shards[0].completed == 141 && m.fig.shards[1].completed == 231);
    CHECK(m.fig.shards[0].errors == 2 && m.fig.shards[1].elapsed_s == 2.75 && m.fig.shards[1].threads == 3);
    CHECK(strcmp(m.fig.shards[1].host, "host1") == 0 && m.fig.shards[0].client_cpu_s == 1.25);
    CHECK(m.cfg && m.cfg == m.own_cfg && m.cfg->ntargets == 1 && strcmp(m.cfg->url_text[0], cfg.url_text[0]) == 0);
    /* Its intervals from the merged seconds: the throughput's estimate is the report's. */
    CHECK(fabs(m.fig.ci.rps.est - (double)m.fig.total.completed / 3.75) < 1e-9);
    /* In the order given or not: the same. */
    {
        struct run_result m2;
        json_t *rev[2] = { run.saved[1], run.saved[0] };
        const char *rn[2] = { "b.json", "a.json" };
        CHECK(merge_shards(rev, rn, 2, &m2, err, sizeof(err)) == 0);
        CHECK(m2.fig.total.completed == m.fig.total.completed && m2.fig.elapsed_s == 3.75 &&
              m2.fig.nseconds == SECONDS + 1 && m2.fig.timeline[3].completed == 84);
        result_free(&m2);
    }
    result_free(&m);
    run2_free(&run);
}

/* merge_shards' message for roots (names "a.json", "b.json", ...). */
static const char *refusal(json_t **roots, int n)
{
    static char err[512];
    static const char *names[3] = { "a.json", "b.json", "c.json" };
    struct run_result m;
    err[0] = '\0';
    if (merge_shards(roots, names, n, &m, err, sizeof(err)) == 0) {
        result_free(&m);
        return "(merged)";
    }
    CHECK(m.fig.nshards == 0 && m.own_cfg == NULL); /* nothing left held */
    return err;
}

static void refused(void)
{
    static struct run2 run;
    json_t *ja, *jb, *r[3];
    const char *e;
    run2_make(&run, 2);
    ja = run.saved[0];
    jb = run.saved[1];

    r[0] = ja, r[1] = ja;
    e = refusal(r, 2);
    CHECKF(strcmp(e, "b.json: shard 0/2 is given twice") == 0, "'%s'", e);
    r[0] = jb;
    e = refusal(r, 1);
    CHECKF(strcmp(e, "the run had 2 shards and 1 result is given: every shard's is needed for an exact total") == 0,
           "'%s'", e);
    r[0] = ja, r[1] = jb, r[2] = jb;
    e = refusal(r, 3);
    CHECKF(strcmp(e, "the run had 2 shards and 3 results are given: every shard's is needed for an exact total") == 0,
           "'%s'", e);
    e = refusal(r, 0);
    CHECKF(strcmp(e, "no shard results given") == 0, "'%s'", e);
    {
        /* Another workload. */
        json_t *other = json_deep_copy(jb);
        json_object_set_new(json_object_get(other, "config"), "connections", json_integer(99));
        r[0] = ja, r[1] = other;
        e = refusal(r, 2);
        CHECKF(strcmp(e, "a.json and b.json are not shards of the same workload: their 'connections' differ") == 0,
               "'%s'", e);
        json_decref(other);
        /* Not a shard's. */
        other = json_deep_copy(jb);
        json_object_del(other, "shard");
        r[1] = other;
        e = refusal(r, 2);
        CHECKF(strcmp(e, "b.json: not a shard's result (saved with --json by rafale --shard I/N)") == 0, "'%s'", e);
        json_decref(other);
        /* A timeline that does not add up to its totals. */
        other = json_deep_copy(jb);
        json_object_set_new(json_array_get(json_object_get(other, "timeline"), 0), "errors", json_integer(1));
        r[1] = other;
        e = refusal(r, 2);
        CHECKF(strstr(e, "b.json: its timeline counts 231 requests and 1 errors, its totals 231 and 0") == e, "'%s'", e);
        json_decref(other);
        /* Starts a day apart: not one run. */
        other = json_deep_copy(jb);
        json_object_set_new(json_object_get(other, "shard"), "start_unix_s", json_real(T0 + 86400));
        json_object_set_new(other, "start_unix_s", json_real(T0 + 86400));
        r[1] = other;
        e = refusal(r, 2);
        CHECKF(strstr(e, "b.json started 86400s after a.json, more than the run lasted (3s) plus 60s") == e, "'%s'",
               e);
        json_decref(other);
        /* One of three shards beside one of two. */
        other = json_deep_copy(jb);
        json_object_set_new(json_object_get(other, "shard"), "count", json_integer(3));
        r[1] = other;
        e = refusal(r, 2);
        CHECKF(strcmp(e, "b.json is one of 3 shards, a.json one of 2: not the same run") == 0, "'%s'", e);
        json_decref(other);
    }
    run2_free(&run);
}

static void config_diff(void)
{
    json_t *a = json_pack("{s:i, s:s, s:i}", "connections", 4, "method", "GET", "threads", 2);
    json_t *b = json_pack("{s:i, s:s, s:i}", "connections", 4, "method", "GET", "threads", 3);
    const char *own[] = { "threads" };
    CHECK(merge_config_diff(a, b, own, 1) == NULL);
    CHECK(merge_config_diff(a, b, NULL, 0) && strcmp(merge_config_diff(a, b, NULL, 0), "threads") == 0);
    json_object_set_new(b, "body", json_string("x")); /* a key only one has */
    CHECK(merge_config_diff(a, b, own, 1) && strcmp(merge_config_diff(a, b, own, 1), "body") == 0);
    CHECK(merge_config_diff(b, a, own, 1) && strcmp(merge_config_diff(b, a, own, 1), "body") == 0);
    json_decref(a);
    json_decref(b);
}

int main(void)
{
    char err[256];
    config_defaults(&cfg);
    cfg.connections = 8;
    if (targets_add_url(&cfg, "http://127.0.0.1:8080/x", err, sizeof(err)) != 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    T_RUN(two_shards_are_one_run);
    T_RUN(refused);
    T_RUN(config_diff);
    config_free(&cfg);
    T_END("test_merge");
}
