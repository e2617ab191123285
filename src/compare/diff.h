/* diff.h - `rafale diff BASE.json NEW.json`: a regression gate. Each figure
 * of two saved runs of one workload (plain or merged shards, or each cell
 * of two compares), its change
 * with a 95% interval and a verdict as compare gives it (verdict.h): same
 * when the whole interval lies within the threshold either way, slower or
 * faster when it excludes no change, else undecided (too few samples, too
 * noisy). */
#ifndef RAFALE_DIFF_H
#define RAFALE_DIFF_H

#include <stdio.h>

#include "engine.h"

enum diff_verdict { DIFF_SAME, DIFF_FASTER, DIFF_SLOWER, DIFF_UNDECIDED };

struct diff_figure {
    const char *name;           /* "req/s", "mean", "p50", ... */
    const char *key;            /* its JSON key: "rps", "mean_us", "p50_us", ... */
    int higher_better;          /* throughput: 1; latency: 0 */
    double base, now;           /* the figure in each run (latencies in us) */
    double ratio, ci[2];        /* now / base and its 95% interval (NaN: too few samples) */
    int verdict;                /* enum diff_verdict */
    const char *why;            /* for DIFF_SAME and DIFF_UNDECIDED, in words */
};

#define DIFF_FIGURES 6

struct diff_result {
    struct diff_figure f[DIFF_FIGURES];
    int n;
    double threshold;           /* the band: an interval within this fraction either way is the same */
    int worse;                  /* figures that got significantly worse (slower) */
    int undecided;              /* figures the samples cannot tell */
};

/* Compares two results: throughput, p50 and p99, each from the whole run,
 * its interval from each run's per-second timeline (whole seconds: the
 * first and last, partial, are left out): a t-interval on the difference of
 * the seconds' mean logs, so that a run's own swings widen it (a request's
 * sampling alone would call every rerun different). Needs 3 whole seconds
 * in each (else undecided); 5 or more to mean much. */
void diff_results(const struct run_figures *base, const struct run_figures *now, double threshold,
                  struct diff_result *out);

/* Two compares' cell of one workload and server: throughput, p50 and p99
 * per round (base[0..2], nb rounds; now the same), the rounds' geometric
 * means and a t-interval on the difference of their mean logs (3 rounds
 * each or undecided), throughput's widened by resolution: the relative step
 * of a round's count (both compares' connections / requests; 0 for
 * count-bound rounds). */
void diff_windows(const double *const base[3], int nb, const double *const now[3], int nn, double threshold,
                 double resolution, struct diff_result *out);

/* The table; names: the two files. */
void diff_print(FILE *f, const struct diff_result *d, const char *base_name, const char *now_name);
int diff_json(FILE *f, const struct diff_result *d, const char *base_name, const char *now_name);
int diff_html(FILE *f, const struct diff_result *d, const char *base_name, const char *now_name);

/* Two compares (rafale diff on two compare results): each workload and
 * server of in[0] found by name in in[1] (two of them), its rounds against the other's,
 * printed on out with the files' names, and written to jf (a JSON array;
 * NULL: none). *worse: the cells significantly worse. Returns the cells
 * compared (0: they share no workload and server by name). */
struct loaded;
int diff_compares(const struct loaded *in, const char *const files[2], double thr, FILE *out, FILE *jf, int *worse);

/* "same", "faster", "slower", "undecided". */
const char *diff_verdict_name(int v);

#endif
