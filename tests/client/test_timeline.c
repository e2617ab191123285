/* The timeline store: exact per-second percentiles over threads, bounded
 * memory however long the run. */
#include "timeline.h"
#include "../t.h"

#include <math.h>
#include <string.h>

static void exact_union(void)
{
    struct timeline t;
    struct hist a, b, u;
    uint64_t v;
    CHECK(timeline_init(&t, 2) == 0);
    hist_init_bits(&a, TL_SUB_BITS);
    hist_init_bits(&b, TL_SUB_BITS);
    hist_init_bits(&u, TL_SUB_BITS);
    /* Thread 0 fast, thread 1 slow: the second's p50 is the union's, not an average. */
    for (v = 1; v <= 900; v++) {
        hist_record(&a, 100000 + v);
        hist_record(&u, 100000 + v);
    }
    for (v = 1; v <= 100; v++) {
        hist_record(&b, 50000000 + v);
        hist_record(&u, 50000000 + v);
    }
    timeline_close(&t, 0, 900, 0, &a);
    CHECK(t.ndone == 0 && t.nopen == 1); /* open until both threads closed it */
    timeline_close(&t, 0, 100, 3, &b);
    CHECK(t.ndone == 1 && t.nopen == 0);
    CHECK(t.done[0].completed == 1000 && t.done[0].errors == 3);
    CHECK(t.done[0].p50_ns == hist_percentile(&u, 50) && t.done[0].p99_ns == hist_percentile(&u, 99));
    CHECK(t.done[0].max_ns == (double)u.max);
    /* One thread ahead by two seconds; the other catches up with empty ones. */
    timeline_close(&t, 1, 5, 0, NULL);
    timeline_close(&t, 2, 7, 0, NULL);
    CHECK(t.ndone == 1 && t.nopen == 2);
    timeline_close(&t, 1, 0, 0, NULL);
    CHECK(t.ndone == 2 && t.done[1].completed == 5 && t.done[1].p99_ns == 0);
    /* The end: the last second closed by one thread only is kept too. */
    timeline_finish(&t);
    CHECK(t.ndone == 3 && t.done[2].completed == 7 && t.nopen == 0);
    {
        struct tl_second last;
        double p90 = 0;
        CHECK(timeline_latest(&t, &last, &p90) == 1 && last.completed == 7 && p90 < 0); /* no live figures */
    }
    hist_fini(&a);
    hist_fini(&b);
    hist_fini(&u);
    timeline_fini(&t);
}

/* A day at -t 16: 16 threads close 86 400 seconds each. What stays is the
 * summaries (40 bytes a second) and at most a few open seconds. */
static void a_day_at_16_threads(void)
{
    struct timeline t;
    struct hist h;
    uint32_t sec, th, most_open = 0;
    CHECK(timeline_init(&t, 16) == 0);
    hist_init_bits(&h, TL_SUB_BITS);
    for (th = 0; th < 20; th++)
        hist_record(&h, 1000000 + th * 1000);
    for (sec = 0; sec < 86400; sec++) {
        for (th = 0; th < 16; th++)
            timeline_close(&t, sec, 20, 0, &h);
        if (t.nopen > most_open)
            most_open = t.nopen;
    }
    timeline_finish(&t);
    CHECK(t.ndone == 86400 && t.oom == 0 && most_open <= 1);
    CHECK(t.done[86399].completed == 320 && fabs(t.done[86399].p50_ns - 1.01e6) < 0.04e6);
    CHECKF(t.capdone * sizeof(struct tl_second) < 8u << 20, "%u seconds held", t.capdone);
    hist_fini(&h);
    timeline_fini(&t);
}

/* The live figures (--tui, --metrics-listen): the last second's p90 is
 * its union's, each time a second closes. */
static void latest_p90(void)
{
    struct timeline t;
    struct hist a, b;
    struct tl_second last;
    double p90 = 0;
    uint64_t v;
    CHECK(timeline_init(&t, 1) == 0);
    timeline_keep_cumulative(&t);
    hist_init_bits(&a, TL_SUB_BITS);
    hist_init_bits(&b, TL_SUB_BITS);
    for (v = 1; v <= 1000; v++)
        hist_record(&a, v * 1000);
    for (v = 1; v <= 10; v++)
        hist_record(&b, v * 1000000);
    CHECK(timeline_latest(&t, &last, &p90) == 0);
    timeline_close(&t, 0, 1000, 0, &a);
    CHECK(timeline_latest(&t, &last, &p90) == 1 && p90 == hist_percentile(&a, 90) && p90 > 850e3 && p90 < 950e3);
    timeline_close(&t, 1, 10, 0, &b);
    CHECK(timeline_latest(&t, &last, &p90) == 1 && p90 == hist_percentile(&b, 90) && p90 > 8e6 && p90 < 10e6);
    hist_fini(&a);
    hist_fini(&b);
    timeline_fini(&t);
}

int main(void)
{
    exact_union();
    latest_p90();
    a_day_at_16_threads();
    T_END("test_timeline");
}
