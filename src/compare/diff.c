/* diff.c - two runs' figures, their changes and intervals. See diff.h. */
#include "diff.h"
#include "compare.h"
#include "compare_load.h"

#include "hist.h"
#include "html.h"
#include "interval.h"
#include "report.h"
#include "timeline.h"
#include "verdict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DIFF_TL_RESOLUTION 0.03

/* A figure of each whole second of a run's timeline (the first and last,
 * partial, left out): 0 requests, 1 p50, 2 p99. */
static double second_value(const struct tl_second *t, int which)
{
    return which == 0 ? (double)t->completed : which == 1 ? t->p50_ns : t->p99_ns;
}

/* Mean and variance of the logs of that figure over the whole seconds.
 * Returns how many seconds had it. */
static int log_seconds(const struct run_figures *r, int which, double *mean, double *var)
{
    uint32_t lo = r->nseconds > 2 ? 1 : 0, hi = r->nseconds > 2 ? r->nseconds - 1 : r->nseconds, i;
    double s = 0, ss = 0;
    int n = 0;
    *mean = *var = 0;
    for (i = lo; i < hi; i++)
        if (second_value(&r->timeline[i], which) > 0) {
            s += log(second_value(&r->timeline[i], which));
            n++;
        }
    if (n == 0)
        return 0;
    *mean = s / n;
    for (i = lo; i < hi; i++)
        if (second_value(&r->timeline[i], which) > 0)
            ss += pow(log(second_value(&r->timeline[i], which)) - *mean, 2);
    *var = n > 1 ? ss / (n - 1) : NAN;
    return n;
}

/* The ratio's interval from two samples' log means and variances: a
 * t-interval on their difference, widened by a resolution the figures
 * cannot beat. NaN with fewer than 2 of either. */
static void log_interval(struct diff_figure *f, double mb, double vb, int nb, double mn, double vn, int nn,
                         double resolution)
{
    double se, t;
    f->ci[0] = f->ci[1] = NAN;
    /* Two samples' t-interval (t = 12.7) is a formality: as compare, no
     * interval under 3. */
    if (nb < VERDICT_MIN_ROUNDS || nn < VERDICT_MIN_ROUNDS || isnan(vb) || isnan(vn))
        return;
    se = sqrt(vb / nb + vn / nn);
    t = interval_t975((nb < nn ? nb : nn) - 1);
    f->ci[0] = exp(mn - mb - t * se) / (1 + resolution);
    f->ci[1] = exp(mn - mb + t * se) * (1 + resolution);
    /* Seconds that swing by many orders of magnitude: no interval. */
    if (!isfinite(f->ci[1]) || !(f->ci[0] > 0))
        f->ci[0] = f->ci[1] = NAN;
}

/* compare's decision (verdict_decide) with the threshold as the band; a
 * side left open (NaN) by a run that cannot bound it is taken as open, so
 * an interval clear of the band on its other side still decides. self:
 * the same run twice; own: the intervals are the runs' own. */
static void judge(struct diff_figure *f, double thr, int self, int own)
{
    double worse[2], ci[2];
    int v;
    f->why = "";
    if (self && f->base > 0) {
        f->verdict = DIFF_SAME;
        f->why = "the same run: the same samples";
        return;
    }
    if (!(f->base > 0 && f->now > 0 && isfinite(f->ratio)) || (isnan(f->ci[0]) && isnan(f->ci[1]))) {
        f->verdict = DIFF_UNDECIDED;
        f->why = own ? "too few samples: a run this short bounds no interval" : "too few samples: 3 or more of each";
        return;
    }
    ci[0] = isnan(f->ci[0]) ? 0 : f->ci[0];
    ci[1] = isnan(f->ci[1]) ? INFINITY : f->ci[1];
    /* Oriented so that > 1 is worse. */
    worse[0] = f->higher_better ? 1 / ci[1] : ci[0];
    worse[1] = f->higher_better ? 1 / ci[0] : ci[1];
    v = verdict_decide(worse, thr);
    if (v == VERDICT_SAME) {
        f->verdict = DIFF_SAME;
        f->why = "within the threshold";
    } else if (v == VERDICT_SLOWER) {
        f->verdict = DIFF_SLOWER;
    } else if (v == VERDICT_FASTER) {
        f->verdict = DIFF_FASTER;
    } else {
        f->verdict = DIFF_UNDECIDED;
        f->why = isnan(f->ci[0]) || isnan(f->ci[1])
                     ? "too few samples past this percentile to bound it; longer runs"
                     : "too noisy: the interval holds no change and is wider than the threshold; longer runs or more "
                       "rounds";
    }
}

/* A figure of a run and its interval from the run's own batches (r->ci):
 * which -1 throughput, -2 the mean, else the percentile of that index of
 * report_pcts; latencies in us. Returns 0 when the run has no interval
 * (saved before they were, or too short). */
static int run_figure(const struct run_figures *r, int which, struct interval *out)
{
    const struct interval *iv = which == -1 ? &r->ci.rps : which == -2 ? &r->ci.mean : &r->ci.pct[which];
    double div = which == -1 ? 1 : 1e3;
    out->est = which == -1 ? (r->elapsed_s > 0 ? (double)r->total.completed / r->elapsed_s : 0)
               : which == -2 ? hist_mean(&r->total.h[H_LATENCY]) / 1e3
                             : hist_percentile(&r->total.h[H_LATENCY], report_pcts[which]) / 1e3;
    out->lo = iv->lo / div;
    out->hi = iv->hi / div;
    out->batches = iv->batches;
    return r->ci.batches > 0;
}

/* Both runs are one (a file diffed with itself, or two copies): their
 * samples are the same, there is no change to estimate. */
static int same_run(const struct run_figures *a, const struct run_figures *b)
{
    const struct hist *x = &a->total.h[H_LATENCY], *y = &b->total.h[H_LATENCY];
    return a->start_unix_s == b->start_unix_s && a->elapsed_s == b->elapsed_s &&
           a->total.completed == b->total.completed && x->total == y->total && x->sum == y->sum &&
           x->min == y->min && x->max == y->max;
}

void diff_results(const struct run_figures *base, const struct run_figures *now, double threshold,
                  struct diff_result *out)
{
    static const struct {
        const char *name, *key;
        int which; /* run_figure's */
        int higher_better;
    } figs[] = { { "req/s", "rps", -1, 1 },    { "mean", "mean_us", -2, 0 }, { "p50", "p50_us", 0, 0 },
                 { "p90", "p90_us", 2, 0 },    { "p99", "p99_us", 4, 0 } };
    int self = same_run(base, now);
    size_t i;

    memset(out, 0, sizeof(*out));
    out->threshold = threshold;
    for (i = 0; i < sizeof(figs) / sizeof(figs[0]); i++) {
        struct diff_figure *f = &out->f[out->n++];
        struct interval b, n, r;
        int has = run_figure(base, figs[i].which, &b) & run_figure(now, figs[i].which, &n);
        f->name = figs[i].name;
        f->key = figs[i].key;
        f->higher_better = figs[i].higher_better;
        f->base = b.est;
        f->now = n.est;
        f->ratio = f->base > 0 ? f->now / f->base : 0;
        f->ci[0] = f->ci[1] = NAN;
        if (self && f->base > 0) {
            f->ci[0] = f->ci[1] = 1;
        } else if (has) {
            /* Each run's own interval, combined (MOVER): an open side
             * leaves the ratio's open on that side, which still decides
             * when the other side clears the band. */
            interval_of_ratio(&n, &b, &r);
            f->ci[0] = r.lo;
            f->ci[1] = r.hi;
        } else if (figs[i].which != -2 && figs[i].which != 2) {
            /* A result saved before intervals were: its seconds. */
            int w = figs[i].which == -1 ? 0 : figs[i].which == 0 ? 1 : 2;
            double mb, vb, mn, vn;
            int nb = log_seconds(base, w, &mb, &vb), nn = log_seconds(now, w, &mn, &vn);
            log_interval(f, mb, vb, nb, mn, vn, nn, w > 0 ? DIFF_TL_RESOLUTION : 0);
        }
        judge(f, threshold, self, has);
    }
    for (i = 0; i < (size_t)out->n; i++) {
        out->worse += out->f[i].verdict == DIFF_SLOWER;
        out->undecided += out->f[i].verdict == DIFF_UNDECIDED;
    }
}

/* Mean and variance of the logs of n values (those > 0). Returns how many. */
static int log_values(const double *x, int n, double *mean, double *var)
{
    double s = 0, ss = 0;
    int i, k = 0;
    for (i = 0; i < n; i++)
        if (x[i] > 0) {
            s += log(x[i]);
            k++;
        }
    *mean = k ? s / k : 0;
    for (i = 0; i < n; i++)
        if (x[i] > 0)
            ss += pow(log(x[i]) - *mean, 2);
    *var = k > 1 ? ss / (k - 1) : NAN;
    return k;
}

void diff_windows(const double *const base[3], int nb, const double *const now[3], int nn, double threshold,
                 double resolution, struct diff_result *out)
{
    static const char *const names[3] = { "req/s", "p50", "p99" }, *const keys[3] = { "rps", "p50_us", "p99_us" };
    int i;
    memset(out, 0, sizeof(*out));
    out->threshold = threshold;
    for (i = 0; i < 3; i++) {
        struct diff_figure *f = &out->f[out->n++];
        double mb, vb, mn, vn;
        int kb = log_values(base[i], nb, &mb, &vb), kn = log_values(now[i], nn, &mn, &vn);
        f->name = names[i];
        f->key = keys[i];
        f->higher_better = i == 0;
        /* The rounds' geometric means: a compare's figure per round. */
        f->base = kb ? exp(mb) : 0;
        f->now = kn ? exp(mn) : 0;
        f->ratio = f->base > 0 ? f->now / f->base : 0;
        /* Rounds that count the same whole requests make a point, not an
         * interval: a round's count is known to its step. */
        log_interval(f, mb, vb, kb, mn, vn, kn, i == 0 ? resolution : 0);
        judge(f, threshold, 0, 0);
        out->worse += f->verdict == DIFF_SLOWER;
        out->undecided += f->verdict == DIFF_UNDECIDED;
    }
}

const char *diff_verdict_name(int v)
{
    static const char *const names[] = { "same", "faster", "slower", "undecided" };
    return v >= 0 && v <= DIFF_UNDECIDED ? names[v] : "undecided";
}

/* "+12.3%" of a ratio. */
static const char *pct_str(char *b, size_t n, double ratio)
{
    if (isnan(ratio) || ratio <= 0)
        snprintf(b, n, "?");
    else
        snprintf(b, n, "%+.1f%%", (ratio - 1) * 100);
    return b;
}

/* What the verdicts follow, in words. */
static const char *rule(char *b, size_t n, const struct diff_result *d)
{
    snprintf(b, n, "the rule: a figure is same when its whole 95%% interval lies within %.1f%% either way,\n"
                   "   slower or faster when it lies wholly on one side of no change, else undecided",
             d->threshold * 100);
    return b;
}

void diff_print(FILE *f, const struct diff_result *d, const char *base_name, const char *now_name)
{
    char r[256];
    int i, first = 1;
    fprintf(f, "rafale diff: %s -> %s\n\n", base_name, now_name);
    fprintf(f, "  %-8s %14s %14s %9s   %-21s %s\n", "figure", "base", "new", "change", "95% interval", "verdict");
    for (i = 0; i < d->n; i++) {
        const struct diff_figure *x = &d->f[i];
        char c[32], lo[32], hi[32], iv[2 * 32 + 8];
        if (isnan(x->ci[0]) && isnan(x->ci[1]))
            snprintf(iv, sizeof(iv), "(too few samples)");
        else
            snprintf(iv, sizeof(iv), "(%s .. %s)", pct_str(lo, sizeof(lo), x->ci[0]), pct_str(hi, sizeof(hi), x->ci[1]));
        fprintf(f, "  %-8s %14.*f %14.*f %9s   %-21s %s%s%s%s\n", x->name, x->higher_better ? 1 : 0, x->base,
                x->higher_better ? 1 : 0, x->now, pct_str(c, sizeof(c), x->ratio), iv, diff_verdict_name(x->verdict),
                x->why[0] ? " (" : "", x->why, x->why[0] ? ")" : "");
    }
    /* The threshold is the rule, not a result: said under the table. */
    fprintf(f, "  (latencies in us; %s)\n\nVerdict: ", rule(r, sizeof(r), d));
    if (d->worse == 0)
        fprintf(f, "no figure got significantly worse\n");
    else {
        fprintf(f, "worse: ");
        for (i = 0; i < d->n; i++)
            if (d->f[i].verdict == DIFF_SLOWER) {
                fprintf(f, "%s%s", first ? "" : ", ", d->f[i].name);
                first = 0;
            }
        fprintf(f, "\n");
    }
    if (d->undecided) {
        /* Not a regression found, nor its absence: the exit status stays 0,
         * this line says so. */
        fprintf(f, "Undecided (the samples cannot tell; not counted as worse): ");
        for (i = 0, first = 1; i < d->n; i++)
            if (d->f[i].verdict == DIFF_UNDECIDED) {
                fprintf(f, "%s%s", first ? "" : ", ", d->f[i].name);
                first = 0;
            }
        fprintf(f, "\n");
    }
}

int diff_json(FILE *f, const struct diff_result *d, const char *base_name, const char *now_name)
{
    int i;
    fprintf(f, "{\"tool\": \"rafale\", \"diff\": {\"base\": ");
    report_json_str(f, base_name);
    fprintf(f, ", \"new\": ");
    report_json_str(f, now_name);
    fprintf(f, ", \"threshold\": %s, \"worse\": %d, \"undecided\": %d, \"figures\": [",
            REPORT_JNUM("%.4f", d->threshold), d->worse, d->undecided);
    for (i = 0; i < d->n; i++) {
        const struct diff_figure *x = &d->f[i];
        fprintf(f, "%s\n  {\"figure\": \"%s\", \"base\": %s, \"new\": %s, \"ratio\": %s, \"ratio_ci\": ", i ? "," : "",
                x->key, REPORT_JNUM("%.3f", x->base), REPORT_JNUM("%.3f", x->now), REPORT_JNUM("%.6f", x->ratio));
        if (isnan(x->ci[0]) && isnan(x->ci[1]))
            fprintf(f, "null");
        else /* a side the runs cannot bound: null */
            fprintf(f, "[%s, %s]", REPORT_JNUM("%.6f", x->ci[0]), REPORT_JNUM("%.6f", x->ci[1]));
        fprintf(f, ", \"verdict\": \"%s\"}", diff_verdict_name(x->verdict));
    }
    fprintf(f, "\n]}}\n");
    return ferror(f) ? -1 : 0;
}

int diff_html(FILE *f, const struct diff_result *d, const char *base_name, const char *now_name)
{
    char r[256];
    int i;
    html_printf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/><title>rafale diff</title>"
                   "<style>" HTML_CSS ".slower{color:#b00;font-weight:bold}.faster{color:#070}</style></head><body>\n"
                   "<h1>rafale diff</h1>\n<p>");
    html_text(f, base_name);
    html_printf(f, " &#8594; ");
    html_text(f, now_name);
    html_printf(f, "</p>\n<table><tr><th>figure</th><th>base</th><th>new</th><th>change</th><th>interval</th>"
                   "<th>verdict</th></tr>\n");
    for (i = 0; i < d->n; i++) {
        const struct diff_figure *x = &d->f[i];
        char c[32], lo[32], hi[32];
        html_printf(f, "<tr><td>%s</td><td>%.1f</td><td>%.1f</td><td>%s</td><td>", x->name, x->base, x->now,
                    pct_str(c, sizeof(c), x->ratio));
        if (isnan(x->ci[0]) && isnan(x->ci[1]))
            html_printf(f, "too few samples");
        else
            html_printf(f, "%s .. %s", pct_str(lo, sizeof(lo), x->ci[0]), pct_str(hi, sizeof(hi), x->ci[1]));
        html_printf(f, "</td><td class=\"%s\">%s</td></tr>\n", x->verdict == DIFF_SLOWER ? "slower"
                                                              : x->verdict == DIFF_FASTER ? "faster" : "",
                    diff_verdict_name(x->verdict));
    }
    html_printf(f, "</table>\n<p>Latencies in us; ");
    html_text(f, rule(r, sizeof(r), d));
    html_printf(f, ".</p>\n<p>%s%s</p>\n</body></html>\n",
                d->worse ? "Some figure got significantly worse." : "No figure got significantly worse.",
                d->undecided ? " Some figure is undecided: the samples cannot tell." : "");
    return ferror(f) ? -1 : 0;
}

/* The relative step of a cell's duration-bound rounds' counts: connections
 * over requests, the mean over its rounds (0 when count-bound), as compare
 * takes it (compare.c). */
static double rounds_step(const struct compare_cell *c, const struct config *cfg)
{
    double sum = 0;
    int k, n = 0;
    for (k = 0; cfg->requests == 0 && k < c->nruns; k++)
        if (c->runs[k].fig.total.completed) {
            sum += (double)(cfg->connections ? cfg->connections : 1) / (double)c->runs[k].fig.total.completed;
            n++;
        }
    return n ? sum / n : 0;
}

int diff_compares(const struct loaded *in, const char *const files[2], double thr, FILE *out, FILE *jf, int *worse)
{
    const struct compare_file *pb = &in[0].cf, *pn = &in[1].cf;
    int w, s, w2, s2, k, cells = 0;
    *worse = 0;
    if (jf)
        fprintf(jf, "[");
    for (w = 0; w < pb->nworkloads; w++)
        for (w2 = 0; w2 < pn->nworkloads; w2++) {
            if (strcmp(pb->workloads[w].name, pn->workloads[w2].name) != 0)
                continue;
            for (s = 0; s < pb->nservers; s++)
                for (s2 = 0; s2 < pn->nservers; s2++) {
                    const struct compare_cell *cb = compare_cell_at(&in[0].cmp, w, s), *cn = compare_cell_at(&in[1].cmp, w2, s2);
                    double *v = NULL;
                    const double *fb[3], *fn[3];
                    char lb[600], ln[600];
                    struct diff_result d;
                    if (strcmp(pb->servers[s].name, pn->servers[s2].name) != 0 || cb->nruns == 0 || cn->nruns == 0)
                        continue;
                    if ((v = calloc((size_t)(cb->nruns + cn->nruns) * 3, sizeof(double))) == NULL)
                        continue;
                    for (k = 0; k < 3; k++) {
                        fb[k] = v + k * cb->nruns;
                        fn[k] = v + 3 * cb->nruns + k * cn->nruns;
                    }
                    for (k = 0; k < cb->nruns + cn->nruns; k++) {
                        const struct run_result *run = k < cb->nruns ? &cb->runs[k] : &cn->runs[k - cb->nruns];
                        double *at = k < cb->nruns ? v + k : v + 3 * cb->nruns + (k - cb->nruns);
                        int step = k < cb->nruns ? cb->nruns : cn->nruns;
                        at[0] = run->fig.elapsed_s > 0 ? (double)run->fig.total.completed / run->fig.elapsed_s : 0;
                        at[step] = hist_percentile(&run->fig.total.h[H_LATENCY], 50) / 1e3;
                        at[2 * step] = hist_percentile(&run->fig.total.h[H_LATENCY], 99) / 1e3;
                    }
                    diff_windows(fb, cb->nruns, fn, cn->nruns, thr,
                                rounds_step(cb, &pb->workloads[w].cfg) + rounds_step(cn, &pn->workloads[w2].cfg), &d);
                    snprintf(lb, sizeof(lb), "%s [%s on %s]", files[0], pb->workloads[w].name, pb->servers[s].name);
                    snprintf(ln, sizeof(ln), "%s [%s on %s]", files[1], pn->workloads[w2].name, pn->servers[s2].name);
                    diff_print(out, &d, lb, ln);
                    fputc('\n', out);
                    if (jf) {
                        if (cells)
                            fprintf(jf, ",\n");
                        diff_json(jf, &d, lb, ln);
                    }
                    *worse += d.worse;
                    cells++;
                    free(v);
                }
        }
    if (jf)
        fprintf(jf, "]\n");
    return cells;
}
