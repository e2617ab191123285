/* schedule.h - the constant-rate schedule (-R) and its backlog.
 *
 * One evenly spaced global schedule (or one Poisson process) is shared out
 * over the threads: thread i of n sends requests i, i+n, i+2n, ..., so the
 * total is even whatever -R and -t are. Due requests that find no free
 * connection wait in the backlog, keeping their due time: latency is then
 * measured from when each request should have been sent (no coordinated
 * omission). Pure functions: no clock, no I/O. */
#ifndef RAFALE_SCHEDULE_H
#define RAFALE_SCHEDULE_H

#include <stdint.h>

struct sched {
    uint64_t next_due;   /* ns, on the clock_ns() scale */
    double gap_ns;       /* mean gap between this thread's requests */
    int poisson;
    uint64_t rng;        /* xorshift64* state */
};

/* The schedule of thread id of nthreads, for rate requests per second in
 * total, starting at t0. */
void sched_init(struct sched *s, uint64_t t0, uint32_t id, uint32_t nthreads, double rate, int poisson);
/* The due time of the next request; the schedule moves past it. */
uint64_t sched_next(struct sched *s);

/* A FIFO of due times. */
struct backlog {
    uint64_t *t;
    uint32_t head, len, cap;
};

/* Returns 0, or -1 when out of memory. */
int backlog_push(struct backlog *b, uint64_t due);
/* The oldest due time; the backlog must not be empty. */
uint64_t backlog_peek(const struct backlog *b);
void backlog_pop(struct backlog *b);
void backlog_free(struct backlog *b);

#endif
