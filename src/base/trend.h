/* trend.h - whether a short series (a run's seconds) moves one way, by
 * rank tests that one slow second cannot sway.
 *
 * Significance is Mann-Kendall's: S counts the pairs of points in rising
 * order less those in falling order; without a trend it is near 0, its
 * variance known (ties corrected). A run's seconds are not independent (a
 * stall, a neighbour's burst of work span several), which makes S look
 * surer than it is: its variance is widened as Hamed and Rao (1998) do,
 * from the autocorrelation of the ranks of what the change leaves (only
 * lags past the 5% level count), never narrowed. What the change leaves
 * is the residual of the better of two shapes, least absolute residuals:
 * a straight line (Theil-Sen's) or a single step between two medians (a
 * warm-up that ends, a server that degrades at once). A line leaves a
 * step's residuals in runs that would read as autocorrelation and hide the
 * step; the step fits it.
 *
 * The slope is Theil-Sen's (the median of the pairs' slopes), its 95%
 * interval Sen's, from the same widened variance of S. */
#ifndef RAFALE_TREND_H
#define RAFALE_TREND_H

#include <stdint.h>

/* The most points a series may have: n (n - 1) / 2 slopes on the stack.
 * A longer run is grouped into as many points by its caller. */
#define TREND_MAX_POINTS 60
/* Fewer points say nothing. */
#define TREND_MIN_POINTS 4

struct trend {
    uint32_t n;
    double s;                   /* Mann-Kendall's S */
    double p;                   /* two-sided p of S, its variance widened */
    double widen;               /* that widening of the variance, >= 1 */
    double slope, slope_lo, slope_hi; /* Theil-Sen, per unit of x, and its 95% interval */
    double at_first, at_last;   /* the line's values at the first x and the last */
    double first, mid, last;    /* the medians of the first, middle and last thirds */
};

/* The trend of y over x (n points, x increasing). Returns 0, or -1 when n
 * is out of [TREND_MIN_POINTS, TREND_MAX_POINTS]. */
int trend_test(const double *x, const double *y, uint32_t n, struct trend *out);

/* The median of n values (a copy is sorted; n <= TREND_MAX_POINTS), 0 when n is 0. */
double trend_median(const double *v, uint32_t n);

#endif
