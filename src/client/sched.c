/* sched.c - the constant-rate schedule of a thread: its share of one
 * evenly spaced (or Poisson) global sequence, or of a ramp's. See
 * schedule.h. */
#include "schedule.h"

#include <math.h>
#include <string.h>

/* A constant rate's due time of place u in the sequence, rounded to the ns. */
static uint64_t at_place(const struct sched *s)
{
    return schedule_add(s->t0, schedule_ns(s->u * s->step_ns + 0.5));
}

void sched_init(struct sched *s, uint64_t t0, uint32_t id, uint32_t nthreads, double rate, int poisson,
                const struct ramp *ramp)
{
    memset(s, 0, sizeof(*s));
    s->poisson = poisson;
    s->rng = 0x9E3779B97F4A7C15ULL ^ ((uint64_t)id << 32 | 12345u);
    if (ramp) {
        /* Thread id sends requests id, id+n, ... of the ramp's sequence. */
        s->ramp = ramp;
        s->t0 = t0;
        s->u = id;
        s->du = nthreads;
        s->gap_ns = 1e9 * (double)nthreads; /* Poisson: a gap in the sequence, mean du */
        s->next_due = ramp_time(ramp, s->u) == UINT64_MAX ? UINT64_MAX : schedule_add(t0, ramp_time(ramp, s->u));
        return;
    }
    s->gap_ns = 1e9 * (double)nthreads / rate;
    s->step_ns = 1e9 / rate;
    /* Thread id's first request is request id of the global schedule; each
     * due time is computed from its place u in it (rounded to the ns), so
     * no truncation accumulates over a run. */
    s->t0 = t0;
    s->u = id;
    s->du = nthreads;
    s->next_due = at_place(s);
}

void sched_shift(struct sched *s, double frac, uint64_t salt)
{
    s->rng ^= salt * 0x9E3779B97F4A7C15ULL;
    if (s->rng == 0)
        s->rng = 1;
    if (s->ramp) {
        uint64_t t;
        s->u += frac;
        t = ramp_time(s->ramp, s->u);
        s->next_due = t == UINT64_MAX ? UINT64_MAX : schedule_add(s->t0, t);
        return;
    }
    /* This thread's first is already id steps in. */
    s->u += frac;
    s->next_due = at_place(s);
}

/* An exponential gap of mean gap_ns: the arrivals of a Poisson process. */
static uint64_t poisson_gap(struct sched *s)
{
    double u;
    /* xorshift64*: small, fast, and good enough to draw arrival times. */
    s->rng ^= s->rng >> 12;
    s->rng ^= s->rng << 25;
    s->rng ^= s->rng >> 27;
    u = (double)((s->rng * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
    return schedule_ns(-log(1.0 - u) * s->gap_ns);
}

uint64_t sched_next(struct sched *s)
{
    uint64_t due = s->next_due;
    if (s->ramp) {
        uint64_t t;
        /* Poisson over a ramp: exponential gaps in the sequence (mean du),
         * mapped through the ramp's time, as a non-homogeneous process. */
        s->u += s->poisson ? (double)poisson_gap(s) / 1e9 : s->du;
        t = ramp_time(s->ramp, s->u);
        s->next_due = t == UINT64_MAX ? UINT64_MAX : schedule_add(s->t0, t);
        return due;
    }
    if (s->poisson) {
        s->next_due = schedule_add(s->next_due, poisson_gap(s));
    } else {
        s->u += s->du;
        s->next_due = at_place(s);
    }
    return due;
}
