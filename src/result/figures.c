/* figures.c - a run's figures freed, whoever filled them (the engine, a
 * result read back, a merge). */
#include "figures.h"

#include <stdlib.h>
#include <string.h>

void figures_free(struct run_figures *f)
{
    uint32_t i;
    if (f->per_target)
        for (i = 0; i < f->ntargets; i++)
            stats_fini(&f->per_target[i]);
    free(f->per_target);
    free(f->checks);
    free(f->var_names);
    free(f->skipped_var);
    free(f->target_in_flight);
    free(f->timeline);
    if (f->tl_hist)
        for (i = 0; i < f->nseconds; i++)
            hist_fini(&f->tl_hist[i]);
    free(f->tl_hist);
    batches_fini(&f->batches);
    free(f->shards);
    if (f->per_stage)
        for (i = 0; i < f->nstages; i++)
            stats_fini(&f->per_stage[i]);
    free(f->per_stage);
    stats_fini(&f->total);
    hist_fini(&f->ends);
    memset(f, 0, sizeof(*f));
}
