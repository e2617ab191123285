/* schedule.c - the constant-rate schedule and its backlog; see schedule.h. */
#include "schedule.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A time in ns from a double: never a conversion C leaves undefined (a
 * NaN, a negative, an infinite or too large gap saturate). */
static uint64_t to_ns(double x)
{
    if (!(x > 0))
        return 0;
    return x >= 18446744073709549568.0 ? UINT64_MAX : (uint64_t)x;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

void ramp_init(struct ramp *rp, double r0, const uint64_t *dur, const double *rate, uint32_t n)
{
    uint32_t i;
    memset(rp, 0, sizeof(*rp));
    rp->n = n > RAMP_MAX ? RAMP_MAX : n;
    rp->r[0] = r0;
    for (i = 0; i < rp->n; i++) {
        rp->t[i + 1] = rp->t[i] + dur[i];
        rp->r[i + 1] = rate[i];
        /* The area under a straight line: the mean rate times the time. */
        rp->cum[i + 1] = rp->cum[i] + (rp->r[i] + rp->r[i + 1]) / 2 * (double)dur[i] / 1e9;
    }
}

double ramp_count(const struct ramp *rp, uint64_t t)
{
    uint32_t i;
    for (i = 0; i < rp->n; i++)
        if (t < rp->t[i + 1]) {
            double d = (double)(rp->t[i + 1] - rp->t[i]) / 1e9, tau = (double)(t - rp->t[i]) / 1e9;
            return rp->cum[i] + rp->r[i] * tau + (rp->r[i + 1] - rp->r[i]) * tau * tau / (2 * d);
        }
    return rp->cum[rp->n];
}

double ramp_rate(const struct ramp *rp, uint64_t t)
{
    uint32_t i;
    for (i = 0; i < rp->n; i++)
        if (t < rp->t[i + 1])
            return rp->r[i] + (rp->r[i + 1] - rp->r[i]) * (double)(t - rp->t[i]) / (double)(rp->t[i + 1] - rp->t[i]);
    return rp->n ? rp->r[rp->n] : 0;
}

uint64_t ramp_time(const struct ramp *rp, double u)
{
    uint32_t i;
    for (i = 0; i < rp->n; i++) {
        double a = rp->r[i], b = rp->r[i + 1], d, k, disc, tau;
        if (u >= rp->cum[i + 1])
            continue;
        /* Within stage i: a*tau + (b-a)*tau^2/(2d) = k; the root written so
         * that it stays exact when b is close to a. */
        d = (double)(rp->t[i + 1] - rp->t[i]) / 1e9;
        k = u - rp->cum[i];
        disc = a * a + 2 * (b - a) * k / d;
        tau = 2 * k / (a + sqrt(disc > 0 ? disc : 0));
        if (!(tau >= 0))
            tau = 0;
        if (tau > d)
            tau = d;
        return add_sat(rp->t[i], to_ns(tau * 1e9));
    }
    return UINT64_MAX;
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
        s->next_due = ramp_time(ramp, s->u) == UINT64_MAX ? UINT64_MAX : add_sat(t0, ramp_time(ramp, s->u));
        return;
    }
    s->gap_ns = 1e9 * (double)nthreads / rate;
    s->step_ns = 1e9 / rate;
    /* Thread id's first request is request id of the global schedule. */
    s->next_due = add_sat(t0, to_ns((double)id * 1e9 / rate));
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
        s->next_due = t == UINT64_MAX ? UINT64_MAX : add_sat(s->t0, t);
        return;
    }
    /* One step of the sequence is gap_ns / nthreads; this thread's first is
     * already id steps in. */
    s->next_due = add_sat(s->next_due, to_ns(frac * s->step_ns));
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
    return to_ns(-log(1.0 - u) * s->gap_ns);
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
        s->next_due = t == UINT64_MAX ? UINT64_MAX : add_sat(s->t0, t);
        return due;
    }
    s->next_due = add_sat(s->next_due, s->poisson ? poisson_gap(s) : to_ns(s->gap_ns));
    return due;
}

int backlog_push(struct backlog *b, uint64_t due)
{
    if (b->len == b->cap) {
        uint32_t cap = b->cap ? b->cap * 2 : 1024, i;
        uint64_t *t = malloc(cap * sizeof(*t));
        if (t == NULL)
            return -1;
        for (i = 0; i < b->len; i++)
            t[i] = b->t[(b->head + i) % b->cap];
        free(b->t);
        b->t = t;
        b->head = 0;
        b->cap = cap;
    }
    b->t[(b->head + b->len) % b->cap] = due;
    b->len++;
    return 0;
}

uint64_t backlog_peek(const struct backlog *b)
{
    return b->t[b->head];
}

void backlog_pop(struct backlog *b)
{
    b->head = (b->head + 1) % b->cap;
    b->len--;
}

void backlog_free(struct backlog *b)
{
    free(b->t);
    memset(b, 0, sizeof(*b));
}
