/* The constant-rate schedule: threads interleave into one evenly spaced
 * stream; Poisson gaps have the right mean; the backlog keeps due times in
 * order however far it grows. */
#include "../src/schedule.h"
#include "t.h"

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
        sched_init(&s[k], t0, (uint32_t)k, T, 300, 0);
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

static void one_per_second_over_ten_connections(void)
{
    /* -R 1 over 2 threads: one request a second in all, the threads taking turns. */
    struct sched a, b;
    sched_init(&a, 0, 0, 2, 1, 0);
    sched_init(&b, 0, 1, 2, 1, 0);
    CHECK(sched_next(&a) == 0 && sched_next(&b) == 1000000000ULL);
    CHECK(sched_next(&a) == 2000000000ULL && sched_next(&b) == 3000000000ULL);
}

static void poisson_gaps(void)
{
    struct sched s, again;
    double sum = 0, prev, first;
    int i, n = 100000, ok = 1;
    sched_init(&s, 0, 0, 1, 1000, 1);
    sched_init(&again, 0, 0, 1, 1000, 1);
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
    sched_init(&s, 0, 0, 1, 1000, 1);
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

int main(void)
{
    T_RUN(threads_interleave_evenly);
    T_RUN(one_per_second_over_ten_connections);
    T_RUN(poisson_gaps);
    T_RUN(backlog_fifo);
    T_END("test_schedule");
}
