/* SLO parsing and evaluation tests. */
#include "slo.h"
#include "stats.h"
#include "../t.h"

#include <string.h>

static void parses(void)
{
    struct slo s;
    char err[256];
    CHECK(slo_parse("p99<50ms,errors<0.1%,rps>10000", &s, err, sizeof(err)) == 0);
    CHECK(s.n == 3 && s.goal[0].metric == SLO_PCT && s.goal[0].pct == 99 && s.goal[0].threshold == 50e6 &&
          s.goal[0].less);
    CHECK(s.goal[1].metric == SLO_ERRORS_PCT && s.goal[1].threshold == 0.1);
    CHECK(s.goal[2].metric == SLO_RPS && s.goal[2].threshold == 10000 && !s.goal[2].less);
    CHECK(slo_parse(" p99.9 <= 1s , max<2s, mean<1ms, errors<=5 ", &s, err, sizeof(err)) == 0 && s.n == 4);
    CHECK(s.goal[0].pct == 99.9 && s.goal[0].or_equal && s.goal[3].metric == SLO_ERRORS && s.goal[3].threshold == 5);
    CHECK(slo_parse("bad_status<1%,bad_status<=3", &s, err, sizeof(err)) == 0 && s.goal[0].metric == SLO_BAD_PCT &&
          s.goal[1].metric == SLO_BAD && s.goal[1].threshold == 3);
}

static void refuses(void)
{
    struct slo s;
    char err[256];
    CHECK(slo_parse("p99<50", &s, err, sizeof(err)) == -1 && strstr(err, "with a unit") != NULL);
    CHECK(slo_parse("latency<5ms", &s, err, sizeof(err)) == -1 && strstr(err, "unknown measure") != NULL);
    CHECK(slo_parse("p99", &s, err, sizeof(err)) == -1);
    CHECK(slo_parse("errors<x%", &s, err, sizeof(err)) == -1);
    CHECK(slo_parse("bad_status<1%%", &s, err, sizeof(err)) == -1);
    CHECK(slo_parse("", &s, err, sizeof(err)) == -1 && strstr(err, "no goal given") != NULL);
    {
        char many[SLO_MAX * 8 + 16] = "";
        int i;
        for (i = 0; i <= SLO_MAX; i++)
            strcat(many, "p99<1s,");
        CHECKF(slo_parse(many, &s, err, sizeof(err)) == -1 && strstr(err, "at most 16 goals") != NULL, "%s", err);
    }
}

static void evaluates(void)
{
    struct slo s;
    struct stats t;
    char err[256];
    uint64_t v;
    CHECK(stats_init(&t) == 0);
    for (v = 1; v <= 1000; v++)
        hist_record(&t.h[H_LATENCY], v * 100000); /* 0.1 .. 100 ms */
    t.completed = 990;
    t.errors[ERR_TIMEOUT_ANSWER] = 10;
    t.bad_status = 99;
    CHECK(slo_parse("p50<60ms,p99<50ms,errors<2%,errors<1%,rps>=990,bad_status<=10%", &s, err, sizeof(err)) == 0);
    CHECK(slo_eval(&s, &t, 1.0) == 2);
    CHECK(s.goal[0].pass && !s.goal[1].pass && s.goal[2].pass && !s.goal[3].pass && s.goal[4].pass && s.goal[5].pass);
    CHECK(s.goal[2].value == 1.0 && s.goal[5].value == 10.0);
    /* No latency sample proves nothing: a latency check fails. */
    stats_fini(&t);
    stats_init(&t);
    CHECK(slo_parse("p99<1s", &s, err, sizeof(err)) == 0 && slo_eval(&s, &t, 1.0) == 1);
    stats_fini(&t);
}

int main(void)
{
    T_RUN(parses);
    T_RUN(refuses);
    T_RUN(evaluates);
    T_END("test_slo");
}
