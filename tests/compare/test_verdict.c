/* The verdicts' statistics: t quantiles, log intervals, paired ratios by
 * round, ranks shared by the same within noise. */
#include "compare_settings.h"
#include "../t.h"
#include "interval.h"
#include "verdict.h"

#include <math.h>
#include <string.h>

static void quantiles(void)
{
    CHECK(fabs(interval_t975(1) - 12.706) < 1e-9 && fabs(interval_t975(2) - 4.303) < 1e-9);
    CHECK(fabs(interval_t975(9) - 2.262) < 1e-9 && interval_t975(1000) == 1.96);
    CHECK(isnan(interval_t975(0)));
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

#define W 0.03

/* The plan the advice is for: repeat = auto up to max (0: a fixed repeat of n). */
static const struct compare_settings *plan(int max, int n)
{
    static struct compare_settings set;
    compare_settings_defaults(&set);
    set.same_within = W;
    set.repeat_auto = max > 0;
    set.max_repeat = max > 0 ? max : set.max_repeat;
    set.repeat = n;
    return &set;
}

/* Two cells of n rounds each, with the given figures. */
static void pair_of(const double *a, const double *b, int n, double res, struct verdict_pair *v)
{
    struct verdict_cell x = { .rps = a, .nrounds = n, .valid = 1, .resolution = res / 2 };
    struct verdict_cell y = { .rps = b, .nrounds = n, .valid = 1, .resolution = res / 2 };
    verdict_pair(&x, &y, W, v);
}

static void decide(void)
{
    double in[2] = { 0.98, 1.02 }, slow[2] = { 1.1, 1.3 }, fast[2] = { 0.5, 0.7 }, wide[2] = { 0.7, 18.9 },
           edge[2] = { 1.01, 1.04 }, none[2] = { NAN, NAN };
    CHECK(verdict_decide(in, W) == VERDICT_SAME);
    CHECK(verdict_decide(slow, W) == VERDICT_SLOWER && verdict_decide(fast, W) == VERDICT_FASTER);
    /* The nginx backlog 4 against 511 of the issue: "same (0.70-18.89)" was wrong. */
    CHECK(verdict_decide(wide, W) == VERDICT_UNDECIDED);
    /* Clear of 1 but not inside the band: slower. */
    CHECK(verdict_decide(edge, W) == VERDICT_SLOWER);
    /* Clear of 1 and inside the band: same wins. */
    edge[1] = 1.025;
    CHECK(verdict_decide(edge, W) == VERDICT_SAME);
    CHECK(verdict_decide(none, W) == VERDICT_UNDECIDED);
}

static void pairs(void)
{
    /* a and b alike, the rounds drifting together: same. */
    double a[6] = { 1000, 1100, 900, 1050, 980, 1020 }, b[6] = { 995, 1104, 902, 1046, 983, 1018 },
           c[6] = { 500, 550, 450, 525, 490, 510 }, noisy[6] = { 1000, 700, 1300, 800, 1250, 950 };
    struct verdict_pair v;
    char why[400];
    pair_of(b, a, 6, 0, &v);
    CHECKF(v.verdict == VERDICT_SAME && v.n == 6 && v.ci[0] > 1 / 1.03 && v.ci[1] < 1.03, "%g %g", v.ci[0], v.ci[1]);
    /* Twice the time per request in every round: slower, and a faster. */
    pair_of(c, a, 6, 0, &v);
    CHECK(v.verdict == VERDICT_SLOWER && fabs(v.ratio - 2) < 1e-9);
    pair_of(a, c, 6, 0, &v);
    CHECK(v.verdict == VERDICT_FASTER && fabs(v.ratio - 0.5) < 1e-9);
    /* Wide across 1: undecided, too noisy, and more rounds named. */
    pair_of(noisy, a, 6, 0, &v);
    CHECK(v.verdict == VERDICT_UNDECIDED && v.why == VWHY_NOISY && v.ci[0] < 1 && v.ci[1] > 1.03);
    verdict_why_text(why, sizeof(why), &v, plan(15, 6));
    CHECKF(strstr(why, "too noisy") && strstr(why, "spread") && (strstr(why, "max-repeat = ") ||
           strstr(why, "quieter machine")), "%s", why);
    /* Under 3 rounds: no interval, undecided, said so. */
    pair_of(c, a, 2, 0, &v);
    CHECK(v.verdict == VERDICT_UNDECIDED && v.why == VWHY_FEW_ROUNDS && isnan(v.ci[0]) && fabs(v.ratio - 2) < 1e-9);
    verdict_why_text(why, sizeof(why), &v, plan(0, 2));
    CHECKF(strstr(why, "too few rounds (2") != NULL && strstr(why, "repeat = 5 or more, or auto"), "%s", why);
    /* Under repeat = auto, which runs 5 at least: never "or auto", never a max-repeat under 5. */
    verdict_why_text(why, sizeof(why), &v, plan(2, 2));
    CHECKF(strstr(why, "too few rounds (2") != NULL && strstr(why, "max-repeat = 5 or more") && !strstr(why, "or auto"),
           "%s", why);
    verdict_why_text(why, sizeof(why), &v, plan(15, 2));
    CHECKF(strstr(why, "too few rounds (2") != NULL && !strstr(why, "or auto") && !strstr(why, "max-repeat = "),
           "%s", why);
    /* Three rounds with a tiny spread by chance: t alone would claim same;
     * t at 2 degrees of freedom (4.30) over 3 rounds does not. */
    {
        double x[3] = { 1000, 1000, 1000 }, y[3] = { 1010, 985, 1000 };
        pair_of(x, y, 3, 0, &v);
        CHECKF(v.verdict == VERDICT_UNDECIDED && v.why == VWHY_NOISY, "%d %g %g", v.verdict, v.ci[0], v.ci[1]);
        /* It names 4 rounds: a fixed repeat is told "repeat = 4"; repeat = auto never fewer than its 5, and its
         * max-repeat only when that is what held it back. */
        CHECKF(v.rounds_needed == 4, "%d", v.rounds_needed);
        verdict_why_text(why, sizeof(why), &v, plan(0, 3));
        CHECKF(strstr(why, "more rounds (repeat = 4)") && !strstr(why, "max-repeat"), "%s", why);
        verdict_why_text(why, sizeof(why), &v, plan(3, 3));
        CHECKF(strstr(why, "more rounds (max-repeat = 5)") && !strstr(why, "about 4"), "%s", why);
        verdict_why_text(why, sizeof(why), &v, plan(15, 3));
        CHECKF(strstr(why, "more rounds (about 5, which max-repeat = 15 allows") && !strstr(why, "about 4"), "%s",
               why);
    }
    /* Many rounds needed under a fixed repeat: raise repeat, not max-repeat (which a fixed repeat ignores). */
    {
        struct verdict_pair many = v;
        many.why = VWHY_NOISY;
        many.rounds_needed = 49;
        verdict_why_text(why, sizeof(why), &many, plan(0, 3));
        CHECKF(strstr(why, "more rounds (repeat = 49)") && !strstr(why, "max-repeat"), "%s", why);
        verdict_why_text(why, sizeof(why), &many, plan(15, 15));
        CHECKF(strstr(why, "more rounds (max-repeat = 49)"), "%s", why);
    }
}

/* Rounds too short by their own intervals: each run's throughput interval
 * (from its batches of time) wider than half the band, the rounds' ratios
 * spreading with it: longer rounds, not a quieter machine. With narrow
 * own intervals the same spread is the machine's: noisy. */
static void own_intervals(void)
{
    double a[5] = { 100, 104, 97, 102, 99 }, b[5] = { 100, 100, 100, 100, 100 };
    struct verdict_cell x = { .rps = a, .nrounds = 5, .valid = 1, .own_ci = 0.02 };
    struct verdict_cell y = { .rps = b, .nrounds = 5, .valid = 1, .own_ci = 0.02 };
    struct verdict_pair v;
    char why[400];
    verdict_pair(&x, &y, W, &v);
    CHECKF(v.verdict == VERDICT_UNDECIDED && v.why == VWHY_COARSE && fabs(v.own_ci - 0.0283) < 0.001, "%d %d %g",
           v.verdict, v.why, v.own_ci);
    verdict_why_text(why, sizeof(why), &v, plan(15, 5));
    CHECKF(strstr(why, "rounds too short") && strstr(why, "own throughput interval is \xc2\xb1" "2.8%") &&
               strstr(why, "longer rounds (duration)"), "%s", why);
    /* Within half the band (1% each: 1.4% together, under 1.5%): noisy. */
    x.own_ci = y.own_ci = 0.01;
    verdict_pair(&x, &y, W, &v);
    CHECKF(v.verdict == VERDICT_UNDECIDED && v.why == VWHY_NOISY, "%d %d", v.verdict, v.why);
    /* Unknown (older results): noisy, as before. */
    x.own_ci = y.own_ci = 0;
    verdict_pair(&x, &y, W, &v);
    CHECK(v.why == VWHY_NOISY && v.own_ci == 0);
    /* A decided pair stays decided whatever its rounds' own intervals. */
    x.own_ci = y.own_ci = 0.05;
    {
        double c[5] = { 50, 51, 49, 50, 50 };
        x.rps = c;
        verdict_pair(&x, &y, W, &v);
        CHECK(v.verdict == VERDICT_FASTER || v.verdict == VERDICT_SLOWER);
    }
}

static void degenerate(void)
{
    /* Rounds that count the same integers: every ratio exactly 1, a zero
     * width interval. At 4 connections and 100 requests a round, a count
     * moves by 4%: no claim of "same within 3%" ... */
    double a[5] = { 100, 100, 100, 100, 100 }, b[5] = { 100, 100, 100, 100, 100 }, h[5] = { 50, 50, 50, 50, 50 };
    struct verdict_pair v;
    char why[400];
    pair_of(a, b, 5, 0.08, &v);
    CHECKF(v.verdict == VERDICT_UNDECIDED && v.why == VWHY_COARSE && v.ci[0] < 1 / 1.03 && v.ci[1] > 1.03, "%g %g",
           v.ci[0], v.ci[1]);
    verdict_why_text(why, sizeof(why), &v, plan(15, 5));
    CHECKF(strstr(why, "rounds too short") && strstr(why, "longer rounds (duration)"), "%s", why);
    /* Under duration = auto the advice is its key: max-duration once it
     * was reached, else a length given, its probes having fit. */
    v.duration_auto = 2;
    verdict_why_text(why, sizeof(why), &v, plan(15, 5));
    CHECKF(strstr(why, "longer rounds (max-duration: duration = auto reached it)"), "%s", why);
    v.duration_auto = 1;
    verdict_why_text(why, sizeof(why), &v, plan(15, 5));
    CHECKF(strstr(why, "longer rounds (duration: these rounds are wider than duration = auto's probing rounds were)"),
           "%s", why);
    /* ... while with 10000 a round, it is the same. */
    pair_of(a, b, 5, 0.0008, &v);
    CHECK(v.verdict == VERDICT_SAME && v.ci[0] < 1 && v.ci[1] > 1);
    /* A point at twice the time stays slower, coarse or not. */
    pair_of(h, a, 5, 0.08, &v);
    CHECK(v.verdict == VERDICT_SLOWER && v.ci[0] > 1.8 && v.ci[1] < 2.2);
}

static void ranks(void)
{
    /* a and b alike, c twice as slow in every round, d not valid. */
    double a[5] = { 1000, 1100, 900, 1050, 980 }, b[5] = { 997, 1098, 899, 1048, 978 },
           c[5] = { 500, 550, 450, 525, 490 }, d[5] = { 5000, 5000, 5000, 5000, 5000 },
           e[5] = { 1000, 700, 1300, 800, 1250 };
    struct verdict_cell v[4] = { { .rps = a, .nrounds = 5, .valid = 1 }, { .rps = b, .nrounds = 5, .valid = 1 },
                                 { .rps = c, .nrounds = 5, .valid = 1 }, { .rps = d, .nrounds = 5, .valid = 0 } };
    CHECK(verdict_rank(v, 4, W) == 0);
    CHECK(v[0].verdict == VERDICT_BEST && v[0].rank == 1 && v[0].ratio == 1);
    CHECKF(v[1].verdict == VERDICT_SAME && v[1].rank == 1 && v[1].ratio_ci[0] > 1 / 1.03 && v[1].ratio_ci[1] < 1.03,
           "%d %g %g",
           v[1].verdict, v[1].ratio_ci[0], v[1].ratio_ci[1]);
    CHECK(v[2].verdict == VERDICT_SLOWER && v[2].rank == 3);
    CHECK(fabs(v[2].ratio - 2.0) < 1e-9 && fabs(v[2].ratio_ci[0] - 2.0) < 1e-9 && fabs(v[2].ratio_ci[1] - 2.0) < 1e-9);
    CHECK(v[3].verdict == VERDICT_INVALID && v[3].rank == 0);
    /* Either order: the same verdicts. */
    {
        struct verdict_cell w[2] = { { .rps = b, .nrounds = 5, .valid = 1 }, { .rps = a, .nrounds = 5, .valid = 1 } };
        int best = verdict_rank(w, 2, W);
        CHECK(w[1 - best].verdict == VERDICT_SAME && w[0].rank == 1 && w[1].rank == 1);
    }
    /* Surely 1% slower, every round: measurable, and no difference that matters. */
    {
        double f[5] = { 990, 1089, 891, 1039.5, 970.2 };
        struct verdict_cell w[2] = { { .rps = a, .nrounds = 5, .valid = 1 }, { .rps = f, .nrounds = 5, .valid = 1 } };
        CHECK(verdict_rank(w, 2, W) == 0 && w[1].ratio_ci[0] > 1.0 && w[1].verdict == VERDICT_SAME && w[1].rank == 1);
    }
    /* Undecided: no shared rank, the order of the figures. */
    {
        struct verdict_cell w[2] = { { .rps = e, .nrounds = 5, .valid = 1 }, { .rps = a, .nrounds = 5, .valid = 1 } };
        int best = verdict_rank(w, 2, W);
        CHECK(w[1 - best].verdict == VERDICT_UNDECIDED && w[best].rank == 1 && w[1 - best].rank == 2);
        CHECK(w[1 - best].vs_best.why == VWHY_NOISY);
    }
    /* One round: a ratio, no interval, no claim, no shared rank. */
    {
        struct verdict_cell w[2] = { { .rps = a, .nrounds = 1, .valid = 1 }, { .rps = c, .nrounds = 1, .valid = 1 } };
        CHECK(verdict_rank(w, 2, W) == 0 && w[1].verdict == VERDICT_UNDECIDED && fabs(w[1].ratio - 2.0) < 1e-9);
        CHECK(isnan(w[1].ratio_ci[0]) && w[1].rank == 2);
    }
    /* Nothing valid. */
    {
        struct verdict_cell w[1] = { { .rps = d, .nrounds = 4, .valid = 0 } };
        CHECK(verdict_rank(w, 1, W) == -1 && w[0].verdict == VERDICT_INVALID);
    }
    CHECK(strcmp(verdict_name(VERDICT_SLOWER), "slower") == 0 && strcmp(verdict_name(VERDICT_UNDECIDED), "undecided") == 0);
    CHECK(strcmp(verdict_name(VERDICT_FASTER), "faster") == 0);
}

/* Rounds in which other processes took the machine's CPUs do not pair:
 * two identical servers read 1.07x slower (1.02-1.12) over 3 such rounds,
 * a neighbour slowing one of them in each. */
static void busy_rounds(void)
{
    double a[4] = { 600, 590, 610, 600 }, b[4] = { 561, 551, 570, 600 };
    unsigned char all[4] = { 1, 1, 1, 0 }, one[4] = { 0, 1, 0, 0 };
    struct verdict_cell x = { .rps = a, .nrounds = 3, .valid = 1 }, y = { .rps = b, .nrounds = 3, .valid = 1 };
    struct verdict_pair v;
    char why[400];
    verdict_pair(&y, &x, W, &v);
    CHECK(v.verdict == VERDICT_SLOWER && v.busy == 0 && v.n == 3);
    /* Every round busy (in either server's run): no interval, the machine
     * named; the ratio still told. */
    y.busy = all;
    verdict_pair(&y, &x, W, &v);
    CHECKF(v.verdict == VERDICT_UNDECIDED && v.why == VWHY_BUSY && v.busy == 3 && v.n == 0 && isnan(v.ci[0]) &&
           fabs(v.ratio - 1.07) < 0.01, "%d %d %d %g", v.verdict, v.busy, v.n, v.ratio);
    verdict_why_text(why, sizeof(why), &v, plan(0, 3));
    CHECKF(strstr(why, "the machine was busy: other processes took its CPUs in 3 of 3 rounds (noisy_neighbour)") &&
           strstr(why, "a quieter machine"), "%s", why);
    x.busy = all;
    y.busy = NULL;
    verdict_pair(&x, &y, W, &v);
    CHECK(v.verdict == VERDICT_UNDECIDED && v.why == VWHY_BUSY && v.busy == 3);
    /* One busy round of four: the three quiet ones decide. */
    x.busy = one;
    x.nrounds = y.nrounds = 4;
    b[3] = 561;
    verdict_pair(&y, &x, W, &v);
    CHECK(v.verdict == VERDICT_SLOWER && v.busy == 1 && v.n == 3);
}

int main(void)
{
    T_RUN(quantiles);
    T_RUN(log_interval);
    T_RUN(decide);
    T_RUN(pairs);
    T_RUN(own_intervals);
    T_RUN(degenerate);
    T_RUN(busy_rounds);
    T_RUN(ranks);
    T_END("test_verdict");
}
