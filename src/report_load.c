/* report_load.c - reads a result saved with --json back (through jansson,
 * Debian's libjansson). Histograms come back from their buckets, so the
 * percentiles are those of the original run; min, max, mean and stdev are
 * the saved exact values. */
#include "report_load.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *keep(struct loaded_run *run, const char *s)
{
    char **n = realloc(run->strings, (size_t)(run->nstrings + 1) * sizeof(char *));
    if (n == NULL)
        return "";
    run->strings = n;
    n[run->nstrings] = strdup(s ? s : "");
    return n[run->nstrings] ? n[run->nstrings++] : "";
}

static double num(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : 0;
}

static void load_hist(struct hist *h, json_t *o)
{
    json_t *list = json_object_get(o, "histogram"), *e;
    size_t i;
    double mean = num(o, "mean_us") * 1e3, sd = num(o, "stdev_us") * 1e3;
    if (!json_is_array(list))
        return;
    json_array_foreach(list, i, e) {
        double ub = json_number_value(json_array_get(e, 0)) * 1e3;
        uint64_t n = (uint64_t)json_number_value(json_array_get(e, 1));
        /* The bucket's upper bound is exclusive: one below it falls inside. */
        hist_record_n(h, ub >= 1 ? (uint64_t)ub - 1 : 0, n);
    }
    if (h->total) {
        h->min = (uint64_t)(num(o, "min_us") * 1e3 + 0.5);
        h->max = (uint64_t)(num(o, "max_us") * 1e3 + 0.5);
        h->sum = mean * (double)h->total;
        h->sumsq = (double)h->total * (sd * sd + mean * mean);
    }
}

static void load_stats(struct stats *s, json_t *o)
{
    json_t *sum = json_object_get(o, "summary"), *st = json_object_get(o, "status"),
           *er = json_object_get(o, "errors"), *v, *tls = json_object_get(o, "tls");
    const char *k;
    int i;

    s->completed = (uint64_t)num(sum, "requests");
    s->started = (uint64_t)num(sum, "started");
    s->conns_opened = (uint64_t)num(sum, "connections_opened");
    s->bad_status = (uint64_t)num(sum, "unexpected_status");
    {
        json_t *why = json_object_get(sum, "server_close_reasons");
        if (json_is_object(why)) {
            for (i = 0; i < CLOSE__COUNT; i++)
                s->closes[i] = (uint64_t)num(why, stats_close_name((enum close_kind)i));
        } else {
            /* Results saved before the reasons were told apart. */
            s->closes[CLOSE_HEADER] = (uint64_t)num(sum, "server_closes");
        }
    }
    s->bytes_recv = (uint64_t)num(sum, "bytes_received");
    s->bytes_sent = (uint64_t)num(sum, "bytes_sent");
    json_object_foreach(st, k, v) {
        int code = atoi(k);
        if (code >= 0 && code < STATUS_MAX)
            s->status[code] = (uint64_t)json_number_value(v);
    }
    for (i = 0; i < ERR__COUNT; i++)
        s->errors[i] = (uint64_t)num(er, stats_err_name((enum err_kind)i));
    s->tls_full = (uint64_t)num(tls, "full");
    s->tls_resumed = (uint64_t)num(tls, "resumed");
    load_hist(&s->latency, json_object_get(o, "latency"));
    load_hist(&s->connect, json_object_get(o, "connect"));
    load_hist(&s->ttfb, json_object_get(o, "ttfb"));
    load_hist(&s->latency_unc, json_object_get(o, "latency_uncorrected"));
    load_hist(&s->lag, json_object_get(o, "send_lag"));
    load_hist(&s->tls, json_object_get(o, "tls_handshake"));
}

int report_load(const char *path, struct loaded_run *run, char *err, size_t errlen)
{
    json_error_t je;
    json_t *root, *cfg, *urls, *pu, *tl, *e, *sv;
    struct config *c = &run->cfg;
    struct engine_result *r = &run->res;
    size_t i, n;

    memset(run, 0, sizeof(*run));
    root = json_load_file(path, 0, &je);
    if (root == NULL) {
        snprintf(err, errlen, "%s:%d: not JSON: %s", path, je.line, je.text);
        return -1;
    }
    cfg = json_object_get(root, "config");
    urls = json_object_get(cfg, "urls");
    pu = json_object_get(root, "per_url");
    if (!json_is_object(cfg) || !json_is_array(urls) || !json_is_array(pu) || !json_object_get(root, "summary")) {
        snprintf(err, errlen, "%s: not a rafale run result (saved with --json)", path);
        json_decref(root);
        return -1;
    }
    n = json_array_size(urls);
    c->nurls = (uint32_t)n;
    c->url_text = calloc(n ? n : 1, sizeof(char *));
    r->per_url = calloc(n ? n : 1, sizeof(struct stats));
    r->url_in_flight = calloc(n ? n : 1, sizeof(uint64_t));
    if (c->url_text == NULL || r->per_url == NULL || r->url_in_flight == NULL || stats_init(&r->total) != 0) {
        snprintf(err, errlen, "out of memory");
        json_decref(root);
        return -1;
    }
    r->nurls = (uint32_t)n;
    for (i = 0; i < n; i++) {
        c->url_text[i] = keep(run, json_string_value(json_array_get(urls, i)));
        if (stats_init(&r->per_url[i]) != 0) {
            snprintf(err, errlen, "out of memory");
            json_decref(root);
            return -1;
        }
        e = json_array_get(pu, i);
        if (e) {
            load_stats(&r->per_url[i], e);
            r->url_in_flight[i] = (uint64_t)num(json_object_get(e, "summary"), "in_flight");
        }
    }
    c->method = keep(run, json_string_value(json_object_get(cfg, "method")));
    c->connections = (uint32_t)num(cfg, "connections");
    c->threads = (uint32_t)num(cfg, "threads");
    c->keepalive = json_is_true(json_object_get(cfg, "keepalive"));
    c->requests = (uint64_t)num(cfg, "requests");
    c->duration_ns = (uint64_t)(num(cfg, "duration_s") * 1e9);
    c->timeout_ns = (uint64_t)(num(cfg, "timeout_s") * 1e9);
    c->rate = num(cfg, "rate");
    c->pipeline = (uint32_t)num(cfg, "pipeline");
    c->warmup_ns = (uint64_t)(num(cfg, "warmup_s") * 1e9);
    c->requests_per_conn = (uint64_t)num(cfg, "requests_per_connection");
    {
        const char *ex = json_string_value(json_object_get(cfg, "expect"));
        char why[128];
        if (ex == NULL || status_set_parse(ex, &c->expect, why, sizeof(why)) != 0)
            status_set_default(&c->expect);
    }
    c->poisson = json_string_value(json_object_get(cfg, "arrival")) &&
                 !strcmp(json_string_value(json_object_get(cfg, "arrival")), "poisson");

    load_stats(&r->total, root);
    r->in_flight = (uint64_t)num(json_object_get(root, "summary"), "in_flight");
    r->elapsed_s = num(json_object_get(root, "summary"), "elapsed_s");
    r->interrupted = json_is_true(json_object_get(root, "interrupted"));
    r->client_cpu_s = num(json_object_get(root, "client"), "cpu_s");
    r->all_connected_s = json_object_get(json_object_get(root, "client"), "all_connected_s")
                             ? num(json_object_get(root, "client"), "all_connected_s") : -1;
    r->target_rate = num(json_object_get(root, "rate"), "target_rps");
    r->queued = (uint64_t)num(json_object_get(root, "rate"), "queued");
    r->extra_connections = (uint32_t)num(json_object_get(root, "rate"), "extra_connections");
    sv = json_object_get(root, "server");
    if (json_is_object(sv)) {
        r->has_server = 1;
        r->server.pid = (int)num(sv, "pid");
        r->server.cpu_s = num(sv, "cpu_s");
        r->server.rss_peak_bytes = (uint64_t)num(sv, "rss_peak_bytes");
        r->server.rss_mean_bytes = (uint64_t)num(sv, "rss_mean_bytes");
        r->server.processes = (uint32_t)num(sv, "processes");
        r->server.threads = (uint32_t)num(sv, "threads");
        r->server.gone = json_is_true(json_object_get(sv, "exited"));
    }
    tl = json_object_get(root, "timeline");
    if (json_is_array(tl) && json_array_size(tl)) {
        r->nseconds = (uint32_t)json_array_size(tl);
        r->timeline = calloc(r->nseconds, sizeof(*r->timeline));
        if (r->timeline == NULL) {
            r->nseconds = 0;
        } else {
            json_array_foreach(tl, i, e) {
                r->timeline[i].requests = (uint64_t)num(e, "requests");
                r->timeline[i].errors = (uint64_t)num(e, "errors");
                r->timeline[i].p50_ns = num(e, "p50_us") * 1e3;
                r->timeline[i].p99_ns = num(e, "p99_us") * 1e3;
                r->timeline[i].max_ns = num(e, "max_us") * 1e3;
            }
        }
    }
    json_decref(root);
    return 0;
}

void report_load_free(struct loaded_run *run)
{
    int i;
    engine_result_free(&run->res);
    free(run->cfg.url_text);
    for (i = 0; i < run->nstrings; i++)
        free(run->strings[i]);
    free(run->strings);
    memset(run, 0, sizeof(*run));
}
