/* report_load.c - reads a result saved with --json back (through jansson,
 * Debian's libjansson). Histograms come back from their buckets, so the
 * percentiles are those of the original run; min, max, mean and stdev are
 * the saved exact values. */
#include "report_load.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static void load_server(struct monitor_result *m, json_t *sv)
{
    json_t *tree = json_object_get(sv, "tree"), *mt = json_object_get(sv, "memory_timeline"), *e;
    const char *cg = json_string_value(json_object_get(sv, "cgroup"));
    const char *note = json_string_value(json_object_get(sv, "pss_note"));
    size_t i;

    m->pid = (int)num(sv, "pid");
    snprintf(m->cgroup, sizeof(m->cgroup), "%s", cg ? cg : "");
    snprintf(m->pss_note, sizeof(m->pss_note), "%s", note ? note : "PSS not recorded");
    m->cpu_s = num(sv, "cpu_s");
    m->cpu_exact = json_is_true(json_object_get(sv, "cpu_exact"));
    m->has_pss = json_is_true(json_object_get(sv, "has_pss"));
    m->pss_peak_bytes = (uint64_t)num(sv, "pss_peak_bytes");
    m->pss_mean_bytes = (uint64_t)num(sv, "pss_mean_bytes");
    m->uss_peak_bytes = (uint64_t)num(sv, "uss_peak_bytes");
    m->rss_peak_bytes = (uint64_t)num(sv, "rss_peak_bytes");
    m->rss_mean_bytes = (uint64_t)num(sv, "rss_mean_bytes");
    m->cg_memory_peak_bytes = (uint64_t)num(sv, "cgroup_memory_peak_bytes");
    m->processes = (uint32_t)num(sv, "processes");
    m->threads = (uint32_t)num(sv, "threads");
    m->samples = (uint32_t)num(sv, "samples");
    m->gone = json_is_true(json_object_get(sv, "exited"));
    if (json_is_array(tree) && json_array_size(tree) &&
        (m->procs = calloc(json_array_size(tree), sizeof(*m->procs))) != NULL) {
        json_array_foreach(tree, i, e) {
            struct monitor_proc *p = &m->procs[m->nprocs++];
            const char *cmd = json_string_value(json_object_get(e, "command"));
            p->pid = (int)num(e, "pid");
            p->ppid = (int)num(e, "ppid");
            snprintf(p->command, sizeof(p->command), "%s", cmd ? cmd : "");
            p->cpu_s = num(e, "cpu_s");
            p->rss_peak_bytes = (uint64_t)num(e, "rss_peak_bytes");
            p->pss_peak_bytes = (uint64_t)num(e, "pss_peak_bytes");
            p->uss_peak_bytes = (uint64_t)num(e, "uss_peak_bytes");
            p->first_seen_s = num(e, "first_seen_s");
            p->exited = json_is_true(json_object_get(e, "exited"));
        }
    }
    if (json_is_array(mt) && json_array_size(mt) &&
        (m->series = calloc(json_array_size(mt), sizeof(*m->series))) != NULL) {
        json_array_foreach(mt, i, e) {
            struct monitor_point *p = &m->series[m->npoints++];
            p->t_s = num(e, "t_s");
            p->pss_bytes = (uint64_t)num(e, "pss_bytes");
            p->rss_bytes = (uint64_t)num(e, "rss_bytes");
        }
    }
}

/* The "config" object of a result into c (defaults where keys are missing);
 * its strings are kept by c. */
static int load_config(json_t *cfg, struct config *c)
{
    json_t *urls = json_object_get(cfg, "urls"), *hs = json_object_get(cfg, "headers"), *e;
    const char *ex = json_string_value(json_object_get(cfg, "expect"));
    const char *arr = json_string_value(json_object_get(cfg, "arrival"));
    const char *m = json_string_value(json_object_get(cfg, "method"));
    const char *ct = json_string_value(json_object_get(cfg, "content_type"));
    char why[128];
    size_t i, n = json_array_size(urls);

    config_defaults(c);
    c->url_text = calloc(n ? n : 1, sizeof(char *));
    if (c->url_text == NULL)
        return -1;
    c->nurls = (uint32_t)n;
    for (i = 0; i < n; i++) {
        const char *u = json_string_value(json_array_get(urls, i));
        if ((c->url_text[i] = config_keep(c, u ? u : "")) == NULL)
            return -1;
    }
    json_array_foreach(hs, i, e)
        if (json_is_string(e) && config_add_header(c, json_string_value(e)) != 0)
            return -1;
    if (m && (c->method = config_keep(c, m)) == NULL)
        return -1;
    if (ct && (c->content_type = config_keep(c, ct)) == NULL)
        return -1;
    c->connections = (uint32_t)num(cfg, "connections");
    c->threads = (uint32_t)num(cfg, "threads");
    c->keepalive = json_is_true(json_object_get(cfg, "keepalive"));
    c->requests = (uint64_t)num(cfg, "requests");
    c->duration_ns = (uint64_t)(num(cfg, "duration_s") * 1e9);
    c->timeout_ns = (uint64_t)(num(cfg, "timeout_s") * 1e9);
    c->connect_timeout_ns = (uint64_t)(num(cfg, "connect_timeout_s") * 1e9);
    c->rate = num(cfg, "rate");
    c->pipeline = (uint32_t)num(cfg, "pipeline");
    c->warmup_ns = (uint64_t)(num(cfg, "warmup_s") * 1e9);
    c->requests_per_conn = (uint64_t)num(cfg, "requests_per_connection");
    c->body_len = (size_t)num(cfg, "body_bytes");
    c->has_body = c->body_len > 0;
    if (ex == NULL || status_set_parse(ex, &c->expect, why, sizeof(why)) != 0)
        status_set_default(&c->expect);
    c->poisson = arr && strcmp(arr, "poisson") == 0;
    return 0;
}

/* One run result object (what --json writes). */
static int load_run(json_t *root, struct loaded_run *run, const char *path, char *err, size_t errlen)
{
    json_t *cfg = json_object_get(root, "config"), *pu = json_object_get(root, "per_url"), *tl, *e, *sv;
    struct config *c = &run->cfg;
    struct engine_result *r = &run->res;
    size_t i, n;

    memset(run, 0, sizeof(*run));
    if (!json_is_object(cfg) || !json_is_array(json_object_get(cfg, "urls")) || !json_is_array(pu) ||
        !json_object_get(root, "summary")) {
        snprintf(err, errlen, "%s: not a rafale result (saved with --json or by rafale compare --json)", path);
        return -1;
    }
    if (load_config(cfg, c) != 0 || stats_init(&r->total) != 0)
        goto oom;
    n = c->nurls;
    r->per_url = calloc(n ? n : 1, sizeof(struct stats));
    r->url_in_flight = calloc(n ? n : 1, sizeof(uint64_t));
    if (r->per_url == NULL || r->url_in_flight == NULL)
        goto oom;
    r->nurls = (uint32_t)n;
    for (i = 0; i < n; i++) {
        if (stats_init(&r->per_url[i]) != 0)
            goto oom;
        e = json_array_get(pu, i);
        if (e) {
            load_stats(&r->per_url[i], e);
            r->url_in_flight[i] = (uint64_t)num(json_object_get(e, "summary"), "in_flight");
        }
    }
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
        run->has_server = 1;
        load_server(&run->server, sv);
    }
    tl = json_object_get(root, "timeline");
    if (json_is_array(tl) && json_array_size(tl)) {
        r->nseconds = (uint32_t)json_array_size(tl);
        r->timeline = calloc(r->nseconds, sizeof(*r->timeline));
        if (r->timeline == NULL)
            goto oom;
        json_array_foreach(tl, i, e) {
            r->timeline[i].requests = (uint64_t)num(e, "requests");
            r->timeline[i].errors = (uint64_t)num(e, "errors");
            r->timeline[i].p50_ns = num(e, "p50_us") * 1e3;
            r->timeline[i].p99_ns = num(e, "p99_us") * 1e3;
            r->timeline[i].max_ns = num(e, "max_us") * 1e3;
        }
    }
    return 0;
oom:
    snprintf(err, errlen, "%s: out of memory", path);
    return -1;
}

static void loaded_run_free(struct loaded_run *run)
{
    engine_result_free(&run->res);
    monitor_result_free(&run->server);
    config_free(&run->cfg);
}

static char *dup_or_null(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? strdup(s) : NULL;
}

/* A compare result: the plan as far as the reports need it, and every run. */
static int load_compare(json_t *cmp, struct loaded *out, const char *path, char *err, size_t errlen)
{
    struct cmp_plan *p = &out->plan;
    struct cmp_result *r = &out->cmp;
    json_t *svs = json_object_get(cmp, "servers"), *wls = json_object_get(cmp, "workloads"), *e, *cpus;
    const char *note = json_string_value(json_object_get(cmp, "note"));
    size_t i, k;
    int s, w;

    if (!json_is_array(svs) || !json_is_array(wls) || json_array_size(svs) == 0 || json_array_size(wls) == 0) {
        snprintf(err, errlen, "%s: not a rafale compare result (servers or workloads missing)", path);
        return -1;
    }
    cmp_settings_defaults(&p->set);
    p->file = dup_or_null(cmp, "plan");
    p->set.repeat = (int)num(cmp, "repeat");
    p->set.grace_ns = (uint64_t)(num(cmp, "grace_s") * 1e9);
    p->set.ready_ns = (uint64_t)(num(cmp, "ready_timeout_s") * 1e9);
    cpus = json_object_get(cmp, "server_cpus");
    json_array_foreach(cpus, i, e)
        if (p->set.nserver_cpus < CMP_MAX_CPUS)
            p->set.server_cpus[p->set.nserver_cpus++] = (int)json_integer_value(e);
    cpus = json_object_get(cmp, "client_cpus");
    json_array_foreach(cpus, i, e)
        if (p->set.nclient_cpus < CMP_MAX_CPUS)
            p->set.client_cpus[p->set.nclient_cpus++] = (int)json_integer_value(e);
    p->nservers = (int)json_array_size(svs);
    p->nworkloads = (int)json_array_size(wls);
    p->servers = calloc((size_t)p->nservers, sizeof(*p->servers));
    p->workloads = calloc((size_t)p->nworkloads, sizeof(*p->workloads));
    if (p->servers == NULL || p->workloads == NULL)
        goto oom;
    for (s = 0; s < p->nservers; s++) {
        struct cmp_server *sv = &p->servers[s];
        e = json_array_get(svs, (size_t)s);
        sv->name = dup_or_null(e, "name");
        sv->url = dup_or_null(e, "url");
        sv->start = dup_or_null(e, "start");
        sv->cgroup = dup_or_null(e, "cgroup");
        sv->version = dup_or_null(e, "version");
        sv->pid = (int)num(e, "pid");
        if (sv->name == NULL)
            sv->name = strdup("?");
        if (sv->url == NULL)
            sv->url = strdup("");
        if (sv->name == NULL || sv->url == NULL)
            goto oom;
    }
    for (w = 0; w < p->nworkloads; w++) {
        struct cmp_workload *wl = &p->workloads[w];
        e = json_array_get(wls, (size_t)w);
        wl->name = dup_or_null(e, "name");
        wl->path = dup_or_null(e, "path");
        if (wl->name == NULL)
            wl->name = strdup("?");
        if (wl->path == NULL)
            wl->path = strdup("/");
        if (wl->name == NULL || wl->path == NULL || load_config(json_object_get(e, "config"), &wl->cfg) != 0)
            goto oom;
        /* The workload itself has no URL: each server has its own. */
        free(wl->cfg.url_text);
        wl->cfg.url_text = NULL;
        wl->cfg.nurls = 0;
    }
    if (cmp_result_init(r, p) != 0)
        goto oom;
    r->interrupted = json_is_true(json_object_get(cmp, "interrupted"));
    r->cgroups = json_is_true(json_object_get(cmp, "cgroups"));
    snprintf(r->note, sizeof(r->note), "%s", note ? note : "");
    for (s = 0; s < p->nservers; s++) {
        const char *why = json_string_value(json_object_get(json_array_get(svs, (size_t)s), "reason"));
        r->failed[s] = json_is_true(json_object_get(json_array_get(svs, (size_t)s), "failed"));
        snprintf(r->failure[s], 512, "%s", why ? why : "");
    }
    for (w = 0; w < p->nworkloads; w++) {
        json_t *cells = json_object_get(json_array_get(wls, (size_t)w), "servers");
        for (s = 0; s < p->nservers && s < (int)json_array_size(cells); s++) {
            json_t *cell = json_array_get(cells, (size_t)s), *runs = json_object_get(cell, "run_results"), *ro;
            struct cmp_cell *c = cmp_cell(r, w, s);
            c->url = dup_or_null(cell, "url");
            json_array_foreach(runs, k, ro) {
                struct loaded_run lr;
                if (load_run(ro, &lr, path, err, errlen) != 0) {
                    loaded_run_free(&lr);
                    return -1;
                }
                if (cmp_add_run(c, &lr.res, lr.has_server ? &lr.server : NULL) != 0) {
                    loaded_run_free(&lr);
                    goto oom;
                }
                loaded_run_free(&lr);
            }
        }
    }
    cmp_summarize(p, r);
    return 0;
oom:
    snprintf(err, errlen, "%s: out of memory", path);
    return -1;
}

int report_load(const char *path, struct loaded *out, char *err, size_t errlen)
{
    json_error_t je;
    json_t *root, *cmp;
    int rc;

    memset(out, 0, sizeof(*out));
    root = json_load_file(path, 0, &je);
    if (root == NULL) {
        snprintf(err, errlen, "%s:%d: not JSON: %s", path, je.line, je.text);
        return -1;
    }
    cmp = json_object_get(root, "compare");
    if (json_is_object(cmp)) {
        out->is_compare = 1;
        rc = load_compare(cmp, out, path, err, errlen);
    } else {
        rc = load_run(root, &out->run, path, err, errlen);
    }
    json_decref(root);
    return rc;
}

void report_load_free(struct loaded *l)
{
    if (l->is_compare) {
        cmp_result_free(&l->cmp);
        cmp_plan_free(&l->plan);
    } else {
        loaded_run_free(&l->run);
    }
    memset(l, 0, sizeof(*l));
}
