/* Histogram tests: precision over the whole range, percentiles, merging. */
#include "hist.h"
#include "../t.h"

#include <math.h>
#include <string.h>

/* Shared by the cases, which run in order. */
static struct hist a, b;

static void within_one_percent(void)
{
    uint64_t v;
    double worst = 0;

    CHECK(hist_init(&a) == 0);
    CHECK(hist_init(&b) == 0);
    /* Every value from 1 us to 1 h is reported within 1%. */
    for (v = 1000; v <= HIST_MAX_NS; v = v + v / 7 + 1) {
        hist_reset(&a);
        hist_record(&a, v);
        hist_record(&a, 1);            /* so min/max clamping does not hide the bucket value */
        hist_record(&a, HIST_MAX_NS);
        {
            double got = hist_percentile(&a, 50);
            double err = fabs(got - (double)v) / (double)v;
            if (err > worst)
                worst = err;
        }
    }
    CHECKF(worst <= 0.01, "worst relative error %.4f", worst);

}

static void buckets_tile_the_range(void)
{
    uint32_t i;
    /* Buckets tile the range without gaps or overlap. */
    {
        uint64_t lo, hi, prev_hi = 0;
        int ok = 1;
        for (i = 0; i < hist_index_count(&a); i++) {
            hist_bucket_range(&a, i, &lo, &hi);
            if (lo != prev_hi || hi <= lo)
                ok = 0;
            prev_hi = hi;
        }
        CHECK(ok);
        CHECK(prev_hi > HIST_MAX_NS);
    }

}

static void percentiles(void)
{
    uint64_t v;
    /* Percentiles of 1..10000 us. */
    hist_reset(&a);
    for (v = 1; v <= 10000; v++)
        hist_record(&a, v * 1000);
    CHECK(a.total == 10000);
    CHECK(a.min == 1000 && a.max == 10000000);
    CHECKF(fabs(hist_percentile(&a, 50) - 5000e3) / 5000e3 < 0.01, "p50 %f", hist_percentile(&a, 50));
    CHECKF(fabs(hist_percentile(&a, 99) - 9900e3) / 9900e3 < 0.01, "p99 %f", hist_percentile(&a, 99));
    CHECK(hist_percentile(&a, 100) == 10000e3);
    CHECK(hist_percentile(&a, 0) == 1000);
    CHECKF(fabs(hist_mean(&a) - 5000.5e3) < 1, "mean %f", hist_mean(&a));
    CHECKF(fabs(hist_stdev(&a) - 2886.75e3) / 2886.75e3 < 0.001, "stdev %f", hist_stdev(&a));

}

static void merge(void)
{
    uint64_t v;
    /* Merging two halves equals recording everything in one. */
    hist_reset(&b);
    {
        struct hist c;
        CHECK(hist_init(&c) == 0);
        for (v = 1; v <= 10000; v++)
            hist_record(v % 2 ? &b : &c, v * 1000);
        hist_merge(&b, &c);
        hist_fini(&c);
    }
    CHECK(b.total == a.total && b.min == a.min && b.max == a.max);
    {
        /* Bucket by bucket, through the iterator. */
        struct hist_iter ia, ib;
        int same = 1, na, nb;
        hist_iter_init(&ia, &a);
        hist_iter_init(&ib, &b);
        do {
            na = hist_iter_next(&ia);
            nb = hist_iter_next(&ib);
            if (na != nb || (na && (ia.lo != ib.lo || ia.count != ib.count)))
                same = 0;
        } while (na && nb);
        CHECK(same);
    }
    CHECK(hist_percentile(&a, 99.9) == hist_percentile(&b, 99.9));

}

static void held_band(void)
{
    uint32_t i;
    /* Buckets are allocated as far as the values reach: an unused histogram
     * holds none, a 10 ms tail a few thousand, a merge grows its target. */
    {
        struct hist e, m;
        CHECK(hist_init(&e) == 0 && hist_init(&m) == 0);
        CHECK(hist_bucket_count(&e) == 0 && hist_percentile(&e, 99) == 0);
        hist_record(&e, 10 * 1000000);
        CHECKF(hist_bucket_count(&e) > 0 && hist_bucket_count(&e) * sizeof(uint64_t) < 32 * 1024, "%u buckets",
               hist_bucket_count(&e));
        CHECK(hist_percentile(&e, 50) >= 9.9e6 && hist_percentile(&e, 50) <= 10.1e6);
        hist_record(&e, 2 * 3600ULL * 1000000000ULL);
        CHECK(e.max == HIST_MAX_NS && hist_percentile(&e, 100) == (double)HIST_MAX_NS);
        CHECK(hist_merge(&m, &e) == 0 && m.total == 2);
        CHECK(hist_percentile(&m, 50) == hist_percentile(&e, 50) && hist_percentile(&m, 99) == hist_percentile(&e, 99));
        hist_fini(&e);
        hist_fini(&m);
        /* A band of values holds a band of buckets: 100 us to 200 us in two blocks. */
        CHECK(hist_init(&e) == 0);
        for (i = 100; i <= 200; i++)
            hist_record(&e, (uint64_t)i * 1000);
        CHECKF(hist_bucket_count(&e) <= 3 * 128, "%u buckets for 100-200 us", hist_bucket_count(&e));
        /* Growing downwards keeps what was there. */
        hist_record(&e, 1000);
        hist_record(&e, 10);
        CHECK(e.total == 103 && hist_percentile(&e, 0.5) < 2000 && hist_percentile(&e, 50) >= 148e3 &&
              hist_percentile(&e, 50) <= 152e3 && hist_percentile(&e, 100) == 200e3);
        hist_fini(&e);
    }

}

static void clamped(void)
{
    /* Values above 1 h are clamped, not lost. */
    hist_reset(&a);
    hist_record(&a, HIST_MAX_NS * 10);
    CHECK(a.total == 1 && a.max == HIST_MAX_NS);
    /* Just above, with the band already holding its bucket: still the
     * clamped value in the extremes and the sums. */
    hist_record(&a, HIST_MAX_NS + 1000000000ULL);
    CHECK(a.total == 2 && a.max == HIST_MAX_NS && a.sum == 2.0 * (double)HIST_MAX_NS);

}

static void coarse(void)
{
    uint64_t v;
    /* The coarse (5-bit) variant keeps every value within 3%. */
    {
        struct hist c;
        double worst5 = 0;
        CHECK(hist_init_bits(&c, 5) == 0);
        for (v = 1000; v <= HIST_MAX_NS; v = v + v / 7 + 1) {
            double got, e;
            hist_reset(&c);
            hist_record(&c, 1);
            hist_record(&c, v);
            hist_record(&c, HIST_MAX_NS);
            got = hist_percentile(&c, 50);
            e = fabs(got - (double)v) / (double)v;
            if (e > worst5)
                worst5 = e;
        }
        CHECKF(worst5 <= 0.03, "5-bit worst relative error %.4f", worst5);
        CHECK(hist_index_count(&c) < hist_index_count(&a) / 3);
        hist_fini(&c);
    }

}

static void hdr_output(void)
{
    uint64_t v;
    /* HdrHistogram classic output: header, rows, footer; 100% is the max. */
    {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        hist_reset(&a);
        for (v = 1; v <= 1000; v++)
            hist_record(&a, v * 1000000);
        CHECK(hist_print_hdr(f, &a) == 0);
        fclose(f);
        CHECK(strstr(buf, "Value     Percentile TotalCount 1/(1-Percentile)") != NULL);
        CHECK(strstr(buf, "    1000.000 1.000000000000       1000\n") != NULL);
        CHECK(strstr(buf, "#[Max     =     1000.000, Total count    =         1000]") != NULL);
        CHECK(strstr(buf, " 0.500000000000 ") != NULL);
        free(buf);
    }

}

static void empty_and_fini(void)
{
    /* Empty histogram. */
    hist_reset(&a);
    CHECK(hist_percentile(&a, 99) == 0 && hist_mean(&a) == 0 && hist_stdev(&a) == 0);

    hist_fini(&a);
    hist_fini(&b);
    hist_fini(&b); /* safe twice */
}

/* The percentile's rank is exact for a decimal p: 7% of 100 samples is
 * the 7th, 99.9% of 5000 the 4995th (p / 100.0 * total lands a hair
 * above: the next sample was taken). Values below 256 ns are kept exactly. */
static void exact_ranks(void)
{
    struct hist h;
    double ps[2] = { 7, 99.9 }, got[2];
    uint64_t v;
    int bad = 0, p;
    CHECK(hist_init(&h) == 0);
    for (v = 1; v <= 100; v++)
        hist_record(&h, v);
    for (p = 1; p < 100; p++)
        bad += hist_percentile(&h, p) != (double)p;
    CHECKF(bad == 0 && hist_percentile(&h, 7) == 7 && hist_percentile(&h, 55) == 55, "%d wrong, p7 %.0f", bad,
           hist_percentile(&h, 7));
    hist_percentiles(&h, ps, 2, got);
    CHECK(got[0] == 7 && got[1] == 100);
    hist_reset(&h);
    hist_record_n(&h, 100, 4995);
    hist_record_n(&h, 200, 5);
    CHECKF(hist_percentile(&h, 99.9) == 100, "p99.9 %.0f", hist_percentile(&h, 99.9));
    hist_percentiles(&h, ps, 2, got);
    CHECK(got[1] == 100);
    hist_fini(&h);
}

/* The percentile as the walk from the bottom through the iterator finds it. */
static double walked(const struct hist *h, double p)
{
    struct hist_iter it;
    double x = p / 100.0 * (double)h->total;
    uint64_t rank = (uint64_t)ceil(x - x * 1e-12), seen = 0; /* as hist.c's rank_of */
    if (rank == 0)
        rank = 1;
    for (hist_iter_init(&it, h); hist_iter_next(&it);)
        if ((seen += it.count) >= rank) {
            double mid = it.hi - it.lo <= 1 ? (double)it.lo : ((double)it.lo + (double)it.hi) / 2;
            return mid < (double)h->min ? (double)h->min : mid > (double)h->max ? (double)h->max : mid;
        }
    return (double)h->max;
}

static void walks_agree(void)
{
    /* hist_percentile walks from the nearer end and hist_percentiles walks
     * once for many: both as the plain walk from the bottom, on bands grown
     * down and up in turn (each growth clears only what is new). */
    static const double ps[] = { 0.001, 1, 25, 49.99, 50, 50.01, 75, 90, 99, 99.9, 99.99, 99.9999 };
    enum { NP = sizeof(ps) / sizeof(ps[0]) };
    uint64_t x = 88172645463325252ULL, n;
    int round, k, same = 1, counted = 1;
    for (round = 0; round < 6; round++) {
        struct hist h;
        struct hist_iter it;
        double got[NP];
        uint64_t sum = 0;
        CHECK(hist_init(&h) == 0);
        for (n = 0; n < 5000u + 3000u * (uint64_t)round; n++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            /* Alternately far below and far above: the band widens both ways. */
            hist_record(&h, n % 2 ? 40000 + x % (1000u << round) * 37 : 30000 - x % (25000u >> round));
        }
        hist_percentiles(&h, ps, NP, got);
        for (k = 0; k < NP; k++)
            if (hist_percentile(&h, ps[k]) != walked(&h, ps[k]) || got[k] != walked(&h, ps[k]))
                same = 0;
        for (hist_iter_init(&it, &h); hist_iter_next(&it);)
            sum += it.count;
        if (sum != h.total)
            counted = 0;
        hist_fini(&h);
    }
    CHECK(same);
    CHECK(counted);
}

int main(void)
{
    T_RUN(within_one_percent);
    T_RUN(buckets_tile_the_range);
    T_RUN(percentiles);
    T_RUN(merge);
    T_RUN(held_band);
    T_RUN(clamped);
    T_RUN(walks_agree);
    T_RUN(exact_ranks);
    T_RUN(coarse);
    T_RUN(hdr_output);
    T_RUN(empty_and_fini);
    T_END("test_hist");
}
