/* report_load_stats.c - a saved result's stats object (the totals' or a
 * target's: counters, statuses, errors, histograms) read back, each value
 * checked as report_load.c does: its type, its range, histograms sorted
 * with counts adding up, counters that agree. */
#include "report_load_int.h"
#include "proto.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* A latency in microseconds: 0, or 1 ns to the 1 h clamp. */
double report_load_us(struct jc *c, json_t *o, const char *key, int required)
{
    double v = jread_num(c, o, key, 0, MAX_US, required);
    if (!c->failed && v > 0 && v < MIN_US)
        jread_fail(c, key, "%g us is below 1 ns, the least latency a run records", v);
    return v;
}

/* A duration in seconds that can hold completed requests. */
double report_load_elapsed(struct jc *c, json_t *o, const char *key, uint64_t completed, int required)
{
    double v = jread_num(c, o, key, 0, MAX_SECONDS, required);
    if (!c->failed && completed && v < (double)completed / MAX_RPS)
        jread_fail(c, key, "%g s cannot hold %llu requests (more than %.0e a second)", v,
                    (unsigned long long)completed, MAX_RPS);
    return v;
}

/* A histogram: [upper_bound_us, count] pairs, bounds increasing, counts
 * adding up to "count"; min <= max within the clamp. */
void report_load_hist(struct jc *c, struct hist *h, json_t *parent, const char *key)
{
    json_t *o = jread_obj(c, parent, key, 0), *list, *e;
    size_t i, at;
    double prev = 0, mean, sd, mn, mx;
    uint64_t total, sum = 0;
    if (o == NULL)
        return;
    at = jread_enter(c, "%s", key);
    total = jread_count(c, o, "count", 1);
    mn = report_load_us(c, o, "min_us", 0);
    mx = report_load_us(c, o, "max_us", 0);
    mean = report_load_us(c, o, "mean_us", 0);
    sd = report_load_us(c, o, "stdev_us", 0);
    list = jread_arr(c, o, "histogram", 1);
    if (c->failed) {
        jread_leave(c, at);
        return;
    }
    if (mn > mx)
        jread_fail(c, "min_us", "above max_us");
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
        jread_fail(c, "count", "%llu, but the buckets add up to %llu", (unsigned long long)total, (unsigned long long)sum);
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
            jread_fail(c, "min_us", "%.3f and max_us %.3f are not in the first and last buckets", mn, mx);
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

/* The counters, statuses, errors and histograms of the totals or one URL. */
void report_load_stats(struct jc *c, struct stats *s, json_t *o, uint64_t *in_flight)
{
    json_t *sum = jread_obj(c, o, "summary", 1), *st = jread_obj(c, o, "status", 0), *er = jread_obj(c, o, "errors", 1), *v;
    json_t *why = sum ? json_object_get(sum, "server_close_reasons") : NULL, *tls = jread_obj(c, o, "tls", 0);
    json_t *h2 = jread_obj(c, o, "http2", 0), *h3 = jread_obj(c, o, "http3", 0);
    json_t *quic = jread_obj(c, o, "quic", 0);
    const char *proto = sum ? jread_str(c, sum, "protocol", 0) : NULL, *h3key = "http3";
    const struct proto *row;
    const char *k;
    uint64_t errs = 0, nerr;
    size_t at;
    int i;

    if (c->failed)
        return;
    at = jread_enter(c, "summary");
    load_counters(c, s, sum, COUNTERS_IN_SUMMARY);
    nerr = jread_count(c, sum, "errors", 1);
    *in_flight = jread_count(c, sum, "in_flight", 0);
    if (s->checks_failed > s->checked)
        jread_fail(c, "checks_failed", "more than the checked responses");
    if (json_is_object(why)) {
        size_t a2 = jread_enter(c, "server_close_reasons");
        for (i = 0; i < CLOSE__COUNT; i++)
            s->closes[i] = jread_count(c, why, stats_close_name((enum close_kind)i), 0);
        jread_leave(c, a2);
    } else {
        /* Results saved before the reasons were told apart. */
        s->closes[CLOSE_HEADER] = jread_count(c, sum, "server_closes", 0);
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
        at = jread_enter(c, "tls");
        load_counters(c, s, tls, COUNTERS_IN_TLS);
        jread_leave(c, at);
    }
    /* A result saved before HTTP/3 had its own object holds an HTTP/3
     * run's QPACK figures and retries in "http2": they are HTTP/3's. */
    row = proto ? proto_named(proto) : NULL;
    if (h3 == NULL && h2 && row && row->figures == COUNTERS_IN_HTTP3) {
        h3 = h2;
        h2 = NULL;
        h3key = "http2";
    }
    if (h2) {
        at = jread_enter(c, "http2");
        load_counters(c, s, h2, COUNTERS_IN_HTTP2);
        jread_leave(c, at);
    }
    if (h3) {
        at = jread_enter(c, h3key);
        load_counters(c, s, h3, COUNTERS_IN_HTTP3);
        jread_leave(c, at);
    }
    if (quic) {
        at = jread_enter(c, "quic");
        load_counters(c, s, quic, COUNTERS_IN_QUIC);
        jread_leave(c, at);
    }
    for (i = 0; i < H__COUNT; i++)
        report_load_hist(c, &s->h[i], o, stats_hist_name((enum hist_kind)i));
    if ((v = jread_obj(c, o, "latency", 0)) != NULL) {
        at = jread_enter(c, "latency");
        load_counters(c, s, v, COUNTERS_IN_LATENCY);
        if (s->censored_unsent > s->censored)
            jread_fail(c, "censored_unsent", "above censored");
        jread_leave(c, at);
    }
}
