/* report_load.c - reads a result saved with --json (or by rafale compare
 * --json) back, through jansson (Debian's libjansson). Histograms come back
 * from their buckets, so the percentiles are those of the original run; min,
 * max, mean and stdev are the saved exact values.
 *
 * A saved file is input like any other: it may be hand-edited, truncated or
 * hostile. Every field is checked before it is used: its type, that numbers
 * are finite and in range (never a double cast to an integer it cannot
 * hold), that histograms are sorted with non-negative counts adding up to
 * their totals, that the counters agree (started = completed + errors + in
 * flight). The first problem is reported as "FILE: field: what is wrong". */
#include "report_load.h"
#include "opt.h"
#include "jcheck.h"
#include "err.h"
#include "report.h"
#include "text.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_US (3600.0 * 1e6 * 1.01)  /* latencies are clamped at 1 h */
/* The histogram keeps whole nanoseconds and the writer prints microseconds
 * to 3 decimals: a latency is 0 or 1 ns and more. Less came from no run, and
 * its logarithm (diff's intervals) runs off towards infinity. */
#define MIN_US 0.001
/* A run's duration must hold its requests at a rate no run reaches: 10^9
 * a second, a request a nanosecond, is thousands of times what rafale does
 * on a core and far above many machines' merged shards; below it, a
 * duration like 5e-324 s would make the throughput infinite. */
#define MAX_RPS 1e9
#define MAX_URLS 1000000

/* A latency in microseconds: 0, or 1 ns to the 1 h clamp. */
static double load_us(struct jc *c, json_t *o, const char *key, int required)
{
    double v = jcheck_num(c, o, key, 0, MAX_US, required);
    if (!c->failed && v > 0 && v < MIN_US)
        jcheck_fail(c, key, "%g us is below 1 ns, the least latency a run records", v);
    return v;
}

/* A duration in seconds that can hold completed requests. */
static double load_elapsed(struct jc *c, json_t *o, const char *key, uint64_t completed, int required)
{
    double v = jcheck_num(c, o, key, 0, MAX_SECONDS, required);
    if (!c->failed && completed && v < (double)completed / MAX_RPS)
        jcheck_fail(c, key, "%g s cannot hold %llu requests (more than %.0e a second)", v,
                    (unsigned long long)completed, MAX_RPS);
    return v;
}

/* A histogram: [upper_bound_us, count] pairs, bounds increasing, counts
 * adding up to "count"; min <= max within the clamp. */
static void load_hist(struct jc *c, struct hist *h, json_t *parent, const char *key)
{
    json_t *o = jcheck_obj(c, parent, key, 0), *list, *e;
    size_t i, at;
    double prev = 0, mean, sd, mn, mx;
    uint64_t total, sum = 0;
    if (o == NULL)
        return;
    at = jcheck_enter(c, "%s", key);
    total = jcheck_count(c, o, "count", 1);
    mn = load_us(c, o, "min_us", 0);
    mx = load_us(c, o, "max_us", 0);
    mean = load_us(c, o, "mean_us", 0);
    sd = load_us(c, o, "stdev_us", 0);
    list = jcheck_arr(c, o, "histogram", 1);
    if (c->failed) {
        jcheck_leave(c, at);
        return;
    }
    if (mn > mx)
        jcheck_fail(c, "min_us", "above max_us");
    json_array_foreach(list, i, e) {
        double ub = json_number_value(json_array_get(e, 0)), n = json_number_value(json_array_get(e, 1));
        char idx[32];
        snprintf(idx, sizeof(idx), "histogram[%zu]", i);
        if (!json_is_array(e) || json_array_size(e) != 2 || !json_is_number(json_array_get(e, 0)) ||
            !json_is_number(json_array_get(e, 1))) {
            jcheck_fail(c, idx, "not a [upper_bound_us, count] pair");
            break;
        }
        if (!isfinite(ub) || ub <= prev || ub < MIN_US || ub > MAX_US) {
            jcheck_fail(c, idx, "bucket bound %g is not above the previous one (%g) or out of range", ub, prev);
            break;
        }
        if (!isfinite(n) || n < 0 || n > MAX_COUNT || n != floor(n)) {
            jcheck_fail(c, idx, "count %g is not a whole number from 0", n);
            break;
        }
        prev = ub;
        sum += (uint64_t)n;
        /* The bucket's upper bound is exclusive: one below it falls inside. */
        hist_record_n(h, ub * 1e3 >= 1 ? (uint64_t)(ub * 1e3) - 1 : 0, (uint64_t)n);
    }
    if (!c->failed && sum != total)
        jcheck_fail(c, "count", "%llu, but the buckets add up to %llu", (unsigned long long)total, (unsigned long long)sum);
    if (!c->failed && h->total) {
        h->min = (uint64_t)(mn * 1e3 + 0.5);
        h->max = (uint64_t)(mx * 1e3 + 0.5);
        h->sum = mean * 1e3 * (double)h->total;
        h->sumsq = (double)h->total * (sd * sd * 1e6 + mean * mean * 1e6);
    }
    jcheck_leave(c, at);
}

/* The counters, statuses, errors and histograms of the totals or one URL. */
static void load_stats(struct jc *c, struct stats *s, json_t *o, uint64_t *in_flight)
{
    json_t *sum = jcheck_obj(c, o, "summary", 1), *st = jcheck_obj(c, o, "status", 0), *er = jcheck_obj(c, o, "errors", 1), *v;
    json_t *why = sum ? json_object_get(sum, "server_close_reasons") : NULL, *tls = jcheck_obj(c, o, "tls", 0);
    json_t *h2 = jcheck_obj(c, o, "http2", 0);
    const char *k;
    uint64_t errs = 0, nerr;
    size_t at;
    int i;

    if (c->failed)
        return;
    at = jcheck_enter(c, "summary");
    s->completed = jcheck_count(c, sum, "requests", 1);
    s->started = jcheck_count(c, sum, "started", 0);
    s->carried_in = jcheck_count(c, sum, "carried_in", 0);
    nerr = jcheck_count(c, sum, "errors", 1);
    *in_flight = jcheck_count(c, sum, "in_flight", 0);
    s->conns_opened = jcheck_count(c, sum, "connections_opened", 0);
    s->bad_status = jcheck_count(c, sum, "unexpected_status", 0);
    s->bytes_recv = jcheck_count(c, sum, "bytes_received", 0);
    s->bytes_sent = jcheck_count(c, sum, "bytes_sent", 0);
    s->redirects = jcheck_count(c, sum, "redirects_followed", 0);
    s->redirects_away = jcheck_count(c, sum, "redirects_to_other_origin", 0);
    s->checked = jcheck_count(c, sum, "checked", 0);
    s->checks_failed = jcheck_count(c, sum, "checks_failed", 0);
    s->skipped = jcheck_count(c, sum, "skipped", 0);
    if (s->checks_failed > s->checked)
        jcheck_fail(c, "checks_failed", "more than the checked responses");
    if (json_is_object(why)) {
        size_t a2 = jcheck_enter(c, "server_close_reasons");
        for (i = 0; i < CLOSE__COUNT; i++)
            s->closes[i] = jcheck_count(c, why, stats_close_name((enum close_kind)i), 0);
        jcheck_leave(c, a2);
    } else {
        /* Results saved before the reasons were told apart. */
        s->closes[CLOSE_HEADER] = jcheck_count(c, sum, "server_closes", 0);
    }
    if (s->bad_status > s->completed)
        jcheck_fail(c, "unexpected_status", "more than the completed requests");
    jcheck_leave(c, at);
    if (st) {
        at = jcheck_enter(c, "status");
        json_object_foreach(st, k, v) {
            char *end;
            long code = strtol(k, &end, 10);
            if (*k == '\0' || *end || code < 0 || code >= STATUS_MAX) {
                jcheck_fail(c, k, "not a status code (0 to 599)");
                break;
            }
            s->status[code] = jcheck_count(c, st, k, 1);
        }
        jcheck_leave(c, at);
    }
    if (er) {
        at = jcheck_enter(c, "errors");
        for (i = 0; i < ERR__COUNT; i++) {
            /* A result saved before a kind was renamed has its old key. */
            const char *name = stats_err_name((enum err_kind)i), *old = stats_err_old_name((enum err_kind)i);
            if (old && json_object_get(er, name) == NULL)
                name = old;
            errs += s->errors[i] = jcheck_count(c, er, name, 0);
        }
        jcheck_leave(c, at);
    }
    if (!c->failed && er && errs != nerr)
        jcheck_fail(c, "summary.errors", "%llu, but the kinds add up to %llu", (unsigned long long)nerr,
             (unsigned long long)errs);
    if (s->carried_in > s->started)
        jcheck_fail(c, "carried_in", "more than the started requests");
    if (!c->failed && s->started && s->started != s->completed + nerr + *in_flight)
        jcheck_fail(c, "summary.started", "%llu is not completed + errors + in flight (%llu)", (unsigned long long)s->started,
             (unsigned long long)(s->completed + nerr + *in_flight));
    if (tls) {
        at = jcheck_enter(c, "tls");
        s->tls_full = jcheck_count(c, tls, "full", 0);
        s->tls_resumed = jcheck_count(c, tls, "resumed", 0);
        jcheck_leave(c, at);
    }
    if (h2) {
        at = jcheck_enter(c, "http2");
        s->h2_hdr_wire = jcheck_count(c, h2, "header_bytes_wire", 0);
        s->h2_hdr_decoded = jcheck_count(c, h2, "header_bytes_decoded", 0);
        s->h2_retried = jcheck_count(c, h2, "retried", 0);
        jcheck_leave(c, at);
    }
    for (i = 0; i < H__COUNT; i++)
        load_hist(c, &s->h[i], o, stats_hist_name((enum hist_kind)i));
    if ((v = jcheck_obj(c, o, "latency", 0)) != NULL) {
        at = jcheck_enter(c, "latency");
        s->censored = jcheck_count(c, v, "censored", 0);
        s->censored_unsent = jcheck_count(c, v, "censored_unsent", 0);
        s->stamped_kernel = jcheck_count(c, v, "stamped_kernel", 0);
        s->stamped_user = jcheck_count(c, v, "stamped_user", 0);
        if (s->censored_unsent > s->censored)
            jcheck_fail(c, "censored_unsent", "above censored");
        jcheck_leave(c, at);
    }
}

/* Target i of a saved run gets its name and method back. */
static int load_target(struct jc *c, struct config *cfg, uint32_t i, const char *name, const char *method)
{
    size_t k;
    if (cfg->targets == NULL && (cfg->targets = calloc(cfg->nurls, sizeof(*cfg->targets))) == NULL)
        return jcheck_fail(c, "", "out of memory");
    if (method) {
        for (k = 0; method[k]; k++)
            if (!((method[k] >= 'A' && method[k] <= 'Z') || method[k] == '-' || method[k] == '_') || k > 32)
                return jcheck_fail(c, "method", "not an HTTP method");
        if ((cfg->targets[i].method = config_keep(cfg, method)) == NULL)
            return jcheck_fail(c, "", "out of memory");
    }
    if (name && (cfg->targets[i].name = config_keep(cfg, name)) == NULL)
        return jcheck_fail(c, "", "out of memory");
    cfg->targets[i].own = 1;
    return 0;
}


static void load_server(struct jc *c, struct monitor_result *m, json_t *sv)
{
    json_t *tree = jcheck_arr(c, sv, "tree", 0), *mt = jcheck_arr(c, sv, "memory_timeline", 0), *e;
    size_t i, at = jcheck_enter(c, "server");

    m->pid = (int)jcheck_num(c, sv, "pid", 0, 2147483647.0, 0);
    jcheck_copy(m->cgroup, sizeof(m->cgroup), jcheck_str(c, sv, "cgroup", 0));
    jcheck_copy(m->pss_note, sizeof(m->pss_note), jcheck_str(c, sv, "pss_note", 0));
    if (m->pss_note[0] == '\0')
        jcheck_copy(m->pss_note, sizeof(m->pss_note), "PSS not recorded");
    m->cpu_s = jcheck_num(c, sv, "cpu_s", 0, MAX_SECONDS, 1);
    m->cpus = jcheck_num(c, sv, "cpus", 0, 1e6, 0);
    m->write_bytes = jcheck_count(c, sv, "write_bytes", 0);
    m->has_io = json_object_get(sv, "write_bytes") != NULL;
    m->wchar = jcheck_count(c, sv, "wchar_bytes", 0);
    m->has_wchar = json_object_get(sv, "wchar_bytes") != NULL;
    m->cpu_exact = jcheck_bool(c, sv, "cpu_exact");
    m->has_pss = jcheck_bool(c, sv, "has_pss");
    m->pss_peak_bytes = jcheck_count(c, sv, "pss_peak_bytes", 0);
    /* Absent (results before it): the kernel's PSS, as they measured. */
    m->pss_own = jcheck_bool(c, sv, "pss_own");
    m->pss_sys_peak_bytes = json_object_get(sv, "pss_sys_peak_bytes") ? jcheck_count(c, sv, "pss_sys_peak_bytes", 0)
                                                                       : m->pss_peak_bytes;
    m->pss_mean_bytes = jcheck_count(c, sv, "pss_mean_bytes", 0);
    m->uss_peak_bytes = jcheck_count(c, sv, "uss_peak_bytes", 0);
    m->rss_peak_bytes = jcheck_count(c, sv, "rss_peak_bytes", 0);
    m->rss_mean_bytes = jcheck_count(c, sv, "rss_mean_bytes", 0);
    m->cg_memory_peak_bytes = jcheck_count(c, sv, "cgroup_memory_peak_bytes", 0);
    m->processes = (uint32_t)jcheck_num(c, sv, "processes", 0, 4294967295.0, 0);
    m->threads = (uint32_t)jcheck_num(c, sv, "threads", 0, 4294967295.0, 0);
    m->samples = (uint32_t)jcheck_num(c, sv, "samples", 0, 4294967295.0, 0);
    m->gone = jcheck_bool(c, sv, "exited");
    if (!c->failed && tree && json_array_size(tree) &&
        (m->procs = calloc(json_array_size(tree), sizeof(*m->procs))) != NULL) {
        json_array_foreach(tree, i, e) {
            struct monitor_proc *p = &m->procs[m->nprocs++];
            size_t a2 = jcheck_enter(c, "tree[%zu]", i);
            if (!json_is_object(e)) {
                jcheck_fail(c, "", "not an object");
                break;
            }
            p->pid = (int)jcheck_num(c, e, "pid", 0, 2147483647.0, 0);
            p->ppid = (int)jcheck_num(c, e, "ppid", 0, 2147483647.0, 0);
            jcheck_copy(p->command, sizeof(p->command), jcheck_str(c, e, "command", 0));
            p->cpu_s = jcheck_num(c, e, "cpu_s", 0, MAX_SECONDS, 0);
            p->rss_peak_bytes = jcheck_count(c, e, "rss_peak_bytes", 0);
            p->pss_peak_bytes = jcheck_count(c, e, "pss_peak_bytes", 0);
            p->uss_peak_bytes = jcheck_count(c, e, "uss_peak_bytes", 0);
            p->first_seen_s = jcheck_num(c, e, "first_seen_s", 0, MAX_SECONDS, 0);
            p->exited = jcheck_bool(c, e, "exited");
            jcheck_leave(c, a2);
        }
    }
    if (!c->failed && mt && json_array_size(mt) &&
        (m->series = calloc(json_array_size(mt), sizeof(*m->series))) != NULL) {
        json_array_foreach(mt, i, e) {
            struct monitor_point *p = &m->series[m->npoints++];
            size_t a2 = jcheck_enter(c, "memory_timeline[%zu]", i);
            p->t_s = jcheck_num(c, e, "t_s", 0, MAX_SECONDS, 1);
            p->pss_bytes = jcheck_count(c, e, "pss_bytes", 0);
            p->rss_bytes = jcheck_count(c, e, "rss_bytes", 0);
            p->processes = (uint32_t)jcheck_num(c, e, "processes", 0, 4294967295.0, 0);
            p->threads = (uint32_t)jcheck_num(c, e, "threads", 0, 4294967295.0, 0);
            jcheck_leave(c, a2);
        }
    }
    jcheck_leave(c, at);
}

/* The "config" object of a result into cfg; its strings are kept by cfg. */
static int load_config(struct jc *c, json_t *o, struct config *cfg)
{
    json_t *urls, *hs, *e;
    const char *ex, *arr, *m, *ct;
    char why[128];
    size_t i, n, at = jcheck_enter(c, "config");

    config_defaults(cfg);
    urls = jcheck_arr(c, o, "urls", 1);
    hs = jcheck_arr(c, o, "headers", 0);
    ex = jcheck_str(c, o, "expect", 0);
    arr = jcheck_str(c, o, "arrival", 0);
    m = jcheck_str(c, o, "method", 1);
    ct = jcheck_str(c, o, "content_type", 0);
    if (c->failed)
        goto out;
    n = json_array_size(urls);
    if (n > MAX_URLS) {
        jcheck_fail(c, "urls", "more than %d", MAX_URLS);
        goto out;
    }
    if ((cfg->url_text = calloc(n ? n : 1, sizeof(char *))) == NULL)
        goto oom;
    cfg->nurls = (uint32_t)n;
    for (i = 0; i < n; i++) {
        const char *u = json_string_value(json_array_get(urls, i));
        if (u == NULL) {
            jcheck_fail(c, "urls", "entry %zu is not a string", i);
            goto out;
        }
        if ((cfg->url_text[i] = config_keep(cfg, u)) == NULL)
            goto oom;
    }
    json_array_foreach(hs, i, e) {
        if (!json_is_string(e)) {
            jcheck_fail(c, "headers", "entry %zu is not a string", i);
            goto out;
        }
        if (config_add_header(cfg, json_string_value(e)) != 0)
            goto oom;
    }
    /* What rafale writes there is a token: anything else did not come from it. */
    for (i = 0; m[i]; i++)
        if (!((m[i] >= 'A' && m[i] <= 'Z') || (m[i] >= 'a' && m[i] <= 'z') || m[i] == '-' || m[i] == '_') || i > 32) {
            jcheck_fail(c, "method", "not an HTTP method");
            goto out;
        }
    if (i == 0 || (cfg->method = config_keep(cfg, m)) == NULL) {
        if (i == 0)
            jcheck_fail(c, "method", "empty");
        goto out;
    }
    if (ct && (cfg->content_type = config_keep(cfg, ct)) == NULL)
        goto oom;
    /* Every option the table gives a JSON key, read through the table. */
    opt_json_read(c, o, cfg);
    cfg->body_len = (size_t)jcheck_count(c, o, "body_bytes", 0);
    cfg->has_body = cfg->body_len > 0;
    if (ex && status_set_parse(ex, &cfg->expect, why, sizeof(why)) != 0)
        jcheck_fail(c, "expect", "not a status list: %s", why);
    cfg->poisson = arr && strcmp(arr, "poisson") == 0;
    {
        /* Results saved before kernel timestamps were user time. */
        const char *ts = jcheck_str(c, o, "timestamps", 0);
        cfg->user_timestamps = ts == NULL || strcmp(ts, "user") == 0;
    }
    {
        const char *ord = jcheck_str(c, o, "order", 0), *tp = jcheck_str(c, o, "targets", 0);
        cfg->order_mode = ord == NULL ? ORDER_DEFAULT : strcmp(ord, "sequential") == 0 ? ORDER_SEQUENTIAL
                          : strcmp(ord, "random") == 0 ? ORDER_RANDOM : strcmp(ord, "session") == 0 ? ORDER_SESSION
                                                                                                   : ORDER_DEFAULT;
        if (tp && (cfg->targets_path = config_keep(cfg, tp)) == NULL)
            goto oom;
        if (json_object_get(o, "seed")) {
            cfg->seed = jcheck_count(c, o, "seed", 0);
            cfg->seed_given = 1;
        }
    }
    {
        /* Think time and the --check list, as the run had them. */
        json_t *th = json_object_get(o, "think_s"), *ck = jcheck_arr(c, o, "checks", 0);
        size_t k;
        if (json_is_array(th) && json_array_size(th) == 2 && json_is_number(json_array_get(th, 0)) &&
            json_is_number(json_array_get(th, 1))) {
            double lo = json_number_value(json_array_get(th, 0)), hi = json_number_value(json_array_get(th, 1));
            if (!(lo >= 0 && lo <= hi && hi <= MAX_SECONDS))
                jcheck_fail(c, "think_s", "wants [low, high] seconds, 0 <= low <= high");
            else {
                cfg->think_lo_ns = (uint64_t)(lo * 1e9);
                cfg->think_hi_ns = (uint64_t)(hi * 1e9);
            }
        }
        if (json_object_get(o, "max_body"))
            cfg->max_body = jcheck_count(c, o, "max_body", 0);
        for (k = 0; ck && k < json_array_size(ck) && k < 1000; k++)
            if (json_is_string(json_array_get(ck, k)) &&
                config_add_check(cfg, json_string_value(json_array_get(ck, k))) != 0)
                goto oom;
    }
    {
        json_t *st = jcheck_arr(c, o, "stages", 0), *e;
        size_t k;
        const char *of = jcheck_str(c, o, "stages_of", 0);
        if (st && json_array_size(st) > 64)
            jcheck_fail(c, "stages", "more than 64 stages");
        json_array_foreach(st, k, e) {
            size_t a2 = jcheck_enter(c, "stages[%zu]", k);
            if (k >= 64)
                break;
            cfg->stage_dur[k] = jcheck_ns(c, e, "duration_s", 1);
            cfg->stage_val[k] = jcheck_num(c, e, "to", 0, 1e8, 1);
            jcheck_leave(c, a2);
            cfg->nstages = (uint32_t)k + 1;
        }
        cfg->stages_conns = of && strcmp(of, "connections") == 0;
        cfg->stage_start = jcheck_num(c, o, "stage_start", 0, 1e8, 0);
    }
out:
    jcheck_leave(c, at);
    return c->failed ? -1 : 0;
oom:
    jcheck_leave(c, at);
    jcheck_fail(c, "", "out of memory");
    return -1;
}

/* A shard's place ("shard") or a merged result's entry ("shards"). */
static void load_shard(struct jc *c, json_t *o, struct shard_info *sh, int merged)
{
    const char *host = jcheck_str(c, o, "host", 0);
    sh->index = (uint32_t)jcheck_num(c, o, "index", 0, 100000, 1);
    sh->count = (uint32_t)jcheck_num(c, o, "count", 1, 100000, 1);
    if (!c->failed && sh->index >= sh->count)
        jcheck_fail(c, "index", "%u is not below the count %u", sh->index, sh->count);
    jcheck_copy(sh->host, sizeof(sh->host), host);
    sh->start_unix_s = jcheck_num(c, o, "start_unix_s", 0, 1e11, 0);
    sh->late_s = jcheck_num(c, o, "late_s", 0, MAX_SECONDS, 0);
    sh->threads = (uint32_t)jcheck_num(c, o, "threads", 0, 1024, 0);
    if (merged) {
        sh->completed = jcheck_count(c, o, "requests", 1);
        sh->errors = jcheck_count(c, o, "errors", 0);
        sh->elapsed_s = load_elapsed(c, o, "elapsed_s", sh->completed, 0);
        sh->p99_ns = load_us(c, o, "p99_us", 0) * 1e3;
        sh->client_cpu_s = jcheck_num(c, o, "client_cpu_s", 0, MAX_SECONDS, 0);
    }
}

/* One run result object (what --json writes). */
/* The figures of each target (--targets) or URL. */
static int load_per_url(struct jc *c, json_t *pu, struct config *conf, struct engine_result *r)
{
    json_t *e;
    size_t i, n, at;
    /* A row per URL up to ENGINE_URL_FIGS and one for the others, as a run
     * writes them; a file with a row for every URL has the rows past the
     * limit folded into the others' row as they are read. */
    n = json_array_size(pu);
    if (n != engine_nfigs(conf->nurls) && n != conf->nurls)
        return jcheck_fail(c, "per_url", "%zu entries for %u URLs", n, conf->nurls);
    r->nurls = engine_nfigs(conf->nurls);
    r->per_url = calloc(r->nurls ? r->nurls : 1, sizeof(struct stats));
    r->url_in_flight = calloc(r->nurls ? r->nurls : 1, sizeof(uint64_t));
    if (r->per_url == NULL || r->url_in_flight == NULL)
        return jcheck_fail(c, "", "out of memory");
    for (i = 0; i < r->nurls; i++)
        stats_init(&r->per_url[i]);
    for (i = 0; i < n && !c->failed; i++) {
        e = json_array_get(pu, i);
        at = jcheck_enter(c, "per_url[%zu]", i);
        if (i > ENGINE_URL_FIGS) {
            struct stats one;
            uint64_t fl = 0;
            stats_init(&one);
            if (json_is_object(e))
                load_stats(c, &one, e, &fl);
            else
                jcheck_fail(c, "", "not an object");
            stats_merge(&r->per_url[ENGINE_URL_FIGS], &one);
            r->url_in_flight[ENGINE_URL_FIGS] += fl;
            stats_fini(&one);
        } else if (!json_is_object(e)) {
            jcheck_fail(c, "", "not an object");
        } else {
            const char *nm = jcheck_str(c, e, "name", 0), *me = jcheck_str(c, e, "method", 0);
            load_stats(c, &r->per_url[i], e, &r->url_in_flight[i]);
            /* A target of its own (--targets): its name and method. */
            if (!report_is_other(conf, (uint32_t)i) && (nm || conf->targets_path || (me && strcmp(me, conf->method) != 0)) &&
                load_target(c, conf, (uint32_t)i, nm, me) != 0)
                break;
        }
        jcheck_leave(c, at);
    }
    return c->failed ? -1 : 0;
}

/* The per-second timeline, with its histograms when a shard saved them. */
static int load_timeline(struct jc *c, json_t *tl, struct engine_result *r)
{
    json_t *e;
    size_t i, at;
    if (tl && json_array_size(tl) && !c->failed) {
        r->nseconds = (uint32_t)json_array_size(tl);
        r->timeline = calloc(r->nseconds, sizeof(*r->timeline));
        if (r->timeline == NULL)
            return jcheck_fail(c, "", "out of memory");
        /* A shard's seconds come with their histograms; all or none. */
        if (json_object_get(json_array_get(tl, 0), "latency")) {
            if ((r->tl_hist = calloc(r->nseconds, sizeof(*r->tl_hist))) == NULL)
                return jcheck_fail(c, "", "out of memory");
            for (i = 0; i < r->nseconds; i++)
                hist_init_bits(&r->tl_hist[i], TL_SUB_BITS);
        }
        json_array_foreach(tl, i, e) {
            at = jcheck_enter(c, "timeline[%zu]", i);
            r->timeline[i].requests = jcheck_count(c, e, "requests", 1);
            r->timeline[i].errors = jcheck_count(c, e, "errors", 0);
            r->timeline[i].p50_ns = load_us(c, e, "p50_us", 0) * 1e3;
            r->timeline[i].p99_ns = load_us(c, e, "p99_us", 0) * 1e3;
            r->timeline[i].max_ns = load_us(c, e, "max_us", 0) * 1e3;
            if (r->tl_hist) {
                load_hist(c, &r->tl_hist[i], e, "latency");
                if (!c->failed && r->tl_hist[i].total != r->timeline[i].requests)
                    jcheck_fail(c, "latency", "%llu values for %llu requests", (unsigned long long)r->tl_hist[i].total,
                         (unsigned long long)r->timeline[i].requests);
            }
            jcheck_leave(c, at);
            if (c->failed)
                break;
        }
    }
    return c->failed ? -1 : 0;
}

/* --stages: each stage's figures. */
static int load_stages(struct jc *c, json_t *tl, const struct config *conf, struct engine_result *r)
{
    json_t *e;
    size_t i, at;
    if (tl && json_array_size(tl) && !c->failed) {
        if (json_array_size(tl) != conf->nstages)
            return jcheck_fail(c, "stages", "%zu results for %u stages", json_array_size(tl), conf->nstages);
        r->nstages = (uint32_t)json_array_size(tl);
        if ((r->per_stage = calloc(r->nstages, sizeof(*r->per_stage))) == NULL)
            return jcheck_fail(c, "", "out of memory");
        json_array_foreach(tl, i, e) {
            struct stats *g = &r->per_stage[i];
            at = jcheck_enter(c, "stages[%zu]", i);
            stats_init(g);
            g->started = jcheck_count(c, e, "sent", 1);
            g->completed = jcheck_count(c, e, "completed", 1);
            g->errors[ERR_TIMEOUT_ANSWER] = jcheck_count(c, e, "errors", 0); /* only their number is shown */
            load_hist(c, &g->h[H_LATENCY], e, "latency");
            jcheck_leave(c, at);
            if (c->failed)
                break;
        }
    }
    return c->failed ? -1 : 0;
}

/* A saved "findings" array: ids, severities and texts as written, each
 * evidence value a finite number. */
static void load_findings(struct jc *c, json_t *arr, struct findings *fs)
{
    json_t *e;
    size_t i;
    memset(fs, 0, sizeof(*fs));
    json_array_foreach(arr, i, e) {
        size_t at = jcheck_enter(c, "findings[%zu]", i);
        struct finding *f;
        json_t *ev = jcheck_obj(c, e, "evidence", 0), *v;
        const char *k, *sev;
        if (!c->failed && !json_is_object(e))
            jcheck_fail(c, "", "not an object");
        if (c->failed || fs->n == FINDINGS_MAX) {
            jcheck_leave(c, at);
            break;
        }
        f = &fs->f[fs->n++];
        jcheck_copy(f->id, sizeof(f->id), jcheck_str(c, e, "id", 1));
        sev = jcheck_str(c, e, "severity", 1);
        if (sev && strcmp(sev, "warning") != 0 && strcmp(sev, "info") != 0)
            jcheck_fail(c, "severity", "neither warning nor info");
        f->warning = sev && strcmp(sev, "warning") == 0;
        jcheck_copy(f->summary, sizeof(f->summary), jcheck_str(c, e, "summary", 1));
        jcheck_copy(f->advice, sizeof(f->advice), jcheck_str(c, e, "advice", 0));
        /* One line each in the text report, whatever the file holds. */
        text_scrub(f->id, strlen(f->id), 1);
        text_scrub(f->summary, strlen(f->summary), 1);
        text_scrub(f->advice, strlen(f->advice), 1);
        if (ev)
            json_object_foreach(ev, k, v) {
                if (f->nev == FINDING_EV_MAX)
                    break;
                if (json_is_null(v))
                    continue; /* a figure that could not be had */
                if (!json_is_number(v) || !isfinite(json_number_value(v))) {
                    jcheck_fail(c, k, "not a number");
                    break;
                }
                jcheck_copy(f->ev[f->nev].key, sizeof(f->ev[f->nev].key), k);
                f->ev[f->nev++].v = json_number_value(v);
            }
        jcheck_leave(c, at);
    }
}

static void load_env(struct jc *c, json_t *cl, struct machine *m)
{
    json_t *pr = json_object_get(cl, "ip_local_port_range");
    size_t at = jcheck_enter(c, "environment");
    jcheck_copy(m->cpu_model, sizeof(m->cpu_model), jcheck_str(c, cl, "cpu_model", 0));
    m->cpus_online = (int)jcheck_num(c, cl, "cpus_online", 1, 1e6, 1);
    if (json_is_string(json_object_get(cl, "governor")))
        jcheck_copy(m->governor, sizeof(m->governor), jcheck_str(c, cl, "governor", 0));
    m->boost = json_is_boolean(json_object_get(cl, "boost")) ? json_is_true(json_object_get(cl, "boost")) : -1;
    jcheck_copy(m->kernel, sizeof(m->kernel), jcheck_str(c, cl, "kernel", 0));
    jcheck_copy(m->version, sizeof(m->version), jcheck_str(c, cl, "rafale_version", 0));
    jcheck_copy(m->build, sizeof(m->build), jcheck_str(c, cl, "build", 0));
    m->somaxconn = (long long)jcheck_num(c, cl, "somaxconn", -1, 1e12, 0);
    m->port_lo = m->port_hi = -1;
    if (json_is_array(pr) && json_array_size(pr) == 2 && json_is_integer(json_array_get(pr, 0)) &&
        json_is_integer(json_array_get(pr, 1))) {
        m->port_lo = json_integer_value(json_array_get(pr, 0));
        m->port_hi = json_integer_value(json_array_get(pr, 1));
    }
    jcheck_leave(c, at);
}

void report_load_ref(struct jc *c, json_t *o, struct machine_ref *ref)
{
    size_t at = jcheck_enter(c, "calibration");
    json_t *ci = json_object_get(o, "rps_ci"), *env;
    memset(ref, 0, sizeof(*ref));
    ref->when_unix_s = jcheck_num(c, o, "when_unix_s", 0, 1e11, 1);
    jcheck_copy(ref->workload, sizeof(ref->workload), jcheck_str(c, o, "workload", 1));
    jcheck_copy(ref->pin, sizeof(ref->pin), jcheck_str(c, o, "pin", 0));
    ref->rps = jcheck_num(c, o, "rps", 0, 1e12, 1);
    ref->rps_ci[0] = ref->rps_ci[1] = NAN;
    if (json_is_array(ci) && json_array_size(ci) == 2 && json_is_number(json_array_get(ci, 0)) &&
        json_is_number(json_array_get(ci, 1))) {
        ref->rps_ci[0] = json_number_value(json_array_get(ci, 0));
        ref->rps_ci[1] = json_number_value(json_array_get(ci, 1));
        if (!(ref->rps_ci[0] >= 0 && ref->rps_ci[0] <= ref->rps_ci[1] && ref->rps_ci[1] <= 1e12))
            jcheck_fail(c, "rps_ci", "wants [low, high] with 0 <= low <= high");
    }
    ref->p50_us = load_us(c, o, "p50_us", 0);
    ref->p99_us = load_us(c, o, "p99_us", 0);
    if ((env = jcheck_obj(c, o, "environment", 1)) != NULL)
        load_env(c, env, &ref->m);
    jcheck_leave(c, at);
    ref->known = !c->failed;
}

/* "checks" and "skipped_by_variable". */
static void load_checks(struct jc *c, json_t *root, struct engine_result *r, uint32_t nurls)
{
    json_t *arr = jcheck_arr(c, root, "checks", 0), *sv = jcheck_obj(c, root, "skipped_by_variable", 0), *v;
    const char *k;
    size_t i, at;
    r->parked = (uint32_t)jcheck_num(c, root, "parked_connections", 0, 4294967295.0, 0);
    if (arr && json_array_size(arr)) {
        if (json_array_size(arr) > 100000) {
            jcheck_fail(c, "checks", "more than 100000 checks");
            return;
        }
        if ((r->checks = calloc(json_array_size(arr), sizeof(*r->checks))) == NULL) {
            jcheck_fail(c, "checks", "out of memory");
            return;
        }
        r->nchecks = (uint32_t)json_array_size(arr);
        for (i = 0; i < r->nchecks && !c->failed; i++) {
            json_t *e = json_array_get(arr, i);
            struct engine_check *x = &r->checks[i];
            at = jcheck_enter(c, "checks[%zu]", i);
            if (!json_is_object(e)) {
                jcheck_fail(c, "", "not an object");
                break;
            }
            x->url = (uint32_t)jcheck_num(c, e, "target_index", 0, nurls ? nurls - 1 : 0, 1);
            jcheck_copy(x->text, sizeof(x->text), jcheck_str(c, e, "check", 1));
            x->passed = jcheck_count(c, e, "passed", 1);
            x->failed = jcheck_count(c, e, "failed", 1);
            if (json_is_string(json_object_get(e, "first_failure")))
                jcheck_copy(x->first_failure, sizeof(x->first_failure), jcheck_str(c, e, "first_failure", 0));
            jcheck_leave(c, at);
        }
    }
    if (sv && json_object_size(sv)) {
        if (json_object_size(sv) > 64) {
            jcheck_fail(c, "skipped_by_variable", "more than 64 variables");
            return;
        }
        r->var_names = calloc(json_object_size(sv), sizeof(*r->var_names));
        r->skipped_var = calloc(json_object_size(sv), sizeof(*r->skipped_var));
        if (r->var_names == NULL || r->skipped_var == NULL) {
            jcheck_fail(c, "skipped_by_variable", "out of memory");
            return;
        }
        at = jcheck_enter(c, "skipped_by_variable");
        json_object_foreach(sv, k, v) {
            jcheck_copy(r->var_names[r->nvars], sizeof(r->var_names[0]), k);
            r->skipped_var[r->nvars++] = jcheck_count(c, sv, k, 1);
        }
        jcheck_leave(c, at);
    }
}

static int load_run(struct jc *c, json_t *root, struct loaded_run *run)
{
    json_t *cfg = jcheck_obj(c, root, "config", 1), *pu = jcheck_arr(c, root, "per_url", 1), *e, *sv, *cl, *rt;
    struct config *conf = &run->cfg;
    struct engine_result *r = &run->res;
    size_t i, at;

    memset(run, 0, sizeof(*run));
    if (c->failed || !json_object_get(root, "summary")) {
        if (!c->failed)
            jcheck_fail(c, "summary", "missing");
        snprintf(c->err + strlen(c->err), c->errlen - strlen(c->err), " (not a rafale result, saved with --json)");
        return -1;
    }
    if (load_config(c, cfg, conf) != 0 || stats_init(&r->total) != 0)
        return -1;
    if (load_per_url(c, pu, conf, r) != 0)
        return -1;
    load_checks(c, root, r, conf->nurls);
    if ((e = jcheck_obj(c, root, "aborted", 0)) != NULL) {
        at = jcheck_enter(c, "aborted");
        r->aborted = 1;
        r->aborted_at_s = jcheck_num(c, e, "at_s", 0, MAX_SECONDS, 1);
        jcheck_copy(r->aborted_why, sizeof(r->aborted_why), jcheck_str(c, e, "why", 1));
        jcheck_leave(c, at);
    }
    load_stats(c, &r->total, root, &r->in_flight);
    at = jcheck_enter(c, "summary");
    r->elapsed_s = load_elapsed(c, json_object_get(root, "summary"), "elapsed_s", r->total.completed, 1);
    jcheck_leave(c, at);
    r->interrupted = jcheck_bool(c, root, "interrupted");
    cl = jcheck_obj(c, root, "client", 0);
    r->all_connected_s = -1;
    if (cl) {
        at = jcheck_enter(c, "client");
        r->client_cpu_s = jcheck_num(c, cl, "cpu_s", 0, MAX_SECONDS, 0);
        if (json_object_get(cl, "all_connected_s"))
            r->all_connected_s = jcheck_num(c, cl, "all_connected_s", -1, MAX_SECONDS, 0);
        jcheck_leave(c, at);
    }
    r->in_flight_oldest_s = jcheck_num(c, json_object_get(root, "summary"), "in_flight_oldest_s", 0, MAX_SECONDS, 0);
    if ((cl = jcheck_obj(c, root, "connections", 0)) != NULL) {
        struct engine_conns *cn = &r->conns;
        at = jcheck_enter(c, "connections");
        cn->clients = (uint32_t)jcheck_num(c, cl, "clients", 0, 4294967295.0, 0);
        cn->req_min = jcheck_count(c, cl, "requests_min", 0);
        cn->req_median = jcheck_count(c, cl, "requests_median", 0);
        cn->req_max = jcheck_count(c, cl, "requests_max", 0);
        cn->starved = (uint32_t)jcheck_num(c, cl, "starved", 0, cn->clients, 0);
        cn->longest_wait_s = load_us(c, cl, "longest_wait_us", 0) / 1e6;
        cn->starved_wait_s = load_us(c, cl, "starved_wait_us", 0) / 1e6;
        cn->wait_limit_s = load_us(c, cl, "wait_limit_us", 0) / 1e6;
        cn->server_ended = jcheck_count(c, cl, "server_ended", 0);
        cn->ended_mode = jcheck_count(c, cl, "server_ended_mode", 0);
        cn->ended_mode_count = jcheck_count(c, cl, "server_ended_mode_count", 0);
        if (cn->req_min > cn->req_median || cn->req_median > cn->req_max)
            jcheck_fail(c, "requests_median", "not between requests_min and requests_max");
        if (cn->ended_mode_count > cn->server_ended)
            jcheck_fail(c, "server_ended_mode_count", "above server_ended");
        jcheck_leave(c, at);
    }
    if ((cl = jcheck_obj(c, root, "environment", 0)) != NULL)
        load_env(c, cl, &r->env);
    if ((cl = jcheck_obj(c, root, "calibration", 0)) != NULL)
        report_load_ref(c, cl, &r->ref);
    r->noise.nr_throttled = -1;
    if ((cl = jcheck_obj(c, root, "noise", 0)) != NULL) {
        at = jcheck_enter(c, "noise");
        if (json_is_number(json_object_get(cl, "foreign_cpu_pct"))) {
            r->noise.known = 1;
            r->noise.foreign_cpu_pct = jcheck_num(c, cl, "foreign_cpu_pct", 0, 100000, 0);
            r->noise.steal_pct = jcheck_num(c, cl, "steal_pct", 0, 100000, 0);
        }
        if (json_is_number(json_object_get(cl, "nr_throttled")))
            r->noise.nr_throttled = (long long)jcheck_num(c, cl, "nr_throttled", 0, 1e15, 0);
        jcheck_leave(c, at);
    }
    tcpinfo_sum_init(&r->tcp);
    if ((cl = jcheck_obj(c, root, "tcp", 0)) != NULL) {
        double mn;
        at = jcheck_enter(c, "tcp");
        r->tcp.sampled = jcheck_count(c, cl, "sampled", 0);
        r->tcp.segs_out = jcheck_count(c, cl, "segments_out", 0);
        r->tcp.retrans = jcheck_count(c, cl, "retransmits", 0);
        r->tcp.rtt_sum_us = load_us(c, cl, "rtt_mean_us", 0) * (double)r->tcp.sampled;
        mn = load_us(c, cl, "rtt_min_us", 0);
        r->tcp.min_rtt_us = mn > 0 ? (uint32_t)mn : UINT32_MAX;
        jcheck_leave(c, at);
    }
    r->start_unix_s = jcheck_num(c, root, "start_unix_s", 0, 1e11, 0);
    if ((rt = jcheck_obj(c, root, "shard", 0)) != NULL) {
        at = jcheck_enter(c, "shard");
        load_shard(c, rt, &r->shard, 0);
        jcheck_leave(c, at);
    }
    if ((rt = jcheck_arr(c, root, "shards", 0)) != NULL && json_array_size(rt) && !c->failed) {
        if (json_array_size(rt) > 100000)
            return jcheck_fail(c, "shards", "more than 100000");
        r->nshards = (uint32_t)json_array_size(rt);
        if ((r->shards = calloc(r->nshards, sizeof(*r->shards))) == NULL)
            return jcheck_fail(c, "", "out of memory");
        json_array_foreach(rt, i, e) {
            at = jcheck_enter(c, "shards[%zu]", i);
            load_shard(c, e, &r->shards[i], 1);
            jcheck_leave(c, at);
            if (c->failed)
                break;
        }
    }
    rt = jcheck_obj(c, root, "rate", 0);
    if (rt) {
        at = jcheck_enter(c, "rate");
        r->target_rate = jcheck_num(c, rt, "target_rps", 0, 1e8, 0);
        r->queued = jcheck_count(c, rt, "queued", 0);
        r->extra_connections = (uint32_t)jcheck_num(c, rt, "extra_connections", 0, 10000000, 0);
        jcheck_leave(c, at);
    }
    sv = jcheck_obj(c, root, "server", 0);
    if (sv && !c->failed) {
        run->has_server = 1;
        load_server(c, &run->server, sv);
    }
    if ((rt = jcheck_arr(c, root, "findings", 0)) != NULL) {
        load_findings(c, rt, &run->found);
        run->has_findings = 1;
    }
    if (load_timeline(c, jcheck_arr(c, root, "timeline", 0), r) != 0)
        return -1;
    if (load_stages(c, jcheck_arr(c, root, "stages", 0), conf, r) != 0)
        return -1;
    return c->failed ? -1 : 0;
}

static void loaded_run_free(struct loaded_run *run)
{
    engine_result_free(&run->res);
    monitor_result_free(&run->server);
    config_free(&run->cfg);
}


static void cpu_list(struct jc *c, json_t *o, const char *key, int *out, int *n)
{
    json_t *list = jcheck_arr(c, o, key, 0), *e;
    size_t i;
    json_array_foreach(list, i, e) {
        if (!json_is_integer(e) || json_integer_value(e) < 0 || json_integer_value(e) > 1023) {
            jcheck_fail(c, key, "entry %zu is not a CPU number", i);
            return;
        }
        if (*n < CMP_MAX_CPUS)
            out[(*n)++] = (int)json_integer_value(e);
    }
}

/* A compare result: the plan as far as the reports need it, and every run. */
static int load_compare(struct jc *c, json_t *cmp, struct loaded *out)
{
    struct cmp_plan *p = &out->plan;
    struct cmp_result *r = &out->cmp;
    json_t *svs, *wls, *e;
    const char *note;
    struct machine_ref ref;
    size_t k, at;
    int s, w;

    jcheck_enter(c, "compare");
    svs = jcheck_arr(c, cmp, "servers", 1);
    wls = jcheck_arr(c, cmp, "workloads", 1);
    note = jcheck_str(c, cmp, "note", 0);
    memset(&ref, 0, sizeof(ref));
    if (jcheck_obj(c, cmp, "calibration", 0))
        report_load_ref(c, jcheck_obj(c, cmp, "calibration", 0), &ref);
    if (c->failed)
        return -1;
    if (json_array_size(svs) == 0 || json_array_size(wls) == 0 || json_array_size(svs) > 10000 ||
        json_array_size(wls) > 10000)
        return jcheck_fail(c, "servers", "a compare needs 1 to 10000 servers and workloads");
    config_cmp_defaults(&p->set);
    p->file = jcheck_dup(c, cmp, "plan", NULL);
    p->set.repeat = (int)jcheck_num(c, cmp, "repeat", 0, 1000, 0);
    p->set.repeat_auto = jcheck_bool(c, cmp, "repeat_auto");
    /* Results from before same-within: the band they now read with. */
    if (json_object_get(cmp, "same_within"))
        p->set.same_within = jcheck_num(c, cmp, "same_within", 0.001, 0.5, 0);
    p->set.discard = (int)jcheck_num(c, cmp, "discard", 0, 100, 0);
    p->set.grace_ns = jcheck_ns(c, cmp, "grace_s", 0);
    p->set.ready_ns = jcheck_ns(c, cmp, "ready_timeout_s", 0);
    cpu_list(c, cmp, "server_cpus", p->set.server_cpus, &p->set.nserver_cpus);
    cpu_list(c, cmp, "client_cpus", p->set.client_cpus, &p->set.nclient_cpus);
    {
        const char *pin = jcheck_str(c, cmp, "pin", 0);
        p->set.pin = pin && strcmp(pin, "auto") == 0 ? PIN_CHOSE : pin && strcmp(pin, "no") == 0 ? PIN_NO : 0;
    }
    p->nservers = (int)json_array_size(svs);
    p->nworkloads = (int)json_array_size(wls);
    p->servers = calloc((size_t)p->nservers, sizeof(*p->servers));
    p->workloads = calloc((size_t)p->nworkloads, sizeof(*p->workloads));
    if (p->servers == NULL || p->workloads == NULL)
        return jcheck_fail(c, "", "out of memory");
    for (s = 0; s < p->nservers && !c->failed; s++) {
        struct cmp_server *sv = &p->servers[s];
        e = json_array_get(svs, (size_t)s);
        at = jcheck_enter(c, "servers[%d]", s);
        if (!json_is_object(e)) {
            jcheck_fail(c, "", "not an object");
            break;
        }
        sv->name = jcheck_dup(c, e, "name", "?");
        sv->url = jcheck_dup(c, e, "url", "");
        sv->start = jcheck_dup(c, e, "start", NULL);
        sv->cgroup = jcheck_dup(c, e, "cgroup", NULL);
        sv->version = jcheck_dup(c, e, "version", NULL);
        sv->pid = (int)jcheck_num(c, e, "pid", 0, 2147483647.0, 0);
        jcheck_leave(c, at);
    }
    {
        const char *base = jcheck_str(c, cmp, "baseline", 0);
        for (s = 0; base && s < p->nservers && !c->failed; s++)
            if (strcmp(p->servers[s].name, base) == 0)
                p->baseline = s + 1;
    }
    for (w = 0; w < p->nworkloads && !c->failed; w++) {
        struct cmp_workload *wl = &p->workloads[w];
        e = json_array_get(wls, (size_t)w);
        at = jcheck_enter(c, "workloads[%d]", w);
        if (!json_is_object(e)) {
            jcheck_fail(c, "", "not an object");
            break;
        }
        wl->name = jcheck_dup(c, e, "name", "?");
        wl->path = jcheck_dup(c, e, "path", "/");
        if (load_config(c, jcheck_obj(c, e, "config", 1), &wl->cfg) != 0)
            break;
        /* The workload itself has no URL: each server has its own. */
        free(wl->cfg.url_text);
        wl->cfg.url_text = NULL;
        wl->cfg.nurls = 0;
        jcheck_leave(c, at);
    }
    if (c->failed)
        return -1;
    if (compare_result_init(r, p) != 0)
        return jcheck_fail(c, "", "out of memory");
    r->interrupted = jcheck_bool(c, cmp, "interrupted");
    r->cgroups = jcheck_bool(c, cmp, "cgroups");
    r->ref = ref;
    jcheck_copy(r->note, sizeof(r->note), note);
    for (s = 0; s < p->nservers; s++) {
        json_t *sv = json_array_get(svs, (size_t)s);
        r->failed[s] = jcheck_bool(c, sv, "failed");
        jcheck_copy(r->failure[s], CMP_WHY_MAX, jcheck_str(c, sv, "reason", 0));
        jcheck_copy(r->output[s], CMP_OUTPUT_MAX + 1, jcheck_str(c, sv, "output", 0));
    }
    for (w = 0; w < p->nworkloads && !c->failed; w++) {
        /* Did the servers answer alike: true, a list of differences, or
         * null (not checked; older files have no key). */
        json_t *al = json_object_get(json_array_get(wls, (size_t)w), "alike"), *d;
        size_t i;
        at = jcheck_enter(c, "workloads[%d]", w);
        jcheck_copy(r->alike[w].cut, sizeof(r->alike[w].cut),
                    jcheck_str(c, json_array_get(wls, (size_t)w), "alike_cut", 0));
        jcheck_leave(c, at);
        at = jcheck_enter(c, "workloads[%d].alike", w);
        r->alike[w].checked = json_is_true(al) || json_is_array(al);
        json_array_foreach(al, i, d) {
            const char *srv = json_string_value(json_object_get(d, "server"));
            const char *field = json_string_value(json_object_get(d, "field"));
            const char *value = json_string_value(json_object_get(d, "value"));
            struct cmp_difference *n;
            for (s = 0; srv && s < p->nservers; s++)
                if (strcmp(p->servers[s].name, srv) == 0)
                    break;
            if (srv == NULL || field == NULL || value == NULL || s == p->nservers) {
                jcheck_fail(c, "", "[%zu]: not a {field, server, value} of a server of the plan", i);
                break;
            }
            if (i > 10000 || (n = realloc(r->alike[w].diff, (i + 1) * sizeof(*n))) == NULL) {
                jcheck_fail(c, "", "too many differences");
                break;
            }
            r->alike[w].diff = n;
            n[i].server = s;
            jcheck_copy(n[i].field, sizeof(n[i].field), field);
            jcheck_copy(n[i].value, sizeof(n[i].value), value);
            r->alike[w].ndiff = (int)i + 1;
        }
        jcheck_leave(c, at);
    }
    for (w = 0; w < p->nworkloads && !c->failed; w++) {
        json_t *cells = jcheck_arr(c, json_array_get(wls, (size_t)w), "servers", 1);
        if (cells && json_array_size(cells) != (size_t)p->nservers) {
            jcheck_fail(c, "servers", "workload %d has %zu results for %d servers", w, json_array_size(cells), p->nservers);
            break;
        }
        for (s = 0; s < p->nservers && !c->failed; s++) {
            json_t *cell = json_array_get(cells, (size_t)s), *runs, *ro;
            struct compare_cell *cc = compare_cell(r, w, s);
            at = jcheck_enter(c, "workloads[%d].servers[%d]", w, s);
            runs = jcheck_arr(c, cell, "run_results", 0);
            cc->url = jcheck_dup(c, cell, "url", NULL);
            json_array_foreach(runs, k, ro) {
                struct loaded_run lr;
                size_t a2 = jcheck_enter(c, "run_results[%zu]", k);
                if (load_run(c, ro, &lr) != 0 || compare_add_run(cc, &lr.res, lr.has_server ? &lr.server : NULL) != 0) {
                    if (!c->failed)
                        jcheck_fail(c, "", "out of memory");
                    loaded_run_free(&lr);
                    break;
                }
                cc->runs[cc->nruns - 1].found = lr.found;
                if (lr.cfg.nurls > 1 || lr.cfg.targets_path) {
                    /* A run of targets keeps its own URLs. */
                    struct compare_run *run = &cc->runs[cc->nruns - 1];
                    if ((run->cfg = malloc(sizeof(*run->cfg))) != NULL) {
                        *run->cfg = lr.cfg;
                        memset(&lr.cfg, 0, sizeof(lr.cfg));
                    }
                }
                loaded_run_free(&lr);
                jcheck_leave(c, a2);
            }
            jcheck_leave(c, at);
        }
    }
    if (c->failed)
        return -1;
    compare_summarize(p, r);
    return 0;
}


int report_load_root(json_t *root, const char *path, struct loaded *out, char *err, size_t errlen)
{
    struct jc c = { path, err, errlen, 0, "" };
    json_t *cmp;

    memset(out, 0, sizeof(*out));
    if (!json_is_object(root)) {
        snprintf(err, errlen, "%s: not a rafale result (saved with --json)", path);
        return -1;
    }
    jcheck_scrub(root, 0);
    cmp = json_object_get(root, "compare");
    if (json_is_object(cmp)) {
        out->is_compare = 1;
        return load_compare(&c, cmp, out);
    }
    return load_run(&c, root, &out->run);
}

/* What the parser reads through: the file, counted, refused past the cap
 * (a pipe has no size to check first). */
struct capped {
    FILE *f;
    size_t read;
    int over, err;
};

static size_t capped_read(void *buf, size_t len, void *data)
{
    struct capped *c = data;
    size_t n = fread(buf, 1, len, c->f);
    if (n == 0 && ferror(c->f)) {
        c->err = errno ? errno : EIO;
        return (size_t)-1;
    }
    c->read += n;
    if (c->read > ((size_t)REPORT_LOAD_MAX_MIB << 20)) {
        c->over = 1;
        return (size_t)-1;
    }
    return n;
}

json_t *report_load_json(const char *path, char *err, size_t errlen)
{
    json_error_t je;
    struct capped c = { fopen(path, "rb"), 0, 0, 0 };
    struct stat st;
    json_t *root = NULL;
    if (c.f == NULL) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    if (fstat(fileno(c.f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > ((off_t)REPORT_LOAD_MAX_MIB << 20))
        c.over = 1;
    else
        root = json_load_callback(capped_read, &c, 0, &je);
    if (c.over)
        snprintf(err, errlen, "%s: larger than %d MiB", path, REPORT_LOAD_MAX_MIB);
    else if (root == NULL && c.err)
        snprintf(err, errlen, "%s: %s", path, strerror(c.err));
    else if (root == NULL) {
        snprintf(err, errlen, "%s:%d: not JSON: %s", path, je.line, je.text);
        text_scrub(err, strlen(err), 1); /* jansson's text may quote the file's bytes */
    }
    fclose(c.f);
    /* Whatever reads it (a result, the calibration cache), its strings
     * may reach a terminal. */
    if (root != NULL)
        jcheck_scrub(root, 0);
    return root;
}

int report_load(const char *path, struct loaded *out, char *err, size_t errlen)
{
    json_t *root;
    int rc;

    memset(out, 0, sizeof(*out));
    if ((root = report_load_json(path, err, errlen)) == NULL)
        return -1;
    rc = report_load_root(root, path, out, err, errlen);
    json_decref(root);
    return rc;
}

void report_load_free(struct loaded *l)
{
    if (l->is_compare) {
        compare_result_free(&l->cmp);
        compare_file_free(&l->plan);
    } else {
        loaded_run_free(&l->run);
    }
    memset(l, 0, sizeof(*l));
}
