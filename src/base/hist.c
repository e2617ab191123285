/* hist.c - log-linear latency histogram. See hist.h for the layout. */
#include "hist.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Highest bit of HIST_MAX_NS is 41: ranges B..41 after the linear start. */
#define TOP_BIT 41

uint32_t hist_bucket_count(const struct hist *h)
{
    return h->nbuckets;
}

uint32_t hist_index_count(const struct hist *h)
{
    return (TOP_BIT - h->sub_bits + 2) << h->sub_bits;
}

void hist_bucket_range(const struct hist *h, uint32_t i, uint64_t *lo, uint64_t *hi)
{
    uint32_t b = h->sub_bits, sub_n = 1u << b;
    if (i < 2 * sub_n) {
        *lo = i;
        *hi = (uint64_t)i + 1;
        return;
    }
    {
        uint32_t shift = (i >> b) - 1;          /* m - B */
        uint64_t sub = (i & (sub_n - 1)) + sub_n; /* v >> shift */
        *lo = sub << shift;
        *hi = (sub + 1) << shift;
    }
}

/* Buckets a histogram of this precision can ever need. */
static uint32_t full_size(uint32_t sub_bits)
{
    return (TOP_BIT - sub_bits + 2) << sub_bits;
}

/* Makes room for bucket indexes need_lo..need_hi: the held band grows to
 * whole blocks of 2^sub_bits around them, one block more on the side it
 * grew, so a slowly widening band reallocates rarely. */
static int grow_range(struct hist *h, uint32_t need_lo, uint32_t need_hi)
{
    uint32_t block = 1u << h->sub_bits, full = full_size(h->sub_bits);
    uint32_t lo = h->nbuckets ? h->base : need_lo / block * block, hi = h->nbuckets ? h->base + h->nbuckets : lo;
    uint32_t top;
    uint64_t *c;
    if (need_lo < lo)
        lo = need_lo / block > 0 ? (need_lo / block - 1) * block : 0;
    if (need_hi >= hi)
        hi = (need_hi / block + 2) * block;
    if (hi > full)
        hi = full;
    c = malloc((size_t)(hi - lo) * sizeof(uint64_t));
    if (c == NULL)
        return ENOMEM;
    /* Only what the old band does not cover is cleared. */
    if (h->nbuckets) {
        uint32_t at = h->base - lo, end = at + h->nbuckets;
        memset(c, 0, at * sizeof(uint64_t));
        memcpy(c + at, h->counts, h->nbuckets * sizeof(uint64_t));
        memset(c + end, 0, (hi - lo - end) * sizeof(uint64_t));
    } else {
        memset(c, 0, (size_t)(hi - lo) * sizeof(uint64_t));
    }
    free(h->counts);
    h->counts = c;
    h->base = lo;
    h->nbuckets = hi - lo;
    top = hist_bucket_of(h->sub_bits, HIST_MAX_NS);
    h->fast = top <= lo ? 0 : top - lo < h->nbuckets ? top - lo : h->nbuckets;
    return 0;
}

static int grow(struct hist *h, uint32_t need)
{
    return grow_range(h, need, need);
}

void hist_iter_init(struct hist_iter *it, const struct hist *h)
{
    memset(it, 0, sizeof(*it));
    it->h = h;
}

int hist_iter_next(struct hist_iter *it)
{
    const struct hist *h = it->h;
    while (it->next < h->nbuckets) {
        uint32_t i = it->next++;
        if (h->counts[i]) {
            hist_bucket_range(h, h->base + i, &it->lo, &it->hi);
            it->count = h->counts[i];
            return 1;
        }
    }
    return 0;
}

int hist_init_bits(struct hist *h, uint32_t sub_bits)
{
    memset(h, 0, sizeof(*h));
    h->sub_bits = sub_bits;
    h->min = UINT64_MAX;
    return 0;
}

int hist_init(struct hist *h)
{
    return hist_init_bits(h, HIST_SUB_BITS);
}

void hist_fini(struct hist *h)
{
    free(h->counts);
    h->counts = NULL;
    h->nbuckets = h->base = h->fast = 0;
}

/* The held buckets [*lo, *hi) that can hold anything: those of the exact
 * extremes and between (every count lies there: hist_record, _merge and
 * _record_n keep min and max, and a result read back is checked so). */
static void used_band(const struct hist *h, uint32_t *lo, uint32_t *hi)
{
    *lo = 0;
    *hi = h->nbuckets;
    if (h->total && h->min >= 1 && h->min <= h->max && h->max < HIST_MAX_NS) {
        uint32_t a = hist_bucket_of(h->sub_bits, h->min), z = hist_bucket_of(h->sub_bits, h->max) + 1;
        if (a > h->base && a - h->base < *hi)
            *lo = a - h->base;
        if (z > h->base + *lo && z - h->base < *hi)
            *hi = z - h->base;
    }
}

void hist_reset(struct hist *h)
{
    /* The band that was used alone: a tick's histogram is reset 32 times a
     * second, its band grown long ago may span hundreds of buckets. */
    if (h->nbuckets && h->total) {
        uint32_t lo, hi;
        used_band(h, &lo, &hi);
        memset(h->counts + lo, 0, (hi - lo) * sizeof(uint64_t));
    }
    h->total = 0;
    h->min = UINT64_MAX;
    h->max = 0;
    h->sum = h->sumsq = 0;
}

void hist_record_slow(struct hist *h, uint64_t ns)
{
    uint32_t b;
    if (ns > HIST_MAX_NS)
        ns = HIST_MAX_NS;
    b = hist_bucket_of(h->sub_bits, ns);
    if (b - h->base < h->nbuckets || grow(h, b) == 0)
        h->counts[b - h->base]++;
    h->total++;
    if (ns < h->min)
        h->min = ns;
    if (ns > h->max)
        h->max = ns;
    h->sum += (double)ns;
    h->sumsq += (double)ns * (double)ns;
}

void hist_record_n(struct hist *h, uint64_t ns, uint64_t n)
{
    uint32_t b;
    if (n == 0)
        return;
    if (ns > HIST_MAX_NS)
        ns = HIST_MAX_NS;
    b = hist_bucket_of(h->sub_bits, ns);
    if (b - h->base < h->nbuckets || grow(h, b) == 0)
        h->counts[b - h->base] += n;
    h->total += n;
    if (ns < h->min)
        h->min = ns;
    if (ns > h->max)
        h->max = ns;
    h->sum += (double)ns * (double)n;
    h->sumsq += (double)ns * (double)ns * (double)n;
}

int hist_merge(struct hist *dst, const struct hist *src)
{
    uint32_t lo = 0, hi = src->nbuckets, i;
    if (src->total == 0)
        return 0;
    /* The band src really used (its exact extremes' buckets: no walk over
     * the empty ends of a band grown long ago), then room for it in dst. */
    used_band(src, &lo, &hi);
    while (lo < hi && src->counts[lo] == 0)
        lo++;
    while (hi > lo && src->counts[hi - 1] == 0)
        hi--;
    if (lo < hi) {
        /* One growth for both ends: an empty dst is allocated once. */
        if ((src->base + lo - dst->base >= dst->nbuckets || src->base + hi - 1 - dst->base >= dst->nbuckets) &&
            grow_range(dst, src->base + lo, src->base + hi - 1) != 0)
            return ENOMEM;
        for (i = lo; i < hi; i++)
            dst->counts[src->base + i - dst->base] += src->counts[i];
    }
    dst->total += src->total;
    if (src->min < dst->min)
        dst->min = src->min;
    if (src->max > dst->max)
        dst->max = src->max;
    dst->sum += src->sum;
    dst->sumsq += src->sumsq;
    return 0;
}

/* The value reported for held bucket i: its midpoint, within the exact
 * extremes. */
static double bucket_value(const struct hist *h, uint32_t i)
{
    uint64_t lo, hi;
    double mid;
    hist_bucket_range(h, h->base + i, &lo, &hi);
    mid = hi - lo <= 1 ? (double)lo : ((double)lo + (double)hi) / 2;
    if (mid < (double)h->min)
        mid = (double)h->min;
    if (mid > (double)h->max)
        mid = (double)h->max;
    return mid;
}

/* The rank (1-based) of the sample at percentile p, 0 < p < 100: the
 * smallest value with at least p% of samples at or below it. p is a
 * decimal (7, 99.9) a double holds only nearly, so p / 100 * total lands
 * a hair above a whole rank (7 / 100.0 * 100 is 7.000000000000001, 99.9 /
 * 100.0 * 5000 is 4995.000000000001) and ceil took the next sample: the
 * hair (relative, far below a sample in any run) is taken off first. */
static uint64_t rank_of(const struct hist *h, double p)
{
    double x = p / 100.0 * (double)h->total;
    uint64_t rank = (uint64_t)ceil(x - x * 1e-12);
    return rank ? rank : 1;
}

double hist_percentile(const struct hist *h, double p)
{
    uint64_t rank, seen = 0;
    uint32_t i;

    if (h->total == 0)
        return 0;
    if (p <= 0)
        return (double)h->min;
    if (p >= 100)
        return (double)h->max;
    rank = rank_of(h, p);
    /* Walked from the nearer end, so the tail's percentiles do not walk
     * the whole band: from the top, the bucket is the first one past which
     * more than total - rank samples lie. */
    if (rank > h->total / 2) {
        for (i = h->nbuckets; i-- > 0;)
            if ((seen += h->counts[i]) > h->total - rank)
                break;
    } else {
        for (i = 0; i < h->nbuckets; i++)
            if ((seen += h->counts[i]) >= rank)
                break;
    }
    if (i >= h->nbuckets) /* buckets short of total: a grow failed */
        return (double)h->max;
    return bucket_value(h, i);
}

void hist_percentiles(const struct hist *h, const double *p, int n, double *out)
{
    uint64_t seen = 0;
    uint32_t i = 0;
    int k;

    for (k = 0; k < n; k++) {
        uint64_t rank;
        if (h->total == 0 || p[k] <= 0 || p[k] >= 100) {
            out[k] = hist_percentile(h, p[k]);
            continue;
        }
        rank = rank_of(h, p[k]);
        /* One walk for them all: the next percentile's bucket is at or
         * past this one's. */
        while (i < h->nbuckets && seen + h->counts[i] < rank)
            seen += h->counts[i++];
        out[k] = i < h->nbuckets ? bucket_value(h, i) : (double)h->max;
    }
}

void hist_counts_le(const struct hist *h, const double *v, int n, double *out)
{
    double seen = 0;
    uint32_t i, lo, hi;
    int k = 0;
    used_band(h, &lo, &hi);
    /* Below the least value, none; from the greatest on, all. */
    for (; k < n && (h->total == 0 || v[k] < (double)h->min); k++)
        out[k] = 0;
    for (i = lo; i < hi && k < n; i++) {
        uint64_t blo, bhi;
        if (h->counts[i] == 0)
            continue;
        hist_bucket_range(h, h->base + i, &blo, &bhi);
        /* [blo, bhi) of integers: the values of this bucket at or under v
         * (its share, linearly), for each v that falls in it. */
        while (k < n && v[k] + 1 < (double)bhi) {
            out[k] = seen + ((double)blo <= v[k] ? (double)h->counts[i] * (v[k] + 1 - (double)blo) / (double)(bhi - blo)
                                                 : 0);
            k++;
        }
        seen += (double)h->counts[i];
    }
    for (; k < n; k++)
        out[k] = v[k] >= (double)h->max ? (double)h->total : seen;
}

double hist_count_le(const struct hist *h, double v)
{
    double out;
    hist_counts_le(h, &v, 1, &out);
    return out;
}

double hist_mean(const struct hist *h)
{
    return h->total ? h->sum / (double)h->total : 0;
}

double hist_stdev(const struct hist *h)
{
    double mean, var;
    if (h->total < 2)
        return 0;
    mean = h->sum / (double)h->total;
    var = h->sumsq / (double)h->total - mean * mean;
    return var > 0 ? sqrt(var) : 0;
}

int hist_print_hdr(FILE *f, const struct hist *h)
{
    double pct = 0, mean = hist_mean(h) / 1e6, sd = hist_stdev(h) / 1e6;
    int ticks = 5;

    fprintf(f, "%12s %14s %10s %14s\n\n", "Value", "Percentile", "TotalCount", "1/(1-Percentile)");
    if (h->total > 0) {
        /* As HdrHistogram does: 5 steps per halving of the distance to 100%. */
        for (;;) {
            double v = hist_percentile(h, pct * 100) / 1e6;
            uint64_t rank = (uint64_t)ceil(pct * (double)h->total), seen = 0;
            struct hist_iter it;
            if (rank == 0)
                rank = 1;
            /* TotalCount: samples at or below the value reported. */
            for (hist_iter_init(&it, h); hist_iter_next(&it);) {
                if ((double)it.lo > v * 1e6)
                    break;
                seen += it.count;
            }
            if (seen < rank)
                seen = rank;
            if (seen >= h->total || pct >= 0.999999999) {
                fprintf(f, "%12.3f %14.12f %10llu\n", (double)h->max / 1e6, 1.0, (unsigned long long)h->total);
                break;
            }
            fprintf(f, "%12.3f %14.12f %10llu %14.2f\n", v, pct, (unsigned long long)seen, 1.0 / (1.0 - pct));
            {
                double half = pow(2.0, floor(log2(1.0 / (1.0 - pct))) + 1);
                pct += 1.0 / (half * ticks);
            }
        }
    }
    fprintf(f, "#[Mean    = %12.3f, StdDeviation   = %12.3f]\n", mean, sd);
    fprintf(f, "#[Max     = %12.3f, Total count    = %12llu]\n", (double)h->max / 1e6, (unsigned long long)h->total);
    fprintf(f, "#[Buckets = %12u, SubBuckets     = %12u]\n", TOP_BIT - h->sub_bits + 2, 1u << h->sub_bits);
    return ferror(f) ? -1 : 0;
}
