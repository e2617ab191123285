/* mpi_glue.h - what rafale-mpi adds to a run (built with mpicc and
 * -DRAFALE_MPI by `make mpi`; the plain rafale never links MPI): each rank
 * is one shard, set from MPI's rank and size; every rank checks its setup,
 * they agree on a start (MPI_Allgather, MPI_Bcast) or all stop with the
 * failed ranks' reasons on rank 0; rank 0's live view shows the totals;
 * at the end rank 0 gathers every rank's full result (MPI_Gatherv) and
 * merges them exactly, as rafale merge does. Private to src/cli/. */
#ifndef RAFALE_MPI_GLUE_H
#define RAFALE_MPI_GLUE_H

#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "progress.h"

struct mpig {
    int rank, size;
    struct progress *prog;      /* rank 0: the live view */
    struct engine_progress *last; /* rank 0: each rank's latest progress */
    int *done;                  /* rank 0: ranks whose last progress came */
    uint32_t ticks;
};

/* MPI_Init. Returns 0, or -1 (said on stderr). */
int mpig_begin(int *argc, char ***argv, struct mpig *m);
/* Every rank says whether it can run (ok, or the reason in why); all learn
 * it. Returns 0 when all can, with the common start time (Unix seconds)
 * in *start_at, unless it was given; -1 otherwise (rank 0 has printed each
 * failed rank's reason). */
int mpig_ready(struct mpig *m, int ok, const char *why, double *start_at);
/* The engine's progress callback: ranks send theirs to rank 0 about once
 * a second; rank 0 shows the sum (percentiles: the worst rank's). */
void mpig_progress(const struct engine_progress *p, void *arg);
/* After the run: every rank's result as --json writes it (json, len), or
 * its failure (json NULL, why). Rank 0 receives all (*jsons: size entries,
 * NULL where a rank failed; *whys alike), the others NULL. Returns 0 or -1. */
int mpig_gather(struct mpig *m, const char *json, size_t len, const char *why, char ***jsons, size_t **lens,
                char ***whys);
void mpig_end(struct mpig *m);

#endif
