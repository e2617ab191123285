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

/* Makes room for bucket index `need`: up to the end of its block of
 * 2^sub_bits, plus one block, so a slowly growing tail reallocates rarely. */
static int grow(struct hist *h, uint32_t need)
{
    uint32_t block = 1u << h->sub_bits, n = (need / block + 2) * block, full = full_size(h->sub_bits);
    uint64_t *c;
    if (n > full)
        n = full;
    c = realloc(h->counts, n * sizeof(uint64_t));
    if (c == NULL)
        return ENOMEM;
    memset(c + h->nbuckets, 0, (n - h->nbuckets) * sizeof(uint64_t));
    h->counts = c;
    h->nbuckets = n;
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
    h->nbuckets = 0;
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
    if (__builtin_expect(b < h->nbuckets, 1) || grow(h, b) == 0)
        h->counts[b]++;
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
    if (b < h->nbuckets || grow(h, b) == 0)
        h->counts[b] += n;
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
    uint32_t i, top = src->nbuckets;
    if (src->total == 0)
        return 0;
    while (top > 0 && src->counts[top - 1] == 0)
        top--;
    if (top > dst->nbuckets && grow(dst, top - 1) != 0)
        return ENOMEM;
    for (i = 0; i < top; i++)
        dst->counts[i] += src->counts[i];
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
    for (i = 0; i < h->nbuckets; i++) {
        seen += h->counts[i];
        if (seen >= rank) {
            uint64_t lo, hi;
            double mid;
            hist_bucket_range(h, i, &lo, &hi);
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
            uint32_t i;
            if (rank == 0)
                rank = 1;
            /* TotalCount: samples at or below the value reported. */
            for (i = 0; i < h->nbuckets; i++) {
                uint64_t lo, hi;
                hist_bucket_range(h, i, &lo, &hi);
                if ((double)lo > v * 1e6)
                    break;
                seen += h->counts[i];
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
