/* The constant-rate schedule: threads interleave into one evenly spaced
 * stream; Poisson gaps have the right mean; the backlog keeps due times in
 * order however far it grows. */
#include "schedule.h"
#include "../t.h"

#include <math.h>
#include <stdlib.h>

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void threads_interleave_evenly(void)
{
    /* 300 req/s from 3 threads: together, one request every 3.33 ms. */
    enum { T = 3, N = 300 };
    struct sched s[T];
    uint64_t due[T * N], t0 = 1000000000ULL;
    int i, k, ok = 1;
    for (k = 0; k < T; k++)
        sched_init(&s[k], t0, (uint32_t)k, T, 300, 0, NULL);
    for (k = 0; k < T; k++)
        for (i = 0; i < N; i++)
            due[k * N + i] = sched_next(&s[k]);
    qsort(due, T * N, sizeof(due[0]), cmp_u64);
    CHECK(due[0] == t0);
    for (i = 1; i < T * N; i++) {
        double gap = (double)(due[i] - due[i - 1]);
        if (fabs(gap - 1e9 / 300) > 2) /* truncation of each thread's gap: a few ns */
            ok = 0;
    }
    CHECK(ok);
    /* Each thread's own gap: 10 ms. */
    CHECK(s[0].gap_ns == 1e9 * 3 / 300);
}

/* Due times come from each request's place in the sequence, not from a
 * gap added again and again: -R 3000 on 2 threads has a gap of 666 666.67
 * ns, and adding its truncation 4 500 times ran 3 us early, so a 3 s run
 * sent 9 001 requests. No drift, at any rate: exactly rate x seconds fall
 * before the end. */
static void no_drift_over_a_run(void)
{
    static const double rates[] = { 3000, 7, 333333, 1e6 / 3 };
    uint32_t r, k;
    for (r = 0; r < sizeof(rates) / sizeof(rates[0]); r++) {
        for (uint32_t nt = 1; nt <= 3; nt++) {
            uint64_t secs = rates[r] < 100 ? 300 : 3, end = 5 + secs * 1000000000ULL, n = 0, last = 0;
            for (k = 0; k < nt; k++) {
                struct sched s;
                uint64_t d;
                sched_init(&s, 5, k, nt, rates[r], 0, NULL);
                while ((d = sched_next(&s)) < end) {
                    n++;
                    if (d > last)
                        last = d;
                }
            }
            CHECK(n == (uint64_t)(rates[r] * (double)secs + 0.5));
            /* The last one within a nanosecond of where it belongs. */
            CHECK(fabs((double)(last - 5) - (double)(n - 1) * 1e9 / rates[r]) <= 1);
        }
    }
}

static void one_per_second_over_ten_connections(void)
{
    /* -R 1 over 2 threads: one request a second in all, the threads taking turns. */
    struct sched a, b;
    sched_init(&a, 0, 0, 2, 1, 0, NULL);
    sched_init(&b, 0, 1, 2, 1, 0, NULL);
    CHECK(sched_next(&a) == 0 && sched_next(&b) == 1000000000ULL);
    CHECK(sched_next(&a) == 2000000000ULL && sched_next(&b) == 3000000000ULL);
}

static void poisson_gaps(void)
{
    struct sched s, again;
    double sum = 0, prev, first;
    int i, n = 100000, ok = 1;
    sched_init(&s, 0, 0, 1, 1000, 1, NULL);
    sched_init(&again, 0, 0, 1, 1000, 1, NULL);
    prev = (double)sched_next(&s);
    first = prev;
    for (i = 0; i < n; i++) {
        double d = (double)sched_next(&s);
        if (d < prev)
            ok = 0;
        sum += d - prev;
        prev = d;
    }
    CHECK(ok && first == 0);
    CHECKF(fabs(sum / n - 1e6) < 0.02e6, "mean gap %.0f ns", sum / n);
    /* The same seed gives the same arrivals. */
    for (i = 0; i < 10; i++)
        sched_next(&again);
    sched_init(&s, 0, 0, 1, 1000, 1, NULL);
    for (i = 0; i < 10; i++)
        sched_next(&s);
    CHECK(sched_next(&s) == sched_next(&again));
}

static void backlog_fifo(void)
{
    struct backlog b = { 0 };
    uint64_t i;
    int ok = 1;
    for (i = 0; i < 5000; i++) {
        if (backlog_push(&b, i * 10) != 0)
            ok = 0;
        if (i % 3 == 2) {
            /* pop as we go, so the ring wraps while it grows */
            if (backlog_peek(&b) != (i / 3) * 10)
                ok = 0;
            backlog_pop(&b);
        }
    }
    CHECK(b.len == 5000 - 5000 / 3 && ok);
    for (i = 5000 / 3; b.len; i++) {
        if (backlog_peek(&b) != i * 10)
            ok = 0;
        backlog_pop(&b);
    }
    CHECK(ok && i == 5000);
    backlog_free(&b);
    CHECK(b.t == NULL && b.len == 0);
}

/* --stages 10s:1000,10s:1000,5s:0 from 0: a ramp up, a hold, a ramp down. */
static void ramp_integral_and_inverse(void)
{
    const uint64_t dur[3] = { 10000000000ULL, 10000000000ULL, 5000000000ULL };
    const double rate[3] = { 1000, 1000, 0 };
    struct ramp rp;
    uint64_t t;
    ramp_init(&rp, 0, dur, rate, 3);
    /* Requests due: the areas, 5000 + 10000 + 2500. */
    CHECKF(fabs(ramp_count(&rp, 10000000000ULL) - 5000) < 1e-6, "%f", ramp_count(&rp, 10000000000ULL));
    CHECK(fabs(ramp_count(&rp, 20000000000ULL) - 15000) < 1e-6);
    CHECK(fabs(ramp_count(&rp, 25000000000ULL) - 17500) < 1e-6);
    CHECK(fabs(ramp_count(&rp, 5000000000ULL) - 1250) < 1e-6); /* a quarter of the first triangle */
    CHECK(fabs(ramp_rate(&rp, 5000000000ULL) - 500) < 1e-9 && ramp_rate(&rp, 15000000000ULL) == 1000);
    /* The inverse lands where the count says. */
    for (t = 100000000ULL; t < 25000000000ULL; t += 700000000ULL) {
        double u = ramp_count(&rp, t);
        uint64_t back = ramp_time(&rp, u);
        CHECKF(back > t - 1000 && back < t + 1000, "t %llu, back %llu", (unsigned long long)t, (unsigned long long)back);
    }
    CHECK(ramp_time(&rp, 17500.5) == UINT64_MAX);
}

/* Two threads over a ramp send, together, the ramp's requests, stage by stage. */
static void threads_share_a_ramp(void)
{
    const uint64_t dur[2] = { 2000000000ULL, 2000000000ULL };
    const double rate[2] = { 400, 100 };
    struct ramp rp;
    struct sched a, b;
    uint64_t per_stage[2] = { 0, 0 }, last = 0;
    int ok = 1;
    ramp_init(&rp, 0, dur, rate, 2);
    sched_init(&a, 1000, 0, 2, 0, 0, &rp);
    sched_init(&b, 1000, 1, 2, 0, 0, &rp);
    for (;;) {
        struct sched *s = a.next_due <= b.next_due ? &a : &b;
        uint64_t d;
        if (s->next_due == UINT64_MAX)
            break;
        d = sched_next(s);
        if (d < last)
            ok = 0;
        last = d;
        per_stage[d - 1000 >= 2000000000ULL]++;
    }
    /* 400/2*2 = 400 in the first stage, (400+100)/2*2 = 500 in the second. */
    CHECKF(ok && per_stage[0] == 400 && per_stage[1] == 500, "%llu %llu", (unsigned long long)per_stage[0],
           (unsigned long long)per_stage[1]);
}

/* A gap no clock holds saturates (UBSan's float-cast-overflow checks the
 * sanitized build); a ramp down to 0 req/s ends the schedule. */
static void huge_gaps_saturate(void)
{
    static const double rates[] = { 1e-300, 1e-30, 4.9e-324 };
    struct sched s;
    struct ramp rp;
    uint64_t dur[2] = { 1000000000ULL, 1000000000ULL }, t, prev = 0;
    double to[2] = { 100, 0 };
    size_t i;
    int k, ok = 1;
    for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
        sched_init(&s, 5, 1, 4, rates[i], 0, NULL);
        CHECK(s.next_due == UINT64_MAX);
        sched_next(&s);
        CHECK(sched_next(&s) == UINT64_MAX && s.next_due == UINT64_MAX);
        sched_init(&s, 5, 0, 1, rates[i], 1, NULL);
        sched_next(&s);
        CHECK(s.next_due == UINT64_MAX);
    }
    /* 0 -> 100 req/s over 1 s, then down to 0 over 1 s: 100 requests. */
    ramp_init(&rp, 0, dur, to, 2);
    sched_init(&s, 0, 0, 1, 0, 0, &rp);
    for (k = 0; k < 200 && (t = sched_next(&s)) != UINT64_MAX; k++) {
        if (t < prev || t > 2000000000ULL)
            ok = 0;
        prev = t;
    }
    CHECKF(ok && k >= 99 && k <= 101, "%d requests over the ramp", k);
}

int main(void)
{
    T_RUN(ramp_integral_and_inverse);
    T_RUN(threads_share_a_ramp);
    T_RUN(threads_interleave_evenly);
    T_RUN(no_drift_over_a_run);
    T_RUN(one_per_second_over_ten_connections);
    T_RUN(poisson_gaps);
    T_RUN(backlog_fifo);
    T_RUN(huge_gaps_saturate);
    T_END("test_schedule");
}
