/* compare_result.c - a compare's result: its cells and the runs added to
 * them (as they are made, or read back from saved results), summed up: the
 * medians, the verdicts between servers (with their intervals), what makes
 * a run's CPU figure implausible, the memory figure each server gives, the
 * findings of the runs as the cell's. A saved compare is summed up again
 * by the same code, so it rebuilds exactly. */
#include "compare.h"
#include "findings.h"
#include "units.h"
#include "verdict.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct compare_cell *compare_cell_at(const struct compare_result *r, int w, int s)
{
    return &r->cells[w * r->nservers + s];
}

int compare_result_init(struct compare_result *r, const struct compare_file *p)
{
    int i;
    memset(r, 0, sizeof(*r));
    r->nworkloads = p->nworkloads;
    r->nservers = p->nservers;
    r->cells = calloc((size_t)(p->nworkloads * p->nservers), sizeof(*r->cells));
    r->failed = calloc((size_t)p->nservers, sizeof(int));
    r->failure = calloc((size_t)p->nservers, sizeof(char *));
    r->output = calloc((size_t)p->nservers, sizeof(char *));
    r->alike = calloc((size_t)(p->nworkloads ? p->nworkloads : 1), sizeof(*r->alike));
    if (r->cells == NULL || r->failed == NULL || r->failure == NULL || r->output == NULL || r->alike == NULL)
        return -1;
    for (i = 0; i < p->nworkloads * p->nservers; i++)
        if (stats_init(&r->cells[i].total) != 0)
            return -1;
    for (i = 0; i < p->nservers; i++)
        if ((r->failure[i] = calloc(1, CMP_WHY_MAX)) == NULL || (r->output[i] = calloc(1, CMP_OUTPUT_MAX + 1)) == NULL)
            return -1;
    return 0;
}

void compare_result_free(struct compare_result *r)
{
    int i, k;
    for (i = 0; r->cells && i < r->nworkloads * r->nservers; i++) {
        struct compare_cell *c = &r->cells[i];
        for (k = 0; k < c->nruns; k++)
            result_free(&c->runs[k]);
        free(c->runs);
        free(c->url);
        stats_fini(&c->total);
    }
    for (i = 0; r->failure && i < r->nservers; i++)
        free(r->failure[i]);
    for (i = 0; r->output && i < r->nservers; i++)
        free(r->output[i]);
    for (i = 0; r->alike && i < r->nworkloads; i++)
        free(r->alike[i].diff);
    free(r->alike);
    free(r->cells);
    free(r->failed);
    free(r->failure);
    free(r->output);
    memset(r, 0, sizeof(*r));
}

int compare_add_run(struct compare_cell *c, struct run_result *res)
{
    if (c->nruns == c->caprun) {
        int cap = c->caprun ? c->caprun * 2 : 4;
        struct run_result *n = realloc(c->runs, (size_t)cap * sizeof(*n));
        if (n == NULL)
            return -1;
        c->runs = n;
        c->caprun = cap;
    }
    result_move(&c->runs[c->nruns++], res);
    return 0;
}

int compare_saved_init(struct compare_file *p, struct compare_result *r, const struct config *cfg, int n)
{
    memset(p, 0, sizeof(*p));
    memset(r, 0, sizeof(*r));
    compare_settings_defaults(&p->set);
    p->set.repeat = 1;
    p->set.repeat_auto = 0;
    p->nworkloads = 1;
    p->nservers = n;
    p->workloads = calloc(1, sizeof(*p->workloads));
    p->servers = calloc((size_t)n, sizeof(*p->servers));
    if (p->workloads == NULL || p->servers == NULL || compare_result_init(r, p) != 0)
        return -1;
    p->workloads[0].name = strdup("saved runs");
    p->workloads[0].path = strdup("/");
    if (p->workloads[0].name == NULL || p->workloads[0].path == NULL || config_copy(&p->workloads[0].cfg, cfg) != 0)
        return -1;
    return 0;
}

int compare_saved_add(struct compare_file *p, struct compare_result *r, int k, const char *name, const char *url,
                  struct run_result *res)
{
    struct compare_server *sv = &p->servers[k];
    sv->name = strdup(name);
    sv->url = strdup(url);
    if (sv->name == NULL || sv->url == NULL)
        return -1;
    return compare_add_run(compare_cell_at(r, 0, k), res);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* A cell's findings: each one any of its runs found, the first run's
 * figures, and in how many runs (evidence "runs"). */
static void merge_findings(struct findings *cell, const struct findings *run)
{
    int i;
    for (i = 0; i < run->n; i++) {
        struct finding *f = (struct finding *)findings_named(cell, run->f[i].id);
        if (f == NULL && cell->n < FINDINGS_MAX) {
            f = &cell->f[cell->n++];
            *f = run->f[i];
            if (f->nev < FINDING_EV_MAX) {
                snprintf(f->ev[f->nev].key, sizeof(f->ev[f->nev].key), "runs");
                f->ev[f->nev++].v = 0;
            }
        }
        if (f && f->nev && strcmp(f->ev[f->nev - 1].key, "runs") == 0)
            f->ev[f->nev - 1].v++;
    }
}

/* "(in 2 of 3 runs) " before a finding not every run found. */
static void runs_note(struct finding *f, int nruns)
{
    char buf[sizeof(f->summary) + 64];
    double n = findings_ev(f, "runs", nruns);
    size_t len;
    if (n >= nruns)
        return;
    len = (size_t)snprintf(buf, sizeof(buf), "(in %.0f of %d runs) %s", n, nruns, f->summary);
    if (len >= sizeof(f->summary))
        len = sizeof(f->summary) - 1; /* cut: the figures stay in the evidence */
    memcpy(f->summary, buf, len);
    f->summary[len] = '\0';
}

/* Sorts v in place and returns its median. */
static double median(double *v, int n)
{
    if (n <= 0)
        return 0;
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double run_rps(const struct run_result *run)
{
    return run->fig.elapsed_s > 0 ? (double)run->fig.total.completed / run->fig.elapsed_s : 0;
}

double compare_own_ci(const struct run_result *run)
{
    const struct interval *ci = &run->fig.ci.rps;
    if (ci->batches && ci->est > 0 && isfinite(ci->lo) && isfinite(ci->hi) && ci->hi >= ci->lo)
        return (ci->hi - ci->lo) / 2 / ci->est;
    return NAN;
}

/* Cell (w, s) as verdict.c takes it: its rounds' throughput into rps and
 * which were busy into busy (room for its runs each), and the step of its
 * rounds' counts. */
static void verdict_input(const struct compare_file *p, const struct compare_result *r, int w, int s, double *rps,
                          unsigned char *busy, struct verdict_cell *vc)
{
    const struct compare_cell *c = compare_cell_at(r, w, s);
    const struct config *cfg = &p->workloads[w].cfg;
    int k, n = 0, nci = 0;
    memset(vc, 0, sizeof(*vc));
    for (k = 0; k < c->nruns; k++) {
        const struct run_result *run = &c->runs[k];
        double own = compare_own_ci(run);
        rps[k] = run_rps(run);
        /* Its own interval, from its batches of time: what this round alone can tell. */
        if (!isnan(own)) {
            vc->own_ci += own;
            nci++;
        }
        busy[k] = (unsigned char)findings_machine_busy(run);
        /* A duration-bound round counts whole requests, and connections in
         * step finish together: its count moves by c at once. A count-bound
         * one is timed to the nanosecond. The mean of the rounds' steps
         * bounds what the rounds' mean log can be off by. */
        if (cfg->requests == 0 && run->fig.total.completed) {
            vc->resolution += (double)(cfg->connections ? cfg->connections : 1) / (double)run->fig.total.completed;
            n++;
        }
    }
    if (n)
        vc->resolution /= n;
    if (nci)
        vc->own_ci /= nci;
    vc->rps = rps;
    vc->busy = busy;
    vc->nrounds = c->nruns;
    vc->valid = c->nruns > 0 && !c->invalid && !r->failed[s];
}

/* What verdict_pair's duration_auto says of a workload. */
static int duration_auto(const struct compare_workload *wl)
{
    return wl->duration_auto ? 1 + wl->auto_max : 0;
}

void compare_pair(const struct compare_file *p, const struct compare_result *r, int w, int a, int b, struct verdict_pair *out)
{
    const struct compare_cell *ca = compare_cell_at(r, w, a), *cb = compare_cell_at(r, w, b);
    double *ra = calloc((size_t)ca->nruns + 1, sizeof(double)), *rb = calloc((size_t)cb->nruns + 1, sizeof(double));
    unsigned char *ba = calloc((size_t)ca->nruns + 1, 1), *bb = calloc((size_t)cb->nruns + 1, 1);
    struct verdict_cell va, vb;
    memset(out, 0, sizeof(*out));
    out->verdict = VERDICT_INVALID;
    out->ci[0] = out->ci[1] = NAN;
    if (ra && rb && ba && bb) {
        verdict_input(p, r, w, a, ra, ba, &va);
        verdict_input(p, r, w, b, rb, bb, &vb);
        if (va.valid && vb.valid)
            verdict_pair(&va, &vb, p->set.same_within, out);
    }
    out->duration_auto = duration_auto(&p->workloads[w]);
    free(ra);
    free(rb);
    free(ba);
    free(bb);
}

/* Workload w's verdicts (verdict.c): each cell's intervals, its ratio to
 * the best paired by round, its verdict and rank, and against the
 * baseline. */
static void verdicts(const struct compare_file *p, struct compare_result *r, int w)
{
    struct verdict_cell *vc = calloc((size_t)r->nservers, sizeof(*vc));
    double **rps = calloc((size_t)r->nservers, sizeof(*rps)), *p50 = NULL, *p99 = NULL;
    unsigned char **busy = calloc((size_t)r->nservers, sizeof(*busy));
    int s, k, most = 0;
    if (vc == NULL || rps == NULL || busy == NULL)
        goto out;
    for (s = 0; s < r->nservers; s++)
        if (compare_cell_at(r, w, s)->nruns > most)
            most = compare_cell_at(r, w, s)->nruns;
    p50 = calloc((size_t)(most ? most : 1), sizeof(double));
    p99 = calloc((size_t)(most ? most : 1), sizeof(double));
    if (p50 == NULL || p99 == NULL)
        goto out;
    for (s = 0; s < r->nservers; s++) {
        struct compare_cell *c = compare_cell_at(r, w, s);
        if ((rps[s] = calloc((size_t)(c->nruns ? c->nruns : 1), sizeof(double))) == NULL ||
            (busy[s] = calloc((size_t)(c->nruns ? c->nruns : 1), 1)) == NULL)
            goto out;
        for (k = 0; k < c->nruns; k++) {
            p50[k] = hist_percentile(&c->runs[k].fig.total.h[H_LATENCY], 50) / 1e3;
            p99[k] = hist_percentile(&c->runs[k].fig.total.h[H_LATENCY], 99) / 1e3;
        }
        verdict_input(p, r, w, s, rps[s], busy[s], &vc[s]);
        verdict_log_ci(rps[s], c->nruns, c->rps_ci);
        verdict_log_ci(p50, c->nruns, c->p50_ci_us);
        verdict_log_ci(p99, c->nruns, c->p99_ci_us);
    }
    verdict_rank(vc, r->nservers, p->set.same_within);
    for (s = 0; s < r->nservers; s++) {
        struct compare_cell *c = compare_cell_at(r, w, s);
        c->ratio = vc[s].ratio;
        c->ratio_ci[0] = vc[s].ratio_ci[0];
        c->ratio_ci[1] = vc[s].ratio_ci[1];
        c->verdict = vc[s].verdict;
        c->vs_best = vc[s].vs_best;
        c->rank = vc[s].rank;
        memset(&c->vs_base, 0, sizeof(c->vs_base));
        c->vs_base.verdict = VERDICT_INVALID;
        c->vs_base.ci[0] = c->vs_base.ci[1] = NAN;
        if (p->baseline > 0 && p->baseline - 1 < r->nservers && s != p->baseline - 1 && vc[s].valid &&
            vc[p->baseline - 1].valid)
            verdict_pair(&vc[s], &vc[p->baseline - 1], p->set.same_within, &c->vs_base);
        c->vs_best.duration_auto = c->vs_base.duration_auto = duration_auto(&p->workloads[w]);
    }
out:
    for (s = 0; rps && s < r->nservers; s++)
        free(rps[s]);
    for (s = 0; busy && s < r->nservers; s++)
        free(busy[s]);
    free(rps);
    free(busy);
    free(vc);
    free(p50);
    free(p99);
}

/* The least CPU a server spends on an answer: below it, the answers came
 * from some other process than the one watched (a stale server on the
 * port, targets on another host, a pid that is not the server). Not
 * pipelined, an answer costs the server at least a read and a write system
 * call, about 1 us together even on a fast machine; pipelined or
 * multiplexed, those calls are shared by the requests in flight on a
 * connection, so the floor is divided by that depth. rafale serve, the
 * fastest server we know, spent 9.6 us per answer keep-alive and 255 ns
 * with pipelining 64 (floor 16 ns) on a 2-core VM (README, "Is the server
 * measured the one answering?"): 10 to 16 times the floor. Judged over
 * CPU_FLOOR_ANSWERS answers at least, so a few stray requests prove
 * nothing; with /proc's ticks (no cgroup) only when the ticks counted plus
 * one per process seen (the rounding) stay under it. */
#define CPU_FLOOR_NS 1000.0
#define CPU_FLOOR_ANSWERS 1000

/* Why run k's answers cannot be the watched server's, in why; 0 when
 * they can (or nothing tells). */
static int implausible_cpu(const struct config *cfg, const struct run_result *run, int k, char *why, size_t len)
{
    uint64_t n = run->fig.total.completed;
    double depth = config_depth(cfg);
    double floor_s = (double)n * CPU_FLOOR_NS / depth / 1e9, most = run->server.cpu_s;
    char per[32], fl[32];
    if (!run->has_server || n < CPU_FLOOR_ANSWERS)
        return 0;
    if (!run->server.cpu_exact)
        most += (double)(run->server.nprocs + 1) / (double)sysconf(_SC_CLK_TCK);
    if (most >= floor_s)
        return 0;
    snprintf(why, len, "the server watched used %s of CPU per answer in round %d (%llu answers), under the %s "
                       "any server needs: another process answered",
             units_fmt_ns(per, sizeof(per), run->server.cpu_s * 1e9 / (double)n), k + 1, (unsigned long long)n,
             units_fmt_ns(fl, sizeof(fl), CPU_FLOOR_NS / depth));
    return 1;
}

const char *compare_mem_name(int kind)
{
    return kind == CMP_MEM_ALONE ? "alone" : kind == CMP_MEM_PSS ? "PSS" : "RSS";
}

const char *compare_mem_key(int kind)
{
    return kind == CMP_MEM_ALONE ? "alone" : kind == CMP_MEM_PSS ? "pss" : "rss";
}

static int run_mem_kind(const struct monitor_result *m)
{
    return m->has_alone ? CMP_MEM_ALONE : m->has_pss ? CMP_MEM_PSS : CMP_MEM_RSS;
}

/* A run's memory peak in the given measure (no more exact than its own). */
static uint64_t run_mem(const struct monitor_result *m, int kind)
{
    return kind == CMP_MEM_ALONE ? m->alone_peak_bytes : kind == CMP_MEM_PSS ? m->pss_peak_bytes : m->rss_peak_bytes;
}

void compare_summarize(const struct compare_file *p, struct compare_result *r)
{
    int w, s, k;
    for (w = 0; w < r->nworkloads; w++)
        for (s = 0; s < r->nservers; s++) {
            const struct config *cfg = &p->workloads[w].cfg;
            struct compare_cell *c = compare_cell_at(r, w, s);
            double *rps = calloc((size_t)(c->nruns ? c->nruns : 1), sizeof(double));
            double *cpu = calloc((size_t)(c->nruns ? c->nruns : 1), sizeof(double));
            int ncpu = 0, kind = CMP_MEM_ALONE;

            stats_fini(&c->total);
            stats_init(&c->total);
            c->rps_min = INFINITY;
            c->rps_max = 0;
            c->mem_peak = 0;
            c->best_run = -1;
            c->client_bound = 0;
            memset(&c->found, 0, sizeof(c->found));
            for (k = 0; k < c->nruns; k++) {
                const struct run_result *run = &c->runs[k];
                double v = run_rps(run);
                stats_merge(&c->total, &run->fig.total);
                if (rps)
                    rps[k] = v;
                if (v < c->rps_min)
                    c->rps_min = v;
                if (v > c->rps_max)
                    c->rps_max = v;
                if (run->has_server) {
                    /* No tick counted by /proc is no measurement, not zero. */
                    if (run->fig.total.completed && cpu && (run->server.cpu_s > 0 || run->server.cpu_exact))
                        cpu[ncpu++] = run->server.cpu_s * 1e6 / (double)run->fig.total.completed;
                    if (run_mem_kind(&run->server) < kind)
                        kind = run_mem_kind(&run->server);
                }
                /* Saturated, it and not the server set the pace: the
                 * findings' rule decides (thread CPU time against the
                 * time it had). */
                if (findings_get(&run->found, FINDING_CLIENT_CPU_BOUND) ||
                    (cfg->no_findings &&
                     run->fig.client_cpu_s > 0.9 * (run->fig.elapsed_s + (double)cfg->warmup_ns / 1e9) *
                                                 (cfg->threads ? cfg->threads : 1)))
                    c->client_bound = 1; /* without findings, its CPU time against the time it had */
                merge_findings(&c->found, &run->found);
            }
            /* Runs measured differently: like with like, each in the
             * least exact measure of them all. */
            c->mem_kind = kind;
            for (k = 0; k < c->nruns; k++) {
                uint64_t mem;
                if (!c->runs[k].has_server)
                    continue;
                mem = run_mem(&c->runs[k].server, kind);
                if (c->best_run < 0 || mem > c->mem_peak) {
                    c->mem_peak = mem;
                    c->best_run = k;
                }
            }
            if (c->nruns == 0)
                c->rps_min = 0;
            c->rps_median = rps ? median(rps, c->nruns) : 0;
            c->server_cpu_us = ncpu && cpu ? median(cpu, ncpu) : -1;
            c->unstable = c->nruns > 1 && c->rps_median > 0 && (c->rps_max - c->rps_min) / c->rps_median > 0.10;
            c->bad_pct = c->total.completed ? 100.0 * (double)c->total.bad_status / (double)c->total.completed : 0;
            c->implausible_cpu[0] = '\0';
            for (k = 0; k < c->nruns && !implausible_cpu(cfg, &c->runs[k], k, c->implausible_cpu,
                                                          sizeof(c->implausible_cpu)); k++)
                ;
            c->invalid = c->nruns > 0 && (c->total.completed == 0 || c->bad_pct > 50 || c->implausible_cpu[0]);
            c->conns_per_req = c->total.completed ? (double)c->total.conns_opened / (double)c->total.completed : 0;
            c->keepalive_refused = cfg->keepalive && c->total.completed >= 10 && c->conns_per_req > 0.9;
            /* An SLO holds over every repetition together: the merged
             * histograms, and throughput over the runs' summed time. */
            c->slo = cfg->slo;
            c->slo_failed = 0;
            if (c->slo.n && c->nruns) {
                double el = 0;
                for (k = 0; k < c->nruns; k++)
                    el += c->runs[k].fig.elapsed_s;
                c->slo_failed = slo_eval(&c->slo, &c->total, el);
            }
            for (k = 0; k < c->found.n; k++)
                runs_note(&c->found.f[k], c->nruns);
            free(rps);
            free(cpu);
        }
    for (w = 0; w < r->nworkloads; w++)
        verdicts(p, r, w);
}
