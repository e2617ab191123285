/* schedule.c - the constant-rate schedule and its backlog; see schedule.h. */
#include "schedule.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void sched_init(struct sched *s, uint64_t t0, uint32_t id, uint32_t nthreads, double rate, int poisson)
{
    memset(s, 0, sizeof(*s));
    s->gap_ns = 1e9 * (double)nthreads / rate;
    s->poisson = poisson;
    s->rng = 0x9E3779B97F4A7C15ULL ^ ((uint64_t)id << 32 | 12345u);
    /* Thread id's first request is request id of the global schedule. */
    s->next_due = t0 + (uint64_t)((double)id * 1e9 / rate);
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
    return (uint64_t)(-log(1.0 - u) * s->gap_ns);
}

uint64_t sched_next(struct sched *s)
{
    uint64_t due = s->next_due;
    s->next_due += s->poisson ? poisson_gap(s) : (uint64_t)s->gap_ns;
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
