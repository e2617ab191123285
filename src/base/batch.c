/* batch.c - a worker's batches of time (batch.h). */
#include "batch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int batches_init(struct batches *s, uint32_t sub_bits)
{
    uint32_t i;
    memset(s, 0, sizeof(*s));
    s->len_ns = BATCH_TICK_NS;
    if ((s->b = calloc(BATCH_MAX, sizeof(*s->b))) == NULL)
        return ENOMEM;
    for (i = 0; i < BATCH_MAX; i++)
        hist_init_bits(&s->b[i].h, sub_bits);
    return 0;
}

void batches_fini(struct batches *s)
{
    uint32_t i;
    if (s->b)
        for (i = 0; i < BATCH_MAX; i++)
            hist_fini(&s->b[i].h);
    free(s->b);
    s->b = NULL;
    s->n = 0;
}

/* Neighbours merged pair by pair: half as many batches, twice as long. */
static int fold(struct batches *s)
{
    uint32_t i;
    for (i = 0; i < (s->n + 1) / 2; i++) {
        struct batch *to = &s->b[i], *a = &s->b[2 * i], *b = 2 * i + 1 < s->n ? &s->b[2 * i + 1] : NULL;
        if (to != a) {
            hist_reset(&to->h);
            if (hist_merge(&to->h, &a->h) != 0)
                return ENOMEM;
            to->answers = a->answers;
        }
        if (b) {
            if (hist_merge(&to->h, &b->h) != 0)
                return ENOMEM;
            to->answers += b->answers;
        }
    }
    for (; i < s->n; i++) {
        hist_reset(&s->b[i].h);
        s->b[i].answers = 0;
    }
    s->n = (s->n + 1) / 2;
    s->len_ns *= 2;
    return 0;
}

/* Drops the store: an interval from part of the run would be a wrong one. */
static int drop(struct batches *s, int e)
{
    batches_fini(s);
    return e;
}

int batches_add(struct batches *s, uint64_t at, const struct hist *h, uint64_t answers)
{
    uint64_t i;
    if (s->b == NULL)
        return ENOMEM;
    while ((i = at / s->len_ns) >= BATCH_MAX)
        if (fold(s) != 0)
            return drop(s, ENOMEM);
    if (i >= s->n)
        s->n = (uint32_t)i + 1;
    if (h->total && hist_merge(&s->b[i].h, h) != 0)
        return drop(s, ENOMEM);
    s->b[i].answers += answers;
    return 0;
}
