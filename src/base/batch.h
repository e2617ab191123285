/* batch.h - a run's batches of time, for the intervals of its figures
 * (interval.h).
 *
 * A worker records each answer into the histogram of its current tick, as
 * it always did into its second's (one record per answer, nothing more);
 * 32 ticks a second, each tick is added to the batch it falls in. A batch
 * starts a tick long and doubles whenever the store is full (neighbour
 * batches merged pair by pair), so a run of any length keeps between
 * BATCH_MAX / 2 and BATCH_MAX batches in bounded memory: a few hundred KiB
 * in all. Batch i covers the same time for every thread: the threads add
 * their ticks into one store, under a lock, 32 times a second each. */
#ifndef RAFALE_BATCH_H
#define RAFALE_BATCH_H

#include <stdint.h>

#include "clock.h"
#include "hist.h"

#define BATCH_TICK_NS (NS_PER_S / 32)
#define BATCH_MAX 128

struct batch {
    struct hist h;              /* the latency of what ended in it (answers and timeouts), TL_SUB_BITS */
    uint64_t answers;           /* responses that ended in it */
};

struct batches {
    struct batch *b;            /* BATCH_MAX, NULL: none kept (out of memory) */
    uint32_t n;                 /* batches begun */
    uint64_t len_ns;            /* the length of each, a tick times a power of two */
};

/* An empty store (sub_bits: its histograms' precision). Returns 0 or an
 * errno value. */
int batches_init(struct batches *s, uint32_t sub_bits);
/* Frees it; safe on a zeroed one. */
void batches_fini(struct batches *s);
/* Adds what ended in the tick that starts at ns `at` into the measured
 * phase: its histogram and its answers. Returns 0 or an errno value (then
 * the store is dropped: no interval rather than a wrong one). */
int batches_add(struct batches *s, uint64_t at, const struct hist *h, uint64_t answers);

#endif
