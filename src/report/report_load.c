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
#include "report_keys.h"
#include "jread.h"
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

/* A histogram: [upper_bound_us, count] pairs, bounds increasing, counts
 * adding up to the count; min <= max within the clamp. */
static void load_hist(struct jc *c, struct hist *h, json_t *parent, const char *key)
{
    json_t *o = jread_obj(c, parent, key, 0), *list, *e;
    size_t i, at;
    double prev = 0, mean, sd, mn, mx;
    uint64_t total, sum = 0;
    struct report_hist_head head;
    if (o == NULL)
        return;
    at = jread_enter(c, "%s", key);
    report_keys_read(c, o, &report_keys_hist, &head);
    total = head.count;
    mn = head.min_us;
    mx = head.max_us;
    mean = head.mean_us;
    sd = head.stdev_us;
    list = jread_arr(c, o, "histogram", 1);
    if (c->failed) {
        jread_leave(c, at);
        return;
    }
    if (mn > mx)
        jread_fail(c, RKH(RKH_MIN), "above %s", RKH(RKH_MAX));
    json_array_foreach(list, i, e) {
        double ub = json_number_value(json_array_get(e, 0)), n = json_number_value(json_array_get(e, 1));
        char idx[32];
        snprintf(idx, sizeof(idx), "histogram[%zu]", i);
        if (!json_is_array(e) || json_array_size(e) != 2 || !json_is_number(json_array_get(e, 0)) ||
            !json_is_number(json_array_get(e, 1))) {
            jread_fail(c, idx, "not a [upper_bound_us, count] pair");
            break;
        }
        if (!isfinite(ub) || ub <= prev || ub < MIN_US || ub > MAX_US) {
            jread_fail(c, idx, "bucket bound %g is not above the previous one (%g) or out of range", ub, prev);
            break;
        }
        if (!isfinite(n) || n < 0 || n > MAX_COUNT || n != floor(n)) {
            jread_fail(c, idx, "count %g is not a whole number from 0", n);
            break;
        }
        prev = ub;
        sum += (uint64_t)n;
        /* The bucket's upper bound is exclusive: one below it falls inside. */
        hist_record_n(h, ub * 1e3 >= 1 ? (uint64_t)(ub * 1e3) - 1 : 0, (uint64_t)n);
    }
    if (!c->failed && sum != total)
        jread_fail(c, RKH(RKH_COUNT), "%llu, but the buckets add up to %llu", (unsigned long long)total, (unsigned long long)sum);
    if (!c->failed && h->total) {
        struct hist_iter it;
        uint64_t lo0 = 0, hi0 = 0, lo1 = 0, hi1 = 0, first = 1;
        /* The extremes lie in the first and the last bucket: every count
         * of a histogram lies between them (hist.c reads its band so). */
        for (hist_iter_init(&it, h); hist_iter_next(&it);) {
            if (first) {
                lo0 = it.lo;
                hi0 = it.hi;
                first = 0;
            }
            lo1 = it.lo;
            hi1 = it.hi;
        }
        h->min = (uint64_t)(mn * 1e3 + 0.5);
        h->max = (uint64_t)(mx * 1e3 + 0.5);
        if (h->min < lo0 || h->min >= hi0 || h->max < lo1 || h->max >= hi1)
            jread_fail(c, RKH(RKH_MIN), "%.3f and %s %.3f are not in the first and last buckets", mn, RKH(RKH_MAX),
                       mx);
        h->sum = mean * 1e3 * (double)h->total;
        h->sumsq = (double)h->total * (sd * sd * 1e6 + mean * mean * 1e6);
    }
    jread_leave(c, at);
}

/* The counters of object o that the counters' table puts there
 * (counters.h). Only summary.requests must be there, what makes a result;
 * any other may be missing from a result saved before it was counted. */
static void load_counters(struct jc *c, struct stats *s, json_t *o, enum counters_in in)
{
    int i;
    for (i = 0; i < COUNTERS_NROWS; i++) {
        const struct counters_row *r = &stats_counters[i];
        uint64_t *v = stats_counter(s, r);
        if (r->in == in && r->derived == COUNTERS_D_NONE)
            *v = jread_count(c, o, r->key, v == &s->completed);
    }
}

/* The key of counters' object x (counters.h). */
#define IN_KEY(x) stats_counters_in[COUNTERS_IN_##x]

/* The counters, statuses, errors and histograms of the totals or one URL. */
static void load_stats(struct jc *c, struct stats *s, json_t *o, uint64_t *in_flight)
{
    json_t *sum = jread_obj(c, o, IN_KEY(SUMMARY), 1), *st = jread_obj(c, o, "status", 0), *v;
    json_t *er = jread_obj(c, o, "errors", 1);
    json_t *why = sum ? json_object_get(sum, "server_close_reasons") : NULL, *tls = jread_obj(c, o, IN_KEY(TLS), 0);
    json_t *h2 = jread_obj(c, o, IN_KEY(HTTP2), 0), *h3 = jread_obj(c, o, IN_KEY(HTTP3), 0);
    json_t *quic = jread_obj(c, o, IN_KEY(QUIC), 0);
    const char *proto = sum ? jread_str(c, sum, STATS_DKEY(protocol), 0) : NULL, *h3key = IN_KEY(HTTP3);
    const char *k;
    uint64_t errs = 0, nerr;
    size_t at;
    int i;

    if (c->failed)
        return;
    at = jread_enter(c, "%s", IN_KEY(SUMMARY));
    load_counters(c, s, sum, COUNTERS_IN_SUMMARY);
    nerr = jread_count(c, sum, STATS_DKEY(errors), 1);
    *in_flight = jread_count(c, sum, STATS_DKEY(in_flight), 0);
    if (s->checks_failed > s->checked)
        jread_fail(c, "checks_failed", "more than the checked responses");
    if (json_is_object(why)) {
        size_t a2 = jread_enter(c, "server_close_reasons");
        for (i = 0; i < CLOSE__COUNT; i++)
            s->closes[i] = jread_count(c, why, stats_close_name((enum close_kind)i), 0);
        jread_leave(c, a2);
    } else {
        /* Results saved before the reasons were told apart. */
        s->closes[CLOSE_HEADER] = jread_count(c, sum, STATS_DKEY(server_closes), 0);
    }
    if (s->bad_status > s->completed)
        jread_fail(c, "unexpected_status", "more than the completed requests");
    jread_leave(c, at);
    if (st) {
        at = jread_enter(c, "status");
        json_object_foreach(st, k, v) {
            char *end;
            long code = strtol(k, &end, 10);
            if (*k == '\0' || *end || code < 0 || code >= STATUS_MAX) {
                jread_fail(c, k, "not a status code (0 to 599)");
                break;
            }
            s->status[code] = jread_count(c, st, k, 1);
        }
        jread_leave(c, at);
    }
    if (er) {
        at = jread_enter(c, "errors");
        for (i = 0; i < ERR__COUNT; i++) {
            /* A result saved before a kind was renamed has its old key. */
            const char *name = stats_err_name((enum err_kind)i), *old = stats_err_old_name((enum err_kind)i);
            if (old && json_object_get(er, name) == NULL)
                name = old;
            errs += s->errors[i] = jread_count(c, er, name, 0);
        }
        jread_leave(c, at);
    }
    if (!c->failed && er && errs != nerr)
        jread_fail(c, "summary.errors", "%llu, but the kinds add up to %llu", (unsigned long long)nerr,
             (unsigned long long)errs);
    if (s->carried_in > s->started)
        jread_fail(c, "carried_in", "more than the started requests");
    if (!c->failed && s->started && s->started != s->completed + nerr + *in_flight)
        jread_fail(c, "summary.started", "%llu is not completed + errors + in flight (%llu)", (unsigned long long)s->started,
             (unsigned long long)(s->completed + nerr + *in_flight));
    if (tls) {
        at = jread_enter(c, "%s", IN_KEY(TLS));
        load_counters(c, s, tls, COUNTERS_IN_TLS);
        jread_leave(c, at);
    }
    /* A result saved before HTTP/3 had its own object holds an HTTP/3
     * run's QPACK figures and retries in "http2": they are HTTP/3's. */
    if (h3 == NULL && h2 && proto && strcmp(proto, "h3") == 0) {
        h3 = h2;
        h2 = NULL;
        h3key = IN_KEY(HTTP2);
    }
    if (h2) {
        at = jread_enter(c, "%s", IN_KEY(HTTP2));
        load_counters(c, s, h2, COUNTERS_IN_HTTP2);
        jread_leave(c, at);
    }
    if (h3) {
        at = jread_enter(c, "%s", h3key);
        load_counters(c, s, h3, COUNTERS_IN_HTTP3);
        jread_leave(c, at);
    }
    if (quic) {
        at = jread_enter(c, "%s", IN_KEY(QUIC));
        load_counters(c, s, quic, COUNTERS_IN_QUIC);
        jread_leave(c, at);
    }
    for (i = 0; i < H__COUNT; i++)
        load_hist(c, &s->h[i], o, stats_hist_name((enum hist_kind)i));
    if ((v = jread_obj(c, o, IN_KEY(LATENCY), 0)) != NULL) {
        at = jread_enter(c, "%s", IN_KEY(LATENCY));
        load_counters(c, s, v, COUNTERS_IN_LATENCY);
        if (s->censored_unsent > s->censored)
            jread_fail(c, "censored_unsent", "above censored");
        jread_leave(c, at);
    }
}

/* Target i of a saved run gets its name and method back. */
static int load_target(struct jc *c, struct config *cfg, uint32_t i, const char *name, const char *method)
{
    size_t k;
    if (cfg->targets == NULL && (cfg->targets = calloc(cfg->ntargets, sizeof(*cfg->targets))) == NULL)
        return jread_fail(c, "", "out of memory");
    if (method) {
        for (k = 0; method[k]; k++)
            if (!((method[k] >= 'A' && method[k] <= 'Z') || method[k] == '-' || method[k] == '_') || k > 32)
                return jread_fail(c, "method", "not an HTTP method");
        if ((cfg->targets[i].method = config_keep(cfg, method)) == NULL)
            return jread_fail(c, "", "out of memory");
    }
    if (name && (cfg->targets[i].name = config_keep(cfg, name)) == NULL)
        return jread_fail(c, "", "out of memory");
    cfg->targets[i].own = 1;
    return 0;
}



/* A shard's place ("shard") or a merged result's entry ("shards"). */
static void load_shard(struct jc *c, json_t *o, struct shard_info *sh, int merged)
{
    report_keys_read(c, o, &report_keys_shard, sh);
    if (!c->failed && sh->index >= sh->count)
        jread_fail(c, "index", "%u is not below the count %u", sh->index, sh->count);
    if (merged)
        report_keys_read(c, o, &report_keys_shard_run, sh);
}

/* One run result object (what --json writes). */
/* The figures of each target (--targets) or URL. */
static int load_per_url(struct jc *c, json_t *pu, struct config *conf, struct run_figures *r)
{
    json_t *e;
    size_t i, n, at;
    /* A row per URL up to FIGURES_TARGETS and one for the others, as a run
     * writes them; a file with a row for every URL has the rows past the
     * limit folded into the others' row as they are read. */
    n = json_array_size(pu);
    if (n != figures_rows(conf->ntargets) && n != conf->ntargets)
        return jread_fail(c, "per_url", "%zu entries for %u URLs", n, conf->ntargets);
    r->ntargets = figures_rows(conf->ntargets);
    r->per_target = calloc(r->ntargets ? r->ntargets : 1, sizeof(struct stats));
    r->target_in_flight = calloc(r->ntargets ? r->ntargets : 1, sizeof(uint64_t));
    if (r->per_target == NULL || r->target_in_flight == NULL)
        return jread_fail(c, "", "out of memory");
    for (i = 0; i < r->ntargets; i++)
        stats_init(&r->per_target[i]);
    for (i = 0; i < n && !c->failed; i++) {
        e = json_array_get(pu, i);
        at = jread_enter(c, "per_url[%zu]", i);
        if (i > FIGURES_TARGETS) {
            struct stats one;
            uint64_t fl = 0;
            stats_init(&one);
            if (json_is_object(e))
                load_stats(c, &one, e, &fl);
            else
                jread_fail(c, "", "not an object");
            stats_merge(&r->per_target[FIGURES_TARGETS], &one);
            r->target_in_flight[FIGURES_TARGETS] += fl;
            stats_fini(&one);
        } else if (!json_is_object(e)) {
            jread_fail(c, "", "not an object");
        } else {
            const char *nm = jread_str(c, e, "name", 0), *me = jread_str(c, e, "method", 0);
            load_stats(c, &r->per_target[i], e, &r->target_in_flight[i]);
            /* A target of its own (--targets): its name and method. */
            if (!report_is_other(conf, (uint32_t)i) && (nm || conf->targets_path || (me && strcmp(me, conf->method) != 0)) &&
                load_target(c, conf, (uint32_t)i, nm, me) != 0)
                break;
        }
        jread_leave(c, at);
    }
    return c->failed ? -1 : 0;
}

/* The per-second timeline, with its histograms when a shard saved them. */
static int load_timeline(struct jc *c, json_t *tl, struct run_figures *r)
{
    json_t *e;
    size_t i, at;
    if (tl && json_array_size(tl) && !c->failed) {
        r->nseconds = (uint32_t)json_array_size(tl);
        r->timeline = calloc(r->nseconds, sizeof(*r->timeline));
        if (r->timeline == NULL)
            return jread_fail(c, "", "out of memory");
        /* A shard's seconds come with their histograms; all or none. */
        if (json_object_get(json_array_get(tl, 0), stats_hist_name(H_LATENCY))) {
            if ((r->tl_hist = calloc(r->nseconds, sizeof(*r->tl_hist))) == NULL)
                return jread_fail(c, "", "out of memory");
            for (i = 0; i < r->nseconds; i++)
                hist_init_bits(&r->tl_hist[i], TL_SUB_BITS);
        }
        json_array_foreach(tl, i, e) {
            at = jread_enter(c, "timeline[%zu]", i);
            report_keys_read(c, e, &report_keys_second, &r->timeline[i]);
            if (r->tl_hist) {
                load_hist(c, &r->tl_hist[i], e, stats_hist_name(H_LATENCY));
                if (!c->failed && r->tl_hist[i].total != r->timeline[i].completed)
                    jread_fail(c, stats_hist_name(H_LATENCY), "%llu values for %llu requests", (unsigned long long)r->tl_hist[i].total,
                         (unsigned long long)r->timeline[i].completed);
            }
            jread_leave(c, at);
            if (c->failed)
                break;
        }
    }
    return c->failed ? -1 : 0;
}

/* --stages: each stage's figures. */
static int load_stages(struct jc *c, json_t *tl, const struct config *conf, struct run_figures *r)
{
    json_t *e;
    size_t i, at;
    if (tl && json_array_size(tl) && !c->failed) {
        if (json_array_size(tl) != conf->nstages)
            return jread_fail(c, "stages", "%zu results for %u stages", json_array_size(tl), conf->nstages);
        r->nstages = (uint32_t)json_array_size(tl);
        if ((r->per_stage = calloc(r->nstages, sizeof(*r->per_stage))) == NULL)
            return jread_fail(c, "", "out of memory");
        json_array_foreach(tl, i, e) {
            struct stats *g = &r->per_stage[i];
            at = jread_enter(c, "stages[%zu]", i);
            stats_init(g);
            g->started = jread_count(c, e, "sent", 1);
            g->completed = jread_count(c, e, "completed", 1);
            g->errors[ERR_TIMEOUT_ANSWER] = jread_count(c, e, "errors", 0); /* only their number is shown */
            load_hist(c, &g->h[H_LATENCY], e, stats_hist_name(H_LATENCY));
            jread_leave(c, at);
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
        size_t at = jread_enter(c, "%s[%zu]", report_keys_finding.name, i);
        struct finding *f;
        if (!c->failed && !json_is_object(e))
            jread_fail(c, "", "not an object");
        if (c->failed || fs->n == FINDINGS_MAX) {
            jread_leave(c, at);
            break;
        }
        f = &fs->f[fs->n++];
        report_keys_read(c, e, &report_keys_finding, f);
        /* One line each in the text report, whatever the file holds. */
        text_scrub(f->id, strlen(f->id), 1);
        text_scrub(f->summary, strlen(f->summary), 1);
        text_scrub(f->advice, strlen(f->advice), 1);
        jread_leave(c, at);
    }
}

void report_load_ref(struct jc *c, json_t *o, struct machine_ref *ref)
{
    size_t at = jread_enter(c, "%s", report_keys_ref.name);
    memset(ref, 0, sizeof(*ref));
    report_keys_read(c, o, &report_keys_ref, ref);
    jread_leave(c, at);
    ref->known = !c->failed;
}

/* An interval [low, high] of key in o into iv (times mul): a side may be
 * null (open), low <= est <= high. Absent: NaN both. */
static void load_ci(struct jc *c, json_t *o, const char *key, double mul, struct interval *iv)
{
    json_t *a = json_object_get(o, key), *lo, *hi;
    iv->lo = iv->hi = NAN;
    if (a == NULL)
        return;
    lo = json_array_get(a, 0);
    hi = json_array_get(a, 1);
    if (!json_is_array(a) || json_array_size(a) != 2 || !(json_is_null(lo) || json_is_number(lo)) ||
        !(json_is_null(hi) || json_is_number(hi))) {
        jread_fail(c, key, "wants [low, high], each a number or null");
        return;
    }
    if (json_is_number(lo))
        iv->lo = json_number_value(lo) * mul;
    if (json_is_number(hi))
        iv->hi = json_number_value(hi) * mul;
    if (!(isnan(iv->lo) || (iv->lo >= 0 && iv->lo <= 1e15)) || !(isnan(iv->hi) || (iv->hi >= 0 && iv->hi <= 1e15)) ||
        (!isnan(iv->lo) && !isnan(iv->hi) && iv->lo > iv->hi))
        jread_fail(c, key, "wants [low, high] with 0 <= low <= high");
}

/* "intervals" and the figures' intervals beside them (summary.rps_ci,
 * latency.mean_ci_us and percentiles_ci_us): absent from results saved
 * before them, which have none. */
static void load_intervals(struct jc *c, json_t *root, struct run_figures *r)
{
    json_t *iv = jread_obj(c, root, report_keys_ci.name, 0), *lat = json_object_get(root, IN_KEY(LATENCY)), *pc;
    size_t at;
    int k;
    memset(&r->ci, 0, sizeof(r->ci));
    r->ci.rps.est = r->elapsed_s > 0 ? (double)r->total.completed / r->elapsed_s : 0;
    r->ci.mean.est = hist_mean(&r->total.h[H_LATENCY]);
    r->ci.rps.lo = r->ci.rps.hi = r->ci.mean.lo = r->ci.mean.hi = NAN;
    for (k = 0; k < RUN_CI_NPCTS; k++) {
        r->ci.pct[k].est = hist_percentile(&r->total.h[H_LATENCY], report_pcts[k]);
        r->ci.pct[k].lo = r->ci.pct[k].hi = NAN;
    }
    if (iv == NULL)
        return;
    at = jread_enter(c, "%s", report_keys_ci.name);
    report_keys_read(c, iv, &report_keys_ci, &r->ci);
    jread_leave(c, at);
    at = jread_enter(c, "%s", IN_KEY(SUMMARY));
    load_ci(c, json_object_get(root, IN_KEY(SUMMARY)), "rps_ci", 1, &r->ci.rps);
    jread_leave(c, at);
    at = jread_enter(c, "%s", IN_KEY(LATENCY));
    load_ci(c, lat, "mean_ci_us", 1e3, &r->ci.mean);
    pc = json_object_get(lat, "percentiles_ci_us");
    for (k = 0; pc && k < RUN_CI_NPCTS; k++)
        load_ci(c, pc, report_pct_names[k], 1e3, &r->ci.pct[k]);
    jread_leave(c, at);
}

/* "precision": the goal back into the configuration (as --precision
 * would give it), and when the run stopped for it. */
static void load_precision(struct jc *c, json_t *root, struct config *cfg, struct run_figures *r)
{
    json_t *p = jread_obj(c, root, "precision", 0), *goal, *v;
    const char *name;
    char spec[256] = "", why[160];
    size_t at, n = 0;
    if (p == NULL)
        return;
    at = jread_enter(c, "precision");
    if ((goal = jread_obj(c, p, "goal", 1)) != NULL)
        json_object_foreach(goal, name, v) {
            int k;
            if (!json_is_number(v) || !(json_number_value(v) > 0 && json_number_value(v) < 1)) {
                jread_fail(c, name, "wants a share between 0 and 1");
                break;
            }
            k = snprintf(spec + n, sizeof(spec) - n, "%s%s:%.4f%%", n ? "," : "", name, json_number_value(v) * 100);
            if (k < 0 || (size_t)k >= sizeof(spec) - n) {
                jread_fail(c, name, "too many goals");
                break;
            }
            n += (size_t)k;
        }
    if (!c->failed && n && precision_parse(spec, &cfg->precision, why, sizeof(why)) != 0)
        jread_fail(c, "goal", "%s", why);
    if (json_is_number(json_object_get(p, "stopped_at_s")))
        r->precise_at_s = jread_num(c, p, "stopped_at_s", 0, MAX_SECONDS, 0);
    jread_leave(c, at);
}

/* "checks" and "skipped_by_variable". */
static void load_checks(struct jc *c, json_t *root, struct run_figures *r, uint32_t ntargets)
{
    json_t *arr = jread_arr(c, root, report_keys_check.name, 0), *sv = jread_obj(c, root, "skipped_by_variable", 0), *v;
    const char *k, *ck = report_keys_check.name;
    size_t i, at;
    r->parked = (uint32_t)jread_num(c, root, "parked_connections", 0, 4294967295.0, 0);
    if (arr && json_array_size(arr)) {
        if (json_array_size(arr) > 100000) {
            jread_fail(c, ck, "more than 100000 checks");
            return;
        }
        if ((r->checks = calloc(json_array_size(arr), sizeof(*r->checks))) == NULL) {
            jread_fail(c, ck, "out of memory");
            return;
        }
        r->nchecks = (uint32_t)json_array_size(arr);
        for (i = 0; i < r->nchecks && !c->failed; i++) {
            json_t *e = json_array_get(arr, i);
            struct run_check *x = &r->checks[i];
            at = jread_enter(c, "%s[%zu]", ck, i);
            if (!json_is_object(e)) {
                jread_fail(c, "", "not an object");
                break;
            }
            x->target = ntargets ? ntargets - 1 : 0; /* the highest target_index (RKF_CHECK_INDEX) */
            report_keys_read(c, e, &report_keys_check, x);
            jread_leave(c, at);
        }
    }
    if (sv && json_object_size(sv)) {
        if (json_object_size(sv) > 64) {
            jread_fail(c, "skipped_by_variable", "more than 64 variables");
            return;
        }
        r->var_names = calloc(json_object_size(sv), sizeof(*r->var_names));
        r->skipped_var = calloc(json_object_size(sv), sizeof(*r->skipped_var));
        if (r->var_names == NULL || r->skipped_var == NULL) {
            jread_fail(c, "skipped_by_variable", "out of memory");
            return;
        }
        at = jread_enter(c, "skipped_by_variable");
        json_object_foreach(sv, k, v) {
            jread_copy(r->var_names[r->nvars], sizeof(r->var_names[0]), k);
            r->skipped_var[r->nvars++] = jread_count(c, sv, k, 1);
        }
        jread_leave(c, at);
    }
}

/* Member t->name of root, when there, into base through its table.
 * Returns whether it was there. */
static int load_obj(struct jc *c, json_t *root, const struct report_keys *t, void *base)
{
    json_t *o = jread_obj(c, root, t->name, 0);
    size_t at;
    if (o == NULL)
        return 0;
    at = jread_enter(c, "%s", t->name);
    report_keys_read(c, o, t, base);
    jread_leave(c, at);
    return 1;
}

/* "probe": the idle probe before the load; none in results saved before
 * it, or when none was made. */
static void load_probe(struct jc *c, json_t *root, struct run_probe *p)
{
    size_t at;
    if (!load_obj(c, root, &report_keys_probe, p))
        return;
    at = jread_enter(c, "%s", report_keys_probe.name);
    if (!c->failed && p->answered + p->failed > p->sent)
        jread_fail(c, report_keys_probe.row[0].key, "fewer than its answers and failures");
    jread_leave(c, at);
}

/* What a run says of its connections: "connections" (fairness), the
 * machine and its noise, the calibration, "tcp". */
static void load_client_side(struct jc *c, json_t *root, struct run_result *run)
{
    struct run_figures *r = &run->fig;
    json_t *cl;
    size_t at;
    if (load_obj(c, root, &report_keys_conns, r)) {
        struct fairness_conns *cn = &r->conns;
        at = jread_enter(c, "%s", report_keys_conns.name);
        if (cn->req_min > cn->req_median || cn->req_median > cn->req_max)
            jread_fail(c, "requests_median", "not between requests_min and requests_max");
        if (cn->ended_mode_count > cn->server_ended)
            jread_fail(c, "server_ended_mode_count", "above server_ended");
        jread_leave(c, at);
    }
    load_obj(c, root, &report_keys_env, &run->env);
    if ((cl = jread_obj(c, root, report_keys_ref.name, 0)) != NULL)
        report_load_ref(c, cl, &run->ref);
    run->noise.nr_throttled = -1;
    load_obj(c, root, &report_keys_noise, &run->noise);
    tcpinfo_sum_init(&r->tcp);
    load_obj(c, root, &report_keys_tcp, r);
}

int report_load_run(struct jc *c, json_t *root, struct run_result *run)
{
    json_t *cfg = jread_obj(c, root, report_keys_config.name, 1), *pu = jread_arr(c, root, "per_url", 1), *e, *sv, *rt;
    struct config *conf;
    struct run_figures *r = &run->fig;
    size_t i, at;

    result_init(run);
    if (c->failed || !json_object_get(root, IN_KEY(SUMMARY))) {
        if (!c->failed)
            jread_fail(c, IN_KEY(SUMMARY), "missing");
        snprintf(c->err + strlen(c->err), c->errlen - strlen(c->err), " (not a rafale result, saved with --json)");
        return -1;
    }
    if ((conf = run->own_cfg = calloc(1, sizeof(*conf))) == NULL)
        return jread_fail(c, "", "out of memory");
    run->cfg = conf;
    if (report_load_config(c, cfg, conf) != 0 || stats_init(&r->total) != 0)
        return -1;
    if (load_per_url(c, pu, conf, r) != 0)
        return -1;
    load_checks(c, root, r, conf->ntargets);
    r->aborted = load_obj(c, root, &report_keys_aborted, r);
    load_obj(c, root, &report_keys_gave_up, r);
    load_stats(c, &r->total, root, &r->in_flight);
    at = jread_enter(c, "%s", IN_KEY(SUMMARY));
    r->elapsed_s = report_keys_elapsed(c, json_object_get(root, IN_KEY(SUMMARY)), STATS_DKEY(elapsed_s), r->total.completed, 1);
    jread_leave(c, at);
    r->interrupted = jread_bool(c, root, "interrupted");
    /* Absent (an older result): each member its default, all_connected_s
     * not told. */
    if (!load_obj(c, root, &report_keys_client, r))
        report_keys_read(c, NULL, &report_keys_client, r);
    r->in_flight_oldest_s = jread_num(c, json_object_get(root, IN_KEY(SUMMARY)), STATS_DKEY(in_flight_oldest_s), 0, MAX_SECONDS, 0);
    load_intervals(c, root, r);
    load_precision(c, root, conf, r);
    load_client_side(c, root, run);
    load_probe(c, root, &run->probe);
    if (conf->replay_tally)
        load_obj(c, root, &report_keys_replay, conf->replay_tally);
    r->start_unix_s = jread_num(c, root, "start_unix_s", 0, 1e11, 0);
    if ((rt = jread_obj(c, root, report_keys_shard.name, 0)) != NULL) {
        at = jread_enter(c, "%s", report_keys_shard.name);
        load_shard(c, rt, &r->shard, 0);
        jread_leave(c, at);
    }
    if ((rt = jread_arr(c, root, "shards", 0)) != NULL && json_array_size(rt) && !c->failed) {
        if (json_array_size(rt) > 100000)
            return jread_fail(c, "shards", "more than 100000");
        r->nshards = (uint32_t)json_array_size(rt);
        if ((r->shards = calloc(r->nshards, sizeof(*r->shards))) == NULL)
            return jread_fail(c, "", "out of memory");
        json_array_foreach(rt, i, e) {
            at = jread_enter(c, "shards[%zu]", i);
            load_shard(c, e, &r->shards[i], 1);
            jread_leave(c, at);
            if (c->failed)
                break;
        }
    }
    load_obj(c, root, &report_keys_rate, r);
    sv = jread_obj(c, root, report_keys_server.name, 0);
    if (sv && !c->failed) {
        run->has_server = 1;
        report_load_server(c, &run->server, sv);
    }
    if ((rt = jread_arr(c, root, report_keys_finding.name, 0)) != NULL) {
        load_findings(c, rt, &run->found);
        run->has_findings = 1;
    }
    if (load_timeline(c, jread_arr(c, root, "timeline", 0), r) != 0)
        return -1;
    if (load_stages(c, jread_arr(c, root, "stages", 0), conf, r) != 0)
        return -1;
    return c->failed ? -1 : 0;
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
        err_set(err, errlen, NULL, "%s: %s", path, strerror(errno));
        return NULL;
    }
    if (fstat(fileno(c.f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > ((off_t)REPORT_LOAD_MAX_MIB << 20))
        c.over = 1;
    else
        root = json_load_callback(capped_read, &c, 0, &je);
    if (c.over)
        err_set(err, errlen, NULL, "%s: larger than %d MiB", path, REPORT_LOAD_MAX_MIB);
    else if (root == NULL && c.err)
        err_set(err, errlen, NULL, "%s: %s", path, strerror(c.err));
    else if (root == NULL) {
        err_set(err, errlen, NULL, "%s:%d: not JSON: %s", path, je.line, je.text);
        text_scrub(err, strlen(err), 1); /* jansson's text may quote the file's bytes */
    }
    fclose(c.f);
    /* Whatever reads it (a result, the calibration cache), its strings
     * may reach a terminal. */
    if (root != NULL)
        jread_scrub(root, 0);
    return root;
}

int report_load_run_root(json_t *root, const char *path, struct run_result *out, char *err, size_t errlen)
{
    struct jc c = { path, err, errlen, 0, "" };

    result_init(out);
    if (!json_is_object(root))
        return err_set(err, errlen, path, "not a rafale result (saved with --json)");
    jread_scrub(root, 0);
    return report_load_run(&c, root, out);
}
