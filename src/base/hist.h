/* hist.h - log-linear latency histogram (HdrHistogram-style), values in ns.
 * Each power-of-two range is split into 128 linear sub-buckets, so any value
 * from 1 ns to 1 h is kept within 0.8% (reported at the bucket midpoint,
 * within 0.4%). Recording is a shift and an add: no allocation, no locks;
 * one histogram per thread, merged after the threads are joined. */
#ifndef RAFALE_HIST_H
#define RAFALE_HIST_H

#include <stdint.h>
#include <stdio.h>

#define HIST_SUB_BITS 7
#define HIST_MAX_NS (3600ULL * 1000000000ULL) /* 1 h: larger values are clamped */

struct hist {
    uint64_t *counts;   /* buckets [base, base + nbuckets): the band the values fell in */
    uint32_t base;      /* index of counts[0] */
    uint32_t nbuckets;  /* held; every bucket outside them is empty */
    uint32_t sub_bits;  /* linear sub-buckets per power of two: 2^sub_bits */
    uint32_t fast;      /* counts[0..fast) lie below HIST_MAX_NS's bucket: no clamp to check there */
    uint64_t total;
    uint64_t min, max;  /* exact, in ns */
    double sum, sumsq;  /* for mean and stdev */
};

/* An empty histogram of HIST_SUB_BITS precision. Buckets are held only for
 * the band of values recorded, grown a block of 2^sub_bits at a time (at
 * most 36 times over its life, never per value), so an unused histogram
 * costs nothing and latencies between 100 us and 10 ms about 9 KiB. Returns
 * 0 or an errno value. */
int hist_init(struct hist *h);
/* Same with 2^sub_bits sub-buckets: 5 bits keep values within 3%, in a
 * quarter of the memory (the per-second timeline uses it). */
int hist_init_bits(struct hist *h, uint32_t sub_bits);
/* Frees the buckets; safe on a zeroed struct. */
void hist_fini(struct hist *h);
void hist_reset(struct hist *h);

/* Bucket index of v: the first 2^sub_bits values linear, then, for v's
 * top bit m, (m - B) * SUB + (v >> (m - B)), continuous with the linear
 * start. Without a branch: v's bit B set makes m = B below 2^(B+1), where
 * the formula gives v itself. */
static inline uint32_t hist_bucket_of(uint32_t sub_bits, uint64_t v)
{
    unsigned s = 63u - (unsigned)__builtin_clzll(v | (1ULL << sub_bits)) - sub_bits;
    return (uint32_t)((s << sub_bits) + (v >> s));
}

/* hist_record's rare path: a value out of the band held (which then
 * grows), or in HIST_MAX_NS's bucket or past it (clamped). */
void hist_record_slow(struct hist *h, uint64_t ns);

/* Records one value in ns. (Out of memory when growing: the value counts
 * in total, min, max and mean, but in no bucket.) Inline, with the rare
 * cases out of line: an answer records six or seven, and the call was a
 * fifth of each one's cost. */
static inline void hist_record(struct hist *h, uint64_t ns)
{
    /* Unsigned: below the band wraps around and is out of range too; a
     * value past HIST_MAX_NS falls in its bucket or above, past fast. */
    uint32_t i = hist_bucket_of(h->sub_bits, ns) - h->base;
    if (__builtin_expect(i >= h->fast, 0)) {
        hist_record_slow(h, ns);
        return;
    }
    h->counts[i]++;
    h->total++;
    if (ns < h->min)
        h->min = ns;
    if (ns > h->max)
        h->max = ns;
    h->sum += (double)ns;
    h->sumsq += (double)ns * (double)ns;
}
/* Records the same value n times. */
void hist_record_n(struct hist *h, uint64_t ns, uint64_t n);
/* Adds src into dst; both must have the same precision. Returns 0, or
 * ENOMEM when dst could not grow (then nothing was added). */
int hist_merge(struct hist *dst, const struct hist *src);

/* Value at percentile p (0..100), in ns; 0 when empty. */
double hist_percentile(const struct hist *h, double p);
/* The same for n percentiles in increasing order, in one walk. */
void hist_percentiles(const struct hist *h, const double *p, int n, double *out);
double hist_mean(const struct hist *h);
/* The values at or under v (a count: within a bucket, its share by linear
 * interpolation); 0 when empty. */
double hist_count_le(const struct hist *h, double v);
/* The same for n values in increasing order, into out, in one walk. */
void hist_counts_le(const struct hist *h, const double *v, int n, double *out);
double hist_stdev(const struct hist *h);

/* Buckets held in memory (for memory checks). */
uint32_t hist_bucket_count(const struct hist *h);
/* Buckets a histogram of h's precision spans, and the [lo, hi) value range
 * of bucket index i (0 <= i < hist_index_count(h)). */
uint32_t hist_index_count(const struct hist *h);
void hist_bucket_range(const struct hist *h, uint32_t i, uint64_t *lo, uint64_t *hi);

/* Walks the non-empty buckets in increasing order: every printer, the JSON
 * writer and the merge read buckets through it.
 *     struct hist_iter it;
 *     for (hist_iter_init(&it, h); hist_iter_next(&it);) use(it.lo, it.hi, it.count); */
struct hist_iter {
    const struct hist *h;
    uint32_t next;      /* position in h->counts */
    uint64_t lo, hi;    /* the bucket's value range, [lo, hi) ns */
    uint64_t count;
};
void hist_iter_init(struct hist_iter *it, const struct hist *h);
/* 1 with the next non-empty bucket in it, 0 when there is none. */
int hist_iter_next(struct hist_iter *it);

/* Writes the HdrHistogram "classic" percentile distribution (values in
 * ms, 5 ticks per half distance), which HdrHistogram's plotters read. */
int hist_print_hdr(FILE *f, const struct hist *h);

#endif
