/* interval.h - 95% intervals for a run's figures from the run's own
 * samples, by batch means.
 *
 * A run's requests are not independent: an answer slowed by a stall is
 * followed by more slow ones, so the textbook interval of n samples is far
 * too narrow. The run is cut into short batches of time (each thread
 * counts its own, merged after join); a figure is a ratio of two batch sums
 * (answers over time for throughput, latency over answers for the mean,
 * answers at or under q over answers for a percentile's CDF at q), and the
 * ratio's variance comes from how the batches spread around it. Neighbour
 * batches still correlate when a stall outlasts a batch: adjacent batches
 * are merged, pair by pair, until their lag-1 autocorrelation is small
 * (below INTERVAL_MAX_R1, while INTERVAL_MIN_BATCHES * 2 are left), and
 * what is left of it widens the interval as an AR(1) series would
 * ((1 + r) / (1 - r) on the variance). The t quantile of the batches left
 * makes it a 95% interval.
 *
 * A percentile's interval is Woodruff's: the CDF's interval at the
 * estimate, read back through the run's whole histogram. It is never
 * narrower than independent samples would give (the binomial floor), and
 * it is open (NaN) on a side where the run holds too few samples to say
 * (p99.9 of 2 000 answers has no upper bound).
 *
 * What it covers: this run's sampling, with its own correlation. Not the
 * machine's drift between runs (compare's interleaved rounds are for that),
 * nor a trend inside the run (a drift finding says that). */
#ifndef RAFALE_INTERVAL_H
#define RAFALE_INTERVAL_H

#include <stdint.h>

#include "hist.h"

/* Fewer batches than this (after merging): no interval. */
#define INTERVAL_MIN_BATCHES 8
/* Neighbour batches correlated above this are merged. */
#define INTERVAL_MAX_R1 0.2

/* An estimate and its 95% interval; a bound is NaN when the samples cannot
 * give it. */
struct interval {
    double est, lo, hi;
    uint32_t batches;           /* batches the interval rests on (after merging), 0: none */
};

/* The 97.5% quantile of Student's t with df degrees of freedom (NaN below 1). */
double interval_t975(int df);

/* The ratio sum(y) / sum(n) over k batches (y, n >= 0), its interval from
 * the batches' spread (see above), never below 0. y and n are not changed. Returns 0, or an errno value
 * (no memory: no interval, est still set). */
int interval_ratio(const double *y, const double *n, uint32_t k, struct interval *out);

/* Percentile p (0..100) of all (the run's histogram, any precision) and its
 * interval from the k batch histograms b (each batch's answers, their sum
 * all's). Returns 0 or an errno value. */
int interval_percentile(const struct hist *all, const struct hist *b, uint32_t k, double p, struct interval *out);
/* The same for np percentiles p[] in increasing order (INTERVAL_MAX_PCTS at
 * most), into out[], each batch walked once; their bounds kept in the same
 * order (no upper bound above a higher percentile's). */
#define INTERVAL_MAX_PCTS 16
int interval_percentiles(const struct hist *all, const struct hist *b, uint32_t k, const double *p, int np,
                         struct interval *out);

/* The figures of a run an interval is given for. */
enum interval_fig { INTERVAL_RPS, INTERVAL_MEAN, INTERVAL_PCT };

/* A run's figure and its interval from its batches (batch.h): which
 * INTERVAL_RPS (answers per second) or INTERVAL_MEAN into out[0], or
 * INTERVAL_PCT, the np percentiles p[] (increasing) of the latency (ns)
 * into out[]; all: the run's whole latency histogram, or NULL for the
 * batches' sum; elapsed_s: the measured time, where the last batch ends.
 * Returns 0 or an errno value. */
struct batches;
int interval_of_run(const struct batches *b, const struct hist *all, double elapsed_s, enum interval_fig which,
                    const double *p, int np, struct interval *out);

/* The interval of a ratio of two figures (now / base), from each one's
 * interval, as MOVER (the method of variance estimates recovery) combines
 * them on the log scale: out->est the ratio, lo/hi NaN when either figure
 * lacks the side needed. */
void interval_of_ratio(const struct interval *now, const struct interval *base, struct interval *out);

#endif
