/* hist.c - log-linear latency histogram. See hist.h for the layout. */
#include "hist.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SUB (1u << HIST_SUB_BITS)
/* Highest bit of HIST_MAX_NS is 41, so ranges 7..41 after the linear start. */
#define TOP_BIT 41
#define NBUCKETS ((TOP_BIT - HIST_SUB_BITS + 1) * SUB + SUB)

static inline uint32_t bucket_of(uint64_t v)
{
    unsigned m;
    if (v < SUB)
        return (uint32_t)v;
    m = 63u - (unsigned)__builtin_clzll(v);
    /* (m - B) * SUB + (v >> (m - B)): continuous with the linear start. */
    return (uint32_t)((m - HIST_SUB_BITS) * SUB + (v >> (m - HIST_SUB_BITS)));
}

uint32_t hist_bucket_count(void)
{
    return NBUCKETS;
}

void hist_bucket_range(uint32_t i, uint64_t *lo, uint64_t *hi)
{
    if (i < 2 * SUB) {
        *lo = i;
        *hi = (uint64_t)i + 1;
        return;
    }
    {
        uint32_t shift = i / SUB - 1;       /* m - B */
        uint64_t sub = i % SUB + SUB;       /* v >> shift */
        *lo = sub << shift;
        *hi = (sub + 1) << shift;
    }
}

int hist_init(struct hist *h)
{
    memset(h, 0, sizeof(*h));
    h->counts = calloc(NBUCKETS, sizeof(uint64_t));
    if (h->counts == NULL)
        return ENOMEM;
    h->min = UINT64_MAX;
    return 0;
}

void hist_fini(struct hist *h)
{
    free(h->counts);
    h->counts = NULL;
}

void hist_reset(struct hist *h)
{
    memset(h->counts, 0, NBUCKETS * sizeof(uint64_t));
    h->total = 0;
    h->min = UINT64_MAX;
    h->max = 0;
    h->sum = h->sumsq = 0;
}

void hist_record(struct hist *h, uint64_t ns)
{
    if (ns > HIST_MAX_NS)
        ns = HIST_MAX_NS;
    h->counts[bucket_of(ns)]++;
    h->total++;
    if (ns < h->min)
        h->min = ns;
    if (ns > h->max)
        h->max = ns;
    h->sum += (double)ns;
    h->sumsq += (double)ns * (double)ns;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
    uint32_t i;
    if (src->total == 0)
        return;
    for (i = 0; i < NBUCKETS; i++)
        dst->counts[i] += src->counts[i];
    dst->total += src->total;
    if (src->min < dst->min)
        dst->min = src->min;
    if (src->max > dst->max)
        dst->max = src->max;
    dst->sum += src->sum;
    dst->sumsq += src->sumsq;
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
    /* The smallest value with at least p% of samples at or below it. */
    rank = (uint64_t)ceil(p / 100.0 * (double)h->total);
    if (rank == 0)
        rank = 1;
    for (i = 0; i < NBUCKETS; i++) {
        seen += h->counts[i];
        if (seen >= rank) {
            uint64_t lo, hi;
            double mid;
            hist_bucket_range(i, &lo, &hi);
            mid = hi - lo <= 1 ? (double)lo : ((double)lo + (double)hi) / 2;
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
