/* --stages' ramps (src/client/ramp.c): the rate moving linearly over each
 * stage, the requests due by a time (its integral) and the time the k-th
 * is due (its inverse), a flat stage exact. */
#include "schedule.h"
#include "../t.h"

#include <math.h>

#define S 1000000000ULL

static int near(double a, double b, double eps)
{
    return fabs(a - b) <= eps;
}

static void up_then_flat_then_down(void)
{
    /* 0 -> 100 req/s over 10 s, 100 for 10 s, down to 0 over 10 s. */
    static const uint64_t dur[] = { 10 * S, 10 * S, 10 * S };
    static const double rate[] = { 100, 100, 0 };
    struct ramp rp;
    ramp_init(&rp, 0, dur, rate, 3);
    CHECK(rp.n == 3 && rp.t[3] == 30 * S);
    CHECK(near(rp.cum[1], 500, 1e-9) && near(rp.cum[2], 1500, 1e-9) && near(rp.cum[3], 2000, 1e-9));
    /* The rate, at each stage's middle and past the end. */
    CHECK(near(ramp_rate(&rp, 5 * S), 50, 1e-9) && near(ramp_rate(&rp, 15 * S), 100, 1e-9) &&
          near(ramp_rate(&rp, 25 * S), 50, 1e-9) && ramp_rate(&rp, 40 * S) == 0);
    /* Due by t: a triangle's area, then a rectangle's. */
    CHECK(near(ramp_count(&rp, 5 * S), 125, 1e-9) && near(ramp_count(&rp, 10 * S), 500, 1e-9) &&
          near(ramp_count(&rp, 15 * S), 1000, 1e-9) && near(ramp_count(&rp, 25 * S), 1875, 1e-9) &&
          near(ramp_count(&rp, 99 * S), 2000, 1e-9));
    /* Its inverse, within a microsecond. */
    CHECK(near((double)ramp_time(&rp, 125), 5e9, 1e3) && near((double)ramp_time(&rp, 1000), 15e9, 1e3) &&
          near((double)ramp_time(&rp, 1875), 25e9, 1e3) && ramp_time(&rp, 0) == 0);
    CHECK(ramp_time(&rp, 2000) == UINT64_MAX);
}

/* Every request's due time from its count and back: the two agree. */
static void inverse_round_trip(void)
{
    static const uint64_t dur[] = { 3 * S, 2 * S };
    static const double rate[] = { 1000, 10 };
    struct ramp rp;
    int k, ok = 1;
    ramp_init(&rp, 10, dur, rate, 2);
    for (k = 0; k < (int)rp.cum[2]; k++) {
        uint64_t t = ramp_time(&rp, k);
        ok &= near(ramp_count(&rp, t), k, 1e-3) && (k == 0 || t > ramp_time(&rp, k - 1));
    }
    CHECK(ok);
    /* More stages than it holds: the first RAMP_MAX. */
    {
        uint64_t d[RAMP_MAX + 2];
        double r[RAMP_MAX + 2];
        for (k = 0; k < RAMP_MAX + 2; k++) {
            d[k] = S;
            r[k] = 1;
        }
        ramp_init(&rp, 1, d, r, RAMP_MAX + 2);
        CHECK(rp.n == RAMP_MAX && near(ramp_count(&rp, 1000 * S), RAMP_MAX, 1e-9));
    }
}

int main(void)
{
    T_RUN(up_then_flat_then_down);
    T_RUN(inverse_round_trip);
    T_END("test_ramp");
}
