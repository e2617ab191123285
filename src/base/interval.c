/* interval.c - 95% intervals from a run's own batches (interval.h). */
#include "interval.h"
#include "batch.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

double interval_t975(int df)
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

/* Largest lag-1 autocorrelation kept as it is; beyond, an AR(1) series'
 * inflation would be unbounded. */
#define R1_CAP 0.9

/* The ratio's standard error over the m batches (yy, nn, merged in place
 * pair by pair while neighbours correlate); *m receives the batches left.
 * Returns the standard error, NaN when the batches cannot give one. */
static double ratio_se(double *yy, double *nn, uint32_t *m, double r)
{
    for (;;) {
        double s2 = 0, c1 = 0, nbar = 0, r1, var;
        double prev = 0;
        uint32_t i, k = *m;
        for (i = 0; i < k; i++) {
            double d = yy[i] - r * nn[i];
            s2 += d * d;
            if (i > 0)
                c1 += prev * d;
            prev = d;
            nbar += nn[i];
        }
        nbar /= k;
        r1 = s2 > 0 ? c1 / s2 : 0;
        if (r1 > INTERVAL_MAX_R1 && k >= 2 * INTERVAL_MIN_BATCHES) {
            /* Pairs merged; an odd last batch joins the pair before it. */
            uint32_t j = 0;
            for (i = 0; i + 1 < k; i += 2, j++) {
                yy[j] = yy[i] + yy[i + 1];
                nn[j] = nn[i] + nn[i + 1];
            }
            if (i < k) {
                yy[j - 1] += yy[i];
                nn[j - 1] += nn[i];
            }
            *m = j;
            continue;
        }
        if (!(nbar > 0))
            return NAN;
        /* The ratio estimator's variance over batches as clusters. */
        var = s2 / ((double)k * (double)(k - 1) * nbar * nbar);
        if (r1 > 0) {
            if (r1 > R1_CAP)
                r1 = R1_CAP;
            var *= (1 + r1) / (1 - r1);
        }
        return sqrt(var);
    }
}

/* The ratio of the sums and its standard error; *m the batches it rests
 * on (0: none). Returns 0 or ENOMEM. */
static int ratio(const double *y, const double *n, uint32_t k, double *est, double *se, uint32_t *m)
{
    double sy = 0, sn = 0, *yy;
    uint32_t i;
    for (i = 0; i < k; i++) {
        sy += y[i];
        sn += n[i];
    }
    *est = sn > 0 ? sy / sn : NAN;
    *se = NAN;
    *m = 0;
    if (!(sn > 0) || k < INTERVAL_MIN_BATCHES)
        return 0;
    yy = malloc(2 * (size_t)k * sizeof(*yy));
    if (yy == NULL)
        return ENOMEM;
    memcpy(yy, y, k * sizeof(*yy));
    memcpy(yy + k, n, k * sizeof(*yy));
    *m = k;
    *se = ratio_se(yy, yy + k, m, *est);
    free(yy);
    if (isnan(*se))
        *m = 0;
    return 0;
}

int interval_ratio(const double *y, const double *n, uint32_t k, struct interval *out)
{
    double est, se;
    uint32_t m;
    int rc = ratio(y, n, k, &est, &se, &m);
    out->est = est;
    out->lo = out->hi = NAN;
    out->batches = m;
    if (rc == 0 && m > 0) {
        double half = interval_t975((int)m - 1) * se;
        /* Every figure here is a ratio of sums of counts and times: never
         * below 0, whatever a symmetric interval says. */
        out->lo = est - half > 0 ? est - half : 0;
        out->hi = est + half;
    }
    return rc;
}

/* The value range of the bucket v falls in, in h's precision. */
static void bucket_around(const struct hist *h, double v, double *lo, double *hi)
{
    uint64_t blo, bhi, x = v < 1 ? 1 : (uint64_t)v;
    hist_bucket_range(h, hist_bucket_of(h->sub_bits, x), &blo, &bhi);
    *lo = (double)blo;
    *hi = (double)bhi;
}

/* Percentile p's interval from the batches' counts at or under its
 * estimate (out->est set): Woodruff's. */
static int woodruff(const struct hist *all, const double *y, const double *n, uint32_t k, double p,
                    struct interval *out)
{
    double f, se, est, blo, bhi, t, floor_se, flo, fhi, total = (double)all->total;
    uint32_t m;
    int rc = ratio(y, n, k, &est, &se, &m);
    if (rc != 0 || m == 0)
        return rc;
    /* Never narrower than independent answers would give. */
    f = p / 100;
    floor_se = sqrt(f * (1 - f) / total);
    if (!(se > floor_se))
        se = floor_se;
    t = interval_t975((int)m - 1);
    flo = f - t * se;
    fhi = f + t * se;
    out->batches = m;
    /* A side is open where fewer than one answer lies past it. */
    if (flo * total >= 1)
        out->lo = hist_percentile(all, 100 * flo);
    if ((1 - fhi) * total >= 1)
        out->hi = hist_percentile(all, 100 * fhi);
    /* The estimate is its bucket's middle: the interval holds the bucket. */
    bucket_around(all, out->est, &blo, &bhi);
    if (!isnan(out->lo) && out->lo > blo)
        out->lo = blo;
    if (!isnan(out->hi) && out->hi < bhi)
        out->hi = bhi;
    return 0;
}

int interval_percentiles(const struct hist *all, const struct hist *b, uint32_t k, const double *p, int np,
                         struct interval *out)
{
    double *y, *n, *cdf, est[INTERVAL_MAX_PCTS];
    uint32_t i;
    int j, rc = 0;
    if (np > INTERVAL_MAX_PCTS)
        return EINVAL;
    hist_percentiles(all, p, np, est);
    for (j = 0; j < np; j++) {
        out[j].est = est[j];
        out[j].lo = out[j].hi = NAN;
        out[j].batches = 0;
    }
    if (all->total == 0 || k < INTERVAL_MIN_BATCHES)
        return 0;
    y = malloc(((size_t)np + 1) * k * sizeof(*y) + (size_t)np * sizeof(*y));
    if (y == NULL)
        return ENOMEM;
    n = y + (size_t)np * k;
    cdf = n + k;
    /* Each batch's answers at or under each estimate, in one walk of the
     * batch: the CDF there. */
    for (i = 0; i < k; i++) {
        hist_counts_le(&b[i], est, np, cdf);
        for (j = 0; j < np; j++)
            y[(size_t)j * k + i] = cdf[j];
        n[i] = (double)b[i].total;
    }
    for (j = 0; j < np && rc == 0; j++)
        if (p[j] > 0 && p[j] < 100)
            rc = woodruff(all, y + (size_t)j * k, n, k, p[j], &out[j]);
    free(y);
    /* In order: the true p75 lies under the true p90, so p75's upper bound
     * is at most p90's, and p90's lower bound at least p75's. Each computed
     * alone, a run whose slow answers came in a few batches had p75's
     * reach past p90's. Both stay around their estimates, which are in
     * order. */
    for (j = np - 2; j >= 0; j--)
        if (!isnan(out[j + 1].hi) && (isnan(out[j].hi) || out[j].hi > out[j + 1].hi))
            out[j].hi = out[j + 1].hi;
    for (j = 1; j < np; j++)
        if (!isnan(out[j - 1].lo) && (isnan(out[j].lo) || out[j].lo < out[j - 1].lo))
            out[j].lo = out[j - 1].lo;
    return rc;
}

int interval_percentile(const struct hist *all, const struct hist *b, uint32_t k, double p, struct interval *out)
{
    return interval_percentiles(all, b, k, &p, 1, out);
}

void interval_of_ratio(const struct interval *now, const struct interval *base, struct interval *out)
{
    double a = log(base->est), b = log(now->est);
    out->est = base->est > 0 ? now->est / base->est : NAN;
    out->lo = out->hi = NAN;
    out->batches = now->batches < base->batches ? now->batches : base->batches;
    if (!(base->est > 0) || !(now->est > 0))
        return;
    /* MOVER on logs: each side of the difference from the sides of the
     * two intervals that move it that way. */
    if (now->lo > 0 && base->hi > 0)
        out->lo = exp(b - a - sqrt(pow(b - log(now->lo), 2) + pow(log(base->hi) - a, 2)));
    if (now->hi > 0 && base->lo > 0)
        out->hi = exp(b - a + sqrt(pow(log(now->hi) - b, 2) + pow(a - log(base->lo), 2)));
}

/* The batches the run covered: a thread's last tick may close one past the
 * last answer (empty, no time of the run). */
static uint32_t covered(const struct batches *b, double elapsed_s)
{
    double k;
    if (b->b == NULL || b->len_ns == 0 || !(elapsed_s > 0))
        return 0;
    k = ceil(elapsed_s * 1e9 / (double)b->len_ns);
    return k < (double)b->n ? (uint32_t)k : b->n;
}

int interval_of_run(const struct batches *b, const struct hist *all, double elapsed_s, enum interval_fig which,
                    const double *p, int np, struct interval *out)
{
    uint32_t i, k = covered(b, elapsed_s);
    double len_s = (double)b->len_ns / 1e9, *y, *n;
    struct hist sum, *h = NULL;
    int rc = 0, own = all == NULL;
    for (i = 0; i < (uint32_t)(which == INTERVAL_PCT ? np : 1); i++) {
        out[i].est = out[i].lo = out[i].hi = NAN;
        out[i].batches = 0;
    }
    if (k == 0)
        return 0;
    if (own) {
        if (hist_init_bits(&sum, b->b[0].h.sub_bits) != 0)
            return ENOMEM;
        for (i = 0; i < k && rc == 0; i++)
            rc = hist_merge(&sum, &b->b[i].h);
        all = &sum;
    }
    y = malloc(2 * (size_t)k * sizeof(*y));
    if (rc != 0 || y == NULL) {
        rc = ENOMEM;
        goto out;
    }
    n = y + k;
    switch (which) {
    case INTERVAL_RPS:
        for (i = 0; i < k; i++) {
            y[i] = (double)b->b[i].answers;
            n[i] = len_s;
        }
        n[k - 1] = elapsed_s - (k - 1) * len_s; /* the last ends with the run */
        if (n[k - 1] <= 0)
            k--;
        rc = interval_ratio(y, n, k, out);
        break;
    case INTERVAL_MEAN:
        for (i = 0; i < k; i++) {
            y[i] = b->b[i].h.sum;
            n[i] = (double)b->b[i].h.total;
        }
        rc = interval_ratio(y, n, k, out);
        break;
    case INTERVAL_PCT:
        /* Read through: the batches keep their buckets. */
        if ((h = malloc(k * sizeof(*h))) == NULL) {
            rc = ENOMEM;
            break;
        }
        for (i = 0; i < k; i++)
            h[i] = b->b[i].h;
        rc = interval_percentiles(all, h, k, p, np, out);
        break;
    }
out:
    free(h);
    free(y);
    if (own)
        hist_fini(&sum);
    return rc;
}
