/* duration = auto: the round length from the servers' own throughput
 * intervals, doubled from 0.5 s up to max-duration, by the verdict's own
 * rule for rounds too short. */
#include "compare_settings.h"
#include "duration_auto.h"
#include "verdict.h"
#include "../t.h"

#include <math.h>

#define S 1000000000ULL
#define W 0.20 /* same-within 20%: half the band is about 9.5% on the log scale */

static void widest_two_together(void)
{
    double one[1] = { 0.06 }, three[3] = { 0.03, 0.08, 0.06 }, none[2] = { 0.05, NAN }, neg[2] = { 0.05, -1 };
    double zero[2] = { 0, 0 };
    CHECK(fabs(duration_auto_widest(one, 1) - 0.06) < 1e-12);
    /* 0.08 and 0.06, not 0.03: hypot 0.10 */
    CHECK(fabs(duration_auto_widest(three, 3) - 0.1) < 1e-12);
    /* A run without an interval cannot say it fits. */
    CHECK(isnan(duration_auto_widest(none, 2)) && isnan(duration_auto_widest(neg, 2)));
    CHECK(isnan(duration_auto_widest(one, 0)));
    /* A run whose every batch counted the same (a steady rate): no width at all. */
    CHECK(duration_auto_widest(zero, 2) == 0);
}

static void doubles_up_to_the_max(void)
{
    CHECK(duration_auto_first(10 * S) == S / 2);
    CHECK(duration_auto_first(S / 5) == S / 5); /* max-duration 200ms: that is the first and the last */
    /* Too wide: twice as long, */
    CHECK(duration_auto_next(S / 2, 0.2, W, 10 * S) == S);
    CHECK(duration_auto_next(4 * S, 0.2, W, 10 * S) == 8 * S);
    /* never past the max, */
    CHECK(duration_auto_next(8 * S, 0.2, W, 10 * S) == 10 * S);
    CHECK(duration_auto_next(S / 2, 0.2, W, 3 * S / 4) == 3 * S / 4);
    /* and at the max, the max again: reached. */
    CHECK(duration_auto_next(10 * S, 0.2, W, 10 * S) == 10 * S);
    CHECK(duration_auto_next(10 * S, NAN, W, 10 * S) == 10 * S);
    /* No interval: longer, as too wide. */
    CHECK(duration_auto_next(S, NAN, W, 10 * S) == 2 * S);
}

static void fits_half_the_band_as_the_verdict_says(void)
{
    /* Half of 20% on the log scale: log(1.2) / 2 = 0.0912, exp - 1 = 9.54%. */
    CHECK(duration_auto_next(S / 2, 0.095, W, 10 * S) == 0);
    CHECK(duration_auto_next(S / 2, 0.096, W, 10 * S) == S);
    CHECK(duration_auto_next(S / 2, 0, W, 10 * S) == 0);
    /* Fitting at the max is fitting, not reached. */
    CHECK(duration_auto_next(10 * S, 0.05, W, 10 * S) == 0);
    /* The same rule as the verdict's "rounds too short": whatever it
     * chose, the verdict would not call too short for these intervals. */
    CHECK(!verdict_own_short(0.095, W) && verdict_own_short(0.096, W));
    /* At 3%, half the band is 1.489%. */
    CHECK(duration_auto_next(S, 0.0148, 0.03, 10 * S) == 0 && duration_auto_next(S, 0.0150, 0.03, 10 * S) == 2 * S);
}

int main(void)
{
    T_RUN(widest_two_together);
    T_RUN(doubles_up_to_the_max);
    T_RUN(fits_half_the_band_as_the_verdict_says);
    T_END("test_duration_auto");
}
