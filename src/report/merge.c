/* merge.c - see merge.h. */
#include "merge.h"
#include "err.h"
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Shards of one run start within a few seconds of each other (--start-at,
 * MPI, or by hand); starts further apart than the longest shard's run plus
 * this cannot be one run, and would size the merged timeline by the gap. */
#define MERGE_MARGIN_S 60.0

/* Settings a shard may hold on its own without being another workload. */
static const char *const own_keys[] = { "threads" };

const char *merge_config_diff(json_t *a, json_t *b, const char *const *own, size_t nown)
{
    const char *k;
    json_t *v;
    size_t i;
    json_object_foreach(a, k, v) {
        int skip = 0;
        for (i = 0; i < nown; i++)
            skip |= strcmp(k, own[i]) == 0;
        if (!skip && !json_equal(v, json_object_get(b, k)))
            return k;
    }
    json_object_foreach(b, k, v) {
        int skip = 0;
        for (i = 0; i < nown; i++)
            skip |= strcmp(k, own[i]) == 0;
        if (!skip && json_object_get(a, k) == NULL)
            return k;
    }
    return NULL;
}

/* The first key on which two shards' workloads differ, or NULL. */
static const char *config_diff(json_t *a, json_t *b)
{
    return merge_config_diff(a, b, own_keys, sizeof(own_keys) / sizeof(own_keys[0]));
}

/* The per-second timelines of the shards, aligned on the wall clock: a
 * shard that began k seconds after the first adds into second t + k. */
static int merge_timeline(struct run_result *in, int n, double t0, struct run_figures *r)
{
    uint32_t len = 0, s, i;
    struct hist *h;
    int k;
    /* Every offset is at most the starts' spread, checked before (under a
     * day), and every timeline at most 2^32 seconds: the sum fits 64 bits. */
    for (k = 0; k < n; k++) {
        const struct run_figures *x = &in[k].fig;
        uint64_t off = (uint64_t)llround(x->start_unix_s - t0);
        if (x->nseconds && off + x->nseconds > len) {
            if (off + x->nseconds > UINT32_MAX)
                return -1;
            len = (uint32_t)(off + x->nseconds);
        }
    }
    if (len == 0)
        return 0;
    r->timeline = calloc(len, sizeof(*r->timeline));
    h = calloc(len, sizeof(*h));
    if (r->timeline == NULL || h == NULL) {
        free(h);
        return -1;
    }
    r->nseconds = len;
    for (s = 0; s < len; s++)
        hist_init_bits(&h[s], TL_SUB_BITS);
    for (k = 0; k < n; k++) {
        const struct run_figures *x = &in[k].fig;
        uint32_t off = (uint32_t)llround(x->start_unix_s - t0);
        for (i = 0; i < x->nseconds; i++) {
            struct tl_second *d = &r->timeline[off + i];
            d->completed += x->timeline[i].completed;
            d->errors += x->timeline[i].errors;
            if (x->timeline[i].max_ns > d->max_ns)
                d->max_ns = x->timeline[i].max_ns;
            if (x->tl_hist && hist_merge(&h[off + i], &x->tl_hist[i]) != 0) {
                for (s = 0; s < len; s++)
                    hist_fini(&h[s]);
                free(h);
                return -1;
            }
        }
    }
    for (s = 0; s < len; s++) {
        r->timeline[s].p50_ns = hist_percentile(&h[s], 50);
        r->timeline[s].p99_ns = hist_percentile(&h[s], 99);
    }
    r->tl_hist = h; /* for the intervals (report_ci), then let go */
    return 0;
}

/* What one run's shards must share beyond the workload: starts close in
 * time, and each shard's timeline adding up to its own totals (a saved
 * result is untrusted input). Returns 0, or -1 with the reason. */
static int check_shards(struct run_result *in, const char **names, int n, char *err, size_t errlen)
{
    int k, first = 0, last = 0;
    /* How long the run lasted: by its timelines where there are (their
     * entries are in the files; a claimed elapsed_s alone could be any
     * number), else by elapsed_s (nothing is then sized by it). */
    double longest = 0, longest_tl = 0;
    for (k = 0; k < n; k++) {
        const struct run_figures *x = &in[k].fig;
        uint64_t req = 0, errs = 0;
        uint32_t i;
        /* Summed to the end (the message says what the timeline counts),
         * held at 2^64 - 1: a sum of tampered counts could wrap 64 bits
         * back onto the totals. */
        for (i = 0; i < x->nseconds; i++) {
            req = x->timeline[i].completed > UINT64_MAX - req ? UINT64_MAX : req + x->timeline[i].completed;
            errs = x->timeline[i].errors > UINT64_MAX - errs ? UINT64_MAX : errs + x->timeline[i].errors;
        }
        if (x->nseconds && (req != x->total.completed || errs != stats_errors(&x->total))) {
            err_set(err, errlen, NULL,
                    "%s: its timeline counts %llu requests and %llu errors, its totals %llu and %llu: "
                    "not a consistent result",
                    names[k], (unsigned long long)req, (unsigned long long)errs, (unsigned long long)x->total.completed,
                    (unsigned long long)stats_errors(&x->total));
            return -1;
        }
        if (x->start_unix_s < in[first].fig.start_unix_s)
            first = k;
        if (x->start_unix_s > in[last].fig.start_unix_s)
            last = k;
        if (x->elapsed_s > longest)
            longest = x->elapsed_s;
        if ((double)x->nseconds > longest_tl)
            longest_tl = (double)x->nseconds;
    }
    if (longest_tl > 0)
        longest = longest_tl;
    if (in[last].fig.start_unix_s - in[first].fig.start_unix_s > longest + MERGE_MARGIN_S) {
        err_set(err, errlen, NULL,
                "%s started %.0fs after %s, more than the run lasted (%.0fs) plus %.0fs: not shards of "
                "one run",
                names[last], in[last].fig.start_unix_s - in[first].fig.start_unix_s, names[first], longest,
                MERGE_MARGIN_S);
        return -1;
    }
    return 0;
}

/* The shards' fairness figures: counts summed, extremes kept. The median
 * is the largest of the shards' medians, an upper bound (each shard keeps
 * only its own connections' median). */
static void merge_conns(struct fairness_conns *d, const struct fairness_conns *s, int first)
{
    if (first || s->req_min < d->req_min)
        d->req_min = s->req_min;
    if (s->req_max > d->req_max)
        d->req_max = s->req_max;
    if (s->req_median > d->req_median)
        d->req_median = s->req_median;
    d->clients += s->clients;
    d->starved += s->starved;
    if (s->starved_wait_s > d->starved_wait_s)
        d->starved_wait_s = s->starved_wait_s;
    if (s->longest_wait_s > d->longest_wait_s)
        d->longest_wait_s = s->longest_wait_s;
    if (s->wait_limit_s > d->wait_limit_s)
        d->wait_limit_s = s->wait_limit_s;
    d->server_ended += s->server_ended;
    if (first || s->ended_mode == d->ended_mode) {
        d->ended_mode_count += s->ended_mode_count;
        d->ended_mode = s->ended_mode;
    } else if (s->ended_mode_count > d->ended_mode_count) {
        d->ended_mode = s->ended_mode;
        d->ended_mode_count = s->ended_mode_count;
    }
}

static int merge_into(struct run_result *in, int n, struct run_result *out, char *err, size_t errlen)
{
    struct run_figures *r = &out->fig;
    double t0 = 1e300, t_end = 0;
    uint32_t i;
    int k;

    /* The workload is the first shard's (the totals: every shard holds them). */
    out->cfg = out->own_cfg = in[0].own_cfg;
    in[0].own_cfg = NULL;
    if (out->own_cfg->replay_tally)
        /* A replay's shards each read the whole log and sent their share of it. */
        for (k = 1; k < n; k++)
            if (in[k].cfg->replay_tally) {
                out->own_cfg->replay_tally->replayed += in[k].cfg->replay_tally->replayed;
                if (in[k].cfg->replay_tally->span_s > out->own_cfg->replay_tally->span_s)
                    out->own_cfg->replay_tally->span_s = in[k].cfg->replay_tally->span_s;
            }
    if (stats_init(&r->total) != 0)
        goto oom;
    r->ntargets = in[0].fig.ntargets;
    r->per_target = calloc(r->ntargets ? r->ntargets : 1, sizeof(*r->per_target));
    r->target_in_flight = calloc(r->ntargets ? r->ntargets : 1, sizeof(*r->target_in_flight));
    r->nstages = in[0].fig.nstages;
    r->per_stage = r->nstages ? calloc(r->nstages, sizeof(*r->per_stage)) : NULL;
    r->shards = calloc((size_t)n, sizeof(*r->shards));
    if (r->per_target == NULL || r->target_in_flight == NULL || (r->nstages && r->per_stage == NULL) || r->shards == NULL)
        goto oom;
    for (i = 0; i < r->ntargets; i++)
        stats_init(&r->per_target[i]);
    for (i = 0; i < r->nstages; i++)
        stats_init(&r->per_stage[i]);
    r->nshards = (uint32_t)n;
    r->all_connected_s = 0;
    tcpinfo_sum_init(&r->tcp);
    /* Checks and skips: the same workload's, summed exactly; the first
     * failure the first shard's that had one. */
    if (in[0].fig.nchecks) {
        r->nchecks = in[0].fig.nchecks;
        if ((r->checks = calloc(r->nchecks, sizeof(*r->checks))) == NULL)
            goto oom;
        memcpy(r->checks, in[0].fig.checks, r->nchecks * sizeof(*r->checks));
        for (i = 0; i < r->nchecks; i++)
            r->checks[i].passed = r->checks[i].failed = 0, r->checks[i].first_failure[0] = '\0';
    }
    if (in[0].fig.nvars) {
        r->nvars = in[0].fig.nvars;
        r->var_names = calloc(r->nvars, sizeof(*r->var_names));
        r->skipped_var = calloc(r->nvars, sizeof(*r->skipped_var));
        if (r->var_names == NULL || r->skipped_var == NULL)
            goto oom;
        memcpy(r->var_names, in[0].fig.var_names, r->nvars * sizeof(*r->var_names));
    }
    for (k = 0; k < n; k++) {
        const struct run_figures *x = &in[k].fig;
        for (i = 0; i < r->nchecks && i < x->nchecks; i++) {
            r->checks[i].passed += x->checks[i].passed;
            r->checks[i].failed += x->checks[i].failed;
            if (!r->checks[i].first_failure[0] && x->checks[i].failed)
                memcpy(r->checks[i].first_failure, x->checks[i].first_failure, sizeof(r->checks[i].first_failure));
        }
        for (i = 0; i < r->nvars && i < x->nvars; i++)
            r->skipped_var[i] += x->skipped_var[i];
    }
    for (k = 0; k < n; k++) {
        struct run_result *x = &in[k];
        struct shard_info *sh = &r->shards[k];
        stats_merge(&r->total, &x->fig.total);
        for (i = 0; i < r->ntargets; i++) {
            stats_merge(&r->per_target[i], &x->fig.per_target[i]);
            r->target_in_flight[i] += x->fig.target_in_flight[i];
        }
        for (i = 0; i < r->nstages && i < x->fig.nstages; i++)
            stats_merge(&r->per_stage[i], &x->fig.per_stage[i]);
        r->in_flight += x->fig.in_flight;
        if (x->fig.in_flight_oldest_s > r->in_flight_oldest_s)
            r->in_flight_oldest_s = x->fig.in_flight_oldest_s;
        merge_conns(&r->conns, &x->fig.conns, k == 0);
        if (k == 0)
            out->env = x->env; /* the first shard's machine (each shard's JSON keeps its own) */
        tcpinfo_merge(&r->tcp, &x->fig.tcp);
        r->queued += x->fig.queued;
        r->extra_connections += x->fig.extra_connections;
        r->target_rate += x->fig.target_rate;
        r->client_cpu_s += x->fig.client_cpu_s;
        r->interrupted |= x->fig.interrupted;
        if (x->fig.all_connected_s < 0 || r->all_connected_s < 0)
            r->all_connected_s = -1;
        else if (x->fig.all_connected_s > r->all_connected_s)
            r->all_connected_s = x->fig.all_connected_s;
        if (x->fig.start_unix_s < t0)
            t0 = x->fig.start_unix_s;
        if (x->fig.start_unix_s + x->fig.elapsed_s > t_end)
            t_end = x->fig.start_unix_s + x->fig.elapsed_s;
        *sh = x->fig.shard;
        sh->completed = x->fig.total.completed;
        sh->errors = stats_errors(&x->fig.total);
        sh->elapsed_s = x->fig.elapsed_s;
        sh->p99_ns = hist_percentile(&x->fig.total.h[H_LATENCY], 99);
        sh->client_cpu_s = x->fig.client_cpu_s;
        if (x->has_server && !out->has_server) {
            /* The shard that watched the server (one does, on its machine). */
            out->server = x->server;
            memset(&x->server, 0, sizeof(x->server));
            out->has_server = 1;
        }
    }
    r->start_unix_s = t0;
    r->elapsed_s = t_end > t0 ? t_end - t0 : 0;
    if (merge_timeline(in, n, t0, r) != 0)
        goto oom;
    return 0;
oom:
    err_set(err, errlen, NULL, "out of memory");
    return -1;
}

int merge_shards(json_t **roots, const char **names, int n, struct run_result *out, char *err, size_t errlen)
{
    struct run_result *in;
    int *by_index = NULL, k, rc = -1, count = 0;

    result_init(out);
    if (n < 1) {
        err_set(err, errlen, NULL, "no shard results given");
        return -1;
    }
    if ((in = calloc((size_t)n, sizeof(*in))) == NULL || (by_index = calloc((size_t)n, sizeof(*by_index))) == NULL) {
        free(in);
        err_set(err, errlen, NULL, "out of memory");
        return -1;
    }
    for (k = 0; k < n; k++) {
        json_t *sh = json_object_get(roots[k], "shard");
        const char *diff;
        if (!json_is_object(roots[k]) || json_is_object(json_object_get(roots[k], "compare")) || !json_is_object(sh)) {
            err_set(err, errlen, NULL, "%s: not a shard's result (saved with --json by rafale --shard I/N)", names[k]);
            goto out;
        }
        if (report_load_run_root(roots[k], names[k], &in[k], err, errlen) != 0)
            goto out;
        if (k == 0) {
            count = (int)in[0].fig.shard.count;
        } else if ((diff = config_diff(json_object_get(roots[0], "config"), json_object_get(roots[k], "config")))) {
            err_set(err, errlen, NULL, "%s and %s are not shards of the same workload: their '%s' differ", names[0],
                    names[k], diff);
            goto out;
        }
        if ((int)in[k].fig.shard.count != count) {
            err_set(err, errlen, NULL, "%s is one of %u shards, %s one of %u: not the same run", names[k],
                    in[k].fig.shard.count, names[0], (unsigned)count);
            goto out;
        }
        if (count == n && by_index[in[k].fig.shard.index]++) {
            err_set(err, errlen, NULL, "%s: shard %u/%u is given twice", names[k], in[k].fig.shard.index, count);
            goto out;
        }
    }
    if (count != n) {
        err_set(err, errlen, NULL,
                "the run had %d shards and %d result%s given: every shard's is needed for an exact total", count, n,
                n == 1 ? " is" : "s are");
        goto out;
    }
    if (check_shards(in, names, n, err, errlen) != 0)
        goto out;
    if ((rc = merge_into(in, n, out, err, errlen)) == 0) {
        uint32_t i;
        report_ci(&out->fig); /* from the merged seconds: the shards' batches are not saved */
        for (i = 0; out->fig.tl_hist && i < out->fig.nseconds; i++)
            hist_fini(&out->fig.tl_hist[i]);
        free(out->fig.tl_hist);
        out->fig.tl_hist = NULL;
    } else
        result_free(out);
out:
    for (k = 0; k < n; k++)
        result_free(&in[k]);
    free(in);
    free(by_index);
    return rc;
}
