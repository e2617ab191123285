/* A run's batches of time: ticks added where they fall, the store folded
 * pair by pair (each batch twice as long) when a tick lands past BATCH_MAX,
 * nothing lost by a fold, a dropped store refusing more. */
#include "batch.h"
#include "../t.h"

#include <errno.h>

/* A tick of n answers, each of latency ms milliseconds. */
static void tick(struct hist *h, uint64_t n, uint64_t ms)
{
    hist_reset(h);
    hist_record_n(h, ms * 1000000ULL, n);
}

static uint64_t answers(const struct batches *s)
{
    uint64_t sum = 0;
    uint32_t i;
    for (i = 0; i < s->n; i++)
        sum += s->b[i].answers;
    return sum;
}

static void ticks_land_where_they_fall(void)
{
    struct batches s;
    struct hist h;
    CHECK(hist_init_bits(&h, 5) == 0);
    CHECK(batches_init(&s, 5) == 0);
    CHECK(s.n == 0 && s.len_ns == BATCH_TICK_NS && s.b != NULL);
    tick(&h, 3, 1);
    CHECK(batches_add(&s, 0, &h, 3) == 0);
    CHECK(s.n == 1 && s.b[0].answers == 3 && s.b[0].h.total == 3);
    /* A tick late in its batch still lands in it; a later one opens the
     * batches up to its own. */
    CHECK(batches_add(&s, BATCH_TICK_NS - 1, &h, 3) == 0);
    CHECK(s.n == 1 && s.b[0].answers == 6 && s.b[0].h.total == 6);
    tick(&h, 2, 7);
    CHECK(batches_add(&s, 5 * BATCH_TICK_NS, &h, 2) == 0);
    CHECK(s.n == 6 && s.b[5].answers == 2 && s.b[5].h.min == 7000000 && s.b[1].answers == 0);
    /* An empty histogram with answers (timeouts counted elsewhere). */
    hist_reset(&h);
    CHECK(batches_add(&s, 2 * BATCH_TICK_NS, &h, 4) == 0);
    CHECK(s.b[2].answers == 4 && s.b[2].h.total == 0);
    batches_fini(&s);
    hist_fini(&h);
}

static void full_store_doubles_the_tick(void)
{
    struct batches s;
    struct hist h;
    uint64_t i;
    CHECK(hist_init_bits(&h, 5) == 0);
    CHECK(batches_init(&s, 5) == 0);
    /* Tick i holds i + 1 answers of i + 1 ms: 128 ticks fill the store. */
    for (i = 0; i < BATCH_MAX; i++) {
        tick(&h, i + 1, i + 1);
        CHECK(batches_add(&s, i * BATCH_TICK_NS, &h, i + 1) == 0);
    }
    CHECK(s.n == BATCH_MAX && s.len_ns == BATCH_TICK_NS);
    CHECK(answers(&s) == BATCH_MAX * (BATCH_MAX + 1) / 2);
    /* The 129th: neighbours merged, 64 batches of two ticks, then it. */
    tick(&h, 1000, 200);
    CHECK(batches_add(&s, BATCH_MAX * BATCH_TICK_NS, &h, 1000) == 0);
    CHECK(s.len_ns == 2 * BATCH_TICK_NS);
    CHECKF(s.n == BATCH_MAX / 2 + 1, "n %u", s.n);
    CHECK(s.b[0].answers == 1 + 2 && s.b[0].h.total == 3 && s.b[0].h.min == 1000000 && s.b[0].h.max == 2000000);
    CHECK(s.b[63].answers == 127 + 128 && s.b[63].h.min == 127000000);
    CHECK(s.b[64].answers == 1000 && s.b[64].h.total == 1000);
    /* Nothing lost by the fold; the batches past n are empty again. */
    CHECK(answers(&s) == BATCH_MAX * (BATCH_MAX + 1) / 2 + 1000);
    CHECK(s.b[65].answers == 0 && s.b[65].h.total == 0 && s.b[BATCH_MAX - 1].answers == 0);
    batches_fini(&s);
    hist_fini(&h);
}

static void a_far_tick_folds_as_often_as_needed(void)
{
    struct batches s;
    struct hist h;
    CHECK(hist_init_bits(&h, 5) == 0);
    CHECK(batches_init(&s, 5) == 0);
    tick(&h, 1, 1);
    CHECK(batches_add(&s, 0, &h, 1) == 0);
    CHECK(batches_add(&s, 3 * BATCH_TICK_NS, &h, 1) == 0);
    /* Tick 1000 (about 31 s): 1000 / 8 = 125 < 128, so three folds. */
    CHECK(batches_add(&s, 1000 * BATCH_TICK_NS, &h, 5) == 0);
    CHECKF(s.len_ns == 8 * BATCH_TICK_NS, "len %llu", (unsigned long long)s.len_ns);
    CHECK(s.n == 126 && s.b[125].answers == 5);
    /* Ticks 0 and 3 are both in the first batch of 8 ticks. */
    CHECK(s.b[0].answers == 2 && s.b[0].h.total == 2);
    CHECK(answers(&s) == 7);
    /* An odd count folds too: the last batch alone moves down. */
    batches_fini(&s);
    CHECK(batches_init(&s, 5) == 0);
    CHECK(batches_add(&s, 2 * BATCH_TICK_NS, &h, 1) == 0);
    CHECK(s.n == 3);
    CHECK(batches_add(&s, BATCH_MAX * BATCH_TICK_NS, &h, 1) == 0);
    CHECK(s.n == 65 && s.b[1].answers == 1 && s.b[64].answers == 1 && answers(&s) == 2);
    batches_fini(&s);
    hist_fini(&h);
}

static void a_dropped_store_takes_nothing(void)
{
    struct batches s;
    struct hist h;
    CHECK(hist_init_bits(&h, 5) == 0);
    CHECK(batches_init(&s, 5) == 0);
    batches_fini(&s);
    CHECK(s.b == NULL && s.n == 0);
    batches_fini(&s); /* twice: safe */
    tick(&h, 1, 1);
    CHECK(batches_add(&s, 0, &h, 1) == ENOMEM);
    hist_fini(&h);
}

int main(void)
{
    T_RUN(ticks_land_where_they_fall);
    T_RUN(full_store_doubles_the_tick);
    T_RUN(a_far_tick_folds_as_often_as_needed);
    T_RUN(a_dropped_store_takes_nothing);
    T_END("batch");
}
