/* The verdicts' statistics: t quantiles, log intervals, paired ratios by
 * round, ranks shared by the same within noise. */
#include "t.h"
#include "verdict.h"

#include <math.h>

static void quantiles(void)
{
    CHECK(fabs(verdict_t975(1) - 12.706) < 1e-9 && fabs(verdict_t975(2) - 4.303) < 1e-9);
    CHECK(fabs(verdict_t975(9) - 2.262) < 1e-9 && verdict_t975(1000) == 1.96);
    CHECK(isnan(verdict_t975(0)));
}

static void log_interval(void)
{
    double x[3] = { 100, 100, 100 }, ci[2];
    CHECK(fabs(verdict_log_ci(x, 3, ci) - 100) < 1e-9 && fabs(ci[0] - 100) < 1e-9 && fabs(ci[1] - 100) < 1e-9);
    x[0] = 90;
    x[2] = 110;
    /* logs 4.4998, 4.6052, 4.7005: mean 4.6018, sd 0.1004; t(2) * sd / sqrt 3 = 0.2494 */
    CHECK(fabs(verdict_log_ci(x, 3, ci) - exp(4.60183)) < 0.01);
    CHECK(fabs(ci[0] - exp(4.60183 - 0.24942)) < 0.05 && fabs(ci[1] - exp(4.60183 + 0.24942)) < 0.05);
    CHECK(verdict_log_ci(x, 1, ci) == 90 && isnan(ci[0]) && isnan(ci[1]));
    x[0] = 0; /* a round without a figure is skipped */
    CHECK(fabs(verdict_log_ci(x, 3, ci) - sqrt(100.0 * 110)) < 1e-6);
}

static void ranks(void)
{
    /* a and b alike (noise, paired by round: the rounds drift together),
     * c twice as slow in every round, d not valid. */
    double a[4] = { 1000, 1100, 900, 1050 }, b[4] = { 990, 1110, 905, 1040 }, c[4] = { 500, 550, 450, 525 },
           d[4] = { 5000, 5000, 5000, 5000 };
    struct verdict_cell v[4] = { { .rps = a, .nrounds = 4, .valid = 1 }, { .rps = b, .nrounds = 4, .valid = 1 },
                                 { .rps = c, .nrounds = 4, .valid = 1 }, { .rps = d, .nrounds = 4, .valid = 0 } };
    CHECK(verdict_rank(v, 4) == 0);
    CHECK(v[0].verdict == VERDICT_BEST && v[0].rank == 1 && v[0].ratio == 1);
    CHECK(v[1].verdict == VERDICT_SAME && v[1].rank == 1 && v[1].ratio_ci[0] < 1 && v[1].ratio_ci[1] > 1);
    CHECK(v[2].verdict == VERDICT_SLOWER && v[2].rank == 3);
    CHECK(fabs(v[2].ratio - 2.0) < 1e-9 && fabs(v[2].ratio_ci[0] - 2.0) < 1e-9 && fabs(v[2].ratio_ci[1] - 2.0) < 1e-9);
    CHECK(v[3].verdict == VERDICT_INVALID && v[3].rank == 0);
    /* Either order: the same verdicts. */
    {
        struct verdict_cell w[2] = { { .rps = b, .nrounds = 4, .valid = 1 }, { .rps = a, .nrounds = 4, .valid = 1 } };
        int best = verdict_rank(w, 2);
        CHECK(w[1 - best].verdict == VERDICT_SAME && w[0].rank == 1 && w[1].rank == 1);
    }
    /* Surely 1% slower, every round: measurable, and no difference that matters. */
    {
        double e[4] = { 990, 1089, 891, 1039.5 };
        struct verdict_cell w[2] = { { .rps = a, .nrounds = 4, .valid = 1 }, { .rps = e, .nrounds = 4, .valid = 1 } };
        CHECK(verdict_rank(w, 2) == 0 && w[1].ratio_ci[0] > 1.0 && w[1].verdict == VERDICT_SAME && w[1].rank == 1);
    }
    /* One round: a ratio, no interval, no claim. */
    {
        struct verdict_cell w[2] = { { .rps = a, .nrounds = 1, .valid = 1 }, { .rps = c, .nrounds = 1, .valid = 1 } };
        CHECK(verdict_rank(w, 2) == 0 && w[1].verdict == VERDICT_UNKNOWN && fabs(w[1].ratio - 2.0) < 1e-9);
        CHECK(isnan(w[1].ratio_ci[0]) && w[1].rank == 2);
    }
    /* Nothing valid. */
    {
        struct verdict_cell w[1] = { { .rps = d, .nrounds = 4, .valid = 0 } };
        CHECK(verdict_rank(w, 1) == -1 && w[0].verdict == VERDICT_INVALID);
    }
    CHECK(verdict_name(VERDICT_SLOWER)[0] == 's' && verdict_name(99)[0] == 'u');
}

int main(void)
{
    T_RUN(quantiles);
    T_RUN(log_interval);
    T_RUN(ranks);
    T_END("test_verdict");
}
