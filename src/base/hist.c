/* hist.c - log-linear latency histogram. See hist.h for the layout. */
#include "hist.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Highest bit of HIST_MAX_NS is 41: ranges B..41 after the linear start. */
#define TOP_BIT 41

static inline uint32_t bucket_of(const struct hist *h, uint64_t v)
{
    unsigned m, b = h->sub_bits;
    if (v < (1u << b))
        return (uint32_t)v;
    m = 63u - (unsigned)__builtin_clzll(v);
    /* (m - B) * SUB + (v >> (m - B)): continuous with the linear start. */
    return (uint32_t)(((m - b) << b) + (v >> (m - b)));
}

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

/* Makes room for bucket index `need`: the held band grows to whole blocks of
 * 2^sub_bits around it, one block more on the side it grew, so a slowly
 * widening band reallocates rarely. */
static int grow(struct hist *h, uint32_t need)
{
    uint32_t block = 1u << h->sub_bits, full = full_size(h->sub_bits);
    uint32_t lo = h->nbuckets ? h->base : need / block * block, hi = h->nbuckets ? h->base + h->nbuckets : lo;
    uint64_t *c;
    if (need < lo)
        lo = need / block > 0 ? (need / block - 1) * block : 0;
    if (need >= hi)
        hi = (need / block + 2) * block;
    if (hi > full)
        hi = full;
    c = malloc((size_t)(hi - lo) * sizeof(uint64_t));
    if (c == NULL)
        return ENOMEM;
    memset(c, 0, (size_t)(hi - lo) * sizeof(uint64_t));
    if (h->nbuckets)
        memcpy(c + (h->base - lo), h->counts, h->nbuckets * sizeof(uint64_t));
    free(h->counts);
    h->counts = c;
    h->base = lo;
    h->nbuckets = hi - lo;
    return 0;
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
    h->nbuckets = h->base = 0;
}

void hist_reset(struct hist *h)
{
    if (h->nbuckets)
        memset(h->counts, 0, h->nbuckets * sizeof(uint64_t));
    h->total = 0;
    h->min = UINT64_MAX;
    h->max = 0;
    h->sum = h->sumsq = 0;
}

void hist_record(struct hist *h, uint64_t ns)
{
    uint32_t b;
    if (ns > HIST_MAX_NS)
        ns = HIST_MAX_NS;
    b = bucket_of(h, ns);
    /* Unsigned: below the band wraps around and is out of range too. */
    if (__builtin_expect(b - h->base < h->nbuckets, 1) || grow(h, b) == 0)
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
    b = bucket_of(h, ns);
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
    /* The band src really used, then room for it in dst. */
    while (lo < hi && src->counts[lo] == 0)
        lo++;
    while (hi > lo && src->counts[hi - 1] == 0)
        hi--;
    if (lo < hi) {
        if ((src->base + lo - dst->base >= dst->nbuckets && grow(dst, src->base + lo) != 0) ||
            (src->base + hi - 1 - dst->base >= dst->nbuckets && grow(dst, src->base + hi - 1) != 0))
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

double hist_percentile(const struct hist *h, double p)
{
    uint64_t rank, seen = 0;
    struct hist_iter it;

    if (h->total == 0)
        return 0;
    if (p <= 0)
        return (double)h->min;
    if (p >= 100)
        return (double)h->max;
    /* The smallest value with at least p% of samples at or below it. */
    rank = (uint64_t)ceil(p / 100.0 * (double)h->total);
    if (rank == 0)
        rank = 1;
    for (hist_iter_init(&it, h); hist_iter_next(&it);) {
        seen += it.count;
        if (seen >= rank) {
            double mid = it.hi - it.lo <= 1 ? (double)it.lo : ((double)it.lo + (double)it.hi) / 2;
            /* The exact extremes are known: never report outside them. */
            if (mid < (double)h->min)
                mid = (double)h->min;
            if (mid > (double)h->max)
                mid = (double)h->max;
            return mid;
        }
    }
    return (double)h->max;
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
