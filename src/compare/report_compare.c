/* report_compare.c - the results of `rafale compare`: a table per workload
 * (hyperfine-style ratios to the best valid result), the servers' processes,
 * and JSON holding every run in full. The HTML page is in
 * report_compare_html.c. */
#include "compare.h"
#include "report.h"
#include "report_compare.h"
#include "verdict.h"
#include "units.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The best median req/s of workload w among the servers whose result is
 * valid. */
double report_compare_best_rps(const struct compare_result *r, int w)
{
    double best = 0;
    int s;
    for (s = 0; s < r->nservers; s++) {
        const struct compare_cell *c = compare_cell_at(r, w, s);
        if (!r->failed[s] && c->nruns && !c->invalid && c->rps_median > best)
            best = c->rps_median;
    }
    return best;
}

/* An interval of ratios, "1.31\xe2\x80\x931.65": two decimals, three where a
 * bound would read 1.00 without being 1 (a slower verdict whose interval
 * shows "1.00" would seem to contradict itself). */
static const char *ci_text(char b[48], const double ci[2])
{
    char lo[16], hi[16];
    snprintf(lo, sizeof(lo), fabs(ci[0] - 1) < 0.005 && ci[0] != 1 ? "%.3f" : "%.2f", ci[0]);
    snprintf(hi, sizeof(hi), fabs(ci[1] - 1) < 0.005 && ci[1] != 1 ? "%.3f" : "%.2f", ci[1]);
    snprintf(b, 48, "%s\xe2\x80\x93%s", lo, hi);
    return b;
}

const char *report_compare_pair_text(char *b, size_t n, const struct verdict_pair *v, int brief)
{
    char ci[48];
    double inv[2] = { 1 / v->ci[1], 1 / v->ci[0] };
    if (v->verdict == VERDICT_INVALID)
        snprintf(b, n, "-");
    else if (v->verdict == VERDICT_UNDECIDED && v->why == VWHY_BUSY && !brief)
        snprintf(b, n, "undecided (the machine busy in %d of %d rounds)", v->busy, v->busy + v->n);
    else if (v->verdict == VERDICT_UNDECIDED && isnan(v->ci[0]))
        snprintf(b, n, brief ? "undecided" : "undecided (%d round%s: no interval)", v->n, v->n == 1 ? "" : "s");
    else if (brief)
        snprintf(b, n, v->verdict == VERDICT_SAME        ? "same"
                       : v->verdict == VERDICT_UNDECIDED ? "undecided"
                       : v->verdict == VERDICT_SLOWER    ? "%.2fx slower"
                                                         : "%.2fx faster",
                 v->verdict == VERDICT_SLOWER ? v->ratio : 1 / v->ratio);
    else if (v->verdict == VERDICT_SAME)
        snprintf(b, n, "same (%s)", ci_text(ci, v->ci));
    else if (v->verdict == VERDICT_UNDECIDED)
        snprintf(b, n, "undecided (%s)", ci_text(ci, v->ci));
    else if (v->verdict == VERDICT_SLOWER)
        snprintf(b, n, "%.2fx slower (%s)", v->ratio, ci_text(ci, v->ci));
    else
        snprintf(b, n, "%.2fx faster (%s)", 1 / v->ratio, ci_text(ci, inv));
    return b;
}

const char *report_compare_ratio_text(char *b, size_t n, const struct compare_cell *c, double best)
{
    /* The ratio is time per request over the best's, paired by round,
     * with its 95% interval (verdict.c). */
    (void)best;
    if (c->invalid)
        snprintf(b, n, "not valid");
    else if (c->nruns == 0 || c->verdict == VERDICT_INVALID)
        snprintf(b, n, "-");
    else if (c->verdict == VERDICT_BEST)
        snprintf(b, n, "best");
    else
        report_compare_pair_text(b, n, &c->vs_best, 0);
    return b;
}

int report_compare_why(char *b, size_t n, const struct compare_file *p, const struct compare_result *r, int w, int s)
{
    const struct compare_cell *c = compare_cell_at(r, w, s);
    const struct verdict_pair *v = c->verdict == VERDICT_UNDECIDED ? &c->vs_best : &c->vs_base;
    int other = -1, k;
    char why[400];
    if (r->failed[s] || c->invalid || c->nruns == 0)
        return 0;
    if (c->verdict == VERDICT_UNDECIDED) {
        for (k = 0; k < r->nservers; k++)
            if (compare_cell_at(r, w, k)->verdict == VERDICT_BEST)
                other = k;
    } else if (c->vs_base.verdict == VERDICT_UNDECIDED) {
        other = p->baseline - 1;
    }
    if (other < 0)
        return 0;
    snprintf(b, n, "%s against %s: undecided: %s", p->servers[s].name, p->servers[other].name,
             verdict_why_text(why, sizeof(why), v, &p->set));
    return 1;
}

/* "GET /, 50 connections, keep-alive, 10000 requests, 2 headers, ..." */
void report_compare_describe(char *b, size_t n, const struct compare_workload *wl)
{
    const struct config *c = &wl->cfg;
    char d[32];
    size_t u = 0;
#define ADD(...) do { int w_ = snprintf(b + u, n > u ? n - u : 0, __VA_ARGS__); if (w_ > 0) u += (size_t)w_; } while (0)
    if (c->replay_path) {
        const char *slash = strrchr(c->replay_path, '/');
        ADD("replay %s at speed %g, up to %u connections", slash ? slash + 1 : c->replay_path,
            c->replay_speed > 0 ? c->replay_speed : 1, c->connections_given ? c->connections : 1024);
        if (c->replay_limit)
            ADD(", its first %llu requests", (unsigned long long)c->replay_limit);
    } else if (c->targets_path) {
        const char *slash = strrchr(c->targets_path, '/');
        ADD("targets %s, %u connections, %s", slash ? slash + 1 : c->targets_path, c->connections,
            c->keepalive ? "keep-alive" : "a new connection per request");
    } else {
        ADD("%s %s, %u connections, %s", c->method, wl->path, c->connections,
            c->keepalive ? "keep-alive" : "a new connection per request");
    }
    if (config_proto(c)->takes & TAKES_STREAMS)
        ADD(", %s x %u stream%s", config_proto(c)->label, config_depth(c), config_depth(c) > 1 ? "s" : "");
    else if (config_depth(c) > 1)
        ADD(", pipelining %u", config_depth(c));
    if (c->rate > 0)
        ADD(", %.0f req/s", c->rate);
    if (c->requests)
        ADD(", %llu requests", (unsigned long long)c->requests);
    if (wl->duration_auto)
        ADD(", %s (duration = auto%s)", units_fmt_ns(d, sizeof(d), (double)c->duration_ns),
            wl->auto_max ? ": max-duration reached, the rounds' own intervals still wider than half the band" : "");
    else if (c->duration_ns && (!c->requests || c->duration_ns != 5000000000ULL))
        ADD(", %s", units_fmt_ns(d, sizeof(d), (double)c->duration_ns));
    if (c->nheaders)
        ADD(", %u header%s", c->nheaders, c->nheaders == 1 ? "" : "s");
    if (c->has_body)
        ADD(", %zu-byte body", c->body_len);
    if (strcmp(c->expect.text, "2xx,3xx") != 0)
        ADD(", expect %s", c->expect.text);
#undef ADD
}

void report_compare_cpu_mem(const struct compare_cell *c, int named, char *cpu, size_t cn, char *mem, size_t mn)
{
    char b[32];
    if (c->server_cpu_us >= 0)
        units_fmt_ns(cpu, cn, c->server_cpu_us * 1e3);
    else
        snprintf(cpu, cn, "-");
    if (c->best_run >= 0)
        snprintf(mem, mn, "%s%s%s", units_fmt_bytes(b, sizeof(b), (double)c->mem_peak), named ? " " : "",
                 named ? compare_mem_name(c->mem_kind) : "");
    else
        snprintf(mem, mn, "-");
}

int report_compare_name_width(const struct compare_file *p)
{
    int s, w = 6;
    for (s = 0; s < p->nservers; s++)
        if ((int)strlen(p->servers[s].name) > w)
            w = (int)strlen(p->servers[s].name);
    return w > 40 ? 40 : w;
}

/* The statuses outside the expected set, "502: 9000, 500: 12". */
void report_compare_bad_codes(char *b, size_t n, const struct stats *t, const struct status_set *expect)
{
    size_t u = 0;
    unsigned i;
    int k = 0;
    b[0] = '\0';
    for (i = 0; i < STATUS_MAX && k < 4; i++)
        if (t->status[i] && !status_set_has(expect, i)) {
            int w = snprintf(b + u, n > u ? n - u : 0, "%s%u: %llu", k++ ? ", " : "", i, (unsigned long long)t->status[i]);
            if (w > 0)
                u += (size_t)w;
        }
}

/* Why the server closed keep-alive connections, in words. */
const char *report_compare_close_why(const struct stats *t)
{
    int k, top = 0;
    for (k = 1; k < CLOSE_IDLE; k++)
        if (t->closes[k] > t->closes[top])
            top = k;
    return t->closes[top] ? stats_close_explain((enum close_kind)top) : "closed without saying why";
}

int report_compare_mem_mixed(const struct compare_result *r, int w)
{
    int s, kind = -1;
    for (s = 0; s < r->nservers; s++) {
        const struct compare_cell *c = compare_cell_at(r, w, s);
        if (c->best_run < 0)
            continue;
        if (kind >= 0 && c->mem_kind != kind)
            return 1;
        kind = c->mem_kind;
    }
    return 0;
}

const char *report_compare_mem_label(const struct compare_result *r, int w)
{
    int s;
    if (report_compare_mem_mixed(r, w))
        return "memory peak";
    for (s = 0; s < r->nservers; s++) {
        const struct compare_cell *c = compare_cell_at(r, w, s);
        if (c->best_run >= 0)
            return c->mem_kind == CMP_MEM_ALONE ? "alone peak" : c->mem_kind == CMP_MEM_PSS ? "PSS peak" : "RSS peak";
    }
    return "memory peak";
}

/* " [!] id, id" of a cell's warnings, after a verdict. */
static void warn_ids(char *b, size_t n, size_t *u, const struct findings *fs)
{
    int i, first = 1;
    for (i = 0; i < fs->n; i++) {
        int w_;
        if (!fs->f[i].warning)
            continue;
        w_ = snprintf(b + *u, n > *u ? n - *u : 0, "%s%s", first ? ", [!] " : ", ", fs->f[i].id);
        if (w_ > 0)
            *u += (size_t)w_;
        first = 0;
    }
}

void report_compare_verdict_line(char *b, size_t n, const struct compare_file *p, const struct compare_result *r, int w)
{
    size_t u = 0;
    char ci[48];
    int s, k, best = -1, others = 0, undecided = 0, faster = 0;
#define VADD(...) do { int w_ = snprintf(b + u, n > u ? n - u : 0, __VA_ARGS__); if (w_ > 0) u += (size_t)w_; } while (0)
    b[0] = '\0';
    for (s = 0; s < r->nservers; s++)
        if (compare_cell_at(r, w, s)->verdict == VERDICT_BEST && compare_cell_at(r, w, s)->nruns)
            best = s;
    if (best < 0) {
        VADD("no valid result.");
        return;
    }
    /* "Fastest" is a claim: every other valid result decided slower than
     * the best (the reference the others are paired with), or the same.
     * One undecided might be as fast or faster; one decided faster (rounds
     * the best lacks or the machine took, left out of the pair) is; and
     * with no other valid result nothing was compared. The line then
     * names the reference and claims nothing. */
    for (s = 0; s < r->nservers; s++) {
        const struct compare_cell *c = compare_cell_at(r, w, s);
        if (s == best || !c->nruns || c->invalid || r->failed[s])
            continue;
        others++;
        undecided += c->verdict == VERDICT_UNDECIDED;
        faster += c->verdict == VERDICT_FASTER;
    }
    if (r->alike && r->alike[w].ndiff)
        VADD("(servers do not answer alike) ");
    VADD("%s: %s (%.0f req/s)",
         !others     ? "Only valid result"
         : undecided ? "No fastest decided. Reference"
         : faster    ? "Reference"
                     : "Fastest",
         p->servers[best].name, compare_cell_at(r, w, best)->rps_median);
    warn_ids(b, n, &u, &compare_cell_at(r, w, best)->found);
    VADD(".");
    for (k = 0; k < 5; k++)
        /* In order: the same as the fastest, slower, faster (rounds missing
         * from the best), undecided, not valid. */
        for (s = 0; s < r->nservers; s++) {
            const struct compare_cell *c = compare_cell_at(r, w, s);
            char what[96];
            if (s == best || (c->nruns == 0 && !r->failed[s]))
                continue;
            if (k == 0 && c->verdict == VERDICT_SAME && !c->invalid)
                VADD(" %s: same as %s (%s)", p->servers[s].name, p->servers[best].name, ci_text(ci, c->ratio_ci));
            else if (k == 1 && (c->verdict == VERDICT_SLOWER || c->verdict == VERDICT_FASTER) && !c->invalid)
                VADD(" %s %s", p->servers[s].name, report_compare_pair_text(what, sizeof(what), &c->vs_best, 0));
            else if (k == 2 && c->verdict == VERDICT_UNDECIDED && !c->invalid && !isnan(c->ratio_ci[0]))
                VADD(" %s: undecided against %s, %.2fx (%s)", p->servers[s].name, p->servers[best].name, c->ratio,
                     ci_text(ci, c->ratio_ci));
            else if (k == 3 && c->verdict == VERDICT_UNDECIDED && !c->invalid && c->vs_best.why == VWHY_BUSY)
                VADD(" %s: undecided against %s, %.2fx (the machine was busy in %d of %d rounds: no interval)",
                     p->servers[s].name, p->servers[best].name, c->ratio, c->vs_best.busy,
                     c->vs_best.busy + c->vs_best.n);
            else if (k == 3 && c->verdict == VERDICT_UNDECIDED && !c->invalid && isnan(c->ratio_ci[0]))
                VADD(" %s: undecided against %s, %.2fx in %d round%s (no interval)", p->servers[s].name,
                     p->servers[best].name, c->ratio, c->vs_best.n, c->vs_best.n == 1 ? "" : "s");
            else if (k == 4 && (c->invalid || r->failed[s]))
                VADD(" %s: not valid (%s)", p->servers[s].name,
                     r->failed[s] ? "failed" : c->total.completed ? "bad statuses" : "no response");
            else
                continue;
            warn_ids(b, n, &u, &c->found);
            VADD(".");
        }
#undef VADD
}

uint32_t report_compare_targets(const struct compare_result *r, int w, const struct config **cfg)
{
    int s, k;
    for (s = 0; s < r->nservers; s++) {
        const struct compare_cell *c = compare_cell_at(r, w, s);
        for (k = 0; k < c->nruns; k++)
            if (c->runs[k].cfg && c->runs[k].fig.ntargets > 1) {
                *cfg = c->runs[k].cfg;
                return c->runs[k].fig.ntargets;
            }
    }
    return 0;
}

const char *report_compare_target_label(const struct config *cfg, uint32_t i, char *buf, size_t n)
{
    const char *u, *path;
    if (i >= cfg->ntargets)
        return "?";
    if (report_is_other(cfg, i) || (cfg->targets && cfg->targets[i].name))
        return report_label(cfg, i, buf, n);
    u = cfg->url_text[i];
    path = strstr(u, "://");
    path = path ? strchr(path + 3, '/') : NULL;
    snprintf(buf, n, "%s %s", report_method(cfg, i), path ? path : u);
    return buf;
}

double report_compare_target(const struct compare_cell *c, uint32_t i, struct stats *out)
{
    double el = 0;
    int k;
    stats_init(out);
    for (k = 0; k < c->nruns; k++)
        if (i < c->runs[k].fig.ntargets && c->runs[k].fig.per_target) {
            stats_merge(out, &c->runs[k].fig.per_target[i]);
            el += c->runs[k].fig.elapsed_s;
        }
    return el > 0 ? (double)out->completed / el : 0;
}

/* A targets workload: a row per target and server, every round merged,
 * so the endpoint that is slow on one server is seen. */
static void targets_block(FILE *f, const struct compare_file *p, const struct compare_result *r, int w, int nw)
{
    const struct config *cfg = NULL;
    uint32_t n = report_compare_targets(r, w, &cfg), i;
    size_t tw = 6;
    char lb[600];
    int s;
    if (n == 0)
        return;
    for (i = 0; i < n; i++)
        if (report_chars(report_compare_target_label(cfg, i, lb, sizeof(lb))) > tw)
            tw = report_chars(report_compare_target_label(cfg, i, lb, sizeof(lb)));
    if (tw > 40)
        tw = 40;
    fprintf(f, "  Per target (rounds merged):\n  %-*s %-*s %9s %9s %9s %9s %8s %10s\n", (int)tw, "target", nw, "server",
            "requests", "req/s", "p50", "p99", "errors", "bad status");
    for (i = 0; i < n; i++) {
        int first = 1;
        for (s = 0; s < p->nservers; s++) {
            const struct compare_cell *c = compare_cell_at(r, w, s);
            struct stats t;
            char p50[32], p99[32];
            double rps;
            if (c->nruns == 0)
                continue;
            rps = report_compare_target(c, i, &t);
            fputs("  ", f);
            /* The target's name once, on its first server's row. */
            report_put_col(f, first ? report_compare_target_label(cfg, i, lb, sizeof(lb)) : "", tw);
            first = 0;
            fputc(' ', f);
            report_put_col(f, p->servers[s].name, (size_t)nw);
            fprintf(f, " %9llu %9.1f %9s %9s %8llu %10llu\n", (unsigned long long)t.completed, rps,
                    units_fmt_ns(p50, sizeof(p50), hist_percentile(&t.h[H_LATENCY], 50)),
                    units_fmt_ns(p99, sizeof(p99), hist_percentile(&t.h[H_LATENCY], 99)),
                    (unsigned long long)stats_errors(&t), (unsigned long long)t.bad_status);
            stats_fini(&t);
        }
    }
}

/* Each server against the compare file's baseline, in a line. */
static void baseline_text(FILE *f, const struct compare_file *p, const struct compare_result *r, int w)
{
    int s, b = p->baseline - 1, any = 0;
    if (b < 0 || b >= p->nservers)
        return;
    fprintf(f, "  against the baseline, %s:", p->servers[b].name);
    for (s = 0; s < p->nservers; s++) {
        const struct compare_cell *c = compare_cell_at(r, w, s);
        char what[96];
        if (s == b || c->vs_base.verdict == VERDICT_INVALID)
            continue;
        fprintf(f, "%s %s %s", any ? ";" : "", p->servers[s].name,
                report_compare_pair_text(what, sizeof(what), &c->vs_base, 0));
        any = 1;
    }
    fprintf(f, "%s\n", any ? "." : " no other valid result.");
}

/* Every pair of servers (2 to CMP_MATRIX_MAX): the row's time per request
 * against the column's, as a verdict. */
static void matrix_text(FILE *f, const struct compare_file *p, const struct compare_result *r, int w, int nw)
{
    int a, b, cw = 13;
    if (p->nservers < 2 || p->nservers > CMP_MATRIX_MAX)
        return;
    for (a = 0; a < p->nservers; a++)
        if ((int)strlen(p->servers[a].name) + 1 > cw)
            cw = (int)strlen(p->servers[a].name) + 1;
    cw = cw > 41 ? 41 : cw;
    fprintf(f, "  pairwise (the row against the column):\n  %4s %-*s", "", nw, "");
    for (b = 0; b < p->nservers; b++)
        fprintf(f, " %-*.*s", cw, cw, p->servers[b].name);
    fprintf(f, "\n");
    for (a = 0; a < p->nservers; a++) {
        fprintf(f, "  %4s %-*.*s", "", nw, nw, p->servers[a].name);
        for (b = 0; b < p->nservers; b++) {
            struct verdict_pair v;
            char what[96];
            if (a == b) {
                fprintf(f, " %-*s", cw, ".");
                continue;
            }
            compare_pair(p, r, w, a, b, &v);
            fprintf(f, " %-*s", cw, report_compare_pair_text(what, sizeof(what), &v, 1));
        }
        fprintf(f, "\n");
    }
}

/* The notes under a workload's table, a server at a time: invalid
 * results, bad statuses, refused keep-alive, noise, aborted rounds, its
 * findings, its SLO. Returns whether there was any. */
static int cell_notes(FILE *f, const struct compare_file *p, const struct compare_result *r, int w)
{
    const struct compare_workload *wl = &p->workloads[w];
    int s, any = 0;

    for (s = 0; s < p->nservers; s++) {
        const struct compare_cell *c = compare_cell_at(r, w, s);
        const char *name = p->servers[s].name;
        char codes[128];
        if (c->nruns == 0)
            continue;
        if (c->implausible_cpu[0]) {
            fprintf(f, "  [!] %s: %s: not a valid result, left out of 'vs best'\n", name, c->implausible_cpu);
        } else if (c->invalid) {
            report_compare_bad_codes(codes, sizeof(codes), &c->total, &wl->cfg.expect);
            fprintf(f, "  [!] %s: %.1f%% of responses had a status outside %s (%s): not a valid result, "
                       "left out of 'vs best'\n", name, c->bad_pct, wl->cfg.expect.text,
                    c->total.completed ? codes : "no response at all");
        } else if (c->bad_pct > 0) {
            report_compare_bad_codes(codes, sizeof(codes), &c->total, &wl->cfg.expect);
            fprintf(f, "  [!] %s: %.1f%% bad statuses (%s)\n", name, c->bad_pct, codes);
        }
        if (c->keepalive_refused)
            fprintf(f, "  [!] %s: keep-alive refused by the server (%s): %.2f connections per request, so this "
                       "measured new connections\n", name, report_compare_close_why(&c->total), c->conns_per_req);
        if (c->unstable)
            fprintf(f, "  [!] %s: repetitions differ by more than 10%%: the machine is noisy\n", name);
        {
            /* --abort-on-fail (a workload's slo): the runs that stopped. */
            int k;
            for (k = 0; k < c->nruns; k++)
                if (c->runs[k].fig.aborted)
                    fprintf(f, "  [!] %s: round %d aborted %.1fs in: %s\n", name, k + 1, c->runs[k].fig.aborted_at_s,
                            c->runs[k].fig.aborted_why);
        }
        if (c->found.n) {
            /* Its findings (client_cpu_bound among them: rafale, not
             * the server, set the pace). */
            int k;
            for (k = 0; k < c->found.n; k++)
                fprintf(f, "  %s %s: %s: %s\n        -> %s\n", c->found.f[k].warning ? "[!]" : "[i]", name,
                        c->found.f[k].id, c->found.f[k].summary, c->found.f[k].advice);
        }
        if (c->slo.n && c->nruns) {
            int k2;
            fprintf(f, "  %s %s: SLO %s:", c->slo_failed ? "[!]" : "   ", name, c->slo_failed ? "FAILED" : "met");
            for (k2 = 0; k2 < c->slo.n; k2++) {
                char v[32];
                fprintf(f, "%s %s %s (%s)", k2 ? "," : "", c->slo.goal[k2].text, c->slo.goal[k2].pass ? "pass" : "FAIL",
                        slo_value_str(&c->slo.goal[k2], c->slo.goal[k2].value, v, sizeof(v)));
            }
            fprintf(f, "\n");
        }
        any |= c->invalid || c->keepalive_refused || c->unstable || c->found.n || c->bad_pct > 0;
    }
    return any;
}

/* Each server: how it was run, its version, its processes in its run with the most memory. */
static void servers_text(FILE *f, const struct compare_file *p, const struct compare_result *r)
{
    int s, w;

    fprintf(f, "\nServers\n");
    for (s = 0; s < p->nservers; s++) {
        const struct compare_server *sv = &p->servers[s];
        const struct run_result *top = NULL;
        uint64_t most = 0;
        char cut[CMP_OUTPUT_COLS + 4];
        for (w = 0; w < p->nworkloads; w++) {
            const struct compare_cell *c = compare_cell_at(r, w, s);
            if (c->best_run >= 0 && (top == NULL || c->mem_peak > most)) {
                top = &c->runs[c->best_run];
                most = c->mem_peak;
            }
        }
        fprintf(f, "  %s: ", sv->name);
        if (sv->start)
            fprintf(f, "start = %s", compare_cut(sv->start, strlen(sv->start), cut));
        else if (sv->pid)
            fprintf(f, "pid %d (attached)", sv->pid);
        else if (sv->reuse)
            fprintf(f, "reuse = yes: the process listening on its port (attached)");
        else
            fprintf(f, "cgroup %s (attached)", sv->cgroup);
        fprintf(f, "\n");
        if (sv->version)
            fprintf(f, "    version: %s\n", sv->version);
        if (top) {
            fprintf(f, "    in its run with the most memory:\n");
            report_server_text(f, top, "    ");
        }
    }
}

void report_compare_print(FILE *f, const struct compare_file *p, const struct compare_result *r)
{
    int w, s, nw = report_compare_name_width(p), any_notes = 0, mixed, mw;

    /* The verdict first: a line per workload. */
    fprintf(f, "\nVerdict\n");
    for (w = 0; w < p->nworkloads; w++) {
        char line[2048];
        report_compare_verdict_line(line, sizeof(line), p, r, w);
        fprintf(f, "  %s: %s\n", p->workloads[w].name, line);
        for (s = 0; s < p->nservers; s++)
            if (report_compare_why(line, sizeof(line), p, r, w, s))
                fprintf(f, "    %s\n", line);
    }
    if (r->note[0])
        fprintf(f, "\nNote: servers ran in process groups, not cgroups (%s): a server that daemonizes escapes them.\n",
                r->note);
    for (w = 0; w < p->nworkloads; w++) {
        const struct compare_workload *wl = &p->workloads[w];
        double best = report_compare_best_rps(r, w);
        char desc[400];
        report_compare_describe(desc, sizeof(desc), wl);
        fprintf(f, "\nWorkload '%s': %s, x %d%s\n", wl->name, desc, p->set.repeat,
                p->set.repeat_auto ? " (repeat = auto: the rounds it took)" : "");
        if (r->alike && r->alike[w].ndiff) {
            /* Before the figures: they may not measure the same work. */
            const struct compare_alike *al = &r->alike[w];
            int k;
            fprintf(f, "  [!] servers do not answer alike (checked once before the load; the runs went on):\n");
            for (k = 0; k < al->ndiff; k++)
                fprintf(f, "        %-9s %-*s %s\n", al->diff[k].field, nw, p->servers[al->diff[k].server].name,
                        al->diff[k].value);
        }
        if (r->alike && r->alike[w].cut[0])
            fprintf(f, "  [i] answers not compared (checked once before the load): %s\n", r->alike[w].cut);
        mixed = report_compare_mem_mixed(r, w);
        /* "12.34MiB alone" when the rows' measures differ */
        mw = mixed ? 15 : (int)strlen(report_compare_mem_label(r, w)) > 10 ? 11 : 10;
        fprintf(f, "  %4s %-*s %9s %19s %9s %9s %8s %10s %8s %9s %*s  %s\n", "rank", nw, "server", "req/s",
                "(min - max req/s)", "p50", "p99", "errors", "bad status", "conn/req", "CPU/req", mw,
                report_compare_mem_label(r, w), "vs best");
        for (s = 0; s < p->nservers; s++) {
            const struct compare_cell *c = compare_cell_at(r, w, s);
            char p50[32], p99[32], cpu[32], mem[32], ratio[96], range[48], bad[16], rank[16];
            if (c->nruns == 0) {
                fprintf(f, "  %4s %-*.*s %9s  (%s)\n", "-", nw, nw, p->servers[s].name, "-",
                        r->failed[s] ? "failed, see below" : "not run");
                continue;
            }
            if (c->rank > 0)
                snprintf(rank, sizeof(rank), "%d", c->rank);
            else
                snprintf(rank, sizeof(rank), "-");
            snprintf(range, sizeof(range), "(%.0f - %.0f)", c->rps_min, c->rps_max);
            report_compare_cpu_mem(c, mixed, cpu, sizeof(cpu), mem, sizeof(mem));
            snprintf(bad, sizeof(bad), "%.1f%%", c->bad_pct);
            fprintf(f, "  %4s %-*.*s %9.0f %19s %9s %9s %8llu %10s %8.2f %9s %*s  %s\n", rank, nw, nw,
                    p->servers[s].name, c->rps_median, range, units_fmt_ns(p50, sizeof(p50), hist_percentile(&c->total.h[H_LATENCY], 50)),
                    units_fmt_ns(p99, sizeof(p99), hist_percentile(&c->total.h[H_LATENCY], 99)),
                    (unsigned long long)stats_errors(&c->total), bad, c->conns_per_req, cpu, mw, mem,
                    report_compare_ratio_text(ratio, sizeof(ratio), c, best));
        }
        targets_block(f, p, r, w, nw);
        baseline_text(f, p, r, w);
        matrix_text(f, p, r, w, nw);
        any_notes |= cell_notes(f, p, r, w);
    }
    (void)any_notes;
    servers_text(f, p, r);
    for (s = 0; s < p->nservers; s++)
        if (r->failed[s]) {
            char lines[CMP_OUTPUT_LINES][CMP_OUTPUT_COLS + 4];
            int n = compare_output_lines(r->output[s], lines), k;
            fprintf(f, "\nFailed: %s: %s%s\n", p->servers[s].name, r->failure[s], n ? "; last output:" : "");
            for (k = 0; k < n; k++)
                fprintf(f, "    %s\n", lines[k]);
        }
    if (r->ref.known) {
        fputc('\n', f);
        report_ref_text(f, &r->ref, "");
    }
    if (r->interrupted)
        fprintf(f, "\nInterrupted: the tables cover the runs made before the signal.\n");
}
