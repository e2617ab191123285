/* schedule.h - the constant-rate schedule (-R), its ramps (--stages) and
 * its backlog: sched.c, ramp.c, backlog.c.
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

/* A time in ns from a double: never a conversion C leaves undefined (a
 * NaN, a negative, an infinite or too large gap saturate). */
static inline uint64_t schedule_ns(double x)
{
    if (!(x > 0))
        return 0;
    return x >= 18446744073709549568.0 ? UINT64_MAX : (uint64_t)x;
}

static inline uint64_t schedule_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* --stages: a rate that moves linearly from one value to the next over each
 * stage (k6's ramping-arrival-rate). N(t), the requests due by t, is then
 * piecewise quadratic, and the k-th request is due at N^-1(k). */
#define RAMP_MAX 64
struct ramp {
    uint32_t n;                    /* stages */
    uint64_t t[RAMP_MAX + 1];      /* stage boundaries, ns from the start */
    double r[RAMP_MAX + 1];        /* the rate at each boundary, req/s */
    double cum[RAMP_MAX + 1];      /* requests due before each boundary */
};

/* Stages of dur[i] ns ending at rate[i], from rate r0 at the start. */
void ramp_init(struct ramp *rp, double r0, const uint64_t *dur, const double *rate, uint32_t n);
/* N(t): requests due in the first t ns. */
double ramp_count(const struct ramp *rp, uint64_t t);
/* When request u (0-based, fractional) is due, ns from the start, or
 * UINT64_MAX when it falls after the last stage. */
uint64_t ramp_time(const struct ramp *rp, double u);
/* The rate at time t. */
double ramp_rate(const struct ramp *rp, uint64_t t);

struct sched {
    uint64_t next_due;   /* ns, on the clock_ns() scale */
    double gap_ns;       /* mean gap between this thread's requests */
    double step_ns;      /* one step of the whole sequence (all threads) */
    int poisson;
    uint64_t rng;        /* xorshift64* state */
    const struct ramp *ramp; /* NULL: a constant rate */
    /* This thread's place u in the global sequence (advancing du a
     * request), from t0: each due time is computed, never summed. */
    uint64_t t0;
    double u, du;
};

/* The schedule of thread id of nthreads, for rate requests per second in
 * total (or the ramp, when not NULL), starting at t0. */
void sched_init(struct sched *s, uint64_t t0, uint32_t id, uint32_t nthreads, double rate, int poisson,
                const struct ramp *ramp);
/* Moves the schedule by frac (0 <= frac < 1) of one step of its sequence,
 * and draws Poisson gaps from a stream of its own (salt): shard i of n
 * takes frac = i/n, so n shards make one evenly spaced stream. */
void sched_shift(struct sched *s, double frac, uint64_t salt);
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
