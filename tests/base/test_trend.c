/* Mann-Kendall and Theil-Sen on small series: the slope and its interval
 * of a clean line, no trend in noise, a step found through the runs a line
 * would leave, and autocorrelated noise widened. */
#include "trend.h"
#include "../t.h"

#include <math.h>
#include <stdint.h>

static double x[TREND_MAX_POINTS], y[TREND_MAX_POINTS];

/* A small deterministic noise in [-1, 1]. */
static double noise(uint32_t *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return ((*seed >> 8) % 20001) / 10000.0 - 1;
}

static void line(void)
{
    struct trend t;
    uint32_t i;
    for (i = 0; i < 20; i++) {
        x[i] = i;
        y[i] = 1000 - 15 * i;
    }
    CHECK(trend_test(x, y, 20, &t) == 0);
    CHECKF(t.slope == -15 && t.slope_lo == -15 && t.slope_hi == -15, "%g [%g, %g]", t.slope, t.slope_lo, t.slope_hi);
    CHECK(t.s == -190 && t.p < 1e-6 && t.widen == 1);
    CHECK(t.at_first == 1000 && t.at_last == 1000 - 15 * 19);
    CHECK(t.first == 1000 - 15 * 2.5 && t.last == 1000 - 15 * 16.5);
    /* Out of range. */
    CHECK(trend_test(x, y, TREND_MIN_POINTS - 1, &t) == -1);
    CHECK(trend_test(x, y, TREND_MAX_POINTS + 1, &t) == -1);
}

static void flat(void)
{
    struct trend t;
    uint32_t i, seed = 7, fired = 0, k;
    /* All equal: every pair a tie, no trend. */
    for (i = 0; i < 12; i++) {
        x[i] = i;
        y[i] = 5;
    }
    CHECK(trend_test(x, y, 12, &t) == 0 && t.s == 0 && t.p == 1 && t.slope == 0);
    /* Noise of 10%: 1% of the series at most are called trends at 1%. */
    for (k = 0; k < 500; k++) {
        for (i = 0; i < 20; i++)
            y[i] = 1000 * (1 + 0.1 * noise(&seed));
        trend_test(x, y, 20, &t);
        fired += t.p < 0.01;
        CHECKF(t.slope_lo <= t.slope && t.slope <= t.slope_hi, "%g [%g, %g]", t.slope, t.slope_lo, t.slope_hi);
    }
    CHECKF(fired <= 10, "%u of 500", fired);
}

static void step(void)
{
    struct trend t;
    uint32_t i, seed = 3;
    /* A warm-up: 8 of 30 seconds at half, then steady, 3% noise. S is the
     * 8 x 22 pairs across the step and the others' chance: a rank test of
     * a trend sees a short step weakly, but the runs of residuals a line
     * would leave do not widen it further. */
    for (i = 0; i < 30; i++) {
        x[i] = i;
        y[i] = (i < 8 ? 500 : 1000) * (1 + 0.03 * noise(&seed));
    }
    CHECK(trend_test(x, y, 30, &t) == 0);
    CHECKF(t.p < 0.01 && t.widen < 1.5, "p %g widen %g S %g", t.p, t.widen, t.s);
    CHECK(t.first < 600 && t.mid > 900 && t.last > 900);
}

static void wander(void)
{
    struct trend t;
    uint32_t i, seed = 11;
    /* Slow waves, no trend: high, low, high, low in blocks of 5. The
     * ranks' autocorrelation widens S's variance. */
    for (i = 0; i < 20; i++)
        y[i] = (i / 5 % 2 ? 800 : 1000) * (1 + 0.02 * noise(&seed));
    CHECK(trend_test(x, y, 20, &t) == 0);
    CHECKF(t.widen > 1 && t.p > 0.05, "widen %g p %g", t.widen, t.p);
    CHECK(fabs(trend_median(y, 0)) == 0);
}

int main(void)
{
    T_RUN(line);
    T_RUN(flat);
    T_RUN(step);
    T_RUN(wander);
    T_END("trend");
}
