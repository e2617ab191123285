/* figures: a run's figures freed whatever arrays they hold, one at a time
 * or all (the sanitized build's leak check sees anything left behind), and
 * zeroed after; the rows of the per-target figures, the targets past
 * FIGURES_TARGETS sharing one. */
#include "figures.h"
#include "../t.h"

#include <stdlib.h>
#include <string.h>

static int zeroed(const struct run_figures *f)
{
    static const struct run_figures z;
    return memcmp(f, &z, sizeof(z)) == 0;
}

/* The histograms and arrays of f: those named in which (a bit each). */
static void fill(struct run_figures *f, unsigned which)
{
    uint32_t i;
    memset(f, 0, sizeof(*f));
    if (which & 1) {
        stats_init(&f->total);
        hist_record(&f->total.h[H_LATENCY], 1500000);
        hist_init(&f->ends);
        hist_record(&f->ends, 2500000);
    }
    if (which & 2) {
        f->ntargets = 3;
        f->per_target = calloc(3, sizeof(*f->per_target));
        f->target_in_flight = calloc(3, sizeof(uint64_t));
        for (i = 0; i < 3; i++) {
            stats_init(&f->per_target[i]);
            hist_record(&f->per_target[i].h[H_CONNECT], 1000 * (i + 1));
        }
    }
    if (which & 4) {
        f->nchecks = 2;
        f->checks = calloc(2, sizeof(*f->checks));
        f->nvars = 1;
        f->var_names = calloc(1, sizeof(*f->var_names));
        f->skipped_var = calloc(1, sizeof(uint64_t));
    }
    if (which & 8) {
        f->nseconds = 4;
        f->timeline = calloc(4, sizeof(*f->timeline));
        f->tl_hist = calloc(4, sizeof(*f->tl_hist));
        for (i = 0; i < 4; i++) {
            hist_init_bits(&f->tl_hist[i], TL_SUB_BITS);
            hist_record_n(&f->tl_hist[i], 2000000 + i, 10);
        }
    }
    if (which & 16) {
        f->nstages = 2;
        f->per_stage = calloc(2, sizeof(*f->per_stage));
        for (i = 0; i < 2; i++) {
            stats_init(&f->per_stage[i]);
            hist_record(&f->per_stage[i].h[H_LATENCY], 3000000);
        }
    }
    if (which & 32) {
        struct hist h;
        f->nshards = 2;
        f->shards = calloc(2, sizeof(*f->shards));
        batches_init(&f->batches, TL_SUB_BITS);
        hist_init_bits(&h, TL_SUB_BITS);
        hist_record(&h, 4000000);
        batches_add(&f->batches, 0, &h, 1);
        batches_add(&f->batches, BATCH_TICK_NS, &h, 1);
        hist_fini(&h);
    }
}

static void free_each_part(void)
{
    struct run_figures f;
    unsigned which;
    for (which = 1; which < 64; which <<= 1) {
        fill(&f, which);
        figures_free(&f);
        CHECKF(zeroed(&f), "part %u", which);
    }
}

static void free_all(void)
{
    struct run_figures f;
    fill(&f, 63);
    CHECK(f.per_target[2].h[H_CONNECT].total == 1 && f.tl_hist[3].total == 10 && f.batches.n == 2);
    figures_free(&f);
    CHECK(zeroed(&f));
    figures_free(&f); /* a zeroed one is fine, and stays so */
    CHECK(zeroed(&f));
}

/* Counts without arrays (a result read back with no per-second rows):
 * nothing to free at those counts. */
static void counts_without_arrays(void)
{
    struct run_figures f;
    memset(&f, 0, sizeof(f));
    f.ntargets = 5;
    f.nseconds = 7;
    f.nstages = 2;
    figures_free(&f);
    CHECK(zeroed(&f));
}

static void target_rows(void)
{
    CHECK(figures_row(0) == 0 && figures_row(FIGURES_TARGETS - 1) == FIGURES_TARGETS - 1);
    CHECK(figures_row(FIGURES_TARGETS) == FIGURES_TARGETS && figures_row(100000) == FIGURES_TARGETS);
    CHECK(figures_row(UINT32_MAX) == FIGURES_TARGETS);
    CHECK(figures_rows(0) == 0 && figures_rows(1) == 1 && figures_rows(FIGURES_TARGETS) == FIGURES_TARGETS);
    /* Past the limit, one more row: the others'. */
    CHECK(figures_rows(FIGURES_TARGETS + 1) == FIGURES_TARGETS + 1 && figures_rows(100000) == FIGURES_TARGETS + 1);
    /* Every target's row is one of its run's rows. */
    {
        uint32_t n, i, ok = 1;
        for (n = 1; n < FIGURES_TARGETS + 5; n++)
            for (i = 0; i < n; i++)
                ok &= figures_row(i) < figures_rows(n);
        CHECK(ok);
    }
}

int main(void)
{
    T_RUN(free_each_part);
    T_RUN(free_all);
    T_RUN(counts_without_arrays);
    T_RUN(target_rows);
    T_END("test_figures");
}
