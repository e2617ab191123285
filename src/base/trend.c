/* trend.c - Mann-Kendall's test and Theil-Sen's slope on a short series.
 * See trend.h. */
#include "trend.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NPAIRS (TREND_MAX_POINTS * (TREND_MAX_POINTS - 1) / 2)

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double trend_median(const double *v, uint32_t n)
{
    double c[TREND_MAX_POINTS];
    if (n == 0 || n > TREND_MAX_POINTS)
        return 0;
    memcpy(c, v, n * sizeof(*c));
    qsort(c, n, sizeof(*c), cmp_double);
    return n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
}

/* Ranks of v (1..n, ties at their mean rank) into r. */
static void ranks(const double *v, uint32_t n, double *r)
{
    uint32_t i, j;
    for (i = 0; i < n; i++) {
        double below = 0, same = 0;
        for (j = 0; j < n; j++) {
            below += v[j] < v[i];
            same += v[j] == v[i];
        }
        r[i] = below + (same + 1) / 2;
    }
}

/* Hamed and Rao's n / n*: the variance of S widened by the autocorrelation
 * of the ranks of res, lags significant at 5% only, never below 1. */
static double widening(const double *res, uint32_t n)
{
    double r[TREND_MAX_POINTS], mean = (n + 1) / 2.0, d = 0, sum = 0, f;
    uint32_t i, k;
    ranks(res, n, r);
    for (i = 0; i < n; i++)
        d += (r[i] - mean) * (r[i] - mean);
    if (d <= 0)
        return 1;
    for (k = 1; k + 2 < n; k++) {
        double rho = 0;
        for (i = 0; i + k < n; i++)
            rho += (r[i] - mean) * (r[i + k] - mean);
        rho /= d;
        if (fabs(rho) > 1.96 / sqrt(n))
            sum += (double)(n - k) * (n - k - 1) * (n - k - 2) * rho;
    }
    f = 1 + 2 * sum / ((double)n * (n - 1) * (n - 2));
    return f > 1 ? f : 1;
}

/* What the change leaves of y: the residuals of the line a + b x or of the
 * best single step between two medians, whichever leaves less (absolute). */
static void residuals(const double *x, const double *y, uint32_t n, double a, double b, double *res)
{
    double step[TREND_MAX_POINTS], line_sad = 0, best = -1;
    uint32_t i, k;
    for (i = 0; i < n; i++) {
        res[i] = y[i] - a - b * x[i];
        line_sad += fabs(res[i]);
    }
    /* Each side of the step holds two points at least: one point alone is
     * an outlier, not a level. */
    for (k = 2; k + 2 <= n; k++) {
        double lo = trend_median(y, k), hi = trend_median(y + k, n - k), sad = 0;
        for (i = 0; i < n; i++)
            sad += fabs(y[i] - (i < k ? lo : hi));
        if (best < 0 || sad < best) {
            best = sad;
            for (i = 0; i < n; i++)
                step[i] = y[i] - (i < k ? lo : hi);
        }
    }
    if (best >= 0 && best < line_sad)
        memcpy(res, step, n * sizeof(*res));
}

int trend_test(const double *x, const double *y, uint32_t n, struct trend *out)
{
    double slopes[NPAIRS], off[TREND_MAX_POINTS], res[TREND_MAX_POINTS], var, ties = 0, s = 0, z, c;
    uint32_t i, j, m = 0, third;
    memset(out, 0, sizeof(*out));
    if (n < TREND_MIN_POINTS || n > TREND_MAX_POINTS)
        return -1;
    out->n = n;
    for (i = 0; i < n; i++)
        for (j = i + 1; j < n; j++) {
            s += (y[j] > y[i]) - (y[j] < y[i]);
            if (x[j] > x[i])
                slopes[m++] = (y[j] - y[i]) / (x[j] - x[i]);
        }
    /* Ties shrink S's variance: each group of t equal values. */
    for (i = 0; i < n; i++) {
        double t = 0;
        int first = 1;
        for (j = 0; j < n; j++) {
            t += y[j] == y[i];
            if (j < i && y[j] == y[i])
                first = 0;
        }
        if (first)
            ties += t * (t - 1) * (2 * t + 5);
    }
    qsort(slopes, m, sizeof(*slopes), cmp_double);
    out->s = s;
    out->slope = m % 2 ? slopes[m / 2] : (slopes[m / 2 - 1] + slopes[m / 2]) / 2;
    for (i = 0; i < n; i++)
        off[i] = y[i] - out->slope * x[i];
    {
        double a = trend_median(off, n);
        out->at_first = a + out->slope * x[0];
        out->at_last = a + out->slope * x[n - 1];
        residuals(x, y, n, a, out->slope, res);
    }
    out->widen = widening(res, n);
    var = ((double)n * (n - 1) * (2 * n + 5) - ties) / 18 * out->widen;
    if (var <= 0) {
        out->p = 1;
    } else {
        /* Continuity-corrected: S moves by 2 between its values. */
        z = s > 0 ? (s - 1) / sqrt(var) : s < 0 ? (s + 1) / sqrt(var) : 0;
        out->p = erfc(fabs(z) / sqrt(2));
    }
    /* Sen's interval: the slopes ranked (m - C) / 2 and (m + C) / 2 + 1
     * from the bottom (from 1), C the 95% half-width of S; rounded outward. */
    c = 1.96 * sqrt(var > 0 ? var : 0);
    {
        double lo = floor((m - c) / 2) - 1, hi = ceil((m + c) / 2);
        out->slope_lo = slopes[lo < 0 ? 0 : (uint32_t)lo];
        out->slope_hi = slopes[hi > m - 1 ? m - 1 : (uint32_t)hi];
    }
    third = n / 3 ? n / 3 : 1;
    out->first = trend_median(y, third);
    out->mid = trend_median(y + third, n - 2 * third);
    out->last = trend_median(y + n - third, third);
    return 0;
}
