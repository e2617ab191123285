/* rafale sweep's search, with a stand-in for the engine: a server that
 * holds the SLO up to a known rate. */
#include "sweep.h"
#include "../t.h"

#include <math.h>
#include <string.h>

struct fake {
    double limit;      /* passes up to this rate */
    int fail_after;    /* a step that cannot run, counting from 1 (0: never) */
    int runs;
};

static int fake_step(double rate, struct sweep_step *st, void *ctx, char *err, size_t errlen)
{
    struct fake *f = ctx;
    if (++f->runs == f->fail_after) {
        snprintf(err, errlen, "cannot run");
        return -1;
    }
    st->target = rate;
    st->sent = rate;
    st->pass = rate <= f->limit;
    return 0;
}

static void ramps_then_bisects_to_five_percent(void)
{
    atomic_int stop = 0;
    struct fake f = { 1234, 0, 0 };
    struct sweep_result r;
    char err[64];
    int i;
    CHECK(sweep_search(100, 1e7, &stop, fake_step, &f, NULL, NULL, &r, err, sizeof(err)) == 0);
    /* 100, 200, 400, 800, 1600 (fails), then bisection. */
    CHECK(r.n >= 5 && r.steps[0].target == 100 && r.steps[3].target == 800 && r.steps[4].target == 1600 &&
          !r.steps[4].pass);
    for (i = 5; i < r.n; i++)
        CHECK(r.steps[i].target > 800 && r.steps[i].target < 1600);
    CHECKF(r.knee <= 1234 && r.knee > 1234 / 1.05, "knee %.0f", r.knee);
    CHECK(!r.interrupted);
}

static void max_caps_the_ramp(void)
{
    atomic_int stop = 0;
    struct fake f = { 1e9, 0, 0 };
    struct sweep_result r;
    char err[64];
    CHECK(sweep_search(100, 500, &stop, fake_step, &f, NULL, NULL, &r, err, sizeof(err)) == 0);
    CHECK(r.n == 4 && r.steps[3].target == 500 && r.knee == 500);
}

static void nothing_passes(void)
{
    atomic_int stop = 0;
    struct fake f = { 10, 0, 0 };
    struct sweep_result r;
    char err[64];
    CHECK(sweep_search(100, 1e7, &stop, fake_step, &f, NULL, NULL, &r, err, sizeof(err)) == 0);
    CHECK(r.n == 1 && r.knee == 0);
}

static void a_step_that_cannot_run(void)
{
    atomic_int stop = 0;
    struct fake f = { 1234, 3, 0 };
    struct sweep_result r;
    char err[64];
    CHECK(sweep_search(100, 1e7, &stop, fake_step, &f, NULL, NULL, &r, err, sizeof(err)) == -1 &&
          strcmp(err, "cannot run") == 0);
}

static void stopped(void)
{
    atomic_int stop = 1;
    struct fake f = { 1234, 0, 0 };
    struct sweep_result r;
    char err[64];
    CHECK(sweep_search(100, 1e7, &stop, fake_step, &f, NULL, NULL, &r, err, sizeof(err)) == 0);
    CHECK(r.n == 0 && r.interrupted && f.runs == 0);
}

int main(void)
{
    T_RUN(ramps_then_bisects_to_five_percent);
    T_RUN(max_caps_the_ramp);
    T_RUN(nothing_passes);
    T_RUN(a_step_that_cannot_run);
    T_RUN(stopped);
    T_END("test_sweep");
}
