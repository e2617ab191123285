/* engine_figs.h - the rows the engine keeps its figures in: one per
 * target up to ENGINE_TARGET_FIGS, and the live figures of --metrics-listen.
 * Its own header so that the workers' bookkeeping (record.c) and the
 * engine's callers share them without record.c seeing engine.h (engine ->
 * record, never back). */
#ifndef RAFALE_ENGINE_FIGS_H
#define RAFALE_ENGINE_FIGS_H

#include <stdint.h>

#include "hist.h"
#include "stats.h"

/* Per-target figures are kept for the first ENGINE_TARGET_FIGS targets; the
 * others (a targets file of 100 000 paths) share one more row, "other",
 * so the figures stay within a few MiB a thread. */
#define ENGINE_TARGET_FIGS 200

/* The row of a target's figures, and the rows for ntargets targets. */
static inline uint32_t engine_fig(uint32_t target)
{
    return target < ENGINE_TARGET_FIGS ? target : ENGINE_TARGET_FIGS;
}

static inline uint32_t engine_nfigs(uint32_t ntargets)
{
    return ntargets > ENGINE_TARGET_FIGS ? ENGINE_TARGET_FIGS + 1 : ntargets;
}

/* --metrics-listen: the run so far, as its threads last told it (each
 * once a second): responses by status, errors by kind, requests by target
 * (the first ENGINE_LIVE_FIGS, then the rest together), the latency
 * of the seconds done (TL_SUB_BITS precision). */
#define ENGINE_LIVE_FIGS 100
struct engine_live {
    uint64_t status[STATUS_MAX];
    uint64_t errors[ERR__COUNT];
    uint64_t targets[ENGINE_LIVE_FIGS + 1];
    uint64_t counters[COUNTERS_NROWS]; /* by the counters' rows that have a metric (counters.h) */
    uint32_t ntargets;           /* of targets[] in use (the last: the others) */
    uint64_t started, ended;     /* in flight: started - ended */
    uint32_t open;               /* connections open */
    int rate_mode;               /* -R (or --stages of rates) */
    double target_rate;          /* the schedule's rate now, 0 in a closed loop */
    /* -R: requests due and not yet sent (no free connection), and how late
     * the oldest of them is now: the schedule's lag (0 on time). */
    uint64_t backlog;
    double lag_s;
    double elapsed_s;
    /* The seconds every thread has closed, and the answers and errors in
     * them: the live charts' points, exact whatever the moment of the look. */
    uint32_t closed_s;
    uint64_t closed_req, closed_err;
    struct hist latency;         /* of the seconds every thread has closed */
};

#endif
