/* Interval tests: coverage against laws whose figures are known, with
 * independent and with strongly correlated samples; the open sides, too
 * few batches, a ratio of two figures. Seeds are fixed: the counts are the
 * same on every run. */
#include "interval.h"
#include "../t.h"

#include <math.h>
#include <string.h>

#define BATCHES 200
#define PER_BATCH 100
#define RUNS 200

static uint64_t rng_state;

static double uniform(void)
{
    /* splitmix64 */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(void)
{
    return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

/* One run of BATCHES x PER_BATCH exponential latencies (mean 5 ms) whose
 * successive samples correlate with rho (a Gaussian copula: the law of
 * each sample is still exactly exponential). */
static void one_run(struct hist *all, struct hist *b, double rho, double *y, double *n)
{
    double z = normal();
    uint32_t i, j;
    hist_reset(all);
    for (i = 0; i < BATCHES; i++) {
        hist_reset(&b[i]);
        y[i] = 0;
        for (j = 0; j < PER_BATCH; j++) {
            double u, x;
            z = rho * z + sqrt(1 - rho * rho) * normal();
            u = 0.5 * erfc(-z / sqrt(2));
            x = -5e6 * log1p(-u);
            if (x < 1)
                x = 1;
            hist_record(all, (uint64_t)x);
            hist_record(&b[i], (uint64_t)x);
            y[i] += (uint64_t)x;
        }
        n[i] = PER_BATCH;
    }
}

/* How often the intervals of p50, p99 and the mean hold the law's value,
 * over RUNS runs; *width: the p99 interval's mean relative width. */
static void coverage(double rho, int cover[3], double *width)
{
    static struct hist all, b[BATCHES];
    double y[BATCHES], n[BATCHES];
    const double truth[3] = { 5e6 * log(2), 5e6 * log(100), 5e6 };
    uint32_t i;
    int r;
    hist_init(&all);
    for (i = 0; i < BATCHES; i++)
        hist_init_bits(&b[i], 5);
    memset(cover, 0, 3 * sizeof(*cover));
    *width = 0;
    for (r = 0; r < RUNS; r++) {
        struct interval iv[3];
        int k;
        one_run(&all, b, rho, y, n);
        interval_percentile(&all, b, BATCHES, 50, &iv[0]);
        interval_percentile(&all, b, BATCHES, 99, &iv[1]);
        interval_ratio(y, n, BATCHES, &iv[2]);
        for (k = 0; k < 3; k++)
            cover[k] += iv[k].lo <= truth[k] && truth[k] <= iv[k].hi;
        *width += (iv[1].hi - iv[1].lo) / iv[1].est / RUNS;
    }
    hist_fini(&all);
    for (i = 0; i < BATCHES; i++)
        hist_fini(&b[i]);
}

static void independent_samples(void)
{
    int c[3];
    double w;
    rng_state = 1;
    coverage(0, c, &w);
    /* An honest 95% interval holds it about 190 times in 200; 180 is
     * 3.3 standard deviations below. Never all: too wide is wrong too. */
    CHECKF(c[0] >= 180 && c[0] < RUNS, "p50 held %d of %d", c[0], RUNS);
    CHECKF(c[1] >= 180 && c[1] < RUNS, "p99 held %d of %d", c[1], RUNS);
    CHECKF(c[2] >= 180 && c[2] < RUNS, "mean held %d of %d", c[2], RUNS);
    CHECKF(w > 0.02 && w < 0.25, "p99 interval %.3f wide", w);
}

static void correlated_samples(void)
{
    int c[3];
    double w0, w;
    /* rho 0.95: 20 000 samples worth about 500 independent ones. An
     * interval that ignored it would hold the truth about 1 time in 3. */
    rng_state = 2;
    coverage(0, c, &w0);
    rng_state = 3;
    coverage(0.95, c, &w);
    CHECKF(c[0] >= 176, "p50 held %d of %d", c[0], RUNS);
    CHECKF(c[1] >= 176, "p99 held %d of %d", c[1], RUNS);
    CHECKF(c[2] >= 176, "mean held %d of %d", c[2], RUNS);
    CHECKF(w > 2.5 * w0, "correlated p99 interval %.3f, independent %.3f: not widened", w, w0);
}

static void open_sides_and_too_few(void)
{
    struct hist all, b[10];
    struct interval iv;
    double y[10], n[10];
    uint32_t i, j;
    hist_init(&all);
    for (i = 0; i < 10; i++) {
        hist_init_bits(&b[i], 5);
        for (j = 0; j < 50; j++) {
            uint64_t v = 1000000 + (i * 50 + j) * 997 % 500 * 1000;
            hist_record(&all, v);
            hist_record(&b[i], v);
        }
        y[i] = 50 + (double)i;
        n[i] = 1;
    }
    /* 500 answers: p99.9 has no upper bound, p50 has both. */
    interval_percentile(&all, b, 10, 99.9, &iv);
    CHECK(isnan(iv.hi));
    CHECK(iv.lo <= iv.est);
    interval_percentile(&all, b, 10, 50, &iv);
    CHECK(iv.lo < iv.est && iv.est < iv.hi);
    CHECK(iv.batches == 10);
    /* Fewer batches than INTERVAL_MIN_BATCHES: the figure, no interval. */
    interval_percentile(&all, b, INTERVAL_MIN_BATCHES - 1, 50, &iv);
    CHECK(iv.est > 0 && isnan(iv.lo) && isnan(iv.hi) && iv.batches == 0);
    interval_ratio(y, n, INTERVAL_MIN_BATCHES - 1, &iv);
    CHECK(fabs(iv.est - 53) < 1e-9 && isnan(iv.lo));
    interval_ratio(y, n, 10, &iv);
    CHECK(fabs(iv.est - 54.5) < 1e-9 && iv.lo < 54.5 && iv.hi > 54.5);
    /* One batch holds every answer: a symmetric interval would go below 0
     * (a saved result was refused for it); a throughput never does. */
    for (i = 0; i < 10; i++)
        y[i] = i == 9 ? 100 : 0;
    interval_ratio(y, n, 10, &iv);
    CHECK(fabs(iv.est - 10) < 1e-9 && iv.lo == 0 && iv.hi > 10);
    hist_fini(&all);
    for (i = 0; i < 10; i++)
        hist_fini(&b[i]);
}

static void neighbours_merged(void)
{
    /* A slow trend in 64 batches: neighbours correlate, and merging them
     * leaves fewer batches than it started with. */
    double y[64], n[64];
    struct interval iv;
    uint32_t i;
    for (i = 0; i < 64; i++) {
        y[i] = 100 + 30 * sin(i / 8.0);
        n[i] = 1;
    }
    interval_ratio(y, n, 64, &iv);
    CHECKF(iv.batches < 64 && iv.batches >= INTERVAL_MIN_BATCHES, "%u batches", iv.batches);
    CHECK(iv.lo < iv.est && iv.est < iv.hi);
}

static void ratio_of_two(void)
{
    struct interval a = { 100, 95, 105, 20 }, b = { 100, 95, 105, 20 }, c = { 300, 290, 310, 20 }, r;
    interval_of_ratio(&a, &b, &r);
    CHECK(fabs(r.est - 1) < 1e-12 && r.lo < 1 && r.hi > 1);
    CHECK(r.hi < 1.08 && r.lo > 0.92);
    interval_of_ratio(&c, &a, &r);
    CHECK(fabs(r.est - 3) < 1e-12 && r.lo > 2.7 && r.hi < 3.3);
    a.hi = NAN;
    interval_of_ratio(&c, &a, &r);
    CHECK(isnan(r.lo) && !isnan(r.hi)); /* base's upper side moves the ratio down */
    CHECK(fabs(interval_t975(1) - 12.706) < 1e-9 && isnan(interval_t975(0)));
}

/* The intervals of a run's percentiles keep their order: the true p75 is
 * under the true p90, so no bound of p75 may lie above p90's. A run whose
 * stalls (a batch in 20 ten times slower) put its tail in few batches read
 * p75 5.16-23.4 ms beside p90 7.29-13.6 ms, each percentile's interval
 * computed alone. */
static void percentiles_in_order(void)
{
    static struct hist all, b[BATCHES];
    static const double p[6] = { 50, 75, 90, 95, 99, 99.9 };
    uint32_t i, j;
    int r, k, bad = 0, tried = 0;
    hist_init(&all);
    for (i = 0; i < BATCHES; i++)
        hist_init_bits(&b[i], 5);
    rng_state = 4;
    for (r = 0; r < 100; r++) {
        struct interval iv[6];
        hist_reset(&all);
        double z = 0;
        for (i = 0; i < BATCHES; i++) {
            double slow;
            z = 0.9 * z + sqrt(1 - 0.81) * normal(); /* the machine's load, slow to change */
            slow = z > 1 ? 1 + 4 * (z - 1) : 1;
            hist_reset(&b[i]);
            for (j = 0; j < PER_BATCH / 4; j++) {
                uint64_t x = (uint64_t)(5e6 + 5e6 * (slow - 1) * uniform() - 5e5 * log(uniform()));
                hist_record(&all, x);
                hist_record(&b[i], x);
            }
        }
        CHECK(interval_percentiles(&all, b, BATCHES, p, 6, iv) == 0);
        for (k = 0; k < 6; k++) {
            tried++;
            bad += !(isnan(iv[k].lo) || iv[k].lo <= iv[k].est) || !(isnan(iv[k].hi) || iv[k].est <= iv[k].hi);
            if (k > 0)
                bad += (!isnan(iv[k].lo) && !isnan(iv[k - 1].lo) && iv[k].lo < iv[k - 1].lo) ||
                       (!isnan(iv[k].hi) && !isnan(iv[k - 1].hi) && iv[k].hi < iv[k - 1].hi) ||
                       (!isnan(iv[k].hi) && isnan(iv[k - 1].hi));
        }
    }
    CHECKF(bad == 0, "%d of %d bounds out of order", bad, tried);
    hist_fini(&all);
    for (i = 0; i < BATCHES; i++)
        hist_fini(&b[i]);
}

int main(void)
{
    T_RUN(percentiles_in_order);
    T_RUN(independent_samples);
    T_RUN(correlated_samples);
    T_RUN(open_sides_and_too_few);
    T_RUN(neighbours_merged);
    T_RUN(ratio_of_two);
    T_END("test_interval");
}
