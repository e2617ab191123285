/* verdict.c - paired log-ratio t-intervals over interleaved rounds. See
 * verdict.h for the method and why. */
#include "verdict.h"

#include <math.h>
#include <stddef.h>

/* A difference surely under 2% either way is no difference: two copies of
 * one server on two ports can differ by 1%, measurably and meaninglessly. */
#define VERDICT_SAME_WITHIN 1.02

double verdict_t975(int df)
{
    /* Student's t, 0.975 quantile, df 1..30; beyond, the normal's 1.96
     * approached (40: 2.021, 60: 2.000, 120: 1.980). */
    static const double t[31] = { 0,      12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                  2.201,  2.179,  2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080,
                                  2.074,  2.069,  2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042 };
    if (df < 1)
        return NAN;
    if (df <= 30)
        return t[df];
    if (df <= 40)
        return 2.021;
    if (df <= 60)
        return 2.000;
    if (df <= 120)
        return 1.980;
    return 1.960;
}

/* Mean and 95% half-width of the n logs in l. Returns how many. */
static int log_stats(const double *l, int n, double *mean, double *half)
{
    double s = 0, ss = 0, sd;
    int i;
    *mean = 0;
    *half = NAN;
    if (n == 0)
        return 0;
    for (i = 0; i < n; i++)
        s += l[i];
    *mean = s / n;
    if (n < 2)
        return n;
    for (i = 0; i < n; i++)
        ss += (l[i] - *mean) * (l[i] - *mean);
    sd = sqrt(ss / (n - 1));
    *half = verdict_t975(n - 1) * sd / sqrt((double)n);
    return n;
}

/* exp() of the mean of the k logs in l, into *center, and of its 95%
 * interval into ci (NaN with fewer than 2). Returns k. */
static int log_interval(const double *l, int k, double *center, double ci[2])
{
    double mean, half;
    ci[0] = ci[1] = NAN;
    *center = 0;
    if (log_stats(l, k, &mean, &half) == 0)
        return 0;
    *center = exp(mean);
    if (k >= 2 && isfinite(exp(mean + half)) && exp(mean - half) > 0) {
        ci[0] = exp(mean - half);
        ci[1] = exp(mean + half);
    }
    return k;
}

double verdict_log_ci(const double *x, int n, double ci[2])
{
    double l[1024] = { 0 }, center;
    int i, k = 0;
    for (i = 0; i < n && k < 1024; i++)
        if (x[i] > 0 && isfinite(x[i]))
            l[k++] = log(x[i]);
    log_interval(l, k, &center, ci);
    return center;
}

/* Time per request of a over b's, paired by round: the ratio and its
 * interval. Returns the pairs used. */
static int paired(const struct verdict_cell *a, const struct verdict_cell *b, double *ratio, double ci[2])
{
    double l[1024] = { 0 };
    int i, k = 0, n = a->nrounds < b->nrounds ? a->nrounds : b->nrounds;
    for (i = 0; i < n && k < 1024; i++)
        if (a->rps[i] > 0 && b->rps[i] > 0)
            l[k++] = log(b->rps[i] / a->rps[i]);
    return log_interval(l, k, ratio, ci);
}

int verdict_rank(struct verdict_cell *c, int n)
{
    double top = 0, ci[2];
    int best = -1, i, j;
    for (i = 0; i < n; i++) {
        double g = c[i].valid ? verdict_log_ci(c[i].rps, c[i].nrounds, ci) : 0;
        if (g > top) {
            top = g;
            best = i;
        }
    }
    for (i = 0; i < n; i++) {
        int k;
        c[i].ratio = 0;
        c[i].ratio_ci[0] = c[i].ratio_ci[1] = NAN;
        c[i].rank = 0;
        if (!c[i].valid || best < 0) {
            c[i].verdict = VERDICT_INVALID;
            continue;
        }
        if (i == best) {
            c[i].ratio = 1;
            c[i].verdict = VERDICT_BEST;
            continue;
        }
        k = paired(&c[i], &c[best], &c[i].ratio, c[i].ratio_ci);
        if (k < 2)
            c[i].verdict = VERDICT_UNKNOWN; /* one round: no interval, no claim */
        else if ((c[i].ratio_ci[0] <= 1.0 && c[i].ratio_ci[1] >= 1.0) ||
                 (c[i].ratio_ci[0] >= 1 / VERDICT_SAME_WITHIN && c[i].ratio_ci[1] <= VERDICT_SAME_WITHIN))
            c[i].verdict = VERDICT_SAME;
        else
            c[i].verdict = c[i].ratio_ci[0] > 1.0 ? VERDICT_SLOWER : VERDICT_SAME;
    }
    /* A rank is 1 + the servers surely faster than this one (their paired
     * interval wholly below 1): the same within noise share it. */
    for (i = 0; i < n; i++) {
        if (!c[i].valid || best < 0)
            continue;
        c[i].rank = 1;
        for (j = 0; j < n; j++) {
            double r, cj[2];
            if (j == i || !c[j].valid)
                continue;
            if (paired(&c[j], &c[i], &r, cj) >= 2 && cj[1] < 1.0 && cj[0] < 1 / VERDICT_SAME_WITHIN)
                c[i].rank++;
            else if (isnan(cj[1]) && r > 0 && r < 1.0 / 1.005)
                c[i].rank++; /* one round: the point order, as all there is */
        }
    }
    return best;
}

const char *verdict_name(int v)
{
    static const char *const names[] = { "best", "same", "slower", "not valid", "unknown" };
    return v >= 0 && v <= VERDICT_UNKNOWN ? names[v] : "unknown";
}
